# SPDX-License-Identifier: GPL-2.0
"""tcgen.more - more packet cases, and scale.
"""

from tcgen.cases import stats_json, tc_filter
from tcgen.common import SHOW_STATS, filters
from tcgen.packets import (arp_pkt, dot1q, ether, ingress_bytes, ip4, ip6,
                           layer, raw_frame, udp)


# the catch-all after the filters under test: it counts what they let by
COUNTER = '$TC filter add dev $DEV1 ingress protocol ip prio 9 ' \
          'handle 1 flower action ok'
# one tc -b run adds filters 1 to 10, filter i matching dst_ip 10.5.0.i
TEN_FILTERS = ["awk 'BEGIN { for (i = 1; i <= 10; i++) printf \"filter "
               "add dev $DEV1 ingress protocol ip prio 1 handle %d flower "
               "dst_ip 10.5.0.%d action ok\\n\", i, i }' > $BATCH_FILE"]


def qinq(outer, inner):
    """An IPv4/UDP frame in an 802.1ad tag `outer` and an 802.1Q tag
    `inner`."""
    return ether() / layer('Dot1AD', vlan=outer) / \
        layer('Dot1Q', vlan=inner) / \
        layer('IP', src='10.2.0.1', dst='10.1.0.1') / udp()


def at_prio(prio, packets, handle=1):
    return [{'kind': 'flower'}, {'options': {'handle': handle,
                                             'actions': [{'stats': {
                                                 'packets': packets}}]}}]


def packet_more_cases(c):
    """packets-*: classification beyond one key."""
    ten_filters_cases(c)
    prio_order_cases(c)
    delete_replace_cases(c)
    ipv4_corner_cases(c)
    packet_family_cases(c)


def ten_filters_cases(c):
    c.case('packets-ipv4', 'Packets: ten filters on one instance, each '
           'frame counted by its own filter (filter 3)',
           '$TC -b $BATCH_FILE', setup=TEN_FILTERS,
           teardown=['rm -f $BATCH_FILE'],
           scapy=[(ip4(dst='10.5.0.3'), 2), (ip4(dst='10.5.0.7'), 1),
                  (ip4(dst='10.5.0.11'), 1)],
           verify='$TC -s -j filter get dev $DEV1 ingress prio 1 handle 3 '
                  'protocol ip flower',
           match_json=[{'options': {'handle': 3, 'actions': [
               {'stats': {'packets': 2}}]}}])
    c.case('packets-ipv4', 'Packets: ten filters on one instance, a filter '
           'whose frame was not sent counts nothing (filter 4)',
           '$TC -b $BATCH_FILE', setup=TEN_FILTERS,
           teardown=['rm -f $BATCH_FILE'],
           scapy=[(ip4(dst='10.5.0.3'), 2), (ip4(dst='10.5.0.7'), 1)],
           # the positive control: filter 3 counts its two frames (the
           # dump lists the filters in handle order, {} holds a place)
           verify=SHOW_STATS,
           match_json=[{'kind': 'flower'}, {}, {}, {'options': {
               'handle': 3, 'actions': [{'stats': {'packets': 2}}]}},
               {'options': {'handle': 4, 'actions': [
                   {'stats': {'packets': 0}}]}}])


def prio_order_cases(c):
    """A /24 at prio 1 and a /16 at prio 2: each side of the split."""
    for prio, packets, what in (
            (2, 1, 'is tried before prio 2 (/16); the /16 filter sees only '
                   'what /24 missed'),
            (1, 2, 'counts its frames even though prio 2 (/16) would match '
                   'them too')):
        c.case('packets-ipv4', 'Packets: prio 1 (/24) ' + what,
               tc_filter('add', 'ip', 'dst_ip 10.1.0.0/16 action ok',
                         prio=2, handle=1),
               setup=[tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24 action ok',
                                handle=1)],
               scapy=[(ip4(dst='10.1.0.1'), 2), (ip4(dst='10.1.9.1'), 1)],
               verify=SHOW_STATS + ' prio %d' % prio,
               match_json=at_prio(prio, packets))


