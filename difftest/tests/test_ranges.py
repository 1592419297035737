# SPDX-License-Identifier: GPL-2.0
"""Port ranges and the hash key in the differential oracle (issue 31
item 5): what gen.py draws (dst and src ranges, tcp / udp / sctp, IPv4
and IPv6, overlapping ranges and exact ports in one prio, frames at and
beside the bounds, hash values and masks, the hash probe), how they are
encoded, ours' model of them, and their classes: a refusal of a range or
hash filter stock accepts is our bug and fails the run.  Host only."""

import contextlib
import io
import json
import os
import random
import struct
import tempfile
import unittest

from difftest import checks as CK
from difftest import compare as C
from difftest import filters as FL
from difftest import frames as FR
from difftest import gen as G
from difftest import keys as K
from difftest import model as M
from difftest import runner as R
from flower import packets as P

ACCEPT = dict(err=0, msg='', bits='')


def flt(proto, keys, ip_proto=None):
    f = dict(proto=proto, vlan_eth=None, cvlan_eth=None, ip_proto=ip_proto,
             keys=[list(k) for k in keys], indev=None)
    f['refusal'] = M.predict_refusal(f)
    return f


def rng_keys(lo, hi, d='dst'):
    return [('port_%s_min' % d, lo, None), ('port_%s_max' % d, hi, None)]


_BATCHES = []


def batches():
    if not _BATCHES:
        _BATCHES.extend(G.gen_batch(random.Random(seed), 60, cover=True)
                        for seed in range(1, 9))
    return _BATCHES


def port(spec, d):
    return P.get_field(spec, 'l4.%sport' % d[0])


class TestGeneration(unittest.TestCase):
    def test_ranges_of_every_kind(self):
        dirs, protos, fams = set(), set(), set()
        for b in batches():
            for f in b['filters']:
                rg = FL.valid_ranges(f)
                if rg and f['refusal'] is None and \
                        any(K.KEY[n].get('range') for n in M.applied(f)):
                    dirs.add(tuple(sorted(rg)))
                    protos.add(f['ip_proto'])
                    fams.add(FL.eff_proto(f))
        self.assertEqual(dirs, {('dst',), ('src',), ('dst', 'src')})
        self.assertEqual(protos, {6, 17, 132})
        self.assertEqual(fams, {'ip', 'ipv6'})

    def test_bounds_come_in_pairs_but_in_refused_filters(self):
        bad = 0
        for b in batches():
            for f in b['filters']:
                rg = FL.ranges(f)
                if any(None in r or r[0] >= r[1] for r in rg.values()):
                    self.assertNotIn('group', f)
                    self.assertNotIn('cover', f)
                    if not any(K.KEY[n].get('range') for n in M.applied(f)):
                        # without tcp / udp / sctp: ignored, not checked
                        self.assertIsNone(f['refusal'], f['desc'])
                        continue
                    bad += 1
                    self.assertIsNotNone(f['refusal'], f['desc'])
                    self.assertNotIn('group', f)
                    self.assertNotIn('cover', f)
        self.assertGreater(bad, 0)

    def test_overlapping_ranges_and_exact_ports_in_one_prio(self):
        overlap = mixed = 0
        for b in batches():
            for g in b['groups']:
                fs = [b['filters'][i] for i in g]
                if not fs[0].get('range_group'):
                    continue
                for f in fs:
                    self.assertIsNone(f['refusal'], f['desc'])
                rs = [(G.mask_sig(f), r) for f in fs
                      for r in FL.valid_ranges(f).values()]
                overlap += any(
                    a[0] == b_[0] and a[1] != b_[1] and
                    max(a[1][0], b_[1][0]) <= min(a[1][1], b_[1][1])
                    for i, a in enumerate(rs) for b_ in rs[i + 1:])
                # an exact port filter is another mask than the ranges'
                sigs = {G.mask_sig(f) for f in fs}
                mixed += len(sigs) > 1 and any(
                    k[0].endswith(('_dst', '_src')) and k[0][:3] in
                    ('tcp', 'udp', 'sct') for f in fs for k in f['keys'])
        self.assertGreater(overlap, 3)
        self.assertGreater(mixed, 3)

    def test_frames_at_and_beside_the_bounds(self):
        seen = set()
        for b in batches():
            for p in b['packets']:
                if not p['kind'].startswith('range:'):
                    continue
                f = b['filters'][p['owner']]
                d, what = p['kind'][6:].split('_')
                lo, hi = FL.valid_ranges(f)[d]
                want = dict(min=lo, max=hi, below=lo - 1, above=hi + 1)[what]
                self.assertEqual(port(p['spec'], d), want, f['desc'])
                seen.add(what)
                # the frame built is the frame the kernels get
                self.assertEqual(P.build(p['spec'])[:1514].hex(), p['hex'])
        self.assertEqual(seen, {'min', 'max', 'below', 'above'})

    def test_match_frames_hold_the_port_in_the_range(self):
        n = both = 0
        for b in batches():
            for p in b['packets']:
                if p['kind'] != 'match':
                    continue
                f = b['filters'][p['owner']]
                for d, (lo, hi) in FL.valid_ranges(f).items():
                    if FR.has_ports(p['spec']):
                        self.assertTrue(lo <= port(p['spec'], d) <= hi)
                        n += 1
                if FL.valid_ranges(f) and FR.has_ports(p['spec']) and any(
                        k[0][-4:] in ('_dst', '_src') and k[0][:3] in
                        ('tcp', 'udp', 'sct') for k in f['keys']):
                    # with an exact port too: both, where one port can
                    both += FR.satisfies(p['spec'], f)
        self.assertGreater(n, 50)
        self.assertGreater(both, 5)

    def test_hash_values_and_masks(self):
        hits = misses = 0
        for b in batches():
            probes = [f for f in b['filters'] if f.get('probe') == 'hash']
            self.assertEqual(len(probes), 1)
            self.assertEqual(probes[0]['keys'], [['hash', 0, 0xffffffff]])
            for f in b['filters']:
                for name, v, m in f['keys']:
                    if name == 'hash' and not f.get('probe'):
                        self.assertFalse(f.get('dev') or f.get('chain'))
                        if v & M.full_mask(K.KEY['hash'], m):
                            misses += 1
                        else:
                            hits += 1
        self.assertGreater(hits, 3)
        self.assertGreater(misses, 0)


