# SPDX-License-Identifier: GPL-2.0
"""Lenient filters for gen.py: the requests stock 6.1 accepts and then
ignores, masks or keeps as a filter that never matches, one kind per row
of docs/leniency.md's table.  Since series step 22 ours accepts each of
them too, stores stock's key and mask, and says what it did with an
extack warning (flower/needs.py).  They are compared like every other
filter (accepted or refused, the dump, the verdicts on the frames); a
refusal by ours that stock does not make is our bug
(classes.OURS_BUGS['ours-refuses-what-stock-takes']), and ours' warning
must be one model.predict() gives.

A lenient filter is a clean one (filters.gen_filter(clean=True), or a
tunnel filter) with one kind's twist (LENIENT_KINDS), sometimes a second
(SECOND_SHARE: netlink carries only the first warning); f['lenient'] names
them.  Frames: the filter's own (frames.frame_view(): an eth_type
unlike the filter's protocol gets frames of the protocol, tagged with the
eth_type inside when the protocol is a VLAN TPID).
"""
from difftest import keys as K
from difftest import model as M
from difftest.filters import (L4PORT_PROTOS, VLANS, eff_proto,
                              encode_filter, gen_filter, put_range,
                              rand_mask, rand_range, rand_value, shape)
from difftest.tunnel import gen_tunnel_filter
from flower import uapi

# the rows of docs/leniency.md's table, in its order
LENIENT_KINDS = ('prereq', 'addr_families', 'addr_family',
                 'mask_without_key', 'vlan_range', 'tcp_flags', 'ip_flags',
                 'eth_type', 'no_eth_type', 'enc_families', 'unknown_attr',
                 'in_hw_count', 'attr_long')
# share of the solo filters that are lenient (besides one of each kind a
# batch: gen.py), and of those with a second kind
LENIENT_SHARE = 0.08
SECOND_SHARE = 0.25
# kinds that go with any filter (a second twist)
ADDABLE = ('prereq', 'mask_without_key', 'unknown_attr', 'in_hw_count',
           'attr_long', 'tcp_flags', 'ip_flags')

A = K.A
DRAWN_KEYS = [k for k in K.KEYS if not k['tunnel'] and not k['ct'] and
              not K.special(k)]


def _value(rng, k):
    v = rand_value(rng, k) & k['bits']
    m = rand_mask(rng, k) if k['mask'] else None
    if m == 0:
        m = None           # no all-zero mask: a twin is not needed
    return v, m


def _has(f, name):
    return any(k[0] == name for k in f['keys'])


def _extra(f, t, data):
    f.setdefault('extra', []).append([t, data.hex()])


def prereq(rng, f):
    """A key whose prerequisite the filter does not give: a key row, an
    ip_proto without ip/ipv6, a port range without tcp/udp/sctp,
    MPLS_OPTS without mpls, vlan_ethtype without a tag, cvlan_ethtype
    without an inner tag, ppp_proto without ppp_ses."""
    x = rng.random()
    outer, inner, eff = shape(f)
    if x < 0.1 and f['ip_proto'] is None and eff not in ('ip', 'ipv6'):
        f['ip_proto'] = rng.choice([6, 17, 1, 58, 132, 115])
        return True
    if x < 0.2 and not f['ip_proto'] in L4PORT_PROTOS and \
            not any(K.KEY[k[0]].get('range') for k in f['keys']):
        put_range(f, rng.choice(['dst', 'src']), *rand_range(rng))
        return True
    if x < 0.27 and eff not in ('mpls_uc', 'mpls_mc') and \
            not any(k[0].startswith('mpls') for k in f['keys']):
        # one LSE: depth 1, a label (TCA_FLOWER_KEY_MPLS_OPT_LSE_*)
        lse = uapi.NESTED['KEY_MPLS_OPT_LSE']
        label = rng.getrandbits(20)
        inner_ = _nla(lse['DEPTH'], bytes([1])) + \
            _nla(lse['LABEL'], label.to_bytes(4, 'little'))
        _extra(f, M.MPLS_OPTS, _nla(uapi.NESTED['KEY_MPLS_OPTS']['LSE'] |
                                    0x8000, inner_))
        return True
    if x < 0.32 and not outer and not f['vlan_eth']:
        f['vlan_eth'] = rng.choice(['ip', 'ipv6', 'arp', '802.1q'])
        return True
    if x < 0.37 and outer and not inner and not f['cvlan_eth']:
        f['cvlan_eth'] = rng.choice(['ip', 'ipv6'])
        return True
    cands = [k for k in DRAWN_KEYS if not _has(f, k['name']) and
             k['name'] != 'num_of_vlans']
    rng.shuffle(cands)
    for k in cands:
        g = dict(f, keys=f['keys'] + [[k['name']] + list(_value(rng, k))])
        if k['name'] not in M.applied(g) and \
                M.predict(g)['refusal'] is None:
            f['keys'] = g['keys']
            return True
    return False


