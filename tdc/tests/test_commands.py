# SPDX-License-Identifier: GPL-2.0
"""commands.py: direct exec, the shell, and flowernl in a fork, all with
the same results a shell would give."""

import os
import unittest

from tdc import commands, flowernl

FLNL = commands.FLNL


def run(command, timeout=30, preexec=None):
    return commands.run(command, '/', timeout, preexec)


class TestSimpleArgv(unittest.TestCase):
    def test_simple(self):
        self.assertEqual(commands.simple_argv("echo 'a b' c"),
                         ['echo', 'a b', 'c'])

    def test_needs_a_shell(self):
        for command in ('echo a | cat', 'echo $HOME', 'exit 3', 'A=1 env',
                        'echo a > /dev/null', 'ls *', 'true && true',
                        'time true', 'cd /', 'no-such-program-x'):
            self.assertIsNone(commands.simple_argv(command), command)


class TestRun(unittest.TestCase):
    def test_direct_and_shell_agree(self):
        for command in ('echo hello', 'sh -c "echo hello"'):
            outcome = run(command)
            self.assertEqual((outcome.code, outcome.out), (0, 'hello\n'))
        self.assertEqual(run('false').code, 1)
        self.assertEqual(run('exit 3').code, 3)
        self.assertEqual(run('no-such-program-x').code, 127)

    def test_stderr_and_output_choice(self):
        outcome = run('ls /no/such/path')
        self.assertNotEqual(outcome.code, 0)
        self.assertEqual(outcome.output(), outcome.err)
        self.assertTrue(outcome.err)

    def test_timeout_kills_the_children(self):
        outcome = run('sleep 30 | sleep 30', timeout=0.3)
        self.assertIsNone(outcome.code)

    def test_preexec_runs_in_the_child(self):
        outcome = run('sh -c "echo $TDC_MARK"',
                      preexec=lambda: os.environ.update(TDC_MARK='x'))
        self.assertEqual(outcome.out, 'x\n')
        self.assertNotIn('TDC_MARK', os.environ)


class TestForkedFlowernl(unittest.TestCase):
    """Only a link lookup on the host: a device that does not exist."""

    def test_fork_path_matches_a_new_process(self):
        forked = run(FLNL + ' show --dev tdcnosuchdev0')
        spawned = run('sh -c "{} show --dev tdcnosuchdev0"'.format(FLNL))
        # flowernl's own error, not the kernel's ENODEV (19)
        self.assertEqual(forked.code, flowernl.USAGE_EXIT)
        self.assertEqual((forked.code, forked.out, forked.err),
                         (spawned.code, spawned.out, spawned.err))
        self.assertIn('Cannot find device "tdcnosuchdev0"', forked.err)

    def test_usage_error(self):
        outcome = run(FLNL + ' frobnicate --dev x')
        # not argparse's 2, which is ENOENT
        self.assertEqual(outcome.code, flowernl.USAGE_EXIT)
        self.assertIn('invalid choice', outcome.err)


if __name__ == '__main__':
    unittest.main()
