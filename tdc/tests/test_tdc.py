# SPDX-License-Identifier: GPL-2.0
"""Host-side tests of tdc.py with fake commands (true, false, echo): no
tc, no namespaces.  What needs those runs in the guest flower suite."""

import argparse
import json
import os
import subprocess
import tempfile
import time
import unittest
from xml.etree import ElementTree

from plugins.TdcPlugin import SkipCase, TdcPlugin
from tdc import tdc

HERE = os.path.dirname(os.path.realpath(__file__))
TDC_DIR = os.path.dirname(HERE)
REPO = os.path.dirname(TDC_DIR)

PYTHON = '/usr/bin/python3'
TDC = [PYTHON, '-m', 'tdc.tdc']          # from REPO


def case(cid, **fields):
    base = {'id': cid, 'name': 'case ' + cid, 'category': ['t'],
            'setup': [], 'cmdUnderTest': 'true', 'expExitCode': '0',
            'teardown': []}
    base.update(fields)
    return base


class CaseDir:
    """A temporary <dir>/tc-tests/t.json holding the given cases."""

    def __init__(self, cases):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        os.mkdir(os.path.join(self.root, 'tc-tests'))
        self.path = os.path.join(self.root, 'tc-tests', 't.json')
        with open(self.path, 'w') as f:
            json.dump(cases, f)

    def run_tdc(self, *options):
        return subprocess.run(TDC + ['-f', self.path] + list(options),
                              cwd=REPO, capture_output=True, text=True,
                              timeout=60)

    def file(self, name):
        return os.path.join(self.root, name)

    def close(self):
        self.tmp.cleanup()


def run_in_process(cases, plugins=(), timeout=10):
    """Run cases with tdc.Runner; returns (counts, TAP lines)."""
    with tempfile.TemporaryDirectory() as tmp:
        os.mkdir(os.path.join(tmp, 'tc-tests'))
        path = os.path.join(tmp, 'tc-tests', 't.json')
        args = argparse.Namespace(verbose=0, timeout=timeout, tap=None)
        runner = tdc.Runner(args)
        for plugin in plugins:
            runner.plugins.loaded[type(plugin).__name__] = plugin
            plugin.runner = runner
        lines = []
        runner.emit = lines.append
        entries = [(c, path, tdc.corpus.case_problems(c)) for c in cases]
        return runner.run(entries), lines


class TestSubstitution(unittest.TestCase):
    def test_upstream_names(self):
        names = tdc.case_names(case('ab12'), 60)
        self.assertEqual(names['TESTID'], 'ab12')
        self.assertTrue(names['BATCH_FILE'].startswith('/tmp/'))
        self.assertTrue(names['BATCH_DIR'].startswith('/tmp/'))
        self.assertEqual(names['DEV2'], '')
        self.assertIn(' /usr/bin/python3 -P -m tdc.flowernl', names['FLNL'])
        self.assertIn('PYTHONPATH=' + REPO + ' ', names['FLNL'])
        self.assertEqual(tdc.substitute('$TC -b $BATCH_FILE ${DEV1}x $NOPE',
                                        names),
                         '{} -b {} v0p1x $NOPE'.format(
                             names['TC'], names['BATCH_FILE']))

    def test_referenced_names(self):
        self.assertEqual(tdc.referenced_names('$TC qdisc add dev ${DEV2} x'),
                         {'TC', 'DEV2'})

    def test_command_and_codes(self):
        self.assertEqual(tdc.command_and_codes('true'), ('true', [0]))
        self.assertEqual(tdc.command_and_codes(['x', 1, '2', 255]),
                         ('x', [1, 2, 255]))

    def test_tc_root(self):
        self.assertEqual(tdc.tc_root('/a/b/tc-tests/filters/x.json'), '/a/b')


