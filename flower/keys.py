# SPDX-License-Identifier: GPL-2.0
"""flower.keys - the flower keys, one row each.

A row says:
  name    our name for the key (the difftest corpus' JSON uses it)
  attr    the TCA_FLOWER_* attribute carrying the value (without the prefix)
  mask    the attribute carrying its mask, None for an exact key
  member  the struct fl_flow_key member it fills
  need    what the filter must give for the key to apply (enum fl_need,
          without FL_NEED_; flower/needs.py): without it the key is
          ignored, with a warning
  width   the member's (and the attributes') length in bytes
  tc      the word tc's flower takes for it (tc -j prints the same word,
          but "icmp_type"/"icmp_code" for "type"/"code"); None: tc 6.1
          has none (the hash key)
  family  the key family of kernel/series/families that brings the key:
          the first step of the patch series (kernel/series/series) whose
          classifier parses it.  tdc/series_cases.py runs a tdc case
          whose filters use the key (its attribute, mask or tc word) from
          that step on
  field   the packet field it matches, in flower/packets.py's model
          (None: the key is the filter's protocol shape, ip_proto or an
          inner ethertype, which the generator sets itself; or the hash,
          which is the skb's, not the frame's)
  bits    the value bits a packet can carry.  Wider values: MPLS fields
          are refused (as on stock); VLAN ids and priorities are masked
          to these bits and unknown ip_flags bits dropped, TCP flag
          bits above them kept, each with a warning (flower/needs.py)
  table   True: a row of cls_flower.c's fl_keys[], parsed and dumped by the
          table; False: parsed by its own function (fl_set_key_vlans(),
          fl_set_key_ip_flags(), fl_set_key_mpls(), fl_set_key_pppoe())

KEYS lists the fl_keys[] rows first, in that array's order (the order the
kernel parses them: IP_PROTO first, since whether a later key applies can
depend on it), then the others.  flower/tests/test_keys.py parses
fl_keys[] out of kernel/net/sched/cls_flower.c and fails when the table
rows here differ from it: adding a key is one C row and one row here
(tdc/tests/test_series_cases.py checks that its family is one of
kernel/series/families').
"""

import collections

from flower import needs, uapi

Key = collections.namedtuple(
    'Key', 'name attr mask member need width tc family field bits table')


def _row(name, attr, masked, member, need, width, tc, family, field=None,
         bits=None, table=True):
    attr = 'KEY_' + attr
    return Key(name, attr, attr + '_MASK' if masked else None, member, need,
               width, tc, family, field,
               (1 << 8 * width) - 1 if bits is None else bits, table)


