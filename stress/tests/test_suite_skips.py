# SPDX-License-Identifier: GPL-2.0
"""stress/suite.sh counts a skip as failed (issue 21, audit finding 11):
a skip is a pass of nothing.  Before, "lifecycle: 26 passed, 0 failed"
with failslab and kmemleak "not available on this kernel, skipped", and
the corpus's "N passed, 0 failed, 3 skipped", summed to "N passed, 0
failed"; test_skipped_* failed on that suite.sh.

The parts are replaced by a fake python (STRESS_PY) that prints a part's
output from $FAKE_OUT_<part>; no guest, no kernel."""

import os
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.realpath(__file__))
SUITE = os.path.join(os.path.dirname(HERE), 'suite.sh')

FAKE = '''#!/bin/sh
# fake python: "-m stress.PART ..." or "-m tdc.tdc ..." prints FAKE_OUT_PART
part=${2#stress.}
[ "$part" = tdc.tdc ] && part=corpus
eval "printf '%s\\n' \\"\\$FAKE_OUT_$part\\""
'''

LIFECYCLE = '\n'.join([
    '--- module', '--- failslab',
    'failslab: not available on this kernel, skipped',
    '--- kmemleak', 'kmemleak: not available on this kernel, skipped',
    'lifecycle: 10.0 s', '26 passed, 0 failed'])


class TestSuiteSkips(unittest.TestCase):
    def suite(self, parts, suite=SUITE, **outs):
        with tempfile.TemporaryDirectory() as d:
            py = os.path.join(d, 'python')
            with open(py, 'w') as f:
                f.write(FAKE)
            os.chmod(py, 0o755)
            env = dict(os.environ, STRESS_PY=py, STRESS_OUT=d,
                       LIFE_SKIP=outs.pop('life_skip', ''))
            env.update(('FAKE_OUT_' + k, v) for k, v in outs.items())
            proc = subprocess.run(['sh', suite] + parts, env=env,
                                  capture_output=True, text=True, timeout=60)
        return proc.returncode, proc.stdout.splitlines()

    def test_no_skip(self):
        rc, lines = self.suite(['fuzz', 'churn'], fuzz='5 passed, 0 failed',
                               churn='7 passed, 0 failed')
        self.assertEqual((rc, lines[-1]), (0, '12 passed, 0 failed'), lines)

    def test_skipped_pieces_of_a_part_fail(self):
        rc, lines = self.suite(['lifecycle'], lifecycle=LIFECYCLE)
        self.assertEqual((rc, lines[-1]), (1, '26 passed, 2 failed'), lines)
        self.assertIn('suite: lifecycle: 2 skipped, counted as failed', lines)

    def test_skipped_cases_fail(self):
        rc, lines = self.suite(['fuzz', 'corpus'], fuzz='5 passed, 0 failed',
                               corpus='650 passed, 0 failed, 3 skipped')
        self.assertEqual((rc, lines[-1]), (1, '655 passed, 3 failed'), lines)

    def test_life_skip_is_named_not_counted(self):
        out = LIFECYCLE.replace('failslab: not available on this kernel, '
                                'skipped\n', '').replace(
            'kmemleak: not available on this kernel, skipped\n', '')
        rc, lines = self.suite(['lifecycle'], lifecycle=out,
                               life_skip='failslab kmemleak')
        self.assertEqual((rc, lines[-1]), (0, '26 passed, 0 failed'), lines)
        self.assertTrue(any(line.startswith('=== lifecycle: 26 passed') and
                            line.endswith('not run (LIFE_SKIP): failslab '
                                          'kmemleak') for line in lines),
                        lines)


if __name__ == '__main__':
    unittest.main()
