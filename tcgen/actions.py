# SPDX-License-Identifier: GPL-2.0
"""tcgen.actions - actions and classid.
"""

from tcgen.cases import stats_json, tc_filter
from tcgen.common import INGRESS, SHOW, SHOW_STATS, rx
from tcgen.packets import frame_bytes, ingress_bytes, ip4, ip6, layer, udp


def sized(i):
    """An IPv4/UDP frame to 10.1.0.i with 10*i bytes of payload."""
    return ip4(dst='10.1.0.%d' % i,
               l4=udp() / layer('Raw', load=b'z' * (10 * i)))


def action_cases(c):
    t = 'actions'
    hit = ip4(dst='10.1.0.1')
    miss = ip4(dst='10.9.0.1')
    hb = ingress_bytes(hit)
    base = tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24', handle=1)
    counter = '$TC filter add dev $DEV1 ingress protocol ip prio 9 ' \
              'handle 1 flower action ok'

    def later(packets):
        """The prio 9 catch-all saw `packets` frames."""
        return [{'kind': 'flower'}, {'options': {'handle': 1, 'actions': [
            {'stats': {'packets': packets}}]}}]
    for act, kind, ctl, drops in (('drop', 'gact', 'drop', 1),
                                  ('pass', 'gact', 'pass', 0),
                                  ('ok', 'gact', 'pass', 0),
                                  ('continue', 'gact', 'continue', 0),
                                  ('pipe', 'gact', 'pipe', 0)):
        c.case(t, 'action %s: the matching frame is counted by the action '
               '(%d drop(s))' % (act, drops),
               base + ' action ' + act, scapy=[(hit, 1), (miss, 1)],
               verify=SHOW_STATS + ' prio 1',
               match_json=[{'kind': 'flower'}, {'options': {
                   'handle': 1, 'actions': [{
                       'kind': kind, 'control_action': {'type': ctl},
                       'stats': {'packets': 1, 'bytes': hb,
                                 'drops': drops}}]}}])
        # continue goes on with the next prio; pipe as the last action
        # ends classification like ok (TC_ACT_PIPE is a verdict >= 0)
        seen = 2 if act == 'continue' else 1
        c.case(t, 'action %s: the next prio sees %d of the 2 frames'
               % (act, seen), base + ' action ' + act,
               setup=[counter], scapy=[(hit, 1), (miss, 1)],
               verify=SHOW_STATS + ' prio 9', match_json=later(seen))
    c.case(t, 'Action stats count packets and bytes exactly (5 frames of '
           'different sizes)', base + ' action ok',
           scapy=[(sized(i), 1) for i in range(1, 6)],
           verify=SHOW_STATS,
           match_json=stats_json('ip', 5, sum(
               ingress_bytes(sized(i)) for i in range(1, 6))))
    c.case(t, 'A frame sent 7 times is counted 7 times', base + ' action ok',
           scapy=[(hit, 7), (miss, 3)], verify=SHOW_STATS,
           match_json=stats_json('ip', 7, 7 * hb))
    c.case(t, 'Two actions (skbedit mark, then gact ok) both count the '
           'frame', base + ' action skbedit mark 0x10 pipe action ok',
           setup=[counter], scapy=[(hit, 1), (miss, 1)],
           verify=SHOW_STATS + ' prio 1',
           match_json=[{'kind': 'flower'}, {'options': {
               'handle': 1, 'actions': [
                   {'order': 1, 'kind': 'skbedit', 'mark': 16,
                    'stats': {'packets': 1, 'bytes': hb}},
                   {'order': 2, 'kind': 'gact', 'stats': {'packets': 1}}]}}])
    # the positive control: the skbedit filter (prio 1) counts the
    # frame, so it was classified there; prio 9 never sees it
    c.case(t, 'skbedit mark as the last action (pipe) ends the '
           'classification: the next prio does not see the frame',
           base + ' action skbedit mark 0x10', setup=[counter],
           scapy=[(hit, 1)], verify=SHOW_STATS,
           match_json=[{'kind': 'flower'}, {'pref': 1, 'options': {
               'handle': 1, 'actions': [{
                   'kind': 'skbedit', 'stats': {'packets': 1,
                                                'bytes': hb}}]}},
               {'pref': 9, 'kind': 'flower'}, {'pref': 9, 'options': {
                   'handle': 1, 'actions': [{'stats': {'packets': 0}}]}}])
    c.case(t, 'A shared gact (index 5) on two filters counts the frames of '
           'both',
           tc_filter('add', 'ip', 'dst_ip 10.2.0.0/24 action gact index 5',
                     handle=2),
           setup=['$TC actions add action gact drop index 5',
                  tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24 action gact '
                            'index 5', handle=1)],
           scapy=[(hit, 1), (ip4(dst='10.2.0.1'), 2), (miss, 1)],
           verify='$TC -s -j actions list action gact',
           match_json=[{'total acts': 1},
                       {'actions': [{'index': 5, 'ref': 3, 'bind': 2,
                                     'stats': {'packets': 3}}]}])
    mirred_police_cases(c, t, base, hit, miss, hb, later, counter)


