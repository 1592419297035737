# SPDX-License-Identifier: GPL-2.0
"""gate.py: summary parsing, summing, and failing what has no summary."""

import io
import os
import sys
import unittest
from contextlib import redirect_stdout
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.realpath(
    __file__))))

import gate                                     # noqa: E402

PY = '/usr/bin/python3'


def printing(name, text, code=0):
    """A stage that prints `text` and exits with `code`."""
    return gate.Stage(name, [PY, '-c', 'import sys; print({!r}); '
                             'sys.exit({})'.format(text, code)],
                      gate.summary_line)


class TestParsers(unittest.TestCase):
    def test_summary_line(self):
        self.assertEqual(gate.summary_line('x\n3 passed, 1 failed\n'),
                         gate.Counts(3, 1, 0))
        self.assertEqual(gate.summary_line(
            '1 passed, 0 failed, 0 skipped\n5 passed, 2 failed, 4 skipped\n'
            'guest/run: done\n'), gate.Counts(5, 2, 4))
        self.assertIsNone(gate.summary_line('ok 1 - a\nTraceback ...\n'))

    def test_unittest_summary(self):
        self.assertEqual(gate.unittest_summary(
            'Ran 10 tests in 0.1s\n\nOK (skipped=2)\n'), gate.Counts(8, 0, 2))
        self.assertEqual(gate.unittest_summary(
            'Ran 7 tests in 1.0s\n\nFAILED (failures=1, errors=2, '
            'skipped=1)\n'), gate.Counts(3, 3, 1))
        self.assertEqual(gate.unittest_summary('Ran 1 test in 0s\n\nOK\n'),
                         gate.Counts(1, 0, 0))
        self.assertIsNone(gate.unittest_summary('ImportError: x\n'))


class TestGate(unittest.TestCase):
    def run_gate(self, stages, argv=()):
        out = io.StringIO()
        with mock.patch.object(gate, 'STAGES', stages), redirect_stdout(out):
            code = gate.main(list(argv))
        return code, out.getvalue().splitlines()

    def test_sums_stages(self):
        code, lines = self.run_gate([
            printing('a', '2 passed, 0 failed'),
            printing('b', '3 passed, 0 failed, 1 skipped')])
        self.assertEqual(lines[-1], '5 passed, 0 failed, 1 skipped')
        self.assertEqual(code, 0)

    def test_no_skipped_part_without_skips(self):
        code, lines = self.run_gate([printing('a', '2 passed, 0 failed')])
        self.assertEqual(lines[-1], '2 passed, 0 failed')

    def test_failure_fails(self):
        code, lines = self.run_gate([printing('a', '1 passed, 1 failed', 1)])
        self.assertEqual((code, lines[-1]), (1, '1 passed, 1 failed'))

    def test_missing_summary_counts_one_failed(self):
        code, lines = self.run_gate([printing('a', 'Traceback: boom', 1),
                                     printing('b', '2 passed, 0 failed')])
        self.assertEqual((code, lines[-1]), (1, '2 passed, 1 failed'))
        self.assertIn('no summary line', '\n'.join(lines))

    def test_missing_command_counts_one_failed(self):
        stage = gate.Stage('x', ['/nonexistent/cmd'], gate.summary_line)
        code, lines = self.run_gate([stage])
        self.assertEqual((code, lines[-1]), (1, '0 passed, 1 failed'))

    def test_nonzero_exit_without_failures_fails(self):
        # e.g. guest/run's exit 3: a kernel splat after all cases passed
        code, lines = self.run_gate([printing('a', '4 passed, 0 failed', 3)])
        self.assertEqual((code, lines[-1]), (1, '4 passed, 1 failed'))

    def test_stage_selection(self):
        code, lines = self.run_gate([printing('a', '1 passed, 0 failed'),
                                     printing('b', '0 passed, 9 failed')],
                                    ['a'])
        self.assertEqual((code, lines[-1]), (0, '1 passed, 0 failed'))

    def test_stage_output_is_echoed(self):
        code, lines = self.run_gate([printing('a', 'hello\n1 passed, 0 '
                                              'failed')])
        self.assertIn('hello', lines)

    def test_real_stage_list(self):
        names = [stage.name for stage in gate.STAGES]
        self.assertEqual(names, ['unit', 'corpus', 'kernel', 'flower',
                                 'bench-smoke', 'stress-smoke',
                                 'stress-debug-smoke'])


if __name__ == '__main__':
    unittest.main()
