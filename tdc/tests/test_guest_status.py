# SPDX-License-Identifier: GPL-2.0
"""guest/run: CMD's status from the console when the ctl port's line is
lost (the guest powered off first): a passed run must not be reported as
a dead guest, and a console without the mark must still be one."""

import importlib.machinery
import os
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__))))
RUN = importlib.machinery.SourceFileLoader(
    'guest_run_status', os.path.join(REPO, 'guest', 'run')).load_module()


class TestConsoleStatus(unittest.TestCase):
    def test_marked_status(self):
        text = ('[  607.4] tdc-init: starting CMD\n'
                '[  607.5] tdc-init: CMD exited with status 0\n')
        self.assertEqual(RUN.console_status(text), 0)
        self.assertEqual(RUN.console_status(
            text.replace('status 0', 'status 3')), 3)

    def test_no_mark_is_no_status(self):
        self.assertIsNone(RUN.console_status(
            '[  1.0] tdc-init: starting CMD\n[  2.0] Oops: 0000\n'))


if __name__ == '__main__':
    unittest.main()
