"""When the campaign makes the difftest oracle's reference again
(mutate.run.difftest_ref): from the plan's commit, not from a file date."""
import os
import tempfile
import unittest
from unittest import mock

from mutate import run


class TestDifftestRef(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dt = os.path.join(self.tmp.name, 'difftest')
        self.calls = []
        patches = [mock.patch.object(run, 'DT', self.dt),
                   mock.patch.object(run, 'BUILD', self.tmp.name),
                   mock.patch.object(run, 'build', self.fake_build),
                   mock.patch.object(run.subprocess, 'run', self.fake_run),
                   mock.patch.object(run.shutil, 'copy', lambda a, b: None)]
        for p in patches:
            p.start()
            self.addCleanup(p.stop)

    def tearDown(self):
        self.tmp.cleanup()

    def fake_build(self, work, doc, ids, obj=None):
        self.calls.append(('build', ids))
        return {}

    def fake_run(self, cmd, **kw):
        self.calls.append(('run', cmd[0] if 'guest/run' in cmd[0] else cmd[2]))

    def stamp(self, commit):
        os.makedirs(self.dt, exist_ok=True)
        with open(os.path.join(self.dt, 'smoke1.commit'), 'w') as f:
            f.write(commit + '\n')

    def test_made_when_missing(self):
        run.difftest_ref('/w', {'commit': 'a' * 40})
        self.assertEqual(self.calls[0], ('build', [run.CONTROL]))
        self.assertEqual([c[1] for c in self.calls[1:]],
                         ['difftest.gen', os.path.join(run.REPO, 'guest/run')])
        self.assertEqual(run.ref_commit(os.path.join(self.dt, 'smoke1.commit')), 'a' * 40)

    def test_kept_for_the_same_commit(self):
        self.stamp('a' * 40)
        run.difftest_ref('/w', {'commit': 'a' * 40})
        self.assertEqual(self.calls, [])

    def test_made_again_for_another_commit(self):
        # the old rule (a module newer than the file) missed this, and
        # `make guest` touches the module on every run
        self.stamp('b' * 40)
        run.difftest_ref('/w', {'commit': 'a' * 40})
        self.assertIn(('build', [run.CONTROL]), self.calls)
        self.assertEqual(run.ref_commit(os.path.join(self.dt, 'smoke1.commit')), 'a' * 40)

    def test_the_guest_loads_the_control(self):
        seen = []
        with mock.patch.object(run.subprocess, 'run', lambda cmd, **kw: seen.append(cmd)):
            run.difftest_ref('/w', {'commit': 'a' * 40})
        self.assertIn('insmod /w/m0000/cls_flower.ko', seen[-1][-1])
        self.assertIn('--no-load-flower', seen[-1])


if __name__ == '__main__':
    unittest.main()
