# SPDX-License-Identifier: GPL-2.0
"""Seeded generator of (filter, packet) batches for the differential oracle.

A filter is a protocol shape (tc protocol, vlan_ethtype, cvlan_ethtype,
ip_proto) plus a random set of keys from difftest/keys.py with random
values and masks (absent, full, zero, prefix, non-prefix, single bit).
For each filter: one frame that matches it exactly, near misses that
differ in one key bit or in the protocol, and adversarial mutations of the
matching frame (truncated at a layer, fragments, IPv4 options, IPv6
extension headers, VLAN stacks, PPPoE, MPLS, GRE/IPIP/VXLAN, ICMP errors,
padding, zero/broadcast addresses); plus standalone adversarial frames.
Every prio of a batch sees every frame of the batch (action continue), so
a batch yields filters x frames verdicts.  Most filters have a prio of
their own; about half of them sit in groups of 2-6 filters in one prio,
each with its own mask (one protocol shape, key values from one pool,
the members' masks subsets of the pool's: a frame built for one member
often matches an older one too, so the order of the masks shows in which
member counts it).  num_of_vlans also comes first, as the form stock reads
("protocol all num_of_vlans 1 vlan_ethtype ip src_ip ...").

Tunnel filters (TUNNEL_SHARE of the solo filters, and --cover's filters
for the enc_* keys) go to the ingress of a collect_md VXLAN or Geneve
device (TUN_DEVS, which runner.py makes on the receiving side): a clean
filter of the inner frame and 1-3 enc_* keys of one tunnel family.  Their
frames arrive encapsulated (flower/packets.py's 'tun': to dtr's MAC
TUN_MAC and an address of TUN_NET, from the tunnel's UDP port), with the
enc_* fields the keys give; near misses differ in one enc_* bit too, or
arrive without the tunnel or over the other one.  Every filter of a batch
sees every frame: those on dtr (or dtx) the frame on the wire, those on
a tunnel device the inner frame of what that device decapsulated.

Conntrack filters (CT_FILTERS a batch, and --cover's for the ct_* keys)
go to chain 1, behind the batch's ct action (ct_action(): zone, mark,
labels; runner.py puts it in chain 0): 1-3 ct_* keys with the values of a
frame of the batch's conntrack flows (ct_flows(): frames in a fixed
order, each with the state, zone, mark and labels chain 1 sees), or one
bit off.  The flows' frames are the batch's last ('ct': true).

Output (JSON): {"seed", "batches": [{"filters": [...], "packets": [...],
"prio": [...], "handle": [...], "groups": [[filter index, ...], ...],
"ct": {zone, mark, labels, mac, mac_noct}}]}
where a filter carries its tc-like description and its pre-encoded
TCA_OPTIONS attributes, and a packet its spec and frame bytes (hex);
prio[i] and handle[i] are filter i's (installed in list order, so a
group's masks are added in its list order, oldest first; a chain 1
filter's prio is one of chain 1's).
"""
import argparse
import ipaddress
import json
import random
import sys

sys.dont_write_bytecode = True

from difftest import keys as K
from difftest.model import VLANS, full_mask, predict_refusal
from flower import uapi
from flower.uapi import IP_PROTO
from flower import packets as P

RX_DEV = 'dtr'   # the veth end whose ingress holds the filters
TX_DEV = 'dtx'   # its peer, where frames are sent
# Tunnel filters: the collect_md devices (runner.py: "external", the
# tunnel's IANA port), dtr's MAC, and the local ranges (routes of type
# local on dtr) the tunnel frames are sent to.
TUN_DEVS = {'vxlan': 'dtvx0', 'geneve': 'dtgnv0'}
TUN_MAC = 0x02000000d701
TUN_NET = {4: (0x0afd0000, 16),                         # 10.253.0.0/16
           6: (0x20010db8025300000000000000000000, 64)}  # 2001:db8:253::/64
TUNNEL_SHARE = 0.1
# Conntrack filters: runner.py puts a ct action in chain 0 (after the
# guard: a flower filter for frames to CT_MAC, "action ct commit zone Z
# mark M label L pipe action goto chain 1"), these filters in chain 1.
# A batch's conntrack flows (ct_flows()) go to CT_MAC from 10.254.0.0/16.
CT_MAC = 0x02000000c701
CT_NET = {4: 0x0afe0000, 6: 0x20010db8025400000000000000000000}
# frames to NOCT_MAC go to chain 1 without the ct action (-trk)
NOCT_MAC = 0x02000000c702
CT_FILTERS = 12
CT_PROTOS = ['ip', 'ip', 'ipv6', 'all', 'all']
CT_IP_PROTOS = {'ip': [17, 6, 1], 'ipv6': [17, 58]}

PROTO_WEIGHTS = [('ip', 22), ('ipv6', 16), ('arp', 7), ('rarp', 3),
                 ('802.1q', 12), ('802.1ad', 7), ('all', 12),
                 ('ppp_ses', 4), ('mpls_uc', 4), ('mpls_mc', 2),
                 ('lldp', 1), ('0x9000', 1)]
VLAN_INNER = [(None, 3), ('ip', 5), ('ipv6', 3), ('arp', 2),
              ('802.1q', 2), ('802.1ad', 2), ('mpls_uc', 1), ('ppp_ses', 1),
              ('0x9000', 1)]
CVLAN_INNER = [(None, 2), ('ip', 3), ('ipv6', 2), ('arp', 1)]
IP_PROTOS = [(None, 4), (6, 5), (17, 5), (132, 2), ('icmp', 3),
             (115, 1), (47, 1), (4, 1), (41, 1), (2, 1)]
# num_of_vlans first: (n, weight); the filter's protocol; after one tag
# the innermost protocol, after two the inner TPID (or none) and cvlan's
NVLANS_SHARE = 0.08
NVLANS_N = [(1, 5), (2, 3), (3, 1)]
NVLANS_PROTO = [('all', 6), ('802.1q', 2), ('802.1ad', 1), ('ip', 1)]
NVLANS_INNER1 = [(None, 2), ('ip', 4), ('ipv6', 2), ('arp', 1),
                 ('mpls_uc', 1), ('ppp_ses', 1)]
NVLANS_TPID2 = [(None, 2), ('802.1q', 2), ('802.1ad', 1)]
# groups: the chance that the next filter starts one, and its size
GROUP_START = 0.25
GROUP_SIZES = [(2, 4), (3, 3), (4, 2), (5, 1), (6, 1)]


def wchoice(rng, items):
    tot = sum(w for _, w in items)
    x = rng.uniform(0, tot)
    for v, w in items:
        x -= w
        if x <= 0:
            return v
    return items[-1][0]


def num_of_vlans(f):
    for name, v, _ in f['keys']:
        if name == 'num_of_vlans':
            return v
    return 0


def shape(f):
    """(outer is a VLAN tag, inner is a VLAN tag, effective n_proto) as
    stock reads the filter: num_of_vlans > 0 makes the eth_type a TPID
    whatever it is, > 1 makes vlan_ethtype one too (is_vlan_key())."""
    n = num_of_vlans(f)
    vl = ('802.1q', '802.1ad')
    outer = n > 0 or f['proto'] in vl
    if not outer:
        return False, False, f['proto']
    inner = n > 1 or f['vlan_eth'] in vl
    if inner:
        return True, True, f['cvlan_eth']
    return True, False, f['vlan_eth']


