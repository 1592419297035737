# SPDX-License-Identifier: GPL-2.0
"""Filter drawing for gen.py: protocol shapes, keys with random values and
masks, num_of_vlans forms, groups of filters in one prio, the TCA_OPTIONS
encoding and tc-like description of a filter.
"""
from difftest import keys as K
from difftest import model as M
from difftest.model import VLANS, full_mask, predict_refusal
from flower import uapi
from flower.uapi import IP_PROTO


RX_DEV = 'dtr'   # the veth end whose ingress holds the filters
TX_DEV = 'dtx'   # its peer, where frames are sent
# the collect_md tunnel devices tunnel filters sit on (tunnel.py)
TUN_DEVS = {'vxlan': 'dtvx0', 'geneve': 'dtgnv0'}


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
# port ranges: the ip_protos that have them (stock's fl_set_key() reads
# them under tcp, udp, sctp only); the share of such filters with a range
# (dst, src or both: RANGE_DIRS), of the others with one anyway (ignored
# by both kernels, ours with a warning), of ranges drawn invalid (one
# bound only, min == max, min > max: both kernels refuse; not in clean
# filters)
L4PORT_PROTOS = (6, 17, 132)
RANGE_SHARE = 0.4
RANGE_NO_PREREQ = 0.02
RANGE_BAD = 0.2
RANGE_DIRS = [(('dst',), 55), (('src',), 25), (('dst', 'src'), 20)]
# of the groups: the share that are range groups (range_group())
RANGE_GROUP_SHARE = 0.3
# the hash key: share of the filters (not clean ones: no group, tunnel or
# cover filter draws it by chance)
HASH_SHARE = 0.04


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
    """Whether f's shape gives a key of this draw need (keys.py: a row's
    'draw'): the shape the generator gives a key that is to apply with
    no warning."""
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
    if need == 'l4port':
        return ipp in L4PORT_PROTOS
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
    ok = [k for k in K.KEYS if need_met(f, k['draw']) and
          k['name'] not in have and not k['tunnel'] and not k['ct'] and
          not K.special(k)]
    n = nkeys if nkeys is not None else \
        wchoice(rng, [(0, 1), (1, 4), (2, 4), (3, 3), (4, 2)])
    n = min(len(ok), n)
    chosen = []
    pool = list(ok)
    for _ in range(n):            # weighted, without replacement
        k = wchoice(rng, [(k, 0.25 if k['guarded'] else 1.0) for k in pool])
        chosen.append(k)
        pool.remove(k)
    # a key without its prerequisite (both kernels ignore it, ours with a
    # warning), or with one tc would not give it (IPv4 addresses under
    # protocol all: both keep it)
    if rng.random() < 0.06 and not clean:
        bad = [k for k in K.KEYS if k not in ok and k['name'] not in have
               and not k['tunnel'] and not k['ct'] and not K.special(k)]
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
    add_ranges(rng, f, clean)
    if not clean and rng.random() < HASH_SHARE:
        add_hash(rng, f)
    return f


def rand_range(rng):
    """A valid port range (min < max): narrow, wide, at 0 or 65535, or
    a well-known one."""
    x = rng.random()
    if x < 0.15:
        return rng.choice([(1000, 2000), (80, 443), (1024, 65535), (0, 1023),
                           (0, 65535), (1, 2), (65534, 65535), (0, 1)])
    width = rng.choice([1, 2, rng.randint(1, 16), rng.randint(1, 1024),
                        rng.randint(1, 40000)])
    if x < 0.3:
        lo = 0
    elif x < 0.45:
        lo = 65535 - width
    else:
        lo = rng.randint(0, 65535 - width)
    lo = max(0, min(lo, 65534))
    return lo, min(65535, lo + width)


def put_range(f, direction, lo, hi):
    """Set a direction's range (lo or hi None: that bound left out)."""
    lo_k, hi_k = K.RANGE_PAIR[direction]
    f['keys'] = [k for k in f['keys'] if k[0] not in (lo_k, hi_k)]
    if lo is not None:
        f['keys'].append([lo_k, lo, None])
    if hi is not None:
        f['keys'].append([hi_k, hi, None])


def ranges(f):
    """{direction: (min or None, max or None)} of f's range keys."""
    out = {}
    for name, v, _m in f['keys']:
        k = K.KEY[name]
        if k.get('range'):
            lo, hi = out.get(k['range'], (None, None))
            out[k['range']] = (v, hi) if k['bound'] == 'min' else (lo, v)
    return out


