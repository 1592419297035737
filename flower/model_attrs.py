# SPDX-License-Identifier: GPL-2.0
"""flower.model_attrs - the classifier's attribute table as flower/model.py
needs it (lengths, nested attributes, members of the flow key), the
tunnel option kinds, the ct_state bits, the MPLS and port range messages,
constants, and the predicted refusal Err.
"""

import collections
import struct

from flower import keys as flower_keys
from flower import needs, uapi


A = {a.name: a.number for a in uapi.TABLE}
FLOWER_MAX = uapi.MAX                     # 105 on 6.1
TYPE_MASK = 0x3FFF                                # ~(NESTED|NET_BYTEORDER)
VAR = -1
# MPLS: per label stack entry (FLOW_DIS_MPLS_MAX = 7 of them) ttl, bos, tc
# and the label (u32, host order, as its attribute); then used_lses
MPLS_LSES, LSE_LEN = 7, 7
MPLS_USED = MPLS_LSES * LSE_LEN

MEMBERS = collections.OrderedDict([
    ('indev', 4), ('n_proto', 2), ('ip_proto', 1), ('eth.dst', 6),
    ('eth.src', 6), ('vlan_id', 2), ('vlan_prio', 1), ('vlan_tpid', 2),
    ('vlan_eth_type', 2),
    # the inner tag (cvlan_*: vlan_eth_type was a TPID, or num_of_vlans > 1)
    ('cvlan_id', 2), ('cvlan_prio', 1), ('cvlan_eth_type', 2),
    # control.flags, as the uAPI's ip_flags bits (be32): the kernel's
    # dissector bits map one to one (fl_ip_flags[])
    ('ip_flags', 4),
    ('num_of_vlans', 1), ('pppoe.sid', 2), ('pppoe.ppp_proto', 2),
    ('pppoe.type', 2), ('l2tpv3.sid', 4), ('mpls', MPLS_USED + 1),
    ('l3', 32),                     # union { ipv4_addrs; ipv6_addrs; }
    ('ip.tos', 1), ('ip.ttl', 1), ('tp.src', 2), ('tp.dst', 2),
    ('tcp.flags', 2), ('icmp.type', 1), ('icmp.code', 1), ('arp.op', 1),
    ('arp.sip', 4), ('arp.tip', 4), ('arp.sha', 6), ('arp.tha', 6),
    ('addr_type', 2), ('cvlan_tpid', 2),
    # port ranges (struct flow_dissector_key_ports_range: tp_min.src,
    # tp_min.dst, tp_max.src, tp_max.dst, be16 each)
    ('tp_range', 8),
    # metadata: the skb's hash (u32, host order)
    ('hash', 4),
    # metadata: the tunnel (enc_control.addr_type, key id, the outer
    # addresses' union, ports, tos/ttl) and the conntrack entry
    ('enc_addr_type', 2), ('enc_keyid', 4),
    ('enc_l3', 32),                 # union { enc_ipv4; enc_ipv6; }
    ('enc_tp.src', 2), ('enc_tp.dst', 2), ('enc_ip.tos', 1),
    ('enc_ip.ttl', 1), ('ct.state', 2), ('ct.zone', 2), ('ct.mark', 4),
    ('ct.labels', 16),
    # struct flow_dissector_key_enc_opts: data[255] (Geneve options as on
    # the wire), len, __be16 dst_opt_type
    ('enc_opts', 258)])

# fl_keys[] in its order (flower.keys, checked against cls_flower.c): (value
# attr, mask attr or None, member, offset in member, length, need).  The
# model keeps the address unions as one member each (l3, enc_l3) and some
# members under shorter names than struct fl_flow_key's.
MODEL_MEMBER = {
    'basic.ip_proto': ('ip_proto', 0), 'pppoe.session_id': ('pppoe.sid', 0),
    'ipv4.src': ('l3', 0), 'ipv4.dst': ('l3', 4), 'ipv6.src': ('l3', 0),
    'ipv6.dst': ('l3', 16), 'l2tpv3.session_id': ('l2tpv3.sid', 0),
    'enc_keyid.keyid': ('enc_keyid', 0), 'enc_ipv4.src': ('enc_l3', 0),
    'enc_ipv4.dst': ('enc_l3', 4), 'enc_ipv6.src': ('enc_l3', 0),
    'enc_ipv6.dst': ('enc_l3', 16), 'ct.ct_state': ('ct.state', 0),
    'ct.ct_zone': ('ct.zone', 0), 'ct.ct_mark': ('ct.mark', 0),
    'ct.ct_labels': ('ct.labels', 0),
    'tp_range.tp_min.src': ('tp_range', 0),
    'tp_range.tp_min.dst': ('tp_range', 2),
    'tp_range.tp_max.src': ('tp_range', 4),
    'tp_range.tp_max.dst': ('tp_range', 6), 'hash.hash': ('hash', 0)}