def eff_proto(f):
    return shape(f)[2]


def need_met(f, need):
    outer, inner, eff = shape(f)
    ipp = f['ip_proto']
    if need == 'any':
        return True
    if need in ('enc4', 'enc6'):
        return bool(f.get('dev')) and f.get('tun_v') == int(need[3])
    if need == 'ip':
        return eff in ('ip', 'ipv6')
    if need == 'ipv4':
        return eff == 'ip'
    if need == 'ipv6':
        return eff == 'ipv6'
    if need == 'arp':
        return eff in ('arp', 'rarp')
    if need == 'mpls':
        return eff in ('mpls_uc', 'mpls_mc')
    if need == 'ppp':
        return eff == 'ppp_ses'
    if need == 'vlan':
        return outer
    if need == 'cvlan':
        return inner
    if eff not in ('ip', 'ipv6'):
        return False
    return ipp == {'tcp': IP_PROTO['tcp'], 'udp': IP_PROTO['udp'],
                   'sctp': IP_PROTO['sctp'], 'l2tp': IP_PROTO['l2tp'],
                   'icmp4': IP_PROTO['icmp'] if eff == 'ip' else -1,
                   'icmp6': IP_PROTO['icmpv6'] if eff == 'ipv6' else -1}[need]


SPECIAL = {1: [0, 0xff, 1, 0x80], 2: [0, 0xffff, 80, 443, 53, 1],
           4: [0, 0xffffffff, 0x0a000001, 0x7f000001],
           6: [0, 0xffffffffffff, 0x010000000000],
           16: [0, (1 << 128) - 1, 1]}


def rand_value(rng, key):
    bits = key['bits']
    if key['name'] == 'arp_op' and rng.random() < 0.7:
        return rng.choice([1, 2])
    if rng.random() < 0.2:
        v = rng.choice(SPECIAL[key['width']])
    else:
        v = rng.getrandbits(8 * key['width'])
    if rng.random() < 0.97:
        v &= bits
    return v


def rand_mask(rng, key):
    """None = no mask attribute (full); else an int."""
    w = 8 * key['width']
    full = (1 << w) - 1
    mode = wchoice(rng, [('absent', 25), ('full', 12), ('zero', 10),
                         ('prefix', 20), ('nonprefix', 15), ('bit', 15),
                         ('bits', 3)])
    if key['name'] == 'ip_flags' and mode == 'absent':
        mode = 'bits'
    if mode == 'absent':
        return None
    if mode == 'full':
        return full
    if mode == 'zero':
        return 0
    if mode == 'prefix':
        n = rng.randint(1, w - 1)
        return (full << (w - n)) & full
    if mode == 'bit':
        return 1 << rng.randrange(w) if key['bits'] == full else \
            1 << rng.choice([i for i in range(w) if key['bits'] >> i & 1])
    if mode == 'bits':
        return key['bits']
    return rng.getrandbits(w)


def nvlans_form(rng, f):
    """num_of_vlans first, the way stock reads it (is_vlan_key()): n > 0
    makes the protocol a tag (under protocol all one with no TPID to
    match), n > 1 vlan_ethtype the inner tag's TPID (or no vlan_ethtype
    at all) and cvlan_ethtype the innermost protocol."""
    n = wchoice(rng, NVLANS_N)
    f['proto'] = wchoice(rng, NVLANS_PROTO)
    if n == 1:
        f['vlan_eth'] = wchoice(rng, NVLANS_INNER1)
    else:
        f['vlan_eth'] = wchoice(rng, NVLANS_TPID2)
        f['cvlan_eth'] = wchoice(rng, CVLAN_INNER)
    f['keys'].append(['num_of_vlans', n, None])
    f['nvlans_form'] = True


def gen_filter(rng, clean=False, nkeys=None):
    """A random filter.  clean: one both kernels take as it is (every key
    with its prerequisite, values and masks in range, no all-zero address
    mask, no indev), for a group; nkeys: how many keys, else random."""
    f = dict(proto=wchoice(rng, PROTO_WEIGHTS), vlan_eth=None,
             cvlan_eth=None, ip_proto=None, keys=[], indev=None)
    if rng.random() < NVLANS_SHARE:
        nvlans_form(rng, f)
    elif f['proto'] in VLANS:
        f['vlan_eth'] = wchoice(rng, VLAN_INNER)
        if f['vlan_eth'] in VLANS:
            f['cvlan_eth'] = wchoice(rng, CVLAN_INNER)
    eff = eff_proto(f)
    if eff in ('ip', 'ipv6'):
        ipp = wchoice(rng, IP_PROTOS)
        if ipp == 'icmp':
            ipp = 1 if eff == 'ip' else 58
        f['ip_proto'] = ipp
    have = {k[0] for k in f['keys']}
    if clean:
        # num_of_vlans picked after the protocol's keys may turn the
        # protocol into a tag's TPID and take their prerequisite away
        have.add('num_of_vlans')
    ok = [k for k in K.KEYS if need_met(f, k['need']) and
          k['name'] not in have and not k['tunnel'] and not k['ct']]
    n = nkeys if nkeys is not None else \
        wchoice(rng, [(0, 1), (1, 4), (2, 4), (3, 3), (4, 2)])
    n = min(len(ok), n)
    chosen = []
    pool = list(ok)
    for _ in range(n):            # weighted, without replacement
        k = wchoice(rng, [(k, 0.25 if k['guarded'] else 1.0) for k in pool])
        chosen.append(k)
        pool.remove(k)
    if rng.random() < 0.06 and not clean:     # a key without its prerequisite
        bad = [k for k in K.KEYS if k not in ok and k['name'] not in have
               and not k['tunnel'] and not k['ct']]
        if bad:
            chosen.append(rng.choice(bad))
    for k in chosen:
        m = rand_mask(rng, k) if k['mask'] else None
        v = rand_value(rng, k)
        if clean:
            # an absent mask is all ones: beyond a key's bits (tcp_flags'
            # 0xfff) ours refuses it, so give the valid bits as the mask
            v &= k['bits']
            if k['mask'] and full_mask(k, m) & ~k['bits']:
                m = full_mask(k, m) & k['bits']
            if m == 0 and k['name'] in K.ZERO_MASK_ADDR_KEYS:
                m = None
        f['keys'].append([k['name'], v, m])
    if rng.random() < 0.05 and not clean:
        f['indev'] = RX_DEV if rng.random() < 0.7 else 'lo'
    return f


def tun_net(v):
    """(network, prefix length, address bits) of TUN_NET[v]."""
    net, plen = TUN_NET[v]
    return net, plen, 32 if v == 4 else 128


def tun_src(rng, v):
    """An outer source address the receiving stack takes (src_ok()); an
    IPv6 one in 2001:db8:1::/48."""
    if v == 6:
        return (0x20010db80001 << 80) | rng.getrandbits(80)
    while True:
        a = rng.getrandbits(32)
        if src_ok(a, 4):
            return a


