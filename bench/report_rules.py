# SPDX-License-Identifier: GPL-2.0
"""table.md's parts on the rules-vs-cost lines of part 1 (flower,
flower-prios and u32 at N rules): the ratio table, the acceptance
verdicts (flower flat, u32 linear) and the stock run beside ours.
"""
from bench.report_points import GROUPED_KINDS, LABEL, ORDER, one, series


def classify_table(res):
    counts = sorted({p["rules"] for p in res["points"] if p["rules"] > 1
                     and p["classifier"] not in GROUPED_KINDS} | {1})
    head = "| classifier | matching rule | " + " | ".join(
        "%d" % n for n in counts) + " |"
    out = [head, "|" + "---|" * (len(counts) + 2)]
    for kind in ORDER:
        for case in ("last", "first"):
            xs, pts = series(res, kind, case)
            by = {p["rules"]: p for p in pts}
            cells = ["%.2f" % by[n]["ratio"] if n in by else ""
                     for n in counts]
            if not by:      # a kind this run did not measure (--only)
                continue
            out.append("| %s | %s | %s |" % (LABEL[kind], case,
                                             " | ".join(cells)))
    for kind in ("matchall", "nofilter"):
        p = one(res, kind)
        if p:
            out.append("| %s | - | %.2f |%s" % (LABEL[kind], p["ratio"],
                                                " |" * (len(counts) - 1)))
    return out


def verdicts(res):
    c = res["criteria"]
    out = []
    if "flower_growth" in c:
        out.append("- **flower, one instance, flat:** cost at %d rules is "
                   "%.2fx the cost at %d rule (criterion: within 1.5x): "
                   "**%s**." % (c["to_rules"], c["flower_growth"],
                                c["from_rules"],
                                "holds" if c["flower_flat"] else
                                "does NOT hold"))
    if "u32_growth" in c:
        per = c["u32_per_rule_at"]
        out.append("- **u32 grows linearly:** cost at %d rules is %.1fx the "
                   "cost at 1 rule; added cost per rule (in matchall-drop "
                   "units) %s: **%s** (linear: the per-rule cost at the two "
                   "largest counts within 2x of each other)." % (
                       c["to_rules"], c["u32_growth"],
                       ", ".join("%s at %s rules" % (v, k)
                                 for k, v in per.items()),
                       "holds" if c["u32_linear"] else "does NOT hold"))
    return out


def stock_table(res, stock):
    out = ["| rules | case | ours: flower x matchall | stock: flower x "
           "matchall | ours: flower-prios | stock: flower-prios |",
           "|---|---|---|---|---|---|"]
    key = lambda r: {(p["classifier"], p["case"], p["rules"]): p  # noqa
                     for p in r["points"]}
    a, b = key(res), key(stock)
    for n in sorted({p["rules"] for p in res["points"] if p["rules"] > 0
                     and p["classifier"] not in GROUPED_KINDS}):
        for case in ("last", "first"):
            row = [a.get(("flower", case, n)), b.get(("flower", case, n)),
                   a.get(("flower-prios", case, n)),
                   b.get(("flower-prios", case, n))]
            if any(row):
                out.append("| %d | %s | %s |" % (n, case, " | ".join(
                    "%.2f" % r["ratio"] if r else "" for r in row)))
    return out


def same_kernel(res, stock):
    """Whether the stock run booted ours' kernel image (make stock-ext)."""
    a, b = res["meta"].get("build"), stock["meta"].get("build")
    if not a or not b:
        return "(Which kernel image the stock run booted is not recorded.)"
    if a == b:
        return ("Both runs booted the same kernel image (`%s`): the stock "
                "run differs from ours only in the cls_flower module "
                "(`make stock-ext`)." % a)
    return ("The two runs booted different kernel images (ours `%s`, "
            "stock `%s`): a full `make kernel VARIANT=stock` build, whose "
            "configuration may differ; compare the ratios to matchall, "
            "not the absolute numbers." % (a, b))


def stock_section(res, stock):
    """The stock run's classify ratios beside ours, and its verdicts."""
    sm = stock["meta"]
    return (["", "## Stock cls_flower (same method, `--variant stock`, "
             "kernel %s%s%s)" % (sm["kernel"], ", commit %s" % sm["commit"]
                                 if sm.get("commit") else "",
                                 ", cls_flower srcversion %s"
                                 % sm["srcversion"]
                                 if sm.get("srcversion") else ""),
             "", same_kernel(res, stock), ""] + stock_table(res, stock) +
            ["", "Stock acceptance:", ""] + verdicts(stock))
