"""The flow cache (cls_flower.c's top comment) under changes: a prio with
several masks, one flow sent again and again, and between bursts a
change that moves the flow's verdict (a filter added, replaced, deleted,
a mask coming or going).  After every burst, the filter that must count
the flow's packets counted all of them and no other counted any.  Many
more changes than FL_CACHE_GEN_INIT leaves before the generation would
wrap, so the cache is replaced on the way.

Frames go out of a veth's peer (AF_PACKET) into its ingress.  Runs in
the guest: guest/run -- /usr/bin/python3 -m stress.flow_cache
Ends with "N passed, N failed".
"""

import argparse
import json
import os
import random
import socket
import struct
import subprocess
import sys
import time

DEV, PEER = "fc0", "fc1"
SRC, DST = "10.255.0.1", "10.0.0.1"
# Masks that never match the flow (UDP from SRC to DST), kept in prio 1
# so that the instance has a cache: (handle, flower keys)
STATIC = [
    (1, "src_ip 10.9.9.9/32"),
    (2, "dst_ip 10.0.0.0/30 src_ip 10.1.0.0/16"),
    (3, "ip_proto tcp dst_ip 10.0.0.0/8"),
    (4, "dst_ip 10.0.0.2/31"),
]
# Filters that match the flow, each with a mask of its own: (handle, keys)
MATCHING = [
    (10, "dst_ip 10.0.0.1/32"),
    (11, "src_ip 10.255.0.0/16"),
    (12, "ip_proto udp"),
    (13, "dst_ip 10.0.0.0/24 src_ip 10.255.0.1/32"),
]
CHECKS = []


def sh(*cmd):
    return subprocess.run(cmd, check=True, text=True,
                          stdout=subprocess.PIPE).stdout


def tc(*args):
    sh("tc", *args)


def add(handle, keys, prio=1, replace=False):
    tc("filter", "replace" if replace else "add", "dev", DEV, "ingress",
       "protocol", "ip", "prio", str(prio), "handle", str(handle), "flower",
       *keys.split(), "action", "drop")


def delete(handle, prio=1):
    tc("filter", "del", "dev", DEV, "ingress", "protocol", "ip", "prio",
       str(prio), "handle", str(handle), "flower")


def hits():
    """{(prio, handle): packets} of every filter on DEV"""
    out = sh("tc", "-s", "-j", "filter", "show", "dev", DEV, "ingress")
    got = {}
    for f in json.loads(out or "[]"):
        o = f.get("options", {})
        if "actions" in o:
            got[(f["pref"], o["handle"])] = \
                o["actions"][0]["stats"]["packets"]
    return got


def frame():
    """A 60-byte UDP/IPv4 frame from SRC to DST"""
    def csum(b):
        t = sum(int.from_bytes(b[i:i + 2], "big") for i in range(0, 20, 2))
        while t >> 16:
            t = (t & 0xffff) + (t >> 16)
        return (~t & 0xffff).to_bytes(2, "big")
    udp = struct.pack("!HHHH", 1234, 9, 8 + 18, 0) + bytes(18)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17,
                     0, socket.inet_aton(SRC), socket.inet_aton(DST))
    ip = ip[:10] + csum(ip) + ip[12:]
    mac = bytes.fromhex(open("/sys/class/net/%s/address"
                             % DEV).read().strip().replace(":", ""))
    return mac + bytes.fromhex("020000000001") + b"\x08\x00" + ip + udp


def send(sock, pkt, count):
    for _ in range(count):
        sock.send(pkt)


def check(name, ok, detail=""):
    CHECKS.append(ok)
    if not ok or os.environ.get("FC_VERBOSE"):
        print("%s  %s%s" % ("ok  " if ok else "FAIL", name,
                            (": " + detail) if detail else ""), flush=True)


def burst(tx, step, want, count):
    """count packets; want: the (prio, handle) that must count them"""
    h0 = hits()
    send(*tx, count)
    for _ in range(100):
        h1 = hits()
        delta = {k: h1[k] - h0.get(k, 0) for k in h1
                 if h1[k] != h0.get(k, 0)}
        if sum(delta.values()) >= count:
            break
        time.sleep(0.01)
    check("step %d: %d packets counted by %s" % (step, count, want),
          delta == {want: count}, "got %s" % delta)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=400)
    p.add_argument("--count", type=int, default=50)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    rng = random.Random(a.seed)
    subprocess.run(["ip", "link", "del", DEV], stderr=subprocess.DEVNULL)
    sh("ip", "link", "add", DEV, "type", "veth", "peer", "name", PEER)
    for d in (DEV, PEER):
        path = "/proc/sys/net/ipv6/conf/%s/disable_ipv6" % d
        if os.path.exists(path):
            with open(path, "w") as f:
                f.write("1\n")
        sh("ip", "link", "set", d, "up")
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    sock.bind((PEER, 0))
    tx = (sock, frame())
    tc("qdisc", "add", "dev", DEV, "clsact")
    tc("filter", "add", "dev", DEV, "ingress", "protocol", "ip", "prio",
       "2", "handle", "1", "matchall", "action", "drop")
    for h, keys in STATIC:
        add(h, keys)
    present = []            # MATCHING filters in prio 1, in the order added
    changes = 0
    for step in range(a.steps):
        what = rng.choice(("add", "del", "replace", "static"))
        absent = [m for m in MATCHING if m not in present]
        if what == "add" and absent:
            m = rng.choice(absent)
            add(*m)
            present.append(m)
        elif what == "del" and present:
            m = rng.choice(present)
            delete(m[0])
            present.remove(m)
        elif what == "replace" and present:
            # the same handle, a key that no longer matches, then back
            m = rng.choice(present)
            add(m[0], "dst_ip 10.0.0.3/32", replace=True)
            changes += 1
            burst(tx, step, want_of(present, m), a.count)
            add(*m, replace=True)
            if m[0] != 10:
                # Its own mask emptied and left, and came back last;
                # filter 10's mask held the stand-in, and stays
                present.remove(m)
                present.append(m)
        else:
            # a mask that comes and goes: the set of masks changes
            add(99, "dst_ip 10.0.%d.0/24 ip_proto tcp" % rng.randrange(256))
            delete(99)
            changes += 1
        changes += 1
        burst(tx, step, want_of(present), a.count)
    print("# %d steps, about %d changes" % (a.steps, changes), flush=True)
    subprocess.run(["ip", "link", "del", DEV])
    failed = CHECKS.count(False)
    print("%d passed, %d failed" % (len(CHECKS) - failed, failed))
    return 1 if failed else 0


def want_of(present, gone=None):
    """Who counts the flow: the matching filter of the oldest mask in
    prio 1 (masks are tried in the order they came), else prio 2's
    matchall.  A filter replaced by a non-matching one keeps its place
    but not its match (gone)."""
    for m in present:
        if m is not gone:
            return (1, m[0])
    return (2, 1)


if __name__ == "__main__":
    sys.exit(main())
