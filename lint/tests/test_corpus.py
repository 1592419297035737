# SPDX-License-Identifier: GPL-2.0
"""corpus.py: the id/format checker the corpus stage of the gate runs."""

import json
import os
import subprocess
import tempfile
import unittest

from lint import corpus, jsonpattern

TDC_DIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
REPO = os.path.dirname(TDC_DIR)


def good_case(cid, **fields):
    case = {'id': cid, 'name': 'n', 'category': ['filter', 'flower'],
            'seriesFamilies': ['core'],
            'plugins': {'requires': 'nsPlugin'}, 'setup': [],
            'cmdUnderTest': 'true', 'expExitCode': '0', 'verifyCmd': 'true',
            'matchPattern': 'x', 'matchCount': '0', 'teardown': []}
    case.update(fields)
    return case


class TestTree(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.root = self.tmp.name

    def write(self, rel, cases):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            f.write(cases if isinstance(cases, str) else json.dumps(cases))

    def problems(self):
        return corpus.check_tree(self.root)[2]

    def test_clean_tree(self):
        self.write('filters/flower/a.json', [good_case('a1b2')])
        self.assertEqual(corpus.check_tree(self.root), (1, 0, []))

    def test_duplicate_id_across_files(self):
        self.write('filters/flower/a.json', [good_case('a1b2')])
        self.write('filters/flower/b.json', [good_case('a1b2')])
        problems = self.problems()
        self.assertEqual(len(problems), 1)
        self.assertIn('duplicate id', problems[0])

    def test_same_test_under_two_ids(self):
        # 05b0 and 09c9 were one case under two names: the second is
        # reported; a case that differs in a command is another test
        twin = dict(good_case('c3d4'), name='another name')
        other = dict(good_case('e5f6'), cmdUnderTest='$TC -V')
        self.write('filters/flower/a.json', [good_case('a1b2'), twin, other])
        problems = self.problems()
        self.assertEqual(len(problems), 1)
        self.assertIn('c3d4: the same test as a1b2', problems[0])

    def test_duplicate_fails_the_program(self):
        self.write('x/a.json', [good_case('a1b2'), good_case('a1b2')])
        proc = self.run_program('--min-flower', '0', '--min-packets', '0')
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(proc.stdout.splitlines()[-1], '2 passed, 1 failed')

    def run_program(self, *args):
        return subprocess.run(['/usr/bin/python3', '-m', 'lint.corpus'] +
                              list(args) + [self.root], cwd=REPO,
                              capture_output=True, text=True)

    def test_size_counts_flower_cases_and_packet_cases(self):
        scapy = {'iface': 'v0p0', 'count': 1, 'packet': 'Ether()'}
        self.write('filters/flower/a.json', [
            good_case('a1b2'), good_case('a1b3', scapy=scapy),
            good_case('a1b4', scapy=[scapy, scapy])])
        self.write('filters/u32/a.json', [
            good_case('a1b5', category=['filter', 'u32'], scapy=scapy)])
        self.assertEqual(corpus.corpus_size(self.root), (3, 2))

    def test_too_small_corpus_fails_the_program(self):
        self.write('filters/flower/a.json', [good_case('a1b2')])
        proc = self.run_program('--min-flower', '2', '--min-packets', '0')
        self.assertEqual(proc.returncode, 1)
        self.assertIn('TOO SMALL', proc.stdout)
        self.assertEqual(proc.stdout.splitlines()[-1], '1 passed, 1 failed')
        proc = self.run_program('--min-flower', '1', '--min-packets', '0')
        self.assertEqual(proc.returncode, 0)
        self.assertEqual(proc.stdout.splitlines()[-1], '2 passed, 0 failed')

    def test_id_format(self):
        self.write('x/a.json', [good_case(cid, cmdUnderTest='$TC -V %d' % i)
                                for i, cid in enumerate(['A1B2', '12345',
                                                         'zz00'])])
        self.assertEqual(len(self.problems()), 3)

    def test_flower_category(self):
        self.write('filters/flower/a.json',
                   [good_case('a1b2', category=['filter'])])
        self.assertIn('category lacks "flower"', self.problems()[0])
        self.write('filters/flower/a.json', [good_case('a1b2')])
        self.write('actions/b.json', [good_case('c3d4', category=['x'])])
        self.assertEqual(self.problems(), [])

    def test_series_families_required_under_flower(self):
        # the series' steps read it (tdc/series_cases.py)
        bare = good_case('a1b2')
        del bare['seriesFamilies']
        self.write('filters/flower/a.json', [bare])
        self.assertEqual(self.problems(), [
            'filters/flower/a.json: a1b2: no seriesFamilies (file is under '
            'filters/flower/)'])
        self.write('filters/flower/a.json', [])
        self.write('actions/b.json', [dict(bare, category=['x'])])
        self.assertEqual(self.problems(), [])

    def test_series_families_is_a_sorted_list(self):
        for bad in ('core', ['vlan', 'core'], ['core', 'core'], [1], ['']):
            self.assertEqual(
                corpus.case_problems(good_case('a1b2', seriesFamilies=bad)),
                ['seriesFamilies is not a sorted list of family names'], bad)
        self.assertEqual(corpus.case_problems(good_case('a1b2')), [])

    def test_required_fields(self):
        case = good_case('a1b2')
        del case['teardown'], case['plugins']
        self.write('x/a.json', [case])
        text = '\n'.join(self.problems())
        self.assertIn('no teardown', text)
        self.assertIn('no plugins', text)

    def test_bad_json_file(self):
        self.write('x/a.json', '[{"id": ')
        count, bad, problems = corpus.check_tree(self.root)
        self.assertEqual((count, bad), (1, 1))

    def test_misspelt_key_fails_the_program(self):
        case = good_case('a1b2', matchPatern='x')
        del case['matchPattern'], case['matchCount']
        self.write('x/a.json', [case])
        proc = self.run_program('--min-flower', '0', '--min-packets', '0')
        self.assertEqual(proc.returncode, 1)
        self.assertIn("unknown key 'matchPatern'", proc.stdout)
        self.assertIn('nothing would be verified', proc.stdout)

    def test_scapy_requires_plugin(self):
        self.write('x/a.json', [good_case('a1b2', scapy={
            'iface': '$DEV0', 'count': 1, 'packet': 'Ether()'})])
        self.assertIn('scapyPlugin', self.problems()[0])


class TestCaseProblems(unittest.TestCase):
    def test_runner_level_checks(self):
        self.assertEqual(corpus.case_problems(good_case('a1b2')), [])
        self.assertTrue(corpus.case_problems({'id': 'x'}))
        self.assertTrue(corpus.case_problems(good_case(
            'a1b2', setup=[['cmd', 'notanint']])))
        self.assertTrue(corpus.case_problems(good_case(
            'a1b2', verifyCmd='', matchPattern='x')))
        self.assertTrue(corpus.case_problems(good_case(
            'a1b2', matchPattern='(')))
        self.assertTrue(corpus.case_problems(good_case(
            'a1b2', scapy=[{'iface': 'x'}])))

    def test_unknown_keys_are_refused(self):
        problems = corpus.case_problems(good_case('a1b2', matchPatern='x'))
        self.assertIn("unknown key 'matchPatern'", problems)
        # upstream's comment keys are fine
        self.assertEqual(corpus.case_problems(good_case(
            'a1b2', __comment='why')), [])

    def test_verify_without_a_match_is_refused(self):
        case = good_case('a1b2')
        del case['matchPattern'], case['matchCount']
        self.assertTrue(any('nothing would be verified' in p
                            for p in corpus.case_problems(case)))
        case['matchJSON'] = []
        self.assertEqual(corpus.case_problems(case), [])

    def test_upstream_cases_are_runnable(self):
        # every upstream 6.1 case, where the tree is at hand
        for tree in ('build/src/pristine', '/tmp/ref/linux-source-6.1'):
            root = os.path.join(os.path.dirname(TDC_DIR), tree,
                                'tools/testing/selftests/tc-testing/tc-tests')
            if os.path.isdir(root):
                break
        else:
            self.skipTest('no 6.1 tree with tc-testing')
        for path in corpus.case_files([root]):
            for case in corpus.load_file(path):
                self.assertEqual(corpus.case_problems(case), [],
                                 (path, case.get('id')))


SCAPY = {'iface': '$DEV0', 'count': 1, 'packet': 'Ether()'}


def packet_case(cid, **fields):
    """A case that sends a frame and checks counters."""
    return good_case(cid, plugins={'requires': ['nsPlugin', 'scapyPlugin']},
                     scapy=[dict(SCAPY)], **fields)


def json_verify(match_json):
    """The verify fields of a tc -s -j dump checked by matchJSON."""
    return dict(verifyCmd='$TC -s -j filter show dev $DEV1 ingress',
                matchJSON=match_json,
                matchPattern=jsonpattern.pattern(match_json, False, 'tc'),
                matchCount='1')


def stats(*packets):
    return [{'kind': 'flower'}] + [
        {'options': {'handle': n + 1, 'actions': [{'stats': {
            'packets': p}}]}} for n, p in enumerate(packets)]


class TestPositiveControl(unittest.TestCase):
    """A packet case must expect some frame counted: one whose every
    count is 0 passes on a flower that never matches (the reviewer's
    582f, 49ea, 0438, 6616, d23e, 278e, 4d25).  Today's checker passed
    them all."""

    def problems(self, *cases):
        with tempfile.TemporaryDirectory() as root:
            path = os.path.join(root, 'filters', 'flower', 'a.json')
            os.makedirs(os.path.dirname(path))
            with open(path, 'w') as f:
                json.dump(list(cases), f)
            return corpus.check_tree(root)[2]

    def test_zero_counts_in_json_are_refused(self):
        problems = self.problems(packet_case('a1b2', **json_verify(
            stats(0, 0))))
        self.assertEqual(len(problems), 1, problems)
        self.assertIn('filters/flower/a.json: a1b2: ', problems[0])
        self.assertIn('every packet count its verify checks is 0',
                      problems[0])
        self.assertIn('positive control', problems[0])

    def test_zero_counts_of_a_class_are_refused(self):
        # 278e as it was: "Sent 0 bytes 0 pkt" on the class
        problems = self.problems(packet_case(
            'a1b2', verifyCmd='$TC -s class show dev fla',
            matchPattern='^class htb 1:20 [^\\n]*\\n Sent 0 bytes 0 pkt ',
            matchCount='1'))
        self.assertEqual(len(problems), 1, problems)
        self.assertIn('a1b2', problems[0])
        self.assertIn('positive control', problems[0])

    def test_a_frame_counted_anywhere_is_a_positive_control(self):
        self.assertEqual(self.problems(
            packet_case('a1b2', **json_verify(stats(0, 2))),
            packet_case('a1b3', verifyCmd='$TC -s class show dev fla',
                        matchPattern='\\A(?=.*?^class htb 1:20 [^\\n]*\\n '
                                     'Sent 0 bytes 0 pkt )(?=.*?^class htb '
                                     '1:30 [^\\n]*\\n Sent 84 bytes 2 pkt )',
                        matchCount='1'),
            # 3e9a: the bytes left open, the packets not
            packet_case('a1b4', verifyCmd='$TC -s filter show dev $DEV1 '
                        'ingress', matchPattern='Sent [0-9]+ bytes 2 pkt',
                        matchCount='1')), [])

    def test_a_count_the_pattern_leaves_open_is_no_control(self):
        problems = self.problems(packet_case(
            'a1b2', verifyCmd='$TC -s filter show dev $DEV1 ingress',
            matchPattern='Sent [0-9]+ bytes [0-9]+ pkt', matchCount='1'))
        self.assertEqual(len(problems), 1, problems)

    def test_a_pattern_that_must_not_match_is_no_control(self):
        # matchCount 0: "1 pkt" must be absent, which a flower that never
        # matches satisfies
        problems = self.problems(packet_case(
            'a1b2', verifyCmd='$TC -s filter show dev $DEV1 ingress',
            matchPattern='Sent 42 bytes 1 pkt', matchCount='0'))
        self.assertEqual(len(problems), 1, problems)
        self.assertIn('checks no packet count', problems[0])

    def test_a_packet_case_that_checks_no_count_is_refused(self):
        problems = self.problems(packet_case(
            'a1b2', verifyCmd='$TC filter show dev $DEV1 ingress',
            matchPattern='handle 0x1', matchCount='1'))
        self.assertEqual(len(problems), 1, problems)
        self.assertIn('a1b2: sends frames but its verify checks no packet '
                      'count', problems[0])

    def test_zero_counts_without_frames_are_fine(self):
        self.assertEqual(self.problems(good_case('a1b2', **json_verify(
            stats(0)))), [])

    def test_the_program_fails_and_names_the_case(self):
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, 'x'))
            with open(os.path.join(root, 'x', 'a.json'), 'w') as f:
                json.dump([packet_case('a1b2', **json_verify(stats(0)))], f)
            proc = subprocess.run(
                ['/usr/bin/python3', '-m', 'lint.corpus', '--min-flower', '0',
                 '--min-packets', '0', root], cwd=REPO, capture_output=True,
                text=True)
        self.assertEqual(proc.returncode, 1)
        self.assertIn('x/a.json: a1b2: sends frames but every packet count',
                      proc.stdout)


