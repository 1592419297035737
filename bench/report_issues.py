# SPDX-License-Identifier: GPL-2.0
"""table.md's sections on the issues' classify targets: issue 31's
numbers (one mask, M masks in one prio and the range filters against
stock) and issue 33's (the flow cache: one flow, a new flow per packet,
and the range filters' growth), each value with its verdict.
"""
from bench.report_points import (GROUPED_KINDS, NOCACHE, RANGE_CASE,
                                  RANGE_CASES, RANGE_KIND, insns,
                                  mask_runs, point, range_points)

# issue 31, "Numbers": classify targets
ONE_MASK_MAX = 1.25         # flower, one mask: x matchall
MASKS_1PRIO_M = 64          # M masks in one prio ...
MASKS_1PRIO_MAX = 0.33      # ... ours / stock
RANGE_MAX_VS_STOCK = 1.0    # range filters: ours / stock per packet
# issue 33 (the flow cache and what is left after it): classify targets
I33_ONE_MASK_MAX = 1.11     # flower, one mask: x matchall (u32's cost)
I33_MASKS_MAX = {64: 1.4, 256: 1.5}   # M masks in one prio, one flow
I33_NEWFLOW_M = 64          # every packet a new flow, M masks in one prio:
I33_NEWFLOW_MAX = 1.10      # cost / the same module's cost without cache
I33_RANGE_GROWTH_MAX = 2.0  # range filters: cost at N max / cost at N = 1


def issue_numbers(res, stock):
    """Issue 31's classify numbers, each with the measured value and
    whether it holds (a number not measured in these runs says so)."""
    out = []
    pts = sorted((p for p in res["points"] if p["classifier"] == "flower"),
                 key=lambda p: (p["rules"], p["case"] != "last"))
    if pts:
        one = pts[0]
        bad = [p for p in pts if p["ratio"] > ONE_MASK_MAX]
        out.append("- **One mask <= %.2fx matchall** (flower, one "
                   "instance): %.3fx at %d rule%s; %s: **%s**." % (
                       ONE_MASK_MAX, one["ratio"], one["rules"],
                       "" if one["rules"] == 1 else "s",
                       ", ".join("%.3fx at %d rules, %s rule's key" % (
                           p["ratio"], p["rules"], p["case"])
                           for p in pts[1:]) or "no other point",
                       "holds" if not bad else
                       "does NOT hold at %s" % ", ".join(
                           "%d rules (%s)" % (p["rules"], p["case"])
                           for p in bad)))
    else:
        out.append("- One mask <= %.2fx matchall: not measured in this "
                   "run." % ONE_MASK_MAX)
    if stock:
        _, by = mask_runs(res, stock)
        o = by.get(("ours", "flower-masks-1prio"), {}).get(MASKS_1PRIO_M)
        t = by.get(("stock", "flower-masks-1prio"), {}).get(MASKS_1PRIO_M)
        if o and t:
            r = insns(res, o) / insns(stock, t)
            out.append("- **M = %d masks in one prio <= %.2fx stock:** "
                       "ours %.0f, stock %.0f %s/packet, %.2fx: **%s**."
                       % (MASKS_1PRIO_M, MASKS_1PRIO_MAX, insns(res, o),
                          insns(stock, t), "insns" if
                          res["meta"].get("ns_per_insn") else "ns", r,
                          "holds" if r <= MASKS_1PRIO_MAX else
                          "does NOT hold"))
        else:
            out.append("- M = %d masks in one prio <= %.2fx stock: not "
                       "measured on both kernels." % (MASKS_1PRIO_M,
                                                      MASKS_1PRIO_MAX))
        o, t = range_points(res), range_points(stock)
        both = sorted(set(o) & set(t), key=lambda k: (k[1], k[0]))
        if both:
            rs = [(k, insns(res, o[k]) / insns(stock, t[k])) for k in both]
            bad = [(k, r) for k, r in rs if r > RANGE_MAX_VS_STOCK]
            out.append("- **Range filters (N = %s in one mask): ours <= "
                       "stock per packet:** ours / stock %s: **%s**." % (
                           ", ".join(str(n) for n in
                                     sorted({k[1] for k in both})),
                           ", ".join("%.2fx (N=%d, %s)" % (r, k[1], k[0])
                                     for k, r in rs),
                           "holds" if not bad else
                           "does NOT hold at %s" % ", ".join(
                               "N=%d %s" % (k[1], k[0]) for k, _ in bad)))
        else:
            out.append("- Range filters, ours <= stock: not measured on "
                       "both kernels.")
    else:
        out.append("- M = %d masks in one prio and the range filters "
                   "against stock: need a stock run (`make bench "
                   "VARIANT=stock`)." % MASKS_1PRIO_M)
    return out