def src_ok(a, v):
    """Whether the receiving stack takes a as a tunnel frame's source:
    IPv4 refuses martians (0/8, 127/8, multicast, broadcast) and a local
    address (fib_validate_source()); IPv6 multicast, ::, ::1 and
    v4-mapped ones (a local one it takes)."""
    if v == 4:
        net, plen, bits = tun_net(v)
        return 0 < a >> 24 < 224 and a >> 24 != 127 and \
            a >> (bits - plen) != net >> (bits - plen)
    return a >> 120 != 0xff and a > 1 and a >> 32 != 0xffff


def tun_value(rng, k, f):
    """A value of tunnel key k for filter f, mostly one a frame that the
    tunnel device decapsulates can carry: an address of TUN_NET as
    destination, a source the stack takes, the tunnel's port, a 24-bit
    VNI, a TOS without ECN CE (an outer CE over a not-ECT inner IP packet
    is dropped by the decapsulation)."""
    name, v = k['name'], f['tun_v']
    if rng.random() < 0.15:
        return rand_value(rng, k)
    if name.endswith('_dst') and name.startswith('enc_ipv'):
        net, plen, bits = tun_net(v)
        return net | rng.getrandbits(bits - plen)
    if name.endswith('_src') and name.startswith('enc_ipv'):
        return tun_src(rng, v)
    if name == 'enc_udp_dst':
        return P.TUNNEL_PORT[f['dev']]
    if name == 'enc_key_id':
        return rng.choice([0, 1, 0xffffff, rng.getrandbits(24)])
    if name == 'enc_ip_tos':
        return rng.getrandbits(8) & ~3
    return rand_value(rng, k)


def gen_tunnel_filter(rng, force=None):
    """A filter for a tunnel device: a clean filter of the inner frame
    (0-2 keys), its device (dev: vxlan or geneve) and tunnel family
    (tun_v), and 1-3 enc_* keys of that family (force: this one among
    them)."""
    f = gen_filter(rng, clean=True, nkeys=rng.randint(0, 2))
    f['dev'] = 'geneve' if rng.random() < 0.3 else 'vxlan'
    f['tun_v'] = 6 if force and 'ipv6' in force else \
        4 if force and 'ipv4' in force else rng.choice([4, 4, 6])
    pool = [k for k in K.KEYS if k['tunnel'] and need_met(f, k['need'])
            and k['name'] != force]
    chosen = rng.sample(pool, rng.randint(0 if force else 1, 2 if force else 3))
    if force:
        chosen.insert(rng.randint(0, len(chosen)), K.KEY[force])
    for k in chosen:
        m = rand_mask(rng, k) if k['mask'] else None
        f['keys'].append([k['name'], tun_value(rng, k, f), m])
    return f


def rand_tun(rng, kind, v):
    """The encapsulation of a frame for a tunnel device: what runner.py's
    setup decapsulates (tunnel_reach())."""
    net, plen, bits = tun_net(v)
    return dict(kind=kind, v=v, dmac=TUN_MAC, smac=(rng.getrandbits(48) &
                                                   ~(1 << 40)) | (2 << 40),
                src=tun_src(rng, v), dst=net | rng.getrandbits(bits - plen),
                tos=rng.choice([0, 0, rng.getrandbits(6) << 2]),
                ttl=rng.choice([64, 1, 255, rng.getrandbits(8)]),
                sport=rng.getrandbits(16), dport=P.TUNNEL_PORT[kind],
                vni=rng.getrandbits(24))


def tunnel_reach(s):
    """The tunnel device (vxlan, geneve) whose flower sees the inner
    frame of s, as runner.py's setup and the receiving stack decide, or
    None: to dtr's MAC, to an address of TUN_NET from one the stack takes
    as a source, to the tunnel's port, no outer ECN CE over a not-ECT
    inner IP packet, an inner frame with its IP header whole.  runner.py
    waits for these frames on the tunnel devices; what the kernels did
    decides the verdicts."""
    t = s.get('tun')
    if not t or t['dmac'] not in (TUN_MAC, 0xffffffffffff) or \
            t['dport'] != P.TUNNEL_PORT[t['kind']]:
        return None
    net, plen, bits = tun_net(t['v'])
    if t['dst'] >> (bits - plen) != net >> (bits - plen) or \
            not src_ok(t['src'], t['v']):
        return None
    ip = s.get('ip')
    if t['tos'] & 3 == 3 and not s['tags'] and ip and \
            s['l3'] == 'ipv%d' % ip['v'] and not ip.get('tos', 0) & 3:
        return None
    # the decapsulation pulls an inner IP header whole
    # (pskb_inet_may_pull()); skb_vlan_untag() drops a tag without the
    # 2 bytes after it, before tc
    inner = P.build(P.untunneled(s))
    etype = int.from_bytes(inner[12:14], 'big')
    if len(inner) < 14 + {0x0800: 20, 0x86dd: 40}.get(etype, 0) or \
            (etype in K.VLAN_TPIDS and len(inner) < 20):
        return None
    return t['kind']


def ct_action(rng):
    """The batch's ct action: its zone, and the mark and labels it
    commits (runner.py's ct_trigger())."""
    return dict(zone=rng.randint(1, 0xffff), mark=rng.getrandbits(32) | 1,
                labels=rng.getrandbits(128) | 1)


