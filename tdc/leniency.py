#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""leniency.py - docs/leniency.md: the requests the stock flower accepts,
which ours accepts too and says what it did, with their cases' results
on ours and stock.

usage: python3 -m tdc.leniency [--ours TAP] [--stock TAP]
           [--ours-commit FILE] [--stock-commit FILE] [--out FILE]
           [--corpus DIR]

What was written by hand (each row: the request, what stock does, what
ours does, the warnings it gives, the cases that exercise it) is
tdc/leniency_data.py; the warnings' texts are flower/needs.py's, quoted
from it; the results are read from the TAPs of a `make compare` run
(defaults: build/guest-out/compare/ours.tap and stock.tap, with
tdc/compare.py's reader), the commit each run measured from the .commit
file beside its TAP and its time from the .seconds file (which make
compare writes when the run has ended).  The page's head names those
commits and the runs' dates, and its headline is counted from the TAPs.

Exit 2, writing nothing: a TAP, .commit or .seconds file missing (a
run that has not ended), a row naming a case the corpus does not hold
or a warning flower/needs.py does not have.  Exit 1, after writing the
page, when something is missing, each named on stderr and on the page:
a row without any case, a case a TAP does not report ("not run"), a
case of category leniency or warnings (or one that looks for a
warning's text) that no row names, a warning a row's case looks for
that the row does not name, a warning of flower/needs.py that no row
names.  Exit 0 otherwise, whatever the cases' results (a failure is a
result: the page and the headline show it).
"""

import argparse
import collections
import json
import os
import sys

from flower import needs
from tdc import compare
from tdc import corpus as tdc_corpus
from tdc import leniency_data as data
from tdc import compare_run
from tdc.compare_run import NOT_RUN, by_status, cell, passes, short_date

REPO = compare.REPO
# the categories of the cases that exercise a row (tc-tests/README.md)
CATEGORIES = ('leniency', compare.WARNINGS_CATEGORY)
TABLES = ('MESSAGES', 'WARNINGS')
NO_CASE = '**no case**'


def load_corpus(root):
    """{case id: (its file, relative to the repository, the case)}."""
    cases = {}
    for path in tdc_corpus.case_files([root]):
        try:
            found = tdc_corpus.load_file(path)
        except ValueError:
            continue
        for case in found:
            if 'id' in case:
                cases[case['id']] = (compare.shown_path(path), case)
    return cases


def text_of(table, key):
    """The warning's text, from flower/needs.py."""
    return getattr(needs, table)[key]


def all_warnings():
    """Every (table, key) of flower/needs.py's MESSAGES and WARNINGS."""
    return [(t, k) for t in TABLES for k in getattr(needs, t)]


def looked_for(case):
    """The (table, key)s whose text the case names (in its commands or
    patterns); a text that is part of another one it names is not
    counted ("requires ip_proto tcp" in "requires ip_proto tcp, udp or
    sctp")."""
    text = json.dumps(case)
    found = [w for w in all_warnings() if text_of(*w) in text]
    return [w for w in found if not any(
        text_of(*w) != text_of(*o) and text_of(*w) in text_of(*o)
        for o in found)]


def case_ids(rows):
    """Every case id of `rows`, once each, in order."""
    seen = []
    for row in rows:
        seen += [cid for cid in row['cases'] if cid not in seen]
    return seen


def rows_of(rows, cid):
    return [r for r in rows if cid in r['cases']]


def data_errors(rows, corpus):
    """What keeps the page from being written: a case the corpus lacks, a
    warning flower/needs.py lacks."""
    errors = []
    for row in rows:
        for table, key in row['says']:
            if table not in TABLES or key not in getattr(needs, table):
                errors.append('row %s: %s[%r] is not in flower/needs.py'
                              % (row['kind'], table, key))
        errors += ['row %s: case %s is not in the corpus' % (row['kind'], cid)
                   for cid in row['cases'] if cid not in corpus]
    return errors


def exercising(case):
    """Whether a case of the corpus exercises a lenient request: one of
    CATEGORIES, or one that looks for a warning's text."""
    return any(c in case.get('category', ()) for c in CATEGORIES) or \
        bool(looked_for(case))


def missing(rows, corpus, ours, stock):
    """The loud lines: rows without cases, cases not run, corpus cases no
    row names, warnings not named where they should be."""
    out = ['ROW WITHOUT CASES: %s (%s)' % (row['kind'], row['request'])
           for row in rows if not row['cases']]
    cids = case_ids(rows)
    for name, run in (('ours', ours), ('stock', stock)):
        lost = [cid for cid in cids if run.status(cid) == NOT_RUN]
        if lost:
            out.append('NOT RUN on %s: %s (not in %s)' % (
                name, ', '.join(lost), compare.shown_path(run.tap_path)))
    for cid, (path, case) in sorted(corpus.items()):
        if cid not in cids and exercising(case):
            out.append('CASE OF NO ROW: %s (%s: %s)' % (
                cid, path, compare.shorten(case.get('name', ''), 80)))
    for cid in cids:
        said = {w for row in rows_of(rows, cid) for w in row['says']}
        for w in looked_for(corpus[cid][1]) if cid in corpus else ():
            if w not in said:
                out.append('WARNING OF NO ROW OF ITS CASE: case %s looks '
                           'for %s[%r], which its rows (%s) do not name' % (
                               cid, w[0], w[1], ', '.join(
                                   r['kind'] for r in rows_of(rows, cid))))
    named = {w for row in rows for w in row['says']}
    for table, key in all_warnings():
        if (table, key) not in named and not (
                table == 'MESSAGES' and key in data.NEVER_MET):
            out.append('WARNING OF NO ROW: %s[%r] "%s"' % (
                table, key, text_of(table, key)))
    return out


def counts(rows, ours, stock):
    """The headline's numbers: rows, rows without cases, cases, and per
    kernel {status: [case ids]}."""
    cids = case_ids(rows)
    out = {'rows': len(rows), 'cases': len(cids),
           'caseless': [r['kind'] for r in rows if not r['cases']]}
    for name, run in (('ours', ours), ('stock', stock)):
        out[name] = by_status(run, cids)
    return out


def headline(rows, ours, stock, corpus=None):
    c = counts(rows, ours, stock)
    text = 'In short: %d rows, %d cases; ours %s; stock %s' % (
        c['rows'], c['cases'], passes(c['ours'], c['cases']),
        passes(c['stock'], c['cases']))
    causes = collections.Counter(
        cause((corpus or {}).get(cid, ('', {}))[1], cid, ours, stock)
        for cid in c['stock']['fail'] if ours.status(cid) == 'pass')
    if causes:
        text += '; of the cases stock fails and ours passes, by likely ' \
            'cause: ' + ', '.join('%s %d' % kv for kv in sorted(
                causes.items()))
    text += '.'
    if c['caseless']:
        text += ' **%d row%s without any case: %s.**' % (
            len(c['caseless']), 's' if len(c['caseless']) > 1 else '',
            ', '.join(c['caseless']))
    return text


def head(rows, ours, stock, corpus=None):
    runs = ' '.join('-e %s' % cid for cid in case_ids(rows))
    return [
        '# Requests stock accepts: ours accepts them too, and says what '
        'it did', '',
        'Commit measured: ours `%s`, stock `%s` (by `make compare`; its '
        'TAPs were written %s (ours, a run of %.1f min) and %s (stock, '
        '%.1f min)).' % (
            ours.commit, stock.commit, short_date(ours.when),
            ours.seconds / 60, short_date(stock.when), stock.seconds / 60),
        '',
        'Generated by `python3 -m tdc.leniency` (`make leniency-report`) '
        'from what was written by hand, `tdc/leniency_data.py` (each row '
        'and the cases that exercise it), the warnings of '
        '`flower/needs.py`, and the results of that run: `%s`, `%s`.' % (
            compare.shown_path(ours.tap_path),
            compare.shown_path(stock.tap_path)), '',
        headline(rows, ours, stock, corpus), '',
        data.INTRO.rstrip('\n'), '',
        'Run the cases alone with', '',
        '    guest/run -- /usr/bin/python3 -m tdc.tdc ' + runs,
        '    guest/run --variant stock -- /usr/bin/python3 -m tdc.tdc '
        + runs, '']


def says_cell(says):
    """The warnings of a row, by key (their texts are in the table of
    warnings below the rows)."""
    if len(says) > 3 and all(t == 'MESSAGES' for t, _ in says):
        return '`MESSAGES[need]` of the ignored key\'s need: %s' % \
            ', '.join(k for _, k in says)
    return ', '.join('`%s[\'%s\']` "%s"' % (t, k, text_of(t, k))
                     for t, k in says)


def row_table(rows, ours, stock):
    out = ['## The requests', '',
           '| request (stock accepts it) | stock, silently | ours | ours\' '
           'warning (flower/needs.py) | cases | ours | stock |',
           '|---|---|---|---|---|---|---|']
    for row in rows:
        ours_text = row['ours'] + ('. ' + row['note'] if row.get('note')
                                   else '')
        out.append('| %s | %s | %s | %s | %s | %s | %s |' % (
            row['request'], row['stock'], ours_text, says_cell(row['says']),
            ', '.join(row['cases']) or '**none**',
            cell(ours, row['cases'], NO_CASE), cell(stock, row['cases'], NO_CASE)))
    return out + ['']


def warning_table(rows):
    out = ['## The warnings', '',
           'As `flower/needs.py` has them (tc prints `Warning: TEXT.`):', '',
           '| warning | text | rows |', '|---|---|---|']
    for table, key in all_warnings():
        kinds = [r['kind'] for r in rows if (table, key) in r['says']]
        if not kinds and table == 'MESSAGES' and key in data.NEVER_MET:
            kinds = ['none: no request meets it']
        out.append('| `%s[\'%s\']` | %s | %s |' % (
            table, key, text_of(table, key),
            ', '.join(kinds) or '**none**'))
    return out + ['']


def cause(case, cid, ours, stock):
    """tdc/compare.py's likely cause of a difference in results, or ''."""
    o, s = ours.status(cid), stock.status(cid)
    if o == s or NOT_RUN in (o, s):
        return ''
    return compare.classify(case, ours.results[cid], stock.results[cid])


def case_table(rows, corpus, ours, stock):
    out = ['## The cases', '',
           'Each case with its file, its rows and its result on each '
           'kernel; where they differ, the likely cause `tdc/compare.py` '
           'gives it (`warnings`: it checks ours\' warning, which stock '
           'does not give; `stock-series`: a stock bug):', '',
           '| case | file | name | rows | ours | stock | cause |',
           '|---|---|---|---|---|---|---|']
    for cid in case_ids(rows):
        path, case = corpus.get(cid, ('', {}))
        out.append('| %s | %s | %s | %s | %s | %s | %s |' % (
            cid, os.path.basename(path),
            compare.shorten(case.get('name', ''), 120),
            ', '.join(r['kind'] for r in rows_of(rows, cid)),
            bold(ours.status(cid)), bold(stock.status(cid)),
            cause(case, cid, ours, stock)))
    return out + ['']


def bold(status):
    return status if status == 'pass' else '**%s**' % status


def failure_rows(rows, ours, stock):
    """Why each case that did not pass did not, on each kernel."""
    return compare_run.failure_rows(case_ids(rows), ours, stock)


def missing_section(lines):
    if not lines:
        return []
    return ['## Missing', '',
            'What the generator found missing (it exits 1 for these):', ''] + \
        ['- **%s**' % compare.shorten(line, 300) for line in lines] + ['']


def render(rows, corpus, ours, stock, lines=()):
    out = head(rows, ours, stock, corpus)
    out += missing_section(list(lines))
    out += row_table(rows, ours, stock)
    out += warning_table(rows)
    out += case_table(rows, corpus, ours, stock)
    out += failure_rows(rows, ours, stock)
    out += ['## What ours still refuses', '', data.STILL_REFUSED.rstrip('\n')]
    return '\n'.join(out) + '\n'


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    compare_run.add_arguments(p)
    p.add_argument('--out', metavar='FILE', default=os.path.join(
        REPO, 'docs', 'leniency.md'))
    p.add_argument('--corpus', metavar='DIR',
                   default=os.path.join(REPO, 'tc-tests'))
    return p.parse_args(argv)


def main(argv=None, rows=None):
    args = parse_args(argv)
    rows = data.ROWS if rows is None else rows
    try:
        runs = compare_run.load_runs(args, 'leniency', seconds=True)
    except OSError as e:
        print('leniency: %s' % e, file=sys.stderr)
        return 2
    corpus = load_corpus(args.corpus)
    errors = data_errors(rows, corpus)
    if errors:
        for line in errors:
            print('leniency: ' + line, file=sys.stderr)
        return 2
    ours, stock = runs['ours'], runs['stock']
    lines = missing(rows, corpus, ours, stock)
    text = render(rows, corpus, ours, stock, lines)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, 'w') as f:
        f.write(text)
    print(headline(rows, ours, stock, corpus))
    print('leniency: wrote %s' % compare.shown_path(args.out))
    for line in lines:
        print('leniency: ' + line, file=sys.stderr)
    return 1 if lines else 0


if __name__ == '__main__':
    sys.exit(main())
