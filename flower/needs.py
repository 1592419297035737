# SPDX-License-Identifier: GPL-2.0
"""flower.needs - what a key needs of the filter, and what ours says if not.

A request the in-tree flower accepts is accepted by ours and treated as
stock treats it (series step 22): a key whose prerequisite the filter
does not give is ignored, as stock ignores it, and ours says so with an
extack warning (tc prints it as "Warning:" on success).  enum fl_need,
fl_need_met() and fl_warn_need() in kernel/net/sched/cls_flower.c; NEEDS
is the enum in its order, MESSAGES the warning of each;
flower/tests/test_keys.py checks both against the C source.

PROTO_RULES says, for the needs that are only about the filter's
protocol and ip_proto, which ethertypes and IP protocol satisfy them
(either None: anything; the IP protocol is one number, or a frozenset of
them for L4, the port ranges' need: tcp, udp or sctp).  The others are
about the filter's shape: VLAN / CVLAN (an outer / inner tag: a TPID, or
num_of_vlans above 0 / 1), PPPOE (a PPPoE session ethertype),
and the address families, which the keys' address attributes fix
(control.addr_type, enc_control.addr_type): IPV4_ADDRS / NO_IPV4_ADDRS
(IPv4 addresses win, as on stock: IPv6 ones count only in a filter
without IPv4 ones), ENC_IPV6_ADDRS / NO_ENC_IPV6_ADDRS (IPv6 tunnel
addresses win, and IPv4 ones count only without them: stock writes them
into the bytes the IPv6 ones share, docs/leniency.md).  The four also
keep a dump to the family of the union the addresses share; a request
never meets IPV4_ADDRS' or ENC_IPV6_ADDRS' message.  flower/model.py
(model_keys.need_met()) models them for every tool.

WARNINGS are ours' other warnings, each on a request stock accepts
silently, and what both kernels then do (docs/leniency.md has the table);
the test checks each is a string of the C source.

The message classes at the end group ours' extack messages by why a
request is refused; the comparison reports name a difference by them.
"""

from flower.uapi import ETH_P, IP_PROTO

NEEDS = ('NONE', 'IP', 'IPV4_ADDRS', 'NO_IPV4_ADDRS', 'ENC_IPV6_ADDRS',
         'NO_ENC_IPV6_ADDRS', 'TCP', 'UDP', 'SCTP', 'L4', 'ICMPV4', 'ICMPV6',
         'ARP', 'VLAN', 'CVLAN', 'MPLS', 'PPPOE', 'L2TP')

MESSAGES = {
    'IP': 'Key ignored: it requires protocol ip or ipv6',
    'IPV4_ADDRS': "Key ignored: it is not of the filter's address family",
    'NO_IPV4_ADDRS': 'Key ignored: IPv6 addresses do not count beside IPv4 ones',
    'ENC_IPV6_ADDRS': ("Key ignored: it is not of the filter's tunnel "
                       "address family"),
    'NO_ENC_IPV6_ADDRS': ('Key ignored: IPv4 tunnel addresses do not count '
                          'beside IPv6 ones'),
    'TCP': 'Key ignored: it requires ip_proto tcp',
    'UDP': 'Key ignored: it requires ip_proto udp',
    'SCTP': 'Key ignored: it requires ip_proto sctp',
    'L4': 'Key ignored: it requires ip_proto tcp, udp or sctp',
    'ICMPV4': 'Key ignored: it requires protocol ip and ip_proto icmp',
    'ICMPV6': 'Key ignored: it requires protocol ipv6 and ip_proto icmpv6',
    'ARP': 'Key ignored: it requires protocol arp or rarp',
    'VLAN': 'Key ignored: it requires protocol 802.1q or 802.1ad',
    'CVLAN': 'Key ignored: it requires vlan_ethtype 802.1q or 802.1ad',
    'MPLS': 'Key ignored: it requires protocol mpls_uc or mpls_mc',
    'PPPOE': 'Key ignored: it requires protocol ppp_ses',
    'L2TP': 'Key ignored: it requires ip_proto l2tp',
}

# name -> warning; what stock does silently with such a request, and ours
# does with the warning
WARNINGS = {
    # a *_MASK attribute (or ENC_OPTS_MASK, KEY_FLAGS_MASK) without its key
    'mask_without_key': 'Mask given without its key: ignored',
    # vlan_id/cvlan_id > 4095, vlan_prio/cvlan_prio > 7: masked
    'vlan_id': 'VLAN id above 4095: its low 12 bits are matched',
    'vlan_prio': 'VLAN priority above 7: its low 3 bits are matched',
    # kept as given: a set bit above 0xfff in key and mask never matches
    'tcp_flags': 'TCP flags mask has bits above 0xfff, which no packet sets',
    # ip_flags bits other than frag and firstfrag: dropped from key and mask
    'ip_flags': 'Unknown flower key flags ignored: only frag and firstfrag',
    # TCA_FLOWER_KEY_ETH_TYPE unlike the filter's protocol (not all): kept
    'eth_type': ("Key eth_type differs from the filter's protocol: "
                 "a packet must have both"),
    # IPv4 addresses with an exact ethertype other than ip, IPv6 ones with
    # one other than ipv6: kept, and no packet matches
    'addr_family': ("Address key of another family than the filter's "
                    "protocol: no packet matches"),
    # attribute types above TCA_FLOWER_MAX: ignored
    'unknown_attr': 'Unknown flower attribute type ignored',
    # TCA_FLOWER_IN_HW_COUNT in a request: ignored
    'in_hw_count': 'TCA_FLOWER_IN_HW_COUNT is only dumped: ignored',
    # a fixed-size attribute longer than its type: its first bytes are used
    'attr_long': 'Flower attribute longer than its type: its first bytes are used',
}

_IP, _IPV6 = ETH_P['ip'], ETH_P['ipv6']
# need -> (ethertypes the filter's protocol must be, or None;
#          the ip_proto it must give (a number, or a frozenset of numbers
#          it must be one of), or None)
PROTO_RULES = {
    'NONE': (None, None),
    'IP': ({_IP, _IPV6}, None),
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
WARNING_MSGS = tuple(MESSAGES.values()) + tuple(WARNINGS.values())
# skip_sw where a device of the block cannot offload: cls_api refuses it
# on both kernels before any driver is asked; only ours says why
SKIP_SW_MSG = 'skip_sw filter not taken: a device of the block cannot offload'
# requests both kernels refuse, in other words: malformed attributes, flag
# and ct_state sets no packet has
REFUSED_INPUT_MSGS = (
    'Invalid flower flags', SKIP_SW_MSG,
    'ct_state flags other than trk need', 'ct_state +new excludes',
    'ct_state +inv goes')
