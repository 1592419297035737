# SPDX-License-Identifier: GPL-2.0
"""make walk32's verdict on its console (guest/i386/walk32.mk, the part of
the recipe after qemu's exit status is taken): walk32's PASS passes only
on a console without a kernel splat.  Before, a WARNING, lockdep report
or panic on the console went unseen once walk32 had printed PASS; the
splat tests here failed on that recipe.

No boot: `make -n` (with MAKE=true, so that no sub-make runs) prints the
recipe with W32_OBJ in a temporary directory, and the test runs what
follows qemu's `|| rc=$?;` on a fabricated console.log there, with rc
set to qemu's exit status, in the top Makefile's shell."""

import os
import subprocess
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__))))

BOOT = '''Linux version 6.1.192 (gcc) #1 Thu Jan  1 00:00:00 UTC 2026
Run /init as init process
walk32: start, i686 kernel 6.1.192
walk32: dump ended, 2 filters (handles 0x1 0xffffffff)
walk32: get 0xffffffff ok
walk32: adding class 1:2 (walks the filters of 1:1 with RTNL held)
walk32: bind walk ended
'''
PASS = BOOT + 'walk32: PASS\nreboot: Restarting system\n'
WARNING = '''------------[ cut here ]------------
WARNING: CPU: 0 PID: 1 at net/sched/cls_flower.c:560 fl_walk+0x6e/0xd0
Modules linked in:
CPU: 0 PID: 1 Comm: init Not tainted 6.1.192 #1
Call Trace:
 tc_ctl_tclass+0x1a0/0x260
---[ end trace 0000000000000000 ]---
'''
# the first line of each kind of splat the console must not show
SPLATS = [
    'BUG: kernel NULL pointer dereference, address: 00000004',
    'Oops: 0000 [#1] PREEMPT',
    'BUG: KASAN: slab-use-after-free in fl_walk+0x6e/0xd0',
    'WARNING: possible circular locking dependency detected',
    'WARNING: possible recursive locking detected',
    'rcu: INFO: rcu_sched detected stalls on CPUs/tasks:',
    'Kernel panic - not syncing: Fatal exception',
    'Call Trace:',
]


class TestWalk32Verdict(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.log = os.path.join(cls.tmp.name, 'console.log')
        out = subprocess.run(
            ['make', '-n', '--no-print-directory', '-C', REPO, 'walk32',
             'MAKE=true', 'W32_OBJ=' + cls.tmp.name],
            capture_output=True, text=True, timeout=60, check=True).stdout
        # the recipe's verdict: what it runs once qemu's status is in rc
        cls.verdict = out.split('|| rc=$?;', 1)[1]

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def judge(self, console, rc=0):
        with open(self.log, 'w') as f:
            f.write(console)
        proc = subprocess.run(
            ['/bin/bash', '-eu', '-o', 'pipefail', '-c',
             'rc={};{}'.format(rc, self.verdict)],
            cwd=REPO, capture_output=True, text=True, timeout=60)
        return proc.returncode, proc.stdout.splitlines()

    def test_the_recipe_uses_the_console_log(self):
        self.assertIn(self.log, self.verdict)

    def test_pass_on_a_clean_console_passes(self):
        code, lines = self.judge(PASS)
        self.assertEqual((code, lines[-1]), (0, '1 passed, 0 failed'), lines)

    def test_a_warning_fails_a_pass_and_is_quoted(self):
        code, lines = self.judge(BOOT + WARNING + 'walk32: PASS\n')
        self.assertEqual((code, lines[-1]), (1, '0 passed, 1 failed'), lines)
        self.assertIn('walk32: FAIL: kernel splat on the console; the first '
                      'lines:', lines)
        self.assertTrue(any(line.startswith('  | ') and 'WARNING: CPU: 0 '
                            'PID: 1 at net/sched/cls_flower.c:560' in line
                            for line in lines), lines)

    def test_every_kind_of_splat_fails_a_pass(self):
        for splat in SPLATS:
            with self.subTest(splat=splat):
                code, lines = self.judge(BOOT + splat + '\nwalk32: PASS\n')
                self.assertEqual((code, lines[-1]),
                                 (1, '0 passed, 1 failed'), lines)
                self.assertTrue(any(splat in line for line in lines
                                    if line.startswith('  | ')), lines)

    def test_no_pass_still_says_why(self):
        code, lines = self.judge('')
        self.assertEqual((code, lines[-1]), (1, '0 passed, 1 failed'), lines)
        self.assertIn('no console output at all', '\n'.join(lines))
        code, lines = self.judge(BOOT, rc=124)
        self.assertEqual((code, lines[-1]), (1, '0 passed, 1 failed'), lines)
        self.assertIn('walk32: FAIL: no verdict in 120 s', '\n'.join(lines))


if __name__ == '__main__':
    unittest.main()