def mirred_police_cases(c, t, base, hit, miss, hb, later, counter):
    """actions: mirred, police, pedit, vlan, the dumped list and replace."""
    # mirred: fla/flb, a veth pair inside the namespace with no IPv6
    # address (so that it sends nothing of its own)
    pair = ['$IP link add fla type veth peer name flb',
            '$IP link set fla addrgenmode none',
            '$IP link set flb addrgenmode none',
            '$IP link set fla up', '$IP link set flb up',
            '$TC qdisc add dev flb ingress',
            '$TC filter add dev flb ingress protocol ip prio 1 handle 1 '
            'flower dst_ip 10.1.0.0/24 action ok']
    on_flb = '$TC -s -j filter show dev flb ingress'
    c.case(t, 'mirred egress redirect to another veth: flb receives the '
           'matching frames only',
           base + ' action mirred egress redirect dev fla', setup=pair,
           scapy=[(hit, 2), (miss, 1)], verify=on_flb,
           match_json=stats_json('ip', 2, 2 * hb))
    c.case(t, 'mirred egress redirect steals the frame: the next prio on '
           'DEV1 does not see it',
           base + ' action mirred egress redirect dev fla',
           setup=pair + [counter], scapy=[(hit, 2), (miss, 1)],
           verify=SHOW_STATS + ' prio 9', match_json=later(1))
    c.case(t, 'mirred egress mirror: flb gets a copy of the matching frame',
           base + ' action mirred egress mirror dev fla', setup=pair,
           scapy=[(hit, 1), (miss, 1)], verify=on_flb,
           match_json=stats_json('ip', 1, hb))
    c.case(t, 'mirred egress mirror counts the frame in its own stats',
           base + ' action mirred egress mirror dev fla', setup=pair,
           scapy=[(hit, 3), (miss, 1)], verify=SHOW_STATS + ' prio 1',
           match_json=[{'kind': 'flower'}, {'options': {'actions': [
               {'kind': 'mirred', 'mirred_action': 'mirror',
                'to_dev': 'fla', 'stats': {'packets': 3}}]}}])
    c.case(t, 'mirred ingress redirect to flb: its ingress filter counts '
           'the frame',
           base + ' action mirred ingress redirect dev flb', setup=pair,
           scapy=[(hit, 1), (miss, 1)], verify=on_flb,
           match_json=stats_json('ip', 1, hb))
    c.case(t, 'police: frames within the burst pass, the rest are dropped '
           '(3 of 5 conform)',
           base + ' action police rate 8bit burst 100 conform-exceed '
           'drop/ok', scapy=[(hit, 5)], verify=SHOW_STATS + ' prio 1',
           match_json=[{'kind': 'flower'}, {'options': {'actions': [
               {'kind': 'police', 'stats': {'packets': 5, 'drops': 2,
                                            'overlimits': 2}}]}}])
    c.case(t, 'police drop: the dropped frames never reach the next prio, '
           'the conforming ones continue there',
           base + ' action police rate 8bit burst 100 conform-exceed '
           'drop/continue', setup=[counter], scapy=[(hit, 5)],
           verify=SHOW_STATS + ' prio 9', match_json=later(3))
    c.case(t, 'pedit sets the TTL and the redirected frame matches an '
           'ip_ttl filter on flb',
           base + ' action pedit ex munge ip ttl set 10 pipe action mirred '
           'egress redirect dev fla',
           setup=pair[:5] + [
               '$TC qdisc add dev flb ingress',
               '$TC filter add dev flb ingress protocol ip prio 1 handle 1 '
               'flower ip_ttl 10 action ok'],
           scapy=[(ip4(dst='10.1.0.1', ttl=64), 1)], verify=on_flb,
           match_json=stats_json('ip', 1, hb))
    c.case(t, 'vlan push then redirect: flb sees the frame with vlan_id 7',
           base + ' action vlan push id 7 pipe action mirred egress '
           'redirect dev fla',
           setup=pair[:5] + [
               '$TC qdisc add dev flb ingress',
               '$TC filter add dev flb ingress protocol 802.1q prio 1 '
               'handle 1 flower vlan_id 7 vlan_ethtype ip action ok'],
           scapy=[(hit, 1), (miss, 1)],
           verify='$TC -s -j filter show dev flb ingress',
           match_json=stats_json('802.1q', 1, hb))
    c.case(t, 'The action list is dumped: kind, control action, index',
           base + ' action skbedit mark 7 pipe action drop',
           verify=SHOW,
           match_json=[{'kind': 'flower'}, {'options': {'actions': [
               {'order': 1, 'kind': 'skbedit', 'mark': 7,
                'control_action': {'type': 'pipe'}},
               {'order': 2, 'kind': 'gact',
                'control_action': {'type': 'drop'}}]}}])
    c.case(t, 'replace swaps the action: frames after the replace are '
           'counted by the new one only',
           tc_filter('replace', 'ip', 'dst_ip 10.1.0.0/24 action drop',
                     handle=1),
           setup=[base + ' action ok'], scapy=[(hit, 2)], verify=SHOW_STATS,
           match_json=[{'kind': 'flower'}, {'options': {'actions': [
               {'control_action': {'type': 'drop'},
                'stats': {'packets': 2, 'drops': 2}}]}}])


