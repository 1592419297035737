# SPDX-License-Identifier: GPL-2.0
"""The offload oracle's page (docs/offload.md, docs/offload-stock-next.md):
what `python3 -m offload.compare --doc FILE` writes, from the comparison
offload/compare.py made.  report() is the page; each _report_* helper
writes one part of it, in the page's order."""
import collections
import datetime
import os
import re
import subprocess

from flower.report import cell
from offload.compare import (NAMES, by_field, counts, describe, failing,
                             kinds, short)
from offload.known import KNOWN, PAIRS, STOCK_SERIES_DRIVERS


def git_head():
    """The commit, and the paths that differ from it (uncommitted)."""
    try:
        head = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'],
                              capture_output=True, text=True).stdout.strip()
        st = subprocess.run(['git', 'status', '--porcelain',
                             '--untracked-files=no'],
                            capture_output=True, text=True).stdout
    except OSError:
        return '?'
    paths = sorted({ln[3:].split(' -> ')[-1] for ln in st.splitlines()
                    if len(ln) > 3})
    if not paths:
        return head
    return head + ' (with uncommitted changes to %s)' % ', '.join(
        '`%s`' % p for p in paths[:12]) + (', ...' if len(paths) > 12 else '')


def added_kinds(results):
    by = collections.OrderedDict()
    for r in results:
        for d in r.diffs:
            if d.added:
                by.setdefault(re.sub(r'\d+', 'N', d.text), []).append(r)
    return sorted(by.items(), key=lambda kv: -len(kv[1]))


def stock_series():
    """[(n, subject)] of kernel/stock-series/series, in order."""
    d = os.path.join(os.path.dirname(os.path.dirname(
        os.path.realpath(__file__))), 'kernel', 'stock-series')
    out = []
    try:
        with open(os.path.join(d, 'series')) as f:
            names = [ln.strip() for ln in f if ln.strip() and
                     not ln.startswith('#')]
    except OSError:
        return out
    for n, name in enumerate(names, 1):
        subject = name
        try:
            with open(os.path.join(d, name)) as f:
                head = f.read().split('\n\n', 1)[0]
            m = re.search(r'^Subject:(.*(?:\n[ \t].*)*)', head, re.M)
            if m:
                subject = re.sub(r'^\s*(\[[^]]*\]\s*)?', '',
                                 ' '.join(m.group(1).split()))
        except OSError:
            pass
        out.append((n, subject))
    return out


def series_lines(results, known):
    """docs/offload-stock-next.md's table: per patch of the series, what
    it should change for drivers (known.STOCK_SERIES_DRIVERS), the entries
    declared for it and the items they explained, and its own scenario
    (s-ss-N-*, direct and @veth)."""
    lines = ['', '## The stock series and what drivers get', '',
             'Per patch of `kernel/stock-series/series`: whether it should '
             'change what drivers are given (`offload/known.py` '
             'STOCK_SERIES_DRIVERS: a change to software matching, a dump, '
             'an error path or locking must not), the entries declared '
             'for it with the items each explained, and its scenario '
             '(`s-ss-N-*`, direct and indirect).', '',
             '| patch | subject | drivers should see | why | declared '
             '(items) | its scenario |', '|---|---|---|---|---|---|']
    for n, subject in stock_series():
        want, why = STOCK_SERIES_DRIVERS.get(
            n, ('?', 'not assessed: no expectation in offload/known.py'))
        decl = ', '.join('%s (%d)' % (k['name'], sum(
            1 for r in results if r.known and k in r.known))
            for k in known if k.get('patch') == n) or '-'
        mine = [r for r in results if re.match(r's-ss-%d-' % n,
                                               r.item['id'])]
        scen = ', '.join('%s %s%s' % (
            r.item['id'], r.status, ' (%s)' % ', '.join(
                '%s, patch %s' % (k['name'], k.get('patch', '?'))
                for k in r.known) if r.known else '')
            for r in mine) or '-'
        lines.append('| %d | %s | %s | %s | %s | %s |' % (
            n, cell(subject), want, cell(why), decl, cell(scen)))
    return lines


