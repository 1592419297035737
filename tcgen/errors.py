# SPDX-License-Identifier: GPL-2.0
"""tcgen.errors - what tc and the netlink policy refuse.
"""

from flower import keys as flower_keys
from flower import needs, uapi
from tcgen.cases import (flnl, refused_many, refused_rx, stats_json,
                         tc_filter)
from tcgen.common import SHOW, SHOW_STATS, TCA_FLOWER_MAX
from tcgen.packets import ingress_bytes, ip4, l2tp


def tc_error_cases(c):
    """errors: what stock tc sends and the kernel refuses."""
    t = 'errors'
    # skip_sw on a device no driver offloads: cls_api refuses it before
    # any driver is asked; ours says why, stock gives the bare errno
    not_taken = (r'(?:Error: skip_sw filter not taken: a device of the '
                 r'block cannot offload\.|RTNETLINK answers: Operation not '
                 r'supported)')
    refused_rx(c, t, 'skip_sw on a device without offload is refused '
               '(EOPNOTSUPP) and adds nothing',
               tc_filter('add', 'ip', 'skip_sw dst_ip 10.0.0.0/8'), not_taken)
    refused_rx(c, t, 'skip_sw is refused also on $DUMMY and adds nothing',
               '$TC filter add dev $DUMMY ingress protocol ip prio 1 flower '
               'skip_sw dst_ip 10.0.0.0/8 action drop', not_taken,
               dev='$DUMMY', setup=['$TC qdisc add dev $DUMMY ingress'])
    c.refused(t, 'skip_hw together with skip_sw: Invalid flower flags',
              tc_filter('add', 'ip', 'skip_hw skip_sw'), 2,
              'Invalid flower flags')
    c.refused(t, 'indev of a device that does not exist: Network device '
              'not found', tc_filter('add', 'ip', 'indev nosuchdev0'), 2,
              'Network device not found')
    c.refused(t, 'cvlan_id without a stacked tag (vlan_ethtype ip): '
              'refused naming what it needs',
              flnl('add', '802.1ad', ['vlan_id=3', 'vlan_eth_type=ip',
                                      'cvlan_id=4']), 22,
              needs.MESSAGES['CVLAN'])
    c.refused(t, 'ip_flags with a bit tc does not name (raw 0x4): '
              'EOPNOTSUPP', flnl('add', 'ip', raw=['key_flags=00000004',
                                              'key_flags_mask=00000004']),
              95, 'Unsupported flower key flags: only frag and firstfrag')
    c.refused(t, 'ip_flags without its mask: Missing flags mask',
              flnl('add', 'ip', raw=['key_flags=00000001']), 22,
              'Missing flags mask')
    c.refused(t, 'mpls_label above 20 bits: refused with its range',
              flnl('add', 'mpls_uc', raw=['key_mpls_label=00001000']), 22,
              'Label must be between 0 and 1048575')
    c.refused(t, 'mpls_label on protocol ip: ' + needs.MESSAGES['MPLS'],
              flnl('add', 'ip', raw=['key_mpls_label=05000000']),
              22, needs.MESSAGES['MPLS'])
    # tc 6.1 has no l2tpv3_sid: the filter goes in through $FLNL
    c.case('packets-l2tp', 'Packets: ip_proto 115 l2tpv3_sid 1234 ($FLNL) '
           'counts the matching frame and not sid 1235 or plain UDP',
           flnl('add', 'ip', ['ip_proto=115'],
                raw=['key_l2tpv3_sid=000004d2'], handle=1) +
           ' --action drop',
           scapy=[(l2tp(1234), 1), (l2tp(1235), 1), (ip4(), 1)],
           verify=SHOW_STATS,
           match_json=stats_json('ip', 1, ingress_bytes(l2tp(1234))))
    c.refused(t, 'TCA_FLOWER_KEY_ETH_TYPE other than the filter protocol',
              flnl('add', 'ip', ['eth_type=ipv6'], eth_type=False), 22,
              "Key eth_type differs from the filter's protocol")


