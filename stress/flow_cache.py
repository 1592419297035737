"""The flow cache (cls_flower.c's top comment) under changes: a prio with
several masks, one flow sent again and again, and between bursts a
change that moves the flow's verdict (a filter added, replaced, deleted,
a mask coming or going).  After every burst, the filter that must count
the flow's packets counted all of them and no other counted any.  Many
more changes than FL_CACHE_GEN_INIT leaves before the generation would
wrap, so the cache is replaced on the way.

Every filter's action is a gact of its own index, made before the
filter (`tc actions add`), so a deleted filter's packets still show:
a packet counted by a filter after its delete returned is seen.

Two modes:
  bursts (default)  one CPU: frames go out of a veth's peer (AF_PACKET)
                    into its ingress between changes, and the counts must
                    be exact.
  --senders N       N mausezahn senders pinned one per CPU send the flow
                    all the time, so every CPU's cache is read and written
                    while filters change.  After each change and a settle
                    time, a window of traffic must be counted by the one
                    filter the mask order says and by no other; a count
                    elsewhere is a failure only when the next window shows
                    one too (a stale entry stays until the next change,
                    a packet classified before the change does not).

Runs in the guest: guest/run -- /usr/bin/python3 -m stress.flow_cache
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
    """A filter whose action is the gact of index(@handle) (made first)"""
    tc("filter", "replace" if replace else "add", "dev", DEV, "ingress",
       "protocol", "ip", "prio", str(prio), "handle", str(handle), "flower",
       *keys.split(), "action", "gact", "index", str(index(handle)))


def delete(handle, prio=1):
    tc("filter", "del", "dev", DEV, "ingress", "protocol", "ip", "prio",
       str(prio), "handle", str(handle), "flower")


# gact indexes of our own, far from those other parts of a stress run
# get from the kernel (1, 2, ...) or leave behind
INDEX_BASE = 3000000
# The gact index of prio 2's matchall, which counts what prio 1 missed
MISS = INDEX_BASE + 1000


def index(handle):
    return INDEX_BASE + handle


def our_indexes():
    return [index(h) for h, _ in STATIC + MATCHING] + [index(99), MISS]


def hits():
    """{index: packets} of our gacts, deleted filters' included"""
    out = sh("tc", "-s", "-j", "actions", "list", "action", "gact")
    ours = set(our_indexes())
    got = {}
    for tab in json.loads(out or "[]"):
        for a in tab.get("actions", []):
            if a["index"] in ours:
                got[a["index"]] = a["stats"]["packets"]
    return got


def make_actions():
    for i in our_indexes():
        # one a run that died left behind would keep its counts
        subprocess.run(["tc", "actions", "del", "action", "gact", "index",
                        str(i)], stderr=subprocess.DEVNULL)
        tc("actions", "add", "action", "drop", "index", str(i))


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
    """count packets; want: the gact index that must count them"""
    h0 = hits()
    send(*tx, count)
    for _ in range(100):
        h1 = hits()
        delta = changed(h0, h1)
        if sum(delta.values()) >= count:
            break
        time.sleep(0.01)
    check("step %d: %d packets counted by %s" % (step, count, want),
          delta == {want: count}, "got %s" % delta)


def changed(h0, h1):
    return {k: h1[k] - h0.get(k, 0) for k in h1 if h1[k] != h0.get(k, 0)}


