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

Port ranges (dst, src or both, under tcp / udp / sctp; a few invalid or
without their prerequisite) and the hash key are drawn by rules of their
own (filters.py: add_ranges(), add_hash()); range groups put overlapping
ranges and exact ports of one prio together; a range filter's frames
include ports at and beside its bounds; each batch has a hash probe
(hash 0/0xffffffff: the rig's frames have no skb hash).

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
import json
import random
import sys

sys.dont_write_bytecode = True

from difftest import keys as K
from difftest.model import full_mask, predict, predict_refusal
from difftest.filters import (GROUP_SIZES, GROUP_START, RX_DEV, TUN_DEVS,
                              TX_DEV, covered, describe, encode_filter,
                              gen_filter, gen_group, need_met, put_range,
                              rand_mask, rand_range, rand_value, ranges,
                              wchoice, zero_masked)
from difftest.tunnel import (TUNNEL_SHARE, gen_tunnel_filter, rand_tun,
                             tunnel_reach, tunnel_setup)
from difftest.conntrack import (CT_FILTERS, CT_MAC, NOCT_MAC, ct_action,
                                ct_flows, gen_ct_filter, gen_ct_filter_with)
from difftest.frames import (apply_keys, base_spec, frame_view,
                             joint_frame, near_misses, random_spec,
                             range_bounds)
from difftest.lenient import LENIENT_KINDS, LENIENT_SHARE, gen_lenient
from difftest.classes import enc_families
from difftest.mutations import mutate
from flower import packets as P
# used through gen by difftest/tests and flower/tests/test_packets.py
from difftest.model import VLANS  # noqa: F401
from difftest.filters import mask_sig  # noqa: F401
from difftest.tunnel import TUN_MAC, link_cmd  # noqa: F401
from difftest.frames import fits, has_ports, satisfies  # noqa: F401


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
        if k.get('range'):
            if not need_met(f, k['draw']):
                continue
            put_range(f, k['range'], *rand_range(rng))
        elif name != 'num_of_vlans':
            if not need_met(f, k['draw']):
                continue
            f['keys'] = [x for x in f['keys'] if x[0] != name]
            m = rand_mask(rng, k) if k['mask'] else None
            if m is not None:
                m &= k['bits']
            if k['mask'] and not full_mask(k, m) & k['bits']:
                m = None
            if k['mask'] and full_mask(k, m) & ~k['bits']:
                m = k['bits']
            v = rand_value(rng, k) & k['bits']
            if k.get('hash'):       # 0 under the mask: it matches
                v &= ~full_mask(k, m)
            f['keys'].insert(rng.randint(0, len(f['keys'])), [name, v, m])
        if predict_refusal(f) is None and name in covered([f]):
            return f
    raise RuntimeError('no clean filter with key %s' % name)


def hash_probe():
    """protocol all flower hash 0/0xffffffff: matches every frame with
    hash 0, on a kernel that has the key."""
    return dict(proto='all', vlan_eth=None, cvlan_eth=None, ip_proto=None,
                keys=[['hash', 0, 0xffffffff]], indev=None, probe='hash')


class BatchBuilder:
    """A batch being built: filter i goes in with prio prios[i] and
    handle handles[i]; groups[g] lists group g's filter indexes."""

    def __init__(self):
        self.filters, self.packets = [], []
        self.prios, self.handles, self.groups = [], [], []

    def add(self, f, prio, handle=1):
        self.filters.append(f)
        self.prios.append(prio)
        self.handles.append(handle)

    def next_solo_prio(self):
        """The prio after the last filter's (chain 0 filters only come
        before the chain 1 ones)."""
        return (self.prios[-1] if self.prios else 0) + 1

    def next_prio(self, chain):
        """The prio after the largest one of chain."""
        return 1 + max([p for p, f in zip(self.prios, self.filters)
                        if f.get('chain', 0) == chain], default=0)

    def add_solo(self, f):
        """f in a prio of its own, and its twin: the same filter without
        its zero-mask address keys, or tunnel address keys, and without
        IPv4 tunnel keys beside IPv6 ones (the known stock bugs are
        recognised by comparing with it)."""
        self.add(f, self.next_solo_prio())
        zk = zero_masked(f, K.ZERO_MASK_ADDR_KEYS + K.ZERO_MASK_ENC_KEYS)
        if enc_families(f):
            zk += [kk for kk in f['keys'] if kk[0].startswith('enc_ipv4')
                   and kk not in zk]
        if zk:
            tw = dict(f, keys=[kk for kk in f['keys'] if kk not in zk],
                      twin_of=len(self.filters) - 1)
            self.add(tw, self.prios[-1] + 1)

    def add_group(self, members):
        """members in one prio, handles 1.. in list order."""
        prio = self.next_solo_prio()
        self.groups.append(list(range(len(self.filters),
                                      len(self.filters) + len(members))))
        for h, g in enumerate(members, start=1):
            g['group'] = len(self.groups) - 1
            self.add(g, prio, h)

    def frame(self, owner, kind, spec):
        self.packets.append(dict(owner=owner, kind=kind, spec=spec))


def add_random_filters(rng, b, nfilters):
    """nfilters filters (twins not counted): groups (GROUP_START,
    GROUP_SIZES) and solo ones (tunnel, lenient or plain)."""
    made = 0
    while made < nfilters:
        size = wchoice(rng, GROUP_SIZES)
        members = gen_group(rng, min(size, nfilters - made)) \
            if rng.random() < GROUP_START and nfilters - made >= 2 else []
        if len(members) >= 2:
            b.add_group(members)
            made += len(members)
            continue
        x = rng.random()
        f = gen_tunnel_filter(rng) if x < TUNNEL_SHARE else \
            gen_lenient(rng) if x < TUNNEL_SHARE + LENIENT_SHARE else \
            gen_filter(rng)
        b.add_solo(f)
        made += 1


def add_ct_filters(rng, b, flows):
    """Chain 1's filters, behind the ct action (prios of their own
    there)."""
    for _ in range(CT_FILTERS):
        prio = b.next_prio(1)
        b.add(gen_ct_filter(rng, flows), prio)


def add_cover_filters(rng, b, flows, cover):
    """cover: a filter (in a prio of its own) for each key of keys.py no
    filter ours takes has."""
    have = covered(b.filters) if cover else {k['name'] for k in K.KEYS}
    for k in K.KEYS:
        if k['name'] not in have:
            f = gen_ct_filter_with(rng, flows, k['name']) if k['ct'] \
                else gen_filter_with(rng, k['name'])
            f['cover'] = k['name']
            b.add(f, b.next_prio(f.get('chain', 0)))


def add_older_member_frame(rng, b, fi, f, s, older):
    """A frame for group member f and an older member of its prio."""
    if f.get('range_group'):
        # a range group: the older filter (its mask, or its place in
        # the walk of one mask) is tried first, its range holding the
        # frame's port too
        t = None
        for oi in rng.sample(older, len(older)):
            t = t or joint_frame(rng, s, f, b.filters[oi])
        if t:
            b.frame(fi, 'group:older', t)
    else:
        # a frame for this member and an older one of its prio: the
        # older mask is tried first, its filter counts it
        t = P.clone(s)
        apply_keys(rng, t, b.filters[rng.choice(older)])
        apply_keys(rng, t, f)
        b.frame(fi, 'group:older', t)


def add_filter_frames(rng, b, fi, f):
    """Filter fi's frames: the one that matches it, near misses, one with
    an older member of its group, range bounds and mutations."""
    s = base_spec(rng, frame_view(f))
    if f.get('dev'):
        s['tun'] = rand_tun(rng, f['dev'], f['tun_v'])
    apply_keys(rng, s, f)
    b.frame(fi, 'match', s)
    for kind, t in near_misses(rng, s, f):
        b.frame(fi, kind, t)
    older = [gi for gi in b.groups[f['group']] if gi < fi] \
        if 'group' in f else []
    if older:
        add_older_member_frame(rng, b, fi, f, s, older)
    # a range's bounds: min, max, min-1, max+1 (a range group's
    # members more of them: the overlaps are there)
    for kind, t in range_bounds(rng, s, f, 3 if 'group' in f else 2):
        b.frame(fi, kind, t)
    for _ in range(1 if older else 2):
        kind, t = mutate(rng, s)
        b.frame(fi, kind, t)


def add_adversarial_frames(rng, b, nfilters):
    """Frames of no filter: mutated random ones, and (for every tunnel
    filter) mutated random ones through a tunnel."""
    for _ in range(max(2, nfilters // 4)):
        kind, t = mutate(rng, random_spec(rng))
        b.frame(None, 'adv:' + kind[4:], t)
    for _ in range(max(1, nfilters // 20)):     # for every tunnel filter
        t = random_spec(rng)
        kind = rng.choice(sorted(TUN_DEVS))
        t['tun'] = rand_tun(rng, kind, rng.choice([4, 6]))
        kind, t = mutate(rng, t)
        b.frame(None, 'adv:tunnel:' + kind[4:], t)


def encode_filters(b):
    """Each filter's TCA_OPTIONS, description and its model's answer."""
    for fi, f in enumerate(b.filters):
        f['attrs'] = encode_filter(f)
        f['desc'] = describe(f)
        p = predict(f)
        f['refusal'] = p['refusal']
        f['warnings'] = p['warnings']
        if 'group' in f:
            g = b.groups[f['group']]
            f['desc'] += ' [prio %d: mask %d of %d]' % (
                b.prios[fi], g.index(fi) + 1, len(g))


def build_frames(packets):
    """Each frame's bytes (hex; padded to an Ethernet header, cut at
    1514) and the tunnel it reaches."""
    for p in packets:
        p['tunnel'] = tunnel_reach(p['spec'])
        raw = P.build(p['spec'])
        if len(raw) < 14:
            raw = raw + bytes(14 - len(raw))
        p['hex'] = raw[:1514].hex()


def gen_batch(rng, nfilters, index0=0, cover=False):
    """nfilters filters (twins not counted): solo ones in a prio each,
    and groups in one prio each (GROUP_START, GROUP_SIZES).  cover: then
    one more filter (a prio of its own) for each key no filter ours takes
    has, so that every key of keys.py is matched in the batch."""
    b = BatchBuilder()
    add_random_filters(rng, b, nfilters)
    # one lenient filter of each kind (docs/leniency.md's rows)
    for kind in LENIENT_KINDS:
        b.add_solo(gen_lenient(rng, kind))
    # the hash probe: every frame that reaches tc has hash 0 (keys.py),
    # so it counts each of them on stock (checks.py: hash_problems())
    b.add(hash_probe(), b.next_solo_prio())
    # the conntrack flows and chain 1's filters (prios of their own there)
    act = ct_action(rng)
    flows = ct_flows(rng, act)
    add_ct_filters(rng, b, flows)
    add_cover_filters(rng, b, flows, cover)
    for fi, f in enumerate(b.filters):
        if 'twin_of' in f or f.get('chain') or f.get('probe'):
            continue     # a twin's frames are its filter's; ct: the flows
        add_filter_frames(rng, b, fi, f)
    add_adversarial_frames(rng, b, nfilters)
    b.packets += [dict(owner=None, kind=kind, spec=t, ct=True)
                  for kind, t in flows]
    encode_filters(b)
    build_frames(b.packets)
    return dict(filters=b.filters, packets=b.packets, prio=b.prios,
                handle=b.handles, groups=b.groups,
                ct=dict(act, mac=P.mac(CT_MAC), mac_noct=P.mac(NOCT_MAC)))


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
          '%d added to cover a key, %d on a tunnel device, %d with a port '
          'range, %d in %d range groups, %d with the hash key, %d lenient '
          'requests), %d frames (%d '
          'tunneled, %d at or beside a range bound), %d pairs'
          % (a.seed, len(batches), ' '.join(b['hook'] for b in batches),
             sum(len(b['filters']) for b in batches),
             sum(len(g) for b in batches for g in b['groups']),
             sum(len(b['groups']) for b in batches),
             sum('cover' in f for b in batches for f in b['filters']),
             sum(bool(f.get('dev')) for b in batches for f in b['filters']),
             sum(bool(ranges(f)) for b in batches for f in b['filters']),
             sum(len(g) for b in batches for g in b['groups']
                 if b['filters'][g[0]].get('range_group')),
             sum(bool(b['filters'][g[0]].get('range_group'))
                 for b in batches for g in b['groups']),
             sum(any(k[0] == 'hash' for k in f['keys'])
                 for b in batches for f in b['filters']),
             sum(bool(f.get('lenient')) and 'twin_of' not in f
                 for b in batches for f in b['filters']),
             sum(len(b['packets']) for b in batches),
             sum(bool(p['spec'] and p['spec'].get('tun'))
                 for b in batches for p in b['packets']),
             sum(p['kind'].startswith('range:')
                 for b in batches for p in b['packets']), nv))


if __name__ == '__main__':
    main()
