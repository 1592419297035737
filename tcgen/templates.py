# SPDX-License-Identifier: GPL-2.0
"""tcgen.templates - chain templates and num_of_vlans.
"""

from tcgen.cases import counted, dump, in_prio, refused_rx, v6_in_tag
from tcgen.common import SHOW, SHOW_STATS, filters
from tcgen.packets import dot1q, ip4, layer, tags, udp


TMPLT = '$TC chain add dev $DEV1 ingress protocol ip chain %d flower ' \
        'dst_ip 192.0.2.0/24'
CHAIN_SHOW = '$TC -j chain show dev $DEV1 ingress'
# the stock flower's extack (NL_SET_ERR_MSG_MOD puts the module's name
# before it)
MISFIT = r'Error: (?:cls_flower: )?Mask does not fit the template\.'


def tmplt_json(chain):
    return [{'parent': 'ffff:', 'kind': 'flower', 'chain': chain,
             'options': {'keys': {'eth_type': 'ipv4',
                                  'dst_ip': '192.0.2.0/24'}}}]


def template_cases(c):
    """templates: a flower chain template (tc chain add ... flower KEYS)
    fixes which mask bits the chain's filters may use: a filter whose
    mask has a bit the template's has not is refused."""
    t = 'templates'

    def add(words, chain=0, handle=1, tail=''):
        return ' '.join(w for w in (
            '$TC filter add dev $DEV1 ingress protocol ip pref 1 chain %d '
            'handle %d flower' % (chain, handle), words, tail) if w)
    c.case(t, 'Chain template on chain 0 (protocol ip, flower dst_ip '
           '192.0.2.0/24): accepted, tc -j chain show gives it back',
           TMPLT % 0, verify=CHAIN_SHOW, exact=tmplt_json(0))
    c.case(t, 'Chain template: tc chain show prints the template\'s '
           'kind, chain and keys', '$TC chain show dev $DEV1 ingress',
           setup=[TMPLT % 0], verify='$TC chain show dev $DEV1 ingress',
           pattern=r'\Achain parent ffff: flower chain 0 \n  eth_type ipv4\n'
                   r'  dst_ip 192\.0\.2\.0/24\n\Z')
    c.case(t, 'Chain template on chain 3: accepted, shown on chain 3',
           TMPLT % 3, verify=CHAIN_SHOW, exact=tmplt_json(3))
    hit, miss = ip4(dst='192.0.2.7'), ip4(dst='192.0.3.7')
    c.case(t, 'Packets: a filter with the template\'s mask (dst_ip '
           '192.0.2.0/24) is accepted and counts its frames',
           add('dst_ip 192.0.2.0/24', tail='action drop'),
           setup=[TMPLT % 0], scapy=[(hit, 2), (miss, 1)],
           verify=SHOW_STATS, match_json=counted('ip', [(1, [(hit, 2)])]))
    for words, what in [('dst_ip 10.0.0.0/16', 'a /16: fewer bits'),
                        ('', 'no key but the protocol')]:
        c.case(t, 'A filter whose mask fits the template (%s) is accepted'
               % what, add(words), setup=[TMPLT % 0], **in_prio(1))
    for words, what in [('src_ip 192.0.2.1', 'src_ip: another key'),
                        ('dst_ip 192.0.2.1', 'dst_ip /32: bits outside '
                         'the /24'),
                        ('ip_proto tcp', 'ip_proto: another key')]:
        refused_rx(c, t, 'A filter whose mask does not fit the template '
                   '(%s) is refused: Mask does not fit the template' % what,
                   add(words), MISFIT, setup=[TMPLT % 0])
    refused_rx(c, t, 'A misfit beside a fitting filter is refused, the '
               'fitting one stays', add('src_ip 192.0.2.1', handle=2),
               MISFIT, setup=[TMPLT % 0, add('dst_ip 192.0.2.0/24')],
               left=1)
    refused_rx(c, t, 'A template on chain 3 holds in chain 3: a misfit '
               'there is refused', add('src_ip 192.0.2.1', chain=3),
               MISFIT, setup=[TMPLT % 3])
    c.case(t, 'A template on chain 3 does not hold in chain 0: a filter '
           'that would not fit it is accepted there',
           add('src_ip 192.0.2.1'), setup=[TMPLT % 3], **in_prio(1))
    delete = '$TC chain del dev $DEV1 ingress chain 0'
    c.case(t, 'tc chain del removes the template and the chain\'s filters: '
           'tc -j chain show is empty', delete,
           setup=[TMPLT % 0, add('dst_ip 192.0.2.0/24')], verify=CHAIN_SHOW,
           exact=[])
    c.case(t, 'tc chain del removes the template and the chain\'s filters: '
           'no filter left', delete,
           setup=[TMPLT % 0, add('dst_ip 192.0.2.0/24')], **filters(0))
    c.case(t, 'After tc chain del, a filter the template refused is '
           'accepted', add('src_ip 192.0.2.1'), setup=[TMPLT % 0, delete],
           **in_prio(1))


