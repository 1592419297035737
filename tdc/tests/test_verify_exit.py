# SPDX-License-Identifier: GPL-2.0
"""tdc.py: a verify command that exits non-zero fails the case (issue 21).

Before, the verify's exit code was ignored (as upstream's tdc.py does):
a case whose verify command itself errored passed with matchCount 0 (the
error message does not hold what must be absent) or with a vacuous
matchJSON.  The cases marked "old: passed" below passed on that code.
A verify may still exit non-zero where the case expects its cmdUnderTest
to fail and matches the error text at least once (failing_verify_allowed):
`$TC -force -b $BATCH_FILE 2>&1` re-running a batch with a refused filter,
or `$FLNL add ...` re-adding one."""

import os
import re
import unittest

from tdc import tdc
from tdc.tests.test_tdc import CaseDir, case, run_in_process

ERRORS = 'echo "Error: Cannot find device" >&2; exit 1'


class TestVerifyExitCode(unittest.TestCase):
    def run_one(self, **fields):
        counts, lines = run_in_process([case('00e1', **fields)])
        return counts, lines

    def test_failing_verify_with_match_count_0_fails(self):
        # old: passed ("flower" is not in "Error: Cannot find device")
        counts, lines = self.run_one(verifyCmd=ERRORS,
                                     matchPattern='flower', matchCount='0')
        self.assertEqual(counts['fail'], 1, lines)
        self.assertIn('not ok 1 - 00e1 case 00e1', lines)
        self.assertIn('# stage: verify', lines)
        self.assertIn('# verify command {!r} failed: exit code 1, expected 0 '
                      '(matchCount 0 must not match an error)'.format(ERRORS),
                      lines)
        self.assertIn('# command: ' + ERRORS, lines)
        self.assertIn('#   Error: Cannot find device', lines)

    def test_the_same_case_with_a_working_verify_passes(self):
        counts, lines = self.run_one(verifyCmd='echo nothing here',
                                     matchPattern='flower', matchCount='0')
        self.assertEqual(counts['pass'], 1, lines)

    def test_failing_verify_with_vacuous_json_fails(self):
        # old: passed ([] matches any list)
        counts, lines = self.run_one(verifyCmd='echo "[]"; exit 2',
                                     matchJSON=[])
        self.assertEqual(counts['fail'], 1, lines)
        self.assertTrue(any('exit code 2, expected 0' in line
                            for line in lines), lines)

    def test_failing_verify_matching_its_error_fails_if_nothing_failed(self):
        # cmdUnderTest expected to succeed: an error in the verify is not
        # what the case looks for, even if the pattern matches it
        counts, lines = self.run_one(verifyCmd=ERRORS,
                                     matchPattern='Cannot find device')
        self.assertEqual(counts['fail'], 1, lines)

    def test_verify_rerunning_the_expected_failure_passes(self):
        # the corpus' errors/handles/masks cases: expExitCode 2 and a verify
        # that re-runs the refused command and matches its error
        counts, lines = self.run_one(
            cmdUnderTest='echo "Error: refused." >&2; exit 2',
            expExitCode='2',
            verifyCmd='echo "Error: refused." >&2; exit 1',
            matchPattern='^Error: refused\\.$', matchCount='1')
        self.assertEqual(counts['pass'], 1, lines)
        # ... and it still has to find the error it expects
        counts, lines = self.run_one(
            cmdUnderTest='exit 2', expExitCode='2', verifyCmd=ERRORS,
            matchPattern='^Error: refused\\.$')
        self.assertEqual(counts['fail'], 1, lines)
        # but not with matchCount 0, where the error proves nothing
        counts, lines = self.run_one(
            cmdUnderTest='exit 2', expExitCode='2', verifyCmd=ERRORS,
            matchPattern='flower', matchCount='0')
        self.assertEqual(counts['fail'], 1, lines)

    def test_failing_verify_allowed(self):
        allowed = tdc.failing_verify_allowed
        self.assertTrue(allowed({'expExitCode': '2', 'matchPattern': 'E'}))
        self.assertTrue(allowed({'expExitCode': 255, 'matchPattern': 'E',
                                 'matchCount': '2'}))
        self.assertFalse(allowed({'expExitCode': '0', 'matchPattern': 'E'}))
        self.assertFalse(allowed({'expExitCode': '2', 'matchPattern': 'E',
                                  'matchCount': '0'}))
        self.assertFalse(allowed({'expExitCode': '2', 'matchJSON': []}))

    def test_as_a_program(self):
        # tdc.py exits 1 and names the command (the gate's view)
        cases = CaseDir([case('00e2', verifyCmd='false', matchPattern='x',
                              matchCount='0')])
        self.addCleanup(cases.close)
        proc = cases.run_tdc()
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        lines = proc.stdout.splitlines()
        self.assertEqual(lines[-1], '0 passed, 1 failed, 0 skipped')
        self.assertIn("# verify command 'false' failed: exit code 1, "
                      'expected 0 (matchCount 0 must not match an error)',
                      lines)


class TestCorpusVerifies(unittest.TestCase):
    """What the rule allows in the corpus: only cases that expect their
    cmdUnderTest to fail and match the error, and whose verify re-runs
    a command expected to fail (the batch file, $FLNL, or the command
    under test itself), lists the filters or classes (a positive
    matchCount: an erring list matches nothing), or reads the offload
    test driver's log, which has the lines or not."""

    def test_allowed_failing_verifies_of_the_corpus(self):
        entries = tdc.select_cases(tdc.parse_args(
            ['-D', os.path.join(tdc.REPO, 'tc-tests')]))
        for c, path, _ in entries:
            if not c.get('verifyCmd') or not tdc.failing_verify_allowed(c):
                continue
            verify = c['verifyCmd']
            self.assertTrue(
                '-b $BATCH_FILE' in verify or
                verify.startswith('$FLNL add ') or
                verify == c.get('cmdUnderTest') or
                re.fullmatch(r'cat /sys/class/net/\w+/fltest/log', verify) or
                ' filter show ' in verify or ' class show ' in verify,
                '{} ({}): {}'.format(
                    c.get('id'), os.path.basename(path), verify))


class TestExclude(unittest.TestCase):
    def ids(self, argv):
        return [c.get('id') for c, _, _ in tdc.select_cases(tdc.parse_args(
            ['-D', os.path.join(tdc.REPO, 'tc-tests')] + argv))]

    def test_left_out_after_the_category(self):
        every = self.ids(['-c', 'flower'])
        left = self.ids(['-c', 'flower', '--exclude', every[0], every[-1]])
        self.assertEqual(left, every[1:-1])

    def test_an_unknown_id_leaves_out_nothing(self):
        self.assertEqual(self.ids(['-c', 'flower', '--exclude', 'no-such-id']),
                         self.ids(['-c', 'flower']))


if __name__ == '__main__':
    unittest.main()
