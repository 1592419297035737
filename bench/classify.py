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
"""
import argparse
import csv
import ipaddress
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time

PG = "/proc/net/pktgen"
FLOW_CACHE_PARAM = "/sys/module/cls_flower/parameters/flow_cache"
RANGE_INDEX_PARAM = "/sys/module/cls_flower/parameters/range_index"
L3L4_PARAM = "/sys/module/cls_flower/parameters/l3l4_dissect"
DEV, BASE_DEV, CTL_DEV = "bench0", "benchb", "benchc"
U32_TABLE = 2000          # rules per u32 hash table (auto handles: <= 2048)
FIRST_IP = int(ipaddress.IPv4Address("10.0.0.1"))
CHECKS = []
# Many-masks kinds: mask i is (src_ip, dst_ip) prefix lengths mask_prefixes(i);
# the packets come from MASK_SRC to ip(0).
MASK_KINDS = ("flower-masks", "flower-masks-1prio")
MASK_SRC = "10.255.0.1"
MASK_MAX = 32 * 32
# Port-range kind: filter i holds dst_port RANGE_BASE + i*RANGE_WIDTH ..
# + RANGE_WIDTH - 1 (disjoint, one mask); a matchall drop at prio 2 takes
# the packets no range holds. pktgen sends UDP only, so the filters are
# ip_proto udp (tcp and udp ports are dissected alike).
RANGE_KIND = "flower-range"
RANGE_CASES = ("last", "miss")
RANGE_BASE, RANGE_WIDTH = 1000, 10
RANGE_MISS_PORT = 65000   # above every range: each filter's check fails
#                           on its max, as every filter but the last
#                           does for a "last" packet
RANGE_MAX = (RANGE_MISS_PORT - RANGE_BASE) // RANGE_WIDTH
# kinds whose points are not the rules-vs-cost lines of part 1
GROUPED_KINDS = MASK_KINDS + (RANGE_KIND,)
# --flow-cache both: flower-masks-1prio's cases again with ours' cache
# off, named CASE + NOCACHE (M > 1 only: M = 1 never has a cache)
NOCACHE = "-nocache"


def ip(i):
    return str(ipaddress.IPv4Address(FIRST_IP + i))


def mask_prefixes(i):
    """(src, dst) prefix lengths of mask i: 1024 distinct pairs, every
    mask with the same keys (IPv4 addresses) so every one costs the same
    dissection; (32, 32), (32, 31), ... (32, 1), (31, 32), ..."""
    return 32 - i // 32, 32 - i % 32


def net(addr, plen):
    """addr/plen with the host bits cleared (the key as the kernel keeps
    it)."""
    return str(ipaddress.ip_network("%s/%d" % (addr, plen), strict=False))


def port_range(i):
    """(lo, hi) of range filter i."""
    lo = RANGE_BASE + i * RANGE_WIDTH
    return lo, lo + RANGE_WIDTH - 1


def range_port(n, case):
    """The packets' UDP destination port: in the middle of the last of n
    ranges, or in none."""
    if case == "miss":
        return RANGE_MISS_PORT
    lo, hi = port_range(n - 1)
    return (lo + hi) // 2


def mask_miss_ip():
    """ip(0) with its top bit flipped: under any prefix of 1..32 bits it
    differs from ip(0), so a filter keyed on it never matches."""
    return str(ipaddress.IPv4Address(FIRST_IP ^ 0x80000000))


def sh(*cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, **kw)


def tc_batch(lines):
    path = "/tmp/bench.batch"
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    t0 = time.monotonic()
    sh("tc", "-b", path)
    return time.monotonic() - t0


def check(name, ok, detail=""):
    CHECKS.append((name, bool(ok)))
    print("%s  %s%s" % ("ok  " if ok else "FAIL", name,
                        (": " + detail) if detail else ""), flush=True)


def fresh_dev(dev):
    subprocess.run(["ip", "link", "del", dev], stderr=subprocess.DEVNULL)
    sh("ip", "link", "add", dev, "type", "dummy")
    sh("ip", "link", "set", dev, "up")
    sh("tc", "qdisc", "add", "dev", dev, "clsact")


# --------------------------------------------------------------------------
# Rules. All rules drop; rule i matches destination ip(i).

def rules(kind, n, dev):
    pre = "filter add dev %s ingress protocol ip" % dev
    if kind == "matchall":
        return ["filter add dev %s ingress prio 1 matchall action drop" % dev]
    if kind == "flower":        # one instance, one mask: a hash lookup
        return ["%s prio 1 handle %d flower dst_ip %s action drop"
                % (pre, i + 1, ip(i)) for i in range(n)]
    if kind == "flower-prios":  # one instance per rule: a walk over prios
        return ["%s prio %d handle 1 flower dst_ip %s action drop"
                % (pre, i + 1, ip(i)) for i in range(n)]
    if kind == "u32":
        # A u32 hash table holds at most 4095 nodes, so rules go into
        # tables of U32_TABLE, linked in order from table 800: by
        # match-all keys: one linear walk over all n rules.
        out = []
        for t in range((n + U32_TABLE - 1) // U32_TABLE):
            ht = "%x:" % (t + 1)
            out.append("%s prio 1 handle %s u32 divisor 1" % (pre, ht))
            out += ["%s prio 1 u32 ht %s match ip dst %s/32 action drop"
                    % (pre, ht, ip(i))
                    for i in range(t * U32_TABLE, min(n, (t + 1) * U32_TABLE))]
            out.append("%s prio 1 u32 ht 800: match u32 0 0 at 0 link %s"
                       % (pre, ht))
        return out
    if kind in MASK_KINDS:
        # M filters, M distinct masks, only the last one matches; the
        # rest differ from the packet in the top bit of the destination.
        if n > MASK_MAX:
            raise ValueError("at most %d masks" % MASK_MAX)
        out = []
        for i in range(n):
            a, b = mask_prefixes(i)
            prio, handle = (1, i + 1) if kind == "flower-masks-1prio" \
                else (i + 1, 1)
            dst = ip(0) if i == n - 1 else mask_miss_ip()
            out.append("%s prio %d handle %d flower src_ip %s dst_ip %s "
                       "action drop" % (pre, prio, handle, net(MASK_SRC, a),
                                        net(dst, b)))
        return out
    if kind == RANGE_KIND:
        # n disjoint dst_port ranges in prio 1 (handles 1..n, one mask,
        # inserted in that order), then a matchall drop at prio 2
        if n > RANGE_MAX:
            raise ValueError("at most %d ranges" % RANGE_MAX)
        return ["%s prio 1 handle %d flower ip_proto udp dst_port %d-%d "
                "action drop" % ((pre, i + 1) + port_range(i))
                for i in range(n)] + \
            ["filter add dev %s ingress prio 2 handle 1 matchall action "
             "drop" % dev]
    raise ValueError(kind)


def newflow_dsts(n):
    """(first, last) destination of the "newflow" case of M = n masks:
    every address of 10.0.0.0/8 under the last mask's dst prefix, which
    only that mask's filter matches (the others' dst differ in the top
    bit), sent in turn: each packet a key the flow cache has not seen
    (bar direct-mapped reuse when the range is small, M = 8: 128)."""
    b = mask_prefixes(n - 1)[1]
    last = ipaddress.ip_network("%s/%d" % (ip(0), max(b, 8)), strict=False)
    return ip(0), str(last.broadcast_address)


def target(kind, n, case):
    """(src or None, dst, UDP dst port or None) of the packets, and the
    rule_hits() key of the rule that must count them.  dst is a (first,
    last) pair for a range."""
    case = case[:-len(NOCACHE)] if case.endswith(NOCACHE) else case
    if kind in MASK_KINDS:      # the last mask's filter: "last", "newflow"
        dst = newflow_dsts(n) if case == "newflow" else ip(0)
        return MASK_SRC, dst, None, ((1, n) if kind == "flower-masks-1prio"
                                     else (n, 1))
    if kind == RANGE_KIND:      # the last range's filter, or prio 2's
        return None, ip(0), range_port(n, case), \
            ((2, 1) if case == "miss" else (1, n))
    if kind == "matchall":
        return None, ip(0), None, "any"
    dst = ip(n - 1 if case == "last" else 0)
    return None, dst, None, dst


def rule_hits(dev, by_handle=False):
    """{dst ip: packets} of every rule's drop action on dev (a full dump);
    by_handle: keyed by (prio, handle) instead."""
    out = sh("tc", "-s", "-j", "filter", "show", "dev", dev, "ingress",
             stdout=subprocess.PIPE).stdout
    hits = {}
    for f in json.loads(out or "[]"):
        o = f.get("options", {})
        if "actions" not in o:
            continue
        if by_handle:
            key = (f["pref"], o["handle"])
        elif f["kind"] == "flower":
            key = o["keys"]["dst_ip"]
        elif f["kind"] == "u32":
            key = str(ipaddress.IPv4Address(int(o["match"]["value"], 16)))
        else:
            key = "any"
        hits[key] = hits.get(key, 0) + o["actions"][0]["stats"]["packets"]
    return hits


def qdisc_drops(dev):
    out = sh("tc", "-s", "-j", "qdisc", "show", "dev", dev,
             stdout=subprocess.PIPE).stdout
    return sum(q["drops"] for q in json.loads(out) if q["kind"] == "clsact")


# --------------------------------------------------------------------------
# pktgen

def pg(path, cmd):
    with open(os.path.join(PG, path), "w") as f:
        f.write(cmd + "\n")


THREAD = sorted(x for x in os.listdir(PG) if x.startswith("kpktgend_"))[-1] \
    if os.path.isdir(PG) else None


def pktgen(dev, dst, seconds, src=None, port=None):
    """Send to dev for `seconds` (UDP to `port`, default pktgen's 9);
    return (packets, pps)."""
    pg(THREAD, "rem_device_all")
    pg(THREAD, "add_device " + dev)
    mac = open("/sys/class/net/%s/address" % dev).read().strip()
    dst = ("dst_min %s" % dst[0], "dst_max %s" % dst[1]) \
        if isinstance(dst, tuple) else ("dst " + dst,)
    for c in ("clone_skb 0", "count 0", "pkt_size 60", "delay 0") + dst + \
            ("dst_mac " + mac, "xmit_mode netif_receive") + \
            (("src_min " + src, "src_max " + src) if src else ()) + \
            (("udp_dst_min %d" % port, "udp_dst_max %d" % port)
             if port else ()):
        pg(dev, c)
    t = threading.Thread(target=pg, args=("pgctrl", "start"))
    t.start()
    time.sleep(seconds)
    pg("pgctrl", "stop")
    t.join()
    # "start" returns once the device stops running; the pktgen thread
    # (on another CPU) writes the result just after that.
    for _ in range(100):
        res = open(os.path.join(PG, dev)).read()
        m = re.search(r"Result: OK: (\d+)\(.*?\) usec, (\d+) \(", res)
        if m:
            break
        time.sleep(0.05)
    else:
        raise RuntimeError("pktgen: no result in:\n" + res)
    usec, pkts = int(m.group(1)), int(m.group(2))
    return pkts, pkts * 1e6 / max(usec, 1)


def measure(kind, n, case, a):
    """One classify point: a.runs pairs of (test, baseline) runs."""
    src, dst, port, key = target(kind, n, case)
    verify = kind != "nofilter" and n <= a.verify_max
    by_handle = kind in GROUPED_KINDS
    pps, base, pkts_total, bad = [], [], 0, []
    for _ in range(a.runs):
        h0 = rule_hits(DEV, by_handle) if verify else None
        d0 = qdisc_drops(DEV)
        pkts, rate = pktgen(DEV, dst, a.seconds, src, port)
        dropped = qdisc_drops(DEV) - d0
        want = 0 if kind == "nofilter" else pkts
        if dropped != want:
            bad.append("qdisc dropped %d of %d" % (dropped, pkts))
        if verify:
            h1 = rule_hits(DEV, by_handle)
            delta = {k: h1[k] - h0.get(k, 0) for k in h1 if h1[k] != h0.get(k)}
            if delta != {key: pkts}:
                bad.append("want %d hits on %s, got %s" % (pkts, key, delta))
        pps.append(rate)
        pkts_total += pkts
        # the baseline gets the same packet (matchall ignores it)
        base.append(pktgen(BASE_DEV, dst, a.seconds, src, port)[1])
    p, b = statistics.median(pps), statistics.median(base)
    row = dict(classifier=kind, case=case, rules=n, pps=round(p, 1),
               pps_runs=[round(x, 1) for x in pps], base_pps=round(b, 1),
               base_pps_runs=[round(x, 1) for x in base],
               cost_ns=round(1e9 / p, 1) if p else None,
               ratio=round(b / p, 3) if p else None, packets=pkts_total,
               verified="rule+qdisc" if verify else "qdisc")
    if port:
        row["udp_dst_port"] = port
    label = "%s %s n=%d" % (kind, case, n)
    check(label + ": %d packets, rate > 0" % pkts_total,
          pkts_total > 0 and p > 0 and b > 0,
          "%.0f pps, matchall %.0f pps, cost ratio %s"
          % (p, b, row["ratio"]))
    check(label + ": drops counted where expected (%s)" % row["verified"],
          not bad, "; ".join(bad[:2]))
    return row


def masks_in_one_prio():
    """Does this cls_flower take a second mask in a prio?  (True, "") or
    (False, the kernel's refusal)."""
    fresh_dev(DEV)
    lines = rules("flower-masks-1prio", 2, DEV)
    sh("tc", *lines[0].split())
    p = subprocess.run(["tc"] + lines[1].split(), capture_output=True,
                       text=True)
    return p.returncode == 0, " ".join(p.stderr.split())


def classify_part(a, skipped):
    fresh_dev(BASE_DEV)
    tc_batch(rules("matchall", 1, BASE_DEV))
    points = []
    plan = [("nofilter", [0]), ("matchall", [1])] + \
        [(k, a.counts) for k in ("flower", "flower-prios", "u32")] + \
        [(k, a.masks) for k in MASK_KINDS] + [(RANGE_KIND, a.ranges)]
    for kind, counts in plan:
        if a.only and kind not in a.only:
            continue
        if kind == "flower-masks-1prio" and counts:
            # Both kernels take several masks in one prio (ours since it
            # dissects once per prio for all its masks): a refusal is a
            # failure, not a skip.
            ok, why = masks_in_one_prio()
            check("%s: a second mask in one prio is accepted" % kind, ok,
                  why)
            if not ok:
                skipped.append(dict(classifier=kind, reason=why))
                continue
        for n in counts:
            fresh_dev(DEV)
            t = tc_batch(rules(kind, n, DEV)) if n else 0
            time.sleep(a.settle)    # deferred work (rhashtable resize, RCU)
            print("# %s n=%d: rules installed in %.1f s" % (kind, n, t),
                  flush=True)
            cases = RANGE_CASES if kind == RANGE_KIND else \
                ("last", "first") if n > 1 and kind not in \
                MASK_KINDS else ("last",)
            if a.newflow and kind == "flower-masks-1prio" and n > 1:
                cases += ("newflow",)
            if a.flow_cache == "both" and kind == "flower-masks-1prio" \
                    and n > 1 and os.path.exists(FLOW_CACHE_PARAM):
                cases = cases * a.repeat + (None,) + \
                    tuple(c + NOCACHE for c in cases) * a.repeat
            else:
                cases = cases * a.repeat
            for case in cases:
                if case is None:    # the same filters, made with no cache
                    set_flow_cache("off")
                    fresh_dev(DEV)
                    tc_batch(rules(kind, n, DEV))
                    set_flow_cache("on")    # for instances made later
                    time.sleep(a.settle)
                    continue
                points.append(measure(kind, n, case, a))
                r = points[-1]
                print("# %-12s %-5s n=%-6d %10.0f pps  %8.0f ns  x%.2f"
                      % (kind, case, n, r["pps"], r["cost_ns"], r["ratio"]),
                      flush=True)
    subprocess.run(["ip", "link", "del", DEV])
    return points


# --------------------------------------------------------------------------
# Control plane

def meminfo():
    m = {}
    for line in open("/proc/meminfo"):
        k, v = line.split(":")
        m[k] = int(v.split()[0]) * 1024
    return m


def slabinfo():
    s = {}
    try:
        for line in open("/proc/slabinfo").readlines()[2:]:
            f = line.split()
            s[f[0]] = int(f[2]) * int(f[3])     # num_objs * objsize
    except OSError:
        pass
    return s


SETTLE = [1.5]


def settle():
    time.sleep(SETTLE[0])   # let call_rcu / rcu_work frees run
    return meminfo(), slabinfo()


def count_filters(kind, text):
    if kind == "flower":
        return sum(1 for ln in text.splitlines()
                   if ln.startswith("filter ") and " handle " in ln)
    return sum(1 for ln in text.splitlines()
               if " key ht " in ln and " link " not in ln)


def control_part(a):
    rows = []
    for kind in ("flower", "u32"):
        for c in a.insert_counts:
            fresh_dev(CTL_DEV)
            lines = rules(kind, c, CTL_DEV)
            m0, s0 = settle()
            t_ins = tc_batch(lines)
            m1, s1 = settle()
            t0 = time.monotonic()
            out = sh("tc", "filter", "show", "dev", CTL_DEV, "ingress",
                     stdout=subprocess.PIPE).stdout
            t_dump = time.monotonic() - t0
            dumped = count_filters(kind, out)
            del out
            t0 = time.monotonic()
            sh("tc", "filter", "del", "dev", CTL_DEV, "ingress",
               "protocol", "ip", "prio", "1")
            t_del = time.monotonic() - t0
            left = count_filters(kind, sh(
                "tc", "filter", "show", "dev", CTL_DEV, "ingress",
                stdout=subprocess.PIPE).stdout)
            m2, _ = settle()
            d = lambda k, x=m1: (x[k] - m0[k]) / c          # noqa: E731
            grown = sorted(((s1.get(k, 0) - s0.get(k, 0), k) for k in s1),
                           reverse=True)[:4]
            r = dict(classifier=kind, filters=c,
                     insert_s=round(t_ins, 3),
                     insert_per_s=round(c / t_ins, 1),
                     dump_s=round(t_dump, 3), delete_s=round(t_del, 3),
                     dumped=dumped,
                     slab_B_per_filter=round(d("Slab"), 1),
                     percpu_B_per_filter=round(d("Percpu"), 1)
                     if "Percpu" in m0 else None,
                     vmalloc_B_per_filter=round(d("VmallocUsed"), 1),
                     memfree_B_per_filter=round(-d("MemFree"), 1),
                     slab_B_left_after_delete=round(d("Slab", m2) * c),
                     slab_caches_grown={k: v for v, k in grown if v > 0})
            rows.append(r)
            print("# control %-6s %6d filters: insert %.1f s (%.0f/s), "
                  "dump %.1f s, delete %.2f s, slab %.0f B/filter, "
                  "MemFree %.0f B/filter" % (
                      kind, c, t_ins, r["insert_per_s"], t_dump, t_del,
                      r["slab_B_per_filter"], r["memfree_B_per_filter"]),
                  flush=True)
            check("control %s %d: dump shows all filters" % (kind, c),
                  dumped == c, "%d dumped" % dumped)
            check("control %s %d: none left after delete" % (kind, c),
                  left == 0, "%d left" % left)
            check("control %s %d: insert rate > 0" % (kind, c),
                  r["insert_per_s"] > 0)
    subprocess.run(["ip", "link", "del", CTL_DEV])
    return rows


# Parallel insert: the shape of tc-testing's concurrency cases (P batch
# files, `xargs -n 1 -P P tc -b`), with this script's filters.
PAR_LAYOUTS = ("prio-per-process", "one-prio")


def parallel_rules(layout, k, per, dev):
    """Batch of process k: `per` flower filters, dst_ip distinct over all
    processes; on prio k+1 (handles 1..per), or all on prio 1 with
    handles k*per+1 .. (k+1)*per."""
    pre = "filter add dev %s ingress protocol ip" % dev
    out = []
    for i in range(per):
        j = k * per + i
        prio, handle = (k + 1, i + 1) if layout == "prio-per-process" \
            else (1, j + 1)
        out.append("%s prio %d handle %d flower dst_ip %s action drop"
                   % (pre, prio, handle, ip(j)))
    return out


def parallel_insert(paths):
    """Start one `tc -b PATH` per path at once; wait for all of them.
    Returns (seconds until the last exited, [(seconds, exit code, stderr
    tail)] per process, each from its own start)."""
    errs = [open(p + ".err", "w+") for p in paths]
    t0 = time.monotonic()
    procs, start = {}, {}
    for k, path in enumerate(paths):
        start[k] = time.monotonic()
        p = subprocess.Popen(["tc", "-b", path], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=errs[k])
        procs[p.pid] = (k, p)
    done = [None] * len(paths)
    while procs:
        pid, status = os.wait()
        if pid not in procs:
            continue
        k, p = procs.pop(pid)
        p.returncode = os.waitstatus_to_exitcode(status)
        done[k] = [time.monotonic() - start[k], p.returncode]
    wall = time.monotonic() - t0
    for k, f in enumerate(errs):
        f.seek(0)
        done[k].append(" ".join(f.read().split())[-300:])
        f.close()
    return wall, done


def parallel_part(a):
    rows = []
    procs, per = a.parallel
    total = procs * per
    for layout in PAR_LAYOUTS:
        fresh_dev(CTL_DEV)
        paths = []
        for k in range(procs):
            paths.append("/tmp/bench-par-%d.batch" % k)
            with open(paths[-1], "w") as f:
                f.write("\n".join(parallel_rules(layout, k, per, CTL_DEV))
                        + "\n")
        m0, s0 = settle()
        wall, done = parallel_insert(paths)
        m1, _ = settle()
        failed = [(k, d) for k, d in enumerate(done) if d[1] != 0]
        t0 = time.monotonic()
        out = sh("tc", "filter", "show", "dev", CTL_DEV, "ingress",
                 stdout=subprocess.PIPE).stdout
        t_dump = time.monotonic() - t0
        dumped = count_filters("flower", out)
        prios = len({ln.split(" pref ")[1].split()[0]
                     for ln in out.splitlines()
                     if ln.startswith("filter ") and " pref " in ln})
        del out
        t0 = time.monotonic()
        sh("tc", "filter", "del", "dev", CTL_DEV, "ingress")
        t_del = time.monotonic() - t0
        left = count_filters("flower", sh(
            "tc", "filter", "show", "dev", CTL_DEV, "ingress",
            stdout=subprocess.PIPE).stdout)
        for path in paths:
            os.unlink(path)
            os.unlink(path + ".err")
        own = sorted(d[0] for d in done)
        r = dict(classifier="flower", layout=layout, processes=procs,
                 filters_per_process=per, filters=total,
                 wall_s=round(wall, 3), insert_per_s=round(total / wall, 1),
                 process_s_min=round(own[0], 3),
                 process_s_median=round(statistics.median(own), 3),
                 process_s_max=round(own[-1], 3),
                 process_s=[round(d[0], 3) for d in done],
                 dump_s=round(t_dump, 3), delete_s=round(t_del, 3),
                 dumped=dumped, prios=prios,
                 slab_B_per_filter=round((m1["Slab"] - m0["Slab"]) / total,
                                         1),
                 memfree_B_per_filter=round(
                     (m0["MemFree"] - m1["MemFree"]) / total, 1))
        rows.append(r)
        print("# control parallel %s: %d x tc -b of %d filters: %.1f s "
              "until the last exited (%.0f/s), each %.1f-%.1f s, dump "
              "%.1f s, delete %.2f s" % (
                  layout, procs, per, wall, r["insert_per_s"], own[0],
                  own[-1], t_dump, t_del), flush=True)
        label = "control parallel %s %dx%d" % (layout, procs, per)
        check(label + ": every tc -b exited 0", not failed,
              "; ".join("process %d exit %d: %s" % (k, d[1], d[2])
                        for k, d in failed[:2]))
        check(label + ": dump shows all filters in %d prio(s)" % (
            procs if layout == "prio-per-process" else 1),
            dumped == total and prios == (
                procs if layout == "prio-per-process" else 1),
            "%d dumped in %d prio(s)" % (dumped, prios))
        check(label + ": none left after delete", left == 0,
              "%d left" % left)
    subprocess.run(["ip", "link", "del", CTL_DEV])
    return rows


# --------------------------------------------------------------------------

def criteria(points):
    """Issue acceptance: flower (one instance) flat, u32 linear."""
    points = [p for p in points if p["classifier"] not in GROUPED_KINDS]
    if not points:
        return {}
    cost = {(p["classifier"], p["case"], p["rules"]): p["ratio"]
            for p in points}
    lo, hi = min(p["rules"] for p in points if p["rules"]), \
        max(p["rules"] for p in points)
    out = {"from_rules": lo, "to_rules": hi}
    f0, f1 = cost.get(("flower", "last", lo)), cost.get(("flower", "last", hi))
    if f0 and f1 and hi > lo:
        out["flower_growth"] = round(f1 / f0, 3)
        out["flower_flat"] = f1 / f0 <= 1.5
    # u32: cost above the 1-rule point, per rule, at the two largest counts;
    # linear growth means about the same per-rule cost at both.
    ns = sorted({p["rules"] for p in points if p["classifier"] == "u32"})
    if len(ns) >= 3:
        a, b = ns[-2], ns[-1]
        u0 = cost[("u32", "last", ns[0])]
        sa = (cost[("u32", "last", a)] - u0) / (a - ns[0])
        sb = (cost[("u32", "last", b)] - u0) / (b - ns[0])
        out["u32_growth"] = round(cost[("u32", "last", b)] / u0, 2)
        out["u32_per_rule_at"] = {str(a): round(sa, 5), str(b): round(sb, 5)}
        out["u32_linear"] = sa > 0 and 0.5 <= sb / sa <= 2.0
    return out


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


def set_param(path, value):
    """One of ours' bench-only module parameters (flow_cache,
    range_index, l3l4_dissect): "on" or "off" for instances changed after (stock has
    none: nothing to set)."""
    if os.path.exists(path):
        with open(path, "w") as f:
            f.write("Y\n" if value == "on" else "N\n")


def read_param(path):
    """Y or N, or None where the module has no such parameter (stock)."""
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return f.read().strip()


def set_flow_cache(value):
    set_param(FLOW_CACHE_PARAM, value)


def module_file(name):
    """/sys/module/cls_flower/NAME (srcversion, version), or None."""
    try:
        with open("/sys/module/cls_flower/" + name) as f:
            return f.read().strip()
    except OSError:
        return None


def write_csv(path, rows):
    fields = list(dict.fromkeys(k for r in rows for k in r))
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for r in rows:
            w.writerow({k: (json.dumps(v) if isinstance(v, (list, dict))
                            else v) for k, v in r.items()})


def main():
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
