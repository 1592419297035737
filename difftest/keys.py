# SPDX-License-Identifier: GPL-2.0
"""The differential oracle's key table: one row per flower key.

A row says which TCA_FLOWER_* attribute carries the key (and its mask,
if the key takes one), how wide it is and in which byte order netlink
carries it, which filter protocol / ip_proto the key needs (both kernels
only look at it then; ours refuses it otherwise), and which field of the
packet model (difftest/packets.py) it matches.  Adding a key = one row.

`guarded` marks keys ours may refuse today (the lead is adding them): they
are generated anyway; a filter one kernel refuses and the other accepts
is the by-design divergence class "refused key".

Pure data + tiny helpers, no scapy, no pyroute2: the guest runner never
imports this (the generator pre-encodes each filter's attributes).
"""

# TCA_FLOWER_* attribute numbers (include/uapi/linux/pkt_cls.h, 6.1).
A = dict(
    CLASSID=1, INDEV=2, ACT=3, KEY_ETH_DST=4, KEY_ETH_DST_MASK=5,
    KEY_ETH_SRC=6, KEY_ETH_SRC_MASK=7, KEY_ETH_TYPE=8, KEY_IP_PROTO=9,
    KEY_IPV4_SRC=10, KEY_IPV4_SRC_MASK=11, KEY_IPV4_DST=12,
    KEY_IPV4_DST_MASK=13, KEY_IPV6_SRC=14, KEY_IPV6_SRC_MASK=15,
    KEY_IPV6_DST=16, KEY_IPV6_DST_MASK=17, KEY_TCP_SRC=18, KEY_TCP_DST=19,
    KEY_UDP_SRC=20, KEY_UDP_DST=21, FLAGS=22, KEY_VLAN_ID=23,
    KEY_VLAN_PRIO=24, KEY_VLAN_ETH_TYPE=25,
    KEY_TCP_SRC_MASK=35, KEY_TCP_DST_MASK=36, KEY_UDP_SRC_MASK=37,
    KEY_UDP_DST_MASK=38, KEY_SCTP_SRC_MASK=39, KEY_SCTP_DST_MASK=40,
    KEY_SCTP_SRC=41, KEY_SCTP_DST=42, KEY_FLAGS=47, KEY_FLAGS_MASK=48,
    KEY_ICMPV4_CODE=49, KEY_ICMPV4_CODE_MASK=50, KEY_ICMPV4_TYPE=51,
    KEY_ICMPV4_TYPE_MASK=52, KEY_ICMPV6_CODE=53, KEY_ICMPV6_CODE_MASK=54,
    KEY_ICMPV6_TYPE=55, KEY_ICMPV6_TYPE_MASK=56, KEY_ARP_SIP=57,
    KEY_ARP_SIP_MASK=58, KEY_ARP_TIP=59, KEY_ARP_TIP_MASK=60,
    KEY_ARP_OP=61, KEY_ARP_OP_MASK=62, KEY_ARP_SHA=63, KEY_ARP_SHA_MASK=64,
    KEY_ARP_THA=65, KEY_ARP_THA_MASK=66, KEY_MPLS_TTL=67, KEY_MPLS_BOS=68,
    KEY_MPLS_TC=69, KEY_MPLS_LABEL=70, KEY_TCP_FLAGS=71,
    KEY_TCP_FLAGS_MASK=72, KEY_IP_TOS=73, KEY_IP_TOS_MASK=74,
    KEY_IP_TTL=75, KEY_IP_TTL_MASK=76, KEY_CVLAN_ID=77, KEY_CVLAN_PRIO=78,
    KEY_CVLAN_ETH_TYPE=79, KEY_MPLS_OPTS=99, KEY_NUM_OF_VLANS=102,
    KEY_PPPOE_SID=103, KEY_PPP_PROTO=104, KEY_L2TPV3_SID=105)
NAME = {v: k for k, v in A.items()}

# Filter protocols (tc names) and their ethertypes.
PROTOS = {
    'ip': 0x0800, 'ipv6': 0x86dd, 'arp': 0x0806, 'rarp': 0x8035,
    '802.1q': 0x8100, '802.1ad': 0x88a8, 'all': 0x0003,
    'ppp_ses': 0x8864, 'mpls_uc': 0x8847, 'mpls_mc': 0x8848,
    'lldp': 0x88cc, '0x9000': 0x9000,
}
VLAN_TPIDS = (0x8100, 0x88a8)

