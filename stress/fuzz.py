#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""stress/fuzz.py - seeded netlink fuzzer for the flower classifier.

Runs in the test guest (guest/run ... -- /usr/bin/python3 -m stress.fuzz).
Sends raw RTM_NEWTFILTER / RTM_DELTFILTER / RTM_GETTFILTER requests to an
ingress qdisc on a dummy device: valid adds, replaces, changes, deletes
and gets mixed with broken ones (wrong attribute lengths, masks without
their keys, unknown and unsupported attribute types, nested garbage in
TCA_FLOWER_ACT, malformed attribute streams, huge and zero handles,
conflicting protocols, random and automatic prios, bad flags, bad
devices, wrong parents, chains, kinds...), with tunnel (enc_*, Geneve
options), conntrack (ct_*), ip_flags, QinQ (cvlan_*, num_of_vlans), PPPoE,
MPLS (flat and nested options) and L2TPv3 keys among the others, valid
and not.

A model of the tc core (tc_new_tfilter & co. in net/sched/cls_api.c) and
of this classifier (several masks per prio, kept in the order they were
first added, a mask going with its last filter; the masked key unique
within its mask; handle IDR) predicts the answer to every request: the
errno (0 = accepted) and the extack message, compared exactly (a message
the model does not predict is said so, Err(code, ANY)).  Every request
must be answered within --reply-timeout; a different answer is a
failure.  Every
--check-every requests and at the end the dumped filter set (chains,
prios, protocols, handles, byte-exact keys and masks, flags, classid,
actions) is compared with the model.