def delete_replace_cases(c):
    c.case('packets-ipv4', 'Packets: after a delete the filter no longer '
           'matches; the next prio counts the frame',
           '$TC filter del dev $DEV1 ingress protocol ip prio 1 handle 1 '
           'flower',
           setup=[tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24 action ok',
                            handle=1),
                  tc_filter('add', 'ip', 'dst_ip 10.2.0.0/24 action ok',
                            handle=2), COUNTER],
           scapy=[(ip4(dst='10.1.0.1'), 1)], verify=SHOW_STATS + ' prio 9',
           match_json=at_prio(9, 1))
    c.case('packets-ipv4', 'Packets: after a replace to another key the new '
           'key matches',
           tc_filter('replace', 'ip', 'dst_ip 10.7.0.0/24 action ok',
                     handle=1),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24 action ok',
                            handle=1)],
           scapy=[(ip4(dst='10.7.0.1'), 2), (ip4(dst='10.1.0.1'), 1)],
           verify=SHOW_STATS + ' prio 1', match_json=at_prio(1, 2))
    c.case('packets-ipv4', 'Packets: after a replace to another key the old '
           'key no longer matches',
           tc_filter('replace', 'ip', 'dst_ip 10.7.0.0/24 action ok',
                     handle=1),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24 action ok',
                            handle=1), COUNTER],
           scapy=[(ip4(dst='10.7.0.1'), 2), (ip4(dst='10.1.0.1'), 1)],
           verify=SHOW_STATS + ' prio 9', match_json=at_prio(9, 1))


def ipv4_corner_cases(c):
    """Fragments, IPIP, and filters with no address key or a /0 one."""
    c.case('packets-ipv4', 'Packets: IPv4 fragments, first or not, carry '
           'no ports for flower: dst_port 80 counts the whole datagram only',
           tc_filter('add', 'ip', 'ip_proto udp dst_port 80 action ok',
                     handle=1),
           scapy=[(ip4(l4=udp(dport=80)), 1),
                  (ip4(l4=udp(dport=80), flags=1), 1),
                  (ip4(l4=udp(dport=80), frag=100), 1)],
           verify=SHOW_STATS, match_json=stats_json(
               'ip', 1, ingress_bytes(ip4(l4=udp(dport=80)))))
    ipip = ip4(dst='10.1.0.1', l4=layer('IP', src='10.8.0.1',
                                        dst='10.9.0.1') / udp())
    c.case('packets-ipv4', 'Packets: an IPIP frame is matched on its outer '
           'dst_ip, not on the encapsulated one',
           tc_filter('add', 'ip', 'dst_ip 10.1.0.1 action ok', handle=1),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.9.0.1 action ok',
                            handle=2)],
           scapy=[(ipip, 1)], verify=SHOW_STATS,
           match_json=[{'kind': 'flower'},
                       {'options': {'handle': 1, 'actions': [
                           {'stats': {'packets': 1,
                                      'bytes': ingress_bytes(ipip)}}]}},
                       {'options': {'handle': 2, 'actions': [
                           {'stats': {'packets': 0}}]}}])
    c.case('packets-ipv4', 'Packets: protocol ip with no key counts IPv4 '
           'frames and no IPv6 or ARP', tc_filter('add', 'ip', 'action ok',
                                                 handle=1),
           scapy=[(ip4(), 2), (ip6(), 1), (arp_pkt(), 1)],
           verify=SHOW_STATS, match_json=stats_json('ip', 2,
                                                    2 * ingress_bytes(ip4())))
    c.case('packets-ipv4', 'Packets: dst_ip 0.0.0.0/0 matches every IPv4 '
           'frame', tc_filter('add', 'ip', 'dst_ip 0.0.0.0/0 action ok',
                              handle=1),
           scapy=[(ip4(dst='1.2.3.4'), 1), (ip4(dst='200.1.1.1'), 1)],
           verify=SHOW_STATS,
           match_json=stats_json('ip', 2, 2 * ingress_bytes(ip4())))


