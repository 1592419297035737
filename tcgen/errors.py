# SPDX-License-Identifier: GPL-2.0
"""tcgen.errors - what tc and the netlink policy refuse, and the raw
requests the stock flower accepts though they are not what they seem
(docs/leniency.md), beside those it refuses.
"""

from flower import uapi
from tcgen.cases import (batch_words, dump, flnl, refused_many, refused_rx,
                         stats_json, tc_filter)
from tcgen.common import LENIENCY, SHOW, SHOW_STATS, TCA_FLOWER_MAX
from tcgen.matches import (arp_op, icmp, ip, ip_flags, ip_proto, mac, port,
                           tcp_flags, u8, vlan_id, vlan_prio)
from tcgen.packets import ingress_bytes, ip4, l2tp
from tcgen.variant import V


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
    c.refused(t, 'ip_flags without its mask: Missing flags mask',
              flnl('add', 'ip', raw=['key_flags=00000001']), 22,
              'Missing flags mask')
    c.refused(t, 'mpls_label above 20 bits: refused with its range',
              flnl('add', 'mpls_uc', raw=['key_mpls_label=00001000']), 22,
              'Label must be between 0 and 1048575')
    # tc 6.1 has no l2tpv3_sid: the filter goes in through $FLNL
    c.case('packets-l2tp', 'Packets: ip_proto 115 l2tpv3_sid 1234 ($FLNL) '
           'counts the matching frame and not sid 1235 or plain UDP',
           flnl('add', 'ip', ['ip_proto=115'],
                raw=['key_l2tpv3_sid=000004d2'], handle=1) +
           ' --action drop',
           scapy=[(l2tp(1234), 1), (l2tp(1235), 1), (ip4(), 1)],
           verify=SHOW_STATS,
           match_json=stats_json('ip', 1, ingress_bytes(l2tp(1234))))


# An attribute shorter than its type: both flowers' netlink policies
# (liberal parsing) refuse it with ERANGE.  Only the errno is checked:
# the stock flower parses its options without an extack, so it says
# nothing, ours says "Attribute failed policy validation" (an integer) or
# "binary attribute size out of range" (a byte string: a MAC, an IPv6
# address).
SHORT_ERRNO = 34


def short_error(name):
    """(errno, extack) for attribute `name` sent shorter than its type."""
    assert uapi.BY_NAME[name].length
    return SHORT_ERRNO, ''


def options(proto, matches, handle=1):
    """tc -j's "options" of a filter that has `matches` (what the stock
    flower keeps of a request and dumps: tc prints an IP address only
    beside the ethertype of its family)."""
    return V('errors', '', proto, list(matches), [], [], []).options(handle)


def kept_ip_proto(attrs):
    """The ip_proto match of $FLNL attributes that give one (ip_proto=N)."""
    return [ip_proto(IP_PROTO_NAME[int(a.split('=')[1])])
            for a in attrs if a.startswith('ip_proto=')]


IP_PROTO_NAME = {6: 'tcp', 17: 'udp', 132: 'sctp', 1: 'icmp', 58: 'icmpv6'}

# mask attribute -> (protocol, attributes that satisfy its need, if any):
# without its key, the mask is ignored (stock), with a warning (ours)
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


# (attribute, payload in hex of the wrong length, protocol, attributes
# before it, what the filter matches: None when the payload is shorter
# than the type, which both flowers refuse; when it is longer, both read
# its first bytes (ours warns), and the filter matches what tc -j then
# prints)
WRONG_LENGTH = [
    ('KEY_ETH_DST', '0200000000', 'all', [], None),
    ('KEY_ETH_SRC_MASK', 'ffffffffffffff', 'all',
     ['eth_src=02:00:00:00:00:01'], [mac('src_mac', '02:00:00:00:00:01')]),
    ('KEY_ETH_TYPE', '08000000', 'ip', [], []),
    ('KEY_IP_PROTO', '0600', 'ip', [], [ip_proto('tcp')]),
    ('KEY_IPV4_DST', '0a0000', 'ip', [], None),
    ('KEY_IPV4_SRC_MASK', 'ffffff00ff', 'ip', ['ipv4_src=10.0.0.0'],
     [ip('src_ip', '10.0.0.0', 24)]),
    ('KEY_IPV6_SRC', '20010db8' + '00' * 11, 'ipv6', [], None),
    ('KEY_IPV6_DST_MASK', 'ff' * 17, 'ipv6', ['ipv6_dst=2001:db8::'],
     [ip('dst_ip', '2001:db8::')]),
    ('KEY_TCP_DST', '50', 'ip', ['ip_proto=6'], None),
    ('KEY_UDP_SRC_MASK', 'ffffff', 'ip', ['ip_proto=17', 'udp_src=53'],
     [ip_proto('udp'), port('src_port', 'udp', 53)]),
    ('KEY_SCTP_DST', '', 'ip', ['ip_proto=132'], None),
    ('KEY_TCP_FLAGS', '02', 'ip', ['ip_proto=6'], None),
    ('KEY_ICMPV4_TYPE', '0800', 'ip', ['ip_proto=1'],
     [ip_proto('icmp'), icmp('type', False, 8)]),
    ('KEY_ICMPV6_CODE', '', 'ipv6', ['ip_proto=58'], None),
    ('KEY_ARP_OP', '0100', 'arp', [], [arp_op('request')]),
    ('KEY_ARP_TIP', '0a00', 'arp', [], None),
    ('KEY_ARP_THA', '02000000000100', 'arp', [],
     [mac('arp_tha', '02:00:00:00:00:01')]),
    ('KEY_IP_TOS', '1000', 'ip', [], [u8('ip_tos', 16)]),
    ('KEY_IP_TTL_MASK', '', 'ip', ['ip_ttl=64'], None),
    ('KEY_VLAN_ID', '0a', '802.1q', [], None),
    ('KEY_VLAN_PRIO', '0300', '802.1q', [], [vlan_prio(3)]),
    ('KEY_VLAN_ETH_TYPE', '08', '802.1q', [], None),
    ('CLASSID', '0100', 'ip', [], None),
    ('FLAGS', '01', 'ip', [], None),
]