def valid_ranges(f):
    """{direction: (min, max)} of f's ranges with both bounds, min < max."""
    return {d: r for d, r in ranges(f).items()
            if None not in r and r[0] < r[1]}


def add_ranges(rng, f, clean):
    """Maybe port ranges: RANGE_SHARE of the filters whose shape has
    ports (ip / ipv6 and tcp, udp, sctp), RANGE_NO_PREREQ of the others
    (not clean, and only when ours takes the rest: both ignore them, ours
    with a warning); RANGE_BAD of them invalid (not clean)."""
    if need_met(f, 'l4port'):
        if rng.random() >= RANGE_SHARE:
            return
    elif clean or rng.random() >= RANGE_NO_PREREQ or \
            predict_refusal(f) is not None:
        return
    dirs = wchoice(rng, RANGE_DIRS)
    for d in dirs:
        put_range(f, d, *rand_range(rng))
    if not clean and rng.random() < RANGE_BAD and \
            predict_refusal(f) is None:
        d = rng.choice(dirs)
        lo, hi = rand_range(rng)
        put_range(f, d, *rng.choice([(lo, None), (None, hi), (lo, lo),
                                      (hi, lo)]))


def add_hash(rng, f):
    """The hash key: mostly a value that is 0 under its mask (the rig's
    frames have hash 0: the filter matches what its other keys match),
    else one bit set under it (it matches nothing), or random."""
    k = K.KEY['hash']
    m = rand_mask(rng, k)
    full = full_mask(k, m)
    x = rng.random()
    v = rng.getrandbits(32)
    if x < 0.6:
        v &= ~full
    elif x < 0.9 and full:
        v = (v & ~full) | 1 << rng.choice([i for i in range(32)
                                           if full >> i & 1])
    f['keys'].append(['hash', v & 0xffffffff, m])


def range_group(rng, size):
    """size filters for one prio around port ranges: one clean shape
    with ports (ip / ipv6, tcp / udp / sctp) and its other keys; members
    with ranges of one direction that overlap (around one port: one mask,
    so the walk in insertion order decides), some with another value of
    an other key (the same mask), some with an exact port inside the
    ranges instead (another mask), rarely one without a port key.  No
    two members with the same key in the same mask (stock refuses a
    duplicate)."""
    for _ in range(200):
        base = gen_filter(rng, clean=True, nkeys=rng.randint(0, 2))
        if need_met(base, 'l4port') and not ranges(base):
            break
    else:
        return []
    d = wchoice(rng, [('dst', 3), ('src', 1)])
    exact = {6: 'tcp_', 17: 'udp_', 132: 'sctp_'}[base['ip_proto']] + d
    base['keys'] = [k for k in base['keys'] if k[0] != exact and
                    not K.KEY[k[0]].get('range')]
    centre = rng.choice([rng.randint(0, 65535), 0, 65535, 1024, 80])
    members, seen = [], set()
    for _ in range(8 * size):
        if len(members) == size:
            break
        g = dict(base, keys=[list(k) for k in base['keys']])
        x = rng.random()
        if x < 0.6 or not members:
            # a range around the centre (or, rarely, beside it)
            a, b = rng.choice([0, 1, rng.randint(0, 8), rng.randint(0, 500)]), \
                rng.choice([0, 1, rng.randint(0, 8), rng.randint(0, 500)])
            lo, hi = max(0, centre - a), min(65535, centre + b)
            if rng.random() < 0.15:
                lo, hi = rand_range(rng)
            if lo >= hi:
                lo, hi = (lo - 1, hi) if lo > 0 else (lo, hi + 1)
            put_range(g, d, lo, hi)
            # (num_of_vlans is the shape: never another value)
            other = [k for k in g['keys'] if not K.KEY[k[0]].get('range')
                     and k[0] != 'num_of_vlans']
            if other and rng.random() < 0.25:
                k = rng.choice(other)
                kk = K.KEY[k[0]]
                bits = full_mask(kk, k[2]) & kk['bits']
                if bits:
                    k[1] ^= 1 << rng.choice([i for i in range(8 * kk['width'])
                                             if bits >> i & 1])
        elif x < 0.9:
            m = rng.choice([None, None, 0xff00, 0xfff0, 0xfffe])
            g['keys'].append([exact, centre + rng.randint(-2, 2) & 0xffff, m])
        # else: no port key at all
        sig = (mask_sig(g), tuple(sorted((n, v & full_mask(K.KEY[n], m))
                                         for n, v, m in g['keys'])))
        if sig not in seen and predict_refusal(g) is None:
            seen.add(sig)
            g['range_group'] = True
            members.append(g)
    if rng.random() < 0.5:
        rng.shuffle(members)
    return members


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
    if rng.random() < RANGE_GROUP_SHARE:
        members = range_group(rng, size)
        if len(members) >= 2:
            return members
    members = []
    for _ in range(30):
        base = gen_filter(rng, clean=True, nkeys=rng.randint(2, 4))
        members, sigs = [], set()
        for _ in range(8 * size):
            if len(members) == size:
                break
            keys = []
            # a range's bounds go together (one alone is refused)
            take = {d: rng.random() < 0.65 for d in ranges(base)}
            for name, v, m in base['keys']:
                k = K.KEY[name]
                if name == 'num_of_vlans':      # the shape: every member
                    keys.append([name, v, m])
                elif k.get('range'):
                    if take[k['range']]:
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
    """The TCA_OPTIONS attributes tc would send: [[type, hex], ...]; a
    lenient request's (lenient.py) may leave TCA_FLOWER_KEY_ETH_TYPE out
    ('no_eth_type'), make attributes longer than their type ('long':
    {attribute type: bytes added}) and end with attributes of its own
    ('extra': [[type, hex], ...]: masks without their key, unknown
    types, TCA_FLOWER_IN_HW_COUNT, ...)."""
    at = []
    long_ = {int(t): n for t, n in (f.get('long') or {}).items()}

    def put(name, data):
        t = K.A[name]
        at.append([t, (data + bytes(range(0xa1, 0xa1 + long_.get(t, 0))))
                   .hex()])
    be16 = lambda v: v.to_bytes(2, 'big')   # noqa: E731
    if M.eth_type(f) is not None:
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
    at += [list(x) for x in f.get('extra', ())]
    return at


