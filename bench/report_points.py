# SPDX-License-Identifier: GPL-2.0
"""Reading bench/classify.py's results.json for the report: the points of
a kind and case, a point's cost per packet, the many-masks and
port-range points by count, and the kinds' names and labels that every
part of table.md and plot.png shares.
"""
import json
import os

ORDER = ["flower", "flower-prios", "u32"]
LABEL = {"flower": "flower, one instance (hash)",
         "flower-prios": "flower, one prio per rule (walk)",
         "u32": "u32 (linear list)", "matchall": "matchall drop",
         "nofilter": "no filter",
         "flower-masks": "flower, M masks, one prio per mask",
         "flower-masks-1prio": "flower, M masks in one prio",
         "flower-range": "flower, N dst_port ranges in one mask"}
MASK_KINDS = ("flower-masks", "flower-masks-1prio")
RANGE_KIND = "flower-range"
# kinds whose points are not the rules-vs-cost lines of part 1
GROUPED_KINDS = MASK_KINDS + (RANGE_KIND,)
# classify.py --flow-cache both: flower-masks-1prio's cases again, made
# with ours' flow cache off, named CASE + NOCACHE
NOCACHE = "-nocache"
# where the port-range kind's cases put the packet's port
RANGE_CASE = {"last": "in the last-inserted range",
              "miss": "in no range (prio 2's matchall drops it)"}
RANGE_CASES = ("last", "miss")


def load(d):
    with open(os.path.join(d, "results.json")) as f:
        return json.load(f)


def series(res, kind, case):
    pts = sorted((p for p in res["points"] if p["classifier"] == kind and
                  (p["case"] == case or p["rules"] == 1)),
                 key=lambda p: p["rules"])
    return [p["rules"] for p in pts], pts


def one(res, kind):
    return next((p for p in res["points"] if p["classifier"] == kind), None)


def clock(m):
    return ("icount time base" if m.get("ns_per_insn") else
            "wall clock (%s)" % m.get("clocksource", "?"))


def lsq_slope(xs, ys):
    """Least-squares slope of ys over xs."""
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    var = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / var


def mask_runs(res, stock):
    runs = [("ours" if stock else res["meta"]["variant"], res)] + \
        ([("stock", stock)] if stock else [])
    by = {}
    for name, r in runs:
        for kind in MASK_KINDS:
            d = {p["rules"]: p for p in series(r, kind, "last")[1]}
            if d:
                by[(name, kind)] = d
        # the walk without ours' flow cache (M = 1: no cache either way)
        d = {p["rules"]: p for p in series(r, "flower-masks-1prio",
                                           "last" + NOCACHE)[1]}
        if len(d) > 1:
            by[(name, "flower-masks-1prio" + NOCACHE)] = d
    return runs, by


def insns(r, p):
    n = r["meta"].get("ns_per_insn")
    return p["cost_ns"] / n if n else p["cost_ns"]


def range_points(r):
    """{(case, N): point} of the port-range kind."""
    return {(p["case"], p["rules"]): p for p in r["points"]
            if p["classifier"] == RANGE_KIND}


def point(r, kind, case, n):
    """The point of kind, case and count n in run r, or None."""
    if not r:
        return None
    return next((p for p in r["points"] if p["classifier"] == kind and
                 p["case"] == case and p["rules"] == n), None)