KEYS = [(k.attr[len('KEY_'):], k.mask and k.mask[len('KEY_'):])
        + MODEL_MEMBER.get(k.member, (k.member, 0)) + (k.width, k.need)
        for k in flower_keys.TABLE_ROWS]
KEY_BY_VAL = {k[0]: k for k in KEYS}
OTHER_LEN = {'CLASSID': 4, 'INDEV': VAR, 'ACT': VAR, 'FLAGS': 4,
             'ETH_TYPE': 2, 'VLAN_ID': 2, 'VLAN_PRIO': 1,
             'VLAN_ETH_TYPE': 2}
ATTR_LEN = {}
for _v, _m, _mem, _off, _ln, _need in KEYS:
    ATTR_LEN[A['KEY_' + _v]] = _ln
    if _m:
        ATTR_LEN[A['KEY_' + _m]] = _ln
for _n, _ln in OTHER_LEN.items():
    ATTR_LEN[A[_n] if _n in A else A['KEY_' + _n]] = _ln
# parsed by their own functions (fl_set_key_ip_flags(), fl_set_key_vlans(),
# fl_set_key_pppoe(), fl_set_key_mpls()): fl_policy's NLA_U8/U16/U32
for _n in ('KEY_FLAGS', 'KEY_FLAGS_MASK', 'KEY_CVLAN_ID', 'KEY_CVLAN_PRIO',
           'KEY_CVLAN_ETH_TYPE', 'KEY_PPP_PROTO', 'KEY_MPLS_TTL',
           'KEY_MPLS_BOS', 'KEY_MPLS_TC', 'KEY_MPLS_LABEL'):
    ATTR_LEN[A[_n]] = uapi.BY_NAME[_n].length
# fl_policy's NLA_NESTED attributes: empty, or at least one attribute
# header (else ERANGE); their contents are the classifier's business
NESTED = {A['ACT'], A['KEY_ENC_OPTS'], A['KEY_ENC_OPTS_MASK'],
          A['KEY_MPLS_OPTS']}
# NLA_BINARY with a maximum (FL_MAX_LEN): ct_label and its mask, up to 16
MAX_LEN = {A['KEY_CT_LABELS']: 16, A['KEY_CT_LABELS_MASK']: 16}
for _t in NESTED | set(MAX_LEN):
    ATTR_LEN[_t] = VAR
# The netlink policy's length errors: byte strings have a length range
# (FL_EXACT_LEN: MAC and IPv6 addresses, the tunnel's ones included)
BINARY_LENGTHS = (6, 16)

T_CLASSID, T_INDEV, T_ACT, T_FLAGS = (A['CLASSID'], A['INDEV'], A['ACT'],
                                      A['FLAGS'])
T_IN_HW_COUNT = A['IN_HW_COUNT']          # dumped; ignored in a request
T_ETH_TYPE, T_VLAN_ID = A['KEY_ETH_TYPE'], A['KEY_VLAN_ID']
T_VLAN_PRIO, T_VLAN_ETH_TYPE = A['KEY_VLAN_PRIO'], A['KEY_VLAN_ETH_TYPE']
T_ENC_OPTS, T_ENC_OPTS_MASK = A['KEY_ENC_OPTS'], A['KEY_ENC_OPTS_MASK']
T_CT_STATE = A['KEY_CT_STATE']
T_CVLAN_ID, T_CVLAN_PRIO = A['KEY_CVLAN_ID'], A['KEY_CVLAN_PRIO']
T_CVLAN_ETH_TYPE, T_NUM_OF_VLANS = (A['KEY_CVLAN_ETH_TYPE'],
                                    A['KEY_NUM_OF_VLANS'])
