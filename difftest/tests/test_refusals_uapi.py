# SPDX-License-Identifier: GPL-2.0
"""The refusal model against a corpus written from the uAPI's meaning
(issue 34 item 2), and a canary for a wrong "by design" rule.

model.py mirrors the C, and flower/tests tie its tables to the C: a
wrong rule changed in cls_flower.c and in the Python model together
passes those tests.  difftest/refusals.json was written by hand from
pkt_cls.h and tc-flower(8) (what each key means, what it needs to have a
header to be in, which values fit its bits, what stock takes silently),
not from fl_keys[] or flower/needs.py: every request in it must get the
model's answer (TestCorpus), and a refusal by ours of a request it says
stock accepts must fail a compare.py run, whatever the model predicts
(TestRules).

The canary (TestCanary) installs such a wrong rule, both halves at
once: the model refuses a key without its prerequisite (as ours' C would
with the same change), and classes.py explains "ours refuses, stock
accepts" by design when ours' refusal is the one its model predicts.  A
compare.py run of that divergence then passes (the hole), and the unit
run of this file fails; without the rule the compare.py run fails and
the unit run passes.  Host only."""

import contextlib
import io
import json
import os
import subprocess
import tempfile
import unittest

from difftest import classes as C
from difftest import compare as CMP
from difftest import model as M
from difftest import refusals as R
from difftest.filters import describe, encode_filter
from flower import keys as FK
from flower import model as FM
from flower import needs, uapi
from flower.model_attrs import Err

