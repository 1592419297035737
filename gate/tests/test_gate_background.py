# SPDX-License-Identifier: GPL-2.0
"""gate.Background: the kernels built beside the stages, waited for only by
the stages that need them, stopped while a both-cores stage runs."""

import io
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from contextlib import redirect_stdout
from unittest import mock

from gate import gate


def stage(name):
    return gate.Stage(name, ['true'], gate.summary_line)


class TestBackground(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        patcher = mock.patch.object(gate, 'BUILD_LOGS', self.tmp.name)
        patcher.start()
        self.addCleanup(patcher.stop)
        self.count = os.path.join(self.tmp.name, 'count')

    def background(self, *scripts):
        """Background builds b0, b1, ... running `sh -c SCRIPT`; stage
        'needs-bN' needs build bN."""
        builds = [gate.Build('b%d' % i, [script], {'needs-b%d' % i})
                  for i, script in enumerate(scripts)]
        bg = gate.Background(builds, command=['sh', '-c'])
        self.addCleanup(bg.kill)
        return bg

    def ticks(self):
        if not os.path.exists(self.count):
            return 0
        with open(self.count) as f:
            return len(f.read().split())

    def ticking(self, n, step=0.05):
        return 'for i in $(seq {}); do echo $i >>{}; sleep {}; done'.format(
            n, self.count, step)

    def test_a_stage_waits_for_the_build_it_needs_only(self):
        bg = self.background('sleep 0.3; exit 3')
        bg.start()
        start = time.monotonic()
        with redirect_stdout(io.StringIO()):
            bg.before(stage('other'))
            self.assertLess(time.monotonic() - start, 0.2)
            bg.before(stage('needs-b0'))
        self.assertGreaterEqual(time.monotonic() - start, 0.25)
        self.assertEqual(bg.results['b0'][0], 3)
        self.assertEqual(bg.waited['b0'][1], 'needs-b0')
        self.assertIn('exit 3', '\n'.join(bg.summary()))

    def test_a_both_cores_stage_stops_the_build(self):
        bg = self.background(self.ticking(12), 'echo b1 >>{}'.format(
            self.count))
        bg.start()
        time.sleep(0.2)
        flower = stage(sorted(gate.BOTH_CORES)[0])
        bg.before(flower)
        stopped = self.ticks()
        time.sleep(0.5)
        self.assertLessEqual(self.ticks(), stopped + 1)    # one in flight
        self.assertFalse(bg.done['b0'].is_set())
        bg.after(flower)
        with redirect_stdout(io.StringIO()):
            bg.before(stage('needs-b1'))
        self.assertEqual(self.ticks(), 13)                 # b0's 12, b1
        self.assertGreater(bg.paused, 0.4)
        self.assertIn('stopped', bg.summary()[-1])

    def test_no_build_starts_while_stopped(self):
        bg = self.background('true', 'echo b1 >>{}'.format(self.count))
        bg.pause()              # stopped before it started: nothing runs
        bg.start()
        time.sleep(0.3)
        self.assertEqual(self.ticks(), 0)
        bg.resume()
        bg.join(5)
        self.assertEqual(self.ticks(), 1)

    def test_kill_ends_a_running_build(self):
        bg = self.background(self.ticking(100), 'echo b1 >>{}'.format(
            self.count))
        bg.start()
        time.sleep(0.2)
        bg.kill()
        bg.join(5)
        self.assertFalse(bg.is_alive())
        self.assertLess(self.ticks(), 50)   # b0 ended early, b1 never ran
        self.assertTrue(all(e.is_set() for e in bg.done.values()))



STOPPED_GATE = '''
import sys
from unittest import mock
from gate import gate
stage = gate.Stage('a', ['sh', '-c', 'sleep 60 & echo $! >%s; wait'],
                   gate.summary_line)
with mock.patch.object(gate, 'STAGES', [stage]):
    sys.exit(gate.main([]))
'''


def alive(pid):
    """pid runs (a zombie does not count)."""
    try:
        with open('/proc/%d/stat' % pid) as f:
            return f.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except FileNotFoundError:
        return False


class TestStoppedGate(unittest.TestCase):
    def test_sigterm_ends_the_stage_and_its_children(self):
        with tempfile.TemporaryDirectory() as tmp:
            pidfile = os.path.join(tmp, 'pid')
            gate_proc = subprocess.Popen(
                [sys.executable, '-c', STOPPED_GATE % pidfile],
                cwd=gate.REPO, stdout=subprocess.DEVNULL)
            deadline = time.monotonic() + 30
            while not os.path.exists(pidfile) or \
                    not open(pidfile).read().strip():
                self.assertLess(time.monotonic(), deadline)
                time.sleep(0.05)
            child = int(open(pidfile).read())
            self.assertTrue(alive(child))
            gate_proc.send_signal(signal.SIGTERM)
            self.assertEqual(gate_proc.wait(30), 128 + signal.SIGTERM)
            deadline = time.monotonic() + 10
            while alive(child) and time.monotonic() < deadline:
                time.sleep(0.05)
            self.assertFalse(alive(child), 'the stage\'s child outlived '
                             'the gate')


if __name__ == '__main__':
    unittest.main()