class TestMatchJSON(unittest.TestCase):
    OUT = [{'kind': 'flower', 'options': {'keys': {'dst_ip': '10.0.0.1',
                                                   'ip_proto': 'tcp'},
                                          'actions': [{'order': 1},
                                                      {'order': 2}]}},
           {'kind': 'x'}]

    def match(self, expected):
        return tdc.json_mismatch(self.OUT, expected)

    def test_partial_dict_and_list_prefix_match(self):
        self.assertIsNone(self.match([{'options': {'keys':
                                                   {'dst_ip': '10.0.0.1'}}}]))
        self.assertIsNone(self.match([{'kind': 'flower'}, {'kind': 'x'}]))
        self.assertIsNone(self.match([{'options': {'actions': [{'order': 1}]
                                                   }}]))

    def test_mismatches(self):
        self.assertIn('expected 2', self.match([{'options': {'actions': [
            {'order': 2}]}}]))
        self.assertIn("no key 'nope'", self.match([{'nope': 1}]))
        self.assertIn('at least 3', self.match([{}, {}, {}]))
        self.assertIn('expected dict', self.match([{'kind': {'a': 1}}]))
        self.assertIn('expected dict', self.match({'kind': 'flower'}))
        self.assertIn('expected list', self.match([{'options': {'keys': []}}]))

    def test_empty_value_of_a_key_matches_only_empty(self):
        self.assertIsNotNone(tdc.json_mismatch({'a': [1]}, {'a': []}))
        self.assertIsNotNone(tdc.json_mismatch({'a': {'b': 1}}, {'a': {}}))
        self.assertIsNone(tdc.json_mismatch({'a': []}, {'a': []}))

    def test_empty_element_is_a_placeholder(self):
        self.assertIsNone(self.match([{}, {'kind': 'x'}]))
        self.assertIsNone(self.match([]))          # as upstream: vacuous

    def test_list_is_positional(self):
        # upstream compares element i with element i, not "any element"
        self.assertIsNotNone(self.match([{'kind': 'x'}]))


class TestVerify(unittest.TestCase):
    def outcome(self, out, code=0, err=''):
        return tdc.Outcome('cmd', code, out, err)

    def test_match_count_defaults_to_one(self):
        tdc.verify({'matchPattern': 'a+'}, self.outcome('xaax'))
        with self.assertRaises(tdc.CaseFailed):
            tdc.verify({'matchPattern': 'a'}, self.outcome('a a'))
        tdc.verify({'matchPattern': 'a', 'matchCount': '2'},
                   self.outcome('a a'))
        tdc.verify({'matchPattern': 'zz', 'matchCount': 0},
                   self.outcome(''))

    def test_failing_verify_sees_stderr_like_upstream(self):
        tdc.verify({'matchPattern': 'Error: bad'},
                   self.outcome('', code=2, err='Error: bad'))

    def test_match_json_needs_json(self):
        with self.assertRaises(tdc.CaseFailed) as cm:
            tdc.verify({'matchJSON': []}, self.outcome('not json'))
        self.assertIn('not JSON', '\n'.join(cm.exception.lines))


class TestBothMatches(unittest.TestCase):
    """A case carries matchPattern beside matchJSON for 6.1's tdc.py,
    which reads only the pattern: ours checks both, so a pattern that
    checks something else fails here too (it used to be ignored)."""

    def outcome(self, out):
        return tdc.Outcome('cmd', 0, out, '')

    def test_a_wrong_pattern_fails_although_the_json_matches(self):
        case_ = {'matchJSON': [{'a': 1}], 'matchPattern': r'"a":2',
                 'matchCount': '1'}
        with self.assertRaises(tdc.CaseFailed) as cm:
            tdc.verify(case_, self.outcome('[{"a":1}]'))
        self.assertIn('0 matches, expected 1 (matchJSON matched)',
                      '\n'.join(cm.exception.lines))

    def test_a_wrong_json_fails_although_the_pattern_matches(self):
        case_ = {'matchJSON': [{'a': 2}], 'matchPattern': r'"a":1',
                 'matchCount': '1'}
        with self.assertRaises(tdc.CaseFailed) as cm:
            tdc.verify(case_, self.outcome('[{"a":1}]'))
        self.assertIn('matchJSON: $[0].a', '\n'.join(cm.exception.lines))

    def test_both_right_passes(self):
        tdc.verify({'matchJSON': [{'a': 1}], 'matchPattern': r'"a":1\b',
                    'matchCount': '1'}, self.outcome('[{"a":1}]'))

    def test_a_long_pattern_is_shortened_in_the_report(self):
        case_ = {'matchPattern': 'x' * 1000, 'matchCount': '1'}
        with self.assertRaises(tdc.CaseFailed) as cm:
            tdc.verify(case_, self.outcome('y'))
        self.assertLess(len(cm.exception.lines[0]), 400)