def packet_family_cases(c):
    """Packets: a filter of one family or tag set does not see frames of
    another; indev, IPv6 prefixes, ports, every key at once."""
    c.case('packets-ipv6', 'Packets: an IPv4 filter does not see IPv6 '
           'frames with the same-looking address bits',
           tc_filter('add', 'ip', 'dst_ip 32.1.13.184/32 action ok',
                     handle=1),
           scapy=[(ip6(dst='2001:db8::1'), 2), (ip4(dst='32.1.13.184'), 1)],
           verify=SHOW_STATS,
           match_json=stats_json('ip', 1, ingress_bytes(ip4())))
    c.case('packets-vlan', 'Packets: a VLAN filter does not see untagged '
           'frames, an untagged filter does not see tagged ones',
           tc_filter('add', 'ip', 'dst_ip 10.1.0.1 action ok', prio=2,
                     handle=1),
           setup=[tc_filter('add', '802.1q', 'vlan_id 10 action ok',
                            handle=1)],
           scapy=[(dot1q(vlan=10), 2), (ip4(), 1)],
           verify=SHOW_STATS + ' prio 1',
           match_json=[{'kind': 'flower'}, {'options': {'actions': [
               {'stats': {'packets': 2,
                          'bytes': 2 * ingress_bytes(dot1q(vlan=10))}}]}}])
    c.case('packets-vlan', 'Packets: a QinQ frame matches the outer 802.1ad '
           'vlan_id',
           tc_filter('add', '802.1ad', 'vlan_id 30 action ok', handle=1),
           scapy=[(qinq(30, 5), 1), (qinq(31, 30), 1)],
           verify=SHOW_STATS, match_json=stats_json(
               '802.1ad', 1, ingress_bytes(qinq(30, 5))))
    c.case('packets-eth', 'Packets: indev $DEV1 matches frames received on '
           '$DEV1; the same key with indev flin0 does not',
           tc_filter('add', 'all', 'indev $DEV1 src_mac 02:00:00:00:cc:01 '
                     'action ok', handle=1),
           setup=['$IP link add flin0 type dummy',
                  tc_filter('add', 'all', 'indev flin0 src_mac '
                            '02:00:00:00:cc:01 action ok', handle=2)],
           scapy=[(raw_frame(0x88b5, src='02:00:00:00:cc:01'), 2)],
           verify=SHOW_STATS,
           match_json=[{'kind': 'flower'},
                       {'options': {'handle': 1, 'actions': [
                           {'stats': {'packets': 2}}]}},
                       {'options': {'handle': 2, 'actions': [
                           {'stats': {'packets': 0}}]}}])
    c.case('packets-ipv6', 'Packets: IPv6 dst_ip /64 and src_ip /64 '
           'together, only frames matching both are counted',
           tc_filter('add', 'ipv6', 'dst_ip 2001:db8:1:1::/64 src_ip '
                     '2001:db8:2:2::/64 action ok', handle=1),
           scapy=[(ip6(src='2001:db8:2:2::9', dst='2001:db8:1:1::9'), 1),
                  (ip6(src='2001:db8:2:3::9', dst='2001:db8:1:1::9'), 1),
                  (ip6(src='2001:db8:2:2::9', dst='2001:db8:1:2::9'), 1)],
           verify=SHOW_STATS, match_json=stats_json('ipv6', 1, ingress_bytes(
               ip6(src='2001:db8:2:2::9', dst='2001:db8:1:1::9'))))
    c.case('packets-ports', 'Packets: tcp and udp filters with the same '
           'port on one instance tell the protocols apart (tcp)',
           tc_filter('add', 'ip', 'ip_proto udp dst_port 53 action ok',
                     handle=2),
           setup=[tc_filter('add', 'ip', 'ip_proto tcp dst_port 53 action '
                            'ok', handle=1)],
           scapy=[(ip4(l4=layer('TCP', dport=53)), 2),
                  (ip4(l4=udp(dport=53)), 1)],
           verify=SHOW_STATS,
           match_json=[{'kind': 'flower'},
                       {'options': {'handle': 1, 'actions': [
                           {'stats': {'packets': 2}}]}},
                       {'options': {'handle': 2, 'actions': [
                           {'stats': {'packets': 1}}]}}])
    every = ('dst_mac 02:00:00:00:00:01 src_mac 02:00:00:00:00:02/24 '
             'ip_proto tcp ip_tos 0x10/0xf0 ip_ttl 64 '
             'dst_ip 10.1.0.0/24 src_ip 10.2.0.0/16 '
             'dst_port 80 src_port 0x4000/0xf000 tcp_flags 0x2/0x12')
    good = ip4(tos=0x14, ttl=64, l4=layer('TCP', sport=0x4123, dport=80,
                                           flags='S'))
    c.case('packets-ports', 'Packets: every IPv4/TCP key at once; one '
           'field off in each of the other frames',
           tc_filter('add', 'ip', every + ' action ok', handle=1),
           scapy=[(good, 1),
                  (good.with_fields('IP', ttl=63), 1),
                  (good.with_fields('IP', tos=36), 1),
                  (good.with_fields('TCP', dport=81), 1),
                  (good.with_fields('TCP', flags='SA'), 1),
                  (good.with_fields('IP', dst='10.1.1.1'), 1),
                  (good.with_fields('TCP', sport=20771), 1)],
           verify=SHOW_STATS, match_json=stats_json('ip', 1,
                                                    ingress_bytes(good)))


