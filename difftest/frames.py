# SPDX-License-Identifier: GPL-2.0
"""Frames for gen.py's filters: the exact match (base_spec(), apply_keys()),
near misses in one key bit or the protocol, random frames.
"""
from difftest import keys as K
from difftest.model import VLANS, full_mask
from flower import packets as P
from difftest.filters import (CVLAN_INNER, PROTO_WEIGHTS, VLAN_INNER,
                              num_of_vlans, ranges, valid_ranges, wchoice)


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


def frame_view(f):
    """The filter whose shape f's frames take: f, or for a lenient
    request whose eth_type is not its protocol (model.tc_proto()) the
    protocol's shape, with the eth_type inside the tag when the protocol
    is a VLAN TPID (a frame stock matches: the protocol is the outer
    tag's, the eth_type the dissector's n_proto)."""
    tp = f.get('tc_proto')
    if not tp or tp == f['proto']:
        return f
    if tp in VLANS and f['proto'] not in VLANS and f['proto'] != 'all':
        return dict(f, proto=tp, vlan_eth=f['proto'], cvlan_eth=None)
    return dict(f, proto=tp, vlan_eth=None, cvlan_eth=None)


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


def has_ports(s):
    """The frame has an L4 header with ports (tcp, udp, sctp)."""
    return bool(s.get('l4')) and s['l4'].get('kind') in ('tcp', 'udp', 'sctp')


def range_port(rng, lo, hi):
    """A port in [lo, hi], at a bound more often than not."""
    x = rng.random()
    return lo if x < 0.35 else hi if x < 0.7 else rng.randint(lo, hi)


def apply_ranges(rng, s, f):
    """The ports of f's ranges (after its other keys): a port in a
    valid range (one an exact port key of f under its mask also takes,
    when the range has one), else the bound given."""
    if not has_ports(s):
        return
    for d, (lo, hi) in sorted(ranges(f).items()):
        field = K.KEY[K.RANGE_PAIR[d][0]]['field']
        if None in (lo, hi) or hi <= lo:
            P.set_field(s, field, hi if lo is None else lo, rng)
            continue
        exact = [(v, full_mask(K.KEY[n], m)) for n, v, m in f['keys']
                 if K.KEY[n]['field'] == field and not K.KEY[n].get('range')]
        cands = [range_port(rng, lo, hi)] + [lo, hi] + \
            [rng.randint(lo, hi) for _ in range(30)]
        ok = [p for p in cands if all(not (p ^ v) & m for v, m in exact)]
        P.set_field(s, field, (ok or cands)[0], rng)


def apply_keys(rng, s, f):
    for name, v, m in f['keys']:
        k = K.KEY[name]
        if K.special(k):
            continue            # the hash: every frame's is 0 (keys.py)
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
    apply_ranges(rng, s, f)


def satisfies(spec, f):
    """Whether frame spec has every masked key bit of filter f (the
    packet model's fields; the protocol shape is the caller's): a range's
    port within it, hash 0 under the hash's mask."""
    rg = ranges(f)
    for name, v, m in f['keys']:
        k = K.KEY[name]
        mm = full_mask(k, m)
        if not mm:
            continue
        if k.get('hash'):
            if v & mm:
                return False
            continue
        if k.get('range'):
            lo, hi = rg[k['range']]
            port = P.get_field(spec, k['field']) if has_ports(spec) else None
            if None in (lo, hi, port) or not lo <= port <= hi:
                return False
            continue
        if not fits(spec, k):
            return False
        cur = P.get_field(spec, k['field'])
        if cur is None or (cur ^ v) & mm:
            return False
    return True


def joint_frame(rng, s, f, older):
    """A frame (from s) for range group member f and an older member
    of its prio, or None: f's keys, then the older one's (its value
    where they differ), then each of f's ranges' ports moved into the
    older one's range too when both have one."""
    t = P.clone(s)
    apply_keys(rng, t, f)
    apply_keys(rng, t, older)
    ro = valid_ranges(older)
    for d, (lo, hi) in valid_ranges(f).items():
        field = K.KEY[K.RANGE_PAIR[d][0]]['field']
        if not has_ports(t):
            return None
        if not lo <= P.get_field(t, field) <= hi and d in ro:
            a, b = max(lo, ro[d][0]), min(hi, ro[d][1])
            if a > b:
                return None
            P.set_field(t, field, range_port(rng, a, b), rng)
    return t if satisfies(t, f) and satisfies(t, older) else None


def range_bounds(rng, s, f, n):
    """Up to n frames (kind, spec) of s with a port of each range of f
    at a bound or just outside: min, max, min-1, max+1."""
    out = []
    if not has_ports(s):
        return out
    for d, (lo, hi) in sorted(valid_ranges(f).items()):
        cands = [('min', lo), ('max', hi)] + \
            ([('below', lo - 1)] if lo > 0 else []) + \
            ([('above', hi + 1)] if hi < 0xffff else [])
        for what, port in rng.sample(cands, min(n, len(cands))):
            t = P.clone(s)
            P.set_field(t, K.KEY[K.RANGE_PAIR[d][0]]['field'], port, rng)
            out.append(('range:%s_%s' % (d, what), t))
    return out


def near_misses(rng, s, f):
    out = []
    for name, v, m in f['keys']:
        k = K.KEY[name]
        if K.special(k):
            continue            # range_bounds(); the hash is always 0
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


def random_spec(rng):
    f = dict(proto=wchoice(rng, PROTO_WEIGHTS), vlan_eth=None, cvlan_eth=None,
             ip_proto=None, keys=[], indev=None)
    return base_spec(rng, f)


# --- first fragments ------------------------------------------------------
# the values build() gives the L4 fields a spec leaves out (get_field()
# reads such a field as 0)
L4_BUILT = {'tcp': dict(sport=1, dport=2, flags=0x10),
            'udp': dict(sport=1, dport=2), 'sctp': dict(sport=1, dport=2),
            'icmp': dict(type=8, code=0), 'icmp6': dict(type=8, code=0),
            'l2tp': dict(sid=1)}
# the L4 fields of a first fragment ours reads and stock leaves zero (the
# fields of classes.FIRST_FRAG_KEYS), and the ports, read in no fragment
FRAG_L4_FIELDS = ('l4.flags', 'l4.type', 'l4.code', 'l4.sid')
PORT_FIELDS = ('l4.sport', 'l4.dport')


def with_built_l4(spec):
    """A copy of spec whose L4 header has every field build() packs, with
    the value it packs (a spec may leave them out)."""
    t = P.clone(spec)
    l4 = t.get('l4')
    if l4:
        for name, v in L4_BUILT.get(l4.get('kind'), {}).items():
            l4.setdefault(name, v)
    return t


def fragment_views(spec, reads_l4):
    """(ours, stock): the frame spec (an IP first fragment) as each kernel
    reads it, for satisfies(): ports 0 on both (the flow dissector reads
    no fragment's ports); the L4 fields of FRAG_L4_FIELDS as built on
    ours when reads_l4 (ours' second pass took them), else 0 like
    stock's."""
    ours = with_built_l4(spec)
    if ours.get('l4'):
        for field in PORT_FIELDS:
            P.set_field(ours, field, 0)
    stock = P.clone(ours)
    for view in (stock,) if reads_l4 else (ours, stock):
        if view.get('l4'):
            for field in FRAG_L4_FIELDS:
                P.set_field(view, field, 0)
    return ours, stock
