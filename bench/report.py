#!/usr/bin/python3
"""Host side: results.json of bench/classify.py -> plot.png + table.md.

  python3 -m bench.report DIR [--stock STOCKDIR] [--out OUTDIR]
  python3 -m bench.report --summary --guest-rc RC DIR   (make bench-smoke)

DIR (and STOCKDIR, a run on the stock kernel) hold results.json; plot.png
and table.md go to OUTDIR (default DIR).
"""
import argparse
import json
import os
import sys

from bench.control_report import control_section, parallel_section
from flower import guest

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
# classify.py --flow-cache both: flower-masks-1prio's cases again, made
# with ours' flow cache off, named CASE + NOCACHE
NOCACHE = "-nocache"


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


def plot(res, stock, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    runs = [("ours", res, "-")] + ([("stock", stock, "--")] if stock else [])
    masks = [(name, r, kind, case) for name, r, _ in runs
             for kind in (MASK_KINDS[::-1] if name == "stock" else MASK_KINDS)
             for case in ("last", "newflow", "last" + NOCACHE,
                          "newflow" + NOCACHE)
             if (case == "last" or name == "ours") and
             any(p["case"] == case for p in r["points"]
                 if p["classifier"] == kind) and series(r, kind, case)[0]]
    fig, axes = plt.subplots(1, 3 if masks else 2,
                             figsize=(19 if masks else 13, 5.2))
    npi = res["meta"].get("ns_per_insn")
    for p in [p for _, r, _ in runs for p in r["points"]]:
        p["insns"] = p["cost_ns"] / npi if npi else p["cost_ns"]
    for ax, key, ylabel in (
            (axes[0], "ratio", "cost per packet / matchall-drop cost "
                               "(same run)"),
            (axes[1], "insns", "guest instructions per packet (icount)"
             if npi else "ns per packet (TCG wall clock: absolute values "
                         "are noise)")):
        for name, r, style in runs:
            for i, kind in enumerate(ORDER):
                if name == "stock" and not kind.startswith("flower"):
                    continue
                for case, marker in (("last", "o"), ("first", "^")):
                    xs, pts = series(r, kind, case)
                    if not xs:
                        continue
                    ax.plot(xs, [p[key] for p in pts], style, marker=marker,
                            color="C%d" % i, alpha=1 if case == "last" else .5,
                            label="%s%s, %s rule matches" % (
                                LABEL[kind], " [stock]" if name == "stock"
                                else "", case))
            if name == "ours":
                for kind, color in (("matchall", "k"), ("nofilter", "grey")):
                    p = one(r, kind)
                    if p:
                        ax.axhline(p[key], color=color, ls=":",
                                   label=LABEL[kind])
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("rules")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=.3)
    axes[0].legend(fontsize=7)
    if masks:
        ax = axes[2]
        for j, (name, r, kind, case) in enumerate(masks):
            xs, pts = series(r, kind, case)
            ax.plot(xs, [p["ratio"] for p in pts],
                    "-" if name == "ours" else "--", marker="os^v"[j % 4],
                    color="C%d" % (3 + j), label="%s [%s]%s" % (
                        LABEL[kind], name, MASK_CASE_LABEL.get(case, "")))
        ax.axhline(1, color="k", ls=":", label=LABEL["matchall"])
        ax.set_xscale("log", base=2)
        ms = sorted({x for name, r, kind, case in masks
                     for x in series(r, kind, case)[0]})
        ax.set_xticks(ms)
        ax.set_xticklabels([str(x) for x in ms])
        ax.set_yscale("log")
        ax.set_xlabel("masks M (one filter each, the last one matches)")
        ax.set_ylabel("cost per packet / matchall-drop cost (same run)")
        ax.set_title("many masks (the OVS way)", fontsize=9)
        ax.grid(True, which="both", alpha=.3)
        ax.legend(fontsize=7)
    m = res["meta"]
    fig.suptitle("Classify cost vs rule count: pktgen netif_receive into a "
                 "dummy, clsact ingress, drop (%s kernel %s, %s, %s, median "
                 "of %d x %g s)" % (m["variant"], m["kernel"],
                                    m["accel"].upper(), clock(m), m["runs"],
                                    m["seconds"]), fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


MASK_CASE_LABEL = {"newflow": ", a new flow per packet",
                   "last" + NOCACHE: ", flow cache off",
                   "newflow" + NOCACHE: ", a new flow per packet, flow "
                                        "cache off"}


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


def range_points(r):
    """{(case, N): point} of the port-range kind."""
    return {(p["case"], p["rules"]): p for p in r["points"]
            if p["classifier"] == RANGE_KIND}


RANGE_CASE = {"last": "in the last-inserted range",
              "miss": "in no range (prio 2's matchall drops it)"}
RANGE_CASES = ("last", "miss")


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


def point(r, kind, case, n):
    """The point of kind, case and count n in run r, or None."""
    if not r:
        return None
    return next((p for p in r["points"] if p["classifier"] == kind and
                 p["case"] == case and p["rules"] == n), None)


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


def issue_section(res, stock):
    """Issue 31's numbers, when the run measured flower or a grouped
    kind (the numbers are about those)."""
    if not any(p["classifier"] in GROUPED_KINDS + ("flower",)
               for p in res["points"]):
        return []
    return ["", "## Issue 31's classify numbers", ""] + \
        issue_numbers(res, stock)


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