def scale_cases(c):
    t = 'scale'
    gen = ("awk 'BEGIN { for (i = 0; i < %d; i++) printf \"filter add dev "
           "$DEV1 ingress protocol ip prio 1 handle %%d flower dst_ip "
           "10.%%d.%%d.%%d%s\\n\", i + 1, int(i / 65536), "
           "int(i / 256) %% 256, i %% 256 }' > $BATCH_FILE")
    dels = ("awk 'BEGIN { for (i = 1; i <= %d; i++) printf \"filter del dev "
            "$DEV1 ingress protocol ip prio 1 handle %%d flower\\n\", i }' "
            "> $BATCH_FILE.del")
    # the filter lines counted by the verify's matchCount, with tc's exit
    # status (not grep's behind a pipe)
    count = filters
    tear = ['rm -f $BATCH_FILE $BATCH_FILE.del']
    c.case(t, 'Scale: 1,000 filters on one instance through tc -b, all '
           'dumped', '$TC -b $BATCH_FILE', setup=[gen % (1000, '')],
           teardown=tear, **count(1000))
    c.case(t, 'Scale: 1,000 filters, then all deleted one by one: nothing '
           'left', '$TC -b $BATCH_FILE.del',
           setup=[gen % (1000, ''), '$TC -b $BATCH_FILE', dels % 1000],
           teardown=tear, **filters(0))
    c.case('packets-scale', 'Scale: among 1,000 filters a frame is '
           'counted by the one filter it matches (handle 778)',
           '$TC -b $BATCH_FILE', setup=[gen % (1000, ' action ok')],
           teardown=tear,
           scapy=[(ip4(dst='10.0.3.9'), 3), (ip4(dst='10.0.3.10'), 1),
                  (ip4(dst='10.9.9.9'), 1)],
           verify='$TC -s -j filter get dev $DEV1 ingress protocol ip prio 1 '
                  'handle 778 flower',
           match_json=[{'options': {'handle': 778, 'keys': {
               'dst_ip': '10.0.3.9'}, 'actions': [
                   {'stats': {'packets': 3}}]}}])
    c.case(t, 'Scale: 1,000 filters with a shared action: ref and bind '
           'count 1,000',
           '$TC -b $BATCH_FILE',
           setup=['$TC actions add action gact drop index 1',
                  gen % (1000, ' action gact index 1')],
           teardown=tear,
           verify='$TC actions list action gact',
           pattern=r'index 1 ref 1001 bind 1000')
    c.case(t, 'Scale: 1,000 filters on 1,000 prios, each its own instance '
           'with its own mask',
           '$TC -b $BATCH_FILE',
           setup=["awk 'BEGIN { for (i = 0; i < 1000; i++) printf \"filter "
                  "add dev $DEV1 ingress protocol ip prio %d handle 1 flower "
                  "dst_ip 10.0.0.0/%d\\n\", i + 1, i % 32 + 1 }' "
                  "> $BATCH_FILE"],
           teardown=tear, **count(1000))
    c.case(t, 'Scale: 100,000 filters on one instance through tc -b: all '
           'dumped and counted', '$TC -b $BATCH_FILE',
           setup=[gen % (100000, '')], teardown=tear, timeout=600,
           **count(100000))
    c.case(t, 'Scale: 100,000 filters on one instance, then their prio '
           'deleted at once: none left',
           '$TC filter del dev $DEV1 ingress protocol ip prio 1',
           setup=[gen % (100000, ''), '$TC -b $BATCH_FILE'], teardown=tear,
           timeout=600, **filters(0))
