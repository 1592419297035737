# SPDX-License-Identifier: GPL-2.0
"""tdc/tdc61.py: the corpus under the tdc.py that linux-source-6.1
ships.  Its runner is faked here (no namespace, no kernel: a script in
the place of tools/testing/selftests/tc-testing/tdc.py that reports
fixed results in 6.1's TAP format); what is tested is how a run reads
them: a skip and a case never reported count as failed, the last line
is "N passed, N failed", and the scratch copy's tdc_config_local.py
defines FLNL for 6.1's tdc_config.py."""

import contextlib
import io
import json
import os
import subprocess
import tempfile
import textwrap
import unittest
from unittest import mock

from gate import gate
from tdc import commands, corpus, tdc61

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__))))
PRISTINE_RUNNER = os.path.join(REPO, 'build', 'src', 'pristine',
                               tdc61.RUNNER_DIR)

# 6.1's TdcResults.format_tap for: pass, fail (two lines of message),
# skip, and nothing more (the run died)
FAKE_TDC = textwrap.dedent('''\
    import json, sys
    args = sys.argv[1:]
    cases = json.load(open(args[args.index('-f') + 1]))
    out = args[args.index('--outfile') + 1]
    assert args[args.index('-d') + 1] == 'dummy0'
    assert args[args.index('-c') + 1] == 'flower'
    tap = '1..{}\\n'.format(len(cases))
    tap += 'ok 1 {} - {}\\n'.format(cases[0]['id'], cases[0]['name'])
    tap += 'not ok 2 {} - {}\\tCould not match regex pattern.\\n'.format(
        cases[1]['id'], cases[1]['name'])
    tap += 'ok 3 is not a result line\\n'
    tap += 'ok 3 {} - {} # skipped - previous setup failed\\n'.format(
        cases[2]['id'], cases[2]['name'])
    print('All test results: ')
    print(tap)
    if len(cases) > 3:
        raise SystemExit('KeyError: matchPattern')
    open(out, 'w').write(tap)
    ''')


def case(cid):
    return {'id': cid, 'name': 'case ' + cid, 'category': ['flower'],
            'timeout': 90}