class TestExactJSON(unittest.TestCase):
    def outcome(self, out):
        return tdc.Outcome('cmd', 0, out, '')

    def test_exact_needs_equality(self):
        case_ = {'matchJSON': [{'a': 1}], 'matchJSONExact': True}
        tdc.verify(case_, self.outcome('[{"a": 1}]'))
        for out, where in (('[{"a": 1, "b": 2}]', "$[0]: key 'b'"),
                           ('[{"a": 1}, {}]', '$: 2 elements, expected 1'),
                           ('[{"a": 2}]', '$[0].a: expected 1, got 2'),
                           ('[{"a": true}]', '$[0].a: expected 1, got true')):
            with self.assertRaises(tdc.CaseFailed) as cm:
                tdc.verify(case_, self.outcome(out))
            self.assertIn(where, '\n'.join(cm.exception.lines))

    def test_without_the_flag_more_is_fine(self):
        tdc.verify({'matchJSON': [{'a': 1}]},
                   self.outcome('[{"a": 1, "b": 2}, {}]'))

    def test_key_order_does_not_matter(self):
        self.assertIsNone(tdc.json_difference({'b': 1, 'a': [2]},
                                              {'a': [2], 'b': 1}))


class TestSetupBatch(unittest.TestCase):
    def test_groups(self):
        groups = tdc.setup_groups(['a', ['b', 1], '$FLNL x', 'c',
                                   '$FLNL y', '$FLNL z'])
        self.assertEqual(groups, [[('a', [0]), ('b', [1])], [('$FLNL x', [0])],
                                  [('c', [0])], [('$FLNL y', [0])],
                                  [('$FLNL z', [0])]])

    def test_commands_share_one_shell_and_keep_their_codes(self):
        marker = tempfile.NamedTemporaryFile(delete=False)
        self.addCleanup(os.unlink, marker.name)
        counts, lines = run_in_process([case('0001', setup=[
            'echo one > ' + marker.name, ['false', 1], ['exit 3', 3, 4],
            'echo two >> ' + marker.name], cmdUnderTest='cat ' + marker.name,
            verifyCmd='cat ' + marker.name, matchPattern=r'\Aone\ntwo\n\Z')])
        self.assertEqual(counts['pass'], 1, lines)

    def test_the_failing_command_is_named(self):
        counts, lines = run_in_process([case('0001', setup=[
            'echo before', 'echo oops >&2; false', 'echo never'],
            teardown=['true'])])
        self.assertEqual(counts['fail'], 1)
        self.assertIn('# stage: setup', lines)
        self.assertIn('# exit code 1, allowed [0] (after 1 setup command(s) '
                      'in the same shell)', lines)
        self.assertIn('# command: echo oops >&2; false', lines)
        self.assertIn('#   oops', lines)
        self.assertFalse(any('never' in line for line in lines[:-1]), lines)
        self.assertFalse(any(tdc.BATCH_MARK in line for line in lines), lines)

    def test_a_shell_error_fails_the_batch(self):
        counts, lines = run_in_process([case('0001', setup=[
            'true', 'echo "unclosed'])])
        self.assertEqual(counts['fail'], 1)
        self.assertIn('# stage: setup', lines)