class TestEncoding(unittest.TestCase):
    def test_range_bounds_are_be16_attributes(self):
        f = flt('ip', rng_keys(1000, 2000) + rng_keys(1, 2, 'src'), 6)
        at = dict((t, h) for t, h in G.encode_filter(f))
        self.assertEqual(at[K.A['KEY_PORT_DST_MIN']], '03e8')
        self.assertEqual(at[K.A['KEY_PORT_DST_MAX']], '07d0')
        self.assertEqual(at[K.A['KEY_PORT_SRC_MIN']], '0001')
        self.assertEqual(at[K.A['KEY_PORT_SRC_MAX']], '0002')
        self.assertIn('dst_port 1000-2000', G.describe(f))
        self.assertIn('src_port 1-2', G.describe(f))

    def test_hash_is_host_order_with_its_mask(self):
        f = flt('all', [('hash', 0x12345678, 0xff00)])
        at = dict((t, h) for t, h in G.encode_filter(f))
        self.assertEqual(at[K.A['KEY_HASH']],
                         struct.pack('=I', 0x12345678).hex())
        self.assertEqual(at[K.A['KEY_HASH_MASK']],
                         struct.pack('=I', 0xff00).hex())


class TestModel(unittest.TestCase):
    def test_valid_ranges_and_hash_accepted(self):
        for ipp in (6, 17, 132):
            for proto in ('ip', 'ipv6'):
                self.assertIsNone(flt(proto, rng_keys(0, 65535), ipp)
                                  ['refusal'])
        self.assertIsNone(flt('all', [('hash', 0, None)])['refusal'])
        # an exact port and a range of the same direction: stock takes it
        self.assertIsNone(flt('ip', [('tcp_dst', 80, None)] +
                              rng_keys(1, 100), 6)['refusal'])

    def test_refusals(self):
        E = M.EINVAL
        # without tcp / udp / sctp: ignored, with a warning (even when
        # it would be refused with them)
        for keys in (rng_keys(1, 2), rng_keys(1, 2)[:1], rng_keys(5, 5)):
            f = flt('ip', keys, 1)
            self.assertIsNone(f['refusal'])
            self.assertEqual(M.warnings(f), [
                'Key ignored: it requires ip_proto tcp, udp or sctp'])
        self.assertEqual(flt('ip', rng_keys(1, 2)[:1], 6)['refusal'],
                         [E, M.RANGE_BOTH_MSG['dst'], None])
        self.assertEqual(flt('ip', rng_keys(1, 2, 'src')[1:], 17)['refusal'],
                         [E, M.RANGE_BOTH_MSG['src'], None])
        self.assertEqual(flt('ip', rng_keys(5, 5), 132)['refusal'],
                         [E, M.RANGE_ORDER_MSG['dst'], None])
        self.assertEqual(flt('ip', rng_keys(1, 2) + rng_keys(9, 3, 'src'),
                             6)['refusal'],
                         [E, M.RANGE_ORDER_MSG['src'], None])
        # stock's order: both bounds (dst, src) before min < max
        self.assertEqual(flt('ip', rng_keys(5, 1) + rng_keys(1, 2, 'src')
                             [:1], 6)['refusal'][1], M.RANGE_BOTH_MSG['src'])