def wrong_length_error(name):
    """(errno, extack) of the kernel's netlink policy for a payload of the
    wrong length: byte strings (MACs, IPv6 addresses) have a length
    range, integers an exact length."""
    if uapi.BY_NAME[name].length in (6, 16):
        return 34, 'binary attribute size out of range'
    return 22, 'invalid attribute length'


# mask attribute -> (protocol, attributes that satisfy its need, if any)
MASK_ONLY = [
    ('KEY_ETH_DST_MASK', 'all', []),
    ('KEY_ETH_SRC_MASK', 'all', []),
    ('KEY_IPV4_SRC_MASK', 'ip', []),
    ('KEY_IPV4_DST_MASK', 'ip', []),
    ('KEY_IPV6_SRC_MASK', 'ipv6', []),
    ('KEY_IPV6_DST_MASK', 'ipv6', []),
    ('KEY_TCP_SRC_MASK', 'ip', ['ip_proto=6']),
    ('KEY_TCP_DST_MASK', 'ip', ['ip_proto=6']),
    ('KEY_UDP_SRC_MASK', 'ip', ['ip_proto=17']),
    ('KEY_UDP_DST_MASK', 'ipv6', ['ip_proto=17']),
    ('KEY_SCTP_SRC_MASK', 'ip', ['ip_proto=132']),
    ('KEY_SCTP_DST_MASK', 'ip', ['ip_proto=132']),
    ('KEY_TCP_FLAGS_MASK', 'ip', ['ip_proto=6']),
    ('KEY_ICMPV4_TYPE_MASK', 'ip', ['ip_proto=1']),
    ('KEY_ICMPV4_CODE_MASK', 'ip', ['ip_proto=1']),
    ('KEY_ICMPV6_TYPE_MASK', 'ipv6', ['ip_proto=58']),
    ('KEY_ICMPV6_CODE_MASK', 'ipv6', ['ip_proto=58']),
    ('KEY_ARP_SIP_MASK', 'arp', []),
    ('KEY_ARP_TIP_MASK', 'arp', []),
    ('KEY_ARP_OP_MASK', 'arp', []),
    ('KEY_ARP_SHA_MASK', 'arp', []),
    ('KEY_ARP_THA_MASK', 'arp', []),
    ('KEY_IP_TOS_MASK', 'ip', []),
    ('KEY_IP_TTL_MASK', 'ipv6', []),
]
# a mask value by the attribute's type (addresses); '0xf0' for a number
MASK_VALUE = {'l2addr': 'ff:ff:ff:00:00:00', 'ip4addr': '255.255.255.0',
              'ip6addr': 'ffff:ffff::'}


def _mask_value(name):
    return MASK_VALUE.get(uapi.BY_NAME[name].nla_type, '0xf0')


