# SPDX-License-Identifier: GPL-2.0
"""Adversarial mutations of a filter's matching frame for gen.py: truncation,
fragments, options, extension headers, tags, encapsulations, ... and of a
tunnel frame's encapsulation.
"""
from difftest import keys as K
from flower import uapi
from flower import packets as P
from difftest.frames import rand_ip, rmac


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
