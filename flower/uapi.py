# SPDX-License-Identifier: GPL-2.0
"""flower.uapi - linux 6.1's flower uAPI, in one place.

TABLE: every attribute of enum TCA_FLOWER_* in 6.1's
include/uapi/linux/pkt_cls.h, whether our cls_flower implements it or not:

  name      TCA_FLOWER_<name>
  number    its attribute type (the position in the enum)
  nla_type  the pyroute2 nla type tdc/flowernl.py encodes and decodes it
            with.  It follows what stock cls_flower.c really puts and gets
            (fl_policy, fl_dump_key), not always the uapi comments:
            VLAN_ID, MPLS_LABEL and CT_* are host order, KEY_FLAGS is
            be32; "hex" is raw bytes (nested attributes we do not model,
            CT labels); "tca_act_prio" the action list.  flower/nl.py's
            encode()/decode() take the same types (nl.INT_FORMAT: each
            integer type's width and byte order)
  length    the payload length 6.1's fl_policy wants (None: variable, a
            string or a nested attribute)
  mask      the attribute it pairs with: a key's mask, or a mask's key
            (None: no mask)

Then the nested enums, the KEY_FLAGS bits, and the protocol names tc uses:
ethertypes (ETH_P), PPP protocols (PPP_PROTO) and IP protocols (IP_PROTO).

Pure data, no scapy or pyroute2: the guest imports it in every tool.
flower/tests/test_uapi.py checks the table against the 6.1 header and
fl_policy.
"""

import collections

Attr = collections.namedtuple('Attr', 'name number nla_type length mask')