# The classid cases send the frames that come in on $DEV1 out of the
# veth fla, whose root qdisc is classful: a filter there classifies on
# egress, where a classid has a class to put the frame in.
CLASSID_FWD = ['$IP link add fla type veth peer name flb',
               '$IP link set fla addrgenmode none',
               '$IP link set flb addrgenmode none',
               '$IP link set fla up', '$IP link set flb up',
               INGRESS,
               '$TC filter add dev $DEV1 ingress protocol all prio 9 '
               'matchall action mirred egress redirect dev fla']
# for a count of the default class: IPv4 frames alone go to fla (the
# frames of $DEV0's own IPv6 stack, router solicitations and MLD
# reports, would land there too)
CLASSID_FWD_IP = [x.replace(' protocol all prio 9 matchall ',
                            ' protocol ip prio 9 matchall ')
                  for x in CLASSID_FWD]
CLASSID_PRIO = ['$TC qdisc add dev fla root handle 1: prio']
CLASSID_HTB = [
    '$TC qdisc add dev fla root handle 1: htb default 30',
    '$TC class add dev fla parent 1: classid 1:10 htb rate 100mbit',
    '$TC class add dev fla parent 1: classid 1:20 htb rate 100mbit',
    '$TC class add dev fla parent 1: classid 1:30 htb rate 100mbit']
CLASSID_SHOW = '$TC -s class show dev fla'


def classid_frames():
    """Two frames for filters to match, one that none matches, and the
    size of the first (they are all the same size)."""
    a, b, other = ip4(dst='10.3.0.1'), ip4(dst='10.3.0.2'), ip4(
        dst='10.3.0.3')
    return a, b, other, frame_bytes(a)


def on_fla(proto, words, handle, classid):
    return '$TC filter add dev fla parent 1: protocol %s prio 1 ' \
           'handle %d flower %s classid %s' % (proto, handle, words,
                                               classid)


def class_sent(kind, classid, nbytes, packets):
    # the class's own line, then its Sent line right after it: the
    # counts are that class's, never a later class's (a lazy .*? under
    # DOTALL would run on into the next block)
    return r'^class %s %s [^\n]*\n Sent %d bytes %d pkt ' % (
        kind, rx(classid), nbytes, packets)


def classes_sent(kind, *counts):
    """Each of the classes (classid, bytes, packets) has those
    counts, in whatever order tc lists them."""
    return r'\A' + ''.join('(?=.*?%s)' % class_sent(kind, cid, nbytes, n)
                           for cid, nbytes, n in counts)


def classid_prio_cases(c, t):
    a, b, other, size = classid_frames()
    c.case(t, 'prio qdisc: frames matching the classid 1:3 filter land '
           'in class 1:3 (2 frames)',
           on_fla('ip', 'dst_ip 10.3.0.1', 1, '1:3'), ingress=False,
           setup=CLASSID_FWD + CLASSID_PRIO,
           scapy=[(a, 2), (other, 1)], verify=CLASSID_SHOW,
           pattern=class_sent('prio', '1:3', 2 * size, 2))
    for cid, nbytes, packets in (('1:1', size, 1), ('1:3', 2 * size, 2)):
        c.case(t, 'prio qdisc: two filters, two classes, each counts its '
               'own frames (%s)' % cid,
               on_fla('ip', 'dst_ip 10.3.0.2', 2, '1:1'), ingress=False,
               setup=CLASSID_FWD + CLASSID_PRIO + [
                   on_fla('ip', 'dst_ip 10.3.0.1', 1, '1:3')],
               scapy=[(a, 2), (b, 1), (other, 1)],
               verify=CLASSID_SHOW,
               pattern=class_sent('prio', cid, nbytes, packets))


