#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""tdc61.py - the corpus under the tdc.py that linux-source-6.1 ships.

usage (from the repository root):
  in the guest:  python3 -m tdc.tdc61 run --out DIR [--tree TREE]
                     [--dev DEV] [--timeout S] FILE...
  on the host:   python3 -m tdc.tdc61 report --ours DIR [--stock DIR]
                     [--out docs/tdc61.md]
                 python3 -m tdc.tdc61 total DIR...   (the parts of one run)

run: the tree's own runner, TREE/tools/testing/selftests/tc-testing/
tdc.py (TREE: build/src/pristine), with its own plugins, as a user of
the tree runs it: `tdc.py -c flower -d DEV -f FILE`, one run per case
file, so that a file cannot take another down.  The runner is read from
the tree, never copied into the repository: its directory is copied to a
scratch directory in the guest's /tmp (6.1's tdc.py loads its plugins and
writes its batch file and results relative to the current directory, and
the tree is read-only in the guest) together with a tdc_config_local.py,
the file 6.1's tdc_config.py imports for local settings:

    EXTRA_NAMES = {'FLNL': '<python3 -m tdc.flowernl of this repository>',
                   'TIMEOUT': S}

FLNL is our netlink tool, for the cases in category "flowernl"
(tc-tests/README.md); TIMEOUT is 6.1's limit for every command (24 s in
its tdc_config.py), which the run sets to the largest "timeout" of the
cases it runs (ours; 6.1 ignores the key; a command of a $FLNL case
starts Python with pyroute2, ~10 s in the emulated guest), at least --timeout.
DEV is a dummy device that 6.1's nsPlugin moves into its namespace (a
flower case needs -d there); it is made again before each file, since
6.1's nsPlugin deletes the namespace, and so the device, at the end of
a run.  A namespace or veth left by a run that died is removed before
the next (6.1's nsPlugin would reuse it).  Before a file with cases that
load the offload test driver (offload.json: they insmod it by a path
relative to the repository root, which 6.1's tdc.py, running from its
own directory, does not find; tdc/corpus.py OFFLOAD_LOAD), the run loads
it from the repository, and unloads it after that file.

Per case it prints "ok N - ID NAME" or "not ok N - ID NAME" with the
reason; a case 6.1's tdc.py skipped, or never reported (the run died),
is "not ok".  Per file a "# FILE: ..." line; then "# N skipped, counted
as failed" and, last, "N passed, N failed" (a skip counts as failed).
Exit status 1 if a case failed.  DIR gets, per file, 6.1's TAP
(FILE.tap), its output (FILE.log), and results.json, which report reads.

report: docs/tdc61.md from the results of one run on ours and one on
stock (the stock cls_flower module), naming the commit measured (DIR/
commit, which make tdc61 writes before the run).  A run made in several
guests at once over disjoint files is given as its parts (--ours DIR
DIR...).

Another runner: --tree TREE takes TREE's tc-testing directory instead
of the pristine tree's; make tdc-upstream runs the corpus so under
upstream's newest tdc.py (assembled in build/upstream-tdc, never copied
into the repository), and make tdc-upstream-report writes
docs/tdc-upstream.md, which names TREE and quotes its PROVENANCE file.
"""

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from flower.results import parse_tap as read_tap
from tdc import corpus
from tdc.commands import FLNL

HERE = os.path.dirname(os.path.realpath(__file__))
REPO = os.path.dirname(HERE)
TREE = os.path.join(REPO, 'build', 'src', 'pristine')
RUNNER_DIR = os.path.join('tools', 'testing', 'selftests', 'tc-testing')
DEV = 'dummy0'
NS = 'tcut'                    # 6.1's tdc_config.py: NAMES['NS'], DEV0
DEV0 = 'v0p0'
DEFAULT_TIMEOUT = 60
FILE_TIMEOUT = 7200            # one file's run, at most (seconds)
REASON_LINES = 12

# 6.1's TdcResults.format_tap: "ok 3 abcd - name", "not ok 3 abcd - name"
# (the failure message on the lines after it, "\t"-indented at first),
# "ok 3 abcd - name # skipped - why": flower.results' dialect '6.1'


# --- run (in the guest) -------------------------------------------------------
def config_local(timeout):
    """The tdc_config_local.py of the run."""
    return ('# tdc_config_local.py, written by tdc/tdc61.py for one run\n'
            '# (tdc_config.py imports it and adds EXTRA_NAMES to NAMES)\n'
            'EXTRA_NAMES = {{\n'
            '    # our netlink tool, for the cases in category "flowernl"\n'
            '    \'FLNL\': {!r},\n'
            '    # every command\'s limit in seconds (tdc_config.py: 24)\n'
            '    \'TIMEOUT\': {!r},\n'
            '}}\n').format(FLNL, timeout)


def scratch_runner(tree, timeout):
    """A scratch copy of the tree's tc-testing directory (without its own
    cases) with our tdc_config_local.py -> its path."""
    src = os.path.join(tree, RUNNER_DIR)
    if not os.path.exists(os.path.join(src, 'tdc.py')):
        raise SystemExit('tdc61: no {}/tdc.py (make tree-pristine)'.format(
            src))
    work = tempfile.mkdtemp(prefix='tdc61-')
    dst = os.path.join(work, 'tc-testing')
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(
        'tc-tests', '__pycache__', 'tdc_config_local.py'))
    with open(os.path.join(dst, 'tdc_config_local.py'), 'w') as f:
        f.write(config_local(timeout))
    return dst


def sh(*argv):
    return subprocess.run(list(argv), stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode


def fresh_devices(dev):
    """What a run before this one left (6.1's nsPlugin reuses a namespace
    $NS that exists, its post_suite does not run when tdc.py dies), and
    the -d device, made again (post_suite deleted it with the
    namespace)."""
    if os.path.exists(os.path.join('/run/netns', NS)):
        sh('ip', 'netns', 'del', NS)
    if os.path.exists(os.path.join('/sys/class/net', DEV0)):
        sh('ip', 'link', 'del', DEV0)
    if not os.path.exists(os.path.join('/sys/class/net', dev)):
        sh('ip', 'link', 'add', dev, 'type', 'dummy')


def offload_driver(cases):
    """Load the offload test driver from the repository if a case of
    `cases` needs it and it is not loaded -> (loaded, note): whether this
    call loaded it, and what to print (None: nothing was needed)."""
    if not any(corpus.needs_offload_driver(c) for c in cases) or \
            os.path.exists(os.path.join('/sys/module',
                                        corpus.OFFLOAD_DRIVER)):
        return False, None
    ko = os.path.join(REPO, corpus.OFFLOAD_KO)
    p = subprocess.run(['insmod', ko], capture_output=True, text=True)
    if p.returncode:
        return False, ('insmod {} failed ({}): its cases cannot make their '
                       'devices (make offload-drv)'.format(
                           ko, p.stderr.strip() or 'exit {}'.format(
                               p.returncode)))
    return True, 'loaded the offload test driver: insmod ' + ko


def parse_tap(text, cases):
    """{id: (status, [reason lines])} from 6.1's TAP for the cases of one
    file; status pass, fail or skip."""
    found = {}
    # a result numbered out of turn is text of the one before
    for r in read_tap(text.splitlines(), '6.1', numbered=True).results:
        status = 'fail' if not r.ok else (
            'skip' if r.skip is not None else 'pass')
        found[r.id] = (status, ([r.skip] if r.skip else []) +
                       r.diagnostics)
    return found


def run_file(runner, path, dev, out_dir):
    """Run one case file under 6.1's tdc.py -> [(case, status, reason
    lines)] in the file's order."""
    cases = corpus.load_file(path)
    base = os.path.splitext(os.path.basename(path))[0]
    tap_path = os.path.join(out_dir, base + '.tap')
    log_path = os.path.join(out_dir, base + '.log')
    for stale in (tap_path, log_path):
        if os.path.exists(stale):
            os.remove(stale)
    fresh_devices(dev)
    loaded, note = offload_driver(cases)
    argv = ['/usr/bin/python3', 'tdc.py', '-c', 'flower', '-d', dev,
            '--outfile', tap_path, '-f', os.path.abspath(path)]
    with open(log_path, 'w') as log:
        if note:
            log.write('# {}\n'.format(note))
            print('# {}: {}'.format(os.path.relpath(path, REPO), note),
                  flush=True)
        log.write('# cd {} && {}\n'.format(runner, ' '.join(argv)))
        log.flush()
        try:
            code = subprocess.run(argv, cwd=runner, stdout=log,
                                  stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL,
                                  timeout=FILE_TIMEOUT).returncode
        except subprocess.TimeoutExpired:
            code = None
    if loaded:
        sh('rmmod', corpus.OFFLOAD_DRIVER)
    with open(log_path) as f:
        printed = f.read()
    tail = [l.rstrip() for l in printed.splitlines() if l.strip()]
    tap = printed.split('\nAll test results: \n', 1)[-1] \
        if '\nAll test results: \n' in printed else ''
    if os.path.exists(tap_path):        # the same TAP, on its own
        with open(tap_path) as f:
            tap = f.read()
    found = parse_tap(tap, cases)
    results = []
    for case in cases:
        status, reason = found.get(case['id'], (None, None))
        if status is None:
            status = 'fail'
            reason = ['not reported by the runner ({}); the end of its '
                      'output:'.format('timed out after {} s'.format(
                          FILE_TIMEOUT) if code is None else
                          'exit {}'.format(code))] + tail[-REASON_LINES:]
        results.append((case, status, reason))
    return results


