#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""upstream_fixes.py - docs/upstream-fixes.md: the upstream fixes to
cls_flower.c since 6.1, with their cases' results on ours and stock.

usage: python3 -m tdc.upstream_fixes [--ours TAP] [--stock TAP]
           [--ours-commit FILE] [--stock-commit FILE] [--out FILE]

What was found by hand (each fix, whether its bug could exist in ours,
whether stock 6.1.192 has it, its cases) is tdc/upstream_fixes_data.py;
the results are read from the TAPs of a `make compare` run (defaults:
build/guest-out/compare/ours.tap and stock.tap, with tdc/compare.py's
reader) and the commit each run measured from the .commit file beside
it.  The page's head names those commits and the runs' dates, and its
headline is counted from the TAPs.

A case of the data that a TAP does not report is "not run": the page
shows it so, this program names it on stderr and exits 1 (after writing
the page).  A TAP or .commit file that is missing, or a case id that the
corpus does not hold, exits 2 and writes nothing.  Exit 0 otherwise,
whatever the cases' results (a failure is a result: the page and the
headline show it).
"""

import argparse
import collections
import datetime
import os
import re
import sys

from tdc import compare
from tdc import upstream_fixes_data as data

REPO = compare.REPO
COMPARE_OUT = os.path.join(REPO, 'build', 'guest-out', 'compare')
OURS_SOURCE = os.path.join(REPO, 'kernel', 'net', 'sched', 'cls_flower.c')
STOCK_SOURCE = os.path.join(REPO, 'build', 'src', 'pristine', 'net',
                            'sched', 'cls_flower.c')
NOT_RUN = 'not run'
KERNELS = ('ours', 'stock')


class Run(collections.namedtuple('Run', 'results commit tap_path when')):
    """One kernel's run: results {id: compare.Result}, the commit it
    measured (a str), its TAP's path and when the TAP was last written
    (a UTC datetime)."""

    __slots__ = ()

    def status(self, cid):
        """'pass', 'fail', 'skip' or NOT_RUN."""
        result = self.results.get(cid)
        return result.status if result else NOT_RUN


def case_ids(fixes):
    """Every case id of `fixes`, once each, in order."""
    seen = []
    for fix in fixes:
        for cid, _ in fix['cases']:
            if cid not in seen:
                seen.append(cid)
    return seen


def fixes_of(fixes, cid):
    return [f for f in fixes if cid in [c for c, _ in f['cases']]]


def load_run(tap_path, commit_path):
    """A Run, or raise OSError for a missing file."""
    results = compare.parse_tap(tap_path)
    with open(commit_path) as f:
        commit = f.read().strip()
    when = datetime.datetime.fromtimestamp(os.path.getmtime(tap_path),
                                           datetime.timezone.utc)
    return Run(results, commit, tap_path, when)


def cell(run, cids):
    """The results of `cids` on `run`, in a table cell: "pass" or
    "pass ×2" when all agree, else each status with its cases, failures
    first and in bold."""
    if not cids:
        return ''
    by = collections.OrderedDict()
    for cid in cids:
        by.setdefault(run.status(cid), []).append(cid)
    if len(by) == 1:
        (status, ids), = by.items()
        text = status if len(ids) == 1 else '%s ×%d' % (status, len(ids))
        return text if status == 'pass' else '**%s**' % text
    order = ['fail', 'skip', NOT_RUN, 'pass']
    parts = []
    for status in sorted(by, key=order.index):
        label = status if status == 'pass' else '**%s**' % status
        parts.append('%s %s' % (label, ', '.join(by[status])))
    return '; '.join(parts)


def counts(fixes, ours, stock):
    """The headline's numbers, as a dict."""
    cids = case_ids(fixes)
    out = {'fixes': len(fixes),
           'could_exist': sum(1 for f in fixes if f['could_exist']),
           'cases': len(cids)}
    for name, run in (('ours', ours), ('stock', stock)):
        by = collections.defaultdict(list)
        for cid in cids:
            by[run.status(cid)].append(cid)
        out[name] = by
    return out


def stock_fail_causes(fixes, stock_fails):
    """(fixes stock lacks that its failures are cases of, failures of
    no such fix: unexpected)."""
    lacks, unexpected = [], []
    for cid in stock_fails:
        missing = [f['commit'] for f in fixes_of(fixes, cid)
                   if f['stock_has_fix'] is False]
        if missing:
            lacks += [m for m in missing if m not in lacks]
        else:
            unexpected.append(cid)
    return lacks, unexpected


def not_passed(by, total):
    """"passes X of N" and what the others did."""
    text = 'passes %d of %d' % (len(by['pass']), total)
    rest = ['%s %s' % (status, ', '.join(by[status]))
            for status in ('fail', 'skip', NOT_RUN) if by[status]]
    return text + (' (%s)' % '; '.join(rest) if rest else '')


