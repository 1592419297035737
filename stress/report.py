#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""stress/report.py - docs/reliability.md from one `make stress` run.

usage: python3 -m stress.report [--name NAME] [--out FILE]

Reads build/guest-out/stress/NAME.runs.json (stress/step.py: one entry per
guest boot) and the parts' counts in build/guest-out/stress/NAME/
(<part>.json, <part>.result.json) and writes one Markdown page: what ran,
with which seed and counts, every boot's verdict and splat count, and the
totals the reliability issue asks for (messages fuzzed, faults injected,
churn cycles, packets checked, corpus cases, splats).  It reports what the
files say; a part that did not run is listed as not run, never as zero.

--corpus-out FILE (with --corpus-rc, --corpus-wall, --corpus-log,
--corpus-cmd): the flower corpus was run in a boot of its own on the same
kernel instead of as the run's `corpus` part (e.g. `guest/run --variant
debug -- python3 -m tdc.tdc --strict -c flower -J 2 > FILE 2>&1`); its
TAP output, the exit status of guest/run and its console log (scanned
for splats as step.py does) stand in for the part.
"""

import argparse
import datetime
import os
import sys

from flower import guest
from flower.report import load
from flower.results import summary_line
from stress import scan_console

HERE = os.path.dirname(os.path.realpath(__file__))
REPO = os.path.dirname(HERE)
OUTDIR = os.path.join(REPO, 'build', 'guest-out', 'stress')
PARTS = ('fuzz', 'churn', 'lifecycle', 'corpus')
# make variable of stress/stress.mk for each environment variable
MAKE_VARS = {'STRESS_SEED': 'STRESS_SEED', 'FUZZ_COUNT': 'STRESS_FUZZ_COUNT',
             'CHURN_CYCLES': 'STRESS_CHURN_CYCLES',
             'LIFE_FILTERS': 'STRESS_FILTERS',
             'LIFE_SPACE_RUNS': 'STRESS_SPACE_RUNS'}


def kernel_release(variant):
    path = os.path.join(REPO, 'build', 'obj', variant, 'include', 'config',
                        'kernel.release')
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return '?'


def errnos(d):
    return ', '.join('%s %d' % kv for kv in
                     sorted(d.items(), key=lambda kv: -kv[1])) or 'none'


def part_lines(name, part, counts, result):
    """Bullets for one part, from its <part>.json (and .result.json)."""
    if result is None:
        return ['- **%s:** not run' % part]
    head = '- **%s:** %d checks passed, %d failed (exit %d, %s s guest ' \
        'clock)' % (part, result['passed'], result['failed'],
                    result['exit'], result.get('guest_seconds', '?'))
    out = [head]
    c = counts or {}
    if part == 'fuzz' and c:
        out += ['  - %d messages (seed %d): %d accepted, %d refused (%s); '
                '%d lost, %d timed out' % (
                    c['messages'], c['seed'], c['accepted'],
                    sum(c['refused'].values()), errnos(c['refused']),
                    c['lost'], c['timeouts']),
                '  - %d dumps compared with the model (%d filters in them)'
                % (c['dumps'], c['dumped_filters'])]
    elif part == 'churn' and c:
        out += ['  - %d cycles (seed %d): %s' % (
                    c['cycles'], c['seed'], ', '.join(
                        '%s %d' % kv for kv in c['requests'].items())),
                '  - packets: %d sent, %d accounted for by exactly one '
                'counter' % (c['packets_sent'], c['packets_counted'])]
    elif part == 'lifecycle' and c:
        fs = c.get('failslab') or {}
        big = c.get('big') or {}
        if big:
            out.append('  - %d filters: add %.1f s, dump %.1f s, qdisc '
                       'delete %.1f s, module unload after it %.1f s' % (
                           big['filters'], big['add_s'], big['dump_s'],
                           big['qdisc_del_s'], big['unload_s']))
        if fs:
            out.append('  - failslab: %d faults injected: refused %s; '
                       'acknowledged %d, sendmsg failed %d, reply lost %d; '
                       'fault sites per request kind %s' % (
                           fs['injected'], errnos(fs['refused']),
                           fs.get('acked', 0), fs.get('send failed', 0),
                           fs.get('reply lost', 0), ', '.join(
                               '%s %d' % kv for kv in fs['sites'].items())))
        if 'kmemleak_leaks' in c:
            out.append('  - kmemleak: %s unreferenced objects'
                       % c['kmemleak_leaks'])
    elif part == 'corpus' and 'command' in result:
        out[0] = '- **corpus:** %d checks passed, %d failed (exit %d, own ' \
            'boot)' % (result['passed'], result['failed'], result['exit'])
        out.append('  - flower corpus: %d passed, %d failed, %d skipped '
                   '(`%s`; TAP: %s)' % (
                       result['passed'], result['failed'],
                       result.get('skipped', 0), result['command'],
                       result['output']))
    elif part == 'corpus':
        out.append('  - flower corpus: %d passed, %d failed, %d skipped '
                   '(TAP: build/guest-out/stress/%s/corpus.tap)' % (
                       result['passed'], result['failed'],
                       result.get('skipped', 0), name))
    return out


def corpus_run(a):
    """The separate corpus boot of --corpus-out as a boot entry (as in
    NAME.runs.json) and a part result (as in corpus.result.json)."""
    with open(a.corpus_out, errors='replace') as f:
        text = f.read()
    # nothing after the line, not even a space
    passed, failed, skipped = summary_line(text, trailing_space=False) or \
        (0, 1, 0)
    splats = None
    if a.corpus_log and os.path.exists(a.corpus_log):
        splats = len(scan_console.scan(a.corpus_log)[0])
    rc = a.corpus_rc
    verdict = 'ok'
    if splats or rc == 3:
        verdict = 'kernel splat'
    elif rc not in (0, 1):
        verdict = guest.verdict(rc) or 'exit %d' % rc
    if verdict != 'ok' or (rc and not failed):
        failed += 1
    boot = {'parts': ['corpus'], 'variant': a.corpus_variant, 'rc': rc,
            'wall_seconds': a.corpus_wall or 0,
            'console_log': os.path.abspath(a.corpus_log or '?'),
            'splats': splats, 'passed': passed, 'failed': failed,
            'verdict': verdict, 'separate': True}
    result = {'part': 'corpus', 'passed': passed, 'failed': failed,
              'skipped': skipped, 'exit': rc, 'command': a.corpus_cmd,
              'output': os.path.relpath(os.path.abspath(a.corpus_out), REPO)}
    return boot, result


def failure_lines(name, part, result, first=5):
    """The first FAIL lines of a part that failed (from <part>.out, or
    the corpus boot's TAP: `not ok` lines), so the page says what
    failed."""
    if not result or not result['failed']:
        return []
    path = os.path.join(REPO, result['output']) if 'output' in result \
        else os.path.join(OUTDIR, name, '%s.out' % part)
    try:
        with open(path, errors='replace') as f:
            lines = [ln.rstrip('\n') for ln in f
                     if ln.startswith(('FAIL', 'not ok'))]
    except OSError:
        return []
    out = ['  - first failures (of %d lines in `%s`):' % (
        len(lines), os.path.relpath(path, REPO))]
    for ln in lines[:first]:
        ln = ln if len(ln) <= 300 else ln[:297] + '...'
        out.append('    - `%s`' % ln.replace('`', "'"))
    return out if lines else []