def ct_flows(rng, act):
    """The frames of a batch's conntrack flows, in the order runner.py
    sends them (each once, conntrack flushed before), each with what
    chain 1 sees for it (its spec's 'ct': state, zone, mark, labels), as
    a list of (kind, spec).  A UDP flow a -> b (IPv4 UDP checksum 0 is
    none: conntrack takes it): the first packet and the second one
    before any reply are +trk+new, an ICMP port unreachable b -> a
    quoting it +trk+rel+rpl, the reply +trk+est+rpl, a packet after it
    +trk+est; a TCP SYN c -> d with checksum 0 (conntrack checks it at
    the ct action's PRE_ROUTING hook) +trk+inv, with no conntrack entry
    (no mark, no labels: the action's zone); an ICMP echo c -> d +trk+new
    and its reply +trk+est+rpl; an IPv6 UDP flow (checksummed) +trk+new
    and +trk+est+rpl.  Every tracked frame is committed: the action's
    mark and labels.  Last, frames to NOCT_MAC, which reach chain 1
    without the ct action: -trk, zone 0 (a UDP packet of the first flow,
    an ARP request)."""
    a, b, c, d = (CT_NET[4] | x for x in rng.sample(range(1, 0xffff), 4))
    e, g = (CT_NET[6] | rng.getrandbits(64) for _ in range(2))
    p, q = rng.randint(1024, 0xffff), rng.randint(1, 0xffff)
    smac = (rng.getrandbits(48) & ~(1 << 40)) | (2 << 40)
    trk, new, est, rel, rpl, inv = (K.CT_TRK, K.CT_NEW, K.CT_EST,
                                    K.CT_REL, K.CT_RPL, K.CT_INV)

    def frame(src, dst, proto, l4, state, tracked=True, inner=None, v=4):
        s = dict(dst=CT_MAC, src=smac, tags=[], pad=0, trunc=None,
                 l3='ipv%d' % v, ip=dict(v=v, src=src, dst=dst, tos=0,
                                         ttl=64, proto=proto, frag='none',
                                         id=rng.getrandbits(16)), l4=l4)
        if inner:
            s['inner'] = inner
        s['ct'] = dict(state=state, zone=act['zone'],
                       mark=act['mark'] if tracked else 0,
                       labels=act['labels'] if tracked else 0)
        return s

    def udp(src, sp, dst, dp, state, v=4):
        return frame(src, dst, 17, dict(kind='udp', sport=sp, dport=dp,
                                        csum=v == 6), state, v=v)
    first = udp(a, p, b, q, trk | new)
    untracked = dict(P.clone(first), dst=NOCT_MAC,
                     ct=dict(state=0, zone=0, mark=0, labels=0))
    arp = dict(untracked, l3='arp', arp=dict(op=1, sip=a, tip=b, sha=smac,
                                             tha=0, rarp=False))
    for k in ('ip', 'l4'):
        del arp[k]
    return [
        ('ct:udp_new', first),
        ('ct:udp_new_again', udp(a, p, b, q, trk | new)),
        ('ct:icmp_error_rel', frame(b, a, 1, dict(kind='icmp', type=3,
                                                  code=3, csum=True),
                                    trk | rel | rpl, inner=dict(
                                        l3='ipv4', ip=first['ip'],
                                        l4=first['l4']))),
        ('ct:udp_reply', udp(b, q, a, p, trk | est | rpl)),
        ('ct:udp_est', udp(a, p, b, q, trk | est)),
        ('ct:tcp_bad_csum_inv', frame(c, d, 6, dict(
            kind='tcp', sport=p, dport=q, flags=0x002), trk | inv, False)),
        ('ct:ping_new', frame(c, d, 1, dict(kind='icmp', type=8, code=0,
                                            csum=True), trk | new)),
        ('ct:pong_reply', frame(d, c, 1, dict(kind='icmp', type=0, code=0,
                                              csum=True), trk | est | rpl)),
        ('ct:udp6_new', udp(e, p, g, q, trk | new, v=6)),
        ('ct:udp6_reply', udp(g, q, e, p, trk | est | rpl, v=6)),
        ('ct:untracked_udp', untracked),
        ('ct:untracked_arp', arp),
    ]


def ct_mask(rng, k):
    """A mask for ct key k: ct_state's within its flags (stock's policy
    refuses others), the others' as any key's."""
    if k['name'] != 'ct_state':
        return rand_mask(rng, k)
    return rng.choice([None, K.CT_FLAGS, K.CT_TRK | rng.getrandbits(6),
                       rng.getrandbits(6)])


def gen_ct_filter(rng, flows, force=None):
    """A filter for chain 1 (behind the ct action): protocol ip, ipv6
    (rarely with an ip_proto) or all, and 1-3 conntrack keys (force: this one
    among them) with the values one frame of the batch's flows has, a
    third of them one bit off under the mask (a near miss), a few
    random."""
    f = dict(proto=rng.choice(CT_PROTOS), vlan_eth=None,
             cvlan_eth=None, ip_proto=None, keys=[], indev=None, chain=1)
    if f['proto'] in CT_IP_PROTOS and rng.random() < 0.3:
        f['ip_proto'] = rng.choice(CT_IP_PROTOS[f['proto']])
    names = [n for n in K.CT if n != force]
    chosen = rng.sample(names, rng.randint(0 if force else 1,
                                           2 if force else 3))
    if force:
        chosen.insert(rng.randint(0, len(chosen)), force)
    want = rng.choice(flows)[1]['ct']
    for name in chosen:
        k = K.KEY[name]
        v = P.get_field({'ct': want}, k['field'])
        m = ct_mask(rng, k)
        bits = full_mask(k, m) & k['bits']
        x = rng.random()
        if x < 0.3 and bits:
            v ^= 1 << rng.choice([i for i in range(8 * k['width'])
                                  if bits >> i & 1])
        elif x < 0.35:
            v = rand_value(rng, k) & k['bits']
        f['keys'].append([name, v, m])
    return f


def gen_ct_filter_with(rng, flows, name):
    """A chain 1 filter ours takes with key name under a non-zero mask."""
    for _ in range(5000):
        f = gen_ct_filter(rng, flows, force=name)
        if predict_refusal(f) is None and name in covered([f]):
            return f
    raise RuntimeError('no ct filter with key %s' % name)


def mask_sig(f):
    """What makes a filter's mask in its prio (the shape is the group's):
    its keys under non-zero masks (a zero mask is no key)."""
    return tuple(sorted((name, full_mask(K.KEY[name], m))
                        for name, _v, m in f['keys']
                        if full_mask(K.KEY[name], m)))


def mask_bits(f):
    return sum(bin(full_mask(K.KEY[name], m)).count('1')
               for name, _v, m in f['keys'])


def sub_mask(rng, k, m):
    """A mask with some of the bits of m (None: all), never none: its
    leading bits (a shorter prefix) or a random subset."""
    base = full_mask(k, m) & k['bits']
    bits = [i for i in range(8 * k['width']) if base >> i & 1]
    if len(bits) < 2:
        return m
    if rng.random() < 0.5:
        keep = bits[-rng.randint(1, len(bits) - 1):]
    else:
        keep = [b for b in bits if rng.random() < 0.5] or [bits[-1]]
    return sum(1 << b for b in keep)


def gen_group(rng, size):
    """size filters for one prio, each with its own mask: one protocol
    shape and one pool of keys with one value each (a clean filter); a
    member takes some of the pool's keys, some under a mask with fewer
    bits.  Ordered coarse first (a frame built for a finer member is
    counted by an older, coarser one), fine first, or shuffled."""
    members = []
    for _ in range(30):
        base = gen_filter(rng, clean=True, nkeys=rng.randint(2, 4))
        members, sigs = [], set()
        for _ in range(8 * size):
            if len(members) == size:
                break
            keys = []
            for name, v, m in base['keys']:
                k = K.KEY[name]
                if name == 'num_of_vlans':      # the shape: every member
                    keys.append([name, v, m])
                elif rng.random() < 0.65:
                    if k['mask'] and rng.random() < 0.5:
                        m = sub_mask(rng, k, m)
                    keys.append([name, v, m])
            g = dict(base, keys=keys)
            if mask_sig(g) not in sigs:
                sigs.add(mask_sig(g))
                members.append(g)
        if len(members) >= 2:
            break
    x = rng.random()
    if x < 0.45:
        members.sort(key=mask_bits)
    elif x < 0.7:
        members.sort(key=mask_bits, reverse=True)
    else:
        rng.shuffle(members)
    return members


