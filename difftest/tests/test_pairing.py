# SPDX-License-Identifier: GPL-2.0
"""difftest/compare.py refuses result files that are not results of the
same (filter, frame) pairs.

Before, analyse() zipped the cases' batches with ours' and stock's, so a
result file with a batch fewer was compared on the batches it had, and
results of another seed were compared pair by pair as if they were the
same filters and frames ("N passed, 0 failed").  Each test below failed
on that code (a pass line, or a traceback without a summary line)."""

import unittest

from difftest.tests.test_compare_checks import (CompareRun, cases_doc,
                                                result_doc)


def two_batches(doc):
    doc['batches'] = doc['batches'] * 2
    return doc


class TestPairing(unittest.TestCase):
    def run_two(self, ours_doc, stock_doc, cases=None):
        run = CompareRun(self)
        if cases:
            run.write('cases.json', cases)
        ours = run.write('o.json', ours_doc)
        stock = run.write('s.json', stock_doc)
        code, lines = run.compare(ours, stock)
        fails = [ln for ln in lines if ln.startswith('difftest: FAIL: ')]
        return code, lines, fails, ours, stock

    def test_same_cases_pass(self):
        code, lines, _, _, _ = self.run_two(
            two_batches(result_doc(10, 10, 'ours', 'AAAA')),
            two_batches(result_doc(10, 10, 'stock', 'BBBB')),
            two_batches(cases_doc(10, 10)))
        self.assertEqual((code, lines[-1]), (0, '200 passed, 0 failed'),
                         lines)

    def test_another_seed_fails(self):
        stock = result_doc(10, 10, 'stock', 'BBBB')
        stock['seed'] = 2
        code, lines, fails, o, s = self.run_two(
            result_doc(10, 10, 'ours', 'AAAA'), stock)
        self.assertEqual((code, lines[-1]), (1, '0 passed, 2 failed'), lines)
        self.assertIn('difftest: FAIL: not the same (filter, frame) pairs: '
                      'ours results %s, stock results %s: seed 1 vs 2'
                      % (o, s), fails)
        self.assertTrue(any(ln.endswith('seed 2 vs 1') and s in ln
                            for ln in fails), fails)

    def test_a_batch_missing_fails(self):
        code, lines, fails, o, s = self.run_two(
            two_batches(result_doc(10, 10, 'ours', 'AAAA')),
            result_doc(10, 10, 'stock', 'BBBB'),
            two_batches(cases_doc(10, 10)))
        self.assertEqual((code, lines[-1]), (1, '0 passed, 2 failed'), lines)
        self.assertIn('difftest: FAIL: not the same (filter, frame) pairs: '
                      'ours results %s, stock results %s: 2 batches vs 1 '
                      '(batch 1 only in ours results)' % (o, s), fails)

    def test_other_filter_and_frame_counts_fail(self):
        code, lines, fails, o, s = self.run_two(
            result_doc(10, 10, 'ours', 'AAAA'),
            result_doc(9, 11, 'stock', 'BBBB'))
        self.assertEqual((code, lines[-1]), (1, '0 passed, 2 failed'), lines)
        self.assertIn('difftest: FAIL: not the same (filter, frame) pairs: '
                      'ours results %s, stock results %s: batch 0: 10 '
                      'filters vs 9; batch 0: 10 frames vs 11' % (o, s),
                      fails)

    def test_results_of_other_cases_fail(self):
        # both kernels ran seed 2; the cases file is seed 1's
        ours = result_doc(10, 10, 'ours', 'AAAA')
        stock = result_doc(10, 10, 'stock', 'BBBB')
        ours['seed'] = stock['seed'] = 2
        code, lines, fails, o, s = self.run_two(ours, stock)
        self.assertEqual((code, lines[-1]), (1, '0 passed, 2 failed'), lines)
        self.assertEqual(len([ln for ln in fails if 'cases ' in ln]), 2,
                         fails)

    def test_results_without_seed_fail(self):
        stock = result_doc(10, 10, 'stock', 'BBBB')
        del stock['seed']
        code, lines, fails, o, s = self.run_two(
            result_doc(10, 10, 'ours', 'AAAA'), stock)
        self.assertEqual(code, 1, lines)
        self.assertIn('difftest: FAIL: not the same (filter, frame) pairs: '
                      'ours results %s, stock results %s: seed 1 vs none '
                      'recorded' % (o, s), fails)

    def test_shrink_results_with_a_batch_missing_fail(self):
        # --shrink FILE pairs FILE with FILE-ours.json and FILE-stock.json
        run = CompareRun(self)
        shrink = cases_doc(10, 10)
        shrink.update(index=[], reps=[])
        path = run.write('shrink.json', shrink)
        run.write('shrink-ours.json', result_doc(10, 10, 'ours', 'AAAA'))
        stock = run.write('shrink-stock.json',
                          dict(result_doc(10, 10, 'stock', 'BBBB'),
                               batches=[]))
        code, lines = run.compare(run.result('o.json', 'ours', 'AAAA'),
                                  run.result('s.json', 'stock', 'BBBB'),
                                  '--shrink', path)
        self.assertEqual((code, lines[-1]), (1, '0 passed, 2 failed'), lines)
        self.assertIn('difftest: FAIL: not the same (filter, frame) pairs: '
                      'stock shrink results %s, shrink cases %s: 0 batches '
                      'vs 1 (batch 0 only in shrink cases)' % (stock, path),
                      lines)


if __name__ == '__main__':
    unittest.main()