def describe(f):
    """tc-flower-like one-liner (masks always shown as value/mask); a
    lenient request's parts tc cannot say in brackets."""
    parts = ['protocol', M.tc_proto(f)]
    if f.get('dev'):
        parts = ['dev', TUN_DEVS[f['dev']]] + parts
    if f.get('chain'):
        parts = ['chain', str(f['chain'])] + parts
    if f['vlan_eth']:
        parts += ['vlan_ethtype', f['vlan_eth']]
    if f['cvlan_eth']:
        parts += ['cvlan_ethtype', f['cvlan_eth']]
    parts.append('flower')
    if f.get('no_eth_type'):
        parts.append('[no eth_type]')
    elif f.get('tc_proto') and f['tc_proto'] != f['proto']:
        parts += ['[eth_type %s]' % f['proto']]
    if f['indev']:
        parts += ['indev', f['indev']]
    if f['ip_proto'] is not None:
        parts += ['ip_proto', str(f['ip_proto'])]
    rg = ranges(f)
    for name, v, m in f['keys']:
        k = K.KEY[name]
        if k.get('range') and None not in rg[k['range']]:
            if k['bound'] == 'min':
                parts += [k['range'] + '_port', '%d-%d' % rg[k['range']]]
            continue
        w = 2 * k['width']
        s = '%0*x' % (w, v)
        if m is not None:
            s += '/%0*x' % (w, m)
        parts += [name, s]
    for t, h in f.get('extra', ()):
        a = uapi.BY_NUMBER.get(t)
        parts.append('[%s=%s]' % (a.name if a and t else 'type %d' % t, h))
    for t, n in sorted((f.get('long') or {}).items()):
        parts.append('[%s +%d bytes]' % (uapi.BY_NUMBER[int(t)].name, n))
    return ' '.join(parts)


def covered(filters):
    """Keys under a non-zero mask in a filter ours is predicted to take,
    that it keeps (their prerequisite met)."""
    out = set()
    for f in filters:
        p = M.predict(f)
        if p['refusal'] is None:
            out.update(name for name, _v, m in f['keys']
                       if name in p['applied'] and
                       full_mask(K.KEY[name], m))
    return out


def zero_masked(f, names):
    """f's keys of these names under an all-zero mask."""
    return [k for k in f['keys'] if k[0] in names and k[2] == 0]
