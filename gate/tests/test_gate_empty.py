# SPDX-License-Identifier: GPL-2.0
"""gate.py: a stage that ran nothing fails (issue 21).

Before, "0 passed, 0 failed" with exit 0 summed as a green stage: the
summary parsers read it as Counts(0, 0, 0), nothing in run_stage() looked
at it, and the total said "N passed, 0 failed" with exit status 0 (the
test below fails on that code with `(0, '0 passed, 0 failed')`)."""

import io
import unittest
from contextlib import redirect_stdout
from unittest import mock

from gate import gate

PY = '/usr/bin/python3'


def printing(name, text, code=0, parse=gate.summary_line):
    """A stage that prints `text` and exits with `code`."""
    return gate.Stage(name, [PY, '-c', 'import sys; print({!r}); '
                             'sys.exit({})'.format(text, code)], parse)


class TestStageThatRanNothing(unittest.TestCase):
    def run_gate(self, stages):
        out = io.StringIO()
        with mock.patch.object(gate, 'STAGES', stages), redirect_stdout(out):
            code = gate.main([])
        return code, out.getvalue().splitlines()

    def test_the_parsers_see_an_empty_run_as_no_failure(self):
        # what the old gate summed: nothing failed, so green
        self.assertEqual(gate.summary_line('0 passed, 0 failed\n'),
                         gate.Counts(0, 0, 0))
        self.assertEqual(gate.unittest_summary(
            '\nRan 0 tests in 0.000s\n\nOK\n'), gate.Counts(0, 0, 0))

    def test_zero_passed_zero_failed_fails(self):
        code, lines = self.run_gate([printing('a', '0 passed, 0 failed')])
        self.assertEqual((code, lines[-1]), (1, '0 passed, 1 failed'))
        self.assertIn('=== a: 0 passed, 1 failed, 0 skipped (ran nothing: '
                      '0 passed, 0 failed (exit 0); 0 s)', lines)
        # every stage says how long it took, and so does the gate
        self.assertRegex(lines[-2], r'^=== gate: \d+ s$')

    def test_an_empty_stage_among_others_fails_the_gate(self):
        code, lines = self.run_gate([
            printing('a', '5 passed, 0 failed'),
            printing('b', '0 passed, 0 failed, 0 skipped')])
        self.assertEqual((code, lines[-1]), (1, '5 passed, 1 failed'))

    def test_unittest_running_no_test_fails(self):
        code, lines = self.run_gate([printing(
            'unit', 'Ran 0 tests in 0.000s\n\nOK',
            parse=gate.unittest_summary)])
        self.assertEqual((code, lines[-1]), (1, '0 passed, 1 failed'))

    def test_a_stage_that_ran_something_is_unchanged(self):
        code, lines = self.run_gate([printing('a', '1 passed, 0 failed')])
        self.assertEqual((code, lines[-1]), (0, '1 passed, 0 failed'))
        # all skipped: counted as before, each skip a failure
        code, lines = self.run_gate([
            printing('a', '0 passed, 0 failed, 3 skipped')])
        self.assertEqual((code, lines[-1]), (1, '0 passed, 3 failed'))


if __name__ == '__main__':
    unittest.main()
