# SPDX-License-Identifier: GPL-2.0
"""flower_attrs.py - the TCA_FLOWER_* attributes of linux 6.1, in one table.

Every attribute of enum TCA_FLOWER_* in 6.1's include/uapi/linux/pkt_cls.h,
whether our cls_flower implements it or not, with:

  name      TCA_FLOWER_<name>
  number    its attribute type (the position in the enum)
  nla_type  the pyroute2 nla type flowernl.py encodes and decodes it with.
            It follows what stock cls_flower.c really puts and gets
            (fl_policy, fl_dump_key), not always the uapi comments:
            VLAN_ID, MPLS_LABEL and CT_* are host order, KEY_FLAGS is
            be32; "hex" is raw bytes (nested attributes we do not model,
            CT labels); "tca_act_prio" the action list
  length    the payload length 6.1's fl_policy wants (None: variable, a
            string or a nested attribute)
  mask      the attribute it pairs with: a key's mask, or a mask's key
            (None: no mask)

tdc/flowernl.py, tc-tests/generate.py, stress/fuzz.py, stress/churn.py
and stress/lifecycle.py take attribute numbers, types and lengths from
here; tdc/tests/test_flower_attrs.py checks the table against the 6.1
header and fl_policy.
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