TABLE = tuple(Attr(*row) for row in (
    ('UNSPEC',                        0, 'none',         0,    None),
    ('CLASSID',                       1, 'uint32',       4,    None),
    ('INDEV',                         2, 'asciiz',       None, None),
    ('ACT',                           3, 'tca_act_prio', None, None),
    ('KEY_ETH_DST',                   4, 'l2addr',       6,    'KEY_ETH_DST_MASK'),
    ('KEY_ETH_DST_MASK',              5, 'l2addr',       6,    'KEY_ETH_DST'),
    ('KEY_ETH_SRC',                   6, 'l2addr',       6,    'KEY_ETH_SRC_MASK'),
    ('KEY_ETH_SRC_MASK',              7, 'l2addr',       6,    'KEY_ETH_SRC'),
    ('KEY_ETH_TYPE',                  8, 'be16',         2,    None),
    ('KEY_IP_PROTO',                  9, 'uint8',        1,    None),
    ('KEY_IPV4_SRC',                 10, 'ip4addr',      4,    'KEY_IPV4_SRC_MASK'),
    ('KEY_IPV4_SRC_MASK',            11, 'ip4addr',      4,    'KEY_IPV4_SRC'),
    ('KEY_IPV4_DST',                 12, 'ip4addr',      4,    'KEY_IPV4_DST_MASK'),
    ('KEY_IPV4_DST_MASK',            13, 'ip4addr',      4,    'KEY_IPV4_DST'),
    ('KEY_IPV6_SRC',                 14, 'ip6addr',      16,   'KEY_IPV6_SRC_MASK'),
    ('KEY_IPV6_SRC_MASK',            15, 'ip6addr',      16,   'KEY_IPV6_SRC'),
    ('KEY_IPV6_DST',                 16, 'ip6addr',      16,   'KEY_IPV6_DST_MASK'),
    ('KEY_IPV6_DST_MASK',            17, 'ip6addr',      16,   'KEY_IPV6_DST'),
    ('KEY_TCP_SRC',                  18, 'be16',         2,    'KEY_TCP_SRC_MASK'),
    ('KEY_TCP_DST',                  19, 'be16',         2,    'KEY_TCP_DST_MASK'),
    ('KEY_UDP_SRC',                  20, 'be16',         2,    'KEY_UDP_SRC_MASK'),
    ('KEY_UDP_DST',                  21, 'be16',         2,    'KEY_UDP_DST_MASK'),
    ('FLAGS',                        22, 'uint32',       4,    None),
    ('KEY_VLAN_ID',                  23, 'uint16',       2,    None),
    ('KEY_VLAN_PRIO',                24, 'uint8',        1,    None),
    ('KEY_VLAN_ETH_TYPE',            25, 'be16',         2,    None),
    ('KEY_ENC_KEY_ID',               26, 'be32',         4,    None),
    ('KEY_ENC_IPV4_SRC',             27, 'ip4addr',      4,    'KEY_ENC_IPV4_SRC_MASK'),
    ('KEY_ENC_IPV4_SRC_MASK',        28, 'ip4addr',      4,    'KEY_ENC_IPV4_SRC'),
    ('KEY_ENC_IPV4_DST',             29, 'ip4addr',      4,    'KEY_ENC_IPV4_DST_MASK'),
    ('KEY_ENC_IPV4_DST_MASK',        30, 'ip4addr',      4,    'KEY_ENC_IPV4_DST'),
    ('KEY_ENC_IPV6_SRC',             31, 'ip6addr',      16,   'KEY_ENC_IPV6_SRC_MASK'),
    ('KEY_ENC_IPV6_SRC_MASK',        32, 'ip6addr',      16,   'KEY_ENC_IPV6_SRC'),
    ('KEY_ENC_IPV6_DST',             33, 'ip6addr',      16,   'KEY_ENC_IPV6_DST_MASK'),
    ('KEY_ENC_IPV6_DST_MASK',        34, 'ip6addr',      16,   'KEY_ENC_IPV6_DST'),
    ('KEY_TCP_SRC_MASK',             35, 'be16',         2,    'KEY_TCP_SRC'),
    ('KEY_TCP_DST_MASK',             36, 'be16',         2,    'KEY_TCP_DST'),
    ('KEY_UDP_SRC_MASK',             37, 'be16',         2,    'KEY_UDP_SRC'),
    ('KEY_UDP_DST_MASK',             38, 'be16',         2,    'KEY_UDP_DST'),
    ('KEY_SCTP_SRC_MASK',            39, 'be16',         2,    'KEY_SCTP_SRC'),
    ('KEY_SCTP_DST_MASK',            40, 'be16',         2,    'KEY_SCTP_DST'),
    ('KEY_SCTP_SRC',                 41, 'be16',         2,    'KEY_SCTP_SRC_MASK'),
    ('KEY_SCTP_DST',                 42, 'be16',         2,    'KEY_SCTP_DST_MASK'),
    ('KEY_ENC_UDP_SRC_PORT',         43, 'be16',         2,    'KEY_ENC_UDP_SRC_PORT_MASK'),
    ('KEY_ENC_UDP_SRC_PORT_MASK',    44, 'be16',         2,    'KEY_ENC_UDP_SRC_PORT'),
    ('KEY_ENC_UDP_DST_PORT',         45, 'be16',         2,    'KEY_ENC_UDP_DST_PORT_MASK'),
    ('KEY_ENC_UDP_DST_PORT_MASK',    46, 'be16',         2,    'KEY_ENC_UDP_DST_PORT'),
    ('KEY_FLAGS',                    47, 'be32',         4,    'KEY_FLAGS_MASK'),
    ('KEY_FLAGS_MASK',               48, 'be32',         4,    'KEY_FLAGS'),
    ('KEY_ICMPV4_CODE',              49, 'uint8',        1,    'KEY_ICMPV4_CODE_MASK'),
    ('KEY_ICMPV4_CODE_MASK',         50, 'uint8',        1,    'KEY_ICMPV4_CODE'),
    ('KEY_ICMPV4_TYPE',              51, 'uint8',        1,    'KEY_ICMPV4_TYPE_MASK'),
    ('KEY_ICMPV4_TYPE_MASK',         52, 'uint8',        1,    'KEY_ICMPV4_TYPE'),
    ('KEY_ICMPV6_CODE',              53, 'uint8',        1,    'KEY_ICMPV6_CODE_MASK'),
    ('KEY_ICMPV6_CODE_MASK',         54, 'uint8',        1,    'KEY_ICMPV6_CODE'),
    ('KEY_ICMPV6_TYPE',              55, 'uint8',        1,    'KEY_ICMPV6_TYPE_MASK'),
    ('KEY_ICMPV6_TYPE_MASK',         56, 'uint8',        1,    'KEY_ICMPV6_TYPE'),
    ('KEY_ARP_SIP',                  57, 'ip4addr',      4,    'KEY_ARP_SIP_MASK'),
    ('KEY_ARP_SIP_MASK',             58, 'ip4addr',      4,    'KEY_ARP_SIP'),
    ('KEY_ARP_TIP',                  59, 'ip4addr',      4,    'KEY_ARP_TIP_MASK'),
    ('KEY_ARP_TIP_MASK',             60, 'ip4addr',      4,    'KEY_ARP_TIP'),
    ('KEY_ARP_OP',                   61, 'uint8',        1,    'KEY_ARP_OP_MASK'),
    ('KEY_ARP_OP_MASK',              62, 'uint8',        1,    'KEY_ARP_OP'),
    ('KEY_ARP_SHA',                  63, 'l2addr',       6,    'KEY_ARP_SHA_MASK'),
    ('KEY_ARP_SHA_MASK',             64, 'l2addr',       6,    'KEY_ARP_SHA'),
    ('KEY_ARP_THA',                  65, 'l2addr',       6,    'KEY_ARP_THA_MASK'),
    ('KEY_ARP_THA_MASK',             66, 'l2addr',       6,    'KEY_ARP_THA'),
    ('KEY_MPLS_TTL',                 67, 'uint8',        1,    None),
    ('KEY_MPLS_BOS',                 68, 'uint8',        1,    None),
    ('KEY_MPLS_TC',                  69, 'uint8',        1,    None),
    ('KEY_MPLS_LABEL',               70, 'uint32',       4,    None),
    ('KEY_TCP_FLAGS',                71, 'be16',         2,    'KEY_TCP_FLAGS_MASK'),
    ('KEY_TCP_FLAGS_MASK',           72, 'be16',         2,    'KEY_TCP_FLAGS'),
    ('KEY_IP_TOS',                   73, 'uint8',        1,    'KEY_IP_TOS_MASK'),
    ('KEY_IP_TOS_MASK',              74, 'uint8',        1,    'KEY_IP_TOS'),
    ('KEY_IP_TTL',                   75, 'uint8',        1,    'KEY_IP_TTL_MASK'),
    ('KEY_IP_TTL_MASK',              76, 'uint8',        1,    'KEY_IP_TTL'),
    ('KEY_CVLAN_ID',                 77, 'uint16',       2,    None),
    ('KEY_CVLAN_PRIO',               78, 'uint8',        1,    None),
    ('KEY_CVLAN_ETH_TYPE',           79, 'be16',         2,    None),
    ('KEY_ENC_IP_TOS',               80, 'uint8',        1,    'KEY_ENC_IP_TOS_MASK'),
    ('KEY_ENC_IP_TOS_MASK',          81, 'uint8',        1,    'KEY_ENC_IP_TOS'),
    ('KEY_ENC_IP_TTL',               82, 'uint8',        1,    'KEY_ENC_IP_TTL_MASK'),
    ('KEY_ENC_IP_TTL_MASK',          83, 'uint8',        1,    'KEY_ENC_IP_TTL'),
    ('KEY_ENC_OPTS',                 84, 'hex',          None, 'KEY_ENC_OPTS_MASK'),
    ('KEY_ENC_OPTS_MASK',            85, 'hex',          None, 'KEY_ENC_OPTS'),
    ('IN_HW_COUNT',                  86, 'uint32',       4,    None),
    ('KEY_PORT_SRC_MIN',             87, 'be16',         2,    None),
    ('KEY_PORT_SRC_MAX',             88, 'be16',         2,    None),
    ('KEY_PORT_DST_MIN',             89, 'be16',         2,    None),
    ('KEY_PORT_DST_MAX',             90, 'be16',         2,    None),
    ('KEY_CT_STATE',                 91, 'uint16',       2,    'KEY_CT_STATE_MASK'),
    ('KEY_CT_STATE_MASK',            92, 'uint16',       2,    'KEY_CT_STATE'),
    ('KEY_CT_ZONE',                  93, 'uint16',       2,    'KEY_CT_ZONE_MASK'),
    ('KEY_CT_ZONE_MASK',             94, 'uint16',       2,    'KEY_CT_ZONE'),
    ('KEY_CT_MARK',                  95, 'uint32',       4,    'KEY_CT_MARK_MASK'),
    ('KEY_CT_MARK_MASK',             96, 'uint32',       4,    'KEY_CT_MARK'),
    ('KEY_CT_LABELS',                97, 'hex',          16,   'KEY_CT_LABELS_MASK'),
    ('KEY_CT_LABELS_MASK',           98, 'hex',          16,   'KEY_CT_LABELS'),
    ('KEY_MPLS_OPTS',                99, 'hex',          None, None),
    ('KEY_HASH',                    100, 'uint32',       4,    'KEY_HASH_MASK'),
    ('KEY_HASH_MASK',               101, 'uint32',       4,    'KEY_HASH'),
    ('KEY_NUM_OF_VLANS',            102, 'uint8',        1,    None),
    ('KEY_PPPOE_SID',               103, 'be16',         2,    None),
    ('KEY_PPP_PROTO',               104, 'be16',         2,    None),
    ('KEY_L2TPV3_SID',              105, 'be32',         4,    None),
))