class Recorder(TdcPlugin):
    """Records hook calls; optionally skips or fails in a hook."""

    def __init__(self, skip_in=None, fail_in=None):
        super().__init__(None)
        self.calls = []
        self.skip_in, self.fail_in = skip_in, fail_in

    def _hook(self, name):
        self.calls.append(name)
        if name == self.skip_in:
            raise SkipCase('skipped by ' + name)
        if name == self.fail_in:
            raise RuntimeError('broken ' + name)

    def pre_suite(self, cases):
        self._hook('pre_suite')

    def pre_case(self, case, names):
        names['DEV2'] = 'fakedev'
        self._hook('pre_case')

    def adjust_command(self, stage, command):
        self.calls.append('adjust ' + stage)
        return command.replace('@@', '')

    def post_execute(self, case, names):
        self._hook('post_execute')

    def post_case(self, case, names):
        self._hook('post_case')

    def post_suite(self):
        self._hook('post_suite')


class TestRunnerInProcess(unittest.TestCase):
    def test_hook_order(self):
        plugin = Recorder()
        counts, _ = run_in_process([case('0001', setup=['true'],
                                         verifyCmd='echo x@@',
                                         matchPattern='^x$',
                                         teardown=['true'])], [plugin])
        self.assertEqual(counts, {'pass': 1, 'fail': 0, 'skip': 0})
        self.assertEqual(plugin.calls, [
            'pre_suite', 'pre_case', 'adjust setup', 'adjust execute',
            'post_execute', 'adjust verify', 'adjust teardown', 'post_case',
            'post_suite'])

    def test_plugin_provides_dev2(self):
        counts, lines = run_in_process(
            [case('0001', cmdUnderTest='test "$DEV2" = fakedev')], [Recorder()])
        self.assertEqual(counts['pass'], 1, lines)

    def test_skip_from_pre_case_still_cleans_up(self):
        plugin = Recorder(skip_in='pre_case')
        counts, lines = run_in_process([case('0001')], [plugin])
        self.assertEqual(counts['skip'], 1)
        self.assertIn('ok 1 - 0001 case 0001 # skip skipped by pre_case',
                      lines)
        self.assertIn('post_case', plugin.calls)

    def test_post_execute_error_fails_and_tears_down(self):
        plugin = Recorder(fail_in='post_execute')
        counts, lines = run_in_process(
            [case('0001', teardown=['true'])], [plugin])
        self.assertEqual(counts['fail'], 1)
        self.assertIn('# stage: post_execute', lines)
        self.assertIn('adjust teardown', plugin.calls)

    def test_post_case_error_fails_the_case(self):
        counts, lines = run_in_process([case('0001')],
                                       [Recorder(fail_in='post_case')])
        self.assertEqual(counts['fail'], 1)
        self.assertIn('# stage: post_case', lines)

    def test_timeout(self):
        counts, lines = run_in_process(
            [case('0001', cmdUnderTest='sleep 10', timeout=0.3)])
        self.assertEqual(counts['fail'], 1)
        self.assertTrue(any('timed out' in line for line in lines), lines)


class nsPlugin(TdcPlugin):
    """Stands for plugins/nsPlugin.py (whose presence lets -J run cases
    concurrently) without making namespaces."""


