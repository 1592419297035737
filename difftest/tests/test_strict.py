# SPDX-License-Identifier: GPL-2.0
"""difftest against stock-next (issue 32 items 2 and 3): the variant and
compare.py's strict mode.

`make difftest-smoke DT_STOCK=stock-next` compares ours with stock-next
(the pristine cls_flower.c with kernel/stock-series, make stock-next-ext,
guest/run --variant stock-next), and compare.py --stock-name stock-next
is strict: every divergence fails the run, whatever class explains it
(the stock bugs included: stock-next should have them fixed), but a
request ours accepts and stock-next refuses, which is declared.  Without
DT_STOCK, or with --stock-name stock, nothing changes.

Synthetic result files as runner.py writes them (test_compare_checks.py's
form); the first-fragment frames and filters of test_first_fragment.py
give a verdict divergence of a stock bug class and an unexplained one.
Host only: make runs with -n and a scratch BUILD, guest/run is only
imported."""

import argparse
import importlib.machinery
import json
import os
import subprocess
import tempfile
import time
import unittest

from difftest import classes as CL
from difftest import compare as C
from difftest import keys as K
from difftest import report as R
from difftest.shrink import shrink_pick
from difftest.tests.test_first_fragment import (ICMP8, SYN_80, batch, icmp,
                                                tcp)