class TestHiddenExitStatus(unittest.TestCase):
    """A $TC or $FLNL command piped into another program: the pipeline's
    exit status is the last program's, so a tc that failed passes (ad6a:
    `$TC actions list action gact | wc -l` matching 0 or 1 lines).
    Today's checker passed it."""

    def problems(self, case):
        return corpus.strict_case_problems(case, os.path.join(
            'filters', 'flower', 'a.json'))

    def test_piped_tc_in_the_verify_is_refused(self):
        problems = self.problems(good_case(
            'a1b2', verifyCmd='$TC actions list action gact | wc -l',
            matchPattern='\\A\\s*[01]\\s*\\Z', matchCount='1'))
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("verifyCmd '$TC actions list action gact | wc -l': a "
                      'pipe hides the exit status of $TC', problems[0])
        self.assertIn('exitHiddenByPipe', problems[0])

    def test_piped_flnl_in_the_command_is_refused(self):
        # 25cd as it was
        problems = self.problems(good_case(
            'a1b2', cmdUnderTest='$FLNL add --dev $DEV1 2>&1 | grep -c '
            '"^RTNETLINK answers: Invalid argument"',
            category=['filter', 'flower', 'flowernl']))
        self.assertEqual(len(problems), 1, problems)
        self.assertIn('cmdUnderTest', problems[0])
        self.assertIn('exit status of $FLNL', problems[0])

    def test_piped_tc_in_the_setup_is_refused(self):
        problems = self.problems(good_case(
            'a1b2', setup=['$TC qdisc show dev $DEV1 | grep -q ingress']))
        self.assertEqual(len(problems), 1, problems)

    def test_what_hides_nothing_is_fine(self):
        for fields in (
                dict(verifyCmd='$TC -j actions list action gact',
                     matchJSON=[], matchJSONExact=True,
                     matchPattern='\\A\\[\\]\\s*\\Z', matchCount='1'),
                dict(verifyCmd='$TC -force -b $BATCH_FILE 2>&1'),
                dict(verifyCmd='$IP -o link show up | grep -c -e $DEV1'),
                dict(cmdUnderTest="awk 'BEGIN { print 1 }' > $BATCH_FILE")):
            self.assertEqual(self.problems(good_case('a1b2', **fields)), [],
                             fields)

    def test_a_declared_pipe_is_fine(self):
        case = good_case(
            'a1b2', cmdUnderTest="$TC filter add dev $DEV1 ingress flower "
            "2>&1 | grep -cF 'Warning: x.'",
            exitHiddenByPipe='only an accepted request prints the warning')
        self.assertEqual(self.problems(case), [])
        # and the runners of 6.1 and upstream ignore the field
        self.assertEqual(corpus.sixone_problems(case), [])
        self.assertEqual(corpus.upstream_problems(case), [])

    def test_a_declaration_needs_a_reason_and_a_pipe(self):
        self.assertIn('exitHiddenByPipe is not a reason (a non-empty '
                      'string)', corpus.case_problems(good_case(
                          'a1b2', cmdUnderTest='$TC -V | grep x',
                          exitHiddenByPipe=' ')))
        problems = self.problems(good_case('a1b2', exitHiddenByPipe='why'))
        self.assertEqual(len(problems), 1, problems)
        self.assertIn('declares exitHiddenByPipe but pipes no $TC or $FLNL '
                      'command', problems[0])


class TestPrintsJson(unittest.TestCase):
    def test_the_last_command_of_a_pipeline_counts(self):
        self.assertTrue(corpus.prints_json('$TC -j filter show dev $DEV1 ingress'))
        self.assertTrue(corpus.prints_json('$FLNL show --dev $DEV1'))
        self.assertTrue(corpus.prints_json('$TC filter show dev $DEV1 | $TC -j qdisc show'))
        self.assertFalse(corpus.prints_json(
            "$FLNL show --dev $DEV1 | grep -o 'TCA_[A-Z_]*' | tr '\\n' ' '"))
        self.assertFalse(corpus.prints_json('$TC -j filter show dev $DEV1 | grep -c handle'))
        self.assertFalse(corpus.prints_json('$TC filter show dev $DEV1'))


if __name__ == '__main__':
    unittest.main()