def cmd_run(args):
    files = [p for p in corpus.case_files(args.files)]
    args.out = os.path.abspath(args.out)
    timeout = max([args.timeout] + [
        c.get('timeout', 0) for p in files for c in corpus.load_file(p)])
    runner = scratch_runner(args.tree, timeout)
    try:
        return run_files(args, files, runner, timeout)
    finally:
        shutil.rmtree(os.path.dirname(runner), ignore_errors=True)


def run_files(args, files, runner, timeout):
    os.makedirs(args.out, exist_ok=True)
    print('# runner: {} (a scratch copy of {})'.format(
        os.path.join(runner, 'tdc.py'), os.path.join(args.tree, RUNNER_DIR)))
    print('# tdc.py -c flower -d {} -f FILE, one run per file; '
          'TIMEOUT {} s'.format(args.dev, timeout), flush=True)
    counts = collections.Counter()
    number, records = 0, []
    start = time.monotonic()
    for path in files:
        began = time.monotonic()
        results = run_file(runner, path, args.dev, args.out)
        here = collections.Counter(status for _, status, _ in results)
        for case, status, reason in results:
            number += 1
            title = '{} - {} {}'.format(number, case['id'], case['name'])
            if status == 'pass':
                print('ok ' + title)
            else:
                print('not ok {}{}'.format(title, ' (skipped)'
                                           if status == 'skip' else ''))
                for line in reason[:REASON_LINES]:
                    print('# ' + line)
            records.append({'id': case['id'], 'name': case['name'],
                            'file': os.path.relpath(path, REPO),
                            'status': status,
                            'reason': reason[:REASON_LINES]})
        counts.update(here)
        print('# {}: {} passed, {} failed, {} skipped ({:.0f} s)'.format(
            os.path.relpath(path, REPO), here['pass'], here['fail'],
            here['skip'], time.monotonic() - began), flush=True)
    with open(os.path.join(args.out, 'results.json'), 'w') as f:
        json.dump({'timeout': timeout, 'dev': args.dev,
                   'seconds': round(time.monotonic() - start),
                   'config_local': config_local(timeout),
                   'results': records}, f, indent=1)
    if counts['skip']:
        print('# {} skipped, counted as failed'.format(counts['skip']))
    print('{} passed, {} failed'.format(counts['pass'],
                                        counts['fail'] + counts['skip']))
    return 1 if counts['fail'] or counts['skip'] or not number else 0