class Senders:
    """mausezahn senders of the flow, one pinned to each of the first N
    CPUs, sending all the time (a pause between frames leaves the CPUs
    some room for tc)"""

    def __init__(self, n, gap):
        self.procs = []
        mac = open("/sys/class/net/%s/address" % DEV).read().strip()
        for cpu in range(n):
            self.procs.append(subprocess.Popen(
                ["taskset", "-c", str(cpu % os.cpu_count()), "mausezahn",
                 PEER, "-q", "-c", "0", "-d", gap, "-a", "02:00:00:00:00:01",
                 "-b", mac, "-A", SRC, "-B", DST, "-t", "udp", "sp=1234,dp=9"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

    def alive(self):
        return all(p.poll() is None for p in self.procs)

    def stop(self):
        for p in self.procs:
            p.kill()
            p.wait()


def window(step, want, settle, length, senders):
    """After a change: once settled, a window of the senders' traffic is
    counted by @want alone.  A count elsewhere fails only when the next
    window has one too (see the top)."""
    time.sleep(settle)
    for attempt in range(2):
        h0 = hits()
        time.sleep(length)
        delta = changed(h0, hits())
        if delta.keys() == {want}:
            break
    check("step %d: traffic on %d CPUs counted by %s alone"
          % (step, len(senders.procs), want),
          delta.keys() == {want} and senders.alive(),
          "got %s%s" % (delta, "" if senders.alive() else ", a sender died"))


def setup():
    subprocess.run(["ip", "link", "del", DEV], stderr=subprocess.DEVNULL)
    sh("ip", "link", "add", DEV, "type", "veth", "peer", "name", PEER)
    for d in (DEV, PEER):
        path = "/proc/sys/net/ipv6/conf/%s/disable_ipv6" % d
        if os.path.exists(path):
            with open(path, "w") as f:
                f.write("1\n")
        sh("ip", "link", "set", d, "up")
    make_actions()
    tc("qdisc", "add", "dev", DEV, "clsact")
    tc("filter", "add", "dev", DEV, "ingress", "protocol", "ip", "prio",
       "2", "handle", "1", "matchall", "action", "gact", "index", str(MISS))
    for h, keys in STATIC:
        add(h, keys)


def changes(rng, steps, observe):
    """@steps random changes of prio 1; after each, observe(step, want)
    with the gact index that must count the flow.  Returns how many
    changes were made."""
    present = []            # MATCHING filters in prio 1, in the order added
    n = 0
    for step in range(steps):
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
            n += 1
            observe(step, want_of(present, m))
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
            n += 1
        n += 1
        observe(step, want_of(present))
    return n


def under_traffic(steps, seed, senders=2, gap="100usec", settle=0.3,
                  length=0.3):
    """The senders mode (stress.parallel's cache phase calls it too):
    returns the checks' (passed, failed)"""
    del CHECKS[:]
    setup()
    traffic = Senders(senders, gap)
    try:
        n = changes(random.Random(seed), steps,
                    lambda step, want: window(step, want, settle, length,
                                              traffic))
    finally:
        traffic.stop()
        cleanup()
    print("# %d steps, about %d changes, %d senders" % (steps, n, senders),
          flush=True)
    return CHECKS.count(True), CHECKS.count(False)


def in_bursts(steps, seed, count):
    """The bursts mode: returns the checks' (passed, failed)"""
    del CHECKS[:]
    setup()
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    sock.bind((PEER, 0))
    tx = (sock, frame())
    try:
        n = changes(random.Random(seed), steps,
                    lambda step, want: burst(tx, step, want, count))
    finally:
        sock.close()
        cleanup()
    print("# %d steps, about %d changes" % (steps, n), flush=True)
    return CHECKS.count(True), CHECKS.count(False)


def cleanup():
    subprocess.run(["ip", "link", "del", DEV])
    for i in our_indexes():
        subprocess.run(["tc", "actions", "del", "action", "gact", "index",
                        str(i)], stderr=subprocess.DEVNULL)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=400)
    p.add_argument("--count", type=int, default=50,
                   help="frames of a burst (bursts mode)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--senders", type=int, default=0,
                   help="senders, one per CPU, sending all the time "
                   "(0: bursts on one CPU between changes)")
    p.add_argument("--gap", default="100usec",
                   help="mausezahn's pause between a sender's frames")
    p.add_argument("--settle", type=float, default=0.3,
                   help="seconds after a change before a window")
    p.add_argument("--window", type=float, default=0.3,
                   help="seconds of traffic a window counts")
    p.add_argument("--json", metavar="FILE", help="counts, for suite.sh")
    a = p.parse_args()
    if a.senders:
        passed, failed = under_traffic(a.steps, a.seed, a.senders, a.gap,
                                       a.settle, a.window)
    else:
        passed, failed = in_bursts(a.steps, a.seed, a.count)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"steps": a.steps, "senders": a.senders,
                       "passed": passed, "failed": failed}, f)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def want_of(present, gone=None):
    """Who counts the flow: the matching filter of the oldest mask in
    prio 1 (masks are tried in the order they came), else prio 2's
    matchall.  A filter replaced by a non-matching one keeps its place
    but not its match (gone)."""
    for m in present:
        if m is not gone:
            return index(m[0])
    return MISS


if __name__ == "__main__":
    sys.exit(main())