def headline(fixes, ours, stock):
    c = counts(fixes, ours, stock)
    n = c['cases']
    text = ('In short: %d fixes considered, %d could exist in ours, %d '
            'cases; ours %s; stock 6.1.192 ' % (
                c['fixes'], c['could_exist'], n, not_passed(c['ours'], n)))
    sfail = c['stock']['fail']
    if not sfail:
        text += 'fails none'
    else:
        lacks, unexpected = stock_fail_causes(fixes, sfail)
        text += 'fails %d (%s)' % (len(sfail), ', '.join(sfail))
        if lacks and not unexpected:
            text += ', all for the fix%s it lacks: %s' % (
                'es' if len(lacks) > 1 else '', ', '.join(lacks))
        elif unexpected:
            text += ', of which %s for no fix it lacks (unexpected)' % (
                ', '.join(unexpected))
    others = ['%s %s' % (status, ', '.join(c['stock'][status]))
              for status in ('skip', NOT_RUN) if c['stock'][status]]
    if others:
        text += ' (%s)' % '; '.join(others)
    return text + '.'


def short_date(when):
    return when.strftime('%Y-%m-%d %H:%M UTC')


def head(fixes, ours, stock):
    cids = case_ids(fixes)
    runs = ' '.join('-e %s' % cid for cid in cids)
    return [
        '# Upstream flower fixes since 6.1, checked against ours and stock '
        '6.1.192', '',
        'Commit measured: ours `%s`, stock `%s` (by `make compare`; its '
        'TAPs were written %s (ours) and %s (stock)).' % (
            ours.commit, stock.commit, short_date(ours.when),
            short_date(stock.when)), '',
        'Generated by `python3 -m tdc.upstream_fixes` (`make '
        'upstream-fixes-report`) from what was found by hand, '
        '`tdc/upstream_fixes_data.py`, and the results of that run: `%s`, '
        '`%s`.' % (compare.shown_path(ours.tap_path),
                   compare.shown_path(stock.tap_path)), '',
        headline(fixes, ours, stock), '',
        'Every commit to `net/sched/cls_flower.c` after v6.1 whose message '
        'is a fix (a `Fixes:` tag) that could be found, whether the bug it '
        'fixes could exist in ours (`kernel/net/sched/cls_flower.c`, a '
        'rewrite), whether Debian\'s stock 6.1.192 '
        '(`build/src/pristine/net/sched/cls_flower.c`) has the fix, and '
        'the cases that try the bug on both kernels (those of '
        '`tc-tests/filters/flower/regressions.json` name their upstream '
        'commit).  Run them alone with', '',
        '    guest/run -- /usr/bin/python3 -m tdc.tdc ' + runs,
        '    guest/run --variant stock -- /usr/bin/python3 -m tdc.tdc '
        + runs, '']


def fix_rows(fixes, ours, stock):
    out = ['## The fixes', '',
           '| upstream fix | title | fixes | could the bug exist in ours? '
           '| in stock 6.1.192? | case | ours | stock |',
           '|---|---|---|---|---|---|---|---|']
    for fix in fixes:
        cids = [cid for cid, _ in fix['cases']]
        cases = '; '.join('%s: %s' % (cid, what) if what else cid
                          for cid, what in fix['cases'])
        if fix.get('case_note'):
            cases = '%s: %s' % (fix['case_note'], cases)
        if not cases:
            cases = fix.get('no_case') or '**none**'
        cells = ['%s (%s)' % (fix['commit'], fix['date']), fix['title'],
                 fix['fixes'], '%s: %s' % ('yes' if fix['could_exist']
                                           else 'no', fix['ours']),
                 fix['in_stock'], cases]
        out.append('| %s | %s | %s |' % (
            ' | '.join(escape(c) for c in cells), cell(ours, cids),
            cell(stock, cids)))
    return out + ['']


def escape(text):
    """`text` in a table cell: its '|' escaped."""
    return text.replace('|', '\\|')


def source_has(path, literal):
    """True/False, or None if the source is not there."""
    try:
        with open(path) as f:
            return literal in f.read()
    except OSError:
        return None


def message_rows(messages, ours_source=OURS_SOURCE,
                 stock_source=STOCK_SOURCE):
    if not messages:
        return []
    out = ['## What each kernel says', '',
           'Each refusal on stock comes from the check that its fix added, '
           'so these cases reach the code each fix changed.  Written by '
           'hand from a run; the generator checks that each message is in '
           'its kernel\'s source:', '',
           '| case | ours says | stock 6.1.192 says (the fix\'s check) |',
           '|---|---|---|']
    for m in messages:
        marks = []
        if source_has(ours_source, m['ours']) is False:
            marks.append('**not in ours\' source any more**')
        if source_has(stock_source, m['stock_source']) is False:
            marks.append('**not in stock\'s source**')
        out.append('| %s | %s | %s |' % (
            m['case'], m['ours'], ' '.join([m['stock']] + marks)))
    return out + ['']


def stock_bug_rows(fixes, stock):
    """The fixes stock lacks, with their cases' results on stock."""
    out = []
    for fix in fixes:
        if fix['stock_has_fix'] is not False:
            continue
        cids = [cid for cid, _ in fix['cases']]
        failed = [cid for cid in cids if stock.status(cid) == 'fail']
        text = data.STOCK_BUG.get(fix['commit'])
        out += ['### %s: %s' % (fix['commit'], fix['title']), '']
        out += [text, ''] if text else []
        out += ['On this run stock fails %d of its %d cases%s.' % (
                    len(failed), len(cids),
                    ' (%s)' % ', '.join(failed) if failed else ''), '']
    return (['## Stock bugs found', ''] + out) if out else []


