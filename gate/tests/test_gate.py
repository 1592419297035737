# SPDX-License-Identifier: GPL-2.0
"""gate.py: summary parsing, summing, and failing what has no summary."""

import io
import json
import os
import tempfile
import unittest
from contextlib import redirect_stdout
from unittest import mock

from gate import gate
from tdc.tests.test_tdc import case

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
            printing('b', '3 passed, 1 failed')])
        self.assertEqual((code, lines[-1]), (1, '5 passed, 1 failed'))

    def test_skips_count_as_failed(self):
        # a skip is a pass of nothing: 568 skipped is not green
        code, lines = self.run_gate([
            printing('a', '2 passed, 0 failed'),
            printing('b', '0 passed, 0 failed, 568 skipped')])
        self.assertEqual((code, lines[-1]), (1, '2 passed, 568 failed'))
        self.assertEqual(lines[-2], 'gate: 568 skipped, counted as failed')

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

    def test_unit_stage_needs_its_floor(self):
        ran = 'Ran 3 tests in 0.1s\n\nOK\n'
        out = io.StringIO()
        with redirect_stdout(out):
            self.assertEqual(gate.unit_summary(ran), gate.Counts(3, 1, 0))
        self.assertIn('did not run test_the_tree_loses_no_test_file',
                      out.getvalue())
        self.assertEqual(gate.unit_summary(
            'test_the_tree_loses_no_test_file (gate.tests.x) ... ok\n' + ran),
            gate.Counts(3, 0, 0))

    def test_readme_table_lists_the_stages_in_order(self):
        with open(os.path.join(gate.REPO, 'README.md')) as f:
            table = f.read().split('| stage | what it proves | time |')[1]
        rows = []
        for line in table.splitlines()[2:]:
            if not line.startswith('|'):
                break
            rows.append(line.split('|')[1].strip())
        self.assertEqual(rows, [s.name for s in gate.STAGES])

    def test_readme_table_gives_each_stage_a_time(self):
        with open(os.path.join(gate.REPO, 'README.md')) as f:
            table = f.read().split('| stage | what it proves | time |')[1]
        for line in table.splitlines()[2:]:
            if not line.startswith('|'):
                break
            self.assertRegex(line.split('|')[-2].strip(),
                             r'^(\d+ min )?\d+ s$', line[:30])

    def test_real_flower_stage_is_strict_and_complete(self):
        flower = [s for s in gate.STAGES if s.name == 'flower'][0]
        self.assertIn('--strict', flower.command)
        self.assertEqual(flower.command[-4:], ['-c', 'flower', '-J', '4'])
        self.assertGreaterEqual(len(gate.selected_cases(['-c', 'flower'])),
                                400)

    def test_real_stage_list(self):
        names = [stage.name for stage in gate.STAGES]
        for name in ['unit', 'corpus', 'kernel', 'walk32', 'flower',
                     'tdc61-smoke', 'bench-smoke', 'stress-smoke', 'stress-debug-smoke',
                     'stress-parallel', 'mutate-sample']:
            self.assertIn(name, names)

    def test_walk32_stage_counts_its_summary_line(self):
        # make walk32 ends with one "N passed, N failed" line (walk32.mk)
        walk32 = [s for s in gate.STAGES if s.name == 'walk32'][0]
        self.assertEqual(walk32.command[-1], 'walk32')
        self.assertIs(walk32.parse, gate.summary_line)
        self.assertEqual(walk32.parse(
            'walk32: FAIL: no verdict in 120 s\n0 passed, 1 failed\n'),
            gate.Counts(0, 1, 0))


class TestTdcStage(unittest.TestCase):
    """A tdc stage of the gate, run on the host with fake cases: what the
    guest's flower stage does, in the ways it can go wrong."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        os.mkdir(os.path.join(tmp.name, 'tc-tests'))
        self.path = os.path.join(tmp.name, 'tc-tests', 't.json')

    def cases(self, *cases):
        with open(self.path, 'w') as f:
            json.dump(list(cases), f)

    def run_stage(self, python=(PY,)):
        stage = gate.tdc_stage('flower', ['-f', self.path],
                               python=list(python))
        out = io.StringIO()
        with mock.patch.object(gate, 'STAGES', [stage]), \
                redirect_stdout(out):
            code = gate.main([])
        return code, out.getvalue().splitlines()

    def test_passing_run(self):
        self.cases(case('0001'), case('0002'))
        code, lines = self.run_stage()
        self.assertEqual((code, lines[-1]), (0, '2 passed, 0 failed'))

    def test_without_pyroute2_and_scapy_the_stage_fails(self):
        # python3 -S: nsPlugin (pyroute2) and scapy cannot be imported;
        # every case used to skip, and the gate said green
        scapy = {'iface': '$DEV0', 'count': 1, 'packet': 'Ether()'}
        self.cases(case('0001', plugins={'requires': 'nsPlugin'}),
                   case('0002', plugins={'requires': 'scapyPlugin'},
                        scapy=scapy))
        code, lines = self.run_stage(python=(PY, '-S'))
        self.assertEqual((code, lines[-1]), (1, '0 passed, 2 failed'))
        self.assertIn('# stage: skip', lines)

    def test_declared_skips_still_count_against_the_run(self):
        self.cases(case('0001'), case('0002', skip='yes'),
                   case('0003', dependsOn='false'))
        code, lines = self.run_stage()
        self.assertEqual((code, lines[-1]), (1, '1 passed, 2 failed'))
        self.assertIn('gate: 2 skipped, counted as failed', lines)

    def test_fewer_cases_than_selected_fails(self):
        # a runner that selects (or reports) fewer cases than the corpus
        self.cases(case('0001'), case('0002'), case('0003'))
        stage = gate.tdc_stage('flower', ['-f', self.path], python=[PY])
        stage = stage._replace(command=stage.command + ['--shard', '2/3'])
        out = io.StringIO()
        with mock.patch.object(gate, 'STAGES', [stage]), \
                redirect_stdout(out):
            code = gate.main([])
        lines = out.getvalue().splitlines()
        self.assertEqual(code, 1)
        self.assertTrue(any(line.startswith('gate: tdc.py reported ')
                            for line in lines), lines)
        counts = gate.tdc_summary(
            'TAP version 13\n1..3\nok 1 - 0001 a\nok 2 - 0002 b\n'
            '2 passed, 0 failed, 0 skipped\n', ['-f', self.path])
        self.assertEqual(counts.failed, 1)
        counts = gate.tdc_summary(
            'TAP version 13\n1..3\nok 1 - 0001 a\nok 2 - 0002 b\n'
            'ok 3 - 0003 c\n3 passed, 0 failed, 0 skipped\n',
            ['-f', self.path])
        self.assertEqual(counts, gate.Counts(3, 0, 0))




if __name__ == '__main__':
    unittest.main()
