"""A campaign stopped midway (SIGTERM, ^C) keeps the results its guest had
finished, stops the guest, and files no crash for the mutant it was on."""
import json
import os
import signal
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

from mutate import guests, kills, modules, run

DOC = {'commit': 'c' * 40, 'mutants': [
    {'id': 'm0001', 'op': 'op', 'line': 1}, {'id': 'm0002', 'op': 'op', 'line': 2}]}


class TestStopped(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def fake_guest(self, stop):
        """watched() for a guest that finished m0001, started m0002, then
        saw us stopped by `stop`."""
        def watched(cmd, out):
            with open(os.path.join(out, 'm0001.json'), 'w') as f:
                json.dump({'id': 'm0001', 'verdict': 'killed', 'killer': 'packets',
                           'oracles': []}, f)
            open(os.path.join(out, 'm0002.start'), 'w').close()
            raise stop
        return watched

    def run_ids(self, stop):
        results = os.path.join(self.tmp.name, 'results')
        with mock.patch.object(guests, 'BUILD', self.tmp.name), \
                mock.patch.object(modules, 'build', return_value={}), \
                mock.patch.object(guests, 'watched', self.fake_guest(stop)), \
                self.assertRaises(SystemExit) as cm:
            kills.run_ids(self.tmp.name, results, DOC, ['m0001', 'm0002'], 'packets', 't')
        return sorted(os.listdir(results)), str(cm.exception)

    def test_sigterm_keeps_finished_results(self):
        kept, why = self.run_ids(SystemExit(143))
        self.assertEqual(kept, ['m0001.json'])      # m0002: no crash filed
        self.assertIn('m0001', why)

    def test_ctrl_c_keeps_finished_results(self):
        self.assertEqual(self.run_ids(KeyboardInterrupt())[0], ['m0001.json'])

    def test_watched_stops_its_guest(self):
        # time.sleep() is where SIGTERM's handler raises in watched();
        # only its first call (Popen.wait(timeout) sleeps too)
        child, real_popen, real_sleep = [], subprocess.Popen, guests.time.sleep
        calls = []

        def sleep(t):
            calls.append(t)
            if len(calls) == 1:
                raise SystemExit(143)
            real_sleep(t)

        def popen(*a, **kw):
            child.append(real_popen(*a, **kw))
            return child[0]
        with mock.patch.object(guests.subprocess, 'Popen', popen), \
                mock.patch.object(guests.time, 'sleep', sleep), \
                self.assertRaises(SystemExit):
            guests.watched([sys.executable, '-c', 'import time; time.sleep(30)'],
                        self.tmp.name)
        self.assertEqual(child[0].returncode, -signal.SIGTERM)

    def test_main_turns_sigterm_into_systemexit(self):
        with mock.patch.object(run, 'sample', return_value=0), \
                mock.patch.object(run.signal, 'signal') as sig:
            run.main(['--sample'])
        (signum, handler), _ = sig.call_args
        self.assertEqual(signum, signal.SIGTERM)
        with self.assertRaises(SystemExit) as cm:
            handler(signal.SIGTERM, None)
        self.assertEqual(cm.exception.code, 128 + signal.SIGTERM)


if __name__ == '__main__':
    unittest.main()
