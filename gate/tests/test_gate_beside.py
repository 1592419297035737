# SPDX-License-Identifier: GPL-2.0
"""gate.run_stages(): stages of BESIDE run two at a time once the
background builds are done, and each stage's output stays together, in
the order of STAGES."""

import io
import tempfile
import unittest
from unittest import mock

from gate import gate

# A stage that says it started, then waits (at most 10 s) for the file
# another stage writes when it starts: it passes only if that stage ran
# beside it.
MEETS = ('touch {tmp}/{me}; for i in $(seq 200); do '
         '[ -e {tmp}/{other} ] && break; sleep 0.05; done; '
         'echo {me} line; '
         '[ -e {tmp}/{other} ] && echo "1 passed, 0 failed" || '
         'echo "0 passed, 1 failed"')
# A stage that passes only if `other` had ended before it started
AFTER = ('[ -e {tmp}/{other}.end ] && echo "1 passed, 0 failed" || '
         'echo "0 passed, 1 failed"')


class Builds:
    """Background's interface with builds done or not"""

    def __init__(self, done):
        self.done = done

    def before(self, stage):
        pass

    def after(self, stage):
        pass

    def finished(self):
        return self.done


class TestBeside(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name

    def stage(self, name, script):
        script = script.format(tmp=self.tmp, me=name,
                               other='b' if name == 'a' else 'a')
        return gate.Stage(name, ['sh', '-c', script + '; touch {}/{}.end'
                                 .format(self.tmp, name)], gate.summary_line)

    def run_gate(self, stages, beside, builds_done=True):
        out = io.StringIO()
        with mock.patch.object(gate, 'BESIDE', beside):
            ended = gate.run_stages(stages, Builds(builds_done),
                                    gate.Output(out))
        return ({name: run.verdict()[0] for name, run in ended.items()},
                out.getvalue())

    def test_two_beside_stages_run_together(self):
        counts, _ = self.run_gate([self.stage('a', MEETS),
                                   self.stage('b', MEETS)], {'a', 'b'})
        self.assertEqual(counts['a'], gate.Counts(1, 0, 0))
        self.assertEqual(counts['b'], gate.Counts(1, 0, 0))

    def test_output_stays_together_in_stage_order(self):
        _, out = self.run_gate([self.stage('a', MEETS),
                                self.stage('b', MEETS)], {'a', 'b'})
        lines = out.splitlines()
        self.assertTrue(lines[0].startswith('=== a: '), lines)
        b_at = [i for i, line in enumerate(lines)
                if line.startswith('=== b: ')]
        self.assertEqual(len(b_at), 1, lines)
        self.assertEqual(lines[1:b_at[0]], ['a line', '1 passed, 0 failed'])
        self.assertEqual(lines[b_at[0] + 1:], ['b line',
                                               '1 passed, 0 failed'])

    def test_a_stage_not_in_beside_waits(self):
        counts, _ = self.run_gate([self.stage('a', 'sleep 0.3'),
                                   self.stage('b', AFTER)], {'a'})
        self.assertEqual(counts['b'], gate.Counts(1, 0, 0))

    def test_no_stage_beside_another_while_a_build_runs(self):
        counts, _ = self.run_gate([self.stage('a', 'sleep 0.3'),
                                   self.stage('b', AFTER)], {'a', 'b'},
                                  builds_done=False)
        self.assertEqual(counts['b'], gate.Counts(1, 0, 0))

    def test_never_three_at_a_time(self):
        # c may start once either of a and x has ended: which one ends
        # first is the scheduler's (a loaded machine ends x first)
        either = ('{{ [ -e {tmp}/a.end ] || [ -e {tmp}/x.end ]; }} && '
                  'echo "1 passed, 0 failed" || echo "0 passed, 1 failed"')
        stages = [self.stage('a', 'sleep 0.3'), self.stage('x', 'sleep 0.3'),
                  gate.Stage('c', ['sh', '-c', either.format(tmp=self.tmp)],
                             gate.summary_line)]
        counts, _ = self.run_gate(stages, {'a', 'x', 'c'})
        self.assertEqual(counts['c'], gate.Counts(1, 0, 0))


if __name__ == '__main__':
    unittest.main()
