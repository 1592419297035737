# SPDX-License-Identifier: GPL-2.0
"""difftest/gen.py's groups (several filters, each with its own mask, in
one prio) and num_of_vlans forms, and runner.py's use of a batch's prio
and handle lists.  Host only: no guest, no kernel."""

import random
import unittest

from difftest import gen as G
from difftest import model as M
from difftest import keys as K
from difftest import runner as R
from flower import packets as P


def satisfies(spec, f):
    """Whether frame spec has every masked key bit of filter f (the
    packet model's fields; the protocol shape is the caller's)."""
    return G.satisfies(spec, f)


def batches(seeds=range(1, 6), nfilters=60):
    for seed in seeds:
        yield G.gen_batch(random.Random(seed), nfilters)


class TestGroups(unittest.TestCase):
    def test_layout(self):
        for b in batches():
            n = len(b['filters'])
            self.assertEqual(len(b['prio']), n)
            self.assertEqual(len(b['handle']), n)
            # (chain, prio, handle) unique; prios rise in list order in
            # each chain (chain 1: the conntrack filters)
            chain = [f.get('chain', 0) for f in b['filters']]
            self.assertEqual(len(set(zip(chain, b['prio'], b['handle']))), n)
            for c in (0, 1):
                ps = [p for p, x in zip(b['prio'], chain) if x == c]
                self.assertEqual(ps, sorted(ps))
            self.assertIn(1, chain)
            grouped = {i for g in b['groups'] for i in g}
            for i, f in enumerate(b['filters']):
                others = [j for j in range(n) if b['prio'][j] == b['prio'][i]
                          and chain[j] == chain[i]]
                if i in grouped:
                    self.assertEqual(others, b['groups'][f['group']])
                else:
                    self.assertEqual(others, [i])

    def test_members_share_a_shape_and_have_their_own_masks(self):
        sizes = []
        for b in batches():
            for g in b['groups']:
                sizes.append(len(g))
                fs = [b['filters'][i] for i in g]
                self.assertTrue(2 <= len(fs) <= 6)
                shapes = {(f['proto'], f['vlan_eth'], f['cvlan_eth'],
                           f['ip_proto'], f['indev']) for f in fs}
                self.assertEqual(len(shapes), 1)
                sigs = [G.mask_sig(f) for f in fs]
                if fs[0].get('range_group'):
                    # ranges share a mask; no two members the same key
                    # in one
                    keys = [(G.mask_sig(f), tuple(sorted(
                        (n, v & M.full_mask(K.KEY[n], m))
                        for n, v, m in f['keys']))) for f in fs]
                    self.assertEqual(len(set(keys)), len(keys))
                    self.assertTrue(all(f.get('range_group') for f in fs))
                else:
                    self.assertEqual(len(set(sigs)), len(sigs))
                self.assertEqual(b['handle'][g[0]:g[-1] + 1],
                                 list(range(1, len(g) + 1)))
        self.assertGreater(len(sizes), 20)
        self.assertGreater(len(set(sizes)), 3)

    def test_members_are_filters_both_kernels_take(self):
        for b in batches():
            for g in b['groups']:
                for i in g:
                    f = b['filters'][i]
                    self.assertIsNone(f['indev'])
                    self.assertNotIn('twin_of', f)
                    # taken as it is: no warning (docs/leniency.md)
                    self.assertEqual(f['warnings'], [], f['desc'])
                    self.assertNotIn('lenient', f)
                    for name, v, m in f['keys']:
                        k = K.KEY[name]
                        self.assertTrue(G.need_met(f, k['draw']), f['desc'])
                        self.assertEqual(v & ~k['bits'], 0, f['desc'])
                        if m is not None:
                            self.assertEqual(m & ~k['bits'], 0, f['desc'])
                        if name in K.ZERO_MASK_ADDR_KEYS:
                            self.assertNotEqual(m, 0, f['desc'])

    def test_frames_for_a_member_often_match_an_older_one(self):
        aimed = older_too = group_older = missed = 0
        for b in batches():
            fs = b['filters']
            for p in b['packets']:
                o = p['owner']
                if o is None or 'group' not in fs[o]:
                    continue
                older = [i for i in b['groups'][fs[o]['group']] if i < o]
                if not older or p['kind'] not in ('match', 'group:older'):
                    continue
                if not satisfies(p['spec'], fs[o]):
                    # ip_flags firstfrag without frag: no such frame
                    self.assertIn('ip_flags', fs[o]['desc'])
                    missed += 1
                    continue
                aimed += 1
                hit = any(satisfies(p['spec'], fs[i]) for i in older)
                older_too += hit
                if p['kind'] == 'group:older':
                    group_older += 1
                    self.assertTrue(hit)
        self.assertGreater(aimed, 100)
        self.assertLess(missed, aimed * 0.05)
        self.assertGreater(group_older, 50)
        self.assertGreater(older_too, aimed * 0.6)

    def test_about_half_the_filters_in_groups_and_frames_as_before(self):
        nf = ng = frames = 0
        for b in batches():
            nf += len(b['filters'])
            ng += sum(len(g) for g in b['groups'])
            frames += len(b['packets'])
        self.assertGreater(ng / nf, 0.3)
        self.assertLess(ng / nf, 0.7)
        # 1 match + up to 3 near misses + 2 mutations (or 1 and a frame
        # for an older member) a filter, and the standalone ones
        self.assertLess(frames / nf, 6.5)