HERE = os.path.dirname(os.path.realpath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PY = '/usr/bin/python3'
FRAMES = 6
BITS = '100100'
ETH_TYPE = K.A['KEY_ETH_TYPE']
DECLARED = 'declared: ours accepts a request stock-next refuses'


def filt(i, **kw):
    f = dict(keys=[], ip_proto=None, proto='ip', vlan_eth=None,
             cvlan_eth=None, attrs=[], desc='filter %d' % i)
    f.update(kw)
    return f


def row(err=0, msg='', bits=BITS, **kw):
    """One filter's result: refused (err) or accepted with its verdicts."""
    return dict(err=err, msg=msg, bits='' if err else bits, **kw)


def result(variant, rows, reached='1' * FRAMES, sent=None):
    return dict(seed=1, kernel='6.1.test', variant=variant,
                srcversion=variant.upper().replace('-', ''),
                module_version=None, seconds=1.0, k=4, batches=[dict(
                    filters=rows, sent=sent or [1] * len(reached),
                    reached=reached, t_install=0.1, t_send=0.2, rounds=1,
                    retries=0)])


def cases(filters, packets=None):
    return dict(seed=1, rx='dtr', tx='dtx', batches=[dict(
        filters=filters, prio=list(range(1, len(filters) + 1)),
        handle=[1] * len(filters), groups=[],
        packets=packets or [dict(owner=None, kind='frame %d' % j, spec=None,
                                 hex='ff' * 60) for j in range(FRAMES)])])


class Run:
    """A cases file and two result files in a scratch directory, and
    compare.py's final pass over them."""

    def __init__(self, test, cases_doc, ours, stock):
        tmp = tempfile.TemporaryDirectory()
        test.addCleanup(tmp.cleanup)
        self.dir = tmp.name
        self.stock = stock
        self.paths = [self.write(n, d) for n, d in (
            ('cases', cases_doc), ('ours', ours), ('stock', stock))]

    def write(self, name, doc):
        path = os.path.join(self.dir, name + '.json')
        with open(path, 'w') as f:
            json.dump(doc, f)
        return path

    def compare(self, *options, variant=None):
        """compare.py's output; the stock results recorded as coming from
        variant (default: the kernel --stock-name names, stock without
        it: the same verdicts serve both runs)."""
        if variant is None:
            variant = options[options.index('--stock-name') + 1] \
                if '--stock-name' in options else 'stock'
        self.write('stock', dict(self.stock, variant=variant))
        proc = subprocess.run(
            [PY, '-m', 'difftest.compare', '--cases', self.paths[0],
             '--ours', self.paths[1], '--stock', self.paths[2], '--final'] +
            list(options), cwd=REPO, capture_output=True, text=True,
            timeout=120)
        self.lines = proc.stdout.splitlines()
        return proc.returncode, self.lines

    def divergences(self):
        return [ln for ln in self.lines if ln.startswith('divergence [')]


def strict_run(test, filters, ours_rows, stock_rows, packets=None):
    """A Run of ours against stock-next (the same verdicts serve a run
    against stock: Run.compare())."""
    reached = '1' * (len(packets) if packets else FRAMES)
    return Run(test, cases(filters, packets),
               result('ours', ours_rows, reached),
               result('stock-next', stock_rows, reached))


class TestClasses(unittest.TestCase):
    def test_what_fails(self):
        # default: unexplained and ours' bugs; strict: all but declared
        for c in list(CL.STOCK_BUGS) + list(CL.DESIGN):
            self.assertFalse(C.fails(c), c)
            self.assertTrue(C.fails(c, strict=True), c)
        for c in list(CL.OURS_BUGS) + [None, 'UNEXPLAINED']:
            self.assertTrue(C.fails(c), c)
            self.assertTrue(C.fails(c, strict=True), c)
        self.assertEqual(list(CL.STRICT_DECLARED), ['stock-next-refuses'])
        self.assertFalse(C.fails('stock-next-refuses', strict=True))
        self.assertEqual(CL.STRICT_VARIANTS, ('stock-next',))

    def test_titles(self):
        bug = 'first-fragment-l4'
        self.assertEqual(C.line_title(bug), CL.class_title(bug))
        self.assertEqual(C.line_title(bug, strict=True),
                         'strict, fails: ' + CL.class_title(bug))
        self.assertEqual(C.line_title(None, strict=True), 'UNEXPLAINED')
        ours = 'ours-refuses-what-stock-takes'
        self.assertEqual(C.line_title(ours, strict=True),
                         CL.class_title(ours))
        self.assertEqual(C.line_title('stock-next-refuses', strict=True),
                         DECLARED)

    def test_refusal_class(self):
        f = filt(0)
        acc, ref = row(), row(err=22, msg='refused')
        self.assertIsNone(CL.refusal_class(f, acc, ref))
        self.assertEqual(CL.refusal_class(f, acc, ref, strict=True),
                         'stock-next-refuses')
        for strict in (False, True):
            self.assertEqual(CL.refusal_class(f, ref, acc, strict),
                             'ours-refuses-what-stock-takes')
            self.assertIsNone(CL.refusal_class(f, acc, acc, strict))
            self.assertIsNone(CL.refusal_class(f, ref, ref, strict))

    def test_analyse_names_the_kernel(self):
        doc = cases([filt(0), filt(1), filt(2)])
        ours = result('ours', [row(), row(), row(bits='110100')],
                      reached='111110')
        nxt = result('stock-next', [row(err=22, msg='no'), row(),
                                    row(bits='100100')], reached='111111')
        for name, strict in (('stock', False), ('stock-next', True)):
            _, divs = C.analyse(doc, ours, nxt, name, strict)
            what = sorted(d['what'] for d in divs)
            self.assertEqual(what, sorted([
                'frame reached tc on one kernel only (ours 0, %s 1)' % name,
                'ours accepts, %s refuses (22: no)' % name,
                'ours matches, %s misses' % name]), name)
            refusal = [d for d in divs if 'refuses' in d['what']][0]
            self.assertEqual(refusal['cls'], 'stock-next-refuses'
                             if strict else None)


class TestStrictRuns(unittest.TestCase):
    def test_no_divergence_passes(self):
        run = strict_run(self, [filt(0), filt(1)], [row(), row()],
                         [row(), row()])
        code, lines = run.compare('--stock-name', 'stock-next')
        self.assertEqual((code, lines[-1]), (0, '12 passed, 0 failed'),
                         lines)
        self.assertIn('difftest: strict (ours against stock-next): every '
                      'divergence fails the run, stock bugs included, but '
                      'a request ours accepts and stock-next refuses: 0 '
                      'failing, 0 declared', lines)
        self.assertTrue(any(ln.startswith('difftest: stock-next (6.1.test): '
                                          'runner') for ln in lines), lines)
        self.assertIn('difftest: divergences by class: none', lines)

    def test_ours_accepts_what_stock_next_refuses_is_declared(self):
        run = strict_run(self, [filt(0), filt(1)], [row(), row()],
                         [row(err=22, msg='Invalid'), row()])
        code, lines = run.compare('--stock-name', 'stock-next')
        self.assertEqual((code, lines[-1]), (0, '6 passed, 0 failed'), lines)
        self.assertEqual(run.divergences(), [
            'divergence [%s] batch 0 filter 0: filter 0: ours accepts, '
            'stock-next refuses (22: Invalid)' % DECLARED])
        self.assertTrue(any(ln.startswith('difftest: strict') and
                            ln.endswith(': 0 failing, 1 declared')
                            for ln in lines), lines)
        # against stock the same refusal is unexplained, as before
        code, lines = run.compare()
        self.assertEqual((code, lines[-1]), (1, '5 passed, 1 failed'), lines)
        self.assertEqual(run.divergences(), [
            'divergence [UNEXPLAINED] batch 0 filter 0: filter 0: ours '
            'accepts, stock refuses (22: Invalid)'])

    def test_the_declared_refusal_still_answers_to_the_model(self):
        # the model says ours accepts without a warning; ours warns
        f = filt(0, refusal=None, warnings=[])
        run = strict_run(self, [f, filt(1)], [row(msg='Key ignored'), row()],
                         [row(err=22, msg='Invalid'), row()])
        code, lines = run.compare('--stock-name', 'stock-next')
        self.assertEqual((code, lines[-1]), (1, '5 passed, 1 failed'), lines)
        divs = run.divergences()
        self.assertEqual(len(divs), 2, lines)
        self.assertIn('divergence [UNEXPLAINED] batch 0 filter 0: filter 0: '
                      'ours accepts with warning "Key ignored", its model '
                      'predicts no warning', divs)
        # as ours says what the model says, the declared refusal passes
        run = strict_run(self, [f, filt(1)], [row(), row()],
                         [row(err=22, msg='Invalid'), row()])
        code, lines = run.compare('--stock-name', 'stock-next')
        self.assertEqual((code, lines[-1]), (0, '6 passed, 0 failed'), lines)

    def test_ours_refusing_fails(self):
        run = strict_run(self, [filt(0), filt(1)], [row(err=95, msg='no'),
                                                    row()], [row(), row()])
        for opts in (('--stock-name', 'stock-next'), ()):
            code, lines = run.compare(*opts)
            self.assertEqual((code, lines[-1]), (1, '5 passed, 1 failed'),
                             (opts, lines))
            self.assertTrue(run.divergences()[0].startswith(
                'divergence [our bug: '), lines)

    def test_a_stock_bug_verdict_fails(self):
        # ours reads a first fragment's ICMP type, stock leaves it 0: the
        # stock bug first-fragment-l4, excused against stock only
        spec = icmp(8)
        run = strict_run(self, [ICMP8], [row(bits='1')], [row(bits='0')],
                         packets=batch(spec)['packets'])
        code, lines = run.compare('--stock-name', 'stock-next')
        self.assertEqual((code, lines[-1]), (1, '0 passed, 1 failed'), lines)
        divs = run.divergences()
        self.assertEqual(len(divs), 1, lines)
        self.assertTrue(divs[0].startswith(
            'divergence [strict, fails: stock bug: stock 6.1: a first '
            'fragment\'s L4 keys stay zero'), divs)
        self.assertIn('ours matches, stock-next misses', divs[0])
        self.assertIn('1 failing, 0 declared', ' '.join(lines))
        code, lines = run.compare()
        self.assertEqual((code, lines[-1]), (0, '1 passed, 0 failed'), lines)
        self.assertTrue(run.divergences()[0].startswith(
            'divergence [stock bug: '), lines)

    def test_an_unexplained_verdict_fails_both_ways(self):
        # ours matching a first fragment by its port: no class
        run = strict_run(self, [SYN_80], [row(bits='1')], [row(bits='0')],
                         packets=batch(tcp(0x002, 80))['packets'])
        for opts in (('--stock-name', 'stock-next'), ()):
            code, lines = run.compare(*opts)
            self.assertEqual((code, lines[-1]), (1, '0 passed, 1 failed'),
                             (opts, lines))
            self.assertTrue(run.divergences()[0].startswith(
                'divergence [UNEXPLAINED]'), lines)

    def test_a_kernel_disagreeing_with_itself_fails(self):
        """runner.py's second pass (the flow cache warm): a frame counted
        otherwise than the first time fails, on either kernel, in both
        modes, and its verdicts count as compared."""
        good = row(bits_again=BITS)
        again = row(bits_again='10010-')
        run = strict_run(self, [filt(0), filt(1)], [again, row()],
                         [good, row()])
        code, lines = run.compare('--stock-name', 'stock-next')
        self.assertEqual((code, lines[-1]), (0, '23 passed, 0 failed'),
                         lines)
        for bad, who in (('10000-', 'ours'), ('101100', 'stock-next')):
            rows = [row(bits_again=bad), row()]
            run = strict_run(self, [filt(0), filt(1)],
                             rows if who == 'ours' else [good, row()],
                             [good, row()] if who == 'ours' else rows)
            for opts in (('--stock-name', 'stock-next'), ()):
                code, lines = run.compare(*opts)
                self.assertEqual(code, 1, lines)
                self.assertTrue(lines[-1].endswith(' 1 failed'), lines)
                div = run.divergences()[0]
                self.assertTrue(div.startswith('divergence [UNEXPLAINED]'),
                                div)
                name = who if opts or who == 'ours' else 'stock'
                self.assertIn('%s %s the frame sent again' % (
                    name, 'misses' if who == 'ours' else 'matches'), div)

    def test_a_stock_bug_dump_fails(self):
        # a PPPoE filter's ethertype: ours dumps ppp_ses, stock ip
        f = filt(0, proto='ppp_ses')
        run = strict_run(self, [f], [row(dump=[[ETH_TYPE, '8864']])],
                         [row(dump=[[ETH_TYPE, '0800']])])
        code, lines = run.compare('--stock-name', 'stock-next')
        self.assertEqual((code, lines[-1]), (1, '5 passed, 1 failed'), lines)
        divs = run.divergences()
        self.assertEqual(len(divs), 1, lines)
        self.assertIn('strict, fails: stock bug: stock 6.1: a PPPoE filter '
                      'dumps', divs[0])
        self.assertIn('stock-next only [KEY_ETH_TYPE=0800]', divs[0])
        code, lines = run.compare()
        self.assertEqual((code, lines[-1]), (0, '6 passed, 0 failed'), lines)

    def test_a_frame_one_kernel_saw_fails(self):
        run = Run(self, cases([filt(0)]),
                  result('ours', [row(bits='000000')], reached='111110'),
                  result('stock-next', [row(bits='000000')]))
        code, lines = run.compare('--stock-name', 'stock-next')
        self.assertEqual((code, lines[-1]), (1, '5 passed, 1 failed'), lines)
        self.assertIn('frame reached tc on one kernel only (ours 0, '
                      'stock-next 1)', run.divergences()[0])

    def test_results_of_another_variant_prove_nothing(self):
        # stock's results compared as stock-next's (strict would fail on
        # its bugs anyway), and stock-next's as stock's (not strict)
        run = strict_run(self, [filt(0)], [row()], [row()])
        code, lines = run.compare('--stock-name', 'stock-next',
                                  variant='stock')
        self.assertEqual((code, lines[-1]), (1, '0 passed, 1 failed'), lines)
        self.assertIn('difftest: FAIL: the stock-next results come from '
                      'guest variant stock, not stock-next (compare.py '
                      '--stock-name)', lines)
        code, lines = run.compare(variant='stock')
        self.assertEqual((code, lines[-1]), (0, '6 passed, 0 failed'), lines)
        code, lines = run.compare(variant='stock-next')
        self.assertEqual((code, lines[-1]), (1, '0 passed, 1 failed'), lines)
        self.assertIn('difftest: FAIL: the stock results come from guest '
                      'variant stock-next, not stock (compare.py '
                      '--stock-name)', lines)

    def test_one_module_twice_names_stock_next(self):
        same = result('stock-next', [row()])
        run = Run(self, cases([filt(0)]), dict(same, variant='ours'), same)
        code, lines = run.compare('--stock-name', 'stock-next')
        self.assertEqual(code, 1, lines)
        self.assertIn('difftest: FAIL: ours and stock-next results come from '
                      'the same module (cls_flower srcversion STOCKNEXT)',
                      lines)

    def test_the_doc_names_stock_next(self):
        run = strict_run(self, [filt(0), filt(1)], [row(), row()],
                         [row(err=22, msg='Invalid'), row()])
        doc = os.path.join(run.dir, 'difftest-stock-next.md')
        code, lines = run.compare('--stock-name', 'stock-next', '--doc', doc)
        self.assertEqual(code, 0, lines)
        with open(doc) as f:
            text = f.read()
        self.assertTrue(text.startswith('# Differential oracle: ours vs '
                                        'stock-next\n'), text[:200])
        for want in ('Written by `make difftest DT_STOCK=stock-next`',
                     'Strict mode (issue 32 item 3)',
                     '| | ours | stock-next |',
                     '(cls_flower.ko of the pristine file with '
                     'kernel/stock-series) |',
                     '## Declared against stock-next (strict mode)',
                     '| %s | 1 |' % DECLARED,
                     'against stock-next each of these fails the run'):
            self.assertIn(want, text)
        self.assertNotIn('| | ours | stock |', text)


class TestDefaultReport(unittest.TestCase):
    def test_the_report_against_stock_is_as_before(self):
        doc = cases([filt(0)])
        ours, stock = result('ours', [row()]), result('stock', [row()])
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, 'difftest.md')
            R.write_doc(path, doc, ours, stock, 6, dict(ours=6, stock=6), [],
                        {}, [], [], [], 1)
            with open(path) as f:
                text = f.read()
        self.assertTrue(text.startswith(
            '# Differential oracle: ours vs the 6.1 tree\'s flower\n\n'
            'Written by `make difftest` (difftest/difftest.mk, '
            'difftest/README.md) from one run: seed 1, '), text[:300])
        self.assertIn('## Run\n\n| | ours | stock |\n|---|---|---|\n'
                      '| kernel | 6.1.test | 6.1.test (pristine '
                      'cls_flower.ko) |\n', text)
        for strict_only in ('Strict', 'strict', 'stock-next', 'declared'):
            self.assertNotIn(strict_only, text)


