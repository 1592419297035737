# SPDX-License-Identifier: GPL-2.0
"""flower.guest: splat detection, and the exit codes guest/run documents."""

import os
import re
import unittest

from flower import guest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__))))


class TestSplats(unittest.TestCase):
    LOG = ('[    0.1] kmemleak: Kernel memory leak detector initialized\n'
           '[    0.2] rcu: RCU lockdep checking is enabled.\n'
           '[   10.0] ------------[ cut here ]------------\n'
           '[   10.1] WARNING: CPU: 0 PID: 1 at net/sched/cls_flower.c:99\n'
           '[   10.2] Call Trace:\n'
           '[   10.3] ---[ end trace 0000000000000000 ]---\n'
           '[   11.0] tdc-init: CMD exited with status 0\n')

    def test_a_warning_with_its_trace(self):
        found = guest.splats(self.LOG)
        self.assertEqual(len(found), 1)
        first, excerpt = found[0]
        self.assertIn('WARNING: CPU: 0', first)
        # from the line before to the trace's end marker, nothing after
        self.assertIn('cut here', excerpt)
        self.assertIn('end trace', excerpt)
        self.assertNotIn('tdc-init', excerpt)

    def test_banners_are_not_splats(self):
        self.assertEqual(guest.splats('\n'.join(self.LOG.splitlines()[:2])),
                         [])
        self.assertTrue(guest.is_splat('BUG: KASAN: use-after-free'))


class TestBootPanic(unittest.TestCase):
    BOOT = ('[    2.72] BUG: KASAN: wild-memory-access in '
            'do_raw_spin_lock+0x12d/0x1dc\n'
            '[    2.72]  identify_cpu+0x37f/0xe47\n'
            '[    2.72] Kernel panic - not syncing: KASAN: panic_on_warn '
            'set ...\n')
    LATE = ('[    7.84] Run /init as init process\n'
            '[   30.00] BUG: KASAN: use-after-free in fl_classify\n'
            '[   30.01] Kernel panic - not syncing: KASAN: panic_on_warn '
            'set ...\n')

    def test_a_panic_before_init_is_the_boots(self):
        # guest/run boots once more only then: no module of ours had loaded
        self.assertTrue(guest.died_before_init(self.BOOT))

    def test_a_panic_after_init_is_the_tests(self):
        self.assertFalse(guest.died_before_init(self.LATE))
        self.assertFalse(guest.died_before_init(
            '[    7.84] Run /init as init process\n'))


class TestExitCodes(unittest.TestCase):
    def test_guest_run_documents_these_codes(self):
        """guest/run's usage text lists its own exit codes; they are the
        ones flower.guest names."""
        with open(os.path.join(REPO, 'guest', 'run')) as f:
            text = f.read()
        doc = text[text.index('exit status:'):text.index('"""', 100)]
        codes = {int(c) for c in re.findall(r'^  (\d+)\s', doc, re.M)}
        self.assertEqual(codes, set(guest.VERDICT))
        self.assertIn('from flower.guest import', text)
        self.assertEqual(guest.verdict(124), 'timeout')
        self.assertIsNone(guest.verdict(1))


if __name__ == '__main__':
    unittest.main()