def issue_section(res, stock):
    """Issue 31's numbers, when the run measured flower or a grouped
    kind (the numbers are about those)."""
    if not any(p["classifier"] in GROUPED_KINDS + ("flower",)
               for p in res["points"]):
        return []
    return ["", "## Issue 31's classify numbers", ""] + \
        issue_numbers(res, stock)


def i33_cell(r, p):
    """x matchall (guest insns or ns per packet) of point p, or ""."""
    return "%.2fx (%.0f)" % (p["ratio"], insns(r, p)) if p else ""


def i33_verdict(value, limit):
    if value is None:
        return "-"
    return "holds" if value <= limit else "**does NOT hold**"


def issue33_rows(res, stock):
    """Issue 33's classify numbers: [(number, ours, stock, target, ours'
    verdict, stock's verdict)], each measured value as x matchall (cost
    per packet)."""
    rows = []
    kinds = [("ours" if stock else res["meta"]["variant"], res)] + \
        ([("stock", stock)] if stock else [])
    # one mask: flower, one instance, 1 rule
    o, t = point(res, "flower", "last", 1), point(stock, "flower", "last", 1)
    if o or t:
        rows.append(("one mask (flower, one instance, 1 rule)",
                     i33_cell(res, o), i33_cell(stock, t),
                     "<= %.2fx matchall" % I33_ONE_MASK_MAX,
                     i33_verdict(o and o["ratio"], I33_ONE_MASK_MAX),
                     i33_verdict(t and t["ratio"], I33_ONE_MASK_MAX)))
    # M masks in one prio, one flow repeated
    ms = sorted({p["rules"] for _, r in kinds for p in r["points"]
                 if p["classifier"] == "flower-masks-1prio" and
                 p["case"] == "last"})
    for m in ms:
        o = point(res, "flower-masks-1prio", "last", m)
        t = point(stock, "flower-masks-1prio", "last", m)
        lim = I33_MASKS_MAX.get(m)
        rows.append(("M = %d masks in one prio, one flow repeated" % m,
                     i33_cell(res, o), i33_cell(stock, t),
                     "<= %.1fx matchall" % lim if lim else "-",
                     i33_verdict(o and o["ratio"], lim) if lim else "-",
                     i33_verdict(t and t["ratio"], lim) if lim else "-"))
    # every packet a new flow: cost with the cache / cost without it
    m = I33_NEWFLOW_M
    on = point(res, "flower-masks-1prio", "newflow", m)
    off = point(res, "flower-masks-1prio", "newflow" + NOCACHE, m)
    t = point(stock, "flower-masks-1prio", "newflow", m)
    if on or t:
        r = insns(res, on) / insns(res, off) if on and off else None
        rows.append((
            "M = %d masks in one prio, every packet a new flow: cost with "
            "the flow cache / cost without it (same module, "
            "`flow_cache=N`)" % m,
            ("%.3fx (%.0f / %.0f)" % (r, insns(res, on), insns(res, off))
             if r else "cache off not measured (`--flow-cache both`)")
            if on else "",
            "no flow cache (new flows %s)" % i33_cell(stock, t) if t else "",
            "<= %.2fx" % I33_NEWFLOW_MAX,
            i33_verdict(r, I33_NEWFLOW_MAX), "-"))
    # range filters
    for case in RANGE_CASES:
        ns = sorted({p["rules"] for _, r in kinds for p in r["points"]
                     if p["classifier"] == RANGE_KIND and
                     p["case"] == case})
        for n in ns:
            rows.append(("N = %d range filters, packet's port %s" % (
                n, RANGE_CASE[case]),
                i33_cell(res, point(res, RANGE_KIND, case, n)),
                i33_cell(stock, point(stock, RANGE_KIND, case, n)),
                "-", "-", "-"))
        if len(ns) > 1 and ns[0] == 1:
            g = []
            for r in (res, stock):
                a, b = point(r, RANGE_KIND, case, 1), \
                    point(r, RANGE_KIND, case, ns[-1])
                g.append(insns(r, b) / insns(r, a) if a and b else None)
            rows.append((
                "range filters, port %s: cost at N = %d / cost at N = 1"
                % (RANGE_CASE[case], ns[-1]),
                "%.2fx" % g[0] if g[0] else "",
                "%.2fx" % g[1] if g[1] else "",
                "<= %.1fx" % I33_RANGE_GROWTH_MAX,
                i33_verdict(g[0], I33_RANGE_GROWTH_MAX),
                i33_verdict(g[1], I33_RANGE_GROWTH_MAX)))
    return rows