# The enums of the attributes nested in some of the above (numbered
# TCA_FLOWER_<prefix>_<name> from 1, after <prefix>_UNSPEC), as in 6.1's
# pkt_cls.h: prefix -> {name: number}
NESTED = {
    'KEY_ENC_OPTS': {'GENEVE': 1, 'VXLAN': 2, 'ERSPAN': 3, 'GTP': 4},
    'KEY_ENC_OPT_GENEVE': {'CLASS': 1, 'TYPE': 2, 'DATA': 3},
    'KEY_MPLS_OPTS': {'LSE': 1},
    'KEY_MPLS_OPT_LSE': {'DEPTH': 1, 'TTL': 2, 'BOS': 3, 'TC': 4, 'LABEL': 5},
}

# The bits of KEY_FLAGS / KEY_FLAGS_MASK (TCA_FLOWER_KEY_FLAGS_<name>)
KEY_FLAGS_BITS = {'IS_FRAGMENT': 1 << 0, 'FRAG_IS_FIRST': 1 << 1}

BY_NAME = {a.name: a for a in TABLE}          # 'KEY_ETH_DST' -> Attr
BY_NUMBER = {a.number: a for a in TABLE}
MAX = max(BY_NUMBER)                            # TCA_FLOWER_MAX: 105 on 6.1