M, X = True, False      # masked, exact
KEYS = (
    # name  attr  masked  member  need  width  tc  family  [field]
    _row('ip_proto', 'IP_PROTO', X, 'basic.ip_proto', 'IP', 1, 'ip_proto',
         'core'),
    _row('eth_dst', 'ETH_DST', M, 'eth.dst', 'NONE', 6, 'dst_mac',
         'core', 'dst'),
    _row('eth_src', 'ETH_SRC', M, 'eth.src', 'NONE', 6, 'src_mac',
         'core', 'src'),
    _row('num_of_vlans', 'NUM_OF_VLANS', X, 'num_of_vlans', 'NONE', 1,
         'num_of_vlans', 'vlan', 'ntags', bits=0x3),
    _row('pppoe_sid', 'PPPOE_SID', X, 'pppoe.session_id', 'PPPOE', 2,
         'pppoe_sid', 'pppoe', 'pppoe.sid'),
    _row('ipv4_src', 'IPV4_SRC', M, 'ipv4.src', 'IPV4_ADDRS', 4, 'src_ip',
         'core', 'ip.src'),
    _row('ipv4_dst', 'IPV4_DST', M, 'ipv4.dst', 'IPV4_ADDRS', 4, 'dst_ip',
         'core', 'ip.dst'),
    _row('ipv6_src', 'IPV6_SRC', M, 'ipv6.src', 'NO_IPV4_ADDRS', 16,
         'src_ip', 'core', 'ip.src'),
    _row('ipv6_dst', 'IPV6_DST', M, 'ipv6.dst', 'NO_IPV4_ADDRS', 16,
         'dst_ip', 'core', 'ip.dst'),
    _row('ip_tos', 'IP_TOS', M, 'ip.tos', 'IP', 1, 'ip_tos',
         'tos_ttl', 'ip.tos'),
    _row('ip_ttl', 'IP_TTL', M, 'ip.ttl', 'IP', 1, 'ip_ttl',
         'tos_ttl', 'ip.ttl'),
    _row('tcp_src', 'TCP_SRC', M, 'tp.src', 'TCP', 2, 'src_port',
         'core', 'l4.sport'),
    _row('tcp_dst', 'TCP_DST', M, 'tp.dst', 'TCP', 2, 'dst_port',
         'core', 'l4.dport'),
    _row('udp_src', 'UDP_SRC', M, 'tp.src', 'UDP', 2, 'src_port',
         'core', 'l4.sport'),
    _row('udp_dst', 'UDP_DST', M, 'tp.dst', 'UDP', 2, 'dst_port',
         'core', 'l4.dport'),
    _row('sctp_src', 'SCTP_SRC', M, 'tp.src', 'SCTP', 2, 'src_port',
         'sctp', 'l4.sport'),
    _row('sctp_dst', 'SCTP_DST', M, 'tp.dst', 'SCTP', 2, 'dst_port',
         'sctp', 'l4.dport'),
    # port ranges: exact min and max, the tc word's "MIN-MAX" form, for
    # any of tcp, udp and sctp
    _row('port_dst_min', 'PORT_DST_MIN', X, 'tp_range.tp_min.dst', 'L4', 2,
         'dst_port', 'port_range', 'l4.dport'),
    _row('port_dst_max', 'PORT_DST_MAX', X, 'tp_range.tp_max.dst', 'L4', 2,
         'dst_port', 'port_range', 'l4.dport'),
    _row('port_src_min', 'PORT_SRC_MIN', X, 'tp_range.tp_min.src', 'L4', 2,
         'src_port', 'port_range', 'l4.sport'),
    _row('port_src_max', 'PORT_SRC_MAX', X, 'tp_range.tp_max.src', 'L4', 2,
         'src_port', 'port_range', 'l4.sport'),
    _row('tcp_flags', 'TCP_FLAGS', M, 'tcp.flags', 'TCP', 2, 'tcp_flags',
         'tcp_flags', 'l4.flags', bits=0x0fff),
    _row('icmpv4_type', 'ICMPV4_TYPE', M, 'icmp.type', 'ICMPV4', 1, 'type',
         'icmp', 'l4.type'),
    _row('icmpv4_code', 'ICMPV4_CODE', M, 'icmp.code', 'ICMPV4', 1, 'code',
         'icmp', 'l4.code'),
    _row('icmpv6_type', 'ICMPV6_TYPE', M, 'icmp.type', 'ICMPV6', 1, 'type',
         'icmp', 'l4.type'),
    _row('icmpv6_code', 'ICMPV6_CODE', M, 'icmp.code', 'ICMPV6', 1, 'code',
         'icmp', 'l4.code'),
    _row('arp_op', 'ARP_OP', M, 'arp.op', 'ARP', 1, 'arp_op',
         'arp', 'arp.op'),
    _row('arp_sip', 'ARP_SIP', M, 'arp.sip', 'ARP', 4, 'arp_sip',
         'arp', 'arp.sip'),
    _row('arp_tip', 'ARP_TIP', M, 'arp.tip', 'ARP', 4, 'arp_tip',
         'arp', 'arp.tip'),
    _row('arp_sha', 'ARP_SHA', M, 'arp.sha', 'ARP', 6, 'arp_sha',
         'arp', 'arp.sha'),
    _row('arp_tha', 'ARP_THA', M, 'arp.tha', 'ARP', 6, 'arp_tha',
         'arp', 'arp.tha'),
    _row('l2tpv3_sid', 'L2TPV3_SID', X, 'l2tpv3.session_id', 'L2TP', 4,
         'l2tpv3_sid', 'l2tpv3', 'l4.sid'),
    # the skb's flow hash (skb_get_hash_raw()), no packet field; tc 6.1
    # has no word for it
    _row('hash', 'HASH', M, 'hash.hash', 'NONE', 4, None, 'hash'),
    _row('enc_key_id', 'ENC_KEY_ID', X, 'enc_keyid.keyid', 'NONE', 4,
         'enc_key_id', 'tunnel',
         'tun.vni'),
    _row('enc_ipv4_src', 'ENC_IPV4_SRC', M, 'enc_ipv4.src',
         'NO_ENC_IPV6_ADDRS', 4,
         'enc_src_ip', 'tunnel',
         'tun.src'),
    _row('enc_ipv4_dst', 'ENC_IPV4_DST', M, 'enc_ipv4.dst',
         'NO_ENC_IPV6_ADDRS', 4,
         'enc_dst_ip', 'tunnel',
         'tun.dst'),
    _row('enc_ipv6_src', 'ENC_IPV6_SRC', M, 'enc_ipv6.src',
         'ENC_IPV6_ADDRS', 16,
         'enc_src_ip', 'tunnel',
         'tun.src'),
    _row('enc_ipv6_dst', 'ENC_IPV6_DST', M, 'enc_ipv6.dst',
         'ENC_IPV6_ADDRS', 16,
         'enc_dst_ip', 'tunnel',
         'tun.dst'),
    _row('enc_udp_src', 'ENC_UDP_SRC_PORT', M, 'enc_tp.src', 'NONE', 2,
         'enc_src_port', 'tunnel',
         'tun.sport'),
    _row('enc_udp_dst', 'ENC_UDP_DST_PORT', M, 'enc_tp.dst', 'NONE', 2,
         'enc_dst_port', 'tunnel',
         'tun.dport'),
    _row('enc_ip_tos', 'ENC_IP_TOS', M, 'enc_ip.tos', 'NONE', 1, 'enc_tos',
         'tunnel',
         'tun.tos'),
    _row('enc_ip_ttl', 'ENC_IP_TTL', M, 'enc_ip.ttl', 'NONE', 1, 'enc_ttl',
         'tunnel',
         'tun.ttl'),
    _row('ct_state', 'CT_STATE', M, 'ct.ct_state', 'NONE', 2, 'ct_state',
         'conntrack', 'ct.state'),
    _row('ct_zone', 'CT_ZONE', M, 'ct.ct_zone', 'NONE', 2, 'ct_zone',
         'conntrack', 'ct.zone'),
    _row('ct_mark', 'CT_MARK', M, 'ct.ct_mark', 'NONE', 4, 'ct_mark',
         'conntrack', 'ct.mark'),
    _row('ct_labels', 'CT_LABELS', M, 'ct.ct_labels', 'NONE', 16,
         'ct_label', 'conntrack', 'ct.labels'),
    # --- parsed by their own functions --------------------------------------
    _row('vlan_id', 'VLAN_ID', X, 'vlan.vlan_id', 'VLAN', 2, 'vlan_id',
         'vlan', 'tag0.vid', bits=0x0fff, table=False),
    _row('vlan_prio', 'VLAN_PRIO', X, 'vlan.vlan_priority', 'VLAN', 1,
         'vlan_prio', 'vlan', 'tag0.prio', bits=0x7, table=False),
    # the tag's inner ethertype: the filter's n_proto under a tag
    _row('vlan_ethtype', 'VLAN_ETH_TYPE', X, 'basic.n_proto', 'VLAN', 2,
         'vlan_ethtype', 'vlan', table=False),
    _row('cvlan_ethtype', 'CVLAN_ETH_TYPE', X, 'basic.n_proto', 'CVLAN', 2,
         'cvlan_ethtype', 'vlan', table=False),
    _row('cvlan_id', 'CVLAN_ID', X, 'cvlan.vlan_id', 'CVLAN', 2, 'cvlan_id',
         'vlan', 'tag1.vid', bits=0x0fff, table=False),
    _row('cvlan_prio', 'CVLAN_PRIO', X, 'cvlan.vlan_priority', 'CVLAN', 1,
         'cvlan_prio', 'vlan', 'tag1.prio', bits=0x7, table=False),
    _row('ip_flags', 'FLAGS', M, 'control.flags', 'NONE', 4, 'ip_flags',
         'ip_flags', 'ip.fragflags', bits=sum(uapi.KEY_FLAGS_BITS.values()),
         table=False),
    _row('mpls_label', 'MPLS_LABEL', X, 'mpls.ls[0]', 'MPLS', 4,
         'mpls_label', 'mpls', 'mpls0.label', bits=0xfffff, table=False),
    _row('mpls_tc', 'MPLS_TC', X, 'mpls.ls[0]', 'MPLS', 1, 'mpls_tc',
         'mpls', 'mpls0.tc', bits=0x7, table=False),
    _row('mpls_bos', 'MPLS_BOS', X, 'mpls.ls[0]', 'MPLS', 1, 'mpls_bos',
         'mpls', 'mpls0.bos', bits=0x1, table=False),
    _row('mpls_ttl', 'MPLS_TTL', X, 'mpls.ls[0]', 'MPLS', 1, 'mpls_ttl',
         'mpls', 'mpls0.ttl', table=False),
    _row('ppp_proto', 'PPP_PROTO', X, 'basic.n_proto', 'PPPOE', 2,
         'ppp_proto', 'pppoe', 'pppoe.proto', table=False),
)
KEY = {k.name: k for k in KEYS}
BY_ATTR = {k.attr: k for k in KEYS}
TABLE_ROWS = tuple(k for k in KEYS if k.table)     # fl_keys[], in order

# The byte order each attribute is carried in, from its nla type in the
# uAPI table: 'he' host order (little endian on x86), 'be' network order
# (addresses too), 'u8' a single byte.
_ORDER = {'uint8': 'u8', 'uint16': 'he', 'uint32': 'he', 'be16': 'be',
          'be32': 'be', 'l2addr': 'be', 'ip4addr': 'be', 'ip6addr': 'be',
          'hex': 'be'}


def order(key):
    return _ORDER[uapi.BY_NAME[key.attr].nla_type]


def json_word(key):
    """The key's name in `tc -j filter show` (keys of the "keys" object),
    None for a key tc does not print."""
    return 'icmp_' + key.tc if key.tc in ('type', 'code') else key.tc


def need_message(key):
    """ours' extack when the filter does not give what the key needs."""
    return needs.MESSAGES.get(key.need)