def _nla(t, data):
    ln = 4 + len(data)
    return ln.to_bytes(2, 'little') + t.to_bytes(2, 'little') + data + \
        bytes(-ln % 4)


def addr_families(rng, f):
    """IPv4 and IPv6 address keys in one filter: the IPv6 ones are
    ignored."""
    for fam in ('ipv4', 'ipv6'):
        if not any(k[0].startswith(fam + '_') for k in f['keys']):
            k = K.KEY['%s_%s' % (fam, rng.choice(['src', 'dst']))]
            f['keys'].append([k['name']] + list(_value(rng, k)))
    return True


def addr_family(rng, f):
    """Address keys of the family the filter's exact ethertype is not
    (kept: no packet matches), or of either family under protocol all
    (kept, silently: tc never sends it)."""
    eff = eff_proto(f)
    if any(k[0].startswith(('ipv4_', 'ipv6_')) for k in f['keys']):
        return False
    fam = 'ipv6' if eff == 'ip' else 'ipv4' if eff == 'ipv6' else \
        rng.choice(['ipv4', 'ipv6'])
    for d in rng.sample(['src', 'dst'], rng.randint(1, 2)):
        k = K.KEY['%s_%s' % (fam, d)]
        f['keys'].append([k['name']] + list(_value(rng, k)))
    return True


def mask_without_key(rng, f):
    """1-2 *_MASK attributes without their key (KEY_FLAGS_MASK and
    ENC_OPTS_MASK too): ignored."""
    have = {K.KEY[k[0]]['mask'] for k in f['keys']}
    pool = sorted({k['mask'] for k in K.KEYS if k['mask'] and
                   k['mask'] not in have and not _has(f, k['name'])} |
                  {'KEY_FLAGS_MASK', 'KEY_ENC_OPTS_MASK'})
    if _has(f, 'ip_flags'):
        pool.remove('KEY_FLAGS_MASK')
    for name in rng.sample(pool, rng.randint(1, 2)):
        a = uapi.BY_NAME[name]
        if a.length is None:        # a nest: empty
            data = b''
        elif name == 'KEY_CT_STATE_MASK':   # the policy's flags
            data = (rng.getrandbits(16) & K.CT_FLAGS).to_bytes(2, 'little')
        else:
            data = bytes(rng.getrandbits(8) for _ in range(a.length))
        _extra(f, a.number, data)
    return True


def vlan_range(rng, f):
    """vlan_id (cvlan_id) above 4095, vlan_prio (cvlan_prio) above 7 on a
    tag the filter has: masked to their bits."""
    outer, inner, _eff = shape(f)
    if not outer:
        return False
    pres = ['vlan'] + (['cvlan'] if inner else [])
    done = False
    for pre in pres:
        for suffix, top in (('_id', 0xfff), ('_prio', 7)):
            if rng.random() < 0.6 or not done:
                f['keys'] = [k for k in f['keys'] if k[0] != pre + suffix]
                v = rng.randint(top + 1, 0xffff if suffix == '_id' else 0xff)
                f['keys'].append([pre + suffix, v, None])
                done = True
    return done