def failure_rows(fixes, ours, stock):
    """Why each case that did not pass did not, on each kernel."""
    out = []
    for cid in case_ids(fixes):
        for name, run in (('ours', ours), ('stock', stock)):
            status = run.status(cid)
            if status == 'pass':
                continue
            why = run.results[cid].why() if status == 'fail' else \
                (run.results[cid].detail or [''])[0] if status == 'skip' \
                else 'not in `%s`' % compare.shown_path(run.tap_path)
            out.append('| %s | %s | %s | %s | %s |' % (
                cid, name, status, run.results[cid].stage()
                if status == 'fail' else '', why))
    if not out:
        return []
    return (['## Cases that did not pass', '',
             '| case | kernel | result | stage | why |',
             '|---|---|---|---|---|'] + out + [''])


def render(fixes, messages, ours, stock, how_made=data.HOW_MADE):
    out = head(fixes, ours, stock) + fix_rows(fixes, ours, stock)
    out += failure_rows(fixes, ours, stock)
    out += message_rows(messages)
    out += stock_bug_rows(fixes, stock)
    out += ['## How the list was made', '', how_made.rstrip('\n')]
    return '\n'.join(out) + '\n'


def problems(fixes, ours, stock, corpus_ids):
    """(errors: cases the corpus lacks; not run: lines naming the cases a
    TAP does not report)."""
    cids = case_ids(fixes)
    errors = ['case %s (of %s) is not in the corpus' % (
        cid, ', '.join(f['commit'] for f in fixes_of(fixes, cid)))
        for cid in cids if cid not in corpus_ids]
    missing = []
    for name, run in (('ours', ours), ('stock', stock)):
        lost = [cid for cid in cids if run.status(cid) == NOT_RUN]
        if lost:
            missing.append('NOT RUN on %s: %s (not in %s)' % (
                name, ', '.join(lost), compare.shown_path(run.tap_path)))
    return errors, missing


def source_problems(messages, ours_source=OURS_SOURCE,
                    stock_source=STOCK_SOURCE):
    out = []
    for m in messages:
        if source_has(ours_source, m['ours']) is False:
            out.append('case %s: "%s" is not in %s' % (
                m['case'], m['ours'], compare.shown_path(ours_source)))
        if source_has(stock_source, m['stock_source']) is False:
            out.append('case %s: "%s" is not in %s' % (
                m['case'], m['stock_source'],
                compare.shown_path(stock_source)))
    return out


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    for name in KERNELS:
        p.add_argument('--' + name, metavar='TAP',
                       default=os.path.join(COMPARE_OUT, name + '.tap'),
                       help='%s\'s TAP (default: make compare\'s)' % name)
        p.add_argument('--%s-commit' % name, metavar='FILE',
                       help='the commit %s\'s run measured (default: the '
                       '.commit file beside its TAP)' % name)
    p.add_argument('--out', metavar='FILE', default=os.path.join(
        REPO, 'docs', 'upstream-fixes.md'))
    p.add_argument('--corpus', metavar='DIR',
                   default=os.path.join(REPO, 'tc-tests'))
    return p.parse_args(argv)


def commit_path(tap, given):
    return given or re.sub(r'\.(tap|out)$', '', tap) + '.commit'


def main(argv=None, fixes=None, messages=None):
    args = parse_args(argv)
    fixes = data.FIXES if fixes is None else fixes
    messages = data.MESSAGES if messages is None else messages
    runs = {}
    for name in KERNELS:
        tap = getattr(args, name)
        try:
            runs[name] = load_run(tap, commit_path(
                tap, getattr(args, name + '_commit')))
        except OSError as e:
            print('upstream_fixes: %s: %s' % (name, e), file=sys.stderr)
            return 2
    ours, stock = runs['ours'], runs['stock']
    errors, missing = problems(fixes, ours, stock,
                               set(compare.load_corpus(args.corpus)))
    if errors:
        for line in errors:
            print('upstream_fixes: ' + line, file=sys.stderr)
        return 2
    for name, run in runs.items():
        if run.when.timestamp() < os.path.getmtime(commit_path(
                run.tap_path, getattr(args, name + '_commit'))):
            print('upstream_fixes: warning: %s is older than its .commit '
                  'file: not that run\'s' % run.tap_path, file=sys.stderr)
    for line in source_problems(messages):
        print('upstream_fixes: warning: ' + line, file=sys.stderr)
    text = render(fixes, messages, ours, stock)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, 'w') as f:
        f.write(text)
    print(headline(fixes, ours, stock))
    print('upstream_fixes: wrote %s' % compare.shown_path(args.out))
    for line in missing:
        print('upstream_fixes: ' + line, file=sys.stderr)
    return 1 if missing else 0


if __name__ == '__main__':
    sys.exit(main())
