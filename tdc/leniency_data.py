# SPDX-License-Identifier: GPL-2.0
"""leniency_data.py - what was written by hand about the requests the
stock 6.1 flower accepts and ours accepts too, with a warning (series
step 22); tdc/leniency.py writes docs/leniency.md from it and the TAPs of
a `make compare` run.

Nothing here is a result: whether a case passes is read from the TAPs,
never written here, and the warnings' texts are flower/needs.py's,
quoted by the generator.  What is written here:

ROWS, one dict per kind of request, in the page's order; `kind` is the
name difftest/lenient.py gives it (LENIENT_KINDS, in the same order):
  request  the request the stock flower accepts
  stock    what the stock flower does with it, silently
  ours     what ours does with it
  says     the warnings ours gives: (table, key) pairs, table 'MESSAGES'
           (a need's warning, by need) or 'WARNINGS' (ours' others), both
           of flower/needs.py
  note     more about the row (optional)
  cases    the ids of the corpus cases that exercise the request (found
           by category `leniency` or `warnings`, by the warning texts
           their commands look for, and by reading the rest of
           tc-tests/filters/flower/): the generator reports a row
           without one, and a case of those categories no row names

PREREQ_NEEDS: the needs whose warning a key without its prerequisite
gets.  NEVER_MET: the MESSAGES keys no request meets (flower/needs.py's
docstring says why), which no row names.

INTRO, STILL_REFUSED: the page's prose.
"""

# the needs of a key on the filter's protocol, ip_proto or tags: a key
# whose need the filter does not meet is ignored, with the need's warning
PREREQ_NEEDS = ('IP', 'TCP', 'UDP', 'SCTP', 'L4', 'ICMPV4', 'ICMPV6', 'ARP',
                'VLAN', 'CVLAN', 'MPLS', 'PPPOE', 'L2TP')

# IPv4 addresses win over IPv6 ones, IPv6 tunnel addresses over IPv4
# ones: a request never meets the loser's "not of the filter's family"
NEVER_MET = ('IPV4_ADDRS', 'ENC_IPV6_ADDRS')