def num_of_vlans_cases(c):
    """keys-vlan/qinq and packets-vlan/qinq: num_of_vlans asks for that
    many tags; with it, vlan and cvlan keys need no TPID protocol (the
    tags' TPIDs are then not matched) and vlan_ethtype keys what follows
    the tag."""
    q, ad = 0x8100, 0x88a8
    add = '$TC filter add dev $DEV1 ingress pref 1 flower '

    def v4(src):
        return layer('IP', src=src, dst='10.1.0.1') / udp()
    forms = [
        ('vlan', 'num_of_vlans 1 vlan_prio 5 (no protocol: all)',
         add + 'num_of_vlans 1 vlan_prio 5', 'all',
         {'num_of_vlans': 1, 'vlan_prio': 5},
         [dot1q(vlan=10, prio=5), dot1q(vlan=20, prio=5, tpid=ad)],
         [dot1q(vlan=10, prio=4), tags((q, 10, 5), (q, 20, 5)), ip4()],
         'one tag of prio 5 (802.1Q or 802.1ad)', 'prio 4, two tags or '
         'none'),
        ('qinq', 'protocol 802.1q num_of_vlans 2 vlan_id 10 cvlan_id 20',
         '$TC filter add dev $DEV1 ingress protocol 802.1q pref 1 flower '
         'num_of_vlans 2 vlan_id 10 cvlan_id 20', '802.1q',
         {'num_of_vlans': 2, 'vlan_id': 10, 'cvlan_id': 20},
         [tags((q, 10, 0), (q, 20, 0)), tags((q, 10, 3), (ad, 20, 1))],
         [tags((q, 10, 0), (q, 21, 0)), tags((q, 11, 0), (q, 20, 0)),
          tags((q, 10, 0)), tags((q, 10, 0), (q, 20, 0), (q, 30, 0)),
          tags((ad, 10, 0), (q, 20, 0))],
         'two tags, 10 then 20 (any inner TPID)', 'other ids, one or '
         'three tags, an 802.1ad outer tag'),
        ('vlan', 'num_of_vlans 1 vlan_ethtype ip src_ip 192.0.2.1 (no '
         'protocol: all)',
         add + 'num_of_vlans 1 vlan_ethtype ip src_ip 192.0.2.1', 'all',
         {'num_of_vlans': 1, 'vlan_ethtype': 'ip', 'eth_type': 'ipv4',
          'src_ip': '192.0.2.1'},
         [tags((q, 10, 0), inner=v4('192.0.2.1')),
          tags((ad, 10, 0), inner=v4('192.0.2.1'))],
         [tags((q, 10, 0), inner=v4('192.0.2.2')), ip4(src='192.0.2.1'),
          tags((q, 10, 0), (q, 20, 0), inner=v4('192.0.2.1')),
          v6_in_tag(vlan=10)],
         'one tag then IPv4 from 192.0.2.1', 'another source, no tag, two '
         'tags, IPv6'),
    ]
    for family, label, cmd, proto, keys, hit, miss, hits, misses in forms:
        c.case('keys-' + family, 'Add %s: accepted, tc -j filter show '
               'gives back exactly its keys' % label, cmd, verify=SHOW,
               exact=dump((proto, 1, [{'handle': 1, 'keys': keys,
                                       'not_in_hw': True}])))
        c.case('packets-' + family, 'Packets: %s counts the frames with %s, '
               'not %s' % (label, hits, misses), cmd + ' action drop',
               scapy=[(p, 1) for p in hit + miss], verify=SHOW_STATS,
               match_json=counted(proto, [(1, [(p, 1) for p in hit])]))