def encode_filter(f):
    """The TCA_OPTIONS attributes tc would send: [[type, hex], ...]."""
    at = []

    def put(name, data):
        at.append([K.A[name], data.hex()])
    be16 = lambda v: v.to_bytes(2, 'big')   # noqa: E731
    if f['proto'] != 'all':
        put('KEY_ETH_TYPE', be16(K.PROTOS[f['proto']]))
    if f['vlan_eth']:
        put('KEY_VLAN_ETH_TYPE', be16(K.PROTOS[f['vlan_eth']]))
    if f['cvlan_eth']:
        put('KEY_CVLAN_ETH_TYPE', be16(K.PROTOS[f['cvlan_eth']]))
    if f['ip_proto'] is not None:
        put('KEY_IP_PROTO', bytes([f['ip_proto']]))
    if f['indev']:
        put('INDEV', f['indev'].encode() + b'\0')
    for name, v, m in f['keys']:
        k = K.KEY[name]
        put(k['attr'], K.encode(k, v))
        if k['mask'] and m is not None:
            put(k['mask'], K.encode(k, m))
    return at


def describe(f):
    """tc-flower-like one-liner (masks always shown as value/mask)."""
    parts = ['protocol', f['proto']]
    if f.get('dev'):
        parts = ['dev', TUN_DEVS[f['dev']]] + parts
    if f.get('chain'):
        parts = ['chain', str(f['chain'])] + parts
    if f['vlan_eth']:
        parts += ['vlan_ethtype', f['vlan_eth']]
    if f['cvlan_eth']:
        parts += ['cvlan_ethtype', f['cvlan_eth']]
    parts.append('flower')
    if f['indev']:
        parts += ['indev', f['indev']]
    if f['ip_proto'] is not None:
        parts += ['ip_proto', str(f['ip_proto'])]
    for name, v, m in f['keys']:
        k = K.KEY[name]
        w = 2 * k['width']
        s = '%0*x' % (w, v)
        if m is not None:
            s += '/%0*x' % (w, m)
        parts += [name, s]
    return ' '.join(parts)


# --- packets --------------------------------------------------------------
def rmac(rng):
    return rng.choice([rng.getrandbits(48) & ~(1 << 40), 0xffffffffffff,
                       0, rng.getrandbits(48)]) if rng.random() < 0.15 \
        else (rng.getrandbits(48) & ~(1 << 40)) | (2 << 40)


def rand_ip(rng, v):
    s = dict(v=v, tos=rng.getrandbits(8) if rng.random() < 0.5 else 0,
             ttl=rng.choice([64, 1, 0, 255, rng.getrandbits(8)]),
             proto=17, frag='none', id=rng.getrandbits(16))
    if v == 4:
        s['src'] = rng.getrandbits(32)
        s['dst'] = rng.getrandbits(32)
    else:
        s['src'] = (0x2001 << 112) | rng.getrandbits(64)
        s['dst'] = (0xfe80 << 112) | rng.getrandbits(64) if rng.random() < 0.2 \
            else (0x2001 << 112) | rng.getrandbits(64)
    return s


def rand_l4(rng, proto, v):
    kind = P.PROTO_L4.get(proto, 'raw')
    l4 = dict(kind=kind, sport=rng.getrandbits(16), dport=rng.getrandbits(16),
              flags=rng.choice([0x002, 0x010, 0x012, 0x018, 0x011, 0x004,
                                rng.getrandbits(12)]),
              sid=rng.getrandbits(32))
    if kind == 'icmp' and v == 6:
        kind = l4['kind'] = 'raw'
    if kind == 'icmp6' and v == 4:
        kind = l4['kind'] = 'raw'
    if kind == 'icmp':
        l4['type'], l4['code'] = rng.choice([(8, 0), (0, 0), (3, 1), (11, 0),
                                             (rng.getrandbits(8), rng.getrandbits(8))])
    if kind == 'icmp6':
        l4['type'], l4['code'] = rng.choice([(128, 0), (129, 0), (1, 4), (135, 0),
                                             (rng.getrandbits(8), rng.getrandbits(8))])
    return l4


def rand_inner_ip(rng, v):
    s = dict(l3='ipv%d' % v, ip=rand_ip(rng, v))
    s['ip']['proto'] = rng.choice([6, 17])
    s['l4'] = rand_l4(rng, s['ip']['proto'], v)
    return s


def set_ip_l3(rng, s, v, proto=None):
    s['ip'] = rand_ip(rng, v)
    if proto is None:
        proto = wchoice(rng, [(6, 4), (17, 4), (132, 1), (1 if v == 4 else 58, 2),
                              (115, 1), (47, 1), (4, 1), (41, 1),
                              (rng.getrandbits(8), 1)])
    s['ip']['proto'] = proto
    s['l4'] = rand_l4(rng, proto, v)
    k = s['l4']['kind']
    if k in ('gre', 'ipip', 'ip6ip'):
        s['inner'] = rand_inner_ip(rng, 6 if k == 'ip6ip' else
                                   (4 if k == 'ipip' else rng.choice([4, 6])))
    elif k in ('icmp', 'icmp6') and s['l4']['type'] in (3, 11, 1):
        s['inner'] = rand_inner_ip(rng, v)


def set_l3(rng, s, name):
    """name: a tc protocol name of a non-VLAN ethertype."""
    s.pop('ip', None)
    s.pop('l4', None)
    s.pop('inner', None)
    s['etype'] = None
    if name in ('ip', 'ipv6'):
        s['l3'] = 'ipv4' if name == 'ip' else 'ipv6'
        set_ip_l3(rng, s, 4 if name == 'ip' else 6)
    elif name in ('arp', 'rarp'):
        s['l3'] = 'arp'
        s['arp'] = dict(op=rng.choice([1, 2, 1, 2, 1, 2, 3, 4, 0x101,
                                       rng.getrandbits(16)]),
                        sip=rng.getrandbits(32), tip=rng.getrandbits(32),
                        sha=rmac(rng), tha=rng.choice([0, rmac(rng)]),
                        rarp=name == 'rarp')
    elif name in ('mpls_uc', 'mpls_mc'):
        s['l3'] = 'mpls'
        s['mpls_mc'] = name == 'mpls_mc'
        n = rng.randint(1, 3)
        s['mpls'] = [[rng.getrandbits(20), rng.getrandbits(3), int(i == n - 1),
                      rng.getrandbits(8)] for i in range(n)]
        if rng.random() < 0.7:
            s['ip'] = rand_ip(rng, rng.choice([4, 6]))
            s['l4'] = rand_l4(rng, s['ip']['proto'], s['ip']['v'])
    elif name == 'ppp_ses':
        s['l3'] = 'pppoe'
        v = rng.choice([4, 6, 0])
        s['pppoe'] = dict(sid=rng.getrandbits(16),
                          proto={4: 0x21, 6: 0x57, 0: rng.getrandbits(16)}[v])
        if v:
            s['ip'] = rand_ip(rng, v)
            s['ip']['proto'] = rng.choice([6, 17, 1 if v == 4 else 58])
            s['l4'] = rand_l4(rng, s['ip']['proto'], v)
    else:
        s['l3'] = 'raw'
        s['etype'] = K.PROTOS.get(name, 0x9000)


def nvlans_chain(rng, f, n):
    """The ethertypes of a frame for a num_of_vlans form: n tags (the
    filter's TPIDs where it has them), then the innermost protocol."""
    tpids = [rng.choice(VLANS) for _ in range(n)]
    if f['proto'] in VLANS:
        tpids[0] = f['proto']
    if n > 1 and f['vlan_eth'] in VLANS:
        tpids[1] = f['vlan_eth']
    inner = f['vlan_eth'] if n == 1 else f['cvlan_eth']
    if inner is None or inner in VLANS:
        inner = wchoice(rng, [(p, w) for p, w in VLAN_INNER
                              if p and p not in VLANS])
    return tpids + [inner]


