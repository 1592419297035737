#!/usr/bin/python3
"""Classifier benchmark; runs INSIDE the test guest (see bench/README.md).

  guest/run -- /usr/bin/python3 bench/classify.py --out DIR [--smoke]

Part 1, classify cost: pktgen (xmit_mode netif_receive) feeds a dummy
device whose clsact ingress holds N rules of one classifier; the packet
matches the last (worst case) or the first (best case) rule, whose action
is drop. Each measurement is paired with one on a second dummy device that
holds a single matchall drop (the baseline), run right after it, so every
point carries its own baseline ratio.

Part 1b, many masks (the OVS way of holding megaflows): M filters, each
with its own mask (src_ip/dst_ip prefix lengths), only the last mask's
filter matches; one prio per mask, and all M masks in one prio (both
kernels take several masks in a prio; a kernel that refuses the second
mask fails a check and that kind is not measured).

Part 1c, port ranges: N filters `ip_proto udp dst_port LO-HI` (disjoint
ranges, one mask) in prio 1 and a matchall drop at prio 2; the packet's
port falls in the last-inserted range (both kernels walk the mask's
filters in insertion order: the worst case) or in none (the walk misses,
prio 2 drops it).

Part 2, control plane: insert C filters with `tc -b`, dump them, delete
them (`tc filter del ... prio 1`); memory from /proc/meminfo before/after.
Part 2b, parallel insert (the shape of tc-testing's concurrency cases):
P `tc -b` processes started at once, each adding F filters, on its own
prio or all into prio 1 with distinct handles; total filters / wall time
until the slowest exits.

Writes DIR/results.json, DIR/results.csv (classify points),
DIR/control.csv and DIR/control-parallel.csv; prints one line per check
and `N passed, N failed`.

The parts live in modules of the bench package: classify_rules (the
filters and the packets aimed at them), classify_guest (tc, devices,
checks, module parameters), classify_cost (part 1, pktgen) and
classify_control (part 2); this file holds the command line, the run's
metadata and the output files.
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys
import time

if not __package__:
    # Run as a file (bench.mk: python3 bench/classify.py in the guest):
    # sys.path[0] is bench/, so put the repository first for the package.
    sys.path.insert(0, os.path.dirname(os.path.dirname(
        os.path.realpath(__file__))))
from bench.classify_control import (SETTLE, control_part,    # noqa: E402
                                    parallel_part)
from bench.classify_cost import (PG, THREAD,                # noqa: E402
                                 classify_part, criteria)
from bench.classify_guest import (CHECKS, FLOW_CACHE_PARAM,  # noqa: E402
                                  L3L4_PARAM, RANGE_INDEX_PARAM,
                                  module_file, read_param, set_flow_cache,
                                  set_param)
from bench.classify_rules import (MASK_SRC, RANGE_BASE,      # noqa: E402
                                  RANGE_MISS_PORT, RANGE_WIDTH, U32_TABLE)


def meta(a):
    dmesg = subprocess.run(["dmesg"], capture_output=True, text=True).stdout
    m = re.search(r"Hypervisor detected: (\w+)", dmesg)
    cs = open("/sys/devices/system/clocksource/clocksource0/"
              "current_clocksource").read().strip()
    if "jiffies" in cs:
        print("# WARNING: clocksource %s loses time when the host is busy; "
              "boot with tsc_early_khz=... tsc=reliable (bench/bench.mk "
              "does)" % cs, flush=True)
    return dict(variant=os.environ.get("TDC_VARIANT", "?"),
                commit=os.environ.get("BENCH_COMMIT") or None,
                kernel=os.uname().release, build=os.uname().version,
                accel=("kvm" if m and m.group(1) == "KVM" else "tcg"),
                cpus=os.cpu_count(), clocksource=cs, smoke=a.smoke,
                timebase=("icount: %d ns per guest instruction"
                          % 2 ** int(os.environ["BENCH_ICOUNT"])
                          if os.environ.get("BENCH_ICOUNT") else "wall"),
                ns_per_insn=(2 ** int(os.environ["BENCH_ICOUNT"])
                             if os.environ.get("BENCH_ICOUNT") else None),
                date=time.strftime("%Y-%m-%d %H:%M:%S %Z"),
                runs=a.runs, seconds=a.seconds, counts=a.counts,
                masks=a.masks, mask_src=MASK_SRC, ranges=a.ranges,
                flow_cache=read_param(FLOW_CACHE_PARAM),
                flow_cache_both=a.flow_cache == "both",
                range_index=read_param(RANGE_INDEX_PARAM),
                l3l4_dissect=read_param(L3L4_PARAM),
                srcversion=module_file("srcversion"),
                range_base=RANGE_BASE, range_width=RANGE_WIDTH,
                range_miss_port=RANGE_MISS_PORT,
                insert_counts=a.insert_counts, u32_table=U32_TABLE,
                parallel=dict(processes=a.parallel[0],
                              filters_per_process=a.parallel[1])
                if a.parallel else None,
                pktgen="xmit_mode netif_receive, 60-byte UDP/IPv4, "
                       "count 0, delay 0, stopped after each run")


def write_csv(path, rows):
    fields = list(dict.fromkeys(k for r in rows for k in r))
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for r in rows:
            w.writerow({k: (json.dumps(v) if isinstance(v, (list, dict))
                            else v) for k, v in r.items()})


def parse_args():
    """The command line, with --smoke's sizes and the lists parsed."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--smoke", action="store_true",
                   help="tiny counts, short runs (make bench-smoke)")
    p.add_argument("--counts", default="1,10,100,1000,10000")
    p.add_argument("--masks", default="1,8,64,256",
                   help="mask counts M of the many-masks kinds (empty: "
                        "none)")
    p.add_argument("--ranges", default="1,100,1000",
                   help="range filter counts N of the port-range kind "
                        "(empty: none)")
    p.add_argument("--insert-counts", default="10000,100000")
    p.add_argument("--parallel", default="10x10000",
                   help="parallel insert: PROCESSESxFILTERS (each tc -b "
                        "process adds FILTERS; empty: none)")
    p.add_argument("--runs", type=int, default=5,
                   help="(test, baseline) pairs per point; medians")
    p.add_argument("--seconds", type=float, default=1.0,
                   help="pktgen run time of each run")
    p.add_argument("--verify-max", type=int, default=100,
                   help="check per-rule action counters up to this many "
                        "rules (beyond: the qdisc drop counter only)")
    p.add_argument("--settle", type=float, default=2.0,
                   help="pause after installing rules (seconds)")
    p.add_argument("--only", type=lambda s: s.split(","), default=None,
                   help="classifiers to measure (debugging), e.g. flower,u32")
    p.add_argument("--repeat", type=int, default=1,
                   help="measure the cases of each point this many times "
                        "(debugging)")
    p.add_argument("--skip-control", action="store_true")
    p.add_argument("--newflow", action="store_true",
                   help="flower-masks-1prio also with a new flow per packet "
                        "(case newflow: flow cache misses)")
    p.add_argument("--flow-cache", choices=("on", "off", "both"),
                   default=None,
                   help="set ours' cls_flower flow_cache parameter first "
                        "(cache on or off for instances made after); "
                        "both: on, and flower-masks-1prio's cases at "
                        "M > 1 measured again with the filters made with "
                        "the cache off (cases CASE-nocache)")
    p.add_argument("--range-index", choices=("on", "off"), default=None,
                   help="set ours' cls_flower range_index parameter first "
                        "(off: masks made after it walk their ranges)")
    p.add_argument("--l3l4", choices=("on", "off"), default=None,
                   help="set ours' cls_flower l3l4_dissect parameter first "
                        "(off: instances made after it dissect IPv4/IPv6 "
                        "with the flow dissector)")
    a = p.parse_args()
    if a.smoke:
        a.counts, a.insert_counts, a.runs, a.seconds = "1,10", "100", 1, 0.3
        a.masks = "1,8"
        a.ranges = "10"
        a.parallel = "10x10"
        a.settle = SETTLE[0] = 0.3
    a.counts = [int(x) for x in a.counts.split(",")]
    a.insert_counts = [int(x) for x in a.insert_counts.split(",")]
    a.masks = [int(x) for x in a.masks.split(",") if x]
    a.ranges = [int(x) for x in a.ranges.split(",") if x]
    a.parallel = tuple(int(x) for x in a.parallel.split("x")) \
        if a.parallel else None
    return a