# --- report (on the host) -----------------------------------------------------
def tree_version(tree):
    try:
        with open(os.path.join(tree, 'Makefile')) as f:
            head = f.read(2000)
    except OSError:
        return '?'
    parts = [re.search(r'^{} = (\S*)'.format(k), head, re.M)
             for k in ('VERSION', 'PATCHLEVEL', 'SUBLEVEL')]
    return '.'.join(m.group(1) for m in parts if m)


def load_results(path):
    with open(os.path.join(path, 'results.json')) as f:
        data = json.load(f)
    try:
        with open(os.path.join(path, 'commit')) as f:
            data['commit'] = f.read().strip()
    except OSError:
        data['commit'] = 'unknown (no {}/commit)'.format(path)
    return data


def with_recheck(data, recheck):
    """data (a full run) with the files of recheck (a later run of some
    of them, make tdc61-recheck) taken from recheck: its results in place
    of the full run's for those files, its commit named beside the full
    run's."""
    files = {r['file'] for r in recheck['results']}
    kept = [r for r in data['results'] if r['file'] not in files]
    order = {}
    for r in data['results']:
        order.setdefault(r['file'], len(order))
    results = sorted(kept + recheck['results'],
                     key=lambda r: order.get(r['file'], len(order)))
    names = ', '.join(sorted(os.path.basename(f) for f in files))
    return dict(data, results=results,
                seconds=data['seconds'] + recheck['seconds'],
                recheck=(names, recheck['commit']))