def base_spec(rng, f):
    s = dict(dst=rmac(rng), src=rmac(rng), tags=[], pad=0, trunc=None)
    proto = f['proto']
    n = num_of_vlans(f)
    if n and (proto == 'all' or proto in VLANS):
        chain = nvlans_chain(rng, f, n)
        for p in chain[:-1]:
            s['tags'].append([K.PROTOS[p], rng.getrandbits(3), 0,
                              rng.getrandbits(12)])
        set_l3(rng, s, chain[-1])
        if f['ip_proto'] is not None and s.get('ip'):
            set_ip_l3(rng, s, s['ip']['v'], f['ip_proto'])
        return s
    if proto == 'all':
        proto = wchoice(rng, [(p, w) for p, w in PROTO_WEIGHTS if p != 'all'])
        if proto in ('802.1q', '802.1ad') and not f['vlan_eth']:
            pass
    chain = [proto]
    if proto in ('802.1q', '802.1ad'):
        inner = f['vlan_eth'] if f['proto'] != 'all' else None
        inner = inner or wchoice(rng, [(p, w) for p, w in VLAN_INNER if p])
        chain.append(inner)
        if inner in ('802.1q', '802.1ad'):
            inner2 = f['cvlan_eth'] or wchoice(rng, [(p, w) for p, w in CVLAN_INNER if p])
            chain.append(inner2)
    for p in chain[:-1]:
        s['tags'].append([K.PROTOS[p], rng.getrandbits(3), 0, rng.getrandbits(12)])
    set_l3(rng, s, chain[-1])
    if f['ip_proto'] is not None and s.get('ip'):
        v = s['ip']['v']
        set_ip_l3(rng, s, v, f['ip_proto'])
    return s


def fits(s, k):
    """Whether the packet has the field key k matches."""
    head = k['field'].split('.')[0]
    if head in ('ip', 'l4', 'arp', 'pppoe', 'tun') and not s.get(head):
        return False
    if k['field'] in ('ip.src', 'ip.dst', 'tun.src', 'tun.dst') and \
            (k['width'] == 4) != (s[head]['v'] == 4):
        return False
    return True


def field_bits(k):
    """The bits of key k the packet field can carry (a VNI has 24)."""
    return k['bits'] & P.FIELD_BITS.get(k['field'], k['bits'])


def apply_keys(rng, s, f):
    for name, v, m in f['keys']:
        k = K.KEY[name]
        full = (1 << (8 * k['width'])) - 1
        m = full if m is None else m
        if not fits(s, k):
            continue
        cur = P.get_field(s, k['field']) or 0
        if name == 'arp_op':
            # the dissector only parses requests and replies
            ok = [op for op in (1, 2) if op & m == v & m]
            if ok:
                cur = rng.choice(ok)
        new = (v & m) | (cur & ~m & full)
        new &= field_bits(k) if k['field'] not in ('arp.op',) else 0xffff
        P.set_field(s, k['field'], new, rng)


def near_misses(rng, s, f):
    out = []
    for name, v, m in f['keys']:
        k = K.KEY[name]
        full = (1 << (8 * k['width'])) - 1
        m = full if m is None else m
        m &= field_bits(k)
        if not m or not fits(s, k):
            continue
        cur = P.get_field(s, k['field'])
        if cur is None:
            continue
        bits = [i for i in range(8 * k['width']) if m >> i & 1]
        t = P.clone(s)
        try:
            P.set_field(t, k['field'], cur ^ (1 << rng.choice(bits)), rng)
        except (KeyError, TypeError, AttributeError):
            continue
        out.append(('near:' + name, t))
    if s.get('tun'):
        # the frame without its tunnel (no metadata, not on the tunnel
        # device), or over the other tunnel (the other device)
        t = P.clone(s)
        if rng.random() < 0.5:
            del t['tun']
            out.append(('near:untunneled', t))
        else:
            kind = 'geneve' if t['tun']['kind'] == 'vxlan' else 'vxlan'
            t['tun'].update(kind=kind, dport=P.TUNNEL_PORT[kind])
            out.append(('near:tunnel_kind', t))
    # protocol near misses
    t = P.clone(s)
    if t['tags']:
        r = rng.random()
        if r < 0.4:
            t['tags'][0][0] ^= K.VLAN_TPIDS[0] ^ K.VLAN_TPIDS[1]
        elif r < 0.7:
            t['tags'].pop(0)
        else:
            t['tags'].insert(0, [rng.choice(K.VLAN_TPIDS), 0, 0,
                                  rng.getrandbits(12)])
        out.append(('near:tags', t))
    elif s.get('ip') and f['ip_proto'] is not None:
        t['ip']['proto'] = (t['ip']['proto'] + rng.randint(1, 255)) & 0xff
        out.append(('near:ip_proto', t))
    else:
        t['tags'].insert(0, [K.VLAN_TPIDS[0], 0, 0, rng.getrandbits(12)])
        out.append(('near:tag', t))
    rng.shuffle(out)
    return out[:3]


MUTATIONS = ['trunc', 'trunc', 'frag_first', 'frag_later', 'ipopts',
             'v6ext', 'tags', 'tags', 'pppoe', 'mpls', 'encap', 'icmperr',
             'pad', 'zeroaddr', 'bcast', 'tcpflags', 'len8023', 'arpodd']