T_PPP_PROTO, T_PPPOE_SID = A['KEY_PPP_PROTO'], A['KEY_PPPOE_SID']
T_IP_FLAGS, T_IP_FLAGS_MASK = A['KEY_FLAGS'], A['KEY_FLAGS_MASK']
T_MPLS_OPTS = A['KEY_MPLS_OPTS']
# fl_set_key_eth_type(): the attributes each need a tag, or PPPoE, for
VLAN_ATTRS = (T_VLAN_ID, T_VLAN_PRIO, T_VLAN_ETH_TYPE)
CVLAN_ATTRS = (T_CVLAN_ID, T_CVLAN_PRIO, T_CVLAN_ETH_TYPE)
PPP_ATTRS = (T_PPP_PROTO,)

# ip_flags: the bits fl_set_key_ip_flags() knows (frag, firstfrag)
IP_FLAGS_KNOWN = sum(uapi.KEY_FLAGS_BITS.values())

# MPLS: the first entry's own attributes (fl_set_key_mpls()), in the order
# of fl_dump_key_lse()'s types[] (ttl, bos, tc, label), and the nested
# options' LSE and its attributes
MPLS_FIELDS = ('TTL', 'BOS', 'TC', 'LABEL')
T_MPLS = [A['KEY_MPLS_' + n] for n in MPLS_FIELDS]
MPLS_LSE = uapi.NESTED['KEY_MPLS_OPTS']['LSE']
LSE_ATTR = uapi.NESTED['KEY_MPLS_OPT_LSE']     # name -> number
LSE_MAX = max(LSE_ATTR.values())
# include/linux/mpls.h MPLS_{TTL,BOS,TC,LABEL}_MASK: (offset in the entry,
# length, mask)
LSE_FIELD = {'TTL': (0, 1, 0xFF), 'BOS': (1, 1, 0x1), 'TC': (2, 1, 0x7),
             'LABEL': (3, 4, 0xFFFFF)}
MPLS_RANGE_MSG = {
    'BOS': 'Bottom Of Stack (BOS) must be 0 or 1',
    'TC': 'Traffic Class (TC) must be between 0 and 7',
    'LABEL': 'Label must be between 0 and 1048575'}

# fl_check_port_range() (stock's messages, upstream's "Ensure both
# minimum and maximum ports are specified"): both kernels refuse these
PORT_RANGE_BOTH_MSG = {
    'dst': 'Both min and max destination ports must be specified',
    'src': 'Both min and max source ports must be specified'}
PORT_RANGE_ORDER_MSG = {
    'dst': 'Invalid destination port range (min must be strictly smaller '
           'than max)',
    'src': 'Invalid source port range (min must be strictly smaller than '
           'max)'}

# fl_set_key_pppoe(): the PPP protocols whose ethertype it sets as
# basic.n_proto (PPP_IP, PPP_IPV6, PPP_MPLS_UC, PPP_MPLS_MC)
PPP_CARRIED = uapi.PPP_CARRIED
ETH_P_PPP_SES, ETH_P_ALL = uapi.ETH_P_PPP_SES, uapi.ETH_P_ALL
IPPROTO_L2TP = uapi.IP_PROTO['l2tp']

# fl_set_key_enc_control(): keys that fix the tunnel's family, and those
# that only ask for tunnel metadata (key id, ports, tos/ttl, options); a
# mask without its key is ignored, as on stock
ENC_V4 = [A['KEY_ENC_IPV4_' + n] for n in ('SRC', 'DST')]
ENC_V6 = [A['KEY_ENC_IPV6_' + n] for n in ('SRC', 'DST')]
ENC_ANY = [A['KEY_ENC_' + n] for n in (
    'KEY_ID', 'UDP_SRC_PORT', 'UDP_DST_PORT', 'IP_TOS', 'IP_TTL', 'OPTS')]
# enc_control.addr_type: FLOW_DISSECTOR_KEY_IPV4_ADDRS (2) or _IPV6_ADDRS
# (3) under an all-ones mask; FL_TUNNEL_ANY (2 & 3 = 2) under mask 2 for
# "came through a tunnel", whatever the family
ENC_ADDR_V4, ENC_ADDR_V6, FL_TUNNEL_ANY = 2, 3, 2 & 3

# Geneve options (TCA_FLOWER_KEY_ENC_OPTS_GENEVE = 1, with CLASS 1 (be16),
# TYPE 2 (u8), DATA 3 (binary, policy at most 128 bytes)); the key's
# options are at most IP_TUNNEL_OPTS_MAX = 255 bytes
GENEVE = uapi.NESTED['KEY_ENC_OPTS']['GENEVE']
G_CLASS, G_TYPE, G_DATA = (uapi.NESTED['KEY_ENC_OPT_GENEVE'][n]
                           for n in ('CLASS', 'TYPE', 'DATA'))