# (attribute, wrong payload in hex, protocol, attributes before it)
WRONG_LENGTH = [
    ('KEY_ETH_DST', '0200000000', 'all', []),
    ('KEY_ETH_SRC_MASK', 'ffffffffffffff', 'all',
     ['eth_src=02:00:00:00:00:01']),
    ('KEY_ETH_TYPE', '00000800', 'ip', []),
    ('KEY_IP_PROTO', '0006', 'ip', []),
    ('KEY_IPV4_DST', '0a0000', 'ip', []),
    ('KEY_IPV4_SRC_MASK', 'ffffff00ff', 'ip', ['ipv4_src=10.0.0.0']),
    ('KEY_IPV6_SRC', '20010db8' + '00' * 11, 'ipv6', []),
    ('KEY_IPV6_DST_MASK', 'ff' * 17, 'ipv6', ['ipv6_dst=2001:db8::']),
    ('KEY_TCP_DST', '50', 'ip', ['ip_proto=6']),
    ('KEY_UDP_SRC_MASK', 'ffffff', 'ip', ['ip_proto=17', 'udp_src=53']),
    ('KEY_SCTP_DST', '', 'ip', ['ip_proto=132']),
    ('KEY_TCP_FLAGS', '02', 'ip', ['ip_proto=6']),
    ('KEY_ICMPV4_TYPE', '0800', 'ip', ['ip_proto=1']),
    ('KEY_ICMPV6_CODE', '', 'ipv6', ['ip_proto=58']),
    ('KEY_ARP_OP', '0001', 'arp', []),
    ('KEY_ARP_TIP', '0a00', 'arp', []),
    ('KEY_ARP_THA', '02000000000100', 'arp', []),
    ('KEY_IP_TOS', '1000', 'ip', []),
    ('KEY_IP_TTL_MASK', '', 'ip', ['ip_ttl=64']),
    ('KEY_VLAN_ID', '0a', '802.1q', []),
    ('KEY_VLAN_PRIO', '0300', '802.1q', []),
    ('KEY_VLAN_ETH_TYPE', '08', '802.1q', []),
    ('CLASSID', '0100', 'ip', []),
    ('FLAGS', '01', 'ip', []),
]

# (protocol, attributes, label): the last attribute is a key whose need
# the filter does not meet; ours' message is flower.needs' for that need.
def _need_refused(proto, attrs, label):
    name = 'KEY_' + attrs[-1].split('=')[0].upper()
    return proto, attrs, flower_keys.need_message(flower_keys.BY_ATTR[name]), \
        label


NEEDS = [_need_refused(*row) for row in [
    ('arp', ['ip_proto=6'], 'ip_proto on protocol arp'),
    ('all', ['ip_proto=17'], 'ip_proto without an ethertype'),
    ('802.1q', ['ip_tos=16'], 'ip_tos on protocol 802.1q'),
    ('arp', ['ip_ttl=64'], 'ip_ttl on protocol arp'),
    ('ipv6', ['ipv4_dst=10.0.0.1'], 'an IPv4 address on protocol ipv6'),
    ('all', ['ipv4_src=10.0.0.1'], 'an IPv4 address without an ethertype'),
    ('ip', ['ipv6_src=2001:db8::1'], 'an IPv6 address on protocol ip'),
    ('arp', ['ipv6_dst=2001:db8::1'], 'an IPv6 address on protocol arp'),
    ('ip', ['ip_proto=17', 'tcp_dst=80'], 'a tcp port with ip_proto udp'),
    ('ip', ['tcp_src=80'], 'a tcp port without ip_proto'),
    ('ipv6', ['ip_proto=17', 'tcp_flags=2'], 'tcp_flags with ip_proto udp'),
    ('ip', ['ip_proto=6', 'udp_dst=53'], 'a udp port with ip_proto tcp'),
    ('ipv6', ['ip_proto=6', 'sctp_src=9'], 'an sctp port with ip_proto tcp'),
    ('ipv6', ['ip_proto=1', 'icmpv4_type=8'],
     'an ICMPv4 type on protocol ipv6'),
    ('ip', ['ip_proto=6', 'icmpv4_code=0'],
     'an ICMPv4 code with ip_proto tcp'),
    ('ip', ['ip_proto=58', 'icmpv6_type=128'],
     'an ICMPv6 type on protocol ip'),
    ('ipv6', ['ip_proto=1', 'icmpv6_code=0'],
     'an ICMPv6 code with ip_proto icmp'),
    ('ip', ['arp_op=1'], 'arp_op on protocol ip'),
    ('ipv6', ['arp_sip=10.0.0.1'], 'arp_sip on protocol ipv6'),
    ('all', ['arp_sha=02:00:00:00:00:01'], 'arp_sha without an ethertype'),
    ('ip', ['vlan_id=10'], 'vlan_id on protocol ip'),
    ('all', ['vlan_prio=1'], 'vlan_prio without an ethertype'),
    ('ipv6', ['vlan_eth_type=ip'], 'vlan_ethtype on protocol ipv6'),
]]