class TestParallel(unittest.TestCase):
    def run_jobs(self, cases, jobs):
        with tempfile.TemporaryDirectory() as tmp:
            os.mkdir(os.path.join(tmp, 'tc-tests'))
            path = os.path.join(tmp, 'tc-tests', 't.json')
            args = argparse.Namespace(verbose=1, timeout=10, tap=None,
                                      jobs=jobs)
            runner = tdc.Runner(args)
            runner.plugins.loaded['nsPlugin'] = nsPlugin(runner)
            lines = []
            runner.emit = lines.append
            entries = [(c, path, tdc.corpus.case_problems(c)) for c in cases]
            start = time.monotonic()
            counts = runner.run(entries)
            return counts, lines, time.monotonic() - start

    def test_cases_run_concurrently_and_report_in_order(self):
        # the later cases finish first; the report keeps case order
        cases = [case('000%d' % n, cmdUnderTest='sleep %s' % delay,
                      verifyCmd='echo $TESTID', matchPattern='^000%d$' % n)
                 for n, delay in ((1, 1.5), (2, 1.0), (3, 0.5), (4, 0.1))]
        cases.append(case('0005', cmdUnderTest='false'))
        counts, lines, seconds = self.run_jobs(cases, 4)
        self.assertEqual(counts, {'pass': 4, 'fail': 1, 'skip': 0})
        results = [line for line in lines if line.startswith(('ok', 'not'))]
        self.assertEqual(results, ['ok 1 - 0001 case 0001',
                                   'ok 2 - 0002 case 0002',
                                   'ok 3 - 0003 case 0003',
                                   'ok 4 - 0004 case 0004',
                                   'not ok 5 - 0005 case 0005'])
        self.assertLess(seconds, 2.9)        # serial: 3.1 s of sleeps
        # a case's -v comments come right before its result line
        index = lines.index('ok 1 - 0001 case 0001')
        self.assertEqual(lines[index - 1], '# verify: echo 0001')

    def test_serial_without_nsplugin(self):
        with tempfile.TemporaryDirectory() as tmp:
            args = argparse.Namespace(verbose=0, timeout=10, tap=None,
                                      jobs=4)
            runner = tdc.Runner(args)
            runner.emit = lambda line: None
            path = os.path.join(tmp, 't.json')
            start = time.monotonic()
            runner.run([(case(c, cmdUnderTest='sleep 0.4'), path, [])
                        for c in ('0001', '0002', '0003')])
            self.assertGreater(time.monotonic() - start, 1.1)


class TestShard(unittest.TestCase):
    def test_shards_split_the_cases_exactly_once(self):
        cases = [case('%04x' % n) for n in range(0, 65536, 97)]
        for count in (1, 2, 3, 5):
            shards = [[c['id'] for c in cases
                       if tdc.shard_of(c, count) == k]
                      for k in range(1, count + 1)]
            together = sorted(i for shard in shards for i in shard)
            self.assertEqual(together, sorted(c['id'] for c in cases))
            if count > 1:
                self.assertTrue(all(shards), count)  # none empty here
        self.assertEqual(tdc.parse_shard('2/3'), (2, 3))
        for bad in ('0/3', '4/3', 'x', '1'):
            with self.assertRaises(argparse.ArgumentTypeError):
                tdc.parse_shard(bad)


