# SPDX-License-Identifier: GPL-2.0
"""tcgen.lenient - requests the stock flower accepts though they are not
what they seem, and ours accepts since series step 22 (docs/leniency.md):
a key without its prerequisite, a mask without its key, an unknown bit
or attribute, an ethertype unlike the filter's protocol, addresses of
two families.  Each case checks that the filter does what the stock
flower's does (its dump, and where it has frames, what it counts), so
they pass on both flowers (theme lenient).

Ours also says what it did, with an extack warning, which tc prints as
"Warning: <text>." after a successful request; the stock flower says
nothing.  The cases of theme WARNINGS_THEME check those texts (taken
from flower.needs), for the requests tc 6.1 builds ($FLNL prints no
warning): they fail on the stock flower by design, and tdc/compare.py
declares them so.
"""

from flower import keys as flower_keys
from tcgen.cases import batch_words, dump, flnl, tc_filter
from tcgen.common import (LENIENCY, SHOW, SHOW_STATS, TCA_FLOWER_MAX,
                          WARNINGS_THEME, quote)
from tcgen.errors import lenient_batch, options
from tcgen.matches import vlan_ethtype, vlan_id
from tcgen.packets import dot1q, ingress_bytes, ip4, ip6

T = 'lenient'
TAGS = [LENIENCY]


def counted(proto, keys, frames, prio=1):
    """matchJSON: filter 1 of `prio` shows `keys` (at least) and its
    action counted `frames` ([packet])."""
    return [{'kind': 'flower'},
            {'protocol': proto, 'pref': prio, 'kind': 'flower', 'options': {
                'handle': 1, 'keys': keys, 'actions': [{'stats': {
                    'bytes': sum(ingress_bytes(p) for p in frames),
                    'packets': len(frames)}}]}}]


def lenient_cases(c):
    """lenient: each request on the stock flower and on ours."""
    c.case(T, 'cvlan_id without a stacked tag (vlan_ethtype ip): accepted '
           'as by the stock flower, cvlan_id ignored: the dump has vlan_id '
           'and vlan_ethtype only',
           flnl('add', '802.1ad', ['vlan_id=3', 'vlan_eth_type=ip',
                                   'cvlan_id=4'], handle=1),
           verify=SHOW, exact=dump(('802.1ad', 1, [options(
               '802.1ad', [vlan_id(3), vlan_ethtype('ip')])])),
           cid='c77a', tags=TAGS)
    c.case(T, 'ip_flags with a bit tc does not name (raw 0x4/0x4): accepted '
           'as by the stock flower, the bit dropped: no ip_flags dumped',
           flnl('add', 'ip', raw=['key_flags=00000004',
                                  'key_flags_mask=00000004'], handle=1),
           verify=SHOW, exact=dump(('ip', 1, [options('ip', [])])),
           cid='c7be', tags=TAGS)
    c.case(T, 'mpls_label on protocol ip: accepted as by the stock flower, '
           'the label ignored: the dump has eth_type only',
           flnl('add', 'ip', raw=['key_mpls_label=05000000'], handle=1),
           verify=SHOW, exact=dump(('ip', 1, [options('ip', [])])),
           cid='8578', tags=TAGS)
    # the positive control: the IPv4 frame goes on to prio 2, whose
    # filter counts it (the IPv6 one never meets a protocol ip filter)
    c.case(T, 'TCA_FLOWER_KEY_ETH_TYPE other than the filter protocol (ipv6 '
           'on protocol ip): kept as by the stock flower, so no frame '
           'matches: neither the IPv4 nor the IPv6 frame is counted',
           flnl('add', 'ip', ['eth_type=ipv6'], eth_type=False, handle=1) +
           ' --action drop',
           setup=[tc_filter('add', 'ip', 'dst_ip 10.1.0.1', prio=2,
                            handle=1, tail='action ok')],
           scapy=[(ip4(), 1), (ip6(), 1)],
           verify=SHOW_STATS, match_json=counted('ip', {'eth_type': 'ipv6'},
                                                 []) +
           counted('ip', {'eth_type': 'ipv4', 'dst_ip': '10.1.0.1'},
                   [ip4()], prio=2),
           cid='e32a', tags=TAGS)
    lenient_batch(
        c, T, 'Netlink: attribute types 0, MAX + 1, 0x7fff and nested '
        'MAX + 1 are ignored as by the stock flower: each filter is added '
        'with its other keys',
        [('ip', [], ['%d=00000000' % n], 0, '', [])
         for n in (0, TCA_FLOWER_MAX + 1, 0x7fff,
                   0x8000 | (TCA_FLOWER_MAX + 1))],
        cid='d9df', tags=TAGS)
    # the stock flower keeps the IPv4 tunnel key too, which no IPv6
    # tunnel meets, ours ignores it (docs/leniency.md: a stock bug); the
    # dumps are the same
    c.case(T, 'tc enc_dst_ip 10.0.0.1 enc_src_ip 2001:db8::1: accepted as '
           'an IPv6 tunnel filter: the dump shows enc_src_ip alone, as the '
           'stock flower\'s',
           tc_filter('add', 'ip', 'enc_dst_ip 10.0.0.1 enc_src_ip '
                     '2001:db8::1', handle=1),
           verify=SHOW, exact=dump(('ip', 1, [{
               'handle': 1, 'keys': {'eth_type': 'ipv4',
                                     'enc_src_ip': '2001:db8::1'},
               'not_in_hw': True}])),
           cid='1972', tags=TAGS)
    # one filter per prio, each keeping or ignoring a key of its own:
    # frames of their protocols show which (an IPv6 frame meets only prio
    # 1, a tagged one only prio 2, an IPv4 one prios 3 and 4)
    prios = [
        # an IPv4 address on protocol ipv6: kept, no frame matches
        flnl('add', 'ipv6', ['ipv4_dst=10.1.0.1'], prio=1, handle=1),
        # vlan_id without TCA_FLOWER_KEY_ETH_TYPE (tc always sends it):
        # the protocol is no key then, and vlan_id is ignored
        flnl('add', '802.1q', ['vlan_id=10'], eth_type=False, prio=2,
             handle=1),
        # an IPv6 address on protocol ip: kept, no frame matches, not
        # even one whose IPv4 addresses have the IPv6 address' first bytes
        flnl('add', 'ip', ['ipv6_src=2001:db8::1'], prio=3, handle=1),
        # IPv4 and IPv6 addresses: the IPv6 one is ignored
        flnl('add', 'ip', ['ipv4_dst=10.1.0.1', 'ipv6_src=2001:db8::1'],
             prio=4, handle=1)]
    tagged = [dot1q(vlan=10), dot1q(vlan=11)]
    aliased = ip4(src='32.1.13.184', dst='0.0.0.0')
    c.case(T, 'Netlink: filters that keep or ignore a key as the stock '
           'flower does count frames so: an IPv4 address on protocol ipv6 '
           'and an IPv6 address on protocol ip are kept, so they count '
           'nothing; vlan_id on protocol 802.1q without '
           'TCA_FLOWER_KEY_ETH_TYPE is ignored, so VLAN 10 and 11 count; an '
           'IPv6 address beside an IPv4 one is ignored, so the IPv4 frame '
           'to 10.1.0.1 counts',
           '$FLNL batch ' + batch_words([(r + ' --action drop', 0, '')
                                         for r in prios]),
           scapy=[(ip6(), 1), (ip6(src='2001:db8::1'), 1)] +
           [(p, 1) for p in tagged] +
           [(ip4(), 1), (aliased, 1), (ip4(dst='10.1.0.2'), 1)],
           verify=SHOW_STATS,
           match_json=counted('ipv6', {'eth_type': 'ipv6'}, []) +
           counted('802.1Q', {}, tagged, prio=2) +
           counted('ip', {'eth_type': 'ipv4'}, [], prio=3) +
           counted('ip', {'eth_type': 'ipv4', 'dst_ip': '10.1.0.1'},
                   [ip4()], prio=4), tags=TAGS)


