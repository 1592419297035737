# SPDX-License-Identifier: GPL-2.0
"""tcgen.tunnel_ct - tunnel (enc_*) and conntrack (ct_*) keys.
"""

from tcgen.cases import flnl, stats_json, tc_filter
from tcgen.common import DST_MAC, SHOW_STATS, TUNNEL_METADATA, rx
from tcgen.packets import ether, ingress_bytes, ip4, layer, udp


# Their values come from metadata, not from the frame's headers: enc_* from
# the tunnel a collect_md ("external") VXLAN or Geneve device took the
# packet out of, ct_* from the conntrack entry act_ct attached.  So these
# cases build that path: $DEV1 gets the outer destination's MAC and
# addresses, the filters go on the tunnel device's ingress; ct filters go
# in chain 1 behind `ct_state -trk action ct commit pipe action goto chain 1`.
TUN_LOCAL4, TUN_PEER4 = '10.9.0.1', '10.9.0.2'
TUN_LOCAL6, TUN_PEER6 = '2001:db8:9::1', '2001:db8:9::2'
TUN_SETUP = ['$IP link set $DEV1 address ' + DST_MAC,
             '$IP addr add %s/24 dev $DEV1' % TUN_LOCAL4,
             '$IP addr add %s/64 dev $DEV1 nodad' % TUN_LOCAL6]
TUN_DEVS = {
    'vxlan': ['$IP link add vx0 type vxlan external dstport 4789',
              '$IP link set vx0 up', '$TC qdisc add dev vx0 ingress'],
    'geneve': ['$IP link add gnv0 type geneve external',
               '$IP link set gnv0 up', '$TC qdisc add dev gnv0 ingress'],
}
TUN_DEV = {'vxlan': 'vx0', 'geneve': 'gnv0'}
TUN_INNER = ether('02:00:00:00:01:01', '02:00:00:00:01:02') / \
    layer('IP', src='192.168.9.1', dst='192.168.9.2') / layer('ICMP')