def netlink_error_cases(c):
    """errors: raw requests through $FLNL that tc would not build, the
    lists of them in three cases (each $FLNL start costs ~10 s in the
    guest; the requests then go out from one process)."""
    t = 'errors'
    refused_many(c, t, 'Netlink: attribute types 0, MAX + 1, 0x7fff and '
                 'nested MAX + 1 are refused as unknown (EOPNOTSUPP)',
                 [(flnl('add', raw=['%d=00000000' % n]), 95,
                   'Unknown flower attribute type')
                  for n in (0, TCA_FLOWER_MAX + 1, 0x7fff,
                            0x8000 | (TCA_FLOWER_MAX + 1))])
    refused_many(c, t, 'Netlink: each of the %d key masks without its key, '
                 'and %d attributes with a payload of the wrong length, are '
                 'refused (EINVAL)' % (len(MASK_ONLY), len(WRONG_LENGTH)),
                 [(flnl('add', proto, before + [
                     '%s=%s' % (name.lower(), _mask_value(name))]), 22,
                   'Mask given without its key')
                  for name, proto, before in MASK_ONLY] +
                 [(flnl('add', proto, before,
                        raw=['%s=%s' % (name.lower(), data)]),)
                  + wrong_length_error(name)
                  for name, data, proto, before in WRONG_LENGTH])
    refused_many(c, t, 'Netlink: %d keys that do not apply to the protocol '
                 'or ip_proto given, out-of-range VLAN fields, stacked VLAN '
                 'tags, bad flags and indev names are each refused'
                 % len(NEEDS),
                 [(flnl('add', proto, attrs), 22, message)
                  for proto, attrs, message, _ in NEEDS] +
                 [(flnl('add', '802.1q', ['vlan_id=%d' % v]), 22,
                   'VLAN id must be below 4096') for v in (4096, 65535)] +
                 [(flnl('add', '802.1ad', ['vlan_prio=%d' % p]), 22,
                   'VLAN priority must be below 8') for p in (8, 255)] +
                 [(flnl('add', 'ip', ['flags=%d' % f]), 22,
                   'Invalid flower flags')
                  for f in (8, 4, 3, 0x20, 0x80000000)] +
                 [(flnl('add', 'ip', ['flags=2']), 95, needs.SKIP_SW_MSG),
                  (flnl('add', 'ip', ['indev=nosuchdev0']), 19,
                   'Network device not found'),
                  (flnl('add', 'ip', ['indev=' + 'x' * 20]), 22,
                   'Interface name too long'),
                  # the first bad attribute decides
                  (flnl('add', 'ip', ['ipv4_dst_mask=255.0.0.0'],
                        raw=['%d=00' % (TCA_FLOWER_MAX + 1)]), 95,
                   'Unknown flower attribute type')])
    c.case(t, 'Netlink: TCA_FLOWER_IN_HW_COUNT in a request is ignored, '
           'as it always was: the filter is added, in no hardware',
           flnl('add', 'ip', ['ipv4_dst=10.0.0.1'],
                raw=['in_hw_count=05000000'], handle=1),
           verify=SHOW, match_json=[{'kind': 'flower'}, {'options': {
               'handle': 1, 'keys': {'eth_type': 'ipv4',
                                     'dst_ip': '10.0.0.1'},
               'not_in_hw': True}}])
    c.case(t, 'Netlink: a non-contiguous IPv4 mask (tc takes prefixes '
           'only) is accepted and dumped as given',
           flnl('add', 'ip', ['ipv4_dst=10.0.0.1',
                              'ipv4_dst_mask=255.0.255.0'], handle=1),
           verify=SHOW, match_json=[{'kind': 'flower'}, {'options': {
               'handle': 1, 'keys': {'eth_type': 'ipv4',
                                     'dst_ip': '10.0.0.1/255.0.255.0'}}}])
