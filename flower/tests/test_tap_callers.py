# SPDX-License-Identifier: GPL-2.0
"""Every tool that reads TAP reads it with flower.results.parse_tap().
Each tool's reader is pinned here against the hand-written parser it
had before (kept below, verbatim but for its name): the same TAP gives
the same answer, edge cases included (skip directives, a skip on a "not
ok", diagnostics after a "not ok", blank lines, plans with whitespace,
cases missing from the plan, numbers out of turn, result-like lines in
6.1's failure text, CRLF)."""

import importlib.util
import os
import re
import tempfile
import unittest

from tdc import compare, series_cases, tdc61

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def _stock_series():
    """kernel/stock-series/stock_series.py (a script, not a package)."""
    path = os.path.join(REPO, 'kernel', 'stock-series', 'stock_series.py')
    spec = importlib.util.spec_from_file_location('stock_series_pin', path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# --- the parsers as they were ------------------------------------------------
def old_stock_series_tap_results(path):
    """kernel/stock-series/stock_series.py tap_results() before it used
    flower.results."""
    res = {}
    if not os.path.exists(path):
        return res
    with open(path) as f:
        for line in f:
            m = re.match(r'(not )?ok \d+ - (\S+)', line)
            if m:
                res[m.group(2)] = not m.group(1) and '# skip' not in line
    return res


def old_series_cases_tap_counts(path):
    """tdc/series_cases.py tap_counts() before 5b7f3d0."""
    passed, failed, plan = 0, [], None
    with open(path) as f:
        for line in f:
            m = re.match(r'(not )?ok \d+ - (\S+)', line)
            if m:
                if m.group(1) or '# skip' in line:
                    failed.append(m.group(2))
                else:
                    passed += 1
            m = re.match(r'1\.\.(\d+)$', line.strip())
            if m:
                plan = int(m.group(1))
    missing = (plan or 0) - passed - len(failed)
    return passed, len(failed) + max(missing, 0), failed


OLD_COMPARE_RESULT_RE = re.compile(
    r'^(ok|not ok) \d+ - (\S+) ?(.*?)(?: # skip (.*))?$')


def old_compare_parse_tap(path):
    """tdc/compare.py parse_tap() before 5b7f3d0, as
    {id: (status, name, detail)}."""
    results = {}
    current = None
    with open(path, errors='replace') as f:
        for raw in f:
            line = raw.rstrip('\n')
            m = OLD_COMPARE_RESULT_RE.match(line)
            if m:
                ok, cid, name, skip = m.groups()
                status = 'skip' if skip is not None else \
                    'pass' if ok == 'ok' else 'fail'
                current = [status, name.strip(), []]
                if skip is not None:
                    current[2] = [skip]
                results[cid] = current
                if status != 'fail':
                    current = None
            elif current is not None and line.startswith('#'):
                current[2].append(line[1:].strip())
            elif not line.startswith('#'):
                current = None
    return {k: tuple(v) for k, v in results.items()}


OLD_TDC61_TAP_RE = re.compile(
    r'^(not )?ok (\d+) (\S+) - (.*?)(?: # skipped - (.*))?$')


def old_tdc61_parse_tap(text, cases):
    """tdc/tdc61.py parse_tap() before 5b7f3d0."""
    found, current = {}, None
    expected = 1
    for line in text.splitlines():
        m = OLD_TDC61_TAP_RE.match(line)
        if m and int(m.group(2)) == expected:
            expected += 1
            status = 'fail' if m.group(1) else (
                'skip' if m.group(5) is not None else 'pass')
            current = m.group(3)
            found[current] = (status, [m.group(5)] if m.group(5) else [])
        elif current and line.strip():
            found[current][1].append(line.strip())
    return found


# --- the texts ---------------------------------------------------------------
TDC_TEXTS = {
    'plain': '''TAP version 13
1..4
ok 1 - aaaa first case
not ok 2 - 25cd Regression: ct_state
# stage: verify
#   matchJSON: $[1]: expected 1, got 0

ok 3 - bbbb third # skip no device
ok 4 - cccc
3 passed, 1 failed, 0 skipped
''',
    'missing cases': '1..5\nok 1 - aaaa x\nnot ok 2 - bbbb y\n',
    'more than the plan': '1..1\nok 1 - aaaa\nok 2 - bbbb\n',
    'no plan': 'ok 1 - aaaa\nnot ok 2 - bbbb\n# why\n',
    'empty': '',
    'plan only': 'TAP version 13\n1..3\n',
    'plan with whitespace': '  1..3  \nok 1 - aaaa\n',
    'two plans': '1..2\nok 1 - aaaa\n1..3\nok 2 - bbbb\n',
    'skip on not ok': 'not ok 1 - aaaa name # skip why\n# d\nok 2 - b\n',
    'skip without reason': 'ok 1 - aaaa name # skip\nok 2 - bbbb # skip \n',
    'diagnostics end at a plain line': (
        'not ok 1 - aaaa n\n# one\nplain text\n# not its\n'
        'not ok 2 - bbbb\n#two\n#\n'),
    'diagnostics of a pass are nobody\'s': (
        'ok 1 - aaaa\n# c1\nnot ok 2 - bbbb\n'),
    'a result inside diagnostics': (
        'not ok 1 - aaaa\n# ok 7 - zzzz\nok 2 - bbbb\n'),
    'same id twice': 'not ok 1 - aaaa\n# x\nok 2 - aaaa\n',
    'numbers out of turn': 'ok 5 - aaaa\nnot ok 1 - bbbb\n',
    'not a result': ('ok - aaaa\nok 1 aaaa\nnot ok 1 -\nok 1 - \n'
                     ' ok 1 - indented\nok 1 -  aaaa two spaces\n'),
    'name with a hash': 'ok 1 - aaaa a # b # skip c # d\n',
    'crlf': '1..2\r\nok 1 - aaaa n\r\nnot ok 2 - bbbb\r\n# d\r\n',
    'no newline at the end': '1..2\nok 1 - aaaa\nnot ok 2 - bbbb',
    'summary': '1..2\nok 1 - a\nok 2 - b\n2 passed, 0 failed, 0 skipped\n',
}

SIXONE_TEXTS = {
    'plain': '''1..3
ok 1 aaaa - first case
not ok 2 bbbb - second case
\tCommand exited with 2, expected 0
Error: bad.

ok 3 cccc - third # skipped - no device
''',
    'numbers out of turn are text': (
        'not ok 1 aaaa - x\n  ok 7 zzzz - in the output\nok 7 zzzz - y\n'
        'ok 2 bbbb - z\n'),
    'a result line repeated': 'ok 1 aaaa - x\nok 1 aaaa - x\nok 2 b - y\n',
    'skipped with dashes': 'ok 1 aaaa - a - b # skipped - c # skipped - d\n',
    'skipped without reason': 'ok 1 aaaa - n # skipped - \n',
    'tdc dialect is not 6.1': 'ok 1 - aaaa name\nok 1 aaaa - n\n',
    'text before the first result': 'junk\n\nok 1 aaaa - n\n  more\n',
    'empty': '',
    'crlf': 'not ok 1 aaaa - n\r\n\tline\r\nok 2 bbbb - m\r\n',
}


class PinnedAgainstTheOldParsers(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def tap_file(self, text):
        path = os.path.join(self.dir.name, 'x.tap')
        with open(path, 'w', newline='') as f:
            f.write(text)
        return path

    def test_stock_series_tap_results(self):
        tap_results = _stock_series().tap_results
        for name, text in TDC_TEXTS.items():
            with self.subTest(name):
                path = self.tap_file(text)
                self.assertEqual(tap_results(path),
                                 old_stock_series_tap_results(path))
        missing = os.path.join(self.dir.name, 'none.tap')
        self.assertEqual(tap_results(missing), {})

    def test_series_cases_tap_counts(self):
        for name, text in TDC_TEXTS.items():
            with self.subTest(name):
                path = self.tap_file(text)
                self.assertEqual(series_cases.tap_counts(path),
                                 old_series_cases_tap_counts(path))

    def test_compare_parse_tap(self):
        for name, text in TDC_TEXTS.items():
            if name == 'skip without reason':
                continue        # test_compare_reads_every_skip_directive
            with self.subTest(name):
                path = self.tap_file(text)
                got = {k: (r.status, r.name, r.detail) for k, r in
                       compare.parse_tap(path).items()}
                self.assertEqual(got, old_compare_parse_tap(path))
                self.assertEqual(list(got), list(old_compare_parse_tap(path)))

    def test_compare_reads_every_skip_directive(self):
        # The one difference, accepted in 5b7f3d0: the old reader took a
        # "# skip" with no reason after it, or right after the id, for a
        # pass named "# skip".  tdc.py writes "# skip REASON" after a
        # name, which both read alike.
        path = self.tap_file(TDC_TEXTS['skip without reason'])
        got = {k: (r.status, r.name, r.detail) for k, r in
               compare.parse_tap(path).items()}
        self.assertEqual(got, {'aaaa': ('skip', 'name', ['']),
                               'bbbb': ('skip', '', [''])})
        self.assertEqual(old_compare_parse_tap(path),
                         {'aaaa': ('pass', 'name # skip', []),
                          'bbbb': ('pass', '# skip', [])})

    def test_tdc61_parse_tap(self):
        for name, text in SIXONE_TEXTS.items():
            with self.subTest(name):
                self.assertEqual(tdc61.parse_tap(text, []),
                                 old_tdc61_parse_tap(text, []))


if __name__ == '__main__':
    unittest.main()
