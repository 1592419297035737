# SPDX-License-Identifier: GPL-2.0
"""tcgen.port_range - port ranges beyond the catalogue's variants
(tcgen/catalogue/port_range.py): the kernel's refusals, raw netlink, and
classification where several filters could take a frame.

Within a mask that has a range, the filters are tried in the order they
were added (a replace keeps its filter's place): each one whose range
holds the frame's port is looked up with that range and the frame's
other keys; the first found wins.  Masks are tried oldest first, as for
any key.  A fragment carries no ports for flower: the dissector leaves
them 0, first fragment or not.
"""

from tcgen.cases import (counted, flnl, refused_many, stats_json,
                         tc_filter)
from tcgen.common import LENIENCY, SHOW, SHOW_STATS
from tcgen.errors import lenient_batch
from tcgen.matches import ip_proto
from tcgen.packets import ingress_bytes, ip4, ip6, layer

K = 'keys-port_range'
P = 'packets-port_range'

DST_BOTH = 'Both min and max destination ports must be specified'
SRC_BOTH = 'Both min and max source ports must be specified'
DST_ORDER = ('Invalid destination port range (min must be strictly '
             'smaller than max)')
SRC_ORDER = ('Invalid source port range (min must be strictly smaller '
             'than max)')


def _seg(l4='UDP', sport=1000, dport=2000):
    return layer(l4, sport=sport, dport=dport)


def _port(attr, value):
    """--raw KEY_PORT_*: be16, as the uAPI carries it."""
    return 'key_port_%s=%04x' % (attr, value)


def refusal_cases(c):
    """keys-port_range: what the kernel refuses in a range, as stock 6.1
    (upstream d3f87278bcb8): a bound without the other, and MAX not above
    MIN; tc builds neither (it checks the order itself), so $FLNL."""
    bad = [
        # (protocol, ip_proto, [(bound, value)], errno, message, label)
        ('ip', 6, [('dst_min', 80)], DST_BOTH),
        ('ip', 17, [('dst_max', 80)], DST_BOTH),
        ('ipv6', 132, [('src_min', 80)], SRC_BOTH),
        ('ip', 6, [('src_max', 80)], SRC_BOTH),
        ('ip', 6, [('dst_min', 20), ('dst_max', 20)], DST_ORDER),
        ('ipv6', 17, [('dst_min', 2000), ('dst_max', 1000)], DST_ORDER),
        ('ip', 132, [('src_min', 65535), ('src_max', 1)], SRC_ORDER),
        ('ipv6', 6, [('src_min', 0), ('src_max', 0)], SRC_ORDER),
        # both ranges: both bounds of both are checked before their order
        ('ip', 17, [('dst_min', 30), ('dst_max', 20), ('src_min', 1)],
         SRC_BOTH),
        # a valid destination range, an inverted source range
        ('ip', 6, [('dst_min', 10), ('dst_max', 20), ('src_min', 9),
                   ('src_max', 8)], SRC_ORDER),
        # the destination range is checked before the source range
        ('ip', 17, [('dst_min', 9), ('dst_max', 8), ('src_min', 9),
                    ('src_max', 8)], DST_ORDER),
    ]
    refused_many(c, K, 'Netlink: %d port ranges with a bound missing or '
                 'MAX not above MIN, on tcp, udp and sctp, are each refused '
                 '(EINVAL) with stock\'s messages and add nothing' % len(bad),
                 [(flnl('add', proto, ['ip_proto=%d' % ipp],
                        raw=[_port(b, v) for b, v in bounds]), 22, msg)
                  for proto, ipp, bounds, msg in bad])
    refused_many(c, K, 'Netlink: a replace with an inverted port range is '
                 'refused (EINVAL) and the old filter stays',
                 [(flnl('replace', 'ip', ['ip_proto=6'], handle=1,
                        raw=[_port('dst_min', 2000),
                             _port('dst_max', 1000)]), 22, DST_ORDER)],
                 setup=[tc_filter('add', 'ip',
                                  'ip_proto tcp dst_port 1000-2000',
                                  handle=1)], left=1)
    # a range its ip_proto cannot carry: ignored, as by the stock flower
    # (ours warns: flower.needs.MESSAGES['L4'])
    lenient_batch(c, K, 'Netlink: a port range with ip_proto icmp, or '
                  'without ip_proto, is accepted and ignored as by the '
                  'stock flower: the dump has no range',
                  [('ip', ['ip_proto=1'], [_port('dst_min', 10),
                                           _port('dst_max', 20)], 0, '',
                    [ip_proto('icmp')]),
                   ('ipv6', [], [_port('src_min', 10), _port('src_max', 20)],
                    0, '', [])],
                  cid='626e', tags=[LENIENCY])


