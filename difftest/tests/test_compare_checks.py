# SPDX-License-Identifier: GPL-2.0
"""difftest/compare.py refuses a comparison that proves nothing (issue 21).

Before, compare.py printed "N passed, 0 failed" and exited 0 for two
identical result files (one module compared with itself), "0 passed, 0
failed" when both kernels refused every filter, and nothing enforced the
">= 10,000 verdicts" of make difftest-smoke.  Each test below that
expects a failure passed on that code (exit 0, "N passed, 0 failed").

Synthetic files: F filters x P frames, every filter accepted unless told,
the same verdict bits on both kernels (no divergence), runner.py's
output format with its srcversion field."""

import json
import os
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.realpath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PY = '/usr/bin/python3'


def cases_doc(filters, frames):
    return dict(seed=1, rx='dtr', tx='dtx', batches=[dict(
        filters=[dict(keys=[], ip_proto=None, proto='ip', attrs=[],
                      desc='filter %d' % i) for i in range(filters)],
        packets=[dict(owner=None, kind='frame %d' % j, spec=None,
                      hex='ff' * 60) for j in range(frames)])])


def result_doc(filters, frames, variant, srcversion, refuse=False):
    bits = ''.join('1' if j % 3 == 0 else '0' for j in range(frames))
    return dict(seed=1, kernel='6.1.test', variant=variant,
                srcversion=srcversion, module_version=None, seconds=1.0,
                k=4, batches=[dict(
                    filters=[dict(err=22, msg='refused', bits='') if refuse
                             else dict(err=0, msg='', bits=bits)
                             for _ in range(filters)],
                    sent=[1] * frames, reached='1' * frames, t_install=0.1,
                    t_send=0.2, rounds=1, retries=0)])


class CompareRun:
    def __init__(self, test, filters=10, frames=10):
        tmp = tempfile.TemporaryDirectory()
        test.addCleanup(tmp.cleanup)
        self.dir = tmp.name
        self.filters, self.frames = filters, frames
        self.write('cases.json', cases_doc(filters, frames))

    def write(self, name, doc):
        path = os.path.join(self.dir, name)
        with open(path, 'w') as f:
            json.dump(doc, f)
        return path

    def result(self, name, variant, srcversion, **kw):
        return self.write(name, result_doc(self.filters, self.frames, variant,
                                           srcversion, **kw))

    def compare(self, ours, stock, *options):
        proc = subprocess.run(
            [PY, '-m', 'difftest.compare', '--cases',
             os.path.join(self.dir, 'cases.json'), '--ours', ours,
             '--stock', stock, '--final'] + list(options),
            cwd=REPO, capture_output=True, text=True, timeout=120)
        lines = proc.stdout.splitlines()
        return proc.returncode, lines


class TestCompareRefuses(unittest.TestCase):
    def test_two_modules_compare(self):
        run = CompareRun(self)
        code, lines = run.compare(run.result('o.json', 'ours', 'AAAA'),
                                  run.result('s.json', 'stock', 'BBBB'))
        self.assertEqual((code, lines[-1]), (0, '100 passed, 0 failed'),
                         lines)

    def test_the_same_file_twice_fails(self):
        run = CompareRun(self)
        ours = run.result('o.json', 'ours', 'AAAA')
        code, lines = run.compare(ours, ours)
        self.assertEqual(code, 1, lines)
        self.assertEqual(lines[-1], '0 passed, 2 failed')
        self.assertIn('difftest: FAIL: ours and stock results come from the '
                      'same module (cls_flower srcversion AAAA)', lines)
        self.assertIn('difftest: FAIL: ours and stock results come from the '
                      'same guest variant (ours)', lines)

    def test_one_module_under_two_variants_fails(self):
        # e.g. build/mod/stock holding ours' cls_flower.ko
        run = CompareRun(self)
        code, lines = run.compare(run.result('o.json', 'ours', 'AAAA'),
                                  run.result('s.json', 'stock', 'AAAA'))
        self.assertEqual((code, lines[-1]), (1, '0 passed, 1 failed'), lines)

    def test_results_without_srcversion_fail(self):
        # what runner.py wrote before it recorded the module
        run = CompareRun(self)
        code, lines = run.compare(run.result('o.json', 'ours', None),
                                  run.result('s.json', 'stock', 'BBBB'))
        self.assertEqual((code, lines[-1]), (1, '0 passed, 1 failed'), lines)
        self.assertIn('difftest: FAIL: no cls_flower srcversion in the ours '
                      'results: cannot tell the modules apart', lines)

    def test_no_filter_accepted_fails(self):
        run = CompareRun(self)
        code, lines = run.compare(
            run.result('o.json', 'ours', 'AAAA', refuse=True),
            run.result('s.json', 'stock', 'BBBB', refuse=True))
        self.assertEqual(code, 1, lines)
        self.assertIn('difftest: FAIL: ours accepted no filter', lines)
        self.assertIn('difftest: FAIL: stock accepted no filter', lines)
        self.assertIn('difftest: FAIL: 0 verdicts compared, fewer than the '
                      '1 asked (--min-verdicts)', lines)
        self.assertEqual(lines[-1], '0 passed, 3 failed')

    def test_min_verdicts(self):
        run = CompareRun(self, filters=100, frames=99)     # 9,900 verdicts
        ours = run.result('o.json', 'ours', 'AAAA')
        stock = run.result('s.json', 'stock', 'BBBB')
        code, lines = run.compare(ours, stock, '--min-verdicts', '10000')
        self.assertEqual((code, lines[-1]), (1, '0 passed, 1 failed'), lines)
        self.assertIn('difftest: FAIL: 9900 verdicts compared, fewer than '
                      'the 10000 asked (--min-verdicts)', lines)
        code, lines = run.compare(ours, stock, '--min-verdicts', '9900')
        self.assertEqual((code, lines[-1]), (0, '9900 passed, 0 failed'))

    def test_no_doc_from_a_run_that_proves_nothing(self):
        run = CompareRun(self)
        ours = run.result('o.json', 'ours', 'AAAA')
        doc = os.path.join(run.dir, 'doc.md')
        code, lines = run.compare(ours, ours, '--doc', doc)
        self.assertEqual(code, 1)
        self.assertFalse(os.path.exists(doc))


class TestSmokeTarget(unittest.TestCase):
    def test_smoke_asks_for_10000_verdicts(self):
        with open(os.path.join(REPO, 'difftest', 'difftest.mk')) as f:
            mk = f.read()
        self.assertRegex(mk, r'(?m)^DT_SMOKE_MIN_VERDICTS \?= 10000$')
        smoke = mk[mk.index('\ndifftest-smoke:'):]
        self.assertIn('DT_MIN_VERDICTS=$(DT_SMOKE_MIN_VERDICTS)', smoke)
        final = [line for line in mk.replace('\\\n', ' ').split('\n')
                 if '--final' in line and 'difftest.compare' in line]
        self.assertEqual(len(final), 1, final)
        self.assertIn('--min-verdicts $(DT_MIN_VERDICTS)', final[0])

    def test_runner_records_the_module(self):
        with open(os.path.join(REPO, 'difftest', 'runner.py')) as f:
            runner = f.read()
        self.assertIn("'/sys/module/cls_flower/' + name", runner)
        self.assertIn('srcversion=module', runner)


if __name__ == '__main__':
    unittest.main()