# need: which effective filter shape the key requires.
#   any    no prerequisite          ip    n_proto ip or ipv6
#   ipv4 / ipv6 / arp (arp or rarp) / mpls (mpls_uc/mc) / ppp (ppp_ses)
#   vlan   protocol 802.1q/802.1ad  cvlan  a second VLAN tpid given
#   tcp / udp / sctp / icmp4 / icmp6 / l2tp   n_proto + ip_proto
# order: 'be' network order, 'he' host (little endian on x86), 'u8'.
# field: the packet model's field the key matches (packets.py).
# bits: the valid value bits (exact keys whose range is checked).
KEYS = [
    # name           value attr            mask attr                width order need    field            guarded
    dict(name='eth_dst', attr='KEY_ETH_DST', mask='KEY_ETH_DST_MASK', width=6, order='be', need='any', field='dst'),
    dict(name='eth_src', attr='KEY_ETH_SRC', mask='KEY_ETH_SRC_MASK', width=6, order='be', need='any', field='src'),
    dict(name='ipv4_src', attr='KEY_IPV4_SRC', mask='KEY_IPV4_SRC_MASK', width=4, order='be', need='ipv4', field='ip.src'),
    dict(name='ipv4_dst', attr='KEY_IPV4_DST', mask='KEY_IPV4_DST_MASK', width=4, order='be', need='ipv4', field='ip.dst'),
    dict(name='ipv6_src', attr='KEY_IPV6_SRC', mask='KEY_IPV6_SRC_MASK', width=16, order='be', need='ipv6', field='ip.src'),
    dict(name='ipv6_dst', attr='KEY_IPV6_DST', mask='KEY_IPV6_DST_MASK', width=16, order='be', need='ipv6', field='ip.dst'),
    dict(name='ip_tos', attr='KEY_IP_TOS', mask='KEY_IP_TOS_MASK', width=1, order='u8', need='ip', field='ip.tos'),
    dict(name='ip_ttl', attr='KEY_IP_TTL', mask='KEY_IP_TTL_MASK', width=1, order='u8', need='ip', field='ip.ttl'),
    dict(name='tcp_src', attr='KEY_TCP_SRC', mask='KEY_TCP_SRC_MASK', width=2, order='be', need='tcp', field='l4.sport'),
    dict(name='tcp_dst', attr='KEY_TCP_DST', mask='KEY_TCP_DST_MASK', width=2, order='be', need='tcp', field='l4.dport'),
    dict(name='udp_src', attr='KEY_UDP_SRC', mask='KEY_UDP_SRC_MASK', width=2, order='be', need='udp', field='l4.sport'),
    dict(name='udp_dst', attr='KEY_UDP_DST', mask='KEY_UDP_DST_MASK', width=2, order='be', need='udp', field='l4.dport'),
    dict(name='sctp_src', attr='KEY_SCTP_SRC', mask='KEY_SCTP_SRC_MASK', width=2, order='be', need='sctp', field='l4.sport'),
    dict(name='sctp_dst', attr='KEY_SCTP_DST', mask='KEY_SCTP_DST_MASK', width=2, order='be', need='sctp', field='l4.dport'),
    dict(name='tcp_flags', attr='KEY_TCP_FLAGS', mask='KEY_TCP_FLAGS_MASK', width=2, order='be', need='tcp', field='l4.flags', bits=0x0fff),
    dict(name='icmpv4_type', attr='KEY_ICMPV4_TYPE', mask='KEY_ICMPV4_TYPE_MASK', width=1, order='u8', need='icmp4', field='l4.type'),
    dict(name='icmpv4_code', attr='KEY_ICMPV4_CODE', mask='KEY_ICMPV4_CODE_MASK', width=1, order='u8', need='icmp4', field='l4.code'),
    dict(name='icmpv6_type', attr='KEY_ICMPV6_TYPE', mask='KEY_ICMPV6_TYPE_MASK', width=1, order='u8', need='icmp6', field='l4.type'),
    dict(name='icmpv6_code', attr='KEY_ICMPV6_CODE', mask='KEY_ICMPV6_CODE_MASK', width=1, order='u8', need='icmp6', field='l4.code'),
    dict(name='arp_op', attr='KEY_ARP_OP', mask='KEY_ARP_OP_MASK', width=1, order='u8', need='arp', field='arp.op'),
    dict(name='arp_sip', attr='KEY_ARP_SIP', mask='KEY_ARP_SIP_MASK', width=4, order='be', need='arp', field='arp.sip'),
    dict(name='arp_tip', attr='KEY_ARP_TIP', mask='KEY_ARP_TIP_MASK', width=4, order='be', need='arp', field='arp.tip'),
    dict(name='arp_sha', attr='KEY_ARP_SHA', mask='KEY_ARP_SHA_MASK', width=6, order='be', need='arp', field='arp.sha'),
    dict(name='arp_tha', attr='KEY_ARP_THA', mask='KEY_ARP_THA_MASK', width=6, order='be', need='arp', field='arp.tha'),
    dict(name='vlan_id', attr='KEY_VLAN_ID', mask=None, width=2, order='he', need='vlan', field='tag0.vid', bits=0x0fff),
    dict(name='vlan_prio', attr='KEY_VLAN_PRIO', mask=None, width=1, order='u8', need='vlan', field='tag0.prio', bits=0x7),
    # --- guarded: being added to ours ---------------------------------
    dict(name='ip_flags', attr='KEY_FLAGS', mask='KEY_FLAGS_MASK', width=4, order='be', need='ip', field='ip.fragflags', bits=0x3, guarded=True),
    dict(name='cvlan_id', attr='KEY_CVLAN_ID', mask=None, width=2, order='he', need='cvlan', field='tag1.vid', bits=0x0fff, guarded=True),
    dict(name='cvlan_prio', attr='KEY_CVLAN_PRIO', mask=None, width=1, order='u8', need='cvlan', field='tag1.prio', bits=0x7, guarded=True),
    dict(name='num_of_vlans', attr='KEY_NUM_OF_VLANS', mask=None, width=1, order='u8', need='any', field='ntags', bits=0x3, guarded=True),
    dict(name='mpls_label', attr='KEY_MPLS_LABEL', mask=None, width=4, order='he', need='mpls', field='mpls0.label', bits=0xfffff, guarded=True),
    dict(name='mpls_tc', attr='KEY_MPLS_TC', mask=None, width=1, order='u8', need='mpls', field='mpls0.tc', bits=0x7, guarded=True),
    dict(name='mpls_bos', attr='KEY_MPLS_BOS', mask=None, width=1, order='u8', need='mpls', field='mpls0.bos', bits=0x1, guarded=True),
    dict(name='mpls_ttl', attr='KEY_MPLS_TTL', mask=None, width=1, order='u8', need='mpls', field='mpls0.ttl', guarded=True),
    dict(name='pppoe_sid', attr='KEY_PPPOE_SID', mask=None, width=2, order='be', need='ppp', field='pppoe.sid', guarded=True),
    dict(name='ppp_proto', attr='KEY_PPP_PROTO', mask=None, width=2, order='be', need='ppp', field='pppoe.proto', guarded=True),
    dict(name='l2tpv3_sid', attr='KEY_L2TPV3_SID', mask=None, width=4, order='be', need='l2tp', field='l4.sid', guarded=True),
]
for _k in KEYS:
    _k.setdefault('guarded', False)
    _k.setdefault('bits', (1 << (8 * _k['width'])) - 1)
KEY = {k['name']: k for k in KEYS}

# Address keys whose all-zero mask stock 6.1 mishandles (control.addr_type
# is masked, but the dissector skips the zero-mask address key).
ZERO_MASK_ADDR_KEYS = ('ipv4_src', 'ipv4_dst', 'ipv6_src', 'ipv6_dst')


def encode(key, value):
    """A key's value (or mask) as the attribute payload."""
    w = key['width']
    if key['order'] == 'he':
        return value.to_bytes(w, 'little')
    return value.to_bytes(w, 'big')


def decode(key, data):
    return int.from_bytes(data, 'little' if key['order'] == 'he' else 'big')