Reproducible: the same --seed and --count give the same messages (the
kernel's answers to them are deterministic too).  --time-limit stops
early (the run is then a prefix of the full one).

Output: counts (messages, accepted, refused by errno, lost/timeouts) and
a last line "N passed, N failed" (one check per message, one per dump
comparison; a dumped filter that the model cannot rebuild when it
resynchronises after a difference is a failure too).  Exit status 0 when
nothing failed.
"""

import argparse
import collections
import errno
import json
import random
import struct
import subprocess
import sys
import time

sys.dont_write_bytecode = True
from stress.nlsock import (NLM_F_ACK, NLM_F_CREATE, NLM_F_EXCL,
                           NLM_F_REPLACE, NLM_F_REQUEST, RTM_DELTFILTER,
                           RTM_GETTFILTER, RTM_NEWTFILTER, TC_H_INGRESS,
                           NLSock, Timeout, decode_filter, encode, flowernl,
                           walk_attrs)
from tdc import flower_attrs

# --- the classifier's attribute table (mirrors cls_flower.c) ---------------
A = {a.name: a.number for a in flower_attrs.TABLE}
FLOWER_MAX = flower_attrs.MAX                     # 105 on 6.1
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

# fl_keys[] in its order: (value attr, mask attr or None, member, offset
# in member, length, need)
KEYS = [
    ('IP_PROTO', None, 'ip_proto', 0, 1, 'IP'),
    ('ETH_DST', 'ETH_DST_MASK', 'eth.dst', 0, 6, 'NONE'),
    ('ETH_SRC', 'ETH_SRC_MASK', 'eth.src', 0, 6, 'NONE'),
    # exact, any value; a count > 0 also makes eth_type a tag (fl_is_tag)
    ('NUM_OF_VLANS', None, 'num_of_vlans', 0, 1, 'NONE'),
    ('PPPOE_SID', None, 'pppoe.sid', 0, 2, 'PPPOE'),
    ('IPV4_SRC', 'IPV4_SRC_MASK', 'l3', 0, 4, 'IPV4'),
    ('IPV4_DST', 'IPV4_DST_MASK', 'l3', 4, 4, 'IPV4'),
    ('IPV6_SRC', 'IPV6_SRC_MASK', 'l3', 0, 16, 'IPV6'),
    ('IPV6_DST', 'IPV6_DST_MASK', 'l3', 16, 16, 'IPV6'),
    ('IP_TOS', 'IP_TOS_MASK', 'ip.tos', 0, 1, 'IP'),
    ('IP_TTL', 'IP_TTL_MASK', 'ip.ttl', 0, 1, 'IP'),
    ('TCP_SRC', 'TCP_SRC_MASK', 'tp.src', 0, 2, 'TCP'),
    ('TCP_DST', 'TCP_DST_MASK', 'tp.dst', 0, 2, 'TCP'),
    ('UDP_SRC', 'UDP_SRC_MASK', 'tp.src', 0, 2, 'UDP'),
    ('UDP_DST', 'UDP_DST_MASK', 'tp.dst', 0, 2, 'UDP'),
    ('SCTP_SRC', 'SCTP_SRC_MASK', 'tp.src', 0, 2, 'SCTP'),
    ('SCTP_DST', 'SCTP_DST_MASK', 'tp.dst', 0, 2, 'SCTP'),
    ('TCP_FLAGS', 'TCP_FLAGS_MASK', 'tcp.flags', 0, 2, 'TCP'),
    ('ICMPV4_TYPE', 'ICMPV4_TYPE_MASK', 'icmp.type', 0, 1, 'ICMPV4'),
    ('ICMPV4_CODE', 'ICMPV4_CODE_MASK', 'icmp.code', 0, 1, 'ICMPV4'),
    ('ICMPV6_TYPE', 'ICMPV6_TYPE_MASK', 'icmp.type', 0, 1, 'ICMPV6'),
    ('ICMPV6_CODE', 'ICMPV6_CODE_MASK', 'icmp.code', 0, 1, 'ICMPV6'),
    ('ARP_OP', 'ARP_OP_MASK', 'arp.op', 0, 1, 'ARP'),
    ('ARP_SIP', 'ARP_SIP_MASK', 'arp.sip', 0, 4, 'ARP'),
    ('ARP_TIP', 'ARP_TIP_MASK', 'arp.tip', 0, 4, 'ARP'),
    ('ARP_SHA', 'ARP_SHA_MASK', 'arp.sha', 0, 6, 'ARP'),
    ('ARP_THA', 'ARP_THA_MASK', 'arp.tha', 0, 6, 'ARP'),
    ('L2TPV3_SID', None, 'l2tpv3.sid', 0, 4, 'L2TP'),
    ('ENC_KEY_ID', None, 'enc_keyid', 0, 4, 'NONE'),
    ('ENC_IPV4_SRC', 'ENC_IPV4_SRC_MASK', 'enc_l3', 0, 4, 'ENC_IPV4'),
    ('ENC_IPV4_DST', 'ENC_IPV4_DST_MASK', 'enc_l3', 4, 4, 'ENC_IPV4'),
    ('ENC_IPV6_SRC', 'ENC_IPV6_SRC_MASK', 'enc_l3', 0, 16, 'ENC_IPV6'),
    ('ENC_IPV6_DST', 'ENC_IPV6_DST_MASK', 'enc_l3', 16, 16, 'ENC_IPV6'),
    ('ENC_UDP_SRC_PORT', 'ENC_UDP_SRC_PORT_MASK', 'enc_tp.src', 0, 2, 'NONE'),
    ('ENC_UDP_DST_PORT', 'ENC_UDP_DST_PORT_MASK', 'enc_tp.dst', 0, 2, 'NONE'),
    ('ENC_IP_TOS', 'ENC_IP_TOS_MASK', 'enc_ip.tos', 0, 1, 'NONE'),
    ('ENC_IP_TTL', 'ENC_IP_TTL_MASK', 'enc_ip.ttl', 0, 1, 'NONE'),
    # host order, as the attributes (fl_policy: NLA_U16/U32)
    ('CT_STATE', 'CT_STATE_MASK', 'ct.state', 0, 2, 'NONE'),
    ('CT_ZONE', 'CT_ZONE_MASK', 'ct.zone', 0, 2, 'NONE'),
    ('CT_MARK', 'CT_MARK_MASK', 'ct.mark', 0, 4, 'NONE'),
    # at most 16 bytes: a short label (and mask) is zero-padded
    ('CT_LABELS', 'CT_LABELS_MASK', 'ct.labels', 0, 16, 'NONE'),
]
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
    ATTR_LEN[A[_n]] = flower_attrs.BY_NAME[_n].length
# fl_policy's NLA_NESTED attributes: empty, or at least one attribute
# header (else ERANGE); their contents are the classifier's business
NESTED = {A['ACT'], A['KEY_ENC_OPTS'], A['KEY_ENC_OPTS_MASK'],
          A['KEY_MPLS_OPTS']}
# NLA_BINARY with a maximum (FL_MAX_LEN): ct_label and its mask, up to 16
MAX_LEN = {A['KEY_CT_LABELS']: 16, A['KEY_CT_LABELS_MASK']: 16}
for _t in NESTED | set(MAX_LEN):
    ATTR_LEN[_t] = VAR
# cls_flower's fl_unsupported_msg[]: refused by name
UNSUPPORTED = [A[n] for n in A if n.startswith(
    ('KEY_HASH', 'KEY_PORT_', 'IN_HW_COUNT'))]
# The netlink policy's length errors: byte strings have a length range
# (FL_EXACT_LEN: MAC and IPv6 addresses, the tunnel's ones included)
BINARY_LENGTHS = (6, 16)

T_CLASSID, T_INDEV, T_ACT, T_FLAGS = (A['CLASSID'], A['INDEV'], A['ACT'],
                                      A['FLAGS'])
T_IN_HW_COUNT = A['IN_HW_COUNT']          # dumped (0), refused in a request
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
IP_FLAGS_KNOWN = sum(flower_attrs.KEY_FLAGS_BITS.values())

# MPLS: the first entry's own attributes (fl_set_key_mpls()), in the order
# of fl_dump_key_lse()'s types[] (ttl, bos, tc, label), and the nested
# options' LSE and its attributes
MPLS_FIELDS = ('TTL', 'BOS', 'TC', 'LABEL')
T_MPLS = [A['KEY_MPLS_' + n] for n in MPLS_FIELDS]
MPLS_LSE = flower_attrs.NESTED['KEY_MPLS_OPTS']['LSE']
LSE_ATTR = flower_attrs.NESTED['KEY_MPLS_OPT_LSE']     # name -> number
LSE_MAX = max(LSE_ATTR.values())
# include/linux/mpls.h MPLS_{TTL,BOS,TC,LABEL}_MASK: (offset in the entry,
# length, mask)
LSE_FIELD = {'TTL': (0, 1, 0xFF), 'BOS': (1, 1, 0x1), 'TC': (2, 1, 0x7),
             'LABEL': (3, 4, 0xFFFFF)}
MPLS_RANGE_MSG = {
    'BOS': 'Bottom Of Stack (BOS) must be 0 or 1',
    'TC': 'Traffic Class (TC) must be between 0 and 7',
    'LABEL': 'Label must be between 0 and 1048575'}

# fl_set_key_pppoe(): the PPP protocols whose ethertype it sets as
# basic.n_proto (PPP_IP, PPP_IPV6, PPP_MPLS_UC, PPP_MPLS_MC)
PPP_CARRIED = {0x21: 0x0800, 0x57: 0x86DD, 0x281: 0x8847, 0x283: 0x8848}
ETH_P_PPP_SES, ETH_P_ALL = 0x8864, 0x0003
IPPROTO_L2TP = 115

# fl_set_key_enc_control(): attributes that fix the tunnel's family, and
# those that only ask for tunnel metadata (key id, ports, tos/ttl, options)
ENC_V4 = [A['KEY_ENC_IPV4_' + n] for n in ('SRC', 'SRC_MASK', 'DST',
                                            'DST_MASK')]
ENC_V6 = [A['KEY_ENC_IPV6_' + n] for n in ('SRC', 'SRC_MASK', 'DST',
                                            'DST_MASK')]
ENC_ANY = [A['KEY_ENC_' + n] for n in (
    'KEY_ID', 'UDP_SRC_PORT', 'UDP_SRC_PORT_MASK', 'UDP_DST_PORT',
    'UDP_DST_PORT_MASK', 'IP_TOS', 'IP_TOS_MASK', 'IP_TTL', 'IP_TTL_MASK',
    'OPTS', 'OPTS_MASK')]
# enc_control.addr_type: FLOW_DISSECTOR_KEY_IPV4_ADDRS (2) or _IPV6_ADDRS
# (3) under an all-ones mask; FL_TUNNEL_ANY (2 & 3 = 2) under mask 2 for
# "came through a tunnel", whatever the family
ENC_ADDR_V4, ENC_ADDR_V6, FL_TUNNEL_ANY = 2, 3, 2 & 3

# Geneve options (TCA_FLOWER_KEY_ENC_OPTS_GENEVE = 1, with CLASS 1 (be16),
# TYPE 2 (u8), DATA 3 (binary, policy at most 128 bytes)); the key's
# options are at most IP_TUNNEL_OPTS_MAX = 255 bytes
GENEVE = flower_attrs.NESTED['KEY_ENC_OPTS']['GENEVE']
G_CLASS, G_TYPE, G_DATA = (flower_attrs.NESTED['KEY_ENC_OPT_GENEVE'][n]
                           for n in ('CLASS', 'TYPE', 'DATA'))
ENC_OPTS_MAX = 255
TUNNEL_GENEVE_OPT = b'\x08\x00'                   # __be16 0x0800
TUNNEL_OPTIONS_PRESENT = b'\xd8\x00'              # GENEVE|VXLAN|ERSPAN|GTP
NLA_F_NESTED = 0x8000

# ct_state flags (TCA_FLOWER_KEY_CT_FLAGS_*)
CT_NEW, CT_EST, CT_REL, CT_TRK, CT_INV, CT_RPL = 1, 2, 4, 8, 16, 32
CT_FLAGS = 0x3F

NEED_MSG = {
    'IP': 'Key requires protocol ip or ipv6',
    'IPV4': 'Key requires protocol ip',
    'IPV6': 'Key requires protocol ipv6',
    'TCP': 'Key requires ip_proto tcp',
    'UDP': 'Key requires ip_proto udp',
    'SCTP': 'Key requires ip_proto sctp',
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

ETH_P = {'ip': 0x0800, 'ipv6': 0x86DD, 'arp': 0x0806, 'rarp': 0x8035,
         '8021q': 0x8100, '8021ad': 0x88A8, 'all': 0x0003,
         'lldp': 0x88CC, 'mpls': 0x8847, 'mpls_mc': 0x8848,
         'ppp_ses': 0x8864}
VLAN_TPIDS = (0x8100, 0x88A8)
INT_MAX = 0x7FFFFFFF
TC_ACT_EXT_VAL_MASK = 0x0FFFFFFF
NOT_IN_HW = 8
SHARED_ACT = {0x7FFFFF01: 2, 0x7FFFFF02: 0, 0x7FFFFF03: 2, 0x7FFFFF04: 8}
VALID_VERDICTS = (0, 1, 2, 3, 4, 5, 6, 7, 8, -1)

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


# --- model filters --------------------------------------------------------
def new_key():
    return {m: bytearray(n) for m, n in MEMBERS.items()}


def canon(d):
    """A key/mask dict without all-zero members, as a hashable tuple."""
    return tuple((m, bytes(v)) for m, v in d.items() if any(v))


def masked(key, mask):
    return tuple((m, bytes(a & b for a, b in zip(key[m], v)))
                 for m, v in mask.items() if any(v))


def tagged(key, mask, depth):
    """Whether the filter has the outer (depth 0) or inner (1) tag: a
    TPID, or num_of_vlans > depth (stock's rule: num_of_vlans makes the
    tag's keys apply, even with no TPID to match, e.g. protocol all
    "num_of_vlans 1 vlan_prio 5")."""
    return any(mask['cvlan_tpid' if depth else 'vlan_tpid']) or \
        (key['num_of_vlans'][0] & mask['num_of_vlans'][0]) > depth


def proto_is(key, mask, p):
    return bytes(mask['n_proto']) == b'\xff\xff' and \
        be16(bytes(key['n_proto'])) == p


def ip_proto_is(key, mask, p):
    return mask['ip_proto'][0] == 0xFF and key['ip_proto'][0] == p


def need_met(key, mask, need):
    if need == 'NONE':
        return True
    if need == 'IP':
        return proto_is(key, mask, 0x0800) or proto_is(key, mask, 0x86DD)
    if need == 'IPV4':
        return proto_is(key, mask, 0x0800)
    if need == 'IPV6':
        return proto_is(key, mask, 0x86DD)
    if need == 'TCP':
        return ip_proto_is(key, mask, 6)
    if need == 'UDP':
        return ip_proto_is(key, mask, 17)
    if need == 'SCTP':
        return ip_proto_is(key, mask, 132)
    if need == 'ICMPV4':
        return proto_is(key, mask, 0x0800) and ip_proto_is(key, mask, 1)
    if need == 'ICMPV6':
        return proto_is(key, mask, 0x86DD) and ip_proto_is(key, mask, 58)
    if need == 'ARP':
        return proto_is(key, mask, 0x0806) or proto_is(key, mask, 0x8035)
    if need == 'VLAN':
        return tagged(key, mask, 0)
    if need == 'CVLAN':
        return tagged(key, mask, 1)
    if need == 'MPLS':
        return proto_is(key, mask, 0x8847) or proto_is(key, mask, 0x8848)
    if need == 'PPPOE':
        return any(mask['pppoe.type'])
    if need == 'L2TP':
        return ip_proto_is(key, mask, IPPROTO_L2TP)
    if need in ('ENC_IPV4', 'ENC_IPV6'):
        # fl_tunnel_is(): the family under an all-ones mask
        return bytes(mask['enc_addr_type']) == b'\xff\xff' and \
            u16le(bytes(key['enc_addr_type'])) == (
                ENC_ADDR_V4 if need == 'ENC_IPV4' else ENC_ADDR_V6)
    raise ValueError(need)


def nla_parse_strict(payload, max_type, policy):
    """__nla_parse() with FL_NLA_VALIDATE (strict) -> {type: value}: attribute
    by attribute, an unknown type, then policy(type, value) raises; the
    last duplicate wins; trailing bytes are refused after them all."""
    sub, srem = walk_attrs(payload)
    tb = {}
    for st, sv in sub:
        typ = st & TYPE_MASK
        if typ == 0 or typ > max_type:
            raise Err(errno.EINVAL, 'Unknown attribute type')
        policy(typ, sv)
        tb[typ] = sv
    if srem > 0:
        raise Err(errno.EINVAL, 'bytes leftover after parsing attributes')
    return tb


def geneve_opt_policy(typ, value):
    """fl_geneve_opt_policy: class be16, type u8, data at most 128 bytes."""
    if (typ == G_CLASS and len(value) != 2) or \
            (typ == G_TYPE and len(value) != 1):
        raise Err(errno.EINVAL, 'invalid attribute length')
    if typ == G_DATA and len(value) > 128:
        raise Err(errno.ERANGE, 'Attribute failed policy validation')


def mpls_lse_policy(typ, value):
    """fl_mpls_lse_policy: depth, ttl, bos, tc u8; label u32."""
    if len(value) != (4 if typ == LSE_ATTR['LABEL'] else 1):
        raise Err(errno.EINVAL, 'invalid attribute length')


def geneve_opts(data):
    """fl_set_enc_opts(): a TCA_FLOWER_KEY_ENC_OPTS(_MASK) payload ->
    (the options as on the wire, 255 bytes, zero after the last; their
    length), or raises Err.  Each option is parsed (strict policy) and
    appended before the next is looked at."""
    opts, n = bytearray(ENC_OPTS_MAX), 0
    items, rem = walk_attrs(data)
    for t, payload in items:
        if t & TYPE_MASK != GENEVE:
            raise Err(errno.EOPNOTSUPP,
                      'Only Geneve tunnel options are supported')
        tb = nla_parse_strict(payload, G_DATA, geneve_opt_policy)
        if len(tb) != 3:
            raise Err(errno.EINVAL, 'Geneve option needs class, type and '
                                    'data')
        dl = len(tb[G_DATA])
        if dl < 4 or dl > 124 or dl % 4:
            raise Err(errno.EINVAL, 'Geneve option data must be 4 to 124 '
                                    'bytes, a multiple of 4')
        if n + 4 + dl > ENC_OPTS_MAX:
            raise Err(errno.EINVAL, 'Geneve options longer than 255 bytes')
        opts[n:n + 4] = tb[G_CLASS] + tb[G_TYPE] + bytes([dl // 4])
        opts[n + 4:n + 4 + dl] = tb[G_DATA]
        n += 4 + dl
    if rem or not n:
        raise Err(errno.EINVAL, 'Malformed or empty tunnel options')
    return opts, n


def geneve_offsets(opts, n):
    """[(offset, data length)] of the options laid out in opts[:n]."""
    out, off = [], 0
    while off < n:
        dl = (opts[off + 3] & 0x1F) * 4
        out.append((off, dl))
        off += 4 + dl
    return out


def geneve_dump(opts, key_opts, n):
    """fl_dump_geneve_opts(): the payload of ENC_OPTS (opts = the key's)
    or ENC_OPTS_MASK (opts = the mask's), laid out by the key's lengths:
    one nested GENEVE (NLA_F_NESTED) per option, CLASS, TYPE, DATA."""
    out = b''
    for off, dl in geneve_offsets(key_opts, n):
        out += nla(GENEVE | NLA_F_NESTED,
                   nla(G_CLASS, bytes(opts[off:off + 2])) +
                   nla(G_TYPE, bytes(opts[off + 2:off + 3])) +
                   nla(G_DATA, bytes(opts[off + 4:off + 4 + dl])))
    return out


def is_tag(ethertype, tb, before):
    """fl_is_tag(): a tag is expected where the ethertype is a VLAN
    TPID, or where num_of_vlans asks for more tags than come before
    (whatever the ethertype, none included)."""
    n = tb.get(T_NUM_OF_VLANS)
    return ethertype in VLAN_TPIDS or (n is not None and n[0][0] > before)


def set_lse(fields, depth, key, mask):
    """fl_set_key_lse(): one label stack entry ({name: attribute bytes},
    depth from 1): the range checks (bos, tc, label), then the fields, and
    the entry counts as used even without one."""
    for name in ('BOS', 'TC', 'LABEL'):
        if name in fields:
            off, ln, m = LSE_FIELD[name]
            v = fields[name][0] if ln == 1 else u32le(fields[name])
            if v & ~m:
                raise Err(errno.EINVAL, MPLS_RANGE_MSG[name])
    base = (depth - 1) * LSE_LEN
    for name, data in fields.items():
        off, ln, m = LSE_FIELD[name]
        key['mpls'][base + off:base + off + ln] = data
        mask['mpls'][base + off:base + off + ln] = \
            bytes([m]) if ln == 1 else struct.pack('<I', m)
    key['mpls'][MPLS_USED] |= 1 << (depth - 1)
    mask['mpls'][MPLS_USED] |= 1 << (depth - 1)


def set_mpls_opt(payload, key, mask):
    """fl_set_key_mpls_opt(): one TCA_FLOWER_KEY_MPLS_OPTS_LSE, parsed
    strictly (fl_mpls_lse_policy: depth, ttl, bos, tc u8, label u32;
    attribute by attribute, last duplicate wins; trailing bytes refused
    after them), then its depth."""
    tb = nla_parse_strict(payload, LSE_MAX, mpls_lse_policy)
    depth = tb.get(LSE_ATTR['DEPTH'])
    if depth is None:
        raise Err(errno.EINVAL, 'Missing MPLS option "depth"')
    d = depth[0]
    if not 1 <= d <= MPLS_LSES:
        raise Err(errno.EINVAL, 'MPLS depth must be between 1 and 7')
    if mask['mpls'][MPLS_USED] & (1 << (d - 1)):
        raise Err(errno.EINVAL, 'MPLS depth given more than once')
    set_lse({n: tb[LSE_ATTR[n]] for n in MPLS_FIELDS if LSE_ATTR[n] in tb},
            d, key, mask)


def lse_dump(key, mask, i, types):
    """fl_dump_key_lse(): entry i's fields under a non-zero mask, as
    [(type, bytes)] with types in MPLS_FIELDS order."""
    out, base = [], i * LSE_LEN
    for name, t in zip(MPLS_FIELDS, types):
        off, ln, _m = LSE_FIELD[name]
        if any(mask['mpls'][base + off:base + off + ln]):
            out.append((t, bytes(key['mpls'][base + off:base + off + ln])))
    return out


def mpls_dump(key, mask):
    """fl_dump_key_mpls(): nothing without an entry; the first entry's
    attributes when it is the only one and has a field; else the nested
    options, one LSE (NLA_F_NESTED, nla_nest_start()) per used entry with
    its depth first."""
    used = mask['mpls'][MPLS_USED]
    if not used:
        return []
    if used == 1 and any(mask['mpls'][:LSE_LEN]):
        return lse_dump(key, mask, 0, T_MPLS)
    types = [LSE_ATTR[n] for n in MPLS_FIELDS]
    payload = b''
    for i in range(MPLS_LSES):
        if used & (1 << i):
            payload += nla(MPLS_LSE | NLA_F_NESTED, nla(
                LSE_ATTR['DEPTH'], bytes([i + 1])) + b''.join(
                    nla(t, v) for t, v in lse_dump(key, mask, i, types)))
    return [(T_MPLS_OPTS, payload)]


def eth_type_dump(key, mask):
    """fl_dump_key_eth_type(): [(type, bytes)] of the protocol keys."""
    out = []
    if tagged(key, mask, 0):
        # fl_dump_key_vlans(): the innermost ethertype (none when the
        # filter gives only tags, or PPPoE without a carried protocol),
        # the tags; the outer TPID only as the filter's protocol
        if any(mask['n_proto']):
            out.append((T_ETH_TYPE, bytes(key['n_proto'])))
        for pre, tid, tprio, tet in (
                ('vlan', T_VLAN_ID, T_VLAN_PRIO, T_VLAN_ETH_TYPE),
                ('cvlan', T_CVLAN_ID, T_CVLAN_PRIO, T_CVLAN_ETH_TYPE)):
            if pre == 'cvlan' and not tagged(key, mask, 1):
                break
            if any(mask[pre + '_id']):
                out.append((tid, bytes(key[pre + '_id'])))
            if any(mask[pre + '_prio']):
                out.append((tprio, bytes(key[pre + '_prio'])))
            if any(mask[pre + '_eth_type']):
                out.append((tet, bytes(key[pre + '_eth_type'])))
    elif any(mask['pppoe.type']):
        out.append((T_ETH_TYPE, bytes(key['pppoe.type'])))
    elif any(mask['n_proto']):
        out.append((T_ETH_TYPE, bytes(key['n_proto'])))
    if (tagged(key, mask, 0) or any(mask['pppoe.type'])) and \
            any(mask['pppoe.ppp_proto']):
        # fl_dump_key_ppp()
        out.append((T_PPP_PROTO, bytes(key['pppoe.ppp_proto'])))
    return out


def zero_addrs_dump(key, mask):
    """fl_dump_key_zero_addrs(): an address family under an all-zero
    address mask (the filter asks for the family, no row dumps it) as dst
    0/0; the tunnel's too, for a family (not "any tunnel")."""
    out = []
    for at, l3, v4, v6 in (('addr_type', 'l3', 'IPV4_DST', 'IPV6_DST'),
                           ('enc_addr_type', 'enc_l3', 'ENC_IPV4_DST',
                            'ENC_IPV6_DST')):
        if at == 'addr_type' and not any(mask[at]) or \
                at == 'enc_addr_type' and bytes(mask[at]) != b'\xff\xff':
            continue
        fam4 = u16le(bytes(key[at])) == ENC_ADDR_V4
        n = 8 if fam4 else 32
        if any(mask[l3][:n]):
            continue
        name = v4 if fam4 else v6
        out += [(A['KEY_' + name], bytes(n // 2)),
                (A['KEY_' + name + '_MASK'], bytes(n // 2))]
    return out


def ip_flags_dump(key, mask):
    """fl_dump_key_ip_flags(): key and mask, under a non-zero mask."""
    if not any(mask['ip_flags']):
        return []
    return [(T_IP_FLAGS, bytes(key['ip_flags'])),
            (T_IP_FLAGS_MASK, bytes(mask['ip_flags']))]


def ct_state_error(state):
    """fl_ct_state_error(): the extack for ct_state flags (key & mask)
    that no packet has together, or None."""
    if state & ~CT_FLAGS:
        return 'Unknown ct_state flags'
    if state and not state & CT_TRK:
        return 'ct_state flags other than trk need +trk'
    if state & CT_NEW and state & (CT_EST | CT_RPL):
        return 'ct_state +new excludes +est and +rpl'
    if state & CT_INV and state & ~(CT_TRK | CT_INV):
        return 'ct_state +inv goes with +trk alone'
    return None


class Filter:
    def __init__(self, key, mask, flags, classid, acts):
        self.handle = None
        self.key, self.mask = key, mask
        self.flags, self.classid, self.acts = flags, classid, acts

    def mkey(self, mask=None):
        return masked(self.key, self.mask if mask is None else mask)

    def ident(self):
        """What must be unique in a prio: the mask and the key under it
        (one hash table per mask)."""
        return canon(self.mask), self.mkey()


class Tp:
    """One prio: its filters by handle, and its masks (canon(mask) ->
    mask) in the order they were first added, oldest first: the order in
    which classify tries them.  A mask goes when its last filter goes; a
    mask added again is then the youngest."""

    def __init__(self, chain, prio, proto, recipe):
        self.chain, self.prio, self.proto = chain, prio, proto
        self.masks = collections.OrderedDict()
        self.filters = {}
        self.recipe = recipe
        # the recipes of the prio's filters (the first one's, then the
        # variants with other masks the generator sent into it)
        self.recipes = [recipe] if recipe is not None else []

    def put(self, f):
        """Add filter f at f.handle, or replace the one there: the new
        mask (if new) is appended before the old filter's is released."""
        old = self.filters.get(f.handle)
        self.filters[f.handle] = f
        c = canon(f.mask)
        if c not in self.masks:
            self.masks[c] = f.mask
        if old is not None:
            self.release(old)

    def remove(self, handle):
        self.release(self.filters.pop(handle))

    def release(self, f):
        c = canon(f.mask)
        if not any(canon(g.mask) == c for g in self.filters.values()):
            self.masks.pop(c, None)


def strscpy_len(data):
    n = len(data)
    if n and data[-1] == 0:
        n -= 1
    return n


class Model:
    """What the kernel should hold after every accepted request."""

    def __init__(self, devs):
        self.tps = {}           # (chain, prio) -> Tp
        self.devs = devs        # name -> ifindex (for INDEV)
        self.opaque = 0         # --stock: filters kept as dumped
        self.names = {i: n for n, i in devs.items()}

    def nfilters(self):
        return sum(len(t.filters) for t in self.tps.values())

    def chain_tps(self, chain):
        return sorted((t for t in self.tps.values() if t.chain == chain),
                      key=lambda t: t.prio)

    # -- the classifier: fl_change()'s parsing, as cls_flower.c does it ---
    def fl_parse(self, attrs, tail_bad, proto=0x0003):
        """attrs: [(type with flags, bytes, meta)], meta for ACT: the
        generator's prediction (an Err to raise, or the list of actions).
        Returns a Filter or raises Err."""
        if attrs is None:
            raise Err(errno.EINVAL, 'Missing flower options')
        for t, data, _meta in attrs:
            typ = t & TYPE_MASK
            if typ <= 0 or typ > FLOWER_MAX:
                raise Err(errno.EOPNOTSUPP, 'Unknown flower attribute type')
            if typ in UNSUPPORTED:
                raise Err(errno.EOPNOTSUPP, 'Unsupported flower attribute '
                          'TCA_FLOWER_' + flower_attrs.BY_NUMBER[typ].name)
        # then the policy, attribute by attribute, then trailing bytes
        for t, data, _meta in attrs:
            ln = ATTR_LEN.get(t & TYPE_MASK)
            if t & TYPE_MASK == T_INDEV and not data:   # NLA_STRING: >= 1
                raise Err(errno.ERANGE, 'Attribute failed policy validation')
            # NLA_NESTED: empty, or at least one attribute header
            if t & TYPE_MASK in NESTED and data and len(data) < 4:
                raise Err(errno.ERANGE, 'Attribute failed policy validation')
            # NLA_BINARY with a maximum length
            if len(data or b'') > MAX_LEN.get(t & TYPE_MASK, 1 << 16):
                raise Err(errno.ERANGE, 'Attribute failed policy validation')
            if ln and ln != VAR and len(data) != ln:
                if ln in BINARY_LENGTHS:
                    raise Err(errno.ERANGE,
                              'binary attribute size out of range')
                raise Err(errno.EINVAL, 'invalid attribute length')
        if tail_bad:
            raise Err(errno.EINVAL, 'bytes leftover after parsing '
                                    'attributes')
        tb = {}
        for t, data, meta in attrs:
            tb[t & TYPE_MASK] = (data, meta)

        flags = 0
        if T_FLAGS in tb:
            flags = u32le(tb[T_FLAGS][0])
            ok = not (flags & ~(1 | 2 | 16)) and (flags & 3) != 3
            if not ok:
                raise Err(errno.EINVAL, 'Invalid flower flags')
            if flags & 2:
                raise Err(errno.EINVAL, 'skip_sw needs hardware offload, '
                                        'which this flower classifier does '
                                        'not provide')
        key, mask = new_key(), new_key()

        if T_INDEV in tb:
            data = tb[T_INDEV][0]
            n = strscpy_len(data)
            if n >= 16:
                raise Err(errno.EINVAL, 'Interface name too long')
            name = data[:n].split(b'\0')[0].decode('latin-1')
            if name not in self.devs:
                raise Err(errno.ENODEV, 'Network device not found')
            key['indev'][:] = struct.pack('<i', self.devs[name])
            mask['indev'][:] = b'\xff' * 4

        self.set_eth_type(tb, proto, key, mask)
        self.set_ip_flags(tb, key, mask)
        self.set_mpls(tb, key, mask)
        self.set_enc_control(tb, key, mask)
        self.set_enc_opts(tb, key, mask)

        for v, m, member, off, ln, need in KEYS:
            val = tb.get(A['KEY_' + v])
            msk = tb.get(A['KEY_' + m]) if m else None
            if val is None:
                if msk is not None:
                    raise Err(errno.EINVAL, 'Mask given without its key')
                continue
            if not need_met(key, mask, need):
                raise Err(errno.EINVAL, NEED_MSG[need])
            # nla_memcpy(): a short ct_label (or its mask) is zero-padded
            key[member][off:off + ln] = (val[0] + bytes(ln))[:ln]
            mask[member][off:off + ln] = (msk[0] + bytes(ln))[:ln] \
                if msk else b'\xff' * ln

        if any(A['KEY_%s_%s' % (f, d)] in tb for f in ('IPV4', 'IPV6')
               for d in ('SRC', 'DST')):
            v4 = any(A['KEY_IPV4_' + d] in tb for d in ('SRC', 'DST'))
            key['addr_type'][:] = struct.pack('<H', 2 if v4 else 3)
            mask['addr_type'][:] = b'\xff\xff'
        self.check_tags(tb, key, mask)
        if be16(bytes(mask['tcp.flags'])) & ~0x0fff:
            raise Err(errno.EINVAL, 'TCP flags mask has bits above 0xfff, '
                                    'which no packet sets')
        # fl_check_ct(): every ct key is built in (kernel/flower.config has
        # NF_CONNTRACK, _ZONES, _MARK, _LABELS: no EOPNOTSUPP here); then
        # the flags the filter asks to be set (key & mask) must be possible
        msg = ct_state_error(u16le(bytes(key['ct.state'])) &
                             u16le(bytes(mask['ct.state'])))
        if msg:
            raise Err(errno.EINVAL, msg)

        acts = []
        if T_ACT in tb:
            meta = tb[T_ACT][1]
            if isinstance(meta, Err):
                raise meta
            acts = list(meta)
        classid = u32le(tb[T_CLASSID][0]) if T_CLASSID in tb else 0
        return Filter(key, mask, flags, classid, acts)

    # -- the protocol: fl_set_key_eth_type() and the functions it calls --
    @staticmethod
    def set_eth_type(tb, proto, key, mask):
        """fl_set_key_eth_type(): ETH_TYPE (which must be the filter's
        protocol unless that is all; without it, the filter's protocol)
        is a tag's TPID (a VLAN TPID, or any ethertype when num_of_vlans
        > 0), PPPoE's session ethertype or basic.n_proto; all is none of
        them, but num_of_vlans > 0 still makes a tag (with no TPID to
        match: stock's "num_of_vlans 1 vlan_prio 5" under protocol all).
        Whether the tags' and PPP's attributes found their tag (or PPPoE)
        is check_tags()', after the rows (num_of_vlans is one)."""
        val = tb.get(T_ETH_TYPE)
        et = be16(val[0]) if val else proto
        if val and proto != ETH_P_ALL and et != proto:
            raise Err(errno.EINVAL, "Key eth_type differs from the "
                                    "filter's protocol")
        if is_tag(et, tb, 0):
            Model.set_vlans(tb, None if et == ETH_P_ALL else et, key, mask)
        elif et != ETH_P_ALL:
            Model.set_inner(tb, et, key, mask)

    @staticmethod
    def check_tags(tb, key, mask):
        """fl_check_tags() (after the fl_keys[] rows): the tags' and PPP's
        attributes must have found their tag (or PPPoE); fl_check_need()
        thrice, in this order."""
        for attrs, need in ((VLAN_ATTRS, 'VLAN'), (CVLAN_ATTRS, 'CVLAN'),
                            (PPP_ATTRS, 'PPPOE')):
            if any(t in tb for t in attrs) and \
                    not need_met(key, mask, need):
                raise Err(errno.EINVAL, NEED_MSG[need])

    @staticmethod
    def set_tag(vid, prio, tpid, pre, key, mask):
        """fl_set_key_tag(): one tag (pre 'vlan' or 'cvlan'; tpid None:
        a tag num_of_vlans asks for, with no TPID to match); the range
        checks come before anything is set."""
        if vid is not None:
            v = u16le(vid[0])
            if v > 4095:
                raise Err(errno.EINVAL, 'VLAN id must be below 4096')
            key[pre + '_id'][:] = struct.pack('<H', v)
            mask[pre + '_id'][:] = struct.pack('<H', 0xFFF)
        if prio is not None:
            p = prio[0][0]
            if p > 7:
                raise Err(errno.EINVAL, 'VLAN priority must be below 8')
            key[pre + '_prio'][0] = p
            mask[pre + '_prio'][0] = 7
        if tpid is not None:
            key[pre + '_tpid'][:] = struct.pack('>H', tpid)
            mask[pre + '_tpid'][:] = b'\xff\xff'

    @staticmethod
    def set_vlans(tb, tpid, key, mask):
        """fl_set_key_vlans(): the outer tag; vlan_ethtype is the inner
        tag's TPID when fl_is_tag(.., 1) says so (a VLAN TPID, or
        num_of_vlans > 1), else the innermost ethertype.  Without
        vlan_ethtype, num_of_vlans > 1 still makes the inner tag (no TPID
        to match, as stock's is_vlan_key() with no attribute); else the
        inner tag's keys are not looked at (not even their range)."""
        Model.set_tag(tb.get(T_VLAN_ID), tb.get(T_VLAN_PRIO), tpid, 'vlan',
                      key, mask)
        nxt = tb.get(T_VLAN_ETH_TYPE)
        if nxt is None:
            if not is_tag(None, tb, 1):
                return
            et = None
        else:
            et = be16(nxt[0])
            key['vlan_eth_type'][:] = nxt[0]
            mask['vlan_eth_type'][:] = b'\xff\xff'
            if not is_tag(et, tb, 1):
                Model.set_inner(tb, et, key, mask)
                return
        Model.set_tag(tb.get(T_CVLAN_ID), tb.get(T_CVLAN_PRIO), et, 'cvlan',
                      key, mask)
        inner = tb.get(T_CVLAN_ETH_TYPE)
        if inner is None:
            return
        key['cvlan_eth_type'][:] = inner[0]
        mask['cvlan_eth_type'][:] = b'\xff\xff'
        Model.set_inner(tb, be16(inner[0]), key, mask)

    @staticmethod
    def set_inner(tb, et, key, mask):
        """fl_set_key_inner(): PPPoE session frames, or basic.n_proto."""
        if et != ETH_P_PPP_SES:
            key['n_proto'][:] = struct.pack('>H', et)
            mask['n_proto'][:] = b'\xff\xff'
            return
        # fl_set_key_pppoe(): the session ethertype is pppoe.type; a PPP
        # protocol of ip/ipv6/mpls also sets basic.n_proto (any other
        # value is taken as given, no range)
        key['pppoe.type'][:] = struct.pack('>H', ETH_P_PPP_SES)
        mask['pppoe.type'][:] = b'\xff\xff'
        pp = tb.get(T_PPP_PROTO)
        if pp is None:
            return
        key['pppoe.ppp_proto'][:] = pp[0]
        mask['pppoe.ppp_proto'][:] = b'\xff\xff'
        if be16(pp[0]) in PPP_CARRIED:
            key['n_proto'][:] = struct.pack('>H', PPP_CARRIED[be16(pp[0])])
            mask['n_proto'][:] = b'\xff\xff'

    @staticmethod
    def set_ip_flags(tb, key, mask):
        """fl_set_key_ip_flags(): key and mask (be32) both, known bits
        only; any protocol."""
        val, msk = tb.get(T_IP_FLAGS), tb.get(T_IP_FLAGS_MASK)
        if val is None:
            if msk is not None:
                raise Err(errno.EINVAL, 'Mask given without its key')
            return
        if msk is None:
            raise Err(errno.EINVAL, 'Missing flags mask')
        if (struct.unpack('>I', val[0])[0] |
                struct.unpack('>I', msk[0])[0]) & ~IP_FLAGS_KNOWN:
            raise Err(errno.EOPNOTSUPP, 'Unsupported flower key flags: only '
                                        'frag and firstfrag')
        key['ip_flags'][:] = val[0]
        mask['ip_flags'][:] = msk[0]

    @staticmethod
    def set_mpls(tb, key, mask):
        """fl_set_key_mpls(): the protocol first (for any MPLS attribute,
        options included), then either the first entry's own attributes
        or the nested options, never both (EBADMSG)."""
        first = [t for t in T_MPLS if t in tb]
        opts = tb.get(T_MPLS_OPTS)
        if (first or opts is not None) and not need_met(key, mask, 'MPLS'):
            raise Err(errno.EINVAL, NEED_MSG['MPLS'])
        fields = {n: tb[t][0] for n, t in zip(MPLS_FIELDS, T_MPLS)
                  if t in tb}
        if opts is None:
            if first:
                set_lse(fields, 1, key, mask)
            return
        if first:
            raise Err(errno.EBADMSG, 'MPLS label, Traffic Class, Bottom Of '
                                     'Stack and Time To Live must be '
                                     'encapsulated in the MPLS options '
                                     'attribute')
        items, rem = walk_attrs(opts[0])
        for t, payload in items:
            if t & TYPE_MASK != MPLS_LSE:
                raise Err(errno.EINVAL, 'Only LSE options are allowed in '
                                        'MPLS options')
            set_mpls_opt(payload, key, mask)
        if rem or not mask['mpls'][MPLS_USED]:
            raise Err(errno.EINVAL, 'Malformed or empty MPLS options')

    @staticmethod
    def set_enc_control(tb, key, mask):
        """fl_set_key_enc_control(): the tunnel's family, or just "came
        with tunnel metadata"."""
        v4 = any(t in tb for t in ENC_V4)
        v6 = any(t in tb for t in ENC_V6)
        if v4 and v6:
            raise Err(errno.EINVAL, 'IPv4 and IPv6 tunnel addresses cannot '
                                    'be combined')
        if v4 or v6:
            key['enc_addr_type'][:] = struct.pack(
                '<H', ENC_ADDR_V4 if v4 else ENC_ADDR_V6)
            mask['enc_addr_type'][:] = b'\xff\xff'
        elif any(t in tb for t in ENC_ANY):
            key['enc_addr_type'][:] = struct.pack('<H', FL_TUNNEL_ANY)
            mask['enc_addr_type'][:] = struct.pack('<H', FL_TUNNEL_ANY)

    @staticmethod
    def set_enc_opts(tb, key, mask):
        """fl_set_key_enc_opts(): Geneve options and their mask, which
        must have the options' lengths (the mask's length bits are then
        all ones: lengths count exactly)."""
        val, msk = tb.get(T_ENC_OPTS), tb.get(T_ENC_OPTS_MASK)
        if val is None:
            if msk is not None:
                raise Err(errno.EINVAL, 'Mask given without its key')
            return
        kopts, n = geneve_opts(val[0])
        if msk is not None:
            mopts, mn = geneve_opts(msk[0])
        else:
            # No mask: "every bit counts", as the all-ones mask tc sends
            # (ffff:ff:ff..).  NB the kernel at 1046a8a refuses this unless
            # every option has 124 data bytes: it fills the mask's length
            # bits with ones before comparing them with the key's.
            mopts, mn = bytearray(ENC_OPTS_MAX), n
            for off, dl in geneve_offsets(kopts, n):
                mopts[off:off + 3] = b'\xff\xff\xff'
                mopts[off + 3] = dl // 4
                mopts[off + 4:off + 4 + dl] = b'\xff' * dl
        if mn != n or any(
                kopts[off + 3] & 0x1F != mopts[off + 3] & 0x1F
                for off, _dl in geneve_offsets(kopts, n)):
            raise Err(errno.EINVAL, "Tunnel options mask does not have the "
                                    "options' lengths")
        for off, _dl in geneve_offsets(kopts, n):
            mopts[off + 3] |= 0x1F
        key['enc_opts'][:] = bytes(kopts) + bytes([n]) + TUNNEL_GENEVE_OPT
        mask['enc_opts'][:] = bytes(mopts) + b'\xff' + TUNNEL_OPTIONS_PRESENT

    # -- the tc core: tc_new_tfilter() -----------------------------------
    def predict_new(self, op):
        """Returns (commit function) or raises Err."""
        create = bool(op.flags & NLM_F_CREATE)
        prio, proto, chain = op.prio, op.proto, op.chain or 0
        if prio == 0 and not create:
            raise Err(errno.ENOENT, 'Invalid filter command with priority '
                                    'of zero')
        self.check_qdisc(op)
        if op.kind is not None and len(op.kind) >= 16:
            raise Err(errno.EINVAL, 'Specified TC filter name too long')
        if chain > TC_ACT_EXT_VAL_MASK:
            raise Err(errno.EINVAL, 'Specified chain index exceeds upper '
                                    'limit')
        prio_alloc = prio == 0
        if prio_alloc:
            prio = 0x8000
        tp = self.tps.get((chain, prio))
        if tp and (prio_alloc or (tp.proto != proto and proto)):
            raise Err(errno.EINVAL, 'Filter with specified priority/'
                                    'protocol not found')
        created = False
        if tp is None:
            if op.kind is None or not proto:
                raise Err(errno.EINVAL, 'Filter kind and protocol must be '
                                        'specified')
            if not create:
                raise Err(errno.ENOENT, 'Need both RTM_NEWTFILTER and '
                                        'NLM_F_CREATE to create a new filter')
            if prio_alloc:
                # tcf_auto_prio(tcf_chain_tp_prev()): one below the first
                # prio above 0x8000, else 0xC000
                above = [t.prio for t in self.chain_tps(chain)
                         if t.prio > 0x8000]
                prio = (min(above) - 1) if above else 0xC000
            if op.kind != 'flower':
                raise Err(errno.ENOENT, 'TC classifier not found')
            tp = self.tps.get((chain, prio))
            if tp is not None:
                if tp.proto != proto:
                    raise Err(errno.EINVAL)
            else:
                tp = Tp(chain, prio, proto, op.recipe)
                created = True
        if op.kind is not None and op.kind != 'flower':
            raise Err(errno.EINVAL, 'Specified filter kind does not match '
                                    'existing one')
        fold = tp.filters.get(op.handle) if op.handle else None
        if fold is None and not create:
            raise Err(errno.ENOENT, 'Need both RTM_NEWTFILTER and '
                                    'NLM_F_CREATE to create a new filter')
        if fold is not None and op.flags & NLM_F_EXCL:
            raise Err(errno.EEXIST, 'Filter already exists')

        f = self.fl_parse(op.attrs, op.tail_bad, tp.proto)
        # any mask: a new one joins the prio's list (the youngest); the
        # masked key must be unique within its mask (a replace may keep
        # its own, or move the filter to another mask)
        ident = f.ident()
        if fold is not None:
            handle = fold.handle
            if ident != fold.ident():
                for g in tp.filters.values():
                    if g is not fold and g.ident() == ident:
                        raise Err(errno.EEXIST, EEXIST_MSG)
        else:
            handle = op.handle
            if not handle:
                handle = 1
                while handle in tp.filters:
                    handle += 1
                if handle > INT_MAX:
                    raise Err(errno.ENOSPC, 'No free flower filter handle')
            for g in tp.filters.values():
                if g.ident() == ident:
                    raise Err(errno.EEXIST, EEXIST_MSG)

        def commit():
            if created:
                self.tps[(chain, tp.prio)] = tp
            f.handle = handle
            tp.put(f)
            if op.recipe is not None and op.recipe not in tp.recipes:
                tp.recipes.append(op.recipe)
        commit.tp = tp
        return commit

    def check_qdisc(self, op):
        if op.ifindex not in self.names:
            raise Err(errno.ENODEV)
        if op.parent == 0:
            # the root qdisc of a dummy device (and lo) is noqueue
            raise Err(errno.EINVAL, 'Qdisc not classful')
        if op.parent >> 16 != 0xFFFF or op.ifindex != self.devs['fz0']:
            raise Err(errno.EINVAL, "Parent Qdisc doesn't exists")

    # -- tc_del_tfilter() ------------------------------------------------
    def predict_del(self, op):
        prio, proto, chain = op.prio, op.proto, op.chain or 0
        if prio == 0 and (proto or op.handle or op.kind is not None):
            raise Err(errno.ENOENT, 'Cannot flush filters with protocol, '
                                    'handle or kind set')
        self.check_qdisc(op)
        if op.kind is not None and len(op.kind) >= 16:
            raise Err(errno.EINVAL, 'Specified TC filter name too long')
        if chain > TC_ACT_EXT_VAL_MASK:
            raise Err(errno.EINVAL, 'Specified chain index exceeds upper '
                                    'limit')
        tps = self.chain_tps(chain)
        if prio == 0:
            def flush():
                for t in tps:
                    del self.tps[(chain, t.prio)]
            return flush
        if not tps:
            raise Err(errno.ENOENT, 'Cannot find specified filter chain')
        tp = self.tps.get((chain, prio))
        if tp is None:
            raise Err(errno.ENOENT, 'Filter with specified priority/'
                                    'protocol not found')
        if proto and tp.proto != proto:
            raise Err(errno.EINVAL, 'Filter with specified priority/'
                                    'protocol not found')
        if op.kind is not None and op.kind != 'flower':
            raise Err(errno.EINVAL, 'Specified filter kind does not match '
                                    'existing one')
        if op.handle == 0:
            def drop_tp():
                del self.tps[(chain, prio)]
            return drop_tp
        if op.handle not in tp.filters:
            raise Err(errno.ENOENT, 'Specified filter handle not found')

        def drop():
            tp.remove(op.handle)
            if not tp.filters:
                del self.tps[(chain, prio)]
        drop.tp = tp
        return drop

    # -- tc_get_tfilter() ------------------------------------------------
    def predict_get(self, op):
        prio, proto, chain = op.prio, op.proto, op.chain or 0
        if prio == 0:
            raise Err(errno.ENOENT, 'Invalid filter command with priority '
                                    'of zero')
        self.check_qdisc(op)
        if chain > TC_ACT_EXT_VAL_MASK:
            raise Err(errno.EINVAL, 'Specified chain index exceeds upper '
                                    'limit')
        if not self.chain_tps(chain):
            raise Err(errno.EINVAL, 'Cannot find specified filter chain')
        tp = self.tps.get((chain, prio))
        if tp is None:
            raise Err(errno.ENOENT, 'Filter with specified priority/'
                                    'protocol not found')
        if proto and tp.proto != proto:
            raise Err(errno.EINVAL, 'Filter with specified priority/'
                                    'protocol not found')
        if op.kind is not None and op.kind != 'flower':
            raise Err(errno.EINVAL, 'Specified filter kind does not match '
                                    'existing one')
        f = tp.filters.get(op.handle)
        if f is None:
            raise Err(errno.ENOENT, 'Specified filter handle not found')

        def nothing():
            pass
        nothing.filter = (tp, f)
        return nothing

    # -- what fl_dump() should say ----------------------------------------
    def expected_opts(self, tp, f):
        """[(type, bytes)] of TCA_OPTIONS without TCA_FLOWER_ACT, in the
        order fl_dump() puts them."""
        if isinstance(f, OpaqueFilter):
            return list(f.opts)
        key, mask = f.key, f.mask
        out = []
        if f.classid:
            out.append((T_CLASSID, struct.pack('<I', f.classid)))
        if any(mask['indev']):
            ifi = struct.unpack('<i', bytes(key['indev']))[0]
            if ifi in self.names:
                out.append((T_INDEV, self.names[ifi].encode() + b'\0'))
        out += eth_type_dump(key, mask)
        out += ip_flags_dump(key, mask)
        out += mpls_dump(key, mask)
        if mask['enc_opts'][ENC_OPTS_MAX]:      # mask len: 0xff
            kopts = key['enc_opts'][:ENC_OPTS_MAX]
            n = key['enc_opts'][ENC_OPTS_MAX]
            out.append((T_ENC_OPTS, geneve_dump(kopts, kopts, n)))
            out.append((T_ENC_OPTS_MASK, geneve_dump(
                mask['enc_opts'][:ENC_OPTS_MAX], kopts, n)))
        for v, m, member, off, ln, need in KEYS:
            ms = bytes(mask[member][off:off + ln])
            if not any(ms) or not need_met(key, mask, need):
                continue
            out.append((A['KEY_' + v], bytes(key[member][off:off + ln])))
            if m:
                out.append((A['KEY_' + m], ms))
        out += zero_addrs_dump(key, mask)
        # fl_dump_flags(): not in hardware, in no device
        out.append((T_FLAGS, struct.pack('<I', f.flags | NOT_IN_HW)))
        out.append((T_IN_HW_COUNT, struct.pack('<I', 0)))
        return out


# --- comparing the kernel's filter set with the model ---------------------


class Stock:
    """--stock: a run against the stock module, to see the model agree
    with a flower that has several masks per prio on what both do.  Its
    dumps differ from ours by design (attribute order, keys ours refuses),
    so a dump is compared as a set of attributes, and a dumped filter the
    model cannot rebuild (one ours would refuse) is kept as it is, opaque:
    its handle and its own mask, never matching another filter's key."""
    on = False


class OpaqueFilter:
    """A stock filter the model cannot parse (--stock): its dump as is."""

    def __init__(self, chain, prio, handle, opts, acts):
        marker = {'opaque': bytearray(struct.pack('<IHI', chain, prio,
                                                  handle))}
        self.key, self.mask = marker, marker
        self.handle, self.opts, self.acts = handle, opts, acts
        self.flags, self.classid = 0, 0

    def mkey(self, mask=None):
        return masked(self.key, self.mask)

    def ident(self):
        return canon(self.mask), self.mkey()



def acts_of_json(entry):
    """[(verdict, index)] of a filter_json() entry's actions."""
    out = []
    for act in entry.get('options', {}).get('TCA_FLOWER_ACT', []) or []:
        parms = (act.get('options') or {}).get('parms') or {}
        out.append((act.get('kind'), parms.get('action'), parms.get('index')))
    return out


def expected_acts(f):
    return [('gact', v, idx if idx in SHARED_ACT else None)
            for v, idx in f.acts]


def normalize_acts(acts):
    return [(k, v, i if i in SHARED_ACT else None) for k, v, i in acts]


def compare_filter(model, tp, f, opts, entry):
    """None when the dumped filter is what the model holds, else text."""
    got = [(t & TYPE_MASK, v) for t, v in opts if t & TYPE_MASK != T_ACT]
    want = model.expected_opts(tp, f)
    if Stock.on:
        got, want = sorted(got), sorted(want)
    if got != want:
        return 'options differ: dumped %s, model %s' % (
            fmt_attrs(got), fmt_attrs(want))
    ga, wa = normalize_acts(acts_of_json(entry)), expected_acts(f)
    if ga != wa:
        return 'actions differ: dumped %s, model %s' % (ga, wa)
    return None


def fmt_attrs(attrs):
    return '[' + ', '.join('%s=%s' % (flowernl.NAME_BY_NUMBER.get(
        t, str(t))[len('TCA_FLOWER_'):], v.hex()) for t, v in attrs) + ']'


def compare_dump(model, bodies):
    """List of differences between a dump and the model."""
    problems = []
    seen_tps = set()
    seen = set()
    for body in bodies:
        (ifi, handle, parent, prio, proto), tca, opts, entry = \
            decode_filter(body)
        chain = u32le(tca[11]) if 11 in tca else 0
        kind = tca.get(1, b'').rstrip(b'\0').decode()
        tp = model.tps.get((chain, prio))
        if kind != 'flower':
            problems.append('chain %d prio %d: kind %r' % (chain, prio, kind))
            continue
        if tp is None:
            problems.append('dump has chain %d prio %d (handle %#x) the '
                            'model does not' % (chain, prio, handle))
            continue
        if proto != tp.proto:
            problems.append('chain %d prio %d: protocol %#x, model %#x'
                            % (chain, prio, proto, tp.proto))
        if handle == 0 and opts is None:
            seen_tps.add((chain, prio))
            continue
        f = tp.filters.get(handle)
        if f is None:
            problems.append('dump has chain %d prio %d handle %#x the model '
                            'does not' % (chain, prio, handle))
            continue
        if (chain, prio, handle) in seen:
            problems.append('chain %d prio %d handle %#x dumped twice'
                            % (chain, prio, handle))
        seen.add((chain, prio, handle))
        why = compare_filter(model, tp, f, opts or [], entry)
        if why:
            problems.append('chain %d prio %d handle %#x: %s'
                            % (chain, prio, handle, why))
    for (chain, prio), tp in sorted(model.tps.items()):
        if (chain, prio) not in seen_tps:
            problems.append('model has chain %d prio %d, dump has no '
                            'header for it' % (chain, prio))
        for h in sorted(tp.filters):
            if (chain, prio, h) not in seen:
                problems.append('model has chain %d prio %d handle %#x, '
                                'dump does not' % (chain, prio, h))
    return problems


def has_tag(proto, opts):
    """Whether a dumped filter in a prio of protocol proto was a tagged
    one (fl_set_key_vlans() ran): the protocol is a VLAN TPID, or the dump
    has a tag's attribute, or num_of_vlans > 0 (fl_is_tag(): then the
    TPID may be any ethertype, the filter's protocol)."""
    return proto in VLAN_TPIDS or any(
        t & TYPE_MASK in VLAN_ATTRS + CVLAN_ATTRS or
        (t & TYPE_MASK == T_NUM_OF_VLANS and v[:1] > b'\0')
        for t, v in opts)


def dumped_request(proto, opts):
    """The request attributes [(type, bytes, None)] that would make the
    filter a dump shows, in a prio of protocol proto.  A tagged filter
    dumps its innermost ethertype as ETH_TYPE and the TPID only as the
    filter's protocol: in a prio of protocol other than all the request's
    ETH_TYPE was that protocol (the ambiguity left: ETH_TYPE=TPID alone
    dumps as no ETH_TYPE at all, like a filter without it; taken as given,
    as recipes do).  In a prio of protocol all a tagged filter is taken
    as one without a TPID (num_of_vlans > 0, no ETH_TYPE: the dump's
    ETH_TYPE is the innermost ethertype, which its vlan_ethtype or
    cvlan_ethtype gives again)."""
    attrs = []
    for t, v in opts:
        t &= TYPE_MASK
        if t in (T_ACT, T_IN_HW_COUNT):
            continue
        if t == T_FLAGS:
            v = struct.pack('<I', u32le(v) & ~NOT_IN_HW)
        attrs.append((t, v, None))
    if has_tag(proto, opts):
        attrs = [a for a in attrs if a[0] != T_ETH_TYPE]
        if proto != ETH_P_ALL:
            attrs.insert(0, (T_ETH_TYPE, struct.pack('>H', proto), None))
    return attrs


def resync(model, bodies):
    """Rebuild the model from a dump (after a divergence, so that one
    difference is reported once, not as a cascade).

    A dumped filter that the model holds and that dumps as the model
    says is kept as the model has it (its exact key and mask, which a
    dump does not always show: a member under a zero mask, the TPID of a
    VLAN filter); any other is rebuilt from its dump, parsed as a request
    in its prio, and must dump back the same.  Returns the problems: each
    dumped filter the model cannot rebuild (its parser refuses the dump,
    or the rebuilt filter would dump otherwise).  They are failures,
    never skipped: a filter the kernel holds and the model does not would
    hide what it does to later requests (its key's uniqueness within its
    mask, its handle).  A dump does not show the order of a prio's masks:
    the masks the model had keep their order, new ones follow in handle
    order."""
    old = model.tps
    model.tps = {}
    problems = []
    rest = []
    for body in bodies:
        (ifi, handle, parent, prio, proto), tca, opts, entry = \
            decode_filter(body)
        chain = u32le(tca[11]) if 11 in tca else 0
        otp = old.get((chain, prio))
        if otp is not None and otp.proto != proto:
            otp = None
        tp = model.tps.get((chain, prio))
        if tp is None:
            tp = model.tps[(chain, prio)] = Tp(
                chain, prio, proto, otp.recipe if otp else None)
            if otp is not None:
                tp.recipes = list(otp.recipes)
        if handle == 0 or opts is None:
            continue
        of = otp.filters.get(handle) if otp else None
        if of is not None and compare_filter(model, otp, of, opts,
                                             entry) is None:
            tp.filters[handle] = of         # as the model had it
        else:
            rest.append((tp, handle, opts, entry))
    for tp, handle, opts, entry in rest:
        name = 'chain %d prio %d handle %#x' % (tp.chain, tp.prio, handle)
        attrs = dumped_request(tp.proto, opts)
        f, why = None, None
        if tp.proto == ETH_P_ALL and has_tag(tp.proto, opts) and \
                not Stock.on:
            why = ('a VLAN filter in a prio of protocol %#x: its TPID is not '
                   'in the dump, the model cannot rebuild it: %s' % (
                       tp.proto, fmt_attrs([(t, v) for t, v, _m in attrs])))
        else:
            try:
                f = model.fl_parse(attrs, False, tp.proto)
            except Err as e:
                why = 'the model cannot parse the dumped filter (%s %r): %s' \
                    % ('/'.join(errno.errorcode.get(c, str(c))
                                for c in sorted(e.codes)), e.msg,
                       fmt_attrs([(t, v) for t, v, _m in attrs]))
        if f is not None:
            f.acts = [(v, i) for _k, v, i in acts_of_json(entry)]
            f.handle = handle
            diff = compare_filter(model, tp, f, opts, entry)
            if diff:
                why = 'rebuilt from its dump, the model would dump it ' \
                    'otherwise: %s' % diff
        if why is None:
            tp.filters[handle] = f
        elif Stock.on:
            model.opaque += 1
            tp.filters[handle] = OpaqueFilter(
                tp.chain, tp.prio, handle,
                [(t & TYPE_MASK, v) for t, v in opts
                 if t & TYPE_MASK != T_ACT],
                [(v, i) for _k, v, i in acts_of_json(entry)])
        else:
            problems.append('%s: %s' % (name, why))
    for key, tp in model.tps.items():
        otp = old.get(key)
        order = list(otp.masks) if otp is not None else []
        present = {canon(f.mask): f.mask for _h, f in
                   sorted(tp.filters.items())}
        for c in [c for c in order if c in present] + list(present):
            tp.masks.setdefault(c, present[c])
    return problems


# --- message generation -----------------------------------------------------
class Op:
    def __init__(self, what, **kw):
        self.what = what            # 'new', 'del' or 'get'
        self.flags = 0
        self.ifindex = 0
        self.parent = TC_H_INGRESS
        self.prio = 0
        self.proto = 0
        self.handle = 0
        self.chain = None
        self.kind = 'flower'
        self.attrs = None           # [(type, bytes, meta)] or None
        self.tail = b''
        self.tail_bad = False
        self.recipe = None
        self.label = what
        self.__dict__.update(kw)

    def sanitize(self):
        """Keep the request deterministic: an action created by a filter
        inherits the filter's skip_hw, and a later filter without skip_hw
        may not bind to it ("Mismatch between action and filter offload
        flags") -- until the action is freed, an RCU grace period after
        its last filter went.  So a filter with skip_hw binds no shared
        (explicit index) action."""
        if not self.attrs:
            return
        flags = [d for t, d, _m in self.attrs
                 if t & TYPE_MASK == T_FLAGS and d is not None and
                 len(d) == 4]
        if not flags or not u32le(flags[-1]) & 1:
            return
        for i, (t, d, meta) in enumerate(self.attrs):
            if t == T_ACT and d is None and isinstance(meta, list):
                self.attrs[i] = (t, d, [(v, 0) if idx in SHARED_ACT else
                                        (v, idx) for v, idx in meta])

    def encode(self):
        msg_type = {'new': RTM_NEWTFILTER, 'del': RTM_DELTFILTER,
                    'get': RTM_GETTFILTER}[self.what]
        options, raw = None, set()
        if self.attrs is not None:
            options = []
            for t, data, meta in self.attrs:
                if t == T_ACT and isinstance(meta, list) and \
                        data is None:
                    options.append(['TCA_FLOWER_ACT', typed_acts(meta)])
                else:
                    raw.add(t)
                    options.append(['RAW_%d' % t, data])
        return encode(msg_type, self.flags | NLM_F_REQUEST | NLM_F_ACK,
                      self.ifindex, self.handle, self.parent, self.prio,
                      self.proto, kind=self.kind, chain=self.chain,
                      options=options, raw_numbers=raw,
                      tail=self.tail if options is not None else b"")

    def describe(self):
        attrs = 'none' if self.attrs is None else ' '.join(
            '%s%s=%s' % (flowernl.NAME_BY_NUMBER.get(
                t & TYPE_MASK, 'T%d' % (t & TYPE_MASK))[len('TCA_FLOWER_'):]
                if (t & TYPE_MASK) in flowernl.NAME_BY_NUMBER else
                'T%d' % (t & TYPE_MASK),
                '|%#x' % (t & ~TYPE_MASK) if t & ~TYPE_MASK else '',
                ('acts%s' % (meta,) if data is None else data.hex()))
            for t, data, meta in self.attrs)
        return ('%s[%s] flags=%#x ifindex=%d parent=%#x prio=%d proto=%#x '
                'handle=%#x chain=%s kind=%r tail=%s options: %s'
                % (self.what, self.label, self.flags, self.ifindex,
                   self.parent, self.prio, self.proto, self.handle,
                   self.chain, self.kind, self.tail.hex() or '-', attrs))


def typed_acts(acts):
    """flowernl / pyroute2 value of TCA_FLOWER_ACT for [(verdict, index)]."""
    return {'attrs': [
        ['TCA_ACT_PRIO_%d' % i, {'attrs': [
            ['TCA_ACT_KIND', 'gact'],
            ['TCA_ACT_OPTIONS', {'attrs': [['TCA_GACT_PARMS', {
                'index': idx, 'capab': 0, 'action': v, 'refcnt': 0,
                'bindcnt': 0}]]}]]}]
        for i, (v, idx) in enumerate(acts, start=1)]}


def nla(t, payload):
    """One attribute, padded (for nested garbage we build ourselves)."""
    data = struct.pack('<HH', 4 + len(payload), t) + payload
    return data + b'\0' * (-len(data) % 4)


def geneve_opt(cls, typ, data, nested=True):
    """One TCA_FLOWER_KEY_ENC_OPTS_GENEVE option (tc sets NLA_F_NESTED;
    the kernel does not ask for it)."""
    return nla(GENEVE | (NLA_F_NESTED if nested else 0),
               nla(G_CLASS, cls) + nla(G_TYPE, typ) + nla(G_DATA, data))


class Recipe:
    """How the filters of one prio are built: the fixed part (protocol
    attributes) and the masked fields whose values vary."""

    def __init__(self, proto, fixed, fields, fam=None):
        self.proto = proto      # tcm_info protocol for a new prio
        self.fixed = fixed      # [(attr name, bytes)]
        self.fields = fields    # [(value attr, mask attr|None, mask|None)]
        self.fam = fam          # what random_recipe() was asked for


class Gen:
    def __init__(self, rng, model, ifindex):
        self.rng = rng
        self.model = model
        self.ifindex = ifindex
        self.port_pool = [rng.randrange(1, 65536) for _ in range(6)] + \
            [80, 443, 4789, 6081]
        self.addr_pool = [bytes(rng.randrange(256) for _ in range(16))
                          for _ in range(6)]

    # -- values ----------------------------------------------------------
    def value(self, vname, ln):
        r = self.rng
        if vname in ('TCP_SRC', 'TCP_DST', 'UDP_SRC', 'UDP_DST',
                     'SCTP_SRC', 'SCTP_DST', 'ENC_UDP_SRC_PORT',
                     'ENC_UDP_DST_PORT'):
            p = r.choice(self.port_pool) if r.random() < 0.5 else \
                r.randrange(65536)
            return struct.pack('>H', p)
        if ln >= 4 and r.random() < 0.3:
            return r.choice(self.addr_pool)[:ln]
        if ln == 1 and r.random() < 0.5:
            return bytes([r.randrange(4)])
        return bytes(r.randrange(256) for _ in range(ln))

    def prefix_mask(self, ln):
        bits = self.rng.randrange(1, ln * 8 + 1)
        v = ((1 << bits) - 1) << (ln * 8 - bits)
        return v.to_bytes(ln, 'big')

    def maybe_mask(self, vname):
        """None: no mask attribute (exact); else explicit mask bytes."""
        k = KEY_BY_VAL[vname]
        if not k[1]:
            return None
        r = self.rng.random()
        if r < 0.4:
            return None
        if r < 0.55:
            return b'\xff' * k[4]
        if r < 0.9:
            return self.prefix_mask(k[4])
        return bytes(self.rng.randrange(256) for _ in range(k[4]))

    def field(self, vname):
        return (vname, KEY_BY_VAL[vname][1], self.maybe_mask(vname))

    def random_recipe(self, fam=None):
        r = self.rng
        fam = fam or r.choice(('ipv4', 'ipv4', 'ipv6', 'ipv6', 'arp', 'vlan',
                               'eth', 'none', 'qinq', 'mpls', 'pppoe',
                               'l2tp', 'nvlans'))
        if fam in ('qinq', 'mpls', 'pppoe', 'l2tp', 'nvlans'):
            recipe = getattr(self, 'recipe_' + fam)()
            recipe.fam = fam
            return recipe
        recipe = self.plain_recipe(fam)
        recipe.fam = fam
        return recipe

    def plain_recipe(self, fam):
        r = self.rng
        fixed, fields = [], []
        proto = ETH_P['all']
        if fam in ('ipv4', 'ipv6', 'vlan'):
            v6 = fam == 'ipv6'
            et = ETH_P['ipv6' if v6 else 'ip']
            if fam == 'vlan':
                tpid = r.choice(VLAN_TPIDS)
                if r.random() < 0.2:
                    # one tag of any TPID ("protocol ip num_of_vlans 1
                    # vlan_id 5": fl_is_tag())
                    fixed.append(('NUM_OF_VLANS', b'\1'))
                    if r.random() < 0.5:
                        tpid = r.choice((ETH_P['ip'], ETH_P['ipv6']))
                fixed.append(('ETH_TYPE', struct.pack('>H', tpid)))
                if r.random() < 0.7:
                    fixed.append(('VLAN_ID', struct.pack(
                        '<H', r.randrange(4096))))
                if r.random() < 0.4:
                    fixed.append(('VLAN_PRIO', bytes([r.randrange(8)])))
                proto = tpid
                if r.random() < 0.4:
                    fields.append(('VLAN_ID', None, None))
                if r.random() < 0.5:
                    self.meta_fields(fields)
                    if not fields:
                        fields.append(self.field('ETH_DST'))
                    return Recipe(proto, fixed, fields)
                fixed.append(('VLAN_ETH_TYPE', struct.pack('>H', et)))
            else:
                fixed.append(('ETH_TYPE', struct.pack('>H', et)))
                proto = et
            l4 = r.choice((None, 6, 17, 132, 58 if v6 else 1))
            if l4 is not None:
                fixed.append(('IP_PROTO', bytes([l4])))
            a = 'IPV6' if v6 else 'IPV4'
            for d in ('SRC', 'DST'):
                if r.random() < 0.5:
                    fields.append(self.field('%s_%s' % (a, d)))
            for k in ('IP_TOS', 'IP_TTL'):
                if r.random() < 0.15:
                    fields.append(self.field(k))
            if r.random() < 0.15:
                fields.append(self.ip_flags_field())
            if l4 in (6, 17, 132):
                pre = {6: 'TCP', 17: 'UDP', 132: 'SCTP'}[l4]
                for d in ('SRC', 'DST'):
                    if r.random() < 0.5:
                        fields.append(self.field('%s_%s' % (pre, d)))
                if l4 == 6 and r.random() < 0.3:
                    fields.append(self.field('TCP_FLAGS'))
            elif l4 in (1, 58):
                pre = 'ICMPV6' if v6 else 'ICMPV4'
                for d in ('TYPE', 'CODE'):
                    if r.random() < 0.6:
                        fields.append(self.field('%s_%s' % (pre, d)))
        elif fam == 'arp':
            et = r.choice((ETH_P['arp'], ETH_P['arp'], ETH_P['rarp']))
            fixed.append(('ETH_TYPE', struct.pack('>H', et)))
            proto = et
            for k in ('ARP_OP', 'ARP_SIP', 'ARP_TIP', 'ARP_SHA', 'ARP_THA'):
                if r.random() < 0.4:
                    fields.append(self.field(k))
        elif fam == 'eth':
            if r.random() < 0.5:
                et = r.choice((ETH_P['lldp'], ETH_P['mpls'], 0x9000))
                fixed.append(('ETH_TYPE', struct.pack('>H', et)))
                proto = et
            for k in ('ETH_DST', 'ETH_SRC'):
                if r.random() < 0.7:
                    fields.append(self.field(k))
            if r.random() < 0.1:
                fields.append(self.ip_flags_field())
            if r.random() < 0.1:
                fixed.append(('NUM_OF_VLANS', bytes([r.choice((0, 0, 3))])))
        self.meta_fields(fields)
        if not fields and r.random() < 0.9:
            # something that varies, or every filter has the same key
            fields.append(self.field(r.choice(('ETH_DST', 'ETH_SRC'))))
        if r.random() < 0.1:
            fixed.append(('INDEV', r.choice((b'fz1\0', b'fz0\0', b'lo\0'))))
        return Recipe(proto, fixed, fields)

    def mask_variant(self, recipe):
        """A recipe for the same prio with other masks: some fields' masks
        drawn again, a field dropped or added, a tag's id or priority
        dropped.  Its filters go into the prio as a second (third, ...)
        mask."""
        r = self.rng
        fields = []
        for fld in recipe.fields:
            vname = fld[0]
            if r.random() < 0.5:
                if vname == 'CT_STATE':
                    fld = (vname, fld[1], r.choice((
                        None, CT_TRK, CT_TRK | CT_EST, CT_FLAGS)))
                elif vname == 'CT_LABELS':
                    fld = (vname, fld[1], (fld[2][0], self.prefix_mask(16)))
                elif vname == 'IP_FLAGS':
                    fld = self.ip_flags_field()
                elif vname in KEY_BY_VAL and KEY_BY_VAL[vname][1]:
                    fld = self.field(vname)
            fields.append(fld)
        if len(fields) > 1 and r.random() < 0.3:
            del fields[r.randrange(len(fields))]
        names = {f[0] for f in fields}
        if r.random() < 0.4:
            extra = r.choice(('ETH_DST', 'ETH_SRC', 'CT_ZONE', 'CT_MARK',
                              'ENC_UDP_DST_PORT'))
            if extra not in names:
                fields.append(self.field(extra))
        fixed = list(recipe.fixed)
        drop = [i for i, (n, _d) in enumerate(fixed)
                if n in ('VLAN_ID', 'VLAN_PRIO', 'CVLAN_ID', 'CVLAN_PRIO',
                         'INDEV')]
        if drop and r.random() < 0.2:
            del fixed[r.choice(drop)]
        return Recipe(recipe.proto, fixed, fields or [self.field('ETH_DST')],
                      recipe.fam)

    # -- tags, PPPoE, MPLS, L2TPv3, ip_flags ------------------------------
    def recipe_nvlans(self):
        """num_of_vlans on its own, as stock takes it: protocol all and no
        ETH_TYPE, so the tags have no TPID to match ("num_of_vlans 1
        vlan_prio 5", "num_of_vlans 1 vlan_ethtype ip src_ip ..."); with
        num_of_vlans > 1 the inner tag's keys (vlan_ethtype its TPID, any
        ethertype, or none at all) and cvlan_ethtype with its keys."""
        r = self.rng
        n = r.choice((1, 1, 1, 2, 2, 3))
        fixed, fields = [('NUM_OF_VLANS', bytes([n]))], []
        if r.random() < 0.5:
            fixed.append(('VLAN_PRIO', bytes([r.randrange(8)])))
        if r.random() < 0.4:
            fields.append(('VLAN_ID', None, None))
        elif r.random() < 0.3:
            fixed.append(('VLAN_ID', struct.pack('<H', r.randrange(4096))))
        inner = r.choice((None, ETH_P['ip'], ETH_P['ip'], ETH_P['ipv6'],
                          ETH_P['mpls'], ETH_P['ppp_ses']))
        if n == 1:
            if inner is not None:
                fixed.append(('VLAN_ETH_TYPE', struct.pack('>H', inner)))
        else:
            if r.random() < 0.6:
                fixed.append(('VLAN_ETH_TYPE', struct.pack('>H', r.choice(
                    VLAN_TPIDS + (ETH_P['ip'], 0x9100)))))
            if r.random() < 0.5:
                fixed.append(('CVLAN_PRIO', bytes([r.randrange(8)])))
            if r.random() < 0.5:
                fields.append(('CVLAN_ID', None, None))
            if inner is not None:
                fixed.append(('CVLAN_ETH_TYPE', struct.pack('>H', inner)))
        if inner == ETH_P['ppp_ses']:
            self.ppp_part(fixed, fields)
        elif inner is not None:
            if inner == ETH_P['ip'] and r.random() < 0.3:
                fixed.append(('IP_PROTO', bytes([17])))
                fields.append(self.field('UDP_DST'))
            self.inner_fields(fixed, fields, inner)
        if not fields:
            fields.append(self.field(r.choice(('ETH_DST', 'ETH_SRC'))))
        return Recipe(ETH_P_ALL, fixed, fields)

    def ip_flags_field(self):
        """ip_flags under a mask of known bits (0 now and then: no dump)."""
        return ('IP_FLAGS', 'KEY_FLAGS_MASK', self.rng.choice((1, 2, 3, 3,
                                                               0)))

    def addr_fields(self, fields, v6):
        a = 'IPV6' if v6 else 'IPV4'
        for d in ('SRC', 'DST'):
            if self.rng.random() < 0.5:
                fields.append(self.field('%s_%s' % (a, d)))

    def inner_fields(self, fixed, fields, et):
        """The keys of the innermost protocol et (after tags or PPP)."""
        if et in (ETH_P['ip'], ETH_P['ipv6']):
            self.addr_fields(fields, et == ETH_P['ipv6'])
            if self.rng.random() < 0.2:
                fields.append(self.ip_flags_field())
        elif et in (ETH_P['mpls'], ETH_P['mpls_mc']):
            fields.extend(self.mpls_fields())

    def recipe_qinq(self):
        """Two tags: vlan_ethtype a TPID (or anything, with num_of_vlans
        2), the inner tag's id/prio, its ethertype (ip, ipv6, PPPoE,
        MPLS) and that protocol's keys."""
        r = self.rng
        tpid = r.choice(VLAN_TPIDS)
        fixed, fields = [('ETH_TYPE', struct.pack('>H', tpid))], []
        if r.random() < 0.7:
            fixed.append(('VLAN_ID', struct.pack('<H', r.randrange(4096))))
        if r.random() < 0.3:
            fixed.append(('VLAN_PRIO', bytes([r.randrange(8)])))
        if r.random() < 0.25:
            fixed.append(('NUM_OF_VLANS', b'\2'))
            inner_tpid = r.choice((ETH_P['ip'], ETH_P['ipv6'], 0x9100,
                                   0x8100))
        else:
            inner_tpid = r.choice(VLAN_TPIDS)
            if r.random() < 0.2:
                fixed.append(('NUM_OF_VLANS', bytes([r.choice((0, 1, 3))])))
        fixed.append(('VLAN_ETH_TYPE', struct.pack('>H', inner_tpid)))
        if r.random() < 0.6:
            fixed.append(('CVLAN_ID', struct.pack('<H', r.randrange(4096))))
        if r.random() < 0.3:
            fixed.append(('CVLAN_PRIO', bytes([r.randrange(8)])))
        if r.random() < 0.4:
            fields.append(('CVLAN_ID', None, None))
        x = r.random()
        if x < 0.75:
            et = r.choice((ETH_P['ip'], ETH_P['ip'], ETH_P['ipv6'],
                           ETH_P['mpls'], ETH_P['ppp_ses']))
            fixed.append(('CVLAN_ETH_TYPE', struct.pack('>H', et)))
            if et == ETH_P['ppp_ses']:
                self.ppp_part(fixed, fields)
            else:
                self.inner_fields(fixed, fields, et)
        if not fields:
            fields.append(('CVLAN_ID', None, None))
        return Recipe(tpid, fixed, fields)

    def ppp_part(self, fixed, fields):
        """PPPoE: the session id varies; a PPP protocol (ip, ipv6, MPLS,
        or any other value) with its keys."""
        r = self.rng
        pp = r.choice((None, 0x21, 0x21, 0x57, 0x281, 0x283,
                       r.randrange(65536)))
        if pp is not None:
            fixed.append(('PPP_PROTO', struct.pack('>H', pp)))
        if r.random() < 0.8:
            fields.append(('PPPOE_SID', None, None))
        if pp in PPP_CARRIED:
            self.inner_fields(fixed, fields, PPP_CARRIED[pp])
        if not fields:
            fields.append(('PPPOE_SID', None, None))

    def recipe_pppoe(self):
        r = self.rng
        fixed, fields = [], []
        if r.random() < 0.3:            # behind a tag
            proto = r.choice(VLAN_TPIDS)
            fixed.append(('ETH_TYPE', struct.pack('>H', proto)))
            if r.random() < 0.7:
                fixed.append(('VLAN_ID', struct.pack('<H',
                                                     r.randrange(4096))))
            fixed.append(('VLAN_ETH_TYPE', struct.pack('>H',
                                                       ETH_P['ppp_ses'])))
        else:
            proto = ETH_P['ppp_ses']
            fixed.append(('ETH_TYPE', struct.pack('>H', proto)))
        self.ppp_part(fixed, fields)
        return Recipe(proto, fixed, fields)

    def recipe_mpls(self):
        r = self.rng
        et = r.choice((ETH_P['mpls'], ETH_P['mpls'], ETH_P['mpls_mc']))
        fixed = []
        if r.random() < 0.2:            # behind a tag
            proto = r.choice(VLAN_TPIDS)
            fixed += [('ETH_TYPE', struct.pack('>H', proto)),
                      ('VLAN_ETH_TYPE', struct.pack('>H', et))]
        else:
            proto = et
            fixed.append(('ETH_TYPE', struct.pack('>H', et)))
        fields = self.mpls_fields()
        if r.random() < 0.3:
            fields.append(self.field(r.choice(('ETH_DST', 'ETH_SRC'))))
        return Recipe(proto, fixed, fields)

    def mpls_fields(self):
        """The first entry's own attributes, or 1-3 entries of the nested
        options at random depths; each with a random set of fields."""
        r = self.rng
        if r.random() < 0.5:
            names = [n for n in MPLS_FIELDS if r.random() < 0.5]
            return [('MPLS', None, names or ['LABEL'])]
        depths = sorted(r.sample(range(1, MPLS_LSES + 1),
                                 r.choice((1, 1, 2, 3))))
        spec = [(d, [n for n in MPLS_FIELDS if r.random() < 0.5])
                for d in depths]
        if not any(names for _d, names in spec) and r.random() < 0.8:
            spec[0] = (spec[0][0], ['LABEL'])
        return [('MPLS_OPTS', None, spec)]

    def mpls_value(self, name):
        """A value of an entry's field, in range (bytes as sent)."""
        r = self.rng
        if name == 'LABEL':
            return struct.pack('<I', r.choice((0, 3, 16, 0xFFFFF,
                                               r.randrange(1 << 20))))
        return bytes([r.randrange(LSE_FIELD[name][2] + 1)])

    def mpls_lse(self, depth, names, nested=True):
        """One TCA_FLOWER_KEY_MPLS_OPTS_LSE (tc sets NLA_F_NESTED; the
        kernel does not ask for it), its attributes in random order."""
        parts = [nla(LSE_ATTR['DEPTH'], bytes([depth]))] + [
            nla(LSE_ATTR[n], self.mpls_value(n)) for n in names]
        self.rng.shuffle(parts)
        return nla(MPLS_LSE | (NLA_F_NESTED if nested else 0),
                   b''.join(parts))

    def recipe_l2tp(self):
        r = self.rng
        v6 = r.random() < 0.4
        et = ETH_P['ipv6' if v6 else 'ip']
        fixed = [('ETH_TYPE', struct.pack('>H', et)),
                 ('IP_PROTO', bytes([IPPROTO_L2TP]))]
        fields = [('L2TPV3_SID', None, None)]
        self.addr_fields(fields, v6)
        return Recipe(et, fixed, fields)

    # -- tunnel and conntrack keys (any protocol: metadata) ---------------
    def meta_fields(self, fields):
        r = self.rng
        if r.random() < 0.2:
            fields.extend(self.tunnel_fields())
        if r.random() < 0.15:
            fields.extend(self.ct_fields())

    def tunnel_fields(self):
        r = self.rng
        out = []
        if r.random() < 0.5:
            out.append(('ENC_KEY_ID', None, None))
        fam = r.choice((None, None, 'IPV4', 'IPV4', 'IPV6'))
        if fam:
            for d in ('SRC', 'DST'):
                if r.random() < 0.6:
                    out.append(self.field('ENC_%s_%s' % (fam, d)))
        for k in ('ENC_UDP_SRC_PORT', 'ENC_UDP_DST_PORT', 'ENC_IP_TOS',
                  'ENC_IP_TTL'):
            if r.random() < 0.2:
                out.append(self.field(k))
        if r.random() < 0.3:
            out.append(('ENC_OPTS', 'ENC_OPTS_MASK', self.geneve_spec()))
        return out or [('ENC_KEY_ID', None, None)]

    def geneve_spec(self):
        """The fixed part of a recipe's Geneve options: per option (class
        or None: varies, type or None, data length), and the mask (None:
        no ENC_OPTS_MASK; else per option (class, type, data) mask bytes)."""
        r = self.rng
        layout, total = [], 0
        for _ in range(r.choice((1, 1, 1, 2, 3))):
            dl = r.choice((4, 4, 8, 12, 16, 124)) if r.random() < 0.9 else \
                4 * r.randrange(1, 32)
            if total + 4 + dl > ENC_OPTS_MAX:
                break
            total += 4 + dl
            layout.append((r.choice((0x0102, 0xFFFF, None,
                                     r.randrange(65536))),
                           r.choice((0x80, None, r.randrange(256))), dl))
        if not layout:
            layout.append((0x0102, 0x80, 4))
        if r.random() < 0.1:              # ENC_OPTS without a mask
            return layout, None
        mask = []
        for _c, _t, dl in layout:
            x = r.random()
            if x < 0.4:
                mask.append((b'\xff\xff', b'\xff', b'\xff' * dl))
            elif x < 0.8:
                mask.append((r.choice((b'\xff\xff', b'\0\0')),
                             r.choice((b'\xff', b'\0')),
                             self.prefix_mask(dl)))
            else:
                mask.append((self.garbage(2), self.garbage(1),
                             self.garbage(dl)))
        return layout, mask

    def geneve_value(self, layout):
        r = self.rng
        return b''.join(geneve_opt(
            struct.pack('>H', c if c is not None else r.randrange(65536)),
            bytes([t if t is not None else r.randrange(256)]),
            self.garbage(dl), nested=r.random() < 0.7)
            for c, t, dl in layout)

    def ct_fields(self):
        r = self.rng
        out = []
        if r.random() < 0.6:
            m = r.choice((None, CT_TRK, CT_TRK | CT_NEW,
                          CT_TRK | CT_NEW | CT_EST, CT_TRK | CT_EST | CT_RPL,
                          CT_TRK | CT_INV, CT_FLAGS, 0xFFFF))
            out.append(('CT_STATE', 'CT_STATE_MASK', m))
        for k in ('CT_ZONE', 'CT_MARK'):
            if r.random() < 0.4:
                out.append(self.field(k))
        if r.random() < 0.3:
            vlen = r.choice((16, 16, 16, 1, 4, 8, 15))
            x = r.random()
            mask = None if x < 0.4 else b'\xff' * 16 if x < 0.6 else \
                self.prefix_mask(16)[:r.choice((16, 16, 8, 2))]
            out.append(('CT_LABELS', 'CT_LABELS_MASK', (vlen, mask)))
        return out or [self.field('CT_ZONE')]

    def ct_state_value(self, m):
        """A ct_state that is possible under mask m (None: exact), now
        and then with bits outside the mask (kept, and dumped, as given)."""
        r = self.rng
        m = 0xFFFF if m is None else m
        for _ in range(50):
            v = r.choice((0, CT_TRK, CT_TRK | CT_NEW, CT_TRK | CT_EST,
                          CT_TRK | CT_REL, CT_TRK | CT_EST | CT_RPL,
                          CT_TRK | CT_REL | CT_RPL, CT_TRK | CT_INV,
                          r.randrange(64)))
            if r.random() < 0.2:
                v |= r.randrange(65536) & ~m
            if ct_state_error(v & m) is None:
                return v
        return 0

    def instantiate(self, recipe):
        """Attributes [(type, bytes, None)] of one filter of a recipe;
        now and then without ETH_TYPE where it is the recipe's protocol
        (a request without it takes the filter's protocol)."""
        r = self.rng
        out = []
        implicit = recipe.proto != ETH_P_ALL and r.random() < 0.15
        for name, data in recipe.fixed:
            if implicit and name == 'ETH_TYPE' and \
                    data == struct.pack('>H', recipe.proto):
                continue
            out.append((A[name] if name in A else A['KEY_' + name], data,
                        None))
        for vname, mname, mask in recipe.fields:
            if vname in ('VLAN_ID', 'CVLAN_ID'):    # varying id (exact)
                t = A['KEY_' + vname]
                out = [x for x in out if x[0] != t]
                out.append((t, struct.pack('<H', self.rng.randrange(4096)),
                            None))
                continue
            if vname == 'IP_FLAGS':
                v = r.randrange(4) & (mask if r.random() < 0.8 else 3)
                out.append((T_IP_FLAGS, struct.pack('>I', v), None))
                out.append((T_IP_FLAGS_MASK, struct.pack('>I', mask), None))
                continue
            if vname == 'MPLS':
                for n in mask:
                    out.append((A['KEY_MPLS_' + n], self.mpls_value(n), None))
                continue
            if vname == 'MPLS_OPTS':
                lses = [self.mpls_lse(d, names, nested=r.random() < 0.7)
                        for d, names in mask]
                if r.random() < 0.3:
                    r.shuffle(lses)
                out.append((T_MPLS_OPTS, b''.join(lses), None))
                continue
            if vname == 'ENC_OPTS':
                layout, omask = mask
                out.append((T_ENC_OPTS, self.geneve_value(layout), None))
                if omask is not None:
                    out.append((T_ENC_OPTS_MASK, b''.join(
                        geneve_opt(c, t, d, nested=r.random() < 0.7)
                        for c, t, d in omask), None))
                continue
            if vname == 'CT_STATE':
                out.append((T_CT_STATE, struct.pack(
                    '<H', self.ct_state_value(mask)), None))
                if mask is not None:
                    out.append((A['KEY_CT_STATE_MASK'],
                                struct.pack('<H', mask), None))
                continue
            if vname == 'CT_LABELS':
                vlen, lmask = mask
                out.append((A['KEY_CT_LABELS'], self.garbage(vlen), None))
                if lmask is not None:
                    out.append((A['KEY_CT_LABELS_MASK'], lmask, None))
                continue
            ln = KEY_BY_VAL[vname][4]
            out.append((A['KEY_' + vname], self.value(vname, ln), None))
            if mask is not None:
                out.append((A['KEY_' + mname], mask, None))
        return out

    def extras(self, attrs):
        """CLASSID, FLAGS and actions a valid filter may carry."""
        r = self.rng
        if r.random() < 0.2:
            attrs.append((T_CLASSID, struct.pack('<I', r.choice(
                (0, 1, 0x10001, r.randrange(1 << 32)))), None))
        if r.random() < 0.2:
            attrs.append((T_FLAGS, struct.pack('<I', r.choice(
                (0, 1, 16, 17))), None))
        if r.random() < 0.75:
            acts = []
            shared = list(SHARED_ACT)
            r.shuffle(shared)
            for _ in range(r.choice((1, 1, 1, 2, 3))):
                if r.random() < 0.2:
                    # never the same explicit index twice in one request:
                    # that livelocks tc_new_tfilter() in this 6.1 tree
                    # (tc core, any classifier; see stress/README.md)
                    idx = shared.pop()
                    acts.append((SHARED_ACT[idx], idx))
                else:
                    acts.append((r.choice(VALID_VERDICTS), 0))
            attrs.append((T_ACT, None, acts))
        if r.random() < 0.3:
            r.shuffle(attrs)
        return attrs

    # -- picking targets -----------------------------------------------
    def pick_chain(self):
        r = self.rng.random()
        if r < 0.85:
            return None             # no TCA_CHAIN: chain 0
        if r < 0.9:
            return 0
        if r < 0.98:
            return self.rng.choice((1, 2))
        return TC_ACT_EXT_VAL_MASK

    def existing_filter(self):
        fl = [(tp, f) for tp in self.model.tps.values()
              for f in tp.filters.values()]
        return self.rng.choice(fl) if fl else (None, None)

    def base(self, what, **kw):
        op = Op(what, ifindex=self.ifindex)
        op.__dict__.update(kw)
        return op

    def valid_add(self):
        r = self.rng
        chain = self.pick_chain()
        tps = [t for t in self.model.tps.values() if t.chain == (chain or 0)
               and t.recipes]
        label = 'add'
        if tps and r.random() < 0.7:
            tp = r.choice(tps)
            prio, recipe = tp.prio, r.choice(tp.recipes)
            x = r.random()
            if x < 0.3:
                # another mask into this prio
                recipe = self.mask_variant(recipe)
                label = 'add-newmask'
            proto = tp.proto if r.random() < 0.9 else 0
            if x > 0.95 and tp.filters:
                # an existing filter's key under its mask: EEXIST
                attrs = self.same_key_attrs(tp, r.choice(list(
                    tp.filters.values())))
                if attrs:
                    op = self.base('new', flags=NLM_F_CREATE | NLM_F_EXCL,
                                   prio=prio, proto=proto, chain=chain,
                                   attrs=self.extras(attrs), recipe=recipe,
                                   label='add-samekey')
                    op.handle = self.pick_handle(tp)
                    return op
        else:
            recipe = self.random_recipe()
            used = {t.prio for t in self.model.tps.values()
                    if t.chain == (chain or 0)}
            free = [p for p in range(1, 17) if p not in used]
            if free and r.random() < 0.9:
                prio = r.choice(free)
            elif r.random() < 0.5:
                prio = r.choice((1, 2, 3, 4, 5, 6, 7, 8))
            else:
                prio = r.randrange(1, 0x10000)
            proto = recipe.proto
            tp = self.model.tps.get((chain or 0, prio))
            if tp is not None:
                proto = tp.proto
            elif r.random() < 0.1:
                proto = r.choice(list(ETH_P.values()))   # conflicting
        attrs = self.extras(self.instantiate(recipe))
        op = self.base('new', flags=NLM_F_CREATE | NLM_F_EXCL, prio=prio,
                       proto=proto, chain=chain, attrs=attrs, recipe=recipe,
                       label=label)
        op.handle = self.pick_handle(tp)
        return op

    def pick_handle(self, tp):
        r = self.rng.random()
        if r < 0.55:
            return 0
        if r < 0.8:
            return self.rng.randrange(1, 3000)
        if r < 0.9:
            return self.rng.randrange(0x80000000, 0x100000000)
        if r < 0.95:
            return 0xFFFFFFFF
        if tp is not None and tp.filters:
            return self.rng.choice(list(tp.filters))     # -> EEXIST
        return INT_MAX

    def replace(self, change=False):
        r = self.rng
        tp, f = self.existing_filter()
        if tp is None:
            return self.valid_add()
        label = 'change' if change else 'replace'
        recipe = r.choice(tp.recipes) if tp.recipes else \
            self.random_recipe()
        x = r.random()
        if x >= 0.55 and r.random() < 0.3:
            # the filter moves to another mask (a new one, or one of the
            # prio's other recipes')
            recipe = self.mask_variant(recipe)
            label += '-newmask'
        attrs = self.instantiate(recipe)
        if x < 0.45 and tp.recipe is not None:
            # same key, other action: rebuild from the filter's own bytes
            attrs = self.same_key_attrs(tp, f) or attrs
            label += '-samekey'
        elif x < 0.55 and len(tp.filters) > 1:
            # another filter's key and mask: EEXIST
            g = r.choice([g for g in tp.filters.values() if g is not f])
            attrs = self.same_key_attrs(tp, g) or attrs
            label += '-otherskey'
        attrs = self.extras(attrs)
        flags = 0 if change else NLM_F_CREATE | NLM_F_REPLACE
        handle = f.handle if r.random() < 0.9 else self.pick_handle(tp)
        return self.base('new', flags=flags, prio=tp.prio,
                         proto=tp.proto if r.random() < 0.9 else 0,
                         chain=tp.chain if tp.chain or r.random() < 0.3
                         else None, handle=handle, attrs=attrs,
                         recipe=recipe, label=label)

    def same_key_attrs(self, tp, f):
        """Attributes that rebuild filter f exactly (from the model's
        expected dump, which only has valid attributes)."""
        return [a for a in dumped_request(
            tp.proto, self.model.expected_opts(tp, f))
            if a[0] not in (T_FLAGS, T_CLASSID)]

    def delete(self):
        r = self.rng
        tp, f = self.existing_filter()
        x = r.random()
        op = self.base('del', label='del')
        if tp is None or x < 0.08:
            op.prio = r.choice((1, 2, 3, 0x7777))
            op.handle = r.randrange(1, 10)
            op.proto = r.choice((0, ETH_P['ip']))
            op.label = 'del-missing'
            return op
        op.prio, op.chain = tp.prio, tp.chain if tp.chain else \
            r.choice((None, 0))
        op.proto = tp.proto if r.random() < 0.6 else 0
        op.kind = 'flower' if r.random() < 0.5 else None
        if x < 0.75:
            op.handle = f.handle
        elif x < 0.83:
            op.handle = r.randrange(1, 0x100000000)
            op.label = 'del-nohandle'
        elif x < 0.93:
            op.handle = 0
            op.label = 'del-prio'
        elif x < 0.97:
            op.handle = f.handle
            op.proto = (tp.proto + 1) & 0xFFFF or 1
            op.label = 'del-wrongproto'
        elif x < 0.985:
            op.handle = f.handle
            op.kind = 'matchall'
            op.label = 'del-wrongkind'
        else:
            op.prio, op.handle, op.proto, op.kind = 0, 0, 0, None
            op.label = 'flush'
        return op

    def get(self):
        r = self.rng
        tp, f = self.existing_filter()
        op = self.base('get', label='get', kind=None)
        if tp is None:
            op.prio, op.handle = 1, 1
            return op
        op.prio, op.chain, op.proto = tp.prio, tp.chain or None, \
            r.choice((0, tp.proto))
        op.handle = f.handle if r.random() < 0.8 else r.randrange(1 << 32)
        return op

    # -- broken requests -------------------------------------------------
    def invalid(self):
        r = self.rng
        op = self.valid_add() if r.random() < 0.8 else self.replace()
        op.label = 'bad'
        op.recipe = None            # its prio (if it creates one) is odd
        for _ in range(r.choice((1, 1, 1, 2))):
            self.mutate(op)
        return op

    def mutate(self, op):
        r = self.rng
        m = r.choice(('length', 'length', 'lonemask', 'unknown', 'unsupp',
                      'act', 'act', 'act', 'need', 'need', 'flags', 'vlan',
                      'indev', 'dup', 'nlaflags', 'tail', 'noopts',
                      'top', 'top', 'prio', 'maskdiff', 'handle',
                      'tunnel', 'tunnel', 'ct', 'l2', 'l2', 'l2', 'mpls',
                      'mpls'))
        op.label += '-' + m
        attrs = op.attrs if op.attrs is not None else []
        fixed = [i for i, (t, d, _m) in enumerate(attrs)
                 if ATTR_LEN.get(t & TYPE_MASK, 0) > 0 or
                 (t & TYPE_MASK in set(MAX_LEN) | {T_ENC_OPTS, T_ENC_OPTS_MASK,
                                                   T_MPLS_OPTS}
                  and d is not None)]
        if m == 'length':
            if fixed:
                i = r.choice(fixed)
                t, d, mt = attrs[i]
                if t & TYPE_MASK in MAX_LEN:        # ct_label: 0..16 bytes
                    n = r.choice((0, 1, 15, 17, 20, 32))
                elif t & TYPE_MASK in NESTED:       # a nest: not 1..3
                    n = r.choice((1, 2, 3, len(d) - 1, len(d) + 1))
                else:
                    n = r.choice((0, 1, len(d) - 1, len(d) + 1, len(d) + 4,
                                  64))
                n = max(0, n)
                attrs[i] = (t, (d * 70)[:n] if d else bytes(n), mt)
            else:
                attrs.append((A['KEY_IP_PROTO'], b'\x06\x00', None))
        elif m == 'tunnel':
            self.mutate_tunnel(op, attrs)
        elif m == 'ct':
            self.mutate_ct(op, attrs)
        elif m == 'l2':
            self.mutate_l2(op, attrs)
        elif m == 'mpls':
            self.mutate_mpls(op, attrs)
        elif m == 'lonemask':
            k = r.choice([k for k in KEYS if k[1]])
            attrs.append((A['KEY_' + k[1]], b'\xff' * k[4], None))
            drop = A['KEY_' + k[0]]
            attrs[:] = [a for a in attrs if a[0] & TYPE_MASK != drop]
        elif m == 'unknown':
            t = r.choice((0, FLOWER_MAX + 1, FLOWER_MAX + 2,
                          r.randrange(FLOWER_MAX + 1, TYPE_MASK + 1)))
            attrs.insert(r.randrange(len(attrs) + 1),
                         (t, self.garbage(r.randrange(0, 24)), None))
        elif m == 'unsupp':
            t = r.choice(UNSUPPORTED)
            attrs.insert(r.randrange(len(attrs) + 1),
                         (t, self.garbage(r.choice((0, 1, 2, 4, 16))), None))
        elif m == 'act':
            attrs[:] = [a for a in attrs if a[0] != T_ACT]
            t = T_ACT | r.choice((0, 0, 0x8000, 0x4000))
            payload, meta = self.act_garbage()
            attrs.append((t, payload, meta))
        elif m == 'need':
            k = r.choice(KEYS[1:] + KEYS[:1])
            attrs.append((A['KEY_' + k[0]], self.value(k[0], k[4]), None))
        elif m == 'flags':
            v = r.choice((2, 3, 4, 8, 32, 0x80000000, r.randrange(1 << 32)))
            attrs.append((T_FLAGS, struct.pack('<I', v), None))
        elif m == 'vlan':
            c = r.random()
            if c < 0.3:
                attrs.append((T_VLAN_ID, struct.pack(
                    '<H', r.randrange(4096, 65536)), None))
            elif c < 0.5:
                attrs.append((T_VLAN_PRIO, bytes([r.randrange(8, 256)]), None))
            elif c < 0.7:
                attrs.append((T_VLAN_ETH_TYPE, struct.pack(
                    '>H', r.choice(VLAN_TPIDS)), None))
            else:
                attrs.append((T_ETH_TYPE, struct.pack(
                    '>H', r.choice(VLAN_TPIDS)), None))
                attrs.append((T_VLAN_ID, struct.pack(
                    '<H', r.randrange(5000)), None))
        elif m == 'indev':
            attrs.append((T_INDEV, r.choice((
                b'nosuchdev\0', b'fz1', b'fz1\0garbage', b'',
                b'x' * 15 + b'\0', b'x' * 16 + b'\0', b'lo' + b'\0' * 20,
                b'fz1\0\0')), None))
        elif m == 'dup':
            if attrs:
                t, d, mt = r.choice(attrs)
                if mt is None and d is not None and \
                        ATTR_LEN.get(t & TYPE_MASK, 0) > 0 and r.random() < .5:
                    d = self.value_like(t, d)
                attrs.append((t, d, mt))
        elif m == 'nlaflags':
            if attrs:
                i = r.randrange(len(attrs))
                t, d, mt = attrs[i]
                if d is not None:
                    attrs[i] = (t | r.choice((0x8000, 0x4000, 0xC000)), d, mt)
        elif m == 'tail':
            op.tail, op.tail_bad = self.bad_tail()
            if op.attrs is None:
                op.attrs = attrs
        elif m == 'noopts':
            if op.what == 'new':
                op.attrs = None
                return
        elif m == 'top':
            self.mutate_top(op)
        elif m == 'prio':
            op.prio = r.choice((0, 0, r.randrange(0x10000), 0x8000, 0xFFFF,
                                0xC000))
            op.flags |= NLM_F_CREATE
        elif m == 'maskdiff':
            other = self.instantiate(self.random_recipe())
            keep = [a for a in attrs if a[0] in (T_ACT, T_FLAGS, T_CLASSID)]
            attrs[:] = other + keep
        elif m == 'handle':
            op.handle = r.choice((0, 0xFFFFFFFF, INT_MAX, INT_MAX + 1, 1))
        if op.attrs is None and attrs:
            op.attrs = attrs

    def mutate_tunnel(self, op, attrs):
        """Tunnel keys no filter may have: both address families, bad
        Geneve options (lists, options, lengths, classes, masks)."""
        r = self.rng
        c = r.choice(('mixed', 'opts', 'opts', 'opts', 'optsmask',
                      'optsmask', 'nomask', 'lonemask', 'badlen'))
        op.label += ':' + c
        opt = geneve_opt(b'\x01\x02', b'\x80', b'\0\x88\0\x22')
        if c == 'mixed':
            attrs.append((r.choice(ENC_V4), self.garbage(4), None))
            attrs.append((r.choice(ENC_V6), self.garbage(16), None))
            if r.random() < 0.5:
                r.shuffle(attrs)
        elif c in ('opts', 'optsmask'):
            bad = self.bad_geneve()
            attrs[:] = [a for a in attrs if a[0] & TYPE_MASK not in
                        (T_ENC_OPTS, T_ENC_OPTS_MASK)]
            if c == 'opts':
                attrs.append((T_ENC_OPTS, bad, None))
                if r.random() < 0.5:
                    attrs.append((T_ENC_OPTS_MASK, opt, None))
            else:
                attrs.append((T_ENC_OPTS, opt, None))
                attrs.append((T_ENC_OPTS_MASK, r.choice((
                    bad, bad, geneve_opt(b'\xff\xff', b'\xff', b'\xff' * 8),
                    opt + opt)), None))
        elif c == 'nomask':
            attrs[:] = [a for a in attrs if a[0] & TYPE_MASK not in
                        (T_ENC_OPTS, T_ENC_OPTS_MASK)]
            attrs.append((T_ENC_OPTS, self.geneve_value(
                self.geneve_spec()[0]), None))
        elif c == 'lonemask':
            attrs[:] = [a for a in attrs if a[0] & TYPE_MASK != T_ENC_OPTS]
            attrs.append((T_ENC_OPTS_MASK, opt, None))
        elif c == 'badlen':
            name = r.choice(('KEY_ENC_KEY_ID', 'KEY_ENC_IPV4_DST',
                             'KEY_ENC_IPV6_SRC', 'KEY_ENC_UDP_DST_PORT',
                             'KEY_ENC_IP_TTL_MASK', 'KEY_ENC_IPV6_DST_MASK'))
            ln = ATTR_LEN[A[name]]
            attrs.append((A[name], self.garbage(r.choice(
                (0, 1, ln - 1, ln + 1, 2 * ln))), None))

    def bad_geneve(self):
        """An ENC_OPTS payload the kernel refuses (most of the time: a
        random one may happen to be valid; the model says)."""
        r = self.rng
        cls, typ, data = b'\x01\x02', b'\x80', b'\0\x88\0\x22'
        c = r.choice(('empty', 'short', 'kind', 'missing', 'classlen',
                      'typelen', 'datalen', 'datalen', 'unknown', 'trail',
                      'listtrail', 'toolong', 'random', 'unpadded'))
        if c == 'empty':
            return b''
        if c == 'short':
            return self.garbage(r.randrange(1, 4))
        if c == 'kind':             # vxlan, erspan, gtp options
            return geneve_opt(cls, typ, data) * r.randrange(2) + nla(
                r.choice((2, 3, 4, 0, 0x3FFF)) | r.choice((0, NLA_F_NESTED)),
                nla(1, data))
        if c == 'missing':
            parts = [nla(G_CLASS, cls), nla(G_TYPE, typ), nla(G_DATA, data)]
            del parts[r.randrange(3)]
            return nla(GENEVE, b''.join(parts))
        if c == 'classlen':
            return nla(GENEVE, nla(G_CLASS, self.garbage(r.choice(
                (0, 1, 3, 4)))) + nla(G_TYPE, typ) + nla(G_DATA, data))
        if c == 'typelen':
            return nla(GENEVE, nla(G_CLASS, cls) + nla(G_TYPE, self.garbage(
                r.choice((0, 2, 4)))) + nla(G_DATA, data))
        if c == 'datalen':
            return geneve_opt(cls, typ, self.garbage(r.choice(
                (0, 1, 2, 3, 5, 6, 122, 125, 126, 128, 129, 200))))
        if c == 'unknown':
            return nla(GENEVE, nla(G_CLASS, cls) + nla(G_TYPE, typ) +
                       nla(G_DATA, data) + nla(r.choice((0, 4, 0x3FFF)), b''))
        if c == 'trail':            # bytes after an option's attributes
            inner = nla(G_CLASS, cls) + nla(G_TYPE, typ) + nla(G_DATA, data)
            return nla(GENEVE, inner + self.garbage(r.randrange(1, 4)))
        if c == 'listtrail':        # bytes after the last option
            return geneve_opt(cls, typ, data) + self.garbage(
                r.randrange(1, 4))
        if c == 'toolong':          # more than 255 bytes of options
            return b''.join(geneve_opt(cls, typ, self.garbage(dl))
                            for dl in r.choice(((124, 124, 4),
                                                (124, 124, 124),
                                                (100, 100, 48))))
        if c == 'unpadded':
            # the last option ends in an unpadded TYPE: the option parses,
            # but the list's walk ends 3 bytes past its end (rem < 0)
            inner = nla(G_CLASS, cls) + nla(G_DATA, data) + \
                struct.pack('<HH', 5, G_TYPE) + typ
            return struct.pack('<HH', 4 + len(inner), GENEVE) + inner
        return self.garbage(r.randrange(4, 40))

    def mutate_ct(self, op, attrs):
        """ct_state flag sets no packet has, ct_label too long or short."""
        r = self.rng
        c = r.choice(('state', 'state', 'state', 'labels'))
        op.label += ':' + c
        if c == 'state':
            v = r.choice((CT_NEW, CT_EST, CT_TRK | CT_NEW | CT_EST,
                          CT_TRK | CT_NEW | CT_RPL, CT_TRK | CT_INV | CT_EST,
                          CT_INV, CT_TRK | 0x40, 0x8000 | CT_TRK,
                          r.randrange(65536)))
            attrs[:] = [a for a in attrs if a[0] & TYPE_MASK not in
                        (T_CT_STATE, A['KEY_CT_STATE_MASK'])]
            attrs.append((T_CT_STATE, struct.pack('<H', v), None))
            x = r.random()
            if x < 0.5:
                attrs.append((A['KEY_CT_STATE_MASK'], struct.pack(
                    '<H', r.choice((v, 0xFFFF, CT_FLAGS, v & ~CT_TRK,
                                    r.randrange(65536)))), None))
        else:
            t = r.choice((A['KEY_CT_LABELS'], A['KEY_CT_LABELS_MASK']))
            if t == A['KEY_CT_LABELS_MASK'] and r.random() < 0.7:
                attrs.append((A['KEY_CT_LABELS'], self.garbage(16), None))
            attrs.append((t, self.garbage(r.choice((0, 3, 16, 17, 24))),
                          None))

    def onto(self, op, attrs, fam):
        """Make op a request for a prio of family fam (one that exists, or
        a new one), with a filter of its recipe: the checks behind the
        protocol's are reached.  Actions, flags and classid stay."""
        r = self.rng
        chain = op.chain or 0
        tps = [t for t in self.model.tps.values() if t.chain == chain and
               t.recipe is not None and t.recipe.fam == fam]
        if tps and r.random() < 0.7:
            tp = r.choice(tps)
            op.prio, op.proto, recipe = tp.prio, tp.proto, tp.recipe
        else:
            recipe = self.random_recipe(fam)
            used = {t.prio for t in self.model.tps.values()
                    if t.chain == chain}
            free = [p for p in range(1, 17) if p not in used]
            op.prio = r.choice(free) if free else r.randrange(1, 0x10000)
            op.proto = recipe.proto
        op.flags |= NLM_F_CREATE
        keep = [a for a in attrs if a[0] in (T_ACT, T_FLAGS, T_CLASSID)]
        attrs[:] = self.instantiate(recipe) + keep

    def mutate_l2(self, op, attrs):
        """ip_flags, tags, num_of_vlans, PPPoE and L2TPv3 keys that are
        refused: a lone or missing mask, unknown flag bits, an inner tag
        without QinQ or out of range, PPP keys without PPPoE, an L2TPv3
        session without ip_proto l2tp; or num_of_vlans making a tag of the
        protocol."""
        r = self.rng
        c = r.choice(('flagsmask', 'flagsnomask', 'flagsbits', 'cvlan',
                      'cvlanrange', 'cvlanrange', 'nvlans', 'ppp', 'ppp',
                      'l2tp'))
        op.label += ':' + c
        flags = (T_IP_FLAGS, T_IP_FLAGS_MASK)
        if c == 'flagsmask':
            attrs[:] = [a for a in attrs if a[0] & TYPE_MASK != T_IP_FLAGS]
            attrs.append((T_IP_FLAGS_MASK, struct.pack('>I', r.randrange(4)),
                          None))
        elif c == 'flagsnomask':
            attrs[:] = [a for a in attrs if a[0] & TYPE_MASK not in flags]
            attrs.append((T_IP_FLAGS, struct.pack('>I', r.randrange(4)),
                          None))
        elif c == 'flagsbits':
            attrs[:] = [a for a in attrs if a[0] & TYPE_MASK not in flags]
            v = r.choice((4, 8, 0x80000000, r.randrange(1 << 32)))
            x = r.random()
            attrs.append((T_IP_FLAGS, struct.pack(
                '>I', v if x < 0.5 else r.randrange(4)), None))
            attrs.append((T_IP_FLAGS_MASK, struct.pack(
                '>I', v if x >= 0.5 else 3), None))
        elif c == 'cvlan':          # on whatever the filter is
            attrs.append((r.choice(CVLAN_ATTRS), None, None))
            t = attrs[-1][0]
            attrs[-1] = (t, self.garbage(ATTR_LEN[t]), None)
        elif c == 'cvlanrange':
            if r.random() < 0.7:
                self.onto(op, attrs, 'qinq')
            attrs[:] = [a for a in attrs if a[0] & TYPE_MASK not in
                        (T_CVLAN_ID, T_CVLAN_PRIO)]
            if r.random() < 0.5:
                attrs.append((T_CVLAN_ID, struct.pack(
                    '<H', r.randrange(4096, 65536)), None))
            else:
                attrs.append((T_CVLAN_PRIO, bytes([r.randrange(8, 256)]),
                              None))
        elif c == 'nvlans':
            attrs[:] = [a for a in attrs if a[0] & TYPE_MASK !=
                        T_NUM_OF_VLANS]
            attrs.append((T_NUM_OF_VLANS, bytes([r.choice((1, 2, 3, 255))]),
                          None))
        elif c == 'ppp':
            if r.random() < 0.3:
                self.onto(op, attrs, 'pppoe')
            attrs.append((r.choice((T_PPP_PROTO, T_PPPOE_SID)), struct.pack(
                '>H', r.choice((0x21, 0x57, r.randrange(65536)))), None))
        elif c == 'l2tp':
            attrs.append((A['KEY_L2TPV3_SID'], self.garbage(4), None))

    def mutate_mpls(self, op, attrs):
        """MPLS keys out of range, both forms at once, broken nested
        options (most of them on an MPLS filter, so that the checks
        behind the protocol's are reached); or on another protocol."""
        r = self.rng
        c = r.choice(('range', 'range', 'both', 'opts', 'opts', 'opts',
                      'opts', 'proto'))
        op.label += ':' + c
        if c != 'proto' and r.random() < 0.8:
            self.onto(op, attrs, 'mpls')
        if c == 'range':
            name = r.choice(('BOS', 'TC', 'LABEL'))
            off, ln, m = LSE_FIELD[name]
            bad = r.choice((m + 1, m + 2, (1 << 8 * ln) - 1,
                            r.randrange(m + 1, 1 << 8 * ln)))
            v = bytes([bad]) if ln == 1 else struct.pack('<I', bad)
            if r.random() < 0.5:
                self.drop_mpls(attrs)
                attrs.append((A['KEY_MPLS_' + name], v, None))
            else:
                self.drop_mpls(attrs)
                parts = [nla(LSE_ATTR['DEPTH'], bytes([r.randrange(1, 8)])),
                         nla(LSE_ATTR[name], v)]
                attrs.append((T_MPLS_OPTS, nla(MPLS_LSE, b''.join(parts)),
                              None))
        elif c == 'both':
            self.drop_mpls(attrs)
            attrs.append((A['KEY_MPLS_' + r.choice(MPLS_FIELDS[:3])],
                          b'\1', None))
            attrs.append((T_MPLS_OPTS, self.mpls_lse(1, ['LABEL']), None))
        elif c == 'opts':
            self.drop_mpls(attrs)
            attrs.append((T_MPLS_OPTS, self.bad_mpls_opts(), None))
        else:
            attrs.append((r.choice(T_MPLS + [T_MPLS_OPTS]), None, None))
            t = attrs[-1][0]
            attrs[-1] = (t, self.mpls_lse(1, ['TTL']) if t == T_MPLS_OPTS
                         else self.garbage(ATTR_LEN[t]), None)

    @staticmethod
    def drop_mpls(attrs):
        attrs[:] = [a for a in attrs if a[0] & TYPE_MASK not in
                    T_MPLS + [T_MPLS_OPTS]]

    def bad_mpls_opts(self):
        """A KEY_MPLS_OPTS payload the kernel refuses (most of the time: a
        random one may happen to be valid; the model says)."""
        r = self.rng
        ok = self.mpls_lse(1, ['LABEL'])
        depth = nla(LSE_ATTR['DEPTH'], b'\2')
        c = r.choice(('empty', 'short', 'kind', 'nodepth', 'depth', 'dup',
                      'len', 'len', 'unknown', 'trail', 'listtrail',
                      'unpadded', 'random', 'onlydepth'))
        if c == 'empty':
            return b''
        if c == 'short':
            return self.garbage(r.randrange(1, 4))
        if c == 'kind':             # not an LSE
            return ok * r.randrange(2) + nla(
                r.choice((0, 2, 3, 0x3FFF)) | r.choice((0, NLA_F_NESTED)),
                depth)
        if c == 'nodepth':
            return nla(MPLS_LSE, nla(LSE_ATTR['TTL'], b'\1'))
        if c == 'depth':
            return nla(MPLS_LSE, nla(LSE_ATTR['DEPTH'], bytes([r.choice(
                (0, 8, 9, 255))])))
        if c == 'dup':              # the same depth twice
            d = r.randrange(1, 8)
            return self.mpls_lse(d, ['TTL']) + self.mpls_lse(d, ['LABEL'])
        if c == 'len':
            name = r.choice(('DEPTH', 'TTL', 'BOS', 'TC', 'LABEL'))
            n = r.choice((0, 2, 3, 8)) if name == 'LABEL' else \
                r.choice((0, 2, 4))
            return nla(MPLS_LSE, (depth if name != 'DEPTH' else b'') +
                       nla(LSE_ATTR[name], bytes(n)))
        if c == 'unknown':
            return nla(MPLS_LSE, depth + nla(r.choice(
                (0, LSE_MAX + 1, 0x3FFF)), b''))
        if c == 'trail':            # bytes after an entry's attributes
            return nla(MPLS_LSE, depth + self.garbage(r.randrange(1, 4)))
        if c == 'listtrail':        # bytes after the last entry
            return ok + self.garbage(r.randrange(1, 4))
        if c == 'unpadded':
            # the last entry ends in an unpadded DEPTH: it parses, but the
            # list's walk ends 3 bytes past its end (rem < 0)
            inner = nla(LSE_ATTR['TTL'], b'\5') + \
                struct.pack('<HH', 5, LSE_ATTR['DEPTH']) + b'\3'
            return struct.pack('<HH', 4 + len(inner), MPLS_LSE) + inner
        if c == 'onlydepth':        # valid: the packet has an entry there
            return nla(MPLS_LSE, depth)
        return self.garbage(r.randrange(4, 40))

    def mutate_top(self, op):
        r = self.rng
        c = r.choice(('noflags', 'nokind', 'kind', 'longkind', 'ifindex',
                      'parent', 'chain', 'proto0', 'protoconflict'))
        op.label += ':' + c
        if c == 'noflags':
            op.flags &= ~(NLM_F_CREATE | NLM_F_EXCL | NLM_F_REPLACE)
        elif c == 'nokind':
            op.kind = None
        elif c == 'kind':
            # an unknown kind makes the kernel try to load cls_<kind>:
            # slow in the guest, so keep it rare
            op.kind = 'flowerx' if r.random() < 0.15 else 'flower'
        elif c == 'longkind':
            op.kind = 'flower' + 'x' * r.randrange(10, 30)
        elif c == 'ifindex':
            op.ifindex = r.choice((0, 1, 0x7FFFFFFE))
        elif c == 'parent':
            op.parent = r.choice((0, 0x12340000, 0xFFFF0000, 0xFFFFFFF2,
                                  0xFFFFFFFF, 0xFFFE0000))
        elif c == 'chain':
            op.chain = r.choice((TC_ACT_EXT_VAL_MASK + 1, 0xFFFFFFFF,
                                 TC_ACT_EXT_VAL_MASK))
        elif c == 'proto0':
            op.proto = 0
        elif c == 'protoconflict':
            op.proto = r.choice(list(ETH_P.values()) + [r.randrange(65536)])

    def garbage(self, n):
        return bytes(self.rng.randrange(256) for _ in range(n))

    def value_like(self, t, d):
        return bytes(self.rng.randrange(256) for _ in range(len(d)))

    def bad_tail(self):
        """Bytes after the last attribute of TCA_OPTIONS that do not form
        an attribute: nla_for_each_nested() stops with bytes left."""
        r = self.rng
        c = r.random()
        if c < 0.4:
            return self.garbage(r.randrange(1, 4)), True
        if c < 0.7:     # header claiming less than a header
            return struct.pack('<HH', r.randrange(0, 4),
                               r.randrange(1 << 16)), True
        # header claiming more than what is left
        extra = self.garbage(r.randrange(0, 8))
        return struct.pack('<HH', 4 + len(extra) + r.randrange(1, 200),
                           r.randrange(1, FLOWER_MAX + 1)) + extra, True

    def act_garbage(self):
        """(payload, meta) for a TCA_FLOWER_ACT that is not a well-formed
        action list; meta is the expected result: an Err, or the actions
        ([]: an action list with no action at prio 1 is accepted empty)."""
        r = self.rng
        bad = Err((errno.EINVAL, errno.ERANGE), ANY)
        c = r.choice(('empty', 'ignored', 'noprio1', 'nokind', 'nokind',
                      'gact-noopts', 'gact-noparms', 'gact-shortparms',
                      'badverdict', 'longkind', 'second-bad', 'random',
                      'random', 'unknownkind'))
        gact_ok = nla(1, b'gact\0') + nla(0x8002, nla(2, struct.pack(
            '<IIiii', 0, 0, 2, 0, 0)))
        if c == 'empty':
            return b'', []
        if c == 'ignored':
            return b''.join(nla(r.choice((0, 33, 40, 0x3FFF)),
                                self.garbage(r.randrange(8)))
                            for _ in range(r.randrange(1, 4))), []
        if c == 'noprio1':
            return nla(r.randrange(2, 33), gact_ok), []
        if c == 'nokind':
            inner = b''.join(nla(r.choice((3, 5, 8, 9)),
                                 self.garbage(r.randrange(12)))
                             for _ in range(r.randrange(0, 3)))
            return nla(1, inner), bad
        if c == 'gact-noopts':
            return nla(1, nla(1, b'gact\0')), bad
        if c == 'gact-noparms':
            return nla(1, nla(1, b'gact\0') + nla(0x8002, nla(
                3, self.garbage(4)))), bad
        if c == 'gact-shortparms':
            return nla(1, nla(1, b'gact\0') + nla(0x8002, nla(
                2, self.garbage(r.randrange(0, 20))))), bad
        if c == 'badverdict':
            v = r.choice((9, 100, 0x7FFFFFFF, 0x30000000))
            return nla(1, nla(1, b'gact\0') + nla(0x8002, nla(
                2, struct.pack('<IIiii', 0, 0, v, 0, 0)))), \
                Err(errno.EINVAL, 'invalid control action')
        if c == 'longkind':
            return nla(1, nla(1, b'g' * r.randrange(16, 40) + b'\0')), \
                Err(errno.EINVAL, 'TC action name too long')
        if c == 'second-bad':
            return nla(1, gact_ok) + nla(2, nla(3, self.garbage(4))), \
                Err(errno.EINVAL, 'TC action kind must be specified')
        if c == 'unknownkind' and r.random() < 0.15:
            # request_module("act_nosuch") runs modprobe: keep it rare
            return nla(1, nla(1, b'nosuch\0') + nla(0x8002, b'')), \
                Err(errno.ENOENT, 'Failed to load TC action module')
        # random bytes: accepted empty when they hold no attribute of type
        # 1 (prio 1); anything with one is refused.  Avoid bytes that name
        # an action kind (a module load per message).
        for _ in range(20):
            payload = self.garbage(r.randrange(0, 48))
            attrs, _rem = walk_attrs(payload)
            tb = {}
            for t, d in attrs:
                if 1 <= t & TYPE_MASK <= 32:
                    tb[t & TYPE_MASK] = d
            if 1 not in tb:
                return payload, []
            sub, _ = walk_attrs(tb[1])
            if not any(t & TYPE_MASK == 1 for t, _d in sub):
                # prio 1 without a kind, and every later prio is not
                # even looked at if prio 1 fails
                return payload, bad
        return b'', []


# requests counted by their answer (labels from Gen): another mask into a
# prio, a filter moved to another mask, an existing key under its mask
MASK_LABELS = ('add-newmask', 'replace-newmask', 'change-newmask',
               'add-samekey')

# meta_kinds(): the keys counted by kind (attribute name prefixes)
KINDS = (('tunnel', ('KEY_ENC_',)), ('ct', ('KEY_CT_',)),
         ('ip_flags', ('KEY_FLAGS',)), ('cvlan', ('KEY_CVLAN_',)),
         ('num_of_vlans', ('KEY_NUM_OF_VLANS',)), ('mpls', ('KEY_MPLS_',)),
         ('pppoe', ('KEY_PPPOE_', 'KEY_PPP_')), ('l2tpv3', ('KEY_L2TPV3_',)))


def meta_kinds(op):
    """The kinds of KINDS whose keys the request carries ('tunnel', 'ct',
    'ip_flags', ...)."""
    kinds = set()
    for t, _d, _m in op.attrs or ():
        a = flower_attrs.BY_NUMBER.get(t & TYPE_MASK)
        for kind, prefixes in KINDS:
            if a and a.name.startswith(prefixes):
                kinds.add(kind)
    return sorted(kinds)


# --- the run --------------------------------------------------------------
def sh(cmd):
    subprocess.run(cmd, shell=True, check=True)


def setup(devs_only=False):
    for d in ('fz0', 'fz1'):
        subprocess.run('ip link del %s 2>/dev/null' % d, shell=True)
        sh('ip link add %s type dummy && ip link set %s up' % (d, d))
    sh('tc qdisc add dev fz0 ingress')
    devs = {}
    for d in ('fz0', 'fz1', 'lo'):
        with open('/sys/class/net/%s/ifindex' % d) as f:
            devs[d] = int(f.read())
    return devs


def teardown():
    for d in ('fz0', 'fz1'):
        subprocess.run('ip link del %s 2>/dev/null' % d, shell=True)


def answer_matches(want, rep):
    """Whether the kernel's reply is the model's prediction (want: None
    for an ack, else the Err): the errno one of the predicted ones and
    the extack text exactly the predicted one (ANY: not predicted)."""
    if rep.lost:
        return False
    if want is None:
        return rep.err == 0
    return rep.err in want.codes and (want.msg is ANY or
                                      rep.msg == want.msg)


def outcome_text(rep):
    if rep.lost:
        return 'lost(%s)' % errno.errorcode.get(rep.err, rep.err)
    if rep.err == 0:
        return 'ack'
    return '%s %r' % (errno.errorcode.get(rep.err, rep.err), rep.msg)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--seed', type=int, default=None,
                   help='random seed (default: from the time; printed)')
    p.add_argument('--count', type=int, default=2000,
                   help='messages to send (default 2000)')
    p.add_argument('--time-limit', type=float, default=0,
                   help='stop after this many seconds (0: no limit)')
    p.add_argument('--check-every', type=int, default=250,
                   help='compare a dump with the model every N messages')
    p.add_argument('--reply-timeout', type=float, default=30)
    p.add_argument('--max-filters', type=int, default=400,
                   help='prefer deletes above this many filters')
    p.add_argument('--verbose', '-v', action='store_true',
                   help='print every message and its answer')
    p.add_argument('--show-failures', type=int, default=20)
    p.add_argument('--json', metavar='FILE', help='write the counts here')
    p.add_argument('--stock', action='store_true',
                   help='against the stock module (guest/run --variant '
                   'stock): dumps compared as sets of attributes, filters '
                   'ours would refuse kept opaque; every other difference '
                   'counts (most are ours\' refusals by design)')
    a = p.parse_args(argv)
    if a.stock:
        Stock.on = True
    seed = a.seed if a.seed is not None else int(time.time()) % 1000000
    rng = random.Random(seed)
    print('fuzz: seed %d, count %d, time limit %s' % (
        seed, a.count, a.time_limit or 'none'))

    devs = setup()
    model = Model(devs)
    gen = Gen(rng, model, devs['fz0'])
    nl = NLSock(timeout=a.reply_timeout)

    counts = collections.Counter()
    by_errno = collections.Counter()
    by_label = collections.Counter()
    passed = failed = 0
    failures = []
    t0 = time.monotonic()
    sent = 0

    def fail(text):
        nonlocal failed
        failed += 1
        if len(failures) < a.show_failures:
            failures.append(text)
            print('FAIL: ' + text)

    def check_dump(where):
        nonlocal passed
        try:
            bodies = nl.dump_filters(devs['fz0'])
        except (Timeout, OSError) as e:
            fail('%s: dump failed: %s' % (where, e))
            return
        problems = compare_dump(model, bodies)
        counts['dumps'] += 1
        counts['dumped filters'] += sum(
            1 for b in bodies if struct.unpack_from('<I', b, 8)[0])
        if problems:
            fail('%s: dumped filter set differs from the model (%d '
                 'differences):\n  %s' % (where, len(problems),
                                          '\n  '.join(problems[:15])))
            do_resync(where, bodies)
        else:
            passed += 1

    def do_resync(where, bodies):
        for why in resync(model, bodies):
            counts['unrebuilt filters'] += 1
            fail('%s: resync: %s' % (where, why))

    def mask_counts(commit):
        """commit(), counting what it did to its prio's masks."""
        tp = getattr(commit, 'tp', None)
        before = list(tp.masks) if tp is not None else []
        commit()
        if tp is None:
            return
        after = list(tp.masks)
        if before and any(c not in before for c in after):
            counts['masks added beside others'] += 1
        if after and any(c not in after for c in before):
            counts['masks dropped, others left'] += 1
        counts['most masks in a prio'] = max(counts['most masks in a prio'],
                                             len(after))

    for i in range(a.count):
        if a.time_limit and time.monotonic() - t0 > a.time_limit:
            print('fuzz: time limit reached after %d messages' % i)
            break
        x = rng.random()
        if model.nfilters() > a.max_filters:
            x = 0.55 + 0.1 * x        # delete
        if x < 0.30:
            op = gen.valid_add()
        elif x < 0.40:
            op = gen.replace()
        elif x < 0.43:
            op = gen.replace(change=True)
        elif x < 0.55:
            op = gen.invalid() if x < 0.47 else gen.valid_add()
        elif x < 0.67:
            op = gen.delete()
        elif x < 0.69:
            op = gen.get()
        else:
            op = gen.invalid()
        op.sanitize()
        by_label[op.label.split('-')[0].split(':')[0]] += 1
        mask_label = '-'.join(op.label.split(':')[0].split('-')[:2])
        if mask_label not in MASK_LABELS:
            mask_label = None
        try:
            if op.what == 'new':
                commit = model.predict_new(op)
            elif op.what == 'del':
                commit = model.predict_del(op)
            else:
                commit = model.predict_get(op)
            want = None
        except Err as e:
            commit, want = None, e
        data = op.encode()
        try:
            rep = nl.request(data)
        except Timeout as e:
            counts['timeouts'] += 1
            fail('message %d: %s: %s' % (i, e, op.describe()))
            break
        sent += 1
        counts['messages'] += 1
        meta = meta_kinds(op)
        for k in meta:
            counts['with %s keys' % k] += 1
        if rep.lost:
            counts['lost'] += 1
        elif rep.err == 0:
            counts['accepted'] += 1
            for k in meta:
                counts['accepted with %s keys' % k] += 1
        else:
            by_errno[errno.errorcode.get(rep.err, str(rep.err))] += 1
        if a.verbose:
            print('%5d %s -> %s' % (i, op.describe(), outcome_text(rep)))

        ok = answer_matches(want, rep)
        if ok and want is None and op.what == 'get':
            tp, f = commit.filter
            bodies = [b for t, _f, b in rep.msgs if t == RTM_NEWTFILTER]
            if len(bodies) != 1:
                ok = False
            else:
                _fl, _tca, opts, entry = decode_filter(bodies[0])
                why = compare_filter(model, tp, f, opts or [], entry)
                if why:
                    fail('message %d (get): %s' % (i, why))
                    ok = None
        if mask_label:
            counts[mask_label] += 1
            counts['%s %s' % (mask_label, outcome_text(rep).split()[0])] += 1
        if ok:
            passed += 1
            if commit is not None:
                mask_counts(commit)
        elif ok is False:
            expected = 'ack' if want is None else '%s %r' % (
                '/'.join(errno.errorcode.get(c, str(c))
                         for c in sorted(want.codes)), want.msg)
            fail('message %d: expected %s, got %s: %s'
                 % (i, expected, outcome_text(rep), op.describe()))
            # find out what the kernel holds now and go on from there
            try:
                bodies = nl.dump_filters(devs['fz0'])
            except (Timeout, OSError) as e:
                fail('message %d: dump for the resync failed: %s' % (i, e))
            else:
                do_resync('after message %d' % i, bodies)
        if a.check_every and (i + 1) % a.check_every == 0:
            check_dump('after message %d' % i)
    check_dump('at the end')
    elapsed = time.monotonic() - t0

    # the qdisc (and every filter with it) goes away cleanly
    rc = subprocess.run('tc qdisc del dev fz0 ingress', shell=True).returncode
    if rc:
        fail('tc qdisc del dev fz0 ingress failed (%d)' % rc)
    else:
        passed += 1
    teardown()

    print('fuzz: %d messages in %.1f s (%.0f/s): %d accepted, %d refused, '
          '%d lost, %d timeouts; %d dumps compared (%d filters)'
          % (counts['messages'], elapsed, counts['messages'] / max(elapsed,
                                                                   1e-9),
             counts['accepted'], sum(by_errno.values()), counts['lost'],
             counts['timeouts'], counts['dumps'], counts['dumped filters']))
    print('fuzz: refused by errno: ' + ', '.join(
        '%s %d' % kv for kv in sorted(by_errno.items(),
                                      key=lambda kv: -kv[1])))
    print('fuzz: kinds of message: ' + ', '.join(
        '%s %d' % kv for kv in sorted(by_label.items())))
    print('fuzz: sent with tunnel keys %d (%d accepted), with conntrack '
          'keys %d (%d accepted); resync: %d dumped filters not rebuilt'
          % (counts['with tunnel keys'], counts['accepted with tunnel keys'],
             counts['with ct keys'], counts['accepted with ct keys'],
             counts['unrebuilt filters']))
    print('fuzz: masks: %d added to a prio beside others, %d dropped with '
          'others left, at most %d in one prio'
          % (counts['masks added beside others'],
             counts['masks dropped, others left'],
             counts['most masks in a prio']))
    print('fuzz: sent (answers): ' + '; '.join(
        '%s %d (%s)' % (lb, counts[lb], ', '.join(
            '%s %d' % (k[len(lb) + 1:], n) for k, n in sorted(counts.items())
            if k.startswith(lb + ' '))) for lb in MASK_LABELS))
    if a.stock:
        print('fuzz: --stock: %d dumped filters kept opaque (the model '
              'cannot rebuild them)' % model.opaque)
    print('fuzz: sent with ' + ', '.join(
        '%s keys %d (%d accepted)' % (k, counts['with %s keys' % k],
                                      counts['accepted with %s keys' % k])
        for k, _p in KINDS[2:]))
    if a.json:
        with open(a.json, 'w') as f:
            json.dump({'seed': seed, 'count': a.count,
                       'messages': counts['messages'],
                       'accepted': counts['accepted'],
                       'refused': dict(by_errno), 'lost': counts['lost'],
                       'timeouts': counts['timeouts'],
                       'dumps': counts['dumps'],
                       'dumped_filters': counts['dumped filters'],
                       'tunnel': counts['with tunnel keys'],
                       'tunnel_accepted': counts['accepted with tunnel keys'],
                       'ct': counts['with ct keys'],
                       'ct_accepted': counts['accepted with ct keys'],
                       'unrebuilt': counts['unrebuilt filters'],
                       'masks_added': counts['masks added beside others'],
                       'masks_dropped': counts['masks dropped, others left'],
                       'most_masks': counts['most masks in a prio'],
                       'kinds': {k: [counts['with %s keys' % k],
                                     counts['accepted with %s keys' % k]]
                                 for k, _p in KINDS},
                       'seconds': round(elapsed, 1),
                       'passed': passed, 'failed': failed}, f, indent=1)
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
