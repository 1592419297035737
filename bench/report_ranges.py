# SPDX-License-Identifier: GPL-2.0
"""table.md's "Port ranges" section: N dst_port range filters in one
mask, the packet in the last range or in none, each kernel's cost and
what one more range filter costs.
"""
from bench.report_points import RANGE_CASE, insns, range_points


def range_table(res, stock):
    """Port ranges: per N and case, each kernel's cost, and ours / stock."""
    o = range_points(res)
    t = range_points(stock) if stock else {}
    if not o and not t:
        return []
    unit = "guest insns/packet" if res["meta"].get("ns_per_insn") \
        else "ns/packet"
    name = "ours" if stock else res["meta"]["variant"]
    head = ["range filters N", "packet's port", "%s: %s" % (name, unit),
            "%s x matchall" % name]
    if stock:
        head += ["stock: %s" % unit, "stock x matchall", "ours / stock"]
    out = ["| " + " | ".join(head) + " |",
           "|---:|---|" + "---:|" * (len(head) - 2)]
    for case, n in sorted(set(o) | set(t), key=lambda k: (k[1], k[0])):
        a, b = o.get((case, n)), t.get((case, n))
        cells = ["%d" % n, RANGE_CASE.get(case, case),
                 "%.0f" % insns(res, a) if a else "",
                 "%.2f" % a["ratio"] if a else ""]
        if stock:
            cells += ["%.0f" % insns(stock, b) if b else "",
                      "%.2f" % b["ratio"] if b else "",
                      "%.2fx" % (insns(res, a) / insns(stock, b))
                      if a and b else ""]
        out.append("| " + " | ".join(cells) + " |")
    slopes = []
    for name, pts, r in [(name, o, res)] + ([("stock", t, stock)]
                                            if stock else []):
        for case in sorted({k[0] for k in pts}):
            ns = sorted(n for c, n in pts if c == case)
            if len(ns) >= 2:
                slopes.append("%s, %s %.1f" % (
                    name, case, (insns(r, pts[(case, ns[-1])]) -
                                 insns(r, pts[(case, ns[0])])) /
                    (ns[-1] - ns[0])))
    if slopes:
        out += ["", "One more range filter in the walk costs (end points, "
                "(cost(N max) - cost(N min)) / (N max - N min), %s per "
                "packet): %s." % ("insns" if res["meta"].get("ns_per_insn")
                                  else "ns", "; ".join(slopes))]
    return out


def ranges_section(res, stock):
    """Port ranges ([] when the run measured no range filters)."""
    rt = range_table(res, stock)
    if not rt:
        return []
    m = res["meta"]
    walk = ("filter by filter in the order the filters came, each "
            "filter whose range holds the packet's port tried with a "
            "hash lookup")
    # ours' range_index parameter (Y, N; None: stock, or a module from
    # before it)
    if m.get("range_index") == "Y":
        how = ("Ours looks the port up in an index of the mask's ranges "
               "(`range_index` Y: a binary search, then one hash lookup "
               "per range that holds the port); a mask without the "
               "index, and stock's, is walked %s." % walk)
    else:
        how = ("A mask with ranges is walked %s, on both kernels%s." % (
            walk, " (ours' `range_index` N)"
            if m.get("range_index") == "N" else ""))
    return ["", "## Port ranges", "",
            "N filters `ip_proto udp dst_port LO-HI` in prio 1 "
            "(N = %s; handles 1..N, disjoint ranges of %s ports from "
            "%s up, so one mask), and a matchall drop at prio 2. %s "
            "The packet's UDP destination port is in "
            "the last-inserted range (for a walk: the whole walk, "
            "then one lookup that hits) or in none (port %s: the "
            "whole walk, no lookup, then prio 2's matchall). pktgen "
            "sends UDP only; tcp ports are dissected the same way. %s "
            "per packet and x matchall-drop cost in the same run%s." % (
                ", ".join(str(x) for x in m.get("ranges", [])),
                m.get("range_width", "?"), m.get("range_base", "?"),
                how, m.get("range_miss_port", "?"),
                "Guest instructions" if m.get("ns_per_insn") else
                "Wall-clock ns",
                "; ours / stock below 1: ours is cheaper"
                if stock else ""), ""] + rt
