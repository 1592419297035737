# SPDX-License-Identifier: GPL-2.0
"""compare.py's docs/difftest.md.
"""
import json
import os
import subprocess
import time

from difftest.classes import (DESIGN, OURS_BUGS, STOCK_BUGS, STRICT_DECLARED,
                              class_title)
from difftest.checks import (ct_counts, dump_counts, lenient_counts,
                             tunnel_counts)
from difftest.tdc_cases import frame_summary


def commit():
    """The repository's commit (short), and "with uncommitted changes in
    kernel/" when the kernel sources differ from it."""
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

    def git(*args):
        return subprocess.run(['git', '-C', repo] + list(args),
                              capture_output=True, text=True).stdout.strip()
    head = git('rev-parse', '--short', 'HEAD') or '?'
    dirty = git('status', '--porcelain', '--', 'kernel')
    return head + (' with uncommitted changes in kernel/' if dirty else '')


# what the kernel compared with ours is, in the report (compare.py
# --stock-name)
MODULE = {'stock': 'pristine cls_flower.ko',
          'stock-next': 'cls_flower.ko of the pristine file with '
                        'kernel/stock-series'}


def write_doc(path, cases, ours, stock, compared, nv, divs, by_class, lines,
              shrunk, tdc, wall, name='stock', strict=False):
    """name: the kernel compared with ours (compare.py --stock-name);
    strict: compare.py's strict mode (against stock-next)."""
    # each part is a list of lines, joined with newlines below: a line
    # that ends in '\n' leaves a blank line after it
    w = doc_header(cases['seed'], name, strict)
    w += run_table(ours, stock, nv, name)
    w += coverage_paragraphs(cases, ours, stock, compared, wall)
    w += class_table(by_class, strict)
    w += known_tables(name, strict)
    w += divergence_listing(lines)
    w += reproducer_sections(shrunk, tdc)
    with open(path, 'w') as fp:
        fp.write('\n'.join(w) + '\n')


def doc_header(seed, name, strict):
    """The title and where the doc came from (the make target differs
    against stock-next)."""
    when = time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())
    if name == 'stock':
        w = ['# Differential oracle: ours vs the 6.1 tree\'s flower\n',
             'Written by `make difftest` (difftest/difftest.mk, '
             'difftest/README.md) from one run: seed %s, %s, commit '
             '%s.\n' % (seed, when, commit())]
    else:
        w = ['# Differential oracle: ours vs %s\n' % name,
             'Written by `make difftest DT_STOCK=%s` '
             '(difftest/difftest.mk, difftest/README.md) from one run: '
             'seed %s, %s, commit %s.\n' % (name, seed, when, commit())]
    if strict:
        w.append('Strict mode (issue 32 item 3): %s carries the stock '
                 'series\' fixes, so every divergence fails the run, '
                 'whatever class explains it (the stock bugs below '
                 'included), but a request ours accepts and %s refuses '
                 '(declared).\n' % (name, name))
    return w


def run_table(ours, stock, nv, name):
    """The two kernels side by side: what ran, what it took."""
    return [
        '## Run\n',
        '| | ours | %s |\n|---|---|---|' % name,
        '| kernel | %s | %s (%s) |' % (
            ours['kernel'], stock['kernel'], MODULE.get(name, name)),
        '| cls_flower srcversion | %s | %s |' % (
            ours.get('srcversion'), stock.get('srcversion')),
        '| filters x frames (pairs) | %d | %d |' % (nv['ours'],
                                                    nv['stock']),
        '| filters accepted | %d | %d |' % tuple(
            sum(1 for b in d['batches'] for f in b['filters']
                if not f['err'])
            for d in (ours, stock)),
        '| runner seconds (in guest) | %.1f | %.1f |' % (ours['seconds'],
                                                         stock['seconds']),
        '| seconds per 1,000 verdicts (runner) | %.3f | %.3f |' % (
            1000 * ours['seconds'] / max(1, nv['ours']),
            1000 * stock['seconds'] / max(1, nv['stock'])),
        '']