def tcp_flags(rng, f):
    """tcp_flags under ip_proto tcp with mask bits above 0xfff, or no
    mask attribute (0xffff): kept as given."""
    if f['ip_proto'] != 6 or eff_proto(f) not in ('ip', 'ipv6'):
        return False
    f['keys'] = [k for k in f['keys'] if k[0] != 'tcp_flags']
    v = rng.getrandbits(12) if rng.random() < 0.7 else rng.getrandbits(16)
    m = None if rng.random() < 0.4 else \
        rng.getrandbits(16) | 1 << rng.randint(12, 15)
    f['keys'].append(['tcp_flags', v, m])
    return True


def ip_flags(rng, f):
    """ip_flags with bits other than frag and firstfrag in the key or
    the mask: dropped."""
    f['keys'] = [k for k in f['keys'] if k[0] != 'ip_flags']
    known = M.IP_FLAGS_KNOWN
    v, m = rng.getrandbits(2), rng.choice([1, 2, 3, 0])
    hi = rng.getrandbits(32) & ~known or 4
    if rng.random() < 0.5:
        v |= hi
    else:
        m |= hi
    f['keys'].append(['ip_flags', v, m])
    return True


def eth_type(rng, f):
    """TCA_FLOWER_KEY_ETH_TYPE unlike the filter's protocol (not all):
    kept, a packet must have both.  A VLAN protocol with the eth_type of
    the frame inside the tag matches on both kernels."""
    if f['proto'] == 'all' or f.get('nvlans_form') or f.get('no_eth_type'):
        return False
    if f['proto'] in VLANS:
        f['tc_proto'] = rng.choice(['ip', 'ipv6', 'arp'] +
                                   [v for v in VLANS if v != f['proto']])
    elif f['proto'] in ('ip', 'ipv6') and rng.random() < 0.3:
        f['tc_proto'] = 'ipv6' if f['proto'] == 'ip' else 'ip'
    else:
        f['tc_proto'] = rng.choice(VLANS)
    return True


def no_eth_type(rng, f):
    """No TCA_FLOWER_KEY_ETH_TYPE (a raw client): the filter's protocol
    is not a key, so the keys that need it are ignored, and VLAN keys
    count only with num_of_vlans."""
    if f['proto'] == 'all' or f.get('tc_proto'):
        return False
    f['no_eth_type'] = True
    return True


def enc_families(rng, f):
    """Tunnel IPv4 and IPv6 addresses in one filter: the tunnel's family
    is IPv6 on both kernels, ours ignores the IPv4 keys, stock keeps them
    as the first 8 bytes of the IPv6 tunnel source (its enc_ipv4 and
    enc_ipv6 share them; classes.STOCK_BUGS['stock-enc-families']).  f
    comes from gen_tunnel_filter() with an IPv6 tunnel address key; the
    IPv4 values are mostly those bytes of the frames' sources
    (tunnel.tun_src(): 2001:db8:1::/48), which stock matches too, or 0,
    or random."""
    if not f.get('dev') or f.get('tun_v') != 6:
        return False
    prefix = {'src': 0x20010db8, 'dst': 0x00010000}
    for d in rng.sample(['src', 'dst'], rng.randint(1, 2)):
        k = K.KEY['enc_ipv4_' + d]
        if _has(f, k['name']):
            continue
        v, m = _value(rng, k)
        x = rng.random()
        if x < 0.4:
            v = prefix[d]
            m = m & 0xffff0000 if d == 'dst' and m is not None else \
                (0xffff0000 if d == 'dst' else m)
            if m == 0:
                m = 0xffff0000
        elif x < 0.7:
            v = 0
        f['keys'].append([k['name'], v, m])
    return True


def unknown_attr(rng, f):
    """An attribute of a type above TCA_FLOWER_MAX (rarely 0): ignored."""
    x = rng.random()
    t = uapi.MAX + 1 if x < 0.6 else 0 if x < 0.7 else \
        rng.randint(uapi.MAX + 2, 0x3fff)
    _extra(f, t, bytes(rng.getrandbits(8) for _ in
                       range(rng.choice([0, 1, 2, 4, 8]))))
    return True


