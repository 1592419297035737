#!/usr/bin/python3
"""Host side: results.json of bench/classify.py -> plot.png + table.md.

  python3 -m bench.report DIR [--stock STOCKDIR] [--out OUTDIR]
  python3 -m bench.report --summary --guest-rc RC DIR   (make bench-smoke)

DIR (and STOCKDIR, a run on the stock kernel) hold results.json; plot.png
and table.md go to OUTDIR (default DIR).

This file holds the command line, the page's head and tail (how the run
was made, every point, the guest's checks) and the order of table.md's
sections; the sections live beside it: report_rules (rules-vs-cost and
stock), report_masks, report_ranges, report_issues (issues 31 and 33),
control_report (control plane), report_plot (plot.png) and report_points
(reading results.json).
"""
import argparse
import os
import sys

from bench.control_report import control_section, parallel_section
from bench.report_issues import issue33_section, issue_section
from bench.report_masks import masks_section
from bench.report_plot import plot
from bench.report_points import NOCACHE, load
from bench.report_ranges import ranges_section
from bench.report_rules import classify_table, stock_section, verdicts
from flower import guest


def measured(m):
    """" of commit C (cls_flower srcversion S)", as much as meta m has."""
    out = " of commit %s" % m["commit"] if m.get("commit") else ""
    if m.get("srcversion"):
        out += " (cls_flower srcversion %s)" % m["srcversion"]
    return out


def run_description(res, stock=None):
    """The title, how the run was made and the classify section's head."""
    m = res["meta"]
    title = "# Classifier benchmark: %s kernel %s" % (m["variant"],
                                                      m["kernel"])
    sm = stock["meta"] if stock else None
    return [title, "",
            "Run %s%s, %s guest, %d vCPU, %s, median of %d (test, "
            "matchall) run pairs of %g s per point; the script took %.0f s "
            "of guest time. See bench/README.md for the method." % (
                m["date"], measured(m), m["accel"].upper(), m["cpus"],
                ("time base QEMU -icount: %d ns of guest time per guest "
                 "instruction, so rates count instructions, independent of "
                 "host load" % m["ns_per_insn"]) if m.get("ns_per_insn")
                else "host wall clock (clocksource %s): noisy"
                % m.get("clocksource", "?"),
                m["runs"], m["seconds"], m.get("elapsed_s", 0)), ""] + \
        (["Stock run %s%s, the same way; %.0f s of guest time." % (
            sm["date"], measured(sm), sm.get("elapsed_s", 0)), ""]
         if sm else []) + \
        (["Ours' flow cache: `flow_cache` was %s%s." % (
            m["flow_cache"], "; `--flow-cache both`: flower-masks-1prio "
            "measured again with the filters made with it off (cases "
            "`*%s`)" % NOCACHE if m.get("flow_cache_both") else ""), ""]
         if m.get("flow_cache") else []) + \
        ["## Classify cost relative to matchall drop", "",
            "Cost per packet divided by the cost of a single matchall drop "
            "rule measured in the same run, right after each measurement "
            "(1.00 = as cheap as matchall). Columns: number of rules.", ""]


def abs_table(res):
    npi = res["meta"].get("ns_per_insn")
    out = ["| classifier | case | rules | pps (median) | ns/packet | %s"
           "matchall pps (same run) | cost ratio | packets | checked |"
           % ("guest insns/packet | " if npi else ""),
           "|---|---|---|---|---|---|---|---|---|" + ("---|" if npi else "")]
    for p in res["points"]:
        out.append("| %s | %s | %d | %.0f | %.0f | %s%.0f | %.2f | %d | %s |"
                   % (p["classifier"], p["case"], p["rules"], p["pps"],
                      p["cost_ns"],
                      ("%.0f | " % (p["cost_ns"] / npi)) if npi else "",
                      p["base_pps"], p["ratio"], p["packets"], p["verified"]))
    return out


def all_points_section(res, stock):
    """Every point's absolute numbers, ours then stock's."""
    out = ["", "## All points (absolute numbers are %s; compare "
           "ratios)" % ("emulated guest time: instructions, not what "
                        "hardware would do" if res["meta"].get("ns_per_insn")
                        else "TCG wall clock: noise +-15% or worse"), ""]
    out += abs_table(res)
    if stock:
        out += ["", "Stock kernel:", ""] + abs_table(stock)
    return out


def checks_line(res):
    """The guest's own checks, with what failed."""
    ch = res["checks"]
    return ["", "Checks in the guest: %d passed, %d failed%s." % (
        ch["passed"], ch["failed"],
        (": " + "; ".join(ch["failures"])) if ch["failed"] else "")]


def table(res, stock):
    out = run_description(res, stock)
    out += classify_table(res)
    out += ["", "## Acceptance", ""] + verdicts(res)
    out += masks_section(res, stock)
    out += ranges_section(res, stock)
    out += issue_section(res, stock)
    out += issue33_section(res, stock)
    if stock:
        out += stock_section(res, stock)
    out += control_section(res, stock)
    out += parallel_section(res, stock)
    out += all_points_section(res, stock)
    out += checks_line(res)
    return "\n".join(out) + "\n"


def summary(a):
    """Smoke: the guest's checks plus ours; `N passed, N failed`; rc."""
    passed, failed = 0, 0

    def check(name, ok, detail=""):
        nonlocal passed, failed
        passed, failed = passed + bool(ok), failed + (not ok)
        print("%s  %s%s" % ("ok  " if ok else "FAIL", name,
                            (": " + detail) if detail else ""))
    check("guest run exited 0", a.guest_rc == 0, "exit %d%s" % (
        a.guest_rc, " (%s)" % guest.verdict(a.guest_rc)
        if guest.verdict(a.guest_rc) else ""))
    try:
        res = load(a.dir)
    except (OSError, ValueError) as e:
        check("results.json readable", False, str(e))
        res = None
    if res:
        passed += res["checks"]["passed"]
        failed += res["checks"]["failed"]
        try:
            with open(os.path.join(a.dir, "table.md"), "w") as f:
                f.write(table(res, None))
            plot(res, None, os.path.join(a.dir, "plot.png"))
            ok = os.path.getsize(os.path.join(a.dir, "plot.png")) > 0
            check("report: table.md and plot.png written", ok)
        except Exception as e:     # noqa: BLE001 -- any failure is a FAIL
            check("report: table.md and plot.png written", False, repr(e))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("dir")
    p.add_argument("--stock", help="results of the same run on --variant "
                                   "stock")
    p.add_argument("--out", help="output directory (default: DIR)")
    p.add_argument("--summary", action="store_true",
                   help="smoke mode: write the report, print the guest's "
                        "and our checks as `N passed, N failed`")
    p.add_argument("--guest-rc", type=int, default=0,
                   help="exit status of guest/run (with --summary)")
    a = p.parse_args()
    if a.summary:
        return summary(a)
    res = load(a.dir)
    stock = load(a.stock) if a.stock else None
    out = a.out or a.dir
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "table.md"), "w") as f:
        f.write(table(res, stock))
    plot(res, stock, os.path.join(out, "plot.png"))
    print("report: %s, %s" % (os.path.join(out, "table.md"),
                              os.path.join(out, "plot.png")))


if __name__ == "__main__":
    sys.exit(main())