def _report_head(ours, stock, names, pair, notes, made_by):
    """The title, who wrote the page and what it compares, the notes."""
    na, nb = names
    target = made_by or (
        'make offload' if names == ('ours', 'stock') else
        'make offload-%s' % na if nb == 'stock' else
        'make offload OFL_A=%s OFL_B=%s' % names)
    meta = (ours or stock or {}).get('meta') or {}
    lines = ['# Offload oracle: what drivers are given, %s vs %s' % names, '',
             'Written by `%s` (offload/compare.py) at commit %s '
             'on %s.' % (target, git_head(), datetime.datetime.now(
                 datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')), '',
             'Every filter the flower corpus adds (as given, with skip_sw, '
             'with skip_hw), difftest\'s generated filters for seed %s, the '
             "corpus' chain templates and the scenarios of "
             '`offload/scenarios.py`%s, replayed on %s with the test '
             'driver (offload/drv) taking the '
             'devices: directly (its own fltest devices, ndo_setup_tc, as '
             'a NIC) and, for a sample and the scenarios, indirectly (a '
             'veth, as a tunnel device; ids end with @veth); the '
             'driver\'s log, tc\'s exit status, stderr and extack and '
             '`tc -s -j filter show` compared item by item '
             '(`offload/compare.py` says what is compared).' % (
                 meta.get('seed', '?'),
                 ' (with the stock series\' own, one per patch: s-ss-N-*)'
                 if meta.get('stock_series') else '', pair['about']),
             '']
    for note in notes:
        lines += ['Note: %s' % note, '']
    if pair['strict']:
        lines += ['Strict: a message %s adds where %s has none is a '
                  'difference like any other, and fails unless declared.'
                  % names, '']
    return lines


def _report_runs(ours, stock, names, wall, problems):
    """One line per run, the wall time, the problems."""
    lines = []
    for name, run in zip(names, (ours, stock)):
        if run:
            lines.append('- %s: kernel %s, cls_flower srcversion %s, %d '
                         'items in %s s of guest time%s' % (
                             name, run.get('kernel'), run.get('srcversion'),
                             len(run.get('items', [])), run.get('secs'),
                             '' if run.get('complete') else
                             ' (INCOMPLETE: the run stopped early)'))
        else:
            lines.append('- %s: no result' % name)
    if wall:
        lines.append('- wall time of the whole run: %s s' % wall)
    for p in problems:
        lines.append('- **PROBLEM** (counted as a failure): %s' % p)
    return lines


def _report_sources(results, strict):
    """The table of counts per source and binding, and what failed items
    differ in."""
    lines = ['', '| source (binding) | items | passed | of which message '
             'added | '
             'known | failed |', '|---|---|---|---|---|---|']

    def group(r):
        return '%s (%s)' % (r.item['source'], r.item.get('binding', '?'))
    for src in sorted({group(r) for r in results}) + ['all']:
        rs = [r for r in results if src == 'all' or group(r) == src]
        p, f, cc = counts(rs)
        lines.append('| %s | %d | %d | %d | %d | %d |' % (
            src, len(rs), p, cc['added'], cc['known'], f))
    fields = by_field(results, strict)
    if fields:
        lines += ['', 'Failed items by what differs (an item may count '
                  'under several): ' + ', '.join(
                      '%s %d' % kv for kv in sorted(fields.items())) + '.']
    return lines


def _report_failures(results, names, strict, limit):
    """The failures by kind, then the first `limit` of them."""
    fails = [r for r in results if r.status == 'fail']
    if not fails:
        return []
    lines = ['', '## Failures by kind', '',
             'A failed item by its first difference (numbers as N).',
             '', '| kind | items | e.g. |', '|---|---|---|']
    for k, rs in kinds(results, names, strict):
        lines.append('| %s | %d | %s |' % (
            cell(k), len(rs), ', '.join(r.item['id'] for r in rs[:3])))
    lines += ['', '## Failures', '',
              '| item | what | first difference | more |',
              '|---|---|---|---|']
    for r in fails[:limit]:
        fd = failing(r.diffs, strict)
        lines.append('| %s | %s | %s | %s |' % (
            r.item['id'], cell(short(r.item.get('what', ''), 110)),
            cell(describe(fd[0])), len(fd) - 1 or ''))
    if len(fails) > limit:
        lines.append('\n%d more failed items (offload/compare.py '
                     '--list prints them all).' % (len(fails) - limit))
    return lines


def _report_added(results, names, strict):
    """The messages A adds where B has none."""
    added = added_kinds(results)
    if not added:
        return []
    na, nb = names
    lines = ['', '## Messages added by %s' % na, '',
             '%s gave no extack where %s gives one: %s' % (
                 nb.capitalize(), na,
                 'on this strict pair a failure unless declared (the '
                 'items counted "known" above are declared).'
                 if strict else 'not a failure by itself (an item '
                 'with other differences fails for those).'),
             '', '| message | items | e.g. |', '|---|---|---|']
    for k, rs in added:
        ids = list(dict.fromkeys(r.item['id'] for r in rs))
        lines.append('| %s | %d | %s |' % (cell(k), len(ids),
                                            ', '.join(ids[:3])))
    return lines


def _report_known(results, known, names):
    """The declared differences, each with the items it explained."""
    lines = ['', '## Declared differences (offload/known.py%s)' % (
        '' if known is KNOWN else ', %s against %s' % names), '']
    if not known:
        lines.append('None declared.')
    for k in known:
        n = sum(1 for r in results if r.known and k in r.known)
        how = [('`%s`' % k['items']) if k['items'] else 'any item']
        if k.get('fields'):
            how.append(', '.join(k['fields']))
        if k.get('rewrite'):
            how.append('log, exactly: %s' % ' '.join(
                (k['rewrite'].__doc__ or k['rewrite'].__name__).split()))
        said = k.get('a_extack', k.get('ours_extack'))
        if said:
            how.append('where %s said `%s`' % (names[0], said))
        lines.append('- **%s**%s (%d items; %s): %s' % (
            k['name'], ' (stock patch %d)' % k['patch'] if k.get('patch')
            else '', n, ', '.join(how), k['reason']))
    if any(k.get('patch') for k in known):
        lines += series_lines(results, known)
    return lines


def report(results, ours, stock, wall=None, limit=150, problems=(),
           names=NAMES, pair=None, notes=(), made_by=None):
    """docs/offload.md: the page --doc writes."""
    pair = pair or PAIRS[('ours', 'stock')]
    known, strict = pair['known'], pair['strict']
    passed, failed, _ = counts(results)
    failed += len(problems)
    lines = (_report_head(ours, stock, names, pair, notes, made_by) +
             _report_runs(ours, stock, names, wall, problems) +
             _report_sources(results, strict) +
             _report_failures(results, names, strict, limit) +
             _report_added(results, names, strict) +
             _report_known(results, known, names) +
             ['', '%d passed, %d failed' % (passed, failed), ''])
    return '\n'.join(lines)
