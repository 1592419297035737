# SPDX-License-Identifier: GPL-2.0
"""upstream_fixes.py: docs/upstream-fixes.md from the hand-written data
and a compare run's TAPs.  The results must be the TAPs' (a case failing
on ours shows as a failure and the headline counts it), a case a TAP
lacks is "not run" and fails the run, and the data must agree with the
corpus and the sources."""

import contextlib
import io
import json
import os
import re
import shutil
import tempfile
import unittest

from tdc import compare
from tdc import compare_run
from tdc import upstream_fixes as uf
from tdc import upstream_fixes_data as data

COMMIT = re.compile(r'\b[0-9a-f]{7,40}\b')     # as lint/tests/test_docs.py

FIXES = [
    {'commit': 'aaaaaaaaaaa1', 'date': '2023-01', 'title': 'fix one',
     'fixes': 'bbbbbbbbbbb1', 'could_exist': True, 'ours': 'checked',
     'stock_has_fix': False, 'in_stock': '**no**',
     'cases': [['aaa1', 'first'], ['aaa2', 'second']]},
    {'commit': 'aaaaaaaaaaa2', 'date': '2024-01', 'title': 'fix two',
     'fixes': 'bbbbbbbbbbb2', 'could_exist': False, 'ours': 'no such code',
     'stock_has_fix': True, 'in_stock': 'yes', 'cases': [],
     'no_case': 'none'},
    {'commit': 'aaaaaaaaaaa3', 'date': '2025-01', 'title': 'fix three',
     'fixes': 'bbbbbbbbbbb3', 'could_exist': True, 'ours': 'checked',
     'stock_has_fix': True, 'in_stock': 'yes', 'cases': [['aaa3', '']]},
]

OURS = '''TAP version 13
1..3
ok 1 - aaa1 first
not ok 2 - aaa2 second
# stage: verify
# matchJSON: $[1].options.actions[0].stats.packets: expected 2, got 0
ok 3 - aaa3 third
3 passed, 0 failed, 0 skipped
'''
STOCK = '''TAP version 13
1..3
not ok 1 - aaa1 first
# stage: execute
# exit code 2, expected 0
ok 2 - aaa2 second
ok 3 - aaa3 third
'''


