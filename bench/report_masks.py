# SPDX-License-Identifier: GPL-2.0
"""table.md's "Many masks, the OVS way" section: per M, each kernel's
mask kinds, all M masks in one prio ours against stock, and the cost of
one more mask.
"""
from bench.report_points import (LABEL, MASK_KINDS, NOCACHE, insns,
                                  lsq_slope, mask_runs, series)


def masks_table(res, stock):
    """Many masks: per M, each run's mask kinds (cost x matchall and
    instructions per packet), and ours (one prio per mask) against stock
    (all masks in one prio)."""
    runs = [("ours" if stock else res["meta"]["variant"], res)] + \
        ([("stock", stock)] if stock else [])
    # ours' own way first, then stock's own way (all masks in one prio)
    cols = [(name, r, kind) for name, r in runs
            for kind in (MASK_KINDS[::-1] if name == "stock" else MASK_KINDS)
            if series(r, kind, "last")[0]]
    if not cols:
        return []
    npi = res["meta"].get("ns_per_insn")
    unit = "insns" if npi else "ns"
    cost = insns
    by = {(name, kind): {p["rules"]: p for p in series(r, kind, "last")[1]}
          for name, r, kind in cols}
    vs = stock and ("ours", "flower-masks") in by and \
        ("stock", "flower-masks-1prio") in by
    short = {"flower-masks": "one prio per mask",
             "flower-masks-1prio": "all M in one prio"}
    head = ["masks M"] + ["%s, %s: x matchall" % (n, short[k])
                          for n, _, k in cols] + \
        ["%s, %s: %s/packet" % (n, short[k], unit) for n, _, k in cols]
    if vs:
        head.append("ours, one prio per mask / stock, all M in one "
                    "prio: cost per packet")
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    ms = sorted({m for d in by.values() for m in d})
    for m in ms:
        cells = ["%d" % m]
        cells += ["%.2f" % by[(n, k)][m]["ratio"] if m in by[(n, k)] else ""
                  for n, _, k in cols]
        cells += ["%.0f" % cost(r, by[(n, k)][m]) if m in by[(n, k)] else ""
                  for n, r, k in cols]
        if vs:
            o = by[("ours", "flower-masks")].get(m)
            t = by[("stock", "flower-masks-1prio")].get(m)
            cells.append("%.2fx" % (cost(res, o) / cost(stock, t))
                         if o and t else "")
        out.append("| " + " | ".join(cells) + " |")
    return out


def one_prio_table(res, stock):
    """All M masks in one prio, ours against stock: cost per packet."""
    runs, by = mask_runs(res, stock)
    o, t = by.get(("ours", "flower-masks-1prio")), \
        by.get(("stock", "flower-masks-1prio"))
    if not (o and t):
        return []
    unit = "guest insns/packet" if res["meta"].get("ns_per_insn") \
        else "ns/packet"
    out = ["| masks M | ours: %s | stock: %s | ours / stock | ours x "
           "matchall | stock x matchall |" % (unit, unit),
           "|---:|---:|---:|---:|---:|---:|"]
    for m in sorted(set(o) & set(t)):
        a, b = insns(res, o[m]), insns(stock, t[m])
        out.append("| %d | %.0f | %.0f | %.2fx | %.2f | %.2f |" % (
            m, a, b, a / b, o[m]["ratio"], t[m]["ratio"]))
    return out


def slope_table(res, stock):
    """Cost of one more mask, per series: a least-squares line over all
    M, and the end points (cost(Mmax) - cost(Mmin)) / (Mmax - Mmin)."""
    runs, by = mask_runs(res, stock)
    rr = dict(runs)
    unit = "insns" if res["meta"].get("ns_per_insn") else "ns"
    short = {"flower-masks": "one prio per mask (`flower-masks`)",
             "flower-masks-1prio": "all M in one prio "
                                   "(`flower-masks-1prio`)",
             "flower-masks-1prio" + NOCACHE:
                 "all M in one prio, flow cache off (`last%s`)" % NOCACHE}
    out = ["| kernel | layout | %s per extra mask, least squares over M "
           "| %s per extra mask, end points | matchall-drop units per "
           "extra mask (least squares) | M |" % (unit, unit),
           "|---|---|---:|---:|---:|---|"]
    for name in [n for n, _ in runs]:
        for kind in ("flower-masks-1prio", "flower-masks-1prio" + NOCACHE,
                     "flower-masks"):
            d = by.get((name, kind))
            if not d or len(d) < 2:
                continue
            ms = sorted(d)
            ys = [insns(rr[name], d[m]) for m in ms]
            out.append("| %s | %s | %.1f | %.1f | %.4f | %s |" % (
                name, short[kind], lsq_slope(ms, ys),
                (ys[-1] - ys[0]) / (ms[-1] - ms[0]),
                lsq_slope(ms, [d[m]["ratio"] for m in ms]),
                ", ".join(str(m) for m in ms)))
    return out if len(out) > 2 else []