class TestRun(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        self.tree = os.path.join(self.tmp, 'tree')
        runner = os.path.join(self.tree, tdc61.RUNNER_DIR)
        os.makedirs(os.path.join(runner, 'tc-tests'))
        with open(os.path.join(runner, 'tdc.py'), 'w') as f:
            f.write(FAKE_TDC)
        # nothing on this host's network: the guest's devices are faked
        patcher = mock.patch.object(tdc61, 'fresh_devices')
        self.fresh = patcher.start()
        self.addCleanup(patcher.stop)

    def write(self, name, cases):
        path = os.path.join(self.tmp, 'cases', name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            json.dump(cases, f)
        return path

    def run_files(self, *paths):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = tdc61.main(['run', '--tree', self.tree, '--out',
                               os.path.join(self.tmp, 'out')] +
                              list(paths))
        return code, out.getvalue().splitlines()

    def test_a_skip_and_a_case_never_reported_count_as_failed(self):
        a = self.write('a.json', [case('0001'), case('0002'), case('0003')])
        b = self.write('b.json', [case('0004'), case('0005'), case('0006'),
                                  case('0007')])
        code, lines = self.run_files(a, b)
        self.assertEqual(code, 1)
        self.assertEqual(lines[-1], '2 passed, 5 failed')
        self.assertIn('# 2 skipped, counted as failed', lines)
        self.assertIn('ok 1 - 0001 case 0001', lines)
        self.assertIn('not ok 2 - 0002 case 0002', lines)
        self.assertIn('not ok 3 - 0003 case 0003 (skipped)', lines)
        self.assertIn('# previous setup failed', lines)
        # b.json's run died before writing its TAP: read from its output
        self.assertIn('ok 4 - 0004 case 0004', lines)
        self.assertIn('not ok 7 - 0007 case 0007', lines)
        i = lines.index('not ok 7 - 0007 case 0007')
        self.assertIn('not reported by the runner (exit 1)', lines[i + 1])
        self.assertEqual(self.fresh.call_count, 2)   # before each file

    def test_results_file_and_scratch_config(self):
        a = self.write('a.json', [case('0001'), case('0002'), case('0003')])
        self.run_files(a)
        with open(os.path.join(self.tmp, 'out', 'results.json')) as f:
            data = json.load(f)
        self.assertEqual([r['status'] for r in data['results']],
                         ['pass', 'fail', 'skip'])
        self.assertEqual(data['timeout'], 90)   # the cases' largest
        self.assertIn(repr(commands.FLNL), data['config_local'])
        # the runner ran from a scratch copy, not from the tree
        with open(os.path.join(self.tmp, 'out', 'a.log')) as f:
            first = f.readline()
        self.assertNotIn(self.tree, first)
        self.assertIn('/tdc61-', first)

    def test_the_offload_driver_is_loaded_for_its_file_only(self):
        offload = dict(case('0001'), setup=[[corpus.OFFLOAD_LOAD, 0, 1]])
        a = self.write('a.json', [offload, case('0002'), case('0003')])
        b = self.write('b.json', [case('0004'), case('0005'), case('0006')])
        ran = []
        real_run, real_exists = subprocess.run, os.path.exists

        def run(argv, *args, **kwargs):
            if argv[0] in ('insmod', 'rmmod'):
                ran.append(argv)
                return subprocess.CompletedProcess(argv, 0, '', '')
            return real_run(argv, *args, **kwargs)
        with mock.patch.object(tdc61.subprocess, 'run', run), \
                mock.patch.object(tdc61.os.path, 'exists', lambda p: (
                    not p.startswith('/sys/module/') and real_exists(p))):
            code, lines = self.run_files(a, b)
        ko = os.path.join(REPO, corpus.OFFLOAD_KO)
        self.assertEqual(ran, [['insmod', ko],
                               ['rmmod', corpus.OFFLOAD_DRIVER]])
        self.assertIn('# {}: loaded the offload test driver: insmod {}'
                      .format(os.path.relpath(a, tdc61.REPO), ko), lines)

    def test_parse_tap(self):
        cases = [case('aa11'), case('bb22')]
        found = tdc61.parse_tap(
            '1..2\nnot ok 1 aa11 - x\tCould not match\nline two\n'
            'ok 2 bb22 - y # skipped - Test case designated as skipped.\n',
            cases)
        self.assertEqual(found['aa11'], ('fail', ['line two']))
        self.assertEqual(found['bb22'], ('skip', [
            'Test case designated as skipped.']))


class TestReport(unittest.TestCase):
    def results(self, statuses):
        return {'dev': 'dummy0', 'seconds': 60, 'commit': 'abc1234',
                'timeout': 60,
                'config_local': tdc61.config_local(60),
                'results': [{'id': cid, 'name': 'case ' + cid,
                             'file': 'tc-tests/filters/flower/a.json',
                             'status': status, 'reason': ['why ' + cid]}
                            for cid, status in statuses]}

    def test_stock_failures_are_set_against_the_declared_ones(self):
        with tempfile.NamedTemporaryFile('w', suffix='.md') as f:
            f.write('### dump: Dump differences\n\n| id | case | ours | '
                    'stock |\n|---|---|---|---|\n'
                    '| aa11 | x | pass | fail | verify | y |\n')
            f.flush()
            causes = tdc61.declared(f.name)
        self.assertEqual(causes, {'aa11': 'dump'})
        text = tdc61.report(
            self.results([('aa11', 'pass'), ('bb22', 'pass')]),
            self.results([('aa11', 'fail'), ('bb22', 'skip')]),
            '/nonexistent', causes)
        self.assertIn('Commit measured: ours `abc1234`; stock `abc1234`',
                      text)
        self.assertIn('| ours | 2 | 2 | 0 | 0 | 1 min |', text)
        self.assertIn('| stock | 2 | 0 | 1 | 1 | 1 min |', text)
        self.assertIn('1 of these 2 fail on stock under our tdc.py too', text)
        self.assertIn('Not there: bb22.', text)
        self.assertIn('| aa11 | a.json | case aa11 | fail | dump | why aa11 |',
                      text)

    def test_a_recheck_replaces_its_files_results_and_is_named(self):
        full = self.results([('aa11', 'pass'), ('bb22', 'fail')])
        full['results'][1]['file'] = 'tc-tests/filters/flower/b.json'
        again = self.results([('bb22', 'pass'), ('cc33', 'pass')])
        again['commit'] = 'def5678'
        for r in again['results']:
            r['file'] = 'tc-tests/filters/flower/b.json'
        merged = tdc61.with_recheck(full, again)
        self.assertEqual([(r['id'], r['status']) for r in merged['results']],
                         [('aa11', 'pass'), ('bb22', 'pass'),
                          ('cc33', 'pass')])
        self.assertEqual(merged['seconds'], 120)
        text = tdc61.report(merged, None, '/nonexistent')
        self.assertIn('Commit measured: ours `abc1234` (its files b.json '
                      'run again at `def5678`)', text)
        self.assertIn('| ours | 3 | 3 | 0 | 0 | 2 min |', text)

    def test_parts_of_one_run_merge_and_must_agree(self):
        a = self.results([('aa11', 'pass')])
        b = self.results([('bb22', 'fail')])
        b['seconds'] = 90
        b['results'][0]['file'] = 'tc-tests/filters/flower/b.json'
        merged = tdc61.merge_parts([a, b])
        self.assertEqual([r['id'] for r in merged['results']],
                         ['aa11', 'bb22'])
        self.assertEqual((merged['seconds'], merged['parts']), (90, 2))
        # parts whose cases ask for other limits ran with other configs
        b['config_local'] = tdc61.config_local(600)
        both = tdc61.merge_parts([a, b])['config_local']
        self.assertIn("'TIMEOUT': 60,", both)
        self.assertIn("'TIMEOUT': 600,", both)
        text = tdc61.report(merged, None, '/nonexistent')
        self.assertIn('| ours | 2 | 1 | 1 | 0 | 2 min |', text)
        self.assertIn('The files ran in 2 guests at once', text)
        b['commit'] = 'def5678'
        with self.assertRaisesRegex(ValueError, 'different commits'):
            tdc61.merge_parts([a, b])
        b['commit'] = a['commit']
        b['results'][0]['file'] = a['results'][0]['file']
        with self.assertRaisesRegex(ValueError, 'a file ran in two parts'):
            tdc61.merge_parts([a, b])

    def test_the_total_of_the_parts(self):
        a = self.results([('aa11', 'pass'), ('bb22', 'skip')])
        b = self.results([('cc33', 'pass')])
        b['results'][0]['file'] = 'tc-tests/filters/flower/b.json'
        with tempfile.TemporaryDirectory() as tmp:
            dirs = []
            for name, data in (('p1', a), ('p2', b)):
                dirs.append(os.path.join(tmp, name))
                os.makedirs(dirs[-1])
                with open(os.path.join(dirs[-1], 'results.json'), 'w') as f:
                    json.dump(data, f)
                with open(os.path.join(dirs[-1], 'commit'), 'w') as f:
                    f.write('abc1234\n')
            dead = os.path.join(tmp, 'p3')      # a guest that died
            for parts, line, code in ((dirs, '2 passed, 1 failed', 1),
                                      (dirs[1:], '1 passed, 0 failed', 0),
                                      (dirs[1:] + [dead],
                                       '1 passed, 1 failed', 1)):
                out = io.StringIO()
                with contextlib.redirect_stdout(out):
                    rc = tdc61.main(['total'] + parts)
                self.assertEqual(out.getvalue().splitlines()[-1], line)
                self.assertEqual(rc, code)

    def test_another_runner_is_named_by_its_tree_and_provenance(self):
        with tempfile.TemporaryDirectory() as tree:
            with open(os.path.join(tree, 'PROVENANCE'), 'w') as f:
                f.write('tdc.py  torvalds/linux 0123abc\n')
            text = tdc61.report(self.results([('aa11', 'pass')]), None,
                                tree)
        self.assertIn('# The corpus under the tdc.py in ', text)
        self.assertIn('make tdc-upstream-report', text)
        self.assertIn('tdc.py  torvalds/linux 0123abc', text)
        self.assertNotIn('linux-source-6.1', text.splitlines()[0])
        pristine = tdc61.report(self.results([('aa11', 'pass')]), None,
                                tdc61.TREE)
        self.assertIn('# The corpus under the tdc.py of linux-source-6.1',
                      pristine)
        # no stock run given: the page does not claim one
        self.assertIn('on ours only (no `make tdc61 VARIANT=stock` run',
                      pristine)
        both = tdc61.report(self.results([('aa11', 'pass')]),
                            self.results([('aa11', 'pass')]), tdc61.TREE)
        self.assertIn('on ours and `make tdc61 VARIANT=stock`', both)


class TestConfig(unittest.TestCase):
    def test_flnl_reaches_the_names_of_6_1s_tdc_config(self):
        if not os.path.exists(os.path.join(PRISTINE_RUNNER,
                                           'tdc_config.py')):
            self.skipTest('no extracted tree (make tree-pristine)')
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(PRISTINE_RUNNER, 'tdc_config.py')) as f:
                text = f.read()
            with open(os.path.join(tmp, 'tdc_config.py'), 'w') as f:
                f.write(text)
            with open(os.path.join(tmp, 'tdc_config_local.py'), 'w') as f:
                f.write(tdc61.config_local(300))
            run = subprocess.run(
                ['/usr/bin/python3', '-c', 'import json, tdc_config; '
                 'print(json.dumps(tdc_config.NAMES))'], cwd=tmp,
                capture_output=True, text=True, check=True)
        names = json.loads(run.stdout)
        self.assertEqual(names['FLNL'], commands.FLNL)
        self.assertEqual(names['TIMEOUT'], 300)
        self.assertEqual(names['DEV1'], 'v0p1')      # the rest: 6.1's

    def test_gate_runs_the_smoke(self):
        stage = [s for s in gate.STAGES if s.name == 'tdc61-smoke'][0]
        self.assertEqual(stage.command[-1], 'tdc61-smoke')
        self.assertIs(stage.parse, gate.summary_line)
        with open(os.path.join(REPO, 'tdc', 'tdc61.mk')) as f:
            mk = f.read()
        self.assertIn('tdc61-smoke:', mk)
        self.assertIn('-m tdc.tdc61 run', mk)


if __name__ == '__main__':
    unittest.main()
