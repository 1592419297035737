# SPDX-License-Identifier: GPL-2.0
"""Part 1 of bench/classify.py, the classify cost (parts 1, 1b and 1c of
its docstring): pktgen feeds DEV, whose clsact ingress holds the rules of
one kind, and BASE_DEV, which holds a single matchall drop, in pairs of
runs; each point is checked against the rule counters and the qdisc's
drop counter.  criteria() turns the points into the issue's acceptance
numbers (flower flat, u32 linear).
"""
import ipaddress
import json
import os
import re
import statistics
import subprocess
import threading
import time

from bench.classify_guest import (FLOW_CACHE_PARAM, check, fresh_dev,
                                  set_flow_cache, sh, tc_batch)
from bench.classify_rules import (GROUPED_KINDS, MASK_KINDS, NOCACHE,
                                  RANGE_CASES, RANGE_KIND, rules, target)

PG = "/proc/net/pktgen"
# the device under test and the one of the matchall baseline
DEV, BASE_DEV = "bench0", "benchb"


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