# (protocol, attributes, label, what the stock flower keeps of them: the
# matches tc -j prints).  The last attribute is a key the filter does not
# give the prerequisite of, or an address of another family than the
# protocol's.  Both flowers accept the filter; the key is ignored (ours
# warns with flower.needs.MESSAGES[its need]), but an address key is kept
# (ours warns with WARNINGS['addr_family']), where tc -j does not print
# it (it prints the addresses of the protocol's family only).
LENIENT_KEYS = [
    ('arp', ['ip_proto=6'], 'ip_proto on protocol arp', []),
    ('all', ['ip_proto=17'], 'ip_proto without an ethertype', []),
    ('802.1q', ['ip_tos=16'], 'ip_tos on protocol 802.1q', []),
    ('arp', ['ip_ttl=64'], 'ip_ttl on protocol arp', []),
    ('ipv6', ['ipv4_dst=10.0.0.1'], 'an IPv4 address on protocol ipv6', []),
    ('all', ['ipv4_src=10.0.0.1'], 'an IPv4 address without an ethertype',
     []),
    ('ip', ['ipv6_src=2001:db8::1'], 'an IPv6 address on protocol ip', []),
    ('arp', ['ipv6_dst=2001:db8::1'], 'an IPv6 address on protocol arp', []),
    ('ip', ['ip_proto=17', 'tcp_dst=80'], 'a tcp port with ip_proto udp',
     [ip_proto('udp')]),
    ('ip', ['tcp_src=80'], 'a tcp port without ip_proto', []),
    ('ipv6', ['ip_proto=17', 'tcp_flags=2'], 'tcp_flags with ip_proto udp',
     [ip_proto('udp')]),
    ('ip', ['ip_proto=6', 'udp_dst=53'], 'a udp port with ip_proto tcp',
     [ip_proto('tcp')]),
    ('ipv6', ['ip_proto=6', 'sctp_src=9'], 'an sctp port with ip_proto tcp',
     [ip_proto('tcp')]),
    ('ipv6', ['ip_proto=1', 'icmpv4_type=8'],
     'an ICMPv4 type on protocol ipv6', [ip_proto('icmp')]),
    ('ip', ['ip_proto=6', 'icmpv4_code=0'],
     'an ICMPv4 code with ip_proto tcp', [ip_proto('tcp')]),
    ('ip', ['ip_proto=58', 'icmpv6_type=128'],
     'an ICMPv6 type on protocol ip', [ip_proto('icmpv6')]),
    ('ipv6', ['ip_proto=1', 'icmpv6_code=0'],
     'an ICMPv6 code with ip_proto icmp', [ip_proto('icmp')]),
    ('ip', ['arp_op=1'], 'arp_op on protocol ip', []),
    ('ipv6', ['arp_sip=10.0.0.1'], 'arp_sip on protocol ipv6', []),
    ('all', ['arp_sha=02:00:00:00:00:01'], 'arp_sha without an ethertype',
     []),
    ('ip', ['vlan_id=10'], 'vlan_id on protocol ip', []),
    ('all', ['vlan_prio=1'], 'vlan_prio without an ethertype', []),
    ('ipv6', ['vlan_eth_type=ip'], 'vlan_ethtype on protocol ipv6', []),
]
# (protocol, attribute, what the stock flower keeps): VLAN fields above
# their bits, masked to them (ours warns: WARNINGS['vlan_id'],
# ['vlan_prio'])
VLAN_RANGE = [
    ('802.1q', 'vlan_id=4096', vlan_id(0)),
    ('802.1q', 'vlan_id=65535', vlan_id(4095)),
    ('802.1ad', 'vlan_prio=8', vlan_prio(0)),
    ('802.1ad', 'vlan_prio=255', vlan_prio(7)),
]
# (protocol, attributes, raw attributes, what the stock flower keeps):
# flag bits beyond what a packet carries.  An ip_flags bit other than
# frag and firstfrag is dropped (ours warns: WARNINGS['ip_flags']); a
# tcp_flags mask is kept as given, bits above 0xfff too, and is 0xffff
# when not given (WARNINGS['tcp_flags'])
FLAG_BITS = [
    ('ip', [], ['key_flags=00000005', 'key_flags_mask=00000005'],
     [ip_flags('frag')]),
    ('ip', ['ip_proto=6', 'tcp_flags=2', 'tcp_flags_mask=0xf002'], [],
     [ip_proto('tcp'), tcp_flags(2, 0xf002)]),
    ('ip', ['ip_proto=6', 'tcp_flags=2'], [],
     [ip_proto('tcp'), tcp_flags(2, 0xffff)]),
]


