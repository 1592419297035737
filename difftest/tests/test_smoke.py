# SPDX-License-Identifier: GPL-2.0
"""make difftest-smoke is not thin and not fixed (issue 21, audit finding
5): a seed that changes every day (and is printed, DT_SEED=N replays it),
an ingress and an egress batch, and every key of keys.py in a filter both
kernels accepted.  Before: seed 1 for ever, one batch on one hook, and
ipv4_src, tcp_src/dst, sctp_src, tcp_flags, the ICMP codes, arp_tip,
mpls_label/tc and ppp_proto in no accepted smoke filter; each test here
failed on that code.  Since: the enc_* keys, and the ct_* keys (chain 1
filters behind a ct action, the conntrack flows' frames) in every batch."""

import json
import os
import random
import subprocess
import tempfile
import time
import unittest

from difftest import compare as C
from difftest import gen as G
from difftest import keys as K

HERE = os.path.dirname(os.path.realpath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
MK = os.path.join(REPO, 'difftest', 'difftest.mk')


def make_var(name, *args):
    """A variable of difftest.mk as make computes it."""
    with tempfile.NamedTemporaryFile('w', suffix='.mk') as f:
        f.write('include %s\nshow:\n\t@echo $(%s)\n' % (MK, name))
        f.flush()
        return subprocess.run(['make', '-s', '-f', f.name, 'show'] +
                              list(args), capture_output=True, text=True,
                              check=True, cwd=REPO).stdout.strip()


class TestSmokeTarget(unittest.TestCase):
    def test_seed_is_the_date_unless_asked(self):
        self.assertEqual(make_var('DT_SMOKE_SEED'),
                         time.strftime('%Y%m%d', time.gmtime()))
        self.assertEqual(make_var('DT_SMOKE_SEED', 'DT_SEED=7'), '7')

    def test_smoke_runs_two_batches_with_its_seed(self):
        self.assertEqual(make_var('DT_SMOKE_BATCHES'), '2')
        with open(MK) as f:
            mk = f.read()
        smoke = mk[mk.index('\ndifftest-smoke:'):]
        self.assertIn('DT_SEED=$(DT_SMOKE_SEED)', smoke)
        self.assertIn('DT_BATCHES=$(DT_SMOKE_BATCHES)', smoke)
        self.assertIn('replay: make difftest-smoke DT_SEED=$(DT_SMOKE_SEED)',
                      smoke)
        run = mk[mk.index('\ndifftest-run:'):].replace('\\\n', ' ')
        self.assertRegex(run, r'difftest\.gen [^\n]*--cover')
        self.assertRegex(run, r'difftest\.compare [^\n]*--cover[^\n]*--final')

    def test_generated_smoke_has_both_hooks_and_every_key(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, 'cases.json')
            subprocess.run(['/usr/bin/python3', '-m', 'difftest.gen',
                            '--seed', '20261204', '--batches', '2',
                            '--filters', '60', '--cover', '--out', out],
                           cwd=REPO, check=True, capture_output=True)
            with open(out) as f:
                doc = json.load(f)
        self.assertEqual([b['hook'] for b in doc['batches']],
                         ['ingress', 'egress'])
        every = {k['name'] for k in K.KEYS}
        self.assertTrue(set(K.CT) <= every)
        for b in doc['batches']:
            self.assertEqual(G.covered(b['filters']), every)
            # the conntrack part: the ct action, chain 1 filters, the flows
            self.assertEqual(sorted(b['ct']), ['labels', 'mac', 'mac_noct',
                                               'mark', 'zone'])
            self.assertGreaterEqual(sum(bool(f.get('chain'))
                                        for f in b['filters']), G.CT_FILTERS)
            self.assertEqual(sum(bool(p.get('ct')) for p in b['packets']),
                             len(G.ct_flows(random.Random(1),
                                            G.ct_action(random.Random(1)))))


class TestCover(unittest.TestCase):
    def test_every_key_in_a_filter_ours_takes(self):
        for seed in range(1, 6):
            b = G.gen_batch(random.Random(seed), 30, cover=True)
            self.assertEqual(G.covered(b['filters']),
                             {k['name'] for k in K.KEYS})
            for f in b['filters']:
                if 'cover' in f:
                    self.assertIsNone(f['refusal'], f['desc'])
                    self.assertIn(f['cover'], f['desc'])
                if f.get('cover') == 'num_of_vlans':
                    # its own form: chosen first, the shape it makes
                    self.assertTrue(f.get('nvlans_form'), f['desc'])
                    self.assertEqual(f['keys'][0][0], 'num_of_vlans')

    def test_without_cover_keys_go_missing(self):
        b = G.gen_batch(random.Random(1), 30)
        self.assertLess(len(G.covered(b['filters'])), len(K.KEYS))

    def test_compare_fails_a_run_missing_a_key(self):
        f = dict(proto='ip', vlan_eth=None, cvlan_eth=None, ip_proto=None,
                 keys=[['ipv4_dst', 1, None]], indev=None, refusal=None)
        cases = dict(batches=[dict(filters=[f])])
        acc = dict(batches=[dict(filters=[dict(err=0, msg='', bits='1')])])
        missing = C.uncovered(cases, acc, acc)
        self.assertEqual(len(missing), len(K.KEYS) - 1)
        self.assertNotIn('ipv4_dst', missing)
        problems = C.run_problems(dict(acc, srcversion='A'),
                                  dict(acc, srcversion='B'), 1, 1, cases)
        self.assertEqual(len(problems), 1)
        self.assertIn('no filter both kernels accepted has key eth_dst',
                      problems[0])
        self.assertEqual(C.run_problems(dict(acc, srcversion='A'),
                                        dict(acc, srcversion='B'), 1, 1), [])


if __name__ == '__main__':
    unittest.main()