def netlink_cases(c):
    """keys-port_range: ranges sent as raw attributes, dumped by tc."""
    c.case(K, 'Netlink: udp dst and src ranges sent as raw attributes '
           '($FLNL) are dumped by tc -j as ranges',
           flnl('add', 'ip', ['ip_proto=17'], handle=1,
                raw=[_port('dst_min', 1000), _port('dst_max', 2000),
                     _port('src_min', 0), _port('src_max', 65535)]),
           verify=SHOW, exact=[
               {'protocol': 'ip', 'pref': 1, 'kind': 'flower', 'chain': 0},
               {'protocol': 'ip', 'pref': 1, 'kind': 'flower', 'chain': 0,
                'options': {'handle': 1, 'keys': {
                    'eth_type': 'ipv4', 'ip_proto': 'udp',
                    'dst_port': {'start': 1000, 'end': 2000},
                    'src_port': {'start': 0, 'end': 65535}},
                    'not_in_hw': True}}])
    c.case(K, 'tc prints a destination range as dst_port MIN-MAX and a '
           'source range as src_port MIN-MAX',
           tc_filter('add', 'ipv6', 'ip_proto sctp dst_port 1-1024 '
                     'src_port 5000-5999', handle=1),
           verify='$TC filter show dev $DEV1 ingress',
           pattern=r'^  ip_proto sctp\n  dst_port 1-1024\n  src_port '
                   r'5000-5999\n', count=1)


def _tcp(dport, **ip):
    return ip4(l4=_seg('TCP', dport=dport), **ip)


def order_cases(c):
    """packets-port_range: which filter takes a frame two ranges hold."""
    def add(handle, words, op='add', proto='ip'):
        return tc_filter(op, proto, words + ' action ok', handle=handle)

    rng = 'ip_proto tcp dst_port %s'
    p1, p2, p3 = _tcp(1200), _tcp(1700), _tcp(2200)
    sent = [(p1, 1), (p2, 1), (p3, 1)]
    c.case(P, 'Packets: overlapping ranges in one prio: the filter added '
           'first (handle 1, 1000-2000) takes 1700, which the later one '
           '(handle 2, 1500-2500) holds too',
           add(2, rng % '1500-2500'), setup=[add(1, rng % '1000-2000')],
           scapy=sent, verify=SHOW_STATS,
           match_json=counted('ip', [(1, [(p1, 1), (p2, 1)]),
                                     (2, [(p3, 1)])]))
    c.case(P, 'Packets: overlapping ranges in one prio: the order of '
           'adding decides, not the handle (handle 2, 1500-2500, added '
           'first, takes 1700)',
           add(1, rng % '1000-2000'), setup=[add(2, rng % '1500-2500')],
           scapy=sent, verify=SHOW_STATS,
           match_json=counted('ip', [(1, [(p1, 1)]),
                                     (2, [(p2, 1), (p3, 1)])]))
    c.case(P, 'Packets: a replace keeps the filter\'s place among the '
           'ranges: handle 1 replaced by 1600-1800 still takes 1700 before '
           'handle 2 (1500-2500)',
           add(1, rng % '1600-1800', op='replace'),
           setup=[add(1, rng % '1000-2000'), add(2, rng % '1500-2500')],
           scapy=sent, verify=SHOW_STATS,
           match_json=counted('ip', [(1, [(p2, 1)]), (2, [(p3, 1)])]))
    c.case(P, 'Packets: a range deleted and added again goes last: handle 2 '
           '(1500-2500) then takes 1700',
           add(1, rng % '1000-2000'),
           setup=[add(1, rng % '1000-2000'), add(2, rng % '1500-2500'),
                  '$TC filter del dev $DEV1 ingress protocol ip prio 1 '
                  'handle 1 flower'],
           scapy=sent, verify=SHOW_STATS,
           match_json=counted('ip', [(1, [(p1, 1)]),
                                     (2, [(p2, 1), (p3, 1)])]))
    # a range tried with the frame's other keys: handle 1's range holds
    # 1700, but (1000-2000, 10.1.0.2) is no filter; handle 2's is
    q1, q2, q3 = (_tcp(1700, dst='10.1.0.1'), _tcp(1700, dst='10.1.0.2'),
                  _tcp(1200, dst='10.1.0.2'))
    c.case(P, 'Packets: a range is looked up with the frame\'s other keys: '
           'dst_ip 10.1.0.2 port 1700 goes to the later filter of that '
           'address (1500-2500), not the first (10.1.0.1, 1000-2000)',
           add(2, 'ip_proto tcp dst_ip 10.1.0.2 dst_port 1500-2500'),
           setup=[add(1, 'ip_proto tcp dst_ip 10.1.0.1 dst_port 1000-2000')],
           scapy=[(q1, 1), (q2, 2), (q3, 1)], verify=SHOW_STATS,
           match_json=counted('ip', [(1, [(q1, 1)]), (2, [(q2, 2)])]))
    # masks: the older mask is tried first, range or not
    e1, e2, e3 = _tcp(1500), _tcp(1600), _tcp(2500)
    c.case(P, 'Packets: an exact port and a range in one prio (two masks): '
           'the exact filter, older, takes 1500; the range takes 1600',
           add(2, rng % '1000-2000'), setup=[add(1, rng % '1500')],
           scapy=[(e1, 1), (e2, 1), (e3, 1)], verify=SHOW_STATS,
           match_json=counted('ip', [(1, [(e1, 1)]), (2, [(e2, 1)])]))
    c.case(P, 'Packets: a range and an exact port in one prio (two masks): '
           'the range, older, takes 1500 too; the exact filter counts '
           'nothing',
           add(2, rng % '1500'), setup=[add(1, rng % '1000-2000')],
           scapy=[(e1, 1), (e2, 1), (e3, 1)], verify=SHOW_STATS,
           match_json=counted('ip', [(1, [(e1, 1), (e2, 1)]), (2, [])]))
    # a destination range and a source+destination range: two masks
    s1, s2 = (ip4(l4=_seg('UDP', 5000, 1500)),
              ip4(l4=_seg('UDP', 4000, 1500)))
    c.case(P, 'Packets: a source+destination range filter and a destination '
           'range filter in one prio: the older (src 4500-5500, dst '
           '1000-2000) takes sport 5000, the other the rest of dst 1000-2000',
           add(2, 'ip_proto udp dst_port 1000-2000'),
           setup=[add(1, 'ip_proto udp src_port 4500-5500 '
                         'dst_port 1000-2000')],
           scapy=[(s1, 1), (s2, 1)], verify=SHOW_STATS,
           match_json=counted('ip', [(1, [(s1, 1)]), (2, [(s2, 1)])]))
    v6 = [ip6(l4=_seg('UDP', dport=d)) for d in (53, 54, 100, 101)]
    c.case(P, 'Packets: IPv6 udp ranges 1-53 and 54-100 on one prio split '
           'the frames at their bounds; 101 goes to neither',
           add(2, 'ip_proto udp dst_port 54-100', proto='ipv6'),
           setup=[add(1, 'ip_proto udp dst_port 1-53', proto='ipv6')],
           scapy=[(p, 1) for p in v6], verify=SHOW_STATS,
           match_json=counted('ipv6', [(1, [(v6[0], 1)]),
                                       (2, [(v6[1], 1), (v6[2], 1)])]))


