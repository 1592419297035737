"""The control-plane part of bench/report.py's table.md: insert, dump
and delete times and memory per filter (one `tc -b` per classifier), ours
beside stock, and P `tc -b` processes inserting at once.

These read only res["control"] and res["control_parallel"] of
results.json, never the classify points.
"""


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


PAR_LABEL = {"prio-per-process": "each process its own prio",
             "one-prio": "all into prio 1, distinct handles"}


def single_rate(r, total):
    """The single `tc -b` flower row to set beside a parallel one: the
    same number of filters, else the largest count."""
    rows = [c for c in r.get("control", []) if c["classifier"] == "flower"]
    if not rows:
        return None
    return next((c for c in rows if c["filters"] == total),
                max(rows, key=lambda c: c["filters"]))


def parallel_table(res, stock):
    """P `tc -b` processes at once against one `tc -b`, per kernel."""
    runs = [("ours" if stock else res["meta"]["variant"], res)] + \
        ([("stock", stock)] if stock else [])
    out = ["| kernel | layout | processes x filters | total wall (until the "
           "slowest exited) | inserts/s (total / wall) | each process, "
           "from its own start: min / median / max | one `tc -b` of "
           "the same count: inserts/s | parallel / one | dump | delete "
           "(all prios) | Slab B/filter |",
           "|---|---|---|---:|---:|---|---:|---:|---:|---:|---:|"]
    for name, r in runs:
        for c in r.get("control_parallel", []):
            one = single_rate(r, c["filters"])
            out.append("| %s | %s | %d x %d = %d | %.2f s | %.0f | %.2f / "
                       "%.2f / %.2f s | %s | %s | %.2f s | %.2f s | %.0f |"
                       % (name, PAR_LABEL.get(c["layout"], c["layout"]),
                          c["processes"], c["filters_per_process"],
                          c["filters"], c["wall_s"], c["insert_per_s"],
                          c["process_s_min"], c["process_s_median"],
                          c["process_s_max"],
                          ("%.0f (%d filters)" % (one["insert_per_s"],
                                                  one["filters"]))
                          if one else "-",
                          ("%.2fx" % (c["insert_per_s"] /
                                      one["insert_per_s"])) if one else "-",
                          c["dump_s"], c["delete_s"],
                          c["slab_B_per_filter"]))
    if len(out) == 2:
        return []
    if stock:
        o = {c["layout"]: c for c in res.get("control_parallel", [])}
        t = {c["layout"]: c for c in stock.get("control_parallel", [])}
        vs = ["%s: ours %.0f/s, stock %.0f/s (ours / stock %.2fx)" % (
            PAR_LABEL.get(k, k), o[k]["insert_per_s"], t[k]["insert_per_s"],
            o[k]["insert_per_s"] / t[k]["insert_per_s"])
            for k in o if k in t]
        if vs:
            out += ["", "Parallel inserts/s, ours against stock: " +
                    "; ".join(vs) + "."]
    return out


def control_section(res, stock):
    """Control plane: ours, stock's rows under the same head, and the
    ratios of the two."""
    out = []
    if res["control"] or (stock and stock["control"]):
        out += ["", "## Control plane", "",
                "Memory per filter includes its gact action; Slab from "
                "/proc/meminfo, before/after the insert (vmalloc: "
                "rhashtable and idr arrays).", ""]
        out += control_table(res)
    if stock and stock["control"]:
        # stock's rows continue ours' table: drop its head
        out += control_table(stock, " [stock]")[2:]
        vs = control_vs_stock(res, stock)
        if vs:
            out += ["", "Flower, ours against the stock cls_flower (the "
                    "two runs above; an insert-rate ratio above 1 means "
                    "ours inserts faster, a memory ratio below 1 that it "
                    "uses less):", ""] + vs
    return out


def parallel_section(res, stock):
    """P `tc -b` processes at once ([] when no run measured it)."""
    pt = parallel_table(res, stock)
    if not pt:
        return []
    m = res["meta"]
    p = m.get("parallel") or {}
    return ["", "### Parallel insert (tc-testing's concurrency shape)",
            "",
            "%s `tc -b` processes started at once, each with its own "
            "batch file of %s flower filters (`dst_ip` /32, `action "
            "drop`, distinct addresses over all files) into the "
            "clsact ingress of one device: each process on its own "
            "prio, or all into prio 1 with distinct handles, as "
            "tc-testing's concurrency.json does (`xargs -n 1 -P 10 "
            "tc -b`). Inserts/s = all filters / the time from the "
            "first start until the slowest process exited. Both "
            "flowers insert without RTNL (TCF_PROTO_OPS_DOIT_UNLOCKED); "
            "two vCPUs in wall time: insert_ab.md (make "
            "bench-insert). %s" % (
                p.get("processes", "P"),
                p.get("filters_per_process", "F"),
                "The guest has ONE vCPU (-icount needs it): the "
                "processes take turns on it, so parallelism cannot "
                "make anything faster here; what this shows is the "
                "cost of the interleaving (lock waits, context "
                "switches), not scaling over CPUs."
                if m.get("cpus") == 1 else
                "The guest has %s vCPUs on a shared host (wall "
                "clock): ratios only." % m.get("cpus")), ""] + pt
