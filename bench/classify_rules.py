# SPDX-License-Identifier: GPL-2.0
"""The filters bench/classify.py installs and the packets aimed at them.

Pure functions of (kind, count, case): the `tc -b` lines of each
classifier kind (rules(), parallel_rules()) and which source,
destination and UDP port the packets carry so that one known filter
counts them (target()).  Nothing here touches the system, so the host
side (bench/tests) can check what the guest would send.
"""
import ipaddress

U32_TABLE = 2000          # rules per u32 hash table (auto handles: <= 2048)
FIRST_IP = int(ipaddress.IPv4Address("10.0.0.1"))
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


# Parallel insert: the shape of tc-testing's concurrency cases (P batch
# files, `xargs -n 1 -P P tc -b`), with bench/classify.py's filters.
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