def lenient_batch(c, theme, name, requests, **kw):
    """A case of `$FLNL batch` requests, each on a prio of its own (1, 2,
    ...: the same keys on one prio would be one key twice), given as
    (protocol, attributes, raw attributes, errno, extack, matches): errno
    0 for a request both flowers accept, which must leave the filter
    `matches` says (handle 1); the dump (tc -j) is then exactly those
    filters, so a key ignored is seen absent."""
    batch, shown = [], []
    for prio, (proto, attrs, raw, code, msg, matches) in enumerate(
            requests, 1):
        batch.append((flnl('add', proto, attrs, raw=raw, prio=prio,
                           handle=1), code, msg))
        if code == 0:
            shown.append((proto, prio, [options(proto, matches)]))
    return c.case(theme, name, '$FLNL batch ' + batch_words(batch),
                  verify=SHOW, exact=dump(*shown), **kw)


def netlink_error_cases(c):
    """errors: raw requests through $FLNL that tc would not build, the
    lists of them in a few cases (each $FLNL start costs ~10 s in the
    guest; the requests then go out from one process)."""
    t = 'errors'
    lenient_batch(
        c, t, 'Netlink: each of the %d key masks without its key is ignored '
        'and %d attributes longer than their type are read by their first '
        'bytes, as by the stock flower (the dump shows each filter so); '
        '%d attributes shorter than their type are refused (ERANGE)'
        % (len(MASK_ONLY),
           sum(1 for *_, kept in WRONG_LENGTH if kept is not None),
           sum(1 for *_, kept in WRONG_LENGTH if kept is None)),
        [(proto, before + ['%s=%s' % (name.lower(), _mask_value(name))], [],
          0, '', kept_ip_proto(before))
         for name, proto, before in MASK_ONLY] +
        [(proto, before, ['%s=%s' % (name.lower(), data)]) + (
            (0, '', kept_ip_proto(before) + kept) if kept is not None
            else short_error(name) + ([],))
         for name, data, proto, before, kept in WRONG_LENGTH],
        cid='84b2', tags=[LENIENCY])
    lenient_batch(
        c, t, 'Netlink: %d keys whose protocol or ip_proto the filter does '
        'not give are accepted as by the stock flower (ignored; an address '
        'of another family kept), out-of-range VLAN fields masked, an '
        'unknown ip_flags bit dropped, tcp_flags masks kept as given; bad '
        'flags and a missing indev are refused' % len(LENIENT_KEYS),
        [(proto, attrs, [], 0, '', kept)
         for proto, attrs, _, kept in LENIENT_KEYS] +
        [(proto, [attr], [], 0, '', [kept])
         for proto, attr, kept in VLAN_RANGE] +
        [(proto, attrs, raw, 0, '', kept)
         for proto, attrs, raw, kept in FLAG_BITS] +
        # the stock flower gives no message for bad flags, ours does
        [('ip', ['flags=%d' % f], [], 22, '', [])
         for f in (8, 4, 3, 0x20, 0x80000000)] +
        [('ip', ['flags=2'], [], 95, '', []),
         ('ip', ['indev=nosuchdev0'], [], 19, 'Network device not found',
          []),
         # a mask without its key beside an unknown attribute type: both
         # ignored
         ('ip', ['ipv4_dst_mask=255.0.0.0'], ['%d=00' % (TCA_FLOWER_MAX + 1)],
          0, '', [])],
        cid='22c0', tags=[LENIENCY])
    # both flowers' policy limits the name's length (ERANGE: stock's
    # parse has no extack, so only ours says "Attribute failed policy
    # validation"); one of IFNAMSIZ characters passes it, and has no room
    # for its NUL
    refused_many(c, t, 'Netlink: an indev name of 20 characters is refused '
                 'by the policy (ERANGE), one of 16 as too long (EINVAL)',
                 [(flnl('add', 'ip', ['indev=' + 'x' * 20]), 34, ''),
                  (flnl('add', 'ip', ['indev=' + 'x' * 16]), 22,
                   'Interface name too long')])
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