def in_hw_count(rng, f):
    """TCA_FLOWER_IN_HW_COUNT in a request: only dumped, ignored."""
    _extra(f, M.IN_HW_COUNT, rng.getrandbits(32).to_bytes(4, 'little'))
    return True


def attr_long(rng, f):
    """1-2 fixed-size attributes longer than their type (a 4-byte
    TCA_FLOWER_KEY_TCP_DST): their first bytes are used."""
    cands = sorted({t for t, _h in encode_filter(dict(f, long={}))
                    if not M.unknown_type(t) and uapi.BY_NUMBER[t].length
                    and t != M.IN_HW_COUNT and not M.fixed_max(t)})
    if not cands:
        return False
    f['long'] = {str(t): rng.choice([1, 2, 4]) for t in
                 rng.sample(cands, min(len(cands), rng.randint(1, 2)))}
    return True


TWISTS = dict(prereq=prereq, addr_families=addr_families,
              addr_family=addr_family, mask_without_key=mask_without_key,
              vlan_range=vlan_range, tcp_flags=tcp_flags, ip_flags=ip_flags,
              eth_type=eth_type, no_eth_type=no_eth_type,
              enc_families=enc_families, unknown_attr=unknown_attr,
              in_hw_count=in_hw_count, attr_long=attr_long)
# the warning each kind gives (None: it may give none, or one of several)
KIND_WARNING = dict(
    addr_families=M.NEED_MSG['noipv4'], mask_without_key=M.W['mask_without_key'],
    vlan_range=None, tcp_flags=M.W['tcp_flags'], ip_flags=M.W['ip_flags'],
    eth_type=M.W['eth_type'], enc_families=M.NEED_MSG['noenc6'],
    unknown_attr=M.W['unknown_attr'], in_hw_count=M.W['in_hw_count'],
    attr_long=M.W['attr_long'])


def base(rng, kind):
    """The clean filter a kind twists."""
    if kind == 'enc_families':
        return gen_tunnel_filter(rng, force=rng.choice(['enc_ipv6_src',
                                                        'enc_ipv6_dst']))
    f = gen_filter(rng, clean=True, nkeys=rng.randint(0, 3))
    if kind in ('tcp_flags', 'ip_flags', 'addr_families') and \
            eff_proto(f) not in ('ip', 'ipv6'):
        return None
    if kind == 'tcp_flags' and f['ip_proto'] != 6:
        if f['ip_proto'] is None or rng.random() < 0.7:
            f['ip_proto'] = 6
            f['keys'] = [k for k in f['keys']
                         if K.KEY[k[0]]['draw'] not in
                         ('udp', 'sctp', 'icmp4', 'icmp6', 'l2tp')]
        else:
            return None
    return f


def gen_lenient(rng, kind=None):
    """A lenient filter of this kind (else a random one), maybe with a
    second kind: one stock takes (model.predict(): ours takes it too)."""
    kind = kind or rng.choice(LENIENT_KINDS)
    for _ in range(500):
        f = base(rng, kind)
        if f is None or not TWISTS[kind](rng, f):
            continue
        kinds = [kind]
        if rng.random() < SECOND_SHARE:
            k2 = rng.choice([k for k in ADDABLE if k != kind])
            g = dict(f, keys=[list(k) for k in f['keys']],
                     extra=[list(x) for x in f.get('extra', ())])
            if (k2 not in ('tcp_flags', 'ip_flags') or
                    eff_proto(g) in ('ip', 'ipv6')) and TWISTS[k2](rng, g):
                f, kinds = g, kinds + [k2]
        p = M.predict(f)
        if p['refusal'] is not None:
            continue
        want = KIND_WARNING.get(kind)
        if want and want not in p['warnings']:
            continue
        if kind not in ('addr_family',) and not p['warnings']:
            continue
        f['lenient'] = kinds
        return f
    raise RuntimeError('no lenient filter of kind %s' % kind)


def lenient_kinds(f):
    """The kinds of a lenient filter ([] for another)."""
    return list(f.get('lenient') or ())