def flow_cache_table(res, stock):
    """M masks in one prio with ours' flow cache on and off, one flow and
    a new flow per packet, and stock ([] without a newflow point)."""
    kind = "flower-masks-1prio"
    cols = [("ours, cache on: one flow", res, "last"),
            ("ours, cache on: a new flow per packet", res, "newflow"),
            ("ours, cache off: one flow", res, "last" + NOCACHE),
            ("ours, cache off: a new flow per packet", res,
             "newflow" + NOCACHE)]
    if stock:
        cols += [("stock: one flow", stock, "last"),
                 ("stock: a new flow per packet", stock, "newflow")]
    if not any(point(r, kind, c, p["rules"]) for _, r, c in cols
               for p in r["points"] if c != "last"):
        return []
    ms = sorted({p["rules"] for _, r, _ in cols for p in r["points"]
                 if p["classifier"] == kind})
    out = ["| masks M | " + " | ".join(h for h, _, _ in cols) + " |",
           "|---:|" + "---:|" * len(cols)]
    for m in ms:
        out.append("| %d | %s |" % (m, " | ".join(
            i33_cell(r, point(r, kind, c, m)) or ("-" if m == 1 else "")
            for _, r, c in cols)))
    return out


def issue33_section(res, stock):
    """Issue 33's classify numbers ([] when the run has none of them)."""
    rows = issue33_rows(res, stock)
    if not rows:
        return []
    unit = "guest instructions" if res["meta"].get("ns_per_insn") else \
        "wall-clock ns"
    name = "ours" if stock else res["meta"]["variant"]
    out = ["", "## Issue 33's classify numbers", "",
           "Ours has a per-CPU flow cache in front of the mask walk of a "
           "prio with 4 masks or more (`cls_flower.c`'s top comment; "
           "module parameter `flow_cache`, on by default, for the bench "
           "only): one flow repeated is a cache hit after its first "
           "packet. Each value is the cost per packet x the matchall-drop "
           "cost of the same run, with %s per packet in brackets; the new-"
           "flow row divides ours' cost with the cache by the cost of the "
           "same filters made with `flow_cache=N`, measured in the same "
           "run. The verdicts are each kernel's against issue 33's "
           "target." % unit, "",
           "| number | %s | %s | target | %s | %s |" % (
               name, "stock" if stock else "stock (no run)", name,
               "stock"),
           "|---|---:|---:|---|---|---|"]
    out += ["| %s | %s | %s | %s | %s | %s |" % row for row in rows]
    ft = flow_cache_table(res, stock)
    if ft:
        out += ["", "### M masks in one prio, with and without the flow "
                "cache", "",
                "The same M filters in prio 1 (the matching one last, "
                "as above); one flow: every packet 10.255.0.1 to "
                "10.0.0.1; a new flow per packet: the destination steps "
                "through 10.0.0.0/8 under the last mask's prefix (all "
                "the last filter's; at M = 8 the prefix holds 128 "
                "addresses, so some packets hit). Cache off: the filters "
                "made again with `flow_cache=N`, in the same run. M = 1 "
                "never has a cache. x matchall (%s per packet)." % unit,
                ""] + ft
    return out