def mutate(rng, s, how=None):
    t = P.clone(s)
    if t.get('tun') and how is None and rng.random() < 0.3:
        return mutate_tunnel(rng, t)
    how = how or rng.choice(MUTATIONS)
    ip = t.get('ip')
    if how == 'trunc':
        full = len(P.build(P.untunneled(t)))
        hl = P.header_len(t)
        cut = rng.choice([hl - 2, hl, hl + 1, hl + 10, hl + 19, hl + 20,
                          hl + 21, hl + 39, hl + 40, hl + 41, hl + 44, hl + 48,
                          full - 1, rng.randint(14, max(14, full - 1))])
        t['trunc'] = max(14, min(cut, full - 1))
    elif how in ('frag_first', 'frag_later') and ip:
        ip['frag'] = 'first' if how == 'frag_first' else 'later'
        ip['fragoff'] = rng.choice([1, 8, 185])
        ip['mf'] = rng.getrandbits(1)
    elif how == 'ipopts' and ip and ip['v'] == 4:
        ip['opts'] = rng.choice(['01010101', '07070400000000000000', '9404000001',
                                 '44' + '0c05' + '00' * 9, '00'])
    elif how == 'v6ext' and ip and ip['v'] == 6:
        ip['ext'] = [rng.choice(['hbh', 'rt', 'dst', 'frag'])
                     for _ in range(rng.randint(1, 3))]
    elif how == 'tags':
        n = rng.randint(0, 3)
        t['tags'] = [[rng.choice(K.VLAN_TPIDS), rng.getrandbits(3),
                      rng.getrandbits(1) if rng.random() < 0.1 else 0,
                      rng.choice([0, 1, 4095, rng.getrandbits(12)])]
                     for _ in range(n)]
    elif how == 'pppoe' and ip:
        t['l3'] = 'pppoe'
        t['pppoe'] = dict(sid=rng.getrandbits(16),
                          proto=0x21 if ip['v'] == 4 else 0x57)
    elif how == 'mpls':
        if t['l3'] in ('ipv4', 'ipv6'):
            t['l3'] = 'mpls'
        n = rng.randint(1, 4)
        t['mpls'] = [[rng.getrandbits(20), rng.getrandbits(3),
                      int(i == n - 1), rng.getrandbits(8)] for i in range(n)]
        if t['l3'] != 'mpls':
            t['l3'] = 'mpls'
    elif how == 'encap' and ip:
        inner = {k: t[k] for k in ('ip', 'l4', 'inner') if k in t}
        inner['l3'] = 'ipv%d' % ip['v']
        outer_v = rng.choice([4, 6])
        kind = rng.choice(['gre', 'ipip' if ip['v'] == 4 else 'ip6ip', 'vxlan'])
        if kind == 'vxlan':
            inner = dict(inner, ether=True, dst=rmac(rng), src=rmac(rng),
                         tags=[], pad=0, trunc=None)
        t['l3'] = 'ipv%d' % outer_v
        t['ip'] = rand_ip(rng, outer_v)
        if rng.random() < 0.5:           # outer addresses = the inner ones
            if outer_v == ip['v']:
                t['ip']['src'], t['ip']['dst'] = ip['src'], ip['dst']
        t['ip']['proto'] = {'gre': 47, 'ipip': 4, 'ip6ip': 41, 'vxlan': 17}[kind]
        t['l4'] = dict(kind=kind, sport=rng.getrandbits(16), vni=rng.getrandbits(24))
        t['inner'] = inner
    elif how == 'icmperr' and ip:
        inner = {k: t[k] for k in ('ip', 'l4') if k in t}
        inner['l3'] = 'ipv%d' % ip['v']
        t['ip'] = dict(rand_ip(rng, ip['v']), src=ip['dst'], dst=ip['src'])
        t['ip']['proto'] = 1 if ip['v'] == 4 else 58
        t['l4'] = dict(kind='icmp' if ip['v'] == 4 else 'icmp6',
                       type=3 if ip['v'] == 4 else 1, code=rng.randint(0, 4))
        t['inner'] = inner
    elif how == 'pad':
        t['pad'] = rng.choice([1, 4, 18, 60, 200])
    elif how == 'zeroaddr':
        if ip:
            ip[rng.choice(['src', 'dst'])] = 0
        else:
            t[rng.choice(['src', 'dst'])] = 0
    elif how == 'bcast':
        t['dst'] = 0xffffffffffff
        if ip and ip['v'] == 4:
            ip['dst'] = 0xffffffff
    elif how == 'tcpflags' and t.get('l4') and t['l4']['kind'] == 'tcp':
        t['l4']['flags'] = rng.choice([0, 0xfff, 0x03f, 0x0e00, 0x100, 0x003])
    elif how == 'len8023':
        t['l3'] = 'len8023'
        t['etype'] = None
    elif how == 'arpodd' and t.get('arp'):
        a = t['arp']
        r = rng.random()
        if r < 0.3:
            a['hrd'] = 6
        elif r < 0.6:
            a['pro'] = uapi.ETH_P['ipv6']
        else:
            a['hln'], a['pln'] = rng.choice([(8, 4), (6, 16), (0, 0)])
    else:
        t['trunc'] = max(14, len(P.build(P.untunneled(t))) -
                         rng.randint(1, 30))
        how = 'trunc'
    return ('mut:' + how, t)


def mutate_tunnel(rng, t):
    """A mutation of a tunnel frame's encapsulation (the others mutate
    its inner frame)."""
    tun = t['tun']
    how = rng.choice(['ecn_ce', 'ttl', 'vni', 'sport', 'local_src',
                      'bcast'])
    if how == 'ecn_ce':
        tun['tos'] |= 3
    elif how == 'ttl':
        tun['ttl'] = rng.choice([0, 1, 255])
    elif how == 'vni':
        tun['vni'] = rng.choice([0, 0xffffff])
    elif how == 'sport':
        tun['sport'] = rng.choice([0, tun['dport']])
    elif how == 'local_src':
        tun['src'] = tun['dst']
    else:
        tun['dmac'] = 0xffffffffffff
    return ('mut:tun_' + how, t)


def random_spec(rng):
    f = dict(proto=wchoice(rng, PROTO_WEIGHTS), vlan_eth=None, cvlan_eth=None,
             ip_proto=None, keys=[], indev=None)
    return base_spec(rng, f)


def covered(filters):
    """Keys under a non-zero mask in a filter ours is predicted to take."""
    return {name for f in filters if predict_refusal(f) is None
            for name, _v, m in f['keys'] if full_mask(K.KEY[name], m)}


def zero_masked(f, names):
    """f's keys of these names under an all-zero mask."""
    return [k for k in f['keys'] if k[0] in names and k[2] == 0]


def gen_filter_with(rng, name):
    """A clean filter with key name under a non-zero mask: random clean
    filters until one has the key's prerequisite (num_of_vlans: its own
    form, chosen first), then the key added."""
    k = K.KEY[name]
    for _ in range(5000):
        if k['tunnel']:
            # no all-zero tunnel address mask: stock's bug, told apart
            # only with a twin, which cover filters do not have
            f = gen_tunnel_filter(rng, force=name)
            if predict_refusal(f) is None and name in covered([f]) and \
                    not zero_masked(f, K.ZERO_MASK_ENC_KEYS):
                return f
            continue
        f = gen_filter(rng, clean=True, nkeys=rng.randint(0, 2))
        if name == 'num_of_vlans' and not f.get('nvlans_form'):
            continue
        if name != 'num_of_vlans':
            if not need_met(f, k['need']):
                continue
            f['keys'] = [x for x in f['keys'] if x[0] != name]
            m = rand_mask(rng, k) if k['mask'] else None
            if m is not None:
                m &= k['bits']
            if k['mask'] and not full_mask(k, m) & k['bits']:
                m = None
            if k['mask'] and full_mask(k, m) & ~k['bits']:
                m = k['bits']
            f['keys'].insert(rng.randint(0, len(f['keys'])),
                             [name, rand_value(rng, k) & k['bits'], m])
        if predict_refusal(f) is None and name in covered([f]):
            return f
    raise RuntimeError('no clean filter with key %s' % name)


