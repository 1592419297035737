# SPDX-License-Identifier: GPL-2.0
"""flower.guest: splat detection, and the exit codes guest/run documents."""

import os
import re
import unittest
from unittest import mock

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


class TestCommand(unittest.TestCase):
    def test_every_option_by_name(self):
        argv = guest.command(['sh', '-c', 'true'], variant='stock',
                             timeout=60, console_log='/tmp/c.log',
                             no_load_flower=True, smp=1, append='quiet',
                             env=['A=1', 'B=2'], verbose=True)
        self.assertEqual(argv[0], guest.GUEST_RUN)
        self.assertEqual(argv[argv.index('--') + 1:], ['sh', '-c', 'true'])
        head = argv[1:argv.index('--')]
        for pair in (['--variant', 'stock'], ['--timeout', '60'],
                     ['--console-log', '/tmp/c.log'], ['--smp', '1'],
                     ['--append', 'quiet'], ['-e', 'A=1'], ['-e', 'B=2']):
            self.assertIn(pair, [head[i:i + 2] for i in range(len(head))])
        self.assertIn('--no-load-flower', head)
        self.assertIn('-v', head)
        # guest/run's defaults stay its own: nothing is said for them
        self.assertEqual(guest.command(['true'], run='guest/run'),
                         ['guest/run', '--', 'true'])

    def test_the_options_are_guest_runs(self):
        """Each option command() writes is one guest/run's parser has."""
        with open(guest.GUEST_RUN) as f:
            text = f.read()
        known = set(re.findall(r'add_argument\("(-[-\w]+)"', text))
        argv = guest.command(['x'], variant='v', timeout=1, console_log='c',
                             no_load_flower=True, smp=1, append='a',
                             env=['E=1'], verbose=True)
        used = {a for a in argv[1:argv.index('--')] if a.startswith('-')}
        self.assertLessEqual(used, known)

    def test_run_decodes_the_status(self):
        done = mock.Mock(returncode=124, stdout='o', stderr='e')
        with mock.patch.object(guest.subprocess, 'run',
                               return_value=done) as sub:
            r = guest.run(['true'], {'variant': 'debug'},
                          capture_output=True, text=True)
        self.assertEqual(r, guest.Result(124, 'timeout', 'o', 'e'))
        argv = sub.call_args[0][0]
        self.assertEqual(argv[1:3], ['--variant', 'debug'])
        self.assertEqual(sub.call_args[1]['cwd'], guest.REPO)

    def test_no_other_python_builds_a_guest_run_command(self):
        """Python starts the guest through command() only: a second
        builder is a list or path naming guest/run outside flower/guest.py
        (tests and text that only mention it are fine)."""
        builder = re.compile(r"""\[\s*['"][^'"]*guest/run['"]\s*,"""
                             r"""|join\([^)]*['"]guest['"],\s*['"]run['"]"""
                             r"""|join\([^)]*['"]guest/run['"]\)""")
        found = []
        for top, dirs, files in os.walk(REPO):
            dirs[:] = [d for d in dirs if d not in ('build', '.git',
                                                    '__pycache__')]
            for name in files:
                path = os.path.join(top, name)
                rel = os.path.relpath(path, REPO)
                if (not name.endswith('.py') or rel == 'flower/guest.py'
                        or '/tests/' in '/' + rel):
                    continue
                with open(path) as f:
                    if builder.search(f.read()):
                        found.append(rel)
        self.assertEqual(found, [])


if __name__ == '__main__':
    unittest.main()