def tally(data):
    c = collections.Counter(r['status'] for r in data['results'])
    return c['pass'], c['fail'], c['skip']


def why(reason, width=150):
    text = ' '.join(l for l in reason if l)
    text = text.replace('Could not match regex pattern. Verify command '
                        'output:', 'pattern not found; printed:')
    if 'printed: [{' in text:           # a JSON dump: its keys and counts
        dump = text.split('printed: ', 1)[1]
        text = text.split('printed: ', 1)[0] + 'printed: ' + ' '.join(
            re.findall(r'"keys":\{[^}]*\}|"packets":\d+', dump)) + ' ...'
    text = re.sub(r'\s+', ' ', text[:width * 2]).replace('|', '\\|')
    return text if len(text) <= width else text[:width - 3] + '...'


def declared(path):
    """{id: cause} of the cases docs/stock-comparison.md (make compare:
    the corpus under our tdc.py on stock and on ours) lists as failing
    on stock only, by the cause it names."""
    found, cause = {}, None
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError:
        return found
    for line in lines:
        m = re.match(r'^### ([\w-]+):', line)
        if m:
            cause = m.group(1)
        m = re.match(r'^\| ([0-9a-f]{4}) \|.*\| pass \| fail \|', line)
        if m and cause:
            found[m.group(1)] = cause
    return found


def runner_words(tree, with_stock=True):
    """How the report names the runner of TREE: (heading, the make
    targets that wrote it, sentence).  The pristine tree is 6.1's; another
    tree (upstream's newest runner, assembled in build/upstream-tdc) is
    named by its path and its PROVENANCE file, if it has one.  Without a
    stock run, the report says it has none."""
    if os.path.realpath(tree) == os.path.realpath(TREE):
        return ('the tdc.py of linux-source-6.1',
                '`make tdc61-report` (tdc/tdc61.py) from `make tdc61` on '
                + ('ours and `make tdc61 VARIANT=stock`' if with_stock else
                   'ours only (no `make tdc61 VARIANT=stock` run was '
                   'given)'),
                'the tree\'s tdc.py: Linux {} (`build/src/pristine/{}/'
                'tdc.py`, its own plugins).'.format(tree_version(tree),
                                                    RUNNER_DIR))
    where = os.path.relpath(os.path.realpath(tree), REPO)
    try:
        with open(os.path.join(tree, 'PROVENANCE')) as f:
            provenance = f.read().rstrip('\n')
    except OSError:
        provenance = '(no PROVENANCE file in {})'.format(where)
    return ('the tdc.py in {}'.format(where),
            '`make tdc-upstream-report` (tdc/tdc61.py) from `make '
            'tdc-upstream`',
            'the runner: `{}/{}/tdc.py` with the plugins beside it, never '
            'copied into the repository; its PROVENANCE file says:\n\n'
            '```\n{}\n```\n'.format(where, RUNNER_DIR, provenance))