def main():
    a = parse_args()
    if not THREAD:
        sys.exit("classify.py: no %s (CONFIG_NET_PKTGEN); run it in the "
                 "guest: guest/run -- %s %s" % (PG, sys.executable,
                                                " ".join(sys.argv)))
    if a.flow_cache in ("on", "off"):
        with open(FLOW_CACHE_PARAM, "w") as f:
            f.write("Y\n" if a.flow_cache == "on" else "N\n")
    elif a.flow_cache == "both":
        set_flow_cache("on")
    if a.range_index:
        set_param(RANGE_INDEX_PARAM, a.range_index)
    if a.l3l4:
        set_param(L3L4_PARAM, a.l3l4)
    os.makedirs(a.out, exist_ok=True)
    t0 = time.monotonic()
    res = dict(meta=meta(a))
    print("# %s" % json.dumps(res["meta"]), flush=True)
    res["skipped"] = []
    res["points"] = classify_part(a, res["skipped"])
    res["criteria"] = criteria(res["points"])
    res["control"] = [] if a.skip_control else control_part(a)
    res["control_parallel"] = [] if a.skip_control or not a.parallel \
        else parallel_part(a)
    res["meta"]["elapsed_s"] = round(time.monotonic() - t0, 1)
    failed = sum(1 for _, ok in CHECKS if not ok)
    res["checks"] = dict(passed=len(CHECKS) - failed, failed=failed,
                         failures=[n for n, ok in CHECKS if not ok])
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
    write_csv(os.path.join(a.out, "results.csv"), res["points"])
    if res["control"]:
        write_csv(os.path.join(a.out, "control.csv"), res["control"])
    if res["control_parallel"]:
        write_csv(os.path.join(a.out, "control-parallel.csv"),
                  res["control_parallel"])
    print("# criteria: %s" % json.dumps(res["criteria"]))
    print("# elapsed %.0f s, results in %s" % (res["meta"]["elapsed_s"], a.out))
    print("%d passed, %d failed" % (len(CHECKS) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