def masks_notes(res, stock):
    runs, by = mask_runs(res, stock)
    out = []
    unit = "insns" if res["meta"].get("ns_per_insn") else "ns"
    cost = insns
    if not by:
        return []
    base = [(n, r, next((p for p in r["points"]
                         if p["classifier"] == "matchall"), None))
            for n, r in runs]
    out.append("- matchall drop (the baseline): %s." % "; ".join(
        "%s %.0f %s/packet" % (n, cost(r, p), unit)
        for n, r, p in base if p))
    for n, r in runs:
        for sk in r.get("skipped", []):
            out.append("- %s: %s not measured: %s" % (
                n, LABEL.get(sk["classifier"], sk["classifier"]),
                sk["reason"]))
    return out


def one_prio_section(res, stock):
    """M masks in one prio, ours against stock ([] without both runs)."""
    op = one_prio_table(res, stock)
    if not op:
        return []
    return ["", "### M masks in one prio: ours against stock", "",
            "The same M filters, all in prio 1 (handles 1..M, "
            "masks added in that order, the matching one last), "
            "on each kernel. Ours dissects the packet once for "
            "the union of the masks' keys, then does one masked "
            "hash and one lookup per mask; stock dissects the "
            "packet once per mask. %s per packet (median of the "
            "run pairs), and the ratio ours / stock (below 1: "
            "ours is cheaper)." % (
                "Guest instructions (icount)"
                if res["meta"].get("ns_per_insn") else "Wall-clock ns"),
            ""] + op


def slope_section(res, stock):
    """The added cost of one more mask ([] when no series has one)."""
    sl = slope_table(res, stock)
    if not sl:
        return []
    return ["", "### The cost of one more mask", "",
            "Per series, the added cost per packet of one more "
            "mask (its filter does not match, so it is one more "
            "lookup that misses): the slope of a least-squares "
            "line through all M points, and the slope between the "
            "end points, (cost(M max) - cost(M min)) / (M max - "
            "M min); the two agree when the cost grows linearly "
            "in M.",
            ""] + sl


def masks_section(res, stock):
    """Many masks, the OVS way ([] when the run measured no mask kind)."""
    mt = masks_table(res, stock)
    if not mt:
        return []
    m = res["meta"]
    out = ["", "## Many masks, the OVS way", "",
           "M filters (M = %s), each with its own mask: filter i "
           "matches `src_ip` and `dst_ip` with its own pair of prefix "
           "lengths (the same two keys in every mask, so every mask "
           "costs the same dissection), and only the last mask's "
           "filter matches the packets (%s to %s). One prio per mask "
           "(prio 1..M, the matching one last: `flower-masks`) or "
           "all M masks in one prio (`flower-masks-1prio`), which "
           "both kernels walk in the order the masks were added (the "
           "matching one last). Cost per packet x matchall-drop cost "
           "in the same run, and %s per packet%s." % (
               ", ".join(str(x) for x in m.get("masks", [])),
               m.get("mask_src", "?"), "10.0.0.1",
               "guest instructions" if m.get("ns_per_insn") else
               "ns (wall clock)",
               "; the last column divides ours (one prio per mask) "
               "by stock (all M in one prio)"
               if stock and series(res, "flower-masks", "last")[0] and
               series(stock, "flower-masks-1prio", "last")[0] else ""),
           ""] + mt
    if m.get("flow_cache") == "Y" and any(
            p["classifier"] in MASK_KINDS and p["case"] == "last" and
            p["rules"] >= 4 for p in res["points"]):
        out += ["", "Ours' flow cache was on (`flow_cache=Y`): ours' "
                "points of M masks in one prio at M >= 4 are cache hits "
                "(one flow repeated), not walks. The walk's cost (the "
                "same filters made with the cache off) is in \"Issue "
                "33's classify numbers\" below, when the run measured "
                "it (`--flow-cache both`)."]
    out += one_prio_section(res, stock)
    out += slope_section(res, stock)
    return out + [""] + masks_notes(res, stock)