class TestTdcProgram(unittest.TestCase):
    """tdc.py as a program on temporary case files."""

    def run_cases(self, cases, *options):
        self.dir = CaseDir(cases)
        self.addCleanup(self.dir.close)
        return self.dir.run_tdc(*options)

    def test_failing_case_exits_1_with_summary(self):
        # the proof that a failing case fails `make test`
        proc = self.run_cases([case('0001'),
                               case('0002', cmdUnderTest='false')])
        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        lines = proc.stdout.splitlines()
        self.assertEqual(lines[-1], '1 passed, 1 failed, 0 skipped')
        self.assertIn('ok 1 - 0001 case 0001', lines)
        self.assertIn('not ok 2 - 0002 case 0002', lines)
        self.assertIn('# stage: execute', lines)
        self.assertIn('# command: false', lines)
        self.assertIn('# exit code 1, expected 0', lines)

    def test_all_pass_exits_0(self):
        proc = self.run_cases([case('0001'), case('0002', skip='yes')])
        self.assertEqual(proc.returncode, 0, proc.stdout)
        self.assertEqual(proc.stdout.splitlines()[-1],
                         '1 passed, 0 failed, 1 skipped')
        self.assertIn('1..2', proc.stdout.splitlines())

    def test_setup_failure_runs_teardown_and_next_case(self):
        proc = self.run_cases([
            case('0001', setup=['echo broken >&2; exit 3'],
                 cmdUnderTest='touch should-not-exist',
                 teardown=['echo torn > torn-down']),
            case('0002', setup=['test -e torn-down']),
        ])
        lines = proc.stdout.splitlines()
        self.assertIn('not ok 1 - 0001 case 0001', lines)
        self.assertIn('# stage: setup', lines)
        self.assertIn('# exit code 3, allowed [0]', lines)
        self.assertIn('#   broken', lines)
        self.assertIn('ok 2 - 0002 case 0002', lines)
        self.assertFalse(os.path.exists(self.dir.file('should-not-exist')))

    def test_allowed_exit_codes(self):
        proc = self.run_cases([
            case('0001', setup=[['exit 2', 0, 2]], teardown=[['false', 1]]),
            case('0002', teardown=[['exit 2', 0, 1]]),
        ])
        lines = proc.stdout.splitlines()
        self.assertIn('ok 1 - 0001 case 0001', lines)
        self.assertIn('not ok 2 - 0002 case 0002', lines)
        self.assertIn('# stage: teardown', lines)

    def test_exp_exit_code_and_pattern(self):
        proc = self.run_cases([
            case('0001', cmdUnderTest='exit 2', expExitCode='2',
                 verifyCmd='echo one; echo one', matchPattern='one',
                 matchCount='2'),
            case('0002', verifyCmd='echo one', matchPattern='two'),
        ])
        lines = proc.stdout.splitlines()
        self.assertIn('ok 1 - 0001 case 0001', lines)
        self.assertIn('not ok 2 - 0002 case 0002', lines)
        self.assertIn('# stage: verify', lines)

    def test_match_json(self):
        out = json.dumps([{'kind': 'flower', 'options': {'handle': 1}}])
        proc = self.run_cases([
            case('0001', verifyCmd="echo '{}'".format(out),
                 matchJSON=[{'options': {'handle': 1}}]),
            case('0002', verifyCmd="echo '{}'".format(out),
                 matchJSON=[{'options': {'handle': 2}}]),
        ])
        lines = proc.stdout.splitlines()
        self.assertIn('ok 1 - 0001 case 0001', lines)
        self.assertIn('not ok 2 - 0002 case 0002', lines)

    def test_variables_in_commands(self):
        proc = self.run_cases([case(
            '00a1', cmdUnderTest='test "$TESTID" = 00a1 && '
            'test "$BATCH_FILE" = /tmp/tdc-00a1-batch.txt')])
        self.assertEqual(proc.returncode, 0, proc.stdout)

    def test_skips_are_not_passes(self):
        proc = self.run_cases([
            case('0001', skip='yes'),
            case('0002', plugins={'requires': 'noSuchPlugin'}),
            case('0003', cmdUnderTest='$TC qdisc add dev $DEV2 ingress'),
            case('0004', dependsOn='false'),
        ], '--lenient')
        lines = proc.stdout.splitlines()
        self.assertEqual(lines[-1], '0 passed, 0 failed, 4 skipped')
        self.assertEqual(proc.returncode, 0)
        for number in range(1, 5):
            self.assertTrue(any(line.startswith('ok {} - '.format(number))
                                and '# skip ' in line for line in lines),
                            lines)

    def test_duplicate_id_and_bad_case_fail(self):
        proc = self.run_cases([case('0001'), case('0001'),
                               {'id': '0003', 'name': 'no command'}])
        lines = proc.stdout.splitlines()
        self.assertEqual(lines[-1], '1 passed, 2 failed, 0 skipped')
        self.assertIn('# duplicate id (also in {})'.format(self.dir.path),
                      lines)
        self.assertEqual(proc.returncode, 1)

    def test_selection_and_list(self):
        proc = self.run_cases([case('0001', category=['a']),
                               case('0002', category=['b']),
                               case('0003', category=['c'])],
                              '-c', 'a', '-e', '0003', '-l')
        self.assertEqual([line.split()[0] for line in
                          proc.stdout.splitlines()], ['0001', '0003'])

    def test_tap_file(self):
        proc = self.run_cases([case('0001')], '--tap', '/dev/null')
        self.assertEqual(proc.returncode, 0)
        tap = os.path.join(self.dir.root, 'out.tap')
        self.dir.run_tdc('--tap', tap)
        with open(tap) as f:
            self.assertEqual(f.read().splitlines()[-1],
                             '1 passed, 0 failed, 0 skipped')

    def test_no_cases_is_not_success(self):
        proc = self.run_cases([case('0001')], '-e', 'ffff')
        self.assertEqual(proc.returncode, 4)
        self.assertEqual(proc.stdout.splitlines()[-1],
                         '0 passed, 0 failed, 0 skipped')

    def test_misspelt_key_fails_instead_of_running_unverified(self):
        proc = self.run_cases([case('0001', verifyCmd='echo one',
                                    matchPatern='two')])
        lines = proc.stdout.splitlines()
        self.assertEqual(proc.returncode, 1, proc.stdout)
        self.assertIn('not ok 1 - 0001 case 0001', lines)
        self.assertIn("# unknown key 'matchPatern'", lines)

    def test_undeclared_skip_fails_by_default(self):
        # the plain command line (make run, a person) is strict too
        proc = self.run_cases([
            case('0001', plugins={'requires': 'noSuchPlugin'})])
        self.assertEqual(proc.stdout.splitlines()[-1],
                         '0 passed, 1 failed, 0 skipped')
        self.assertEqual(proc.returncode, 1)

    def test_strict_fails_undeclared_skips_only(self):
        proc = self.run_cases([
            case('0001', skip='yes'),
            case('0002', dependsOn='false'),
            case('0003', plugins={'requires': 'noSuchPlugin'}),
            case('0004', cmdUnderTest='$TC qdisc add dev $DEV2 ingress'),
        ], '--strict')
        lines = proc.stdout.splitlines()
        self.assertEqual(lines[-1], '0 passed, 2 failed, 2 skipped')
        self.assertEqual(proc.returncode, 1)
        self.assertTrue(lines[2].startswith('ok 1 - 0001 case 0001 # skip'))
        self.assertTrue(lines[3].startswith('ok 2 - 0002 case 0002 # skip '
                                            'dependsOn'))
        self.assertIn('not ok 3 - 0003 case 0003', lines)
        self.assertIn('not ok 4 - 0004 case 0004', lines)
        self.assertIn('# stage: skip', lines)

    def test_fill_in_ids(self):
        self.dir = CaseDir([case('00aa'), case(''), {'name': 'new'}])
        self.addCleanup(self.dir.close)
        other = self.dir.file('tc-tests/u.json')
        with open(other, 'w') as f:
            json.dump([{'name': 'also new'}, case('00bb')], f)
        proc = subprocess.run(TDC + ['-i', '-D', self.dir.file('tc-tests')],
                              cwd=REPO, capture_output=True, text=True,
                              timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        ids = []
        for path in (self.dir.path, other):
            with open(path) as f:
                cases = json.load(f)
            for c in cases:
                self.assertRegex(c['id'], r'^[0-9a-f]{4}$')
                self.assertEqual(list(c)[0], 'id')
            ids += [c['id'] for c in cases]
        self.assertEqual(ids[0], '00aa')
        self.assertEqual(ids[4], '00bb')
        self.assertEqual(len(set(ids)), 5)
        with open(other) as f:
            self.assertEqual(json.load(f)[0]['name'], 'also new')
        # the ids stay: a second run changes nothing
        with open(self.dir.path) as f:
            before = f.read()
        subprocess.run(TDC + ['-i', '-f', self.dir.path], cwd=REPO,
                       capture_output=True, timeout=60)
        with open(self.dir.path) as f:
            self.assertEqual(f.read(), before)

    def test_fill_in_ids_avoids_taken_ones(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, 't.json')
            with open(path, 'w') as f:
                json.dump([{'name': 'x'}], f)
            taken = {'%04x' % n for n in range(65536)} - {'beef'}
            tdc.fill_in_ids([path], taken)
            with open(path) as f:
                self.assertEqual(json.load(f)[0]['id'], 'beef')

    def test_xunit_file(self):
        out = None
        proc = self.run_cases([case('0001'),
                               case('0002', cmdUnderTest='false'),
                               case('0003', skip='yes')])
        out = self.dir.file('results.xml')
        proc = self.dir.run_tdc('--format', 'xunit', '-o', out)
        self.assertEqual(proc.returncode, 1)
        tree = ElementTree.parse(out)
        suite = tree.getroot().find('testsuite')
        self.assertEqual((suite.get('tests'), suite.get('failures'),
                          suite.get('skipped')), ('3', '1', '1'))
        tests = suite.findall('testcase')
        self.assertEqual([t.get('name') for t in tests],
                         ['0001: case 0001', '0002: case 0002',
                          '0003: case 0003'])
        self.assertIsNone(tests[0].find('failure'))
        self.assertIn('stage: execute', tests[1].find('failure').text)
        self.assertIsNotNone(tests[2].find('skipped'))
        # and TAP with -o in the default format
        proc = self.dir.run_tdc('-o', self.dir.file('r.tap'))
        with open(self.dir.file('r.tap')) as f:
            self.assertEqual(f.read().splitlines()[-1],
                             '1 passed, 1 failed, 1 skipped')

    def test_show_prints_the_selected_cases(self):
        proc = self.run_cases([case('0001'), case('0002')], '-s', '-e',
                              '0002')
        self.assertEqual(json.loads(proc.stdout), [case('0002')])

    def test_path_of_tc_and_device(self):
        proc = self.run_cases([case(
            '0001', cmdUnderTest='test "$TC" = /bin/echo -a "$DEV2" = eth9')],
            '-p', '/bin/echo', '-d', 'eth9')
        self.assertEqual(proc.returncode, 0, proc.stdout)
        proc = self.dir.run_tdc('-d', 'eth9', '-J', '2')
        self.assertEqual(proc.returncode, 2)        # refused

    def test_the_file_runs_as_the_module(self):
        # upstream users run ./tdc.py: tdc/tdc.py re-executes itself as
        # python3 -m tdc.tdc, from any directory
        self.dir = CaseDir([case('0001'), case('0002')])
        self.addCleanup(self.dir.close)
        proc = subprocess.run([PYTHON, os.path.join(TDC_DIR, 'tdc.py'), '-l',
                               '-f', self.dir.path], cwd=TDC_DIR,
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(len(proc.stdout.splitlines()), 2, proc.stdout)

    def test_scapy_case_without_scapy_skips(self):
        # python -S: no site-packages, so scapy cannot be imported
        self.dir = CaseDir([case('0001', scapy={'iface': 'lo', 'count': 1,
                                                'packet': 'Ether()'})])
        self.addCleanup(self.dir.close)
        proc = subprocess.run([PYTHON, '-S', '-m', 'tdc.tdc', '--lenient',
                               '-f', self.dir.path], cwd=REPO,
                              capture_output=True, text=True, timeout=60)
        lines = proc.stdout.splitlines()
        self.assertEqual(lines[-1], '0 passed, 0 failed, 1 skipped',
                         proc.stdout + proc.stderr)
        self.assertTrue(lines[-2].startswith('ok 1 - 0001 case 0001 # skip '
                                             'scapy unavailable'), lines)


if __name__ == '__main__':
    unittest.main()