class TestShrinkNames(unittest.TestCase):
    def test_shrink_results_carry_the_name(self):
        with tempfile.TemporaryDirectory() as d:
            for n in ('c', 'o', 's', 'sh', 'sh-ours', 'sh-stock-next'):
                with open(os.path.join(d, n + '.json'), 'w') as f:
                    json.dump({'n': n}, f)
            a = argparse.Namespace(
                cases=os.path.join(d, 'c.json'),
                ours=os.path.join(d, 'o.json'),
                stock=os.path.join(d, 's.json'),
                shrink=os.path.join(d, 'sh.json'), stock_name='stock-next')
            named = C.named_inputs(a)
        self.assertEqual([(w, doc['n']) for w, _p, doc in named], [
            ('cases', 'c'), ('ours results', 'o'),
            ('stock-next results', 's'), ('shrink cases', 'sh'),
            ('ours shrink results', 'sh-ours'),
            ('stock-next shrink results', 'sh-stock-next')])

    def test_a_shrunk_declared_refusal_is_found(self):
        f = filt(0, keys=[['ipv4_dst', 1, 0xffffffff]])
        d = dict(batch=0, filter=0, packet=None, cls='stock-next-refuses')
        sh = dict(reps=[d], index=[dict(rep=0, batch=0, filters=[0],
                                        packets=[])],
                  batches=[dict(filters=[f], packets=[])])
        so = dict(batches=[dict(filters=[row()])])
        ss = dict(batches=[dict(filters=[row(err=22, msg='no')])])
        self.assertIs(shrink_pick(sh, so, ss, strict=True)[0]['min_filter'],
                      f)
        self.assertIsNone(shrink_pick(sh, so, ss)[0]['min_filter'])