def merge_parts(parts):
    """One run from runs over disjoint parts of the file list, at the same
    commit, in guests at once: their results in order, the wall time of
    the longest."""
    commits = sorted({data['commit'] for data in parts})
    if len(commits) != 1:
        raise ValueError('the parts measured different commits: '
                         + ', '.join(commits))
    seen = set()
    for data in parts:
        files = {r['file'] for r in data['results']}
        if files & seen:
            raise ValueError('a file ran in two parts: '
                             + ', '.join(sorted(files & seen)))
        seen |= files
    configs = []
    for data in parts:                  # each part's, once
        if data['config_local'] not in configs:
            configs.append(data['config_local'])
    return dict(parts[0], results=[r for data in parts
                                   for r in data['results']],
                seconds=max(data['seconds'] for data in parts),
                timeout=max(data['timeout'] for data in parts),
                config_local='\n'.join(configs), parts=len(parts))


def report(ours, stock, tree, causes=None):
    runs = [('ours', ours)] + ([('stock', stock)] if stock else [])
    heading, made_by, runner = runner_words(tree, bool(stock))
    lines = ['# The corpus under ' + heading, '',
             'Generated by {}; {}  Commit measured: {}.'.format(
                 made_by, runner, '; '.join(
                     '{} `{}`{}'.format(name, data['commit'], ' (its files '
                                        '{} run again at `{}`)'.format(
                                            *data['recheck'])
                                        if data.get('recheck') else '')
                     for name, data in runs)), '',
             'Each case file runs on its own, as `tdc.py -c flower -d {} -f '
             'FILE` in the guest (a scratch copy of the tree\'s tc-testing '
             'directory in /tmp, with this `tdc_config_local.py`):'.format(
                 ours['dev']), '', '```python',
             ours['config_local'].rstrip('\n'), '```', '',
             'A case the runner skipped, or never reported, counts as '
             'failed.{}'.format(
                 '  The files ran in {} guests at once; the time is the '
                 'longest one\'s.'.format(ours['parts'])
                 if ours.get('parts', 1) > 1 else ''), '',
             '| kernel | cases | passed | failed | skipped | run (guest, '
             'wall) |', '|---|---|---|---|---|---|']
    for name, data in runs:
        p, f, s = tally(data)
        lines.append('| {} | {} | {} | {} | {} | {:.0f} min |'.format(
            name, p + f + s, p, f, s, data['seconds'] / 60))
    causes = causes or {}
    lines += ['', '## By file', '',
              '| file | cases | ' + ' | '.join(
                  '{} passed | failed | skipped'.format(name)
                  for name, _ in runs) + ' |',
              '|---|---|' + '---|---|---|' * len(runs)]
    files = collections.OrderedDict()
    for name, data in runs:
        for r in data['results']:
            files.setdefault(r['file'], collections.defaultdict(
                collections.Counter))[name][r['status']] += 1
    for path, by_run in files.items():
        total = max(sum(c.values()) for c in by_run.values())
        lines.append('| {} | {} | {} |'.format(
            os.path.basename(path), total, ' | '.join(
                '{} | {} | {}'.format(by_run[name]['pass'],
                                      by_run[name]['fail'],
                                      by_run[name]['skip'])
                for name, _ in runs)))
    for name, data in runs:
        bad = [r for r in data['results'] if r['status'] != 'pass']
        lines += ['', '## Cases that do not pass on {}'.format(name), '']
        if not bad:
            lines.append('None.')
            continue
        if name == 'stock':
            known = [r for r in bad if r['id'] in causes]
            lines += ['{} of these {} fail on stock under our tdc.py too: '
                      'differences by design and stock bugs (the README\'s '
                      'tables), by the cause `docs/stock-comparison.md` '
                      'gives them (`make compare`).  {}'.format(
                          len(known), len(bad),
                          'None is a case that fails only here.'
                          if len(known) == len(bad) else
                          'Not there: {}.'.format(', '.join(
                              r['id'] for r in bad if r['id'] not in causes))),
                      '']
        lines += ['| id | file | case | result | {}why (the runner) |'
                  .format('cause (compare) | ' if name == 'stock' else ''),
                  '|---|---|---|---|---|' + ('---|' if name == 'stock'
                                             else '')]
        for r in bad:
            lines.append('| {} | {} | {} | {} | {}{} |'.format(
                r['id'], os.path.basename(r['file']),
                why([r['name']], 70), r['status'],
                causes.get(r['id'], '-') + ' | ' if name == 'stock' else '',
                why(r['reason'])))
    if stock:
        ours_bad = {r['id'] for r in ours['results'] if r['status'] != 'pass'}
        stock_bad = {r['id'] for r in stock['results']
                     if r['status'] != 'pass'}
        lines += ['', 'Stock fails {} cases that pass on ours; ours fails {} '
                  'that pass on stock.'.format(len(stock_bad - ours_bad),
                                               len(ours_bad - stock_bad))]
    return '\n'.join(lines) + '\n'