def report(name, a=None):
    runs = load(os.path.join(OUTDIR, '%s.runs.json' % name))
    if runs is None:
        raise SystemExit('report.py: no %s.runs.json in %s (run make '
                         'stress first)' % (name, OUTDIR))
    pdir = os.path.join(OUTDIR, name)
    counts = {p: load(os.path.join(pdir, '%s.json' % p)) for p in PARTS}
    results = {p: load(os.path.join(pdir, '%s.result.json' % p))
               for p in PARTS}
    ran = [p for r in runs['runs'] for p in r['parts']]
    for p in PARTS:
        if p not in ran:    # a file left from an earlier run
            counts[p] = results[p] = None
    stress_wall = runs['wall_seconds']
    if a is not None and a.corpus_out and 'corpus' not in ran:
        boot, results['corpus'] = corpus_run(a)
        runs['runs'].append(boot)
        runs['wall_seconds'] += boot['wall_seconds']
    env = dict(e.split('=', 1) for e in runs['env'])
    variant = runs['variant']
    splats = sum(r.get('splats') or 0 for r in runs['runs'])
    passed = sum(r['passed'] for r in runs['runs'])
    failed = sum(r['failed'] for r in runs['runs'])
    when = datetime.datetime.utcfromtimestamp(os.path.getmtime(
        os.path.join(OUTDIR, '%s.runs.json' % name)))
    again = 'make stress ' + ' '.join(
        '%s=%s' % (MAKE_VARS[k], v) for k, v in env.items() if k in MAKE_VARS)
    if variant != 'debug':
        again += ' STRESS_VARIANT=%s' % variant

    fz, ch, lc = counts['fuzz'] or {}, counts['churn'] or {}, \
        counts['lifecycle'] or {}
    corpus = results['corpus']
    separate = corpus is not None and 'command' in corpus

    def num(d, key, fmt='%d'):
        return fmt % d[key] if d and key in d else 'not run'

    out = ['# Reliability: one `make stress` run', '',
           'Written by `stress/report.py` from `build/guest-out/stress/%s*`;'
           ' the run ended %s UTC.  Kernel: `%s` variant %s (KASAN, '
           'kmemleak, lockdep, PROVE_RCU, DEBUG_ATOMIC_SLEEP, failslab; '
           '`panic_on_warn=1`: `kernel/debug.config`), QEMU TCG.  Every '
           'guest console log was scanned for splats (`guest/run`, '
           '`stress/scan_console.py`).'
           % (name, when.strftime('%Y-%m-%d %H:%M'), variant,
              kernel_release(variant)), '',
           'Reproduce: `%s` (parts: %s)%s.' % (
               again + (' STRESS_PARTS="%s"' % ' '.join(ran)
                        if ran != list(PARTS) else ''), ' '.join(ran),
               ('; the flower corpus ran in a boot of its own on the same '
                'kernel: `%s`' % corpus['command']) if separate else ''),
           '',
           '## Totals', '',
           '| what | count |', '|---|---|',
           '| netlink messages fuzzed | %s |' % num(fz, 'messages'),
           '| ... of them refused (each errno checked against the model) | %s |'
           % (sum(fz['refused'].values()) if fz else 'not run'),
           '| filter dumps compared with the model | %s |'
           % num(fz, 'dumps'),
           '| faults injected (failslab) | %s |'
           % ((lc.get('failslab') or {}).get('injected', 'not run')),
           '| churn cycles under traffic | %s |' % num(ch, 'cycles'),
           '| packets sent / accounted for | %s / %s |'
           % (num(ch, 'packets_sent'), num(ch, 'packets_counted')),
           '| filters in the big qdisc delete | %s |'
           % ((lc.get('big') or {}).get('filters', 'not run')),
           '| kmemleak unreferenced objects | %s |'
           % lc.get('kmemleak_leaks', 'not run'),
           '| corpus cases on this kernel (passed / failed / skipped) | %s |'
           % ('%d / %d / %d' % (corpus['passed'], corpus['failed'],
                                corpus.get('skipped', 0))
              if corpus else 'not run'),
           '| checks passed / failed (all parts) | %d / %d |'
           % (passed, failed),
           '| **kernel splats** (KASAN, lockdep, RCU, WARN, BUG, '
           'kmemleak) | **%d** |' % splats, '',
           '## Guest boots', '',
           '| parts | verdict | wall s | boot s | passed | failed | splats '
           '| console log |', '|---|---|---|---|---|---|---|---|']
    for r in runs['runs']:
        out.append('| %s | %s | %.0f | %s | %d | %d | %s | `%s` |' % (
            '+'.join(r['parts']) + (' (own boot)' if r.get('separate')
                                    else ''),
            r['verdict'], r['wall_seconds'],
            '%.1f' % r['boot_seconds'] if 'boot_seconds' in r else '?',
            r['passed'], r['failed'], r.get('splats', '?'),
            os.path.relpath(r['console_log'], REPO)))
    out += ['', 'Wall time in total: %.0f s%s.' % (
        runs['wall_seconds'], (' (`make stress` %.0f s, the corpus boot '
                               '%.0f s)' % (stress_wall, runs['wall_seconds']
                                            - stress_wall))
        if separate else ''), '',
            '## Parts', '']
    for p in PARTS:
        out += part_lines(name, p, counts[p], results[p])
        out += failure_lines(name, p, results[p])
    out += ['', 'What each part does: `stress/README.md`.', '']
    return '\n'.join(out)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--name', default='stress')
    p.add_argument('--out', default=os.path.join(REPO, 'docs',
                                                 'reliability.md'))
    p.add_argument('--corpus-out', metavar='FILE',
                   help='output (TAP) of the corpus run in a boot of its '
                        'own, when the run left the corpus part out')
    p.add_argument('--corpus-rc', type=int, default=0,
                   help="guest/run's exit status of that boot")
    p.add_argument('--corpus-wall', type=float, default=0,
                   help='its wall time in seconds')
    p.add_argument('--corpus-log', metavar='FILE',
                   help='its console log (scanned for splats)')
    p.add_argument('--corpus-variant', default='debug')
    p.add_argument('--corpus-cmd', default='guest/run --variant debug -- '
                   '/usr/bin/python3 -m tdc.tdc --strict -c flower -J 2',
                   help='the command, for the page')
    a = p.parse_args(argv)
    text = report(a.name, a)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, 'w') as f:
        f.write(text)
    print('report.py: wrote %s' % a.out)
    return 0


if __name__ == '__main__':
    sys.exit(main())