# --- make and guest/run ------------------------------------------------------
MK = os.path.join(REPO, 'difftest', 'difftest.mk')
SS_MK = os.path.join(REPO, 'kernel', 'stock-series.mk')


def clean_env():
    """This process' environment without a calling make's flags."""
    return {k: v for k, v in os.environ.items()
            if k not in ('MAKEFLAGS', 'MFLAGS', 'MAKELEVEL', 'MAKEOVERRIDES')}


def make_var(name, *args):
    """A variable of difftest.mk as make computes it: (exit, value)."""
    with tempfile.NamedTemporaryFile('w', suffix='.mk') as f:
        f.write('include %s\nshow:\n\t@echo $(%s)\n' % (MK, name))
        f.flush()
        p = subprocess.run(['make', '-s', '-f', f.name, 'show',
                            'REPO=' + REPO] + list(args),
                           capture_output=True, text=True, cwd=REPO,
                           env=clean_env())
        return p.returncode, p.stdout.strip()


class TestMake(unittest.TestCase):
    def test_dt_stock(self):
        self.assertEqual(make_var('DT_STOCK'), (0, 'stock'))
        self.assertEqual(make_var('DT_VS'), (0, ''))
        self.assertEqual(make_var('DT_DOC'),
                         (0, os.path.join(REPO, 'docs', 'difftest.md')))
        nxt = 'DT_STOCK=stock-next'
        self.assertEqual(make_var('DT_VS', nxt), (0, '-vs-stock-next'))
        self.assertEqual(make_var('DT_DOC', nxt), (0, os.path.join(
            REPO, 'docs', 'difftest-stock-next.md')))
        for bad in ('stock-nxt', 'ours', 'stock stock-next', ''):
            code, _ = make_var('DT_STOCK', 'DT_STOCK=' + bad)
            self.assertNotEqual(code, 0, bad)

    def test_the_runs_use_dt_stock(self):
        with open(MK) as f:
            mk = f.read()
        run = mk[mk.index('\ndifftest-run:'):mk.index('\ndifftest:')]
        self.assertNotIn(' stock;', run)
        self.assertEqual(run.count('for v in ours $(DT_STOCK); do'), 2)
        self.assertEqual(run.count('--stock $(DT_OUT)/$(DT_NAME)-'
                                   '$(DT_STOCK).json'), 2)
        self.assertEqual(run.count('--stock-name $(DT_STOCK)'), 2)
        for target in ('difftest', 'difftest-smoke'):
            body = mk[mk.index('\n%s:\n' % target):]
            body = body[:body.index('\n\n') if '\n\n' in body else None]
            self.assertIn('$(MAKE) --no-print-directory $(DT_STOCK)-ext',
                          body)
            self.assertNotIn('stock-ext\n', body)
            self.assertIn('$(DT_VS)', body)

    def test_both_variants_install_alike(self):
        with open(os.path.join(REPO, 'Makefile')) as f:
            mk = f.read()
        with open(SS_MK) as f:
            ss = f.read()
        self.assertIn('$(call ext_install,$(STOCK_EXT)/cls_flower.ko,'
                      '$(STOCK_OBJ),$(STOCK_MOD))', mk)
        self.assertIn('$(call ext_install,$(STOCK_NEXT_KO),'
                      '$(STOCK_NEXT_OBJ),$(STOCK_NEXT_MOD))', ss)
        locked = ss[ss.index('\nstock-next-ext-locked:'):]
        # make -n prints it without running it
        self.assertNotIn('$(MAKE)', locked)

    def dry_run(self, build):
        p = subprocess.run(['make', '-n', '--no-print-directory', '-C', REPO,
                            'BUILD=' + build, 'stock-next-ext'],
                           capture_output=True, text=True, timeout=120,
                           env=clean_env())
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout

    def test_stock_next_ext_dry_run(self):
        with tempfile.TemporaryDirectory() as build:
            out = self.dry_run(build)
            # no module: the gate first, then the install under the locks
            gate = out.index('stock_series.py gate')
            lock = out.index('flock %s/.kernel-ours.lock flock '
                             '%s/.kernel-stock-next.lock' % (build, build))
            self.assertLess(gate, lock, out)
            for want in (
                    'cp %s/stock-next/cls_flower.ko $d/kernel/net/sched/'
                    % build,
                    'depmod -b %s/mod/stock-next.new $krel' % build,
                    'mv %s/mod/stock-next.new %s/mod/stock-next'
                    % (build, build),
                    'cp %s/obj/ours/arch/x86/boot/bzImage '
                    '%s/obj/stock-next/arch/x86/boot/bzImage'
                    % (build, build),
                    '> %s/obj/stock-next/.stock-ext' % build):
                self.assertIn(want, out)
            self.assertNotIn('/mod/stock ', out)
            self.assertNotIn('/obj/stock/', out)
            # nothing but the lock files was made
            self.assertEqual(sorted(os.listdir(build)),
                             ['.kernel-ours.lock', '.kernel-stock-next.lock'])
            # a module newer than the patches and ours' bzImage: no gate
            ko = os.path.join(build, 'stock-next', 'cls_flower.ko')
            img = os.path.join(build, 'obj', 'ours', 'arch', 'x86', 'boot',
                               'bzImage')
            for path in (ko, img):
                os.makedirs(os.path.dirname(path))
                open(path, 'w').close()
            later = time.time() + 3600
            os.utime(ko, (later, later))
            self.assertNotIn('stock_series.py gate', self.dry_run(build))
            # ours rebuilt since: the gate again
            os.utime(img, (later + 60, later + 60))
            self.assertIn('stock_series.py gate', self.dry_run(build))

    def test_help_lists_stock_next_ext(self):
        out = subprocess.run(['make', '--no-print-directory', '-C', REPO,
                              'help'], capture_output=True, text=True,
                             check=True, env=clean_env()).stdout
        self.assertIn(' make stock-next-ext ', out)
        self.assertIn(' make difftest-smoke DT_STOCK=stock-next', out)