class TestClasses(unittest.TestCase):
    OLD = dict(err=95, msg='Unsupported flower attribute '
               'TCA_FLOWER_KEY_PORT_DST_MIN', bits='')

    def test_a_refused_range_or_hash_is_our_bug(self):
        f = flt('ip', rng_keys(1000, 2000), 6)
        self.assertEqual(C.refusal_class(f, self.OLD, ACCEPT),
                         'ours-refuses-range-hash')
        h = flt('all', [('hash', 0, None)])
        self.assertEqual(C.refusal_class(h, dict(
            err=95, msg='Unsupported flower attribute TCA_FLOWER_KEY_HASH',
            bits=''), ACCEPT), 'ours-refuses-range-hash')
        self.assertIn('ours-refuses-range-hash', C.OURS_BUGS)
        self.assertNotIn('ours-refuses-range-hash', C.DESIGN)

    def test_a_range_without_its_prerequisite_refused_is_our_bug(self):
        # stock ignores it (ours too since step 22, with a warning)
        f = flt('ip', rng_keys(1, 2), 1)
        got = dict(err=22, msg='Key requires ip_proto tcp, udp or sctp',
                   bits='')
        self.assertEqual(C.refusal_class(f, got, ACCEPT),
                         'ours-refuses-range-hash')
        self.assertNotIn('refused-prerequisite', C.DESIGN)

    def test_both_refuse_but_ours_as_unsupported(self):
        f = flt('ip', rng_keys(1, 2)[:1], 6)
        self.assertTrue(C.model_mismatch(f, self.OLD))
        self.assertEqual(C.mismatch_class(f, self.OLD),
                         'ours-refuses-range-hash')
        # another wrong answer stays unexplained
        self.assertIsNone(C.mismatch_class(f, dict(err=22, msg='x')))

    def test_our_bug_fails_the_run(self):
        f = flt('ip', rng_keys(1000, 2000), 6)
        g = flt('ip', [('ipv4_dst', 1, None)])
        cases = dict(seed=1, batches=[dict(
            filters=[dict(f, desc='r', attrs=[]), dict(g, desc='g', attrs=[])],
            packets=[dict(owner=None, kind='x', spec=None, hex='00' * 14)],
            prio=[1, 2], handle=[1, 1])])

        def res(fs, variant, srcversion):
            return dict(seed=1, kernel='k', variant=variant, seconds=1,
                        srcversion=srcversion, batches=[dict(
                            filters=fs, sent=[1], reached='1', t_send=0)])
        ok = dict(err=0, msg='', bits='0')
        out = {}
        with tempfile.TemporaryDirectory() as d:
            for name, doc in (('cases', cases),
                              ('ours', res([dict(self.OLD), ok], 'ours', 'A')),
                              ('stock', res([ok, ok], 'stock', 'B'))):
                out[name] = os.path.join(d, name + '.json')
                with open(out[name], 'w') as fp:
                    json.dump(doc, fp)
            argv = ['compare', '--cases', out['cases'], '--ours', out['ours'],
                    '--stock', out['stock'], '--final']
            buf = io.StringIO()
            old = C.sys.argv
            try:
                C.sys.argv = argv
                with contextlib.redirect_stdout(buf):
                    rc = C.main()
            finally:
                C.sys.argv = old
        text = buf.getvalue()
        self.assertEqual(rc, 1, text)
        self.assertIn('our bug: ours refuses a port range or the hash key', text)
        self.assertEqual(text.strip().splitlines()[-1], '0 passed, 1 failed')


class TestHashChecks(unittest.TestCase):
    def doc(self, filters, bits, reached):
        cases = dict(batches=[dict(filters=filters)])
        res = dict(batches=[dict(filters=[dict(err=0, msg='', bits=x)
                                          for x in bits],
                                 sent=[1] * len(reached), reached=reached)])
        return cases, res

    def test_probe_and_hash_filters_on_stock(self):
        probe = G.hash_probe()
        probe['desc'] = 'probe'
        miss = dict(flt('all', [('hash', 4, 0xf)]), desc='miss')
        hit = dict(flt('all', [('hash', 0x10, 0xf)]), desc='hit')
        cases, res = self.doc([probe, miss, hit], ['1101', '0000', '1101'],
                              '1101')
        self.assertEqual(CK.hash_problems(cases, res), [])
        cases, res = self.doc([probe, miss, hit], ['1001', '0100', '1101'],
                              '1101')
        probs = CK.hash_problems(cases, res)
        self.assertEqual(len(probs), 2)
        self.assertIn('not counted by the probe', probs[0])
        self.assertIn('matched by miss', probs[1])

    def test_single_queue_veths(self):
        # (the command only: Rig() itself changes the machine it runs on)
        add = R.veth_cmd('dtx', 'dtr').split()
        self.assertEqual(add[:4], ['ip', 'link', 'add', 'dtx'])
        i = add.index('peer')
        for part in (add[:i], add[i:]):
            self.assertEqual(part[part.index('numtxqueues') + 1], '1')
            self.assertEqual(part[part.index('numrxqueues') + 1], '1')
        with open(R.__file__) as fp:
            self.assertIn('sh(veth_cmd(tx, rx))', fp.read())


if __name__ == '__main__':
    unittest.main()