ENC_OPTS_MAX = 255
TUNNEL_GENEVE_OPT = b'\x08\x00'                   # __be16 0x0800
TUNNEL_OPTIONS_PRESENT = b'\xd8\x00'              # GENEVE|VXLAN|ERSPAN|GTP
NLA_F_NESTED = 0x8000


class TunOptKind:
    """cls_flower.c's fl_tun_opt_kinds[]: a tunnel option kind besides
    Geneve's, one option per filter of a fixed size (its struct in
    enc_opts.data), its fields (name -> (attribute type, length)) and its
    TUNNEL_*_OPT flag (the key's and the mask's dst_opt_type)."""

    def __init__(self, name, attr, flag, size, fields):
        self.name, self.attr, self.flag, self.size = name, attr, flag, size
        self.fields = fields
        self.maxtype = max(t for t, _ln in fields.values())
        self.dup_msg = 'Duplicate type for %s options' % name
        self.mask_msg = 'Non-%s option type for mask' % name


# TCA_FLOWER_KEY_ENC_OPT_{VXLAN,ERSPAN,GTP}_* of 6.1's pkt_cls.h; the
# structs: vxlan_metadata { u32 gbp; }, erspan_metadata { int version;
# union { __be32 index; struct erspan_md2 md2; } } (12 bytes; md2's dir
# and hwid are bit fields of its bytes 6 and 7), gtp_pdu_session_info
# { u8 pdu_type; u8 qfi; }
_OPTS = uapi.NESTED['KEY_ENC_OPTS']
VXLAN = TunOptKind('vxlan', _OPTS['VXLAN'], b'\x10\x00', 4,
                   {'GBP': (1, 4)})
ERSPAN = TunOptKind('erspan', _OPTS['ERSPAN'], b'\x40\x00', 12,
                    {'VER': (1, 1), 'INDEX': (2, 4), 'DIR': (3, 1),
                     'HWID': (4, 1)})
GTP = TunOptKind('gtp', _OPTS['GTP'], b'\x80\x00', 2,
                 {'PDU_TYPE': (1, 1), 'QFI': (2, 1)})
TUN_OPT_KINDS = {k.attr: k for k in (VXLAN, ERSPAN, GTP)}
TUN_OPT_BY_FLAG = {k.flag: k for k in (VXLAN, ERSPAN, GTP)}
# include/net/vxlan.h: DONT_LEARN | POLICY_APPLIED | the group id
VXLAN_GBP_MASK = (1 << 22) | (1 << 19) | 0xFFFF

# ct_state flags (TCA_FLOWER_KEY_CT_FLAGS_*)
CT_NEW, CT_EST, CT_REL, CT_TRK, CT_INV, CT_RPL = 1, 2, 4, 8, 16, 32
CT_FLAGS = 0x3F

NEED_MSG = needs.MESSAGES
ETH_P = uapi.ETH_P
VLAN_TPIDS = uapi.VLAN_TPIDS
INT_MAX = 0x7FFFFFFF
TC_ACT_EXT_VAL_MASK = 0x0FFFFFFF
NOT_IN_HW = 8

# Errors an answer may carry that are not the model's business: the request
# could not be processed for lack of memory (never expected here: no fault
# injection in this program).


# Err's msg when the model does not predict the extack text (garbage in
# TCA_FLOWER_ACT: which of act_api's checks refuses it first)
ANY = type('AnyMessage', (), {'__repr__': lambda self: 'ANY'})()


class Err(Exception):
    """A predicted refusal: errno (or a set of them) and the extack text,
    compared exactly: None when the kernel gives none, ANY when the model
    does not predict it."""

    def __init__(self, code, msg=None):
        super().__init__(code, msg)
        self.codes = set(code) if isinstance(code, (set, tuple, list)) \
            else {code}
        self.msg = msg


def u16le(b):
    return struct.unpack('<H', b)[0]


def u32le(b):
    return struct.unpack('<I', b)[0]


def be16(b):
    return struct.unpack('>H', b)[0]


# ours' refusal of a masked key that its mask's table already holds
EEXIST_MSG = 'A filter with the same key exists in this flower instance'
