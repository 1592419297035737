# SPDX-License-Identifier: GPL-2.0
"""Filter drawing for gen.py: protocol shapes, keys with random values and
masks, num_of_vlans forms, groups of filters in one prio, the TCA_OPTIONS
encoding and tc-like description of a filter.
"""
from difftest import keys as K
from difftest.model import VLANS, full_mask, predict_refusal
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


def covered(filters):
    """Keys under a non-zero mask in a filter ours is predicted to take."""
    return {name for f in filters if predict_refusal(f) is None
            for name, _v, m in f['keys'] if full_mask(K.KEY[name], m)}


def zero_masked(f, names):
    """f's keys of these names under an all-zero mask."""
    return [k for k in f['keys'] if k[0] in names and k[2] == 0]