def fragment_cases(c):
    """packets-port_range: a fragment's ports are 0 for flower."""
    whole = ip4(l4=_seg('UDP', dport=1500))
    first = ip4(l4=_seg('UDP', dport=1500), flags=1)
    later = ip4(l4=_seg('UDP', dport=1500), frag=100)
    c.case(P, 'Packets: fragments carry no ports for flower: udp dst_port '
           '1000-2000 counts the whole datagram, not its first or a later '
           'fragment',
           tc_filter('add', 'ip', 'ip_proto udp dst_port 1000-2000 '
                     'action ok', handle=1),
           scapy=[(whole, 1), (first, 1), (later, 1)], verify=SHOW_STATS,
           match_json=stats_json('ip', 1, ingress_bytes(whole)))
    # tc takes no range from 0: the second filter goes through $FLNL
    c.case(P, 'Packets: a fragment\'s ports are 0: a udp dst range 0-10 '
           '($FLNL) counts the first and the later fragment of a datagram '
           'to port 1500, the range 1000-2000 only the whole datagram',
           flnl('add', 'ip', ['ip_proto=17'], handle=2,
                raw=[_port('dst_min', 0), _port('dst_max', 10)]) +
           ' --action drop',
           setup=[tc_filter('add', 'ip', 'ip_proto udp dst_port 1000-2000 '
                            'action ok', handle=1)],
           scapy=[(whole, 1), (first, 1), (later, 1)], verify=SHOW_STATS,
           match_json=counted('ip', [(1, [(whole, 1)]),
                                     (2, [(first, 1), (later, 1)])]))


def port_range_cases(c):
    refusal_cases(c)
    netlink_cases(c)
    order_cases(c)
    fragment_cases(c)
