# SPDX-License-Identifier: GPL-2.0
"""flower.results: the summary line and TAP, as every tool reads them."""

import io
import unittest

from flower.results import Counts, parse_tap, summary_line, summary_lines

TDC_TAP = '''TAP version 13
1..4
# setup: tc qdisc add dev v0p0 ingress
ok 1 - aaaa first case
not ok 2 - 25cd Regression: ct_state
# stage: verify
#   matchJSON: $[1]: expected 1, got 0

ok 3 - bbbb third # skip no device
ok 4 - cccc
3 passed, 1 failed, 0 skipped
'''


class TestSummary(unittest.TestCase):
    def test_last_line_counts(self):
        self.assertEqual(summary_line('x\n3 passed, 1 failed\n'),
                         Counts(3, 1, 0))
        self.assertEqual(summary_line('1 passed, 0 failed, 0 skipped\n'
                                      '5 passed, 2 failed, 4 skipped\nz\n'),
                         Counts(5, 2, 4))
        self.assertIsNone(summary_line('ok 1 - a\nTraceback ...\n'))

    def test_all_lines_in_order(self):
        self.assertEqual(summary_lines('1 passed, 0 failed\nx\n'
                                       '2 passed, 3 failed\n'),
                         [Counts(1, 0, 0), Counts(2, 3, 0)])
        self.assertEqual(summary_lines(''), [])

    def test_a_line_is_exactly_the_summary(self):
        for text in (' 1 passed, 0 failed', '1 passed, 0 failed.',
                     'total: 1 passed, 0 failed', '1 passed,0 failed',
                     '1 passed, 0 failed, skipped', '1 passed'):
            self.assertIsNone(summary_line(text), text)

    def test_skipped_part_can_be_refused(self):
        text = '3 passed, 1 failed, 2 skipped\n'
        self.assertEqual(summary_line(text), Counts(3, 1, 2))
        self.assertIsNone(summary_line(text, skipped=False))
        self.assertEqual(summary_line('3 passed, 1 failed\n' + text,
                                      skipped=False), Counts(3, 1, 0))

    def test_trailing_space_can_be_refused(self):
        text = '3 passed, 1 failed \t\n'
        self.assertEqual(summary_line(text), Counts(3, 1, 0))
        self.assertIsNone(summary_line(text, trailing_space=False))
        self.assertIsNone(summary_line('3 passed, 1 failed, 2 skipped \n',
                                       trailing_space=False))
        self.assertEqual(summary_line('3 passed, 1 failed\r\n'),
                         Counts(3, 1, 0))
        self.assertIsNone(summary_line('3 passed, 1 failed\r\n',
                                       trailing_space=False))


class TestTdcTap(unittest.TestCase):
    def test_results_plan_and_diagnostics(self):
        tap = parse_tap(TDC_TAP)
        self.assertEqual(tap.plans, [4])
        self.assertEqual(tap.unread, [])
        self.assertEqual([(r.ok, r.number, r.id, r.name, r.skip)
                          for r in tap.results],
                         [(True, 1, 'aaaa', 'first case', None),
                          (False, 2, '25cd', 'Regression: ct_state', None),
                          (True, 3, 'bbbb', 'third', 'no device'),
                          (True, 4, 'cccc', '', None)])
        # the '#' lines up to the blank line; the one before a result is
        # not its
        self.assertEqual(tap.results[1].diagnostics,
                         ['stage: verify',
                          'matchJSON: $[1]: expected 1, got 0'])
        self.assertEqual(tap.results[0].diagnostics, [])
        self.assertEqual(tap.results[1].line,
                         'not ok 2 - 25cd Regression: ct_state')

    def test_a_file_reads_as_its_text(self):
        self.assertEqual(parse_tap(io.StringIO(TDC_TAP)), parse_tap(TDC_TAP))

    def test_skip_directive_anywhere_after_the_id(self):
        for line, name, skip in (
                ('ok 1 - a n # skip why', 'n', 'why'),
                ('ok 1 - a  # skip why', '', 'why'),
                ('ok 1 - a # skip why', '', 'why'),
                ('ok 1 - a n # skip ', 'n', ''),
                ('ok 1 - a n # skip', 'n', ''),
                ('ok 1 - a n #skip', 'n #skip', None),
                ('ok 1 - a n # SKIP', 'n # SKIP', None)):
            r = parse_tap(line).results[0]
            self.assertEqual((r.name, r.skip), (name, skip), line)
        # as series_cases and mutate always read it: "# skip" is enough
        self.assertIsNotNone(parse_tap('ok 1 - a # skipped').results[0].skip)
        self.assertIsNotNone(parse_tap('ok 1 - a#b# skip').results[0].skip)

    def test_result_line(self):
        for line in ('ok 1 - a', 'not ok 12 - a b', 'ok 0 - a\tb'):
            self.assertEqual(len(parse_tap(line).results), 1, line)
        for line in ('ok 1 a - b', 'ok - a', 'ok 1 -  a', ' ok 1 - a',
                     'not  ok 1 - a', 'ok 1 - ', '# ok 1 - a', 'ok a'):
            self.assertEqual(parse_tap(line).results, [], line)

    def test_lines_like_a_result_that_are_not_one(self):
        tap = parse_tap('ok 1 - a\nok 2 b - c\nnot ok 3 x\nok 4\nok\n')
        self.assertEqual([r.id for r in tap.results], ['a'])
        self.assertEqual(tap.unread, ['ok 2 b - c', 'not ok 3 x'])

    def test_plans(self):
        text = '1..3\n1..4 \n 1..5\n1..6 x\n# 1..7\n'
        self.assertEqual(parse_tap(text).plans, [3, 4])
        self.assertEqual(parse_tap(text, indented_plan=True).plans,
                         [3, 4, 5])

    def test_numbered(self):
        text = 'ok 1 - a\nok 3 - c\nok 2 - b\n'
        self.assertEqual([r.id for r in parse_tap(text).results],
                         ['a', 'c', 'b'])
        self.assertEqual([r.id for r in parse_tap(text, numbered=True)
                          .results], ['a', 'b'])


class TestSixOneTap(unittest.TestCase):
    TEXT = ('1..3\nnot ok 1 aa11 - x\tCould not match\n\tline two\n\n'
            'ok 3 cc33 - out of turn\n'
            'ok 2 bb22 - y # skipped - Test case designated as skipped.\n'
            'ok 3 cc33 - z # skipped - \n')

    def test_results(self):
        tap = parse_tap(self.TEXT.splitlines(), '6.1', numbered=True)
        self.assertEqual([(r.ok, r.number, r.id, r.name, r.skip)
                          for r in tap.results],
                         [(False, 1, 'aa11', 'x\tCould not match', None),
                          (True, 2, 'bb22', 'y',
                           'Test case designated as skipped.'),
                          (True, 3, 'cc33', 'z', '')])
        # every non-blank line after a result, the one out of turn too
        self.assertEqual(tap.results[0].diagnostics,
                         ['line two', 'ok 3 cc33 - out of turn'])
        self.assertEqual(tap.plans, [3])

    def test_not_our_dialect(self):
        tap = parse_tap(self.TEXT)
        self.assertEqual(tap.results, [])
        self.assertEqual(len(tap.unread), 4)
        self.assertEqual(parse_tap('ok 1 - a b', '6.1').results, [])


if __name__ == '__main__':
    unittest.main()