class Base(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        corpus = os.path.join(self.dir, 'tc-tests')
        os.makedirs(corpus)
        with open(os.path.join(corpus, 'x.json'), 'w') as f:
            json.dump([{'id': i} for i in ('aaa1', 'aaa2', 'aaa3')], f)
        self.out = os.path.join(self.dir, 'docs', 'upstream-fixes.md')

    def put(self, name, text, mtime=None):
        path = os.path.join(self.dir, name)
        with open(path, 'w') as f:
            f.write(text)
        if mtime:
            os.utime(path, (mtime, mtime))
        return path

    def runs(self, ours=OURS, stock=STOCK):
        self.put('ours.commit', '1234abc\n', 1700000000)
        self.put('stock.commit', '5678def with uncommitted changes\n',
                 1700000000)
        return (self.put('ours.tap', ours, 1700000600),
                self.put('stock.tap', stock, 1700000300))

    def main(self, ours=OURS, stock=STOCK, fixes=FIXES):
        o, s = self.runs(ours, stock)
        err, out = io.StringIO(), io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            rc = uf.main(['--ours', o, '--stock', s, '--out', self.out,
                          '--corpus', os.path.join(self.dir, 'tc-tests')],
                         fixes=fixes, messages=[])
        page = None
        if os.path.exists(self.out):
            with open(self.out) as f:
                page = f.read()
        return rc, page, out.getvalue(), err.getvalue()

    def load(self, ours=OURS, stock=STOCK):
        o, s = self.runs(ours, stock)
        return (compare_run.load_run(o, o[:-4] + '.commit'),
                compare_run.load_run(s, s[:-4] + '.commit'))


class TestResults(Base):
    def test_a_case_failing_on_ours_is_a_failure_and_counted(self):
        ours, stock = self.load()
        self.assertEqual(ours.status('aaa2'), 'fail')
        self.assertEqual(compare_run.cell(ours, ['aaa1', 'aaa2']),
                         '**fail** aaa2; pass aaa1')
        line = uf.headline(FIXES, ours, stock)
        self.assertIn('3 fixes considered, 2 could exist in ours, 3 cases',
                      line)
        self.assertIn('ours passes 2 of 3 (fail aaa2)', line)

    def test_stock_failures_and_the_fix_it_lacks(self):
        ours, stock = self.load()
        line = uf.headline(FIXES, ours, stock)
        self.assertIn('stock 6.1.192 fails 1 (aaa1), all for the fix it '
                      'lacks: aaaaaaaaaaa1', line)
        self.assertEqual(compare_run.cell(stock, ['aaa3']), 'pass')
        self.assertEqual(compare_run.cell(stock, ['aaa1', 'aaa2']),
                         '**fail** aaa1; pass aaa2')

    def test_a_stock_failure_of_a_fix_stock_has_is_unexpected(self):
        stock = STOCK.replace('ok 3 - aaa3', 'not ok 3 - aaa3')
        ours, stock = self.load(stock=stock)
        line = uf.headline(FIXES, ours, stock)
        self.assertIn('fails 2 (aaa1, aaa3)', line)
        self.assertIn('aaa3 for no fix it lacks (unexpected)', line)

    def test_all_passing(self):
        ours, stock = self.load(ours=OURS.replace('not ok 2', 'ok 2'),
                                stock=STOCK.replace('not ok 1', 'ok 1'))
        line = uf.headline(FIXES, ours, stock)
        self.assertIn('ours passes 3 of 3;', line)
        self.assertIn('stock 6.1.192 fails none.', line)
        self.assertEqual(compare_run.cell(ours, ['aaa1', 'aaa2']), 'pass ×2')

    def test_a_skip_is_not_a_pass(self):
        ours, stock = self.load(
            ours=OURS.replace('ok 3 - aaa3 third', 'ok 3 - aaa3 third '
                              '# skip no device'))
        self.assertEqual(ours.status('aaa3'), 'skip')
        self.assertIn('ours passes 1 of 3 (fail aaa2; skip aaa3)',
                      uf.headline(FIXES, ours, stock))

    def test_page(self):
        rc, page, out, err = self.main()
        self.assertEqual(rc, 0, err)
        head = page.split('\n')[:15]
        self.assertTrue(any('1234abc' in l for l in head))
        self.assertTrue(any('5678def' in l for l in head))
        self.assertTrue(any(COMMIT.search(l) for l in head))
        # the TAPs' times
        self.assertIn('2023-11-14 22:23 UTC (ours) and 2023-11-14 22:18 UTC '
                      '(stock)', page)
        self.assertIn(uf.headline(*self.fixes_and_runs()), page)
        self.assertIn(uf.headline(*self.fixes_and_runs()), out)
        row = next(l for l in page.split('\n')
                   if l.startswith('| aaaaaaaaaaa1 '))
        self.assertTrue(row.endswith('| **fail** aaa2; pass aaa1 | '
                                     '**fail** aaa1; pass aaa2 |'), row)
        fails = [l for l in page.split('\n') if l.startswith('| aaa2 |')]
        self.assertEqual(len(fails), 1)
        self.assertIn('| ours | fail | verify | matchJSON', fails[0])
        self.assertIn('aaaaaaaaaaa1: fix one', page)    # the stock bug
        self.assertIn('stock fails 1 of its 2 cases (aaa1)', page)

    def fixes_and_runs(self):
        o = os.path.join(self.dir, 'ours.tap')
        s = os.path.join(self.dir, 'stock.tap')
        return (FIXES, compare_run.load_run(o, o[:-4] + '.commit'),
                compare_run.load_run(s, s[:-4] + '.commit'))


class TestNotRun(Base):
    def test_a_case_missing_from_a_tap_is_not_run_and_fails(self):
        stock = STOCK.replace('ok 2 - aaa2 second\n', '')
        rc, page, out, err = self.main(stock=stock)
        self.assertEqual(rc, 1)
        self.assertIn('NOT RUN on stock: aaa2', err)
        self.assertNotIn('on ours', err)
        self.assertIn('| **fail** aaa1; **not run** aaa2 |', page)
        self.assertIn('(not run aaa2)', page.split('\n')[6])
        self.assertIn('| aaa2 | stock | not run |', page)

    def test_an_empty_tap_runs_nothing(self):
        rc, page, out, err = self.main(ours='')
        self.assertEqual(rc, 1)
        self.assertIn('NOT RUN on ours: aaa1, aaa2, aaa3', err)
        self.assertIn('ours passes 0 of 3 (not run aaa1, aaa2, aaa3)', page)

    def test_a_missing_commit_file_writes_nothing(self):
        o, s = self.runs()
        os.remove(os.path.join(self.dir, 'stock.commit'))
        with contextlib.redirect_stderr(io.StringIO()) as err:
            rc = uf.main(['--ours', o, '--stock', s, '--out', self.out],
                         fixes=FIXES, messages=[])
        self.assertEqual(rc, 2)
        self.assertIn('stock.commit', err.getvalue())
        self.assertFalse(os.path.exists(self.out))

    def test_a_case_the_corpus_lacks_writes_nothing(self):
        fixes = FIXES + [dict(FIXES[2], commit='aaaaaaaaaaa4',
                              cases=[['ffff', 'typo']])]
        rc, page, out, err = self.main(fixes=fixes)
        self.assertEqual(rc, 2)
        self.assertIn('case ffff (of aaaaaaaaaaa4) is not in the corpus', err)
        self.assertIsNone(page)


class TestData(unittest.TestCase):
    """The hand-written data against the corpus and the sources."""

    @classmethod
    def setUpClass(cls):
        cls.corpus = compare.load_corpus(os.path.join(compare.REPO,
                                                      'tc-tests'))
        with open(uf.OURS_SOURCE) as f:
            cls.ours = f.read()

    def test_fields(self):
        keys = {'commit', 'date', 'title', 'fixes', 'could_exist', 'ours',
                'stock_has_fix', 'in_stock', 'cases'}
        for fix in data.FIXES:
            self.assertLessEqual(keys, set(fix), fix['commit'])
            self.assertRegex(fix['commit'], r'^[0-9a-f]{12}$')
            self.assertRegex(fix['date'], r'^20\d\d-\d\d$')
            self.assertIn(fix['stock_has_fix'], (True, False, None))
        commits = [f['commit'] for f in data.FIXES]
        self.assertEqual(len(commits), len(set(commits)))

    def test_every_case_is_in_the_corpus(self):
        for cid in uf.case_ids(data.FIXES):
            self.assertIn(cid, self.corpus)

    def test_a_bug_that_could_exist_in_ours_has_a_case(self):
        for fix in data.FIXES:
            if fix['could_exist']:
                self.assertTrue(fix['cases'], fix['commit'])

    def test_regression_cases_are_listed_under_the_commit_they_name(self):
        path = os.path.join(compare.REPO, 'tc-tests', 'filters', 'flower',
                            'regressions.json')
        with open(path) as f:
            cases = json.load(f)
        by_fix = {f['commit']: [c for c, _ in f['cases']]
                  for f in data.FIXES}
        listed = set(uf.case_ids(data.FIXES))
        for case in cases:
            named = re.findall(r'\bupstream ([0-9a-f]{12})\b', case['name'])
            for commit in named:
                self.assertIn(commit, by_fix, case['id'])
                self.assertIn(case['id'], by_fix[commit], commit)
            if case['id'] in listed:
                self.assertTrue(named, case['id'])

    def test_what_ours_does_names_what_ours_has(self):
        # a function or name in backquotes, said of ours, is in its source
        for fix in data.FIXES:
            if not fix['could_exist']:
                continue
            for name in re.findall(r'`([A-Za-z_]\w*)(?:\(\))?`',
                                   fix['ours']):
                self.assertRegex(self.ours, r'\b%s\b' % name,
                                 '%s: %s' % (fix['commit'], name))

    def test_messages_are_in_the_sources(self):
        cids = set(uf.case_ids(data.FIXES))
        for m in data.MESSAGES:
            self.assertIn(m['case'], cids)
            self.assertIn(m['ours'], self.ours)
        # the stock source is there once the trees are extracted
        self.assertEqual(uf.source_problems(data.MESSAGES), [])

    def test_stock_bugs_have_their_text(self):
        lacking = [f['commit'] for f in data.FIXES
                   if f['stock_has_fix'] is False]
        self.assertEqual(sorted(lacking), sorted(data.STOCK_BUG))


if __name__ == '__main__':
    unittest.main()