def cmd_total(args):
    """`N passed, N failed` over the parts of one run (make tdc-upstream),
    a skip counted as failed, and a part without results as one failure
    more (its guest died before the end)."""
    parts, missing = [], 0
    for path in args.parts:
        try:
            parts.append(load_results(path))
        except (OSError, ValueError):
            print('# {}: no results.json'.format(path))
            missing += 1
    passed, failed, skipped = tally(merge_parts(parts)) if parts else (0, 0,
                                                                       0)
    print('{} passed, {} failed'.format(passed, failed + skipped + missing))
    return 1 if failed + skipped + missing or not passed else 0


def cmd_report(args):
    ours = merge_parts([load_results(d) for d in args.ours])
    stock = merge_parts([load_results(d) for d in args.stock]) \
        if args.stock else None
    if args.recheck_ours:
        ours = with_recheck(ours, load_results(args.recheck_ours))
    if args.recheck_stock and stock:
        stock = with_recheck(stock, load_results(args.recheck_stock))
    text = report(ours, stock, args.tree, declared(args.declared))
    with open(args.out, 'w') as f:
        f.write(text)
    print('tdc61: wrote {}'.format(args.out))
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    sub = p.add_subparsers(dest='command', required=True)
    r = sub.add_parser('run', help='run case files under 6.1\'s tdc.py '
                       '(in the guest)')
    r.add_argument('--out', required=True, metavar='DIR')
    r.add_argument('--tree', default=TREE)
    r.add_argument('--dev', default=DEV)
    r.add_argument('--timeout', type=int, default=DEFAULT_TIMEOUT,
                   help='TIMEOUT at least (seconds, default %(default)s)')
    r.add_argument('files', nargs='+', metavar='FILE')
    t = sub.add_parser('total', help='N passed, N failed over the parts of '
                       'one run')
    t.add_argument('parts', nargs='+', metavar='DIR')
    q = sub.add_parser('report', help='write docs/tdc61.md')
    q.add_argument('--ours', required=True, metavar='DIR', nargs='+',
                   help='a run on ours, or its parts (run in several '
                   'guests at once over disjoint files)')
    q.add_argument('--stock', metavar='DIR', nargs='+')
    q.add_argument('--tree', default=TREE)
    q.add_argument('--declared', metavar='FILE', default=os.path.join(
        REPO, 'docs', 'stock-comparison.md'), help='the cases that fail on '
        'stock under our tdc.py, by cause (default %(default)s)')
    q.add_argument('--out', default=os.path.join(REPO, 'docs', 'tdc61.md'))
    q.add_argument('--recheck-ours', metavar='DIR', help='a later run of '
                   'some files on ours, whose results replace the full '
                   'run\'s for them (make tdc61-recheck)')
    q.add_argument('--recheck-stock', metavar='DIR', help='the same for '
                   'stock')
    args = p.parse_args(argv)
    return {'run': cmd_run, 'total': cmd_total,
            'report': cmd_report}[args.command](args)


if __name__ == '__main__':
    sys.exit(main())