HERE = os.path.dirname(os.path.realpath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PY = '/usr/bin/python3'
ACCEPT = dict(err=0, msg='', bits='')

# Corpus requests the model answers otherwise, each with why.  Both are
# outside what gen.py sends, so no run is wrong because of them; the test
# below fails once the model agrees (then drop the entry).
# requests the model has no rule for, named here until it has (none since
# the model's check_policy(): attributes shorter than their policy, and
# skip_hw with skip_sw)
MODEL_GAPS = {}

# --- the wrong rule of the canary ------------------------------------------
WRONG = 'refused-prerequisite'
WRONG_MSG = 'Key requires its prerequisite'


def install_wrong_rule():
    """Put the wrong rule in the model (flower/model.py's, the one
    difftest/model.py asks) and in classes.py (and compare.py's copy of
    refusal_class); returns the function that takes it out."""
    old = (FM.Classifier.set_key_rows, C.refusal_class, CMP.refusal_class)
    rows = old[0]

    def set_key_rows(self, tb, key, mask):
        n = len(self.warnings)
        rows(self, tb, key, mask)
        if set(self.warnings[n:]) & set(needs.MESSAGES.values()):
            raise Err(M.EINVAL, WRONG_MSG)

    def refusal_class(f, o, s, strict=False):
        if o['err'] and not s['err'] and o['msg'] == WRONG_MSG and \
                (f.get('refusal') or [None, None])[1] == WRONG_MSG:
            return WRONG
        return old[1](f, o, s, strict)

    FM.Classifier.set_key_rows = set_key_rows
    C.DESIGN[WRONG] = ('ours refuses a key without its prerequisite',
                       'The canary\'s wrong rule: stock ignores such a key, '
                       'ours refuses it, on purpose.')
    C.refusal_class = CMP.refusal_class = refusal_class

    def undo():
        FM.Classifier.set_key_rows, C.refusal_class, CMP.refusal_class = old
        C.DESIGN.pop(WRONG, None)
    return undo


class WrongRule:
    def __enter__(self):
        self.undo = install_wrong_rule()

    def __exit__(self, *exc):
        self.undo()


# --- helpers ----------------------------------------------------------------
def generated(req):
    """The request as gen.py would record it: the filter, its encoding,
    description and the model's prediction (under whatever rule is in
    force)."""
    f = R.to_filter(req)
    f['attrs'] = encode_filter(f)
    f['desc'] = describe(f)
    p = M.predict(f)
    f['refusal'], f['warnings'] = p['refusal'], p['warnings']
    return f


def ours_refusal(f):
    """Ours refusing f: the refusal its model predicts (C and Python
    changed together), or another when the model predicts none."""
    if f['refusal']:
        return dict(err=f['refusal'][0], msg=f['refusal'][1], bits='')
    return dict(err=22, msg='Key requires ip_proto tcp', bits='')


def accepts():
    return [r for r in R.load() if r['expect'] == 'accept']


class TestCorpus(unittest.TestCase):
    def test_its_shape(self):
        reqs = R.load()
        self.assertGreaterEqual(len(reqs), 40)
        self.assertEqual(len({r['id'] for r in reqs}), len(reqs))
        by = {}
        for r in reqs:
            self.assertIn(r['expect'], ('accept', 'refuse'), r['id'])
            self.assertTrue(r['why'], r['id'])
            if r['expect'] == 'refuse':
                self.assertIn(r['errno'], R.ERRNO, r['id'])
            else:
                self.assertIn('warns', r, r['id'])
            by.setdefault(r['family'], set()).add(r['expect'])
            for a in r['attrs']:
                self.assertTrue(isinstance(a[0], int) or
                                a[0] in uapi.BY_NAME, (r['id'], a))
        # accepts and refusals, and both where a family has refusals
        self.assertGreaterEqual(len(by), 12)
        for fam in ('ip_flags', 'range', 'mpls', 'ct', 'attrs'):
            self.assertEqual(by[fam], {'accept', 'refuse'}, fam)

    def test_every_key_is_in_a_request(self):
        used = {a[0] for r in R.load() for a in r['attrs']}
        self.assertEqual([k.attr for k in FK.KEYS if k.attr not in used],
                         [])

    def test_the_model_answers_as_the_corpus_says(self):
        for r in R.load():
            if r['id'] in MODEL_GAPS:
                continue
            with self.subTest(r['id']):
                self.assertEqual(R.check(r), [], r['why'])

    def test_the_known_model_gaps(self):
        ids = {r['id']: r for r in R.load()}
        for i in MODEL_GAPS:
            self.assertTrue(R.check(ids[i]), '%s: the model agrees now: '
                            'drop it from MODEL_GAPS' % i)

    def test_the_cli(self):
        proc = subprocess.run([PY, '-m', 'difftest.refusals'], cwd=REPO,
                              capture_output=True, text=True, timeout=120)
        n = len(R.load())
        self.assertEqual(proc.stdout.splitlines()[-1], '%d passed, %d failed'
                         % (n - len(MODEL_GAPS), len(MODEL_GAPS)))

    def test_the_tdc_cases(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, 'refusals-tdc.json')
            with contextlib.redirect_stdout(io.StringIO()) as said:
                self.assertEqual(R.main(['--tdc', out]), 0)
            self.assertIn('%d tdc cases' % len(R.load()), said.getvalue())
            with open(out) as fp:
                cases = json.load(fp)
        reqs = {r['id']: r for r in R.load()}
        self.assertEqual(len(cases), len(reqs))
        self.assertEqual(len({c['id'] for c in cases}), len(cases))
        byname = {c['name'].split(':')[0].split()[-1]: c for c in cases}
        c = byname['range-min-only']
        self.assertEqual((c['expExitCode'], c['matchCount']), ('22', '0'))
        self.assertIn('--raw KEY_PORT_DST_MIN=03e8', c['cmdUnderTest'])
        c = byname['l2-eth-type-unlike-protocol']
        self.assertEqual((c['expExitCode'], c['matchCount']), ('0', '1'))
        self.assertIn('--protocol 0x8100', c['cmdUnderTest'])
        self.assertIn('--raw KEY_ETH_TYPE=0800', c['cmdUnderTest'])
        c = byname['lax-short-port']
        self.assertEqual(c['expExitCode'], '34')
        self.assertIn('--raw KEY_TCP_DST=50', c['cmdUnderTest'])
        self.assertIn('--raw 106=', byname['lax-unknown-type']
                      ['cmdUnderTest'])
        self.assertIn('--raw KEY_IPV4_DST_MASK=ffffff00a1a2',
                      byname['lax-long-mask']['cmdUnderTest'])


class TestRules(unittest.TestCase):
    """classes.py's rules on the corpus, whatever the model says: a
    refusal by ours of a request stock accepts fails the run, so does an
    acceptance of one stock refuses (against stock, not strict)."""

    def test_ours_refusing_an_accept_fails(self):
        for r in accepts():
            f = generated(r)
            c = C.refusal_class(f, ours_refusal(f), ACCEPT)
            self.assertTrue(CMP.fails(c), (r['id'], c))

    def test_ours_accepting_a_refusal_fails(self):
        for r in R.load():
            if r['expect'] != 'refuse':
                continue
            f = generated(r)
            no = dict(err=R.ERRNO[r['errno']], msg='x', bits='')
            self.assertTrue(CMP.fails(C.refusal_class(f, ACCEPT, no)),
                            r['id'])

    def test_through_analyse(self):
        # every accept of the corpus refused by ours, accepted by stock:
        # one failing divergence per request
        filters = [generated(r) for r in accepts()]
        one = lambda x: dict(batches=[dict(filters=x, sent=[1],  # noqa: E731
                                           reached='1')])
        ours = one([dict(ours_refusal(f)) for f in filters])
        stock = one([dict(ACCEPT, bits='1') for _ in filters])
        cases = dict(batches=[dict(filters=filters,
                                   packets=[dict(hex='ff' * 60)])])
        _, divs = CMP.analyse(cases, ours, stock)
        failing = {d['filter'] for d in divs if CMP.fails(d['cls'])}
        self.assertEqual(failing, set(range(len(filters))))


# a request stock accepts that the wrong rule refuses: a TCP port in a UDP
# filter
CANARY_ID = 'l4-tcp-port-in-udp'


def compare_files(tmp, req):
    """cases, ours and stock results of a run with two filters: a plain
    one both take (a verdict compared), and req, ours refusing it as its
    model predicts and stock accepting it."""
    base = generated(dict(protocol='ip', attrs=[['KEY_ETH_TYPE', 'ip']]))
    f = generated(req)
    cases = dict(seed=1, batches=[dict(
        filters=[base, f], prio=[1, 2], handle=[1, 1], groups=[],
        packets=[dict(owner=None, kind='frame', spec=None, hex='ff' * 60)])])

    def result(variant, second):
        return dict(seed=1, kernel='6.1.test', variant=variant,
                    srcversion=variant.upper(), module_version=None,
                    seconds=1.0, k=4, batches=[dict(
                        filters=[dict(err=0, msg='', bits='1'), second],
                        sent=[1], reached='1', t_install=0.1, t_send=0.1,
                        rounds=1, retries=0)])
    paths = []
    for name, doc in (('cases', cases),
                      ('ours', result('ours', ours_refusal(f))),
                      ('stock', result('stock', dict(ACCEPT, bits='1')))):
        paths.append(os.path.join(tmp, name + '.json'))
        with open(paths[-1], 'w') as fp:
            json.dump(doc, fp)
    return paths


def run_py(code, *argv):
    return subprocess.run([PY, '-c', code] + list(argv), cwd=REPO,
                          capture_output=True, text=True, timeout=300)


# the compare.py CLI, with the wrong rule or without (argv[1]: 1 or 0)
COMPARE = '''
import sys
from difftest.tests import test_refusals_uapi as T
from difftest import compare
if sys.argv[1] == '1':
    T.install_wrong_rule()
sys.argv = ['compare.py', '--cases', sys.argv[2], '--ours', sys.argv[3],
            '--stock', sys.argv[4], '--final']
sys.exit(compare.main())
'''
# this file's corpus and rule tests, with the wrong rule or without
UNIT = '''
import sys, unittest
from difftest.tests import test_refusals_uapi as T
if sys.argv[1] == '1':
    T.install_wrong_rule()
r = unittest.main(module=T, argv=['unit', 'TestCorpus', 'TestRules'],
                  exit=False).result
sys.exit(0 if r.wasSuccessful() else 1)
'''


class TestCanary(unittest.TestCase):
    def test_the_wrong_rule_is_caught_in_process(self):
        reqs = {r['id']: r for r in R.load()}
        with WrongRule():
            wrong = {i for i, r in reqs.items()
                     if i not in MODEL_GAPS and R.check(r)}
            f = generated(reqs[CANARY_ID])
            c = C.refusal_class(f, ours_refusal(f), ACCEPT)
            self.assertEqual(c, WRONG)
            self.assertFalse(CMP.fails(c))       # explained by design
        # the corpus sees every request with a key the rule refuses
        self.assertIn(CANARY_ID, wrong)
        self.assertTrue({'ip-proto-under-arp', 'arp-key-under-ip',
                         'icmp6-under-ip', 'range-one-bound-under-arp'}
                        <= wrong, wrong)
        self.assertTrue(all(reqs[i]['expect'] == 'accept' for i in wrong))
        # and the rule is gone again
        self.assertNotIn(WRONG, C.DESIGN)
        self.assertEqual(R.check(reqs[CANARY_ID]), [])

    def test_compare_passes_the_divergence_only_with_the_wrong_rule(self):
        # the hole the corpus closes: the run's files made with the rule
        # in force (the model predicts ours' refusal, ours refuses so);
        # compare.py with the rule explains the divergence by design and
        # passes, without it the same files fail
        req = {r['id']: r for r in R.load()}[CANARY_ID]
        with tempfile.TemporaryDirectory() as tmp:
            with WrongRule():
                paths = compare_files(tmp, req)
            runs = {w: run_py(COMPARE, w, *paths) for w in ('1', '0')}
        for w, proc in runs.items():
            lines = proc.stdout.splitlines()
            divs = [ln for ln in lines if ln.startswith('divergence [')]
            self.assertEqual(len(divs), 1, lines)
            self.assertIn('ours refuses (22: %s), stock accepts' % WRONG_MSG,
                          divs[0])
            if w == '1':
                self.assertEqual(proc.returncode, 0, lines)
                self.assertTrue(divs[0].startswith('divergence [by design'),
                                divs)
                self.assertEqual(lines[-1], '1 passed, 0 failed')
            else:
                self.assertEqual(proc.returncode, 1, lines)
                self.assertIn('ours refuses a request stock accepts',
                              divs[0])
                self.assertEqual(lines[-1], '0 passed, 1 failed')

    def test_the_unit_run_fails_with_the_wrong_rule(self):
        bad = run_py(UNIT, '1')
        self.assertEqual(bad.returncode, 1, bad.stderr[-3000:])
        self.assertIn('test_the_model_answers_as_the_corpus_says',
                      bad.stderr)
        self.assertIn('test_ours_refusing_an_accept_fails', bad.stderr)
        good = run_py(UNIT, '0')
        self.assertEqual(good.returncode, 0, good.stderr[-3000:])
        self.assertIn('OK', good.stderr.splitlines()[-1])


if __name__ == '__main__':
    unittest.main()
