# SPDX-License-Identifier: GPL-2.0
"""flower.needs - what a key needs of the filter, and what ours says if not.

Ours refuses a key whose prerequisite the filter does not give (stock
accepts it and ignores it): enum fl_need, fl_need_met() and fl_need_msg[]
in kernel/net/sched/cls_flower.c.  NEEDS is the enum in its order,
MESSAGES the extack text of each; flower/tests/test_keys.py checks both
against the C source.

PROTO_RULES says, for the needs that are only about the filter's
protocol and ip_proto, which ethertypes and IP protocol satisfy them
(either None: anything; the IP protocol is one number, or a frozenset of
them for L4, the port ranges' need: tcp, udp or sctp).  The others are
about the filter's shape: VLAN / CVLAN (an outer / inner tag: a TPID, or
num_of_vlans above 0 / 1), PPPOE (a PPPoE session ethertype), ENC_IPV4 /
ENC_IPV6 (the tunnel's family, from its addresses); each tool models
those its own way.

The message classes at the end group ours' extack messages by why a
request is refused; the comparison reports name a difference by them.
"""

from flower.uapi import ETH_P, IP_PROTO

NEEDS = ('NONE', 'IP', 'IPV4', 'IPV6', 'TCP', 'UDP', 'SCTP', 'L4', 'ICMPV4',
         'ICMPV6', 'ARP', 'VLAN', 'CVLAN', 'MPLS', 'PPPOE', 'L2TP',
         'ENC_IPV4', 'ENC_IPV6')

MESSAGES = {
    'IP': 'Key requires protocol ip or ipv6',
    'IPV4': 'Key requires protocol ip',
    'IPV6': 'Key requires protocol ipv6',
    'TCP': 'Key requires ip_proto tcp',
    'UDP': 'Key requires ip_proto udp',
    'SCTP': 'Key requires ip_proto sctp',
    'L4': 'Key requires ip_proto tcp, udp or sctp',
    'ICMPV4': 'Key requires protocol ip and ip_proto icmp',
    'ICMPV6': 'Key requires protocol ipv6 and ip_proto icmpv6',
    'ARP': 'Key requires protocol arp or rarp',
    'VLAN': 'Key requires protocol 802.1q or 802.1ad',
    'CVLAN': 'Key requires vlan_ethtype 802.1q or 802.1ad',
    'MPLS': 'Key requires protocol mpls_uc or mpls_mc',
    'PPPOE': 'Key requires protocol ppp_ses',
    'L2TP': 'Key requires ip_proto l2tp',
    'ENC_IPV4': 'Key requires an IPv4 tunnel',
    'ENC_IPV6': 'Key requires an IPv6 tunnel',
}

_IP, _IPV6 = ETH_P['ip'], ETH_P['ipv6']
# need -> (ethertypes the filter's protocol must be, or None;
#          the ip_proto it must give (a number, or a frozenset of numbers
#          it must be one of), or None)
PROTO_RULES = {
    'NONE': (None, None),
    'IP': ({_IP, _IPV6}, None),
    'IPV4': ({_IP}, None),
    'IPV6': ({_IPV6}, None),
    'TCP': (None, IP_PROTO['tcp']),
    'UDP': (None, IP_PROTO['udp']),
    'SCTP': (None, IP_PROTO['sctp']),
    'L4': (None, frozenset((IP_PROTO['tcp'], IP_PROTO['udp'],
                            IP_PROTO['sctp']))),
    'ICMPV4': ({_IP}, IP_PROTO['icmp']),
    'ICMPV6': ({_IPV6}, IP_PROTO['icmpv6']),
    'ARP': ({ETH_P['arp'], ETH_P['rarp']}, None),
    'MPLS': ({ETH_P['mpls_uc'], ETH_P['mpls_mc']}, None),
    'L2TP': (None, IP_PROTO['l2tp']),
}


def proto_met(need, n_proto, ip_proto):
    """fl_need_met() for a need in PROTO_RULES: n_proto is the filter's
    exact ethertype and ip_proto its exact IP protocol (None: not given)."""
    protos, ipp = PROTO_RULES[need]
    return (protos is None or n_proto in protos) and \
        (ipp is None or ip_proto in ip_protos(ipp))


def ip_protos(ipp):
    """A PROTO_RULES ip_proto (a number or a frozenset) as a frozenset."""
    return ipp if isinstance(ipp, frozenset) else frozenset((ipp,))


# --- ours' extack messages, by class (substrings of the messages) ----------
PREREQ_MSGS = ('Key requires',)
UNSUPPORTED_MSGS = ('Unsupported flower key flags',)
RANGE_MSGS = ('VLAN id must be below', 'VLAN priority must be below',
              'TCP flags mask has bits above 0xfff')
STACKED_MSGS = ('Stacked VLAN tags are not supported',)
# skip_sw where a device of the block cannot offload: cls_api refuses it
# on both kernels before any driver is asked; only ours says why
SKIP_SW_MSG = 'skip_sw filter not taken: a device of the block cannot offload'
# requests both kernels refuse, in other words (or stock accepts and
# ignores): malformed attributes, keys without their prerequisite, flag
# and ct_state sets no packet has
REFUSED_INPUT_MSGS = (
    'Unknown flower attribute type', 'Flower attribute has a wrong length',
    'Mask given without its key') + PREREQ_MSGS + (
    'VLAN id must be below', 'VLAN priority must', 'Stacked VLAN',
    'Invalid flower flags', SKIP_SW_MSG,
    "differs from the filter's protocol",
    'tunnel addresses cannot be combined',
    'ct_state flags other than trk need', 'ct_state +new excludes',
    'ct_state +inv goes')
