"""The cases left out of the campaign's tdc oracles (mutate.run.baseline):
those that fail on the unmutated source of the plan's commit, and no more."""
import json
import os
import tempfile
import unittest
from unittest import mock

from mutate import run

TAP = '''TAP version 13
1..4
ok 1 - aaaa first
not ok 2 - 25cd Regression: ct_state
# execute: exit 0, expected 2
ok 3 - bbbb third # skip no device
ok 4 - cccc fourth
%s
'''


class TestTdcFails(unittest.TestCase):
    def test_failed_and_skipped(self):
        got = run.tdc_fails(TAP % '2 passed, 1 failed, 1 skipped')
        self.assertEqual(sorted(got), ['25cd', 'bbbb'])
        self.assertTrue(got['25cd'].startswith('not ok 2 - 25cd'))

    def test_no_summary_or_nothing_passed_is_broken(self):
        self.assertIsNone(run.tdc_fails('insmod: ERROR: could not insert module'))
        self.assertIsNone(run.tdc_fails(TAP % '0 passed, 4 failed, 0 skipped'))

    def test_all_passed(self):
        self.assertEqual(run.tdc_fails('ok 1 - aaaa x\n1 passed, 0 failed, 0 skipped\n'), {})


class TestBaseline(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.path = os.path.join(self.tmp.name, 'baseline.json')
        self.guests = []
        for p in [mock.patch.object(run, 'BASELINE', self.path),
                  mock.patch.object(run, 'build', lambda *a, **k: {}),
                  mock.patch.object(run.subprocess, 'run', self.guest)]:
            p.start()
            self.addCleanup(p.stop)
        self.out = TAP % '2 passed, 1 failed, 1 skipped'

    def guest(self, cmd, **kw):
        self.guests.append(cmd)
        return mock.Mock(stdout=self.out, stderr='', returncode=1)

    def test_made_once_per_commit(self):
        self.assertEqual(sorted(run.baseline('/w', {'commit': 'a' * 40})), ['25cd', 'bbbb'])
        self.assertEqual(sorted(run.baseline('/w', {'commit': 'a' * 40})), ['25cd', 'bbbb'])
        self.assertEqual(len(self.guests), 1)
        self.assertIn('insmod /w/m0000/cls_flower.ko', self.guests[0][-1])
        with open(self.path) as f:
            self.assertEqual(json.load(f)['commit'], 'a' * 40)
        run.baseline('/w', {'commit': 'b' * 40})
        self.assertEqual(len(self.guests), 2)

    def test_made_again_when_the_corpus_changes(self):
        # a case added after the baseline may fail on the plan's commit too
        run.baseline('/w', {'commit': 'a' * 40})
        with mock.patch.object(run, 'corpus_digest', lambda files: 'changed'):
            run.baseline('/w', {'commit': 'a' * 40})
        self.assertEqual(len(self.guests), 2)

    def test_a_broken_run_excludes_nothing(self):
        # a module that did not load must not leave every case out
        self.out = 'insmod: ERROR\n'
        with self.assertRaises(SystemExit):
            run.baseline('/w', {'commit': 'a' * 40})
        self.out = ''.join('not ok %d - id%d x\n' % (i, i) for i in range(20)) + \
            '1 passed, 20 failed, 0 skipped\n'
        with self.assertRaises(SystemExit):
            run.baseline('/w', {'commit': 'a' * 40})
        self.assertFalse(os.path.exists(self.path))


class TestOraclesExclude(unittest.TestCase):
    def test_the_tdc_oracles_leave_them_out(self):
        from mutate import inguest
        specs = inguest.oracles('/tmp', 'm0001', ['25cd', 'bbbb'])
        for name in ('packets', 'corpus'):
            cmd = specs[name][0][0]
            i = cmd.index('--exclude')
            self.assertEqual(cmd[i + 1:i + 3], ['25cd', 'bbbb'])
        self.assertNotIn('--exclude', specs['difftest'][0][0])
        self.assertNotIn('--exclude', inguest.oracles('/tmp', 'm0001')['corpus'][0][0])


if __name__ == '__main__':
    unittest.main()