def number(name):
    """'KEY_ETH_DST' or 'TCA_FLOWER_KEY_ETH_DST' -> 4."""
    if name.startswith('TCA_FLOWER_'):
        name = name[len('TCA_FLOWER_'):]
    return BY_NAME[name].number


def full_name(attr):
    return 'TCA_FLOWER_' + attr.name


# --- protocol names ---------------------------------------------------------
# tc's protocol names (iproute2's ll_proto table, lower case as tc accepts
# them) -> ethertype; 'all' is ETH_P_ALL.  stress/fuzz.py draws from this
# dict in its order: a new name goes at the end, or a seed's run changes.
ETH_P = {
    'ip': 0x0800, 'ipv6': 0x86dd, 'arp': 0x0806, 'rarp': 0x8035,
    '802.1q': 0x8100, '802.1ad': 0x88a8, 'all': 0x0003, 'lldp': 0x88cc,
    'mpls_uc': 0x8847, 'mpls_mc': 0x8848, 'ppp_ses': 0x8864,
}
# Other spellings some tools accept for the same numbers.
ETH_P_ALIASES = {'ipv4': 'ip', 'vlan': '802.1q', 'pppoes': 'ppp_ses',
                 '8021q': '802.1q', '8021ad': '802.1ad', 'mpls': 'mpls_uc'}
VLAN_TPIDS = (ETH_P['802.1q'], ETH_P['802.1ad'])
ETH_P_PPP_SES = ETH_P['ppp_ses']
ETH_P_ALL = ETH_P['all']


def ethertype(name):
    """'ip', 'ipv4', '802.1Q' or '0x9000' -> the number."""
    low = name.lower()
    low = ETH_P_ALIASES.get(low, low)
    return ETH_P[low] if low in ETH_P else int(name, 0)


# PPP protocol numbers tc names (ppp_proto), and the ethertype the kernel
# keys (basic.n_proto) for a PPPoE frame carrying each (fl_set_key_pppoe()).
PPP_PROTO = {'ip': 0x21, 'ipv6': 0x57, 'mpls_uc': 0x281, 'mpls_mc': 0x283}
PPP_CARRIED = {number: ETH_P[name] for name, number in PPP_PROTO.items()}

# IP protocol numbers (include/uapi/linux/in.h) by the names tc takes for
# ip_proto, and the few others the tools build packets with.
IP_PROTO = {'icmp': 1, 'ipip': 4, 'tcp': 6, 'udp': 17, 'ipv6': 41,
            'gre': 47, 'icmpv6': 58, 'l2tp': 115, 'sctp': 132}
