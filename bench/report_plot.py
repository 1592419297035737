# SPDX-License-Identifier: GPL-2.0
"""plot.png of bench/report.py: cost per packet against the rule count
(x matchall and absolute), and a third panel of the many-masks kinds
when the run measured them.
"""
from bench.report_points import (LABEL, MASK_KINDS, NOCACHE, ORDER, clock,
                                  one, series)

MASK_CASE_LABEL = {"newflow": ", a new flow per packet",
                   "last" + NOCACHE: ", flow cache off",
                   "newflow" + NOCACHE: ", a new flow per packet, flow "
                                        "cache off"}


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
