# SPDX-License-Identifier: GPL-2.0
"""The top Makefile includes every */*.mk into one make: a variable that
two of them define is silently the last one's.  kernel/series.mk once set
SC_OBJ (its series-corpus kernel, build/obj/ours) over the Makefile's
SC_OBJ (series-check's scratch tree), and `make series-check` then wiped
build/obj/ours in the middle of the gate."""

import collections
import os
import re
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__))))
# NAME := / = / ?= / ::= at the start of a line (+= appends on purpose)
DEFINITION = re.compile(r'^([A-Za-z_][A-Za-z0-9_]*)\s*(?::|::|\?)?=')


def makefiles():
    found = [os.path.join(REPO, 'Makefile')]
    for root, dirs, names in os.walk(REPO):
        dirs[:] = sorted(d for d in dirs
                         if root != REPO or d not in ('build', '.git'))
        found += [os.path.join(root, n) for n in sorted(names)
                  if n.endswith('.mk')]
    return found


def definitions(paths):
    """{variable: {file defining it}}."""
    found = collections.defaultdict(set)
    for path in paths:
        with open(path) as f:
            for line in f:
                m = DEFINITION.match(line)
                if m:
                    found[m.group(1)].add(os.path.relpath(path, REPO))
    return found


class TestOneDefinitionPerVariable(unittest.TestCase):
    def test_no_variable_is_defined_in_two_makefiles(self):
        twice = {name: sorted(files)
                 for name, files in definitions(makefiles()).items()
                 if len(files) > 1}
        self.assertEqual(twice, {})

    def test_the_check_sees_a_clash(self):
        # the SC_OBJ clash, replayed on two scratch files
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            a, b = os.path.join(tmp, 'a.mk'), os.path.join(tmp, 'b.mk')
            with open(a, 'w') as f:
                f.write('SC_OBJ         := $(BUILD)/obj/series-check\n'
                        'DEB_PACKAGES += rsync\n')
            with open(b, 'w') as f:
                f.write('SC_OBJ        := $(BUILD)/obj/ours\n'
                        'DEB_PACKAGES += sparse\n\tX = 1\n')
            found = definitions([a, b])
        self.assertEqual(len(found['SC_OBJ']), 2)
        self.assertNotIn('DEB_PACKAGES', found)
        self.assertNotIn('X', found)



class TestMakeHelp(unittest.TestCase):
    def test_help_names_the_two_commands_and_every_gate_stage(self):
        import subprocess
        from gate import gate
        out = subprocess.run(['make', '--no-print-directory', '-C', REPO,
                              'help'], capture_output=True, text=True,
                             check=True).stdout
        listed = set(re.findall(r'^ make ([a-z0-9-]+)', out, re.M))
        # a stage's target: its make argument that is neither an option
        # nor a VAR=VALUE
        wanted = {'run', 'test'} | {
            next(a for a in s.command[1:] if not a.startswith('-') and
                 '=' not in a)
            for s in gate.STAGES if s.command[0] == 'make'}
        self.assertEqual(wanted - listed, set())


if __name__ == '__main__':
    unittest.main()