ROWS = [
    {
        'kind': 'prereq',
        'request': 'a key whose prerequisite the filter does not give: '
                   'ip_proto, ip_tos/ip_ttl without protocol ip/ipv6; '
                   'tcp/udp/sctp ports, port ranges and tcp_flags without '
                   'their ip_proto; icmp type/code without ip+icmp or '
                   'ipv6+icmpv6; arp keys without arp/rarp; mpls keys (and '
                   'MPLS_OPTS) without mpls_uc/mc; l2tpv3_sid without '
                   'ip_proto l2tp; vlan keys without a VLAN TPID (or '
                   'num_of_vlans); cvlan keys without an inner TPID (or '
                   'num_of_vlans 2); ppp_proto / pppoe_sid without ppp_ses',
        'stock': 'the key is ignored: the filter matches more than was '
                 'asked',
        'ours': 'ignored, and the need\'s warning',
        'says': [('MESSAGES', need) for need in PREREQ_NEEDS],
        'cases': ['22c0', '626e', 'c77a', '8578', 'e789', '1745', 'd86a',
                  '8664'],
    },
    {
        'kind': 'addr_families',
        'request': 'IPv4 and IPv6 address keys in one filter',
        'stock': 'the IPv6 keys are ignored',
        'ours': 'ignored',
        'says': [('MESSAGES', 'NO_IPV4_ADDRS')],
        'cases': ['7c3d'],
    },
    {
        'kind': 'addr_family',
        'request': 'address keys of the family the protocol is not '
                   '(`protocol ipv6` with `TCA_FLOWER_KEY_IPV4_DST`)',
        'stock': 'kept: no packet matches',
        'ours': 'kept',
        'says': [('WARNINGS', 'addr_family')],
        'cases': ['22c0', '7c3d'],
    },
    {
        'kind': 'mask_without_key',
        'request': 'a `*_MASK` attribute (also KEY_FLAGS_MASK, '
                   'ENC_OPTS_MASK) without its key',
        'stock': 'ignored',
        'ours': 'ignored',
        'says': [('WARNINGS', 'mask_without_key')],
        'cases': ['84b2', '22c0'],
    },
    {
        'kind': 'vlan_range',
        'request': 'vlan_id / cvlan_id above 4095, vlan_prio / cvlan_prio '
                   'above 7',
        'stock': 'masked to 12 / 3 bits',
        'ours': 'masked',
        'says': [('WARNINGS', 'vlan_id'), ('WARNINGS', 'vlan_prio')],
        'cases': ['22c0'],
    },
    {
        'kind': 'tcp_flags',
        'request': 'tcp_flags mask bits above 0xfff; '
                   'TCA_FLOWER_KEY_TCP_FLAGS without its mask',
        'stock': 'kept as given (no mask: 0xffff)',
        'ours': 'the same',
        'says': [('WARNINGS', 'tcp_flags')],
        'cases': ['22c0'],
    },
    {
        'kind': 'ip_flags',
        'request': 'ip_flags bits other than frag and firstfrag (key or '
                   'mask)',
        'stock': 'dropped',
        'ours': 'dropped',
        'says': [('WARNINGS', 'ip_flags')],
        'cases': ['c7be', '22c0'],
    },
    {
        'kind': 'eth_type',
        'request': 'TCA_FLOWER_KEY_ETH_TYPE other than the filter\'s '
                   'protocol (not `all`)',
        'stock': 'kept: a packet must have both',
        'ours': 'kept',
        'says': [('WARNINGS', 'eth_type')],
        'cases': ['e32a'],
    },
    {
        'kind': 'no_eth_type',
        'request': 'no TCA_FLOWER_KEY_ETH_TYPE (tc and Open vSwitch always '
                   'send it; raw clients may not)',
        'stock': 'the filter\'s protocol is not a key: keys that need it '
                 'are ignored, VLAN keys count only with num_of_vlans',
        'ours': 'the same, and the ignored keys\' warnings',
        'says': [('MESSAGES', need) for need in PREREQ_NEEDS],
        'cases': ['7c3d'],
    },
    {
        'kind': 'enc_families',
        'request': 'enc IPv4 and enc IPv6 addresses in one filter',
        'stock': 'the tunnel family is IPv6, and the IPv4 keys are written '
                 'into the bytes they share with the IPv6 ones (a union): '
                 'the filter matches IPv6 tunnels whose source begins with '
                 'the IPv4 address, and the dump shows those bytes as an '
                 'IPv6 address nobody gave',
        'ours': 'the IPv4 keys ignored: the filter matches what its dump '
                'says',
        'says': [('MESSAGES', 'NO_ENC_IPV6_ADDRS')],
        'note': 'A stock bug (class (a) of issue 31; difftest\'s class '
                '`stock-enc-families`; kernel/stock-series patch 4)',
        'cases': ['1972', '0014', '6680', '77ca'],
    },
    {
        'kind': 'unknown_attr',
        'request': 'attribute types above TCA_FLOWER_MAX',
        'stock': 'ignored',
        'ours': 'ignored',
        'says': [('WARNINGS', 'unknown_attr')],
        'cases': ['d9df', '22c0'],
    },
    {
        'kind': 'in_hw_count',
        'request': 'TCA_FLOWER_IN_HW_COUNT in a request',
        'stock': 'ignored',
        'ours': 'ignored',
        'says': [('WARNINGS', 'in_hw_count')],
        'cases': ['4cca'],
    },
    {
        'kind': 'attr_long',
        'request': 'a fixed-size attribute longer than its type (a 4-byte '
                   'TCA_FLOWER_KEY_TCP_DST)',
        'stock': 'its first bytes are used',
        'ours': 'the same',
        'says': [('WARNINGS', 'attr_long')],
        'cases': ['84b2'],
    },
]

INTRO = '''\
The kernel's rule for an existing uAPI is that a request that worked
keeps working.  Until series step 22 ours refused a list of requests the
in-tree flower (stock 6.1) accepts and then silently ignores, masks, or
keeps as a filter that never matches.  Since step 22 ours accepts each of
them, stores the same key and mask as stock (so the dump, the drivers'
rule and the verdicts are stock's), and adds an extack **warning**: tc
prints it as `Warning: ...` after a successful request.  Only the first
warning of a request is kept (netlink carries one message); an error
replaces it.  The texts live in `flower/needs.py` (`MESSAGES`,
`WARNINGS`), checked against `kernel/net/sched/cls_flower.c`
(`flower/tests/test_keys.py`).
'''

STILL_REFUSED = '''\
What ours still refuses is what stock refuses (flags that contradict
each other, malformed nests, MPLS fields wider than their bits, ct_state
sets, ip_flags without a mask, an indev name longer than IFNAMSIZ,
which the policy refuses with ERANGE on both, ...), and the new
attributes of this series' own design.  One thing differs on purpose,
listed in the README: a replace that changes the mask (stock refuses it,
ours takes it).
'''