def gen_batch(rng, nfilters, index0=0, cover=False):
    """nfilters filters (twins not counted): solo ones in a prio each,
    and groups in one prio each (GROUP_START, GROUP_SIZES).  cover: then
    one more filter (a prio of its own) for each key no filter ours takes
    has, so that every key of keys.py is matched in the batch."""
    filters, packets, prios, handles, groups = [], [], [], [], []
    made = 0
    while made < nfilters:
        size = wchoice(rng, GROUP_SIZES)
        members = gen_group(rng, min(size, nfilters - made)) \
            if rng.random() < GROUP_START and nfilters - made >= 2 else []
        if len(members) >= 2:
            prio = (prios[-1] if prios else 0) + 1
            groups.append(list(range(len(filters),
                                     len(filters) + len(members))))
            for h, g in enumerate(members, start=1):
                g['group'] = len(groups) - 1
                filters.append(g)
                prios.append(prio)
                handles.append(h)
            made += len(members)
            continue
        f = gen_tunnel_filter(rng) if rng.random() < TUNNEL_SHARE \
            else gen_filter(rng)
        filters.append(f)
        prios.append((prios[-1] if prios else 0) + 1)
        handles.append(1)
        made += 1
        # twin: the same filter without its zero-mask address keys, or
        # tunnel address keys (the known stock bugs are recognised by
        # comparing with it)
        zk = zero_masked(f, K.ZERO_MASK_ADDR_KEYS + K.ZERO_MASK_ENC_KEYS)
        if zk:
            tw = dict(f, keys=[kk for kk in f['keys'] if kk not in zk],
                      twin_of=len(filters) - 1)
            filters.append(tw)
            prios.append(prios[-1] + 1)
            handles.append(1)
    # the conntrack flows and chain 1's filters (prios of their own there)
    act = ct_action(rng)
    flows = ct_flows(rng, act)

    def next_prio(chain):
        return 1 + max([p for p, f in zip(prios, filters)
                        if f.get('chain', 0) == chain], default=0)
    for _ in range(CT_FILTERS):
        prios.append(next_prio(1))
        filters.append(gen_ct_filter(rng, flows))
        handles.append(1)
    have = covered(filters) if cover else {k['name'] for k in K.KEYS}
    for k in K.KEYS:
        if k['name'] not in have:
            f = gen_ct_filter_with(rng, flows, k['name']) if k['ct'] \
                else gen_filter_with(rng, k['name'])
            f['cover'] = k['name']
            prios.append(next_prio(f.get('chain', 0)))
            filters.append(f)
            handles.append(1)
    for fi, f in enumerate(filters):
        if 'twin_of' in f or f.get('chain'):
            continue     # a twin's frames are its filter's; ct: the flows
        s = base_spec(rng, f)
        if f.get('dev'):
            s['tun'] = rand_tun(rng, f['dev'], f['tun_v'])
        apply_keys(rng, s, f)
        packets.append(dict(owner=fi, kind='match', spec=s))
        for kind, t in near_misses(rng, s, f):
            packets.append(dict(owner=fi, kind=kind, spec=t))
        older = [gi for gi in groups[f['group']] if gi < fi] \
            if 'group' in f else []
        if older:
            # a frame for this member and an older one of its prio: the
            # older mask is tried first, its filter counts it
            t = P.clone(s)
            apply_keys(rng, t, filters[rng.choice(older)])
            apply_keys(rng, t, f)
            packets.append(dict(owner=fi, kind='group:older', spec=t))
        for _ in range(1 if older else 2):
            kind, t = mutate(rng, s)
            packets.append(dict(owner=fi, kind=kind, spec=t))
    for _ in range(max(2, nfilters // 4)):
        kind, t = mutate(rng, random_spec(rng))
        packets.append(dict(owner=None, kind='adv:' + kind[4:], spec=t))
    for _ in range(max(1, nfilters // 20)):     # for every tunnel filter
        t = random_spec(rng)
        kind = rng.choice(sorted(TUN_DEVS))
        t['tun'] = rand_tun(rng, kind, rng.choice([4, 6]))
        kind, t = mutate(rng, t)
        packets.append(dict(owner=None, kind='adv:tunnel:' + kind[4:], spec=t))
    packets += [dict(owner=None, kind=kind, spec=t, ct=True)
                for kind, t in flows]
    for fi, f in enumerate(filters):
        f['attrs'] = encode_filter(f)
        f['desc'] = describe(f)
        f['refusal'] = predict_refusal(f)
        if 'group' in f:
            g = groups[f['group']]
            f['desc'] += ' [prio %d: mask %d of %d]' % (
                prios[fi], g.index(fi) + 1, len(g))
    for p in packets:
        p['tunnel'] = tunnel_reach(p['spec'])
        b = P.build(p['spec'])
        if len(b) < 14:
            b = b + bytes(14 - len(b))
        p['hex'] = b[:1514].hex()
    return dict(filters=filters, packets=packets, prio=prios,
                handle=handles, groups=groups,
                ct=dict(act, mac=P.mac(CT_MAC), mac_noct=P.mac(NOCT_MAC)))


def link_cmd(kind, dev, port):
    """`ip` arguments that make a collect_md tunnel device (VXLAN
    without learning: no state of one frame for the next)."""
    return 'link add %s type %s external dstport %d%s' % (
        dev, kind, port, ' nolearning' if kind == 'vxlan' else '')


def tunnel_setup():
    """What runner.py needs to make the tunnel devices' side."""
    nets = {}
    for v, (net, plen) in TUN_NET.items():
        a = ipaddress.ip_address(net)
        nets['net%d' % v] = '%s/%d' % (a, plen)
    return dict(devs=TUN_DEVS, mac=P.mac(TUN_MAC), ports=P.TUNNEL_PORT,
                links={kind: link_cmd(kind, dev, P.TUNNEL_PORT[kind])
                       for kind, dev in TUN_DEVS.items()}, **nets)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--seed', type=int, required=True)
    ap.add_argument('--batches', type=int, default=2)
    ap.add_argument('--filters', type=int, default=130,
                    help='filters per batch (before twins)')
    ap.add_argument('--cover', action='store_true',
                    help='every key of keys.py in a filter ours takes, in '
                    'every batch (a filter more for each key missing)')
    ap.add_argument('--out', required=True)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    batches = [gen_batch(rng, a.filters, cover=a.cover)
               for _ in range(a.batches)]
    # even batches on dtr's ingress (outer tag accelerated), odd ones on
    # dtx's egress (tags in the frame); a single batch: by seed
    for bi, b in enumerate(batches):
        b['hook'] = 'egress' if (bi + (a.seed if a.batches == 1 else 0)) % 2 \
            else 'ingress'
    doc = dict(seed=a.seed, rx=RX_DEV, tx=TX_DEV, batches=batches,
               tunnel=tunnel_setup())
    with open(a.out, 'w') as fp:
        json.dump(doc, fp)
    nv = sum(len(b['filters']) * len(b['packets']) for b in batches)
    print('difftest: seed %d: %d batches (%s), %d filters (%d in %d groups, '
          '%d added to cover a key, %d on a tunnel device), %d frames (%d '
          'tunneled), %d pairs'
          % (a.seed, len(batches), ' '.join(b['hook'] for b in batches),
             sum(len(b['filters']) for b in batches),
             sum(len(g) for b in batches for g in b['groups']),
             sum(len(b['groups']) for b in batches),
             sum('cover' in f for b in batches for f in b['filters']),
             sum(bool(f.get('dev')) for b in batches for f in b['filters']),
             sum(len(b['packets']) for b in batches),
             sum(bool(p['spec'] and p['spec'].get('tun'))
                 for b in batches for p in b['packets']), nv))


if __name__ == '__main__':
    main()
