# SPDX-License-Identifier: GPL-2.0
"""bench.report: issue 33's classify numbers, from made-up runs.

The numbers are invented (matchall at 1000 instructions per packet, so a
point's ratio is its cost / 1000); the tests check which rows the report
writes, the values it divides and the verdicts it gives.
"""

import os
import tempfile
import unittest

from bench import classify_rules, report, report_issues, report_plot, \
    report_points

NPI = 8     # ns per guest instruction (icount shift 3)


def pt(kind, case, n, insns):
    return dict(classifier=kind, case=case, rules=n,
                pps=1e9 / (insns * NPI), pps_runs=[], base_pps=1e6 / 8,
                base_pps_runs=[], cost_ns=insns * NPI,
                ratio=round(insns / 1000, 3), packets=100,
                verified="qdisc")


def made_up(variant, points, **meta):
    m = dict(variant=variant, kernel="6.1.192", build="#1", accel="tcg",
             cpus=1, ns_per_insn=NPI, date="2026-12-07", runs=5,
             seconds=1.0, masks=[1, 8, 64, 256], ranges=[1, 100, 1000],
             commit="0123abc", srcversion="SRC" + variant.upper(),
             elapsed_s=100)
    m.update(meta)
    return dict(meta=m, points=points, criteria={}, skipped=[],
                control=[], control_parallel=[],
                checks=dict(passed=1, failed=0, failures=[]))


def ours(nocache=True):
    k = "flower-masks-1prio"
    p = [pt("matchall", "last", 1, 1000), pt("flower", "last", 1, 1200),
         pt(k, "last", 1, 1200)]
    for m in (8, 64, 256):
        p += [pt(k, "last", m, 1220), pt(k, "newflow", m, 100 * m + 80)]
        if nocache:
            p += [pt(k, "last-nocache", m, 100 * m),
                  pt(k, "newflow-nocache", m, 100 * m + 20)]
    for n, c in ((1, 1300), (100, 2000), (1000, 2500)):
        p += [pt("flower-range", "last", n, c),
              pt("flower-range", "miss", n, c - 100)]
    return made_up("ours", p, flow_cache="Y", flow_cache_both=nocache)


def stock():
    k = "flower-masks-1prio"
    p = [pt("matchall", "last", 1, 1000), pt("flower", "last", 1, 1500),
         pt(k, "last", 1, 1500)]
    for m in (8, 64, 256):
        p += [pt(k, "last", m, 800 * m), pt(k, "newflow", m, 800 * m)]
    for n in (1, 100, 1000):
        p += [pt("flower-range", "last", n, 3000 + 20 * n),
              pt("flower-range", "miss", n, 2000 + 20 * n)]
    return made_up("stock", p, commit="4567def")


def rows(res, stk):
    return {r[0]: r[1:] for r in report_issues.issue33_rows(res, stk)}


class TestIssue33(unittest.TestCase):
    def test_rows_and_verdicts(self):
        r = rows(ours(), stock())
        one = r["one mask (flower, one instance, 1 rule)"]
        self.assertEqual(one[:2], ("1.20x (1200)", "1.50x (1500)"))
        self.assertEqual(one[2:], ("<= 1.11x matchall", "**does NOT hold**",
                                   "**does NOT hold**"))
        m64 = r["M = 64 masks in one prio, one flow repeated"]
        self.assertEqual(m64, ("1.22x (1220)", "51.20x (51200)",
                               "<= 1.4x matchall", "holds",
                               "**does NOT hold**"))
        self.assertEqual(r["M = 256 masks in one prio, one flow "
                           "repeated"][2:4], ("<= 1.5x matchall", "holds"))
        self.assertEqual(r["M = 8 masks in one prio, one flow repeated"][2:],
                         ("-", "-", "-"))
        new = next(v for k, v in r.items() if "a new flow" in k)
        # 6480 / 6420 = 1.009: cache on over cache off, both new flows
        self.assertEqual(new[0], "1.009x (6480 / 6420)")
        self.assertEqual(new[2:], ("<= 1.10x", "holds", "-"))
        grow = next(v for k, v in r.items()
                    if k.startswith("range filters, port in the last"))
        self.assertEqual(grow, ("1.92x", "7.62x", "<= 2.0x", "holds",
                                "**does NOT hold**"))

    def test_new_flows_above_the_target_fail(self):
        res = ours()
        for p in res["points"]:
            if p["case"] == "newflow" and p["rules"] == 64:
                p["cost_ns"] = 7100 * NPI       # 7100 / 6420 = 1.106
        new = next(v for k, v in rows(res, stock()).items()
                   if "a new flow" in k)
        self.assertEqual(new[3], "**does NOT hold**")

    def test_without_cache_off_points_says_so(self):
        new = next(v for k, v in rows(ours(nocache=False), None).items()
                   if "a new flow" in k)
        self.assertIn("not measured", new[0])
        self.assertEqual(new[3], "-")

    def test_page_names_both_commits_and_modules_in_its_head(self):
        text = report.table(ours(), stock())
        head = "\n".join(text.splitlines()[:15])
        for s in ("0123abc", "SRCOURS", "4567def", "SRCSTOCK"):
            self.assertIn(s, head)
        self.assertIn("## Issue 33's classify numbers", text)
        self.assertIn("### M masks in one prio, with and without the flow "
                      "cache", text)
        # ours' walk without the cache, as a slope of its own
        self.assertIn("flow cache off (`last-nocache`)", text)

    def test_smoke_shape_has_no_new_rows_and_plots(self):
        k = "flower-masks-1prio"
        res = made_up("ours", [pt("matchall", "last", 1, 1000),
                           pt(k, "last", 1, 1200), pt(k, "last", 8, 1220),
                           pt("flower-range", "last", 10, 1500),
                           pt("flower-range", "miss", 10, 1400)],
                  masks=[1, 8], ranges=[10], flow_cache="Y")
        text = report.table(res, None)
        self.assertNotIn("with and without the flow cache", text)
        self.assertNotIn("a new flow per packet:", text)
        with tempfile.TemporaryDirectory() as d:
            report_plot.plot(res, None, os.path.join(d, "plot.png"))
            self.assertGreater(os.path.getsize(os.path.join(d,
                                                            "plot.png")), 0)


class TestClassifyNocache(unittest.TestCase):
    def test_nocache_case_sends_what_its_case_sends(self):
        for case in ("last", "newflow"):
            self.assertEqual(
                classify_rules.target("flower-masks-1prio", 64,
                                      case + classify_rules.NOCACHE),
                classify_rules.target("flower-masks-1prio", 64, case))
        self.assertEqual(classify_rules.NOCACHE, report_points.NOCACHE)


if __name__ == "__main__":
    unittest.main()