def classid_htb_cases(c, t):
    a, _, other, size = classid_frames()
    c.case(t, 'htb: frames matching the classid 1:10 filter land in class '
           '1:10, others not',
           on_fla('ip', 'dst_ip 10.3.0.1', 1, '1:10'), ingress=False,
           setup=CLASSID_FWD + CLASSID_HTB,
           scapy=[(a, 3), (other, 2)], verify=CLASSID_SHOW,
           pattern=class_sent('htb', '1:10', 3 * size, 3))
    # the positive control: the frame the filter matches lands in 1:20
    c.case(t, 'htb: non-matching frames go to the default class 1:30, not '
           'to 1:20',
           on_fla('ip', 'dst_ip 10.3.0.1', 1, '1:20'), ingress=False,
           setup=CLASSID_FWD_IP + CLASSID_HTB,
           scapy=[(other, 2), (a, 1)], verify=CLASSID_SHOW,
           pattern=classes_sent('htb', ('1:20', size, 1),
                                ('1:30', 2 * size, 2)))
    c.case(t, 'htb: an IPv6 filter with a masked dst_ip classifies into '
           '1:20',
           on_fla('ipv6', 'dst_ip 2001:db8:1::/48', 1, '1:20'),
           ingress=False, setup=CLASSID_FWD + CLASSID_HTB,
           scapy=[(ip6(dst='2001:db8:1:2::3'), 2),
                  (ip6(dst='2001:db8:2::3'), 1)], verify=CLASSID_SHOW,
           pattern=class_sent('htb', '1:20',
                              2 * frame_bytes(ip6(dst='2001:db8:1:2::3')),
                              2))
    c.case(t, 'htb: a tcp dst_port filter classifies into 1:10',
           on_fla('ip', 'ip_proto tcp dst_port 443', 1, '1:10'),
           ingress=False, setup=CLASSID_FWD + CLASSID_HTB,
           scapy=[(ip4(l4=layer('TCP', dport=443)), 1),
                  (ip4(l4=layer('TCP', dport=80)), 1)], verify=CLASSID_SHOW,
           pattern=class_sent('htb', '1:10',
                              frame_bytes(ip4(l4=layer('TCP', dport=443))),
                              1))


def classid_action_cases(c, t):
    """classid next to an action, skbedit priority in its stead."""
    a, _, other, size = classid_frames()
    c.case(t, 'classid with an action: the action runs and the frame '
           'still lands in the class',
           on_fla('ip', 'dst_ip 10.3.0.1', 1, '1:10') + ' action ok',
           ingress=False, setup=CLASSID_FWD + CLASSID_HTB,
           scapy=[(a, 2)], verify=CLASSID_SHOW,
           pattern=class_sent('htb', '1:10', 2 * size, 2))
    # CLASSID_FWD without its matchall: this filter redirects itself
    c.case(t, 'skbedit priority 1:3 on DEV1 ingress: the prio qdisc of '
           'fla puts the redirected frame into class 1:3',
           '$TC filter add dev $DEV1 ingress protocol ip prio 1 handle 1 '
           'flower dst_ip 10.3.0.1 action skbedit priority 1:3 pipe action '
           'mirred egress redirect dev fla', ingress=False,
           setup=CLASSID_FWD[:6] + CLASSID_PRIO, scapy=[(a, 2), (other, 1)],
           verify=CLASSID_SHOW,
           pattern=class_sent('prio', '1:3', 2 * size, 2))


def classid_dump_delete_cases(c, t):
    a, b, _, size = classid_frames()
    c.case(t, 'classid is dumped as given on the classful qdisc',
           on_fla('ip', 'dst_ip 10.3.0.1', 1, '1:10'), ingress=False,
           setup=CLASSID_FWD[:5] + CLASSID_HTB,
           verify='$TC -j filter show dev fla parent 1:',
           match_json=[{'kind': 'flower'}, {'options': {
               'handle': 1, 'classid': '1:10'}}])
    # the positive control: the filter left (handle 2) still puts its
    # frame into 1:20
    c.case(t, 'Deleting the classid filter: later frames go to the default '
           'class',
           '$TC filter del dev fla parent 1: protocol ip prio 1 handle 1 '
           'flower', ingress=False,
           setup=CLASSID_FWD_IP + CLASSID_HTB + [
               on_fla('ip', 'dst_ip 10.3.0.1', 1, '1:10'),
               on_fla('ip', 'dst_ip 10.3.0.2', 2, '1:20')],
           scapy=[(a, 2), (b, 1)], verify=CLASSID_SHOW,
           pattern=classes_sent('htb', ('1:10', 0, 0), ('1:20', size, 1),
                                ('1:30', 2 * size, 2)))


def classid_cases(c):
    """classid: flower on the egress of a classful qdisc of fla puts the
    frames into classes; frames come in on $DEV1 and are redirected to
    fla by a matchall."""
    t = 'classid'
    classid_prio_cases(c, t)
    classid_htb_cases(c, t)
    classid_action_cases(c, t)
    classid_dump_delete_cases(c, t)
