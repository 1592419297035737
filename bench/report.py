#!/usr/bin/python3
"""Host side: results.json of bench/classify.py -> plot.png + table.md.

  bench/report.py DIR [--stock STOCKDIR] [--out OUTDIR]
  bench/report.py --summary --guest-rc RC DIR     (make bench-smoke)

DIR (and STOCKDIR, a run on the stock kernel) hold results.json; plot.png
and table.md go to OUTDIR (default DIR).
"""
import argparse
import json
import os
import sys

ORDER = ["flower", "flower-prios", "u32"]
LABEL = {"flower": "flower, one instance (hash)",
         "flower-prios": "flower, one prio per rule (walk)",
         "u32": "u32 (linear list)", "matchall": "matchall drop",
         "nofilter": "no filter"}


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
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.2))
    runs = [("ours", res, "-")] + ([("stock", stock, "--")] if stock else [])
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
    m = res["meta"]
    fig.suptitle("Classify cost vs rule count: pktgen netif_receive into a "
                 "dummy, clsact ingress, drop (%s kernel %s, %s, %s, median "
                 "of %d x %g s)" % (m["variant"], m["kernel"],
                                    m["accel"].upper(), clock(m), m["runs"],
                                    m["seconds"]), fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def classify_table(res):
    counts = sorted({p["rules"] for p in res["points"] if p["rules"] > 1} |
                    {1})
    head = "| classifier | matching rule | " + " | ".join(
        "%d" % n for n in counts) + " |"
    out = [head, "|" + "---|" * (len(counts) + 2)]
    for kind in ORDER:
        for case in ("last", "first"):
            xs, pts = series(res, kind, case)
            by = {p["rules"]: p for p in pts}
            cells = ["%.2f" % by[n]["ratio"] if n in by else "" for n in counts]
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


def control_table(res, label=""):
    out = ["| classifier | filters | insert (tc -b) | inserts/s | dump "
           "(tc filter show) | delete (filter del prio 1) | Slab B/filter | "
           "Percpu B/filter | vmalloc B/filter | MemFree drop B/filter |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for c in res["control"]:
        out.append("| %s%s | %d | %.2f s | %.0f | %.2f s | %.2f s | %.0f | "
                   "%s | %.0f | %.0f |" % (
                       c["classifier"], label, c["filters"], c["insert_s"],
                       c["insert_per_s"], c["dump_s"], c["delete_s"],
                       c["slab_B_per_filter"],
                       "%.0f" % c["percpu_B_per_filter"]
                       if c.get("percpu_B_per_filter") is not None else "-",
                       c["vmalloc_B_per_filter"],
                       c["memfree_B_per_filter"]))
    return out


def control_vs_stock(res, stock):
    """Ours against stock, flower only, at each filter count both ran."""
    ours = {c["filters"]: c for c in res["control"]
            if c["classifier"] == "flower"}
    theirs = {c["filters"]: c for c in stock["control"]
              if c["classifier"] == "flower"}
    out = ["| filters | inserts/s ours / stock | dump ours / stock | "
           "delete ours / stock | Slab B/filter ours / stock |",
           "|---|---|---|---|---|"]
    for n in sorted(set(ours) & set(theirs)):
        o, t = ours[n], theirs[n]
        out.append("| %d | %.0f / %.0f (%.2fx) | %.2f / %.2f s | "
                   "%.2f / %.2f s | %.0f / %.0f (%.2fx) |" % (
                       n, o["insert_per_s"], t["insert_per_s"],
                       o["insert_per_s"] / t["insert_per_s"],
                       o["dump_s"], t["dump_s"], o["delete_s"], t["delete_s"],
                       o["slab_B_per_filter"], t["slab_B_per_filter"],
                       o["slab_B_per_filter"] / t["slab_B_per_filter"]))
    return out if len(out) > 2 else []


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
    for n in sorted({p["rules"] for p in res["points"] if p["rules"] > 0}):
        for case in ("last", "first"):
            row = [a.get(("flower", case, n)), b.get(("flower", case, n)),
                   a.get(("flower-prios", case, n)),
                   b.get(("flower-prios", case, n))]
            if any(row):
                out.append("| %d | %s | %s |" % (n, case, " | ".join(
                    "%.2f" % r["ratio"] if r else "" for r in row)))
    return out


def table(res, stock):
    m = res["meta"]
    out = ["# Classifier benchmark: %s kernel %s" % (m["variant"],
                                                      m["kernel"]), "",
           "Run %s, %s guest, %d vCPU, %s, median of %d (test, "
           "matchall) run pairs of %g s per point; the script took %.0f s "
           "of guest time. See bench/README.md for the method." % (
               m["date"], m["accel"].upper(), m["cpus"],
               ("time base QEMU -icount: %d ns of guest time per guest "
                "instruction, so rates count instructions, independent of "
                "host load" % m["ns_per_insn"]) if m.get("ns_per_insn")
               else "host wall clock (clocksource %s): noisy"
               % m.get("clocksource", "?"),
               m["runs"], m["seconds"], m.get("elapsed_s", 0)), "",
           "## Classify cost relative to matchall drop", "",
           "Cost per packet divided by the cost of a single matchall drop "
           "rule measured in the same run, right after each measurement "
           "(1.00 = as cheap as matchall). Columns: number of rules.", ""]
    out += classify_table(res)
    out += ["", "## Acceptance", ""] + verdicts(res)
    if stock:
        out += ["", "## Stock cls_flower (same method, `--variant stock`, "
                "kernel %s)" % stock["meta"]["kernel"], ""]
        out += stock_table(res, stock)
        out += ["", "Stock acceptance:", ""] + verdicts(stock)
    out += ["", "## Control plane", "",
            "Memory per filter includes its gact action; Slab from "
            "/proc/meminfo, before/after the insert (vmalloc: rhashtable "
            "and idr arrays).", ""]
    out += control_table(res)
    if stock and stock["control"]:
        out += control_table(stock, " [stock]")[2:]
        vs = control_vs_stock(res, stock)
        if vs:
            out += ["", "Flower, ours against the stock cls_flower (the "
                    "two runs above; an insert-rate ratio above 1 means "
                    "ours inserts faster, a memory ratio below 1 that it "
                    "uses less):", ""] + vs
    out += ["", "## All points (absolute numbers are %s; compare "
            "ratios)" % ("emulated guest time: instructions, not what "
                         "hardware would do" if m.get("ns_per_insn") else
                         "TCG wall clock: noise +-15% or worse"), ""]
    out += abs_table(res)
    if stock:
        out += ["", "Stock kernel:", ""] + abs_table(stock)
    ch = res["checks"]
    out += ["", "Checks in the guest: %d passed, %d failed%s." % (
        ch["passed"], ch["failed"],
        (": " + "; ".join(ch["failures"])) if ch["failed"] else "")]
    return "\n".join(out) + "\n"


def summary(a):
    """Smoke: the guest's checks plus ours; `N passed, N failed`; rc."""
    passed, failed = 0, 0

    def check(name, ok, detail=""):
        nonlocal passed, failed
        passed, failed = passed + bool(ok), failed + (not ok)
        print("%s  %s%s" % ("ok  " if ok else "FAIL", name,
                            (": " + detail) if detail else ""))
    check("guest run exited 0", a.guest_rc == 0, "exit %d" % a.guest_rc)
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
