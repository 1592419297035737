# SPDX-License-Identifier: GPL-2.0
"""Every program the build and the harness run comes from a Debian
package that `make deps` installs, or that every Debian system has.
The scan and the lookup are lint/deps_scan.py (its docstring says how);
on a fresh Debian 12 machine stage walk32 once failed because the
kernel's `make headers_install` runs rsync, which no list named."""

import os
import shutil
import subprocess
import unittest

from lint.deps_scan import (REPO, check, deb_packages, make_expand, programs,
                           python_programs, shell_programs)

HAVE_DPKG = shutil.which('dpkg') is not None


@unittest.skipUnless(HAVE_DPKG, 'not a Debian system (no dpkg)')
class TestDebPackages(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.found = programs()
        cls.listed = deb_packages()

    def test_every_program_comes_from_a_listed_or_base_package(self):
        failures, notes = check(self.found, self.listed)
        if failures:
            self.fail('{} program(s) not covered by DEB_PACKAGES:\n{}'.format(
                len(failures), '\n'.join(failures + notes)))
        if notes:
            self.skipTest('\n'.join(notes))

    def test_a_package_missing_from_the_list_fails(self):
        # rsync (kbuild's headers_install, make walk32) is run by no file
        # of ours: without it in DEB_PACKAGES the check must fail
        listed = [p for p in self.listed if p != 'rsync']
        failures, _ = check({'rsync': self.found['rsync']}, listed)
        self.assertEqual(len(failures), 1, failures)
        self.assertTrue(failures[0].startswith('rsync '), failures)

    def test_a_program_not_installed_fails_with_its_name(self):
        failures, notes = check({'tdc-no-such-program': ['x']}, self.listed)
        self.assertEqual(len(failures), 1)
        self.assertIn('tdc-no-such-program', failures[0])
        self.assertIn('not installed on this machine', failures[0])
        # one whose package is listed but not installed is a note
        failures, notes = check({'tdc-no-such-program': ['x']},
                                self.listed + ['tdc-no-such-program'])
        self.assertEqual(failures, [])
        self.assertIn('make deps', notes[0])

    def test_a_program_from_no_package_fails(self):
        # a program found only outside dpkg's knowledge (e.g. /usr/local)
        failures, _ = check({'/bin/sh': ['x']}, self.listed)
        self.assertEqual(failures, [])
        failures, _ = check({os.path.join(REPO, 'guest', 'run'): ['x']},
                            self.listed)
        self.assertIn('belongs to no Debian package', failures[0])

    def test_the_scan_finds_what_the_repository_runs(self):
        # the scan is not vacuous: programs run from each kind of file
        for prog, place in [
                ('qemu-system-i386', 'guest/i386/walk32.mk'),
                ('flock', 'Makefile'), ('depmod', 'Makefile'),
                ('tar', 'tree/extract-tree'),
                ('git', 'tree/make-series'),
                ('patch', 'tree/series-check'),
                ('qemu-system-x86_64', 'guest/run'),
                ('busybox', 'guest/init'),
                ('ovs-vsctl', 'ovs/ovsctl.py'),
                ('ovsdb-tool', 'ovs/ovsctl.py'),
                ('bc', 'selftests/in-guest'),
                ('/usr/bin/python3', 'Makefile'),
                ('tc', 'difftest/runner.py'),
                ('md5sum', 'Makefile'),
                ('nproc', 'Makefile')]:
            self.assertIn(place, self.found.get(prog, []), prog)
        # no case pattern, keyword, variable or repository path
        for word in ['fuzz', 'churn', 'then', 'do', 'esac', 'in', 'guest/run',
                     'run', 'setup', 'CONFIG_', '$X']:
            self.assertNotIn(word, self.found)

    def test_deb_packages_as_make_expands_it(self):
        env = {k: v for k, v in os.environ.items()
               if k not in ('MAKEFLAGS', 'MFLAGS', 'MAKELEVEL')}
        if shutil.which('make') is None:
            self.skipTest('no make')
        proc = subprocess.run(
            ['make', '-s', '--no-print-directory', '-C', REPO, '--eval',
             'tdc-print-deb-packages: ; @echo $(DEB_PACKAGES)',
             'tdc-print-deb-packages'],
            capture_output=True, text=True, env=env, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(sorted(proc.stdout.split()), sorted(self.listed))

    def test_rsync_is_listed(self):
        # the issue: walk32's headers_install on a fresh Debian 12
        self.assertIn('rsync', self.listed)


class TestShellScan(unittest.TestCase):
    def test_commands_and_wrappers(self):
        self.assertEqual(shell_programs(
            'a=1 foo -x | bar && { baz; } || (qux) ; sudo -E env X=1 quux '
            '2>/dev/null; timeout -k 5 10 tool arg; flock -n lk true; '
            'flock lk make x; ip netns exec ns ping -c1 h; '
            'sh -c \'grep x && sed y\'; echo "$(cat f) `wc -l`"; '
            'x=$(od -c) ; for i in a b; do seq 3; done; $sudo apt-get x; '
            'while read -r l; do :; done < <(find .)'),
            ['foo', 'bar', 'baz', 'qux', 'sudo', 'env', 'quux', 'timeout',
             'tool', 'flock', 'flock', 'make', 'ip', 'ping', 'sh', 'grep',
             'sed', 'cat', 'wc', 'od', 'seq', 'apt-get', 'find'])

    def test_what_is_not_a_program(self):
        self.assertEqual(shell_programs(
            'case $x in\n a|b) one ;;\n *) two ;;\nesac\n'
            'f() { three; }\n[[ $a =~ ^(X)=(.*)$ && -n $b ]] && four\n'
            '"$v" arg; ./script; dir/tool; ${VAR} x; echo hi # note: six\n'
            'echo "a (b) c; d"\nn=$((i + $(seven)))\ncat <<EOF\nnot this\n'
            'EOF\n'),
            ['one', 'two', 'three', 'four', 'seven', 'cat'])

    def test_make_expansion(self):
        shells = []
        variables = {'PY': '/usr/bin/python3', 'RUN': '$(PY) -m x',
                     'V': 'ours'}
        text = make_expand('@$(RUN) $$x $(if $(filter stock,$(V)),a,b) '
                           '$(shell nproc) $@ $(addprefix a,b)', variables,
                           shells)
        self.assertEqual(text, '@/usr/bin/python3 -m x $x a b $X $X $X')
        self.assertEqual(shells, ['nproc'])

    def test_python_calls(self):
        self.assertEqual(python_programs(
            'Q = "qemu-x"\n'
            'subprocess.run([Q, "-v"])\nsh("ip link add %s" % d)\n'
            'run(f"tc {x} show && ovs-vsctl show")\nrun(cmd)\n'
            'subprocess.run(["sh", "-c", "dmesg | tail"])\n'
            'other("nope")\n'),
            ['qemu-x', 'ip', 'tc', 'ovs-vsctl', 'sh', 'dmesg', 'tail'])


if __name__ == '__main__':
    unittest.main()


class TestSourced(unittest.TestCase):
    def test_a_sourced_library_defines_the_scripts_functions(self):
        from lint import deps_scan
        text = 'set -e\n. "$repo/tree/kernel-paths.sh"\nmirror_files\n'
        # alone, the call looks like a program; with the library it
        # sources, it is a function of the script
        self.assertIn('mirror_files', shell_programs(text))
        whole = deps_scan.with_sourced(text)
        self.assertIn('diff_paths() {', whole)
        self.assertNotIn('mirror_files', shell_programs(whole))
        self.assertIn('find', shell_programs(whole))