class TestNumOfVlans(unittest.TestCase):
    def test_forms_with_num_of_vlans_first(self):
        forms = []
        for b in batches(range(1, 21)):
            for p in b['packets']:
                f = b['filters'][p['owner']] if p['owner'] is not None \
                    else None
                if f and p['kind'] == 'match' and f.get('nvlans_form'):
                    self.assertEqual(f['keys'][0][0], 'num_of_vlans')
                    forms.append((f, p['spec']))
        self.assertGreater(len(forms), 15)
        protos = {f['proto'] for f, _s in forms}
        self.assertIn('all', protos)
        ns = {f['keys'][0][1] for f, _s in forms}
        self.assertEqual(ns, {1, 2, 3})
        for f, s in forms:
            n = f['keys'][0][1]
            attrs = {t for t, _h in G.encode_filter(f)}
            # protocol all: no ETH_TYPE, a tag with no TPID to match
            self.assertEqual(K.A['KEY_ETH_TYPE'] in attrs, f['proto'] != 'all')
            if f['proto'] in ('all',) + G.VLANS:
                # the frame has the tags the filter counts
                self.assertEqual(len(s['tags']), n, f['desc'])
                self.assertTrue(all(t[0] in K.VLAN_TPIDS for t in s['tags']))
            # stock's reading: one tag makes vlan_*, two cvlan_* apply
            self.assertTrue(G.need_met(f, 'vlan'))
            self.assertEqual(G.need_met(f, 'cvlan'), n > 1 or
                             f['vlan_eth'] in G.VLANS)
        # ip keys after the tags: "num_of_vlans 1 vlan_ethtype ip src_ip"
        self.assertTrue(any(f['proto'] == 'all' and
                            any(k[0].startswith('ipv4') for k in f['keys'])
                            for f, _s in forms))


class FakeRig:
    """What run_batch() asks of a Rig, without a kernel: records the
    filters it adds; every frame reaches the guard, no filter counts."""

    def __init__(self):
        self.added = []
        self.next_index = 1
        self.count = {}
        self.guard = None
        self.pkt = self

    def reset(self, hook):
        self.added = []

    def add_filter(self, prio, proto, kind, opts, handle=1, dev=None,
                   chain=0):
        self.added.append((prio, handle, kind) + ((dev,) if dev else ()) +
                          (('chain', chain) if chain else ()))
        if kind == 'matchall' and dev is None:
            index = self.next_index + len(self.added) - 1
            if chain:
                self.ct_guard = index
            else:
                self.guard = index
        return 0, ''

    def ct_trigger(self, hook, prio, ct):
        self.trigger = (hook, prio, ct)

    def dump_filters(self, dev=None):
        self.dumped = getattr(self, 'dumped', []) + [dev]
        return {}

    def ct_flush(self):
        # the flush comes before the first conntrack flow frame
        self.flushed_at = sum(self.count.values())

    def send(self, frame):
        self.count[self.guard] = self.count.get(self.guard, 0) + 1
        if frame[:6] in (G.CT_MAC.to_bytes(6, 'big'),   # chain 1's
                         G.NOCT_MAC.to_bytes(6, 'big')):
            self.count[self.ct_guard] = self.count.get(self.ct_guard, 0) + 1

    def counters(self):
        return dict(self.count)


class TestRunner(unittest.TestCase):
    def test_filters_go_to_their_prio_and_handle(self):
        b = G.gen_batch(random.Random(3), 20)
        for f in b['filters']:
            f['attrs'] = G.encode_filter(f)
        # tunnel filters have guards of their own (test_tunnel.py)
        keep = [i for i, f in enumerate(b['filters']) if not f.get('dev')]
        for x in ('filters', 'prio', 'handle'):
            b[x] = [b[x][i] for i in keep]
        b['packets'] = b['packets'][:3]
        for p in b['packets']:
            p['hex'] = P.build(p['spec']).hex()
        rig = FakeRig()
        r = R.run_batch(rig, b, 4, lambda m: None)
        chain = [f.get('chain', 0) for f in b['filters']]
        last = {c: max(p for p, x in zip(b['prio'], chain) if x == c)
                for c in (0, 1)}
        self.assertEqual(rig.added[:-2], [
            (p, h, 'flower') + (('chain', c) if c else ())
            for p, h, c in zip(b['prio'], b['handle'], chain)])
        # the guards: chain 0's after its last prio, chain 1's after its
        # own; the ct action after chain 0's guard
        self.assertEqual(rig.added[-2:], [
            (last[0] + 1, 1, 'matchall'),
            (last[1] + 1, 1, 'matchall', 'chain', 1)])
        self.assertEqual(rig.trigger, ('ingress', last[0] + 2, b['ct']))
        self.assertEqual(r['reached'], '111')

    def test_without_lists_one_prio_per_filter(self):
        b = G.gen_batch(random.Random(4), 5)
        for f in b['filters']:
            f['attrs'] = G.encode_filter(f)
        b = dict(filters=[f for f in b['filters']
                          if not f.get('chain') and not f.get('dev')],
                 packets=[dict(hex='ff' * 60)])
        rig = FakeRig()
        R.run_batch(rig, b, 4, lambda m: None)
        n = len(b['filters'])
        self.assertEqual(rig.added, [(i + 1, 1, 'flower') for i in range(n)]
                         + [(n + 1, 1, 'matchall')])


if __name__ == '__main__':
    unittest.main()