# (tc protocol, tc words, ours' warning, what the stock flower keeps: tc
# -j's keys), for the requests tc 6.1 builds: tc checks most
# prerequisites itself, not those of ip_tos/ip_ttl, tcp_flags and arp_sha/
# arp_tha, nor the families of tunnel addresses (an address of the other
# family than the protocol's, or of two families, it refuses; on protocol
# all too)
def _need(key):
    return flower_keys.need_message(flower_keys.KEY[key])


WARNED = [
    ('arp', 'ip_tos 0x10', _need('ip_tos'), {'eth_type': 'arp'}),
    ('ip', 'ip_proto udp tcp_flags 0x2', _need('tcp_flags'),
     {'eth_type': 'ipv4', 'ip_proto': 'udp'}),
    ('ip', 'arp_sha 02:00:00:00:00:01', _need('arp_sha'),
     {'eth_type': 'ipv4'}),
    ('ip', 'enc_dst_ip 10.0.0.1 enc_src_ip 2001:db8::1',
     _need('enc_ipv4_dst'),
     {'eth_type': 'ipv4', 'enc_src_ip': '2001:db8::1'}),
]


# Why the pipe in these cases hides no failure (the case's
# exitHiddenByPipe): it is the only way to read the command's stderr.
WARNING_PIPE = ("grep -cF exits 0 only if tc printed the warning, which tc "
                "prints only after a request the kernel accepted (a "
                "refusal's extack is printed as 'Error: ...'); the verify "
                "then dumps the filter")


def warning_cases(c):
    """warnings: ours' warning for a request tc builds, on tc's stderr
    (grep fails the command without it: on the stock flower); the dump is
    the stock flower's."""
    for proto, words, text, keys in WARNED:
        c.case(WARNINGS_THEME, 'tc %s on protocol %s: accepted with ours\' '
               'warning "%s"' % (words, proto, text),
               tc_filter('add', proto, words, handle=1) +
               ' 2>&1 | grep -cF ' + quote('Warning: %s.' % text),
               hidden_exit=WARNING_PIPE,
               verify=SHOW, exact=dump((proto, 1, [{
                   'handle': 1, 'keys': keys, 'not_in_hw': True}])),
               tags=TAGS)