def geneve_opt(cls, typ, data):
    """One Geneve option on the wire: class, type, length in words, data."""
    return (cls.to_bytes(2, 'big') + bytes([typ, len(data) // 4]) + data)


def tunneled(kind='vxlan', vni=42, src=TUN_PEER4, dst=TUN_LOCAL4, sport=1234,
             dport=None, tos=0, ttl=64, opts=b''):
    """The frame $DEV0 sends: outer Ethernet/IP(v6)/UDP, the VXLAN or
    Geneve header, then TUN_INNER."""
    if ':' in dst:
        outer = layer('IPv6', src=src, dst=dst, tc=tos, hlim=ttl)
    else:
        outer = layer('IP', src=src, dst=dst, tos=tos, ttl=ttl)
    if kind == 'vxlan':
        udp_ = udp(sport, dport or 4789)
        # flags 0x08 (VNI present) alone: scapy's default also sets the
        # GPE next-protocol bit, which a plain VXLAN device drops
        hdr = layer('VXLAN', flags=0x08, vni=vni)
    else:
        udp_ = udp(sport, dport or 6081)
        hdr = layer('Raw', load=bytes([len(opts) // 4, 0, 0x65, 0x58]) +
                    vni.to_bytes(3, 'big') + b'\x00' + opts)
    return ether() / outer / udp_ / hdr / TUN_INNER


def tun_stats(kind, packets, prio=1):
    return stats_json('ip', packets, packets * ingress_bytes(TUN_INNER),
                      prio=prio)


GNV_OPT_A = geneve_opt(0x0102, 0x80, bytes.fromhex('00880022'))
GNV_OPT_A2 = geneve_opt(0x0102, 0x80, bytes.fromhex('0088ffff'))
GNV_OPT_B = geneve_opt(0x0103, 0x01, bytes.fromhex('11223344'))

# (name, kind, tc words, [(frame, count)] that match, that do not, shown:
# what tc prints back)
TUNNEL_KEYS = [
    ('enc_key_id', 'vxlan', 'enc_key_id 42',
     [tunneled(vni=42)], [tunneled(vni=43), tunneled(vni=0)],
     r'enc_key_id 42'),
    ('enc_key_id 0 (VNI 0)', 'vxlan', 'enc_key_id 0',
     [tunneled(vni=0)], [tunneled(vni=1)], r'enc_key_id 0'),
    ('enc_src_ip and enc_dst_ip (IPv4 tunnel)', 'vxlan',
     'enc_src_ip %s enc_dst_ip %s' % (TUN_PEER4, TUN_LOCAL4),
     [tunneled()], [tunneled(src='10.9.0.3'),
                    tunneled(src=TUN_PEER6, dst=TUN_LOCAL6)],
     r'enc_dst_ip %s\n\s*enc_src_ip %s' % (rx(TUN_LOCAL4), rx(TUN_PEER4))),
    ('enc_src_ip /24 prefix', 'vxlan', 'enc_src_ip 10.9.0.0/24',
     [tunneled(), tunneled(src='10.9.0.77')], [tunneled(src='10.8.0.2')],
     r'enc_src_ip 10\.9\.0\.0/24'),
    ('enc_dst_ip (IPv6 tunnel)', 'vxlan', 'enc_dst_ip %s' % TUN_LOCAL6,
     [tunneled(src=TUN_PEER6, dst=TUN_LOCAL6)], [tunneled()],
     r'enc_dst_ip %s' % rx(TUN_LOCAL6)),
    ('enc_dst_port', 'vxlan', 'enc_dst_port 4789',
     [tunneled()], [], r'enc_dst_port 4789'),
    ('enc_tos and enc_ttl', 'vxlan', 'enc_tos 0x10 enc_ttl 33',
     [tunneled(tos=0x10, ttl=33)], [tunneled(tos=0x10), tunneled(ttl=33)],
     r'enc_tos 16\n\s*enc_ttl 33'),
    ('geneve_opts, one option exact', 'geneve', 'geneve_opts 0102:80:00880022',
     [tunneled('geneve', opts=GNV_OPT_A)],
     [tunneled('geneve', opts=GNV_OPT_A2), tunneled('geneve'),
      tunneled('geneve', opts=GNV_OPT_A + GNV_OPT_B)],
     r'geneve_opts 0102:80:00880022/ffff:ff:ffffffff'),
    ('geneve_opts, masked data', 'geneve',
     'geneve_opts 0102:80:00880000/ffff:ff:ffff0000',
     [tunneled('geneve', opts=GNV_OPT_A), tunneled('geneve', opts=GNV_OPT_A2)],
     [tunneled('geneve', opts=GNV_OPT_B)],
     r'geneve_opts 0102:80:00880000/ffff:ff:ffff0000'),
]


# The tunnel option kinds besides Geneve's, one option each (series step
# 18): (name, tc words, what tc prints back).  tc prints a mask's bits as
# the kernel dumps them: vxlan's gbp under VXLAN_GBP_MASK.
OTHER_OPTS = [
    ('vxlan_opts, masked gbp', 'vxlan_opts 1024/0xff00',
     r'vxlan_opts 1024/65280'),
    ('erspan_opts version 1, masked index', 'erspan_opts 1:12:0:0/1:255:0:0',
     r'erspan_opts 1:12:0:0/1:255:0:0'),
    ('erspan_opts version 2', 'erspan_opts 2:0:1:7/2:0:1:15',
     r'erspan_opts 2:0:1:7/2:0:1:15'),
    ('gtp_opts, masked qfi', 'gtp_opts 1:8/ff:0f', r'gtp_opts 01:08/ff:0f'),
]


def tunnel_cases(c):
    """keys-enc and packets-enc: each tunnel key on a collect_md VXLAN or
    Geneve device; errors for what cannot match."""
    for name, kind, words, hit, miss, shown in TUNNEL_KEYS:
        dev = TUN_DEV[kind]
        setup = TUN_SETUP + TUN_DEVS[kind]
        add = tc_filter('add', 'ip', words, dev=dev, handle=1,
                        tail='action drop')
        c.case('keys-enc', 'Keys: %s on a %s device: added and shown back'
               % (name, kind), add, setup=setup,
               verify='$TC filter show dev %s ingress' % dev,
               pattern=shown)
        c.case('packets-enc', 'Packets: %s counts the %d matching tunneled '
               'frame(s), not the %d near miss(es)' % (name, len(hit),
                                                        len(miss)),
               add, setup=setup,
               scapy=[(p, 1) for p in hit + miss],
               verify='$TC -s -j filter show dev %s ingress' % dev,
               match_json=tun_stats(kind, len(hit)))
    for kind, words, other, shown in [
            ('vxlan', 'enc_key_id 42 enc_dst_ip 10.9.0.1',
             'enc_key_id 43 enc_dst_ip 10.9.0.1', r'enc_key_id 43'),
            ('geneve', 'geneve_opts 0102:80:00880022',
             'geneve_opts 0102:80:00880033', r'geneve_opts 0102:80:00880033')]:
        dev = TUN_DEV[kind]
        c.case('keys-enc', 'Replace %s with %s on a %s device: the handle '
               'stays, the key changes, one filter' % (words, other, kind),
               tc_filter('replace', 'ip', other, dev=dev, handle=1,
                         tail='action drop'),
               setup=TUN_SETUP + TUN_DEVS[kind] + [
                   tc_filter('add', 'ip', words, dev=dev, handle=1,
                             tail='action drop')],
               verify='$TC filter show dev %s ingress' % dev,
               pattern=r'handle 0x1 [^\n]*\n(?:[^\n]*\n)*?\s*' + shown)
    # the positive control: the frames go on to prio 2, whose filter
    # (no tunnel key) counts them; on stock, which counts them at prio 1
    # (a declared difference: README), prio 2 sees none
    c.case('packets-enc', 'Packets: enc_key_id 0 on $DEV1 (no tunnel '
           'device) counts no plain frame: a tunnel key needs tunnel '
           'metadata', tc_filter('add', 'ip', 'enc_key_id 0', handle=1,
                                 tail='action drop'),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.1.0.1', prio=2,
                            handle=1, tail='action ok')],
           scapy=[(ip4(), 2)], verify=SHOW_STATS,
           match_json=stats_json('ip', 0, 0) + stats_json(
               'ip', 2, 2 * ingress_bytes(ip4()), prio=2),
           tags=[TUNNEL_METADATA])
    c.case('packets-enc', 'Packets: enc_key_id 42 beside dst_ip: a tunneled '
           'frame counts only when the inner dst_ip matches too',
           tc_filter('add', 'ip', 'enc_key_id 42 dst_ip 192.168.9.2',
                     dev='vx0', handle=1, tail='action drop'),
           setup=TUN_SETUP + TUN_DEVS['vxlan'],
           scapy=[(tunneled(), 1),
                  (tunneled().with_fields('IP', 1, dst='192.168.9.3'), 1)],
           verify='$TC -s -j filter show dev vx0 ingress',
           match_json=tun_stats('vxlan', 1))
    c.case('packets-enc', 'Packets: enc_src_port 1234 ($FLNL: tc 6.1 has '
           'no enc_src_port) counts the frame from UDP port 1234, not 1235',
           flnl('add', 'ip', ['key_enc_udp_src_port=1234'], dev='vx0',
                handle=1) + ' --action drop',
           setup=TUN_SETUP + TUN_DEVS['vxlan'],
           scapy=[(tunneled(), 1), (tunneled(sport=1235), 1)],
           verify='$TC -s -j filter show dev vx0 ingress',
           match_json=tun_stats('vxlan', 1))
    # The kernel's own dump of two Geneve options (tc 6.1 prints only the
    # first): both options and their masks come back
    two = 'geneve_opts 0102:80:00880022/ffff:ff:ffff0000,0103:01:11223344'
    c.case('packets-enc', 'Packets: geneve_opts with two options counts '
           'the frame with both, not one with the first alone',
           tc_filter('add', 'ip', two, dev='gnv0', handle=1,
                     tail='action drop'),
           setup=TUN_SETUP + TUN_DEVS['geneve'],
           scapy=[(tunneled('geneve', opts=GNV_OPT_A2 + GNV_OPT_B), 1),
                  (tunneled('geneve', opts=GNV_OPT_A), 1)],
           verify='$TC -s -j filter show dev gnv0 ingress',
           match_json=tun_stats('geneve', 1))
    for name, words, shown in OTHER_OPTS:
        c.case('keys-enc', 'Keys: %s on a vxlan device: added and shown '
               'back' % name,
               tc_filter('add', 'ip', words, dev=TUN_DEV['vxlan'], handle=1,
                         tail='action drop'),
               setup=TUN_SETUP + TUN_DEVS['vxlan'],
               verify='$TC filter show dev %s ingress' % TUN_DEV['vxlan'],
               pattern=shown)
    # (tunnel addresses of both families: tcgen.lenient)
    t = 'errors'
    for words, msg in [
            ('erspan_opts 3:12:0:0', 'Tunnel key erspan option ver is '
             'incorrect')]:
        c.refused(t, 'tc %s: refused (%s)' % (words, msg),
                  tc_filter('add', 'ip', words), 2, msg)


CT_CHAIN0 = ('$TC filter add dev $DEV1 ingress prio 1 chain 0 protocol ip '
             'flower ct_state -trk action ct %s pipe action goto chain 1')


def ct_packets(sport):
    """The original direction, its reply, the original again: +new,
    +est+rpl, +est.  Each case has ports of its own: the connection it
    makes outlives it in the conntrack table of 6.1's tdc.py's namespace,
    which all the cases of a run share (no tc or ip command flushes it),
    and would make the next case's first packet +est."""
    orig = ip4(l4=udp(sport, sport + 1))
    reply = ip4(l4=udp(sport + 1, sport), src='10.1.0.1', dst='10.2.0.1')
    return [(orig, 1), (reply, 1), (orig, 1)]


CT_PACKETS = ct_packets(5000)

# A case whose key counts none of the three packets has a positive
# control: a fourth packet, of a connection of its own (ports base + 5 ->
# base + 6, which no other case uses), that a chain 0 filter of its own
# sends through act_ct with other arguments (the control's), so that the
# key counts it and only it.  The control's filter comes first (prio 1,
# its dst_port), the case's act_ct for the others after it (prio 2).
CT_CONTROL_CHAIN0 = ('$TC filter add dev $DEV1 ingress prio 1 chain 0 '
                     'protocol ip flower ip_proto udp dst_port %d ct_state '
                     '-trk action ct %s pipe action goto chain 1')

# (name, act_ct arguments, chain 1 words, packets of CT_PACKETS counted,
# shown, and for a key that counts none of them the control's act_ct
# arguments)
CT_KEYS = [
    ('ct_state +trk+new: the first packet', 'commit', 'ct_state +trk+new',
     [0], r'ct_state \+trk\+new'),
    ('ct_state +trk+est: after the reply, both ways', 'commit',
     'ct_state +trk+est', [1, 2], r'ct_state \+trk\+est'),
    ('ct_state +trk+est+rpl: the reply', 'commit', 'ct_state +trk+est+rpl',
     [1], r'ct_state \+trk\+est\+rpl'),
    ('ct_state +trk+est-rpl: the original direction', 'commit',
     'ct_state +trk+est-rpl', [2], r'ct_state \+trk\+est-rpl'),
    ('ct_zone 5 (act_ct zone 5)', 'zone 5 commit', 'ct_zone 5', [0, 1, 2],
     r'ct_zone 5'),
    ('ct_zone 5 does not count zone 6', 'zone 6 commit', 'ct_zone 5', [],
     r'ct_zone 5', 'zone 5 commit'),
    ('ct_mark 0x12/0xff (act_ct commit mark 0x1234)',
     'commit mark 0x1234', 'ct_mark 0x34/0xff', [0, 1, 2],
     r'ct_mark 52/0xff'),
    ('ct_mark 0x35/0xff does not count mark 0x1234', 'commit mark 0x1234',
     'ct_mark 0x35/0xff', [], r'ct_mark 53/0xff', 'commit mark 0x1235'),
    ('ct_label (act_ct commit label)',
     'commit label 01000000000000000000000000000000',
     'ct_label 01000000000000000000000000000000', [0, 1, 2],
     r'ct_label 01000000000000000000000000000000'),
]


def ct_cases(c):
    """keys-ct and packets-ct: conntrack keys in chain 1, behind act_ct in
    chain 0; errors for ct_state flags no packet has together."""
    shown_back = set()
    for index, (name, act, words, counted, shown, *control) in enumerate(
            CT_KEYS):
        packets = ct_packets(5000 + 10 * index)
        setup = [CT_CHAIN0 % act]
        frames = [packets[i][0] for i in counted]
        if control:
            sport = 5000 + 10 * index + 5
            frames = [ip4(l4=udp(sport, sport + 1))]
            setup = [CT_CONTROL_CHAIN0 % (sport + 1, control[0]),
                     CT_CHAIN0.replace(' prio 1 ', ' prio 2 ') % act]
            packets = packets + [(frames[0], 1)]
        add = ('$TC filter add dev $DEV1 ingress prio 1 chain 1 protocol ip '
               'flower %s action drop' % words)
        # two packet cases may share a filter: one add-and-show case each
        if words not in shown_back:
            shown_back.add(words)
            c.case('keys-ct', 'Keys: %s: added and shown back' % name, add,
                   verify='$TC filter show dev $DEV1 ingress chain 1',
                   pattern=shown)
        c.case('packets-ct', 'Packets: %s' % name, add,
               setup=setup, scapy=packets,
               verify='$TC -s -j filter show dev $DEV1 ingress chain 1',
               match_json=stats_json('ip', len(frames), sum(
                   ingress_bytes(p) for p in frames)))
    c.case('keys-ct', 'Replace ct_state +trk+new with +trk-new (the same '
           'mask) in chain 1: the handle stays, the key changes',
           '$TC filter replace dev $DEV1 ingress prio 1 chain 1 handle 1 '
           'protocol ip flower ct_state +trk-new action drop',
           setup=['$TC filter add dev $DEV1 ingress prio 1 chain 1 handle 1 '
                  'protocol ip flower ct_state +trk+new action drop'],
           verify='$TC filter show dev $DEV1 ingress chain 1',
           pattern=r'handle 0x1 [^\n]*\n\s*eth_type ipv4\n\s*'
                   r'ct_state \+trk-new\n')
    c.case('packets-ct', 'Packets: ct_state -trk in chain 0 counts every '
           'packet (none is tracked before act_ct)',
           '$TC filter add dev $DEV1 ingress prio 2 chain 0 protocol ip '
           'flower ct_state -trk action ok', setup=[],
           scapy=ct_packets(5000 + 10 * len(CT_KEYS)), verify=SHOW_STATS,
           match_json=stats_json('ip', 3, sum(
               ingress_bytes(p) for p, _n in CT_PACKETS), prio=2))
    t = 'errors'
    for words, msg in [
            ('ct_state +trk+new+est', 'ct_state +new excludes +est and +rpl'),
            ('ct_state +trk+new+rpl', 'ct_state +new excludes +est and +rpl'),
            ('ct_state -trk+new', 'ct_state flags other than trk need +trk'),
            ('ct_state +est', 'ct_state flags other than trk need +trk'),
            ('ct_state +trk+inv+rpl', 'ct_state +inv goes with +trk alone')]:
        c.refused(t, 'tc %s: refused (%s)' % (words, msg),
                  tc_filter('add', 'ip', words), 2, msg)
