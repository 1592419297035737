# SPDX-License-Identifier: GPL-2.0
"""stress/suite.sh counts a part that ran nothing as failed: a part whose
result is "0 passed, 0 failed" passed nothing (a corpus that selected no
case, a loop that had nothing to do).  Before, such a part was summed as
a pass and the suite exited 0; these tests failed on that suite.sh.

Same fake python as test_suite_skips: no guest, no kernel."""

import unittest

from stress.tests import test_suite_skips


class TestSuiteEmpty(unittest.TestCase):
    suite = test_suite_skips.TestSuiteSkips.suite

    def test_a_part_that_ran_nothing_fails(self):
        rc, lines = self.suite(['fuzz', 'churn'], fuzz='5 passed, 0 failed',
                               churn='0 passed, 0 failed')
        self.assertEqual((rc, lines[-1]), (1, '5 passed, 1 failed'), lines)
        self.assertIn('suite: churn: ran nothing (0 passed, 0 failed), '
                      'counted as failed', lines)

    def test_zero_skipped_is_still_nothing(self):
        rc, lines = self.suite(['corpus'],
                               corpus='0 passed, 0 failed, 0 skipped')
        self.assertEqual((rc, lines[-1]), (1, '0 passed, 1 failed'), lines)
        self.assertIn('suite: corpus: ran nothing (0 passed, 0 failed), '
                      'counted as failed', lines)

    def test_skips_alone_are_counted_once(self):
        # "0 passed, 0 failed, 3 skipped" fails as 3 skips, not 4
        rc, lines = self.suite(['corpus'],
                               corpus='0 passed, 0 failed, 3 skipped')
        self.assertEqual((rc, lines[-1]), (1, '0 passed, 3 failed'), lines)
        self.assertFalse(any('ran nothing' in line for line in lines), lines)


if __name__ == '__main__':
    unittest.main()