def coverage_paragraphs(cases, ours, stock, compared, wall):
    """How much was compared: verdicts, tunnel and ct ones, lenient
    requests and dumps."""
    tn, tv, tm, _tr = tunnel_counts(cases, ours, stock)
    cn, cv, cf, cm, _cr = ct_counts(cases, ours, stock)
    ln, lst, lou, lw = lenient_counts(cases, ours, stock)
    dn, dl = dump_counts(cases, ours, stock)
    return [
        'Verdicts compared (pairs whose filter both kernels accepted): '
        '**%d**.  Whole `make difftest` wall time (generation, two '
        'boots, shrinking, two more boots, report): %s s.\n'
        % (compared, wall if wall is not None else '?'),
        'Of them on tunnel devices: %d filters, %d verdicts (%d matches '
        'on both); behind the ct action (chain 1): %d filters, %d '
        'verdicts, %d on the conntrack flows\' frames (%d matches on '
        'both).\n' % (tn, tv, tm, cn, cv, cf, cm),
        'Lenient requests (docs/leniency.md: a key without its '
        'prerequisite, a mask without its key, VLAN values above '
        'their bits, tcp_flags mask bits above 0xfff, unknown '
        'ip_flags bits, an eth_type unlike the protocol, no eth_type, '
        'both tunnel families, unknown attribute types, '
        'TCA_FLOWER_IN_HW_COUNT, attributes longer than their type): '
        '%d, accepted by stock %d, by ours %d, %d of them with a '
        'warning its model gives.  Dumps compared (filters both '
        'kernels accepted): %d, %d of them lenient requests.\n'
        % (ln, lst, lou, lw, dn, dl)]


def class_table(by_class, strict):
    w = ['## Divergences by class\n',
         '| class | divergences |\n|---|---|']
    for c, n in sorted(by_class.items()):
        w.append('| %s | %d |' % (class_title(c), n))
    if not by_class:
        w.append('| none | 0 |')
    w.append('\nA refused filter counts once, so does a dump; a (filter, '
             'frame) pair once.%s\n' % (
                 '  Strict: every row fails the run but "declared".'
                 if strict else ''))
    return w


def known_tables(name, strict):
    """The differences classes.py explains: by design, stock's bugs,
    ours' bugs, and in strict mode what is declared against name."""
    w = []
    for title, head, table in (
            ('## Declared differences (by design)\n', 'class | reason',
             DESIGN),
            ('\n## Known stock bugs\n', 'bug | what', STOCK_BUGS),
            ('\n## Bugs in ours found by the oracle\n', 'bug | what',
             OURS_BUGS)):
        w.append(title)
        w.append('| %s |\n|---|---|' % head)
        w.extend('| %s | %s |' % row for row in table.values())
        if strict and table is STOCK_BUGS:
            w.append('| (strict) | against %s each of these fails the '
                     'run: the series should have fixed it |' % name)
        if not table:
            w.append('| none | since series step 22 ours refuses only what '
                     'stock refuses (docs/leniency.md); the one request '
                     'stock refuses and ours takes on purpose, a replace '
                     'that changes the mask, is not generated here |')
    if strict:
        w.append('\n## Declared against %s (strict mode)\n' % name)
        w.append('| class | what |\n|---|---|')
        w.extend('| %s | %s |' % row for row in STRICT_DECLARED.values())
    return w


# a run with many divergences would bury the rest of the doc
LISTED_LINES = 400


def divergence_listing(lines):
    w = ['\n## Every divergence, grouped by filter\n', '```']
    w.extend(lines[:LISTED_LINES])
    if len(lines) > LISTED_LINES:
        w.append('... %d more lines' % (len(lines) - LISTED_LINES))
    w.append('```\n')
    return w


def reproducer_sections(shrunk, tdc):
    """One section per shrunk divergence: its class, the smallest filter
    (and frame) that still shows it, and its tdc case."""
    w = ['## Reproducers (shrunk, upstream tdc format)\n']
    for r, case in zip(shrunk, tdc):
        p = r['min_packet'] if r['min_filter'] else r.get('packet_obj')
        w.append('### %s\n' % class_title(r['cls'] or 'UNEXPLAINED'))
        w.append('Filter: `%s`' % (r['min_filter'] or
                                   r['filter_obj'])['desc'])
        if p:
            w.append('; frame: `%s` (%s)' % (frame_summary(p['hex']),
                                             p['kind']))
        w.append('\n```json\n%s\n```\n' % json.dumps(case, indent=4))
    return w