RUN = importlib.machinery.SourceFileLoader(
    'guest_run_variants', os.path.join(REPO, 'guest', 'run')).load_module()


class TestGuestRun(unittest.TestCase):
    def test_stock_next_is_a_variant(self):
        a = RUN.parse_args(['--variant', 'stock-next', '--', 'true'])
        self.assertEqual(a.variant, 'stock-next')
        cpio = RUN.per_run_cpio(a)
        self.assertIn(b'TDC_VARIANT=stock-next\n', cpio)
        self.assertIn(('MODPROBE_OPTIONS=-d ' + os.path.join(
            REPO, 'build', 'mod', 'stock-next')).encode(), cpio)
        argv = RUN.Run(a, dict(accel='tcg', cpu='max'), '/nonexistent',
                       'initrd', None).qemu_argv()
        self.assertEqual(argv[argv.index('-kernel') + 1], os.path.join(
            REPO, 'build', 'obj', 'stock-next', 'arch/x86/boot/bzImage'))
        self.assertNotIn('panic_on_warn=1', argv[argv.index('-append') + 1])

    def test_variants_and_how_to_make_them(self):
        self.assertEqual(RUN.VARIANTS, ('ours', 'stock', 'stock-next',
                                        'debug'))
        self.assertEqual(RUN.how_to_make('stock-next'),
                         'make guest && make stock-next-ext')
        self.assertEqual(RUN.how_to_make('stock'),
                         'make guest VARIANT=stock')
        with open(os.path.join(REPO, 'guest', 'run')) as f:
            self.assertIn('--variant ours|stock|stock-next|debug', f.read())

    def test_an_unknown_variant_is_refused(self):
        with open(os.devnull, 'w') as null:
            import contextlib
            with contextlib.redirect_stderr(null), \
                    self.assertRaises(SystemExit):
                RUN.parse_args(['--variant', 'stock-nxt', '--', 'true'])


if __name__ == '__main__':
    unittest.main()
