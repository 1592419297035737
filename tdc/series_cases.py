# SPDX-License-Identifier: GPL-2.0
"""tdc.series_cases - which step of the patch series a tdc case can run at.

kernel/series/families says what each step of kernel/series/series adds
(key families such as vlan or tunnel, and features: masks, templates).
A case runs at the first step at which every family it needs exists,
and at every later one; what it needs is its own field, which
tdc/case_families.py reads (families()) and derives from its commands
(used_families()).  Each step's run is here too: in the guest, its cases
and the tree's forwarding selftests on its module; on the host, the
report, with the selftests judged along the series (judge_selftests).

    python3 -m tdc.series_cases list            every case: its step, families
    python3 -m tdc.series_cases steps [STEP...]  the steps' names (all, or
        those given by name or number)
    python3 -m tdc.series_cases ids STEP        ids of the cases run at STEP
    python3 -m tdc.series_cases run OUT STEP=KO... (in the guest) for each
        step, load KO as cls_flower and run its cases (TAP in
        OUT/STEP.tap), then the tree's SELFTESTS (OUT/STEP.SCRIPT.raw)
    python3 -m tdc.series_cases report OUT STEP...  per step and overall
        "N passed, N failed" from those files (the selftests judged along
        the series: judge_selftests)
"""

import argparse
import collections
import glob
import json
import os
import subprocess
import sys
import time

from flower import guest
from flower import selftests as selftest_output
from flower.results import parse_tap as read_tap
from tdc import case_families, tdc

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAMILIES_FILE = os.path.join(REPO, 'kernel', 'series', 'families')
SERIES_FILE = os.path.join(REPO, 'kernel', 'series', 'series')
CASES = os.path.join(REPO, 'tc-tests', 'filters', 'flower')

# The tree's forwarding selftests that every step's module runs after its
# cases (selftests/in-guest, from the extracted 6.1 tree): the scripts
# that exercise flower.  Raw output in OUT/STEP.SCRIPT.raw.
SELFTESTS = ('tc_flower.sh', 'tc_chains.sh')
FWD = os.path.join(REPO, 'build', 'src', 'pristine', 'tools', 'testing',
                   'selftests', 'net', 'forwarding')
IN_GUEST = os.path.join(REPO, 'selftests', 'in-guest')
# a script takes 80 s or so under TCG; lib.sh may wait 600 s for a link
SELFTEST_TIMEOUT = 900
# TESTs that pass before the step that brings what they test, for another
# reason: (script, TEST label) -> that family (kernel/series/families).
# Their OK before its step is no baseline for the no-regression rule
# (judge_selftests' early).
EARLY_PASS = {
    # chain templates come with step 11 (the script ignores its `tc chain
    # add` failing); the filter that does not fit the template is a second
    # mask in prio 1, which steps 01-08 refuse for that and step 09 takes
    ('tc_chains.sh', 'template filter fits'): 'templates',
}

# --- the steps -------------------------------------------------------------
def read_steps(path=FAMILIES_FILE, series=SERIES_FILE):
    """[(step, families it adds)] in order; the steps must be series'."""
    steps = []
    with open(path) as f:
        for line in f:
            words = line.split('#', 1)[0].split()
            if words:
                steps.append((words[0], set(words[1:])))
    with open(series) as f:
        names = [line.split()[0] for line in f
                 if line.split() and not line.startswith('#')]
    if [s for s, _ in steps] != names:
        raise ValueError('{}: the steps are not those of {}: {} vs {}'.format(
            path, series, [s for s, _ in steps], names))
    return steps


def step_of(case, steps):
    """The first step at which every family the case needs exists, or
    None (a family no step declares)."""
    have = set()
    need = case_families.families(case)
    for name, fams in steps:
        have |= fams
        if need <= have:
            return name
    return None


def load_cases(directory=CASES):
    cases = []
    for path in sorted(glob.glob(os.path.join(directory, '*.json'))):
        with open(path) as f:
            cases += json.load(f)
    return cases


def select(step, steps, cases, shard=None):
    """The ids of the cases that run at `step` (their step is it or
    an earlier one), in corpus order; shard (K, N): only tdc.py's shard K
    of N of them (tdc.py --shard: by a hash of the id)."""
    order = [s for s, _ in steps]
    upto = set(order[:order.index(step) + 1])
    return [c['id'] for c in cases if step_of(c, steps) in upto and
            (not shard or tdc.shard_of(c, shard[1]) == shard[0])]


def resolve(step, steps):
    """A step by its name or its number prefix ("02")."""
    names = [s for s, _ in steps]
    hits = [s for s in names if s == step or s.split('-')[0] == step]
    if len(hits) != 1:
        raise SystemExit('series_cases: no step {!r} in {}'.format(
            step, ' '.join(names)))
    return hits[0]


# --- in the guest ----------------------------------------------------------
def load(ko):
    """cls_flower := ko: rmmod the loaded one (retried: the module stays
    busy for an RCU grace period after its last filter), insmod, and check
    that the module answering is ko (not an autoloaded other)."""
    deadline = time.monotonic() + 60
    while os.path.exists('/sys/module/cls_flower'):
        if subprocess.run(['rmmod', 'cls_flower'],
                          capture_output=True).returncode == 0:
            break
        if time.monotonic() > deadline:
            return 'rmmod cls_flower still fails after 60 s'
        time.sleep(0.5)
    rc = subprocess.run(['insmod', ko], capture_output=True, text=True)
    if rc.returncode:
        return 'insmod {}: {}'.format(ko, rc.stderr.strip())
    if guest.loaded_srcversion() != guest.file_srcversion(ko):
        return 'loaded cls_flower srcversion {} is not {}\'s'.format(
            guest.loaded_srcversion(), ko)
    return None


def selftest(out, step, ko, script):
    """Run the tree's forwarding selftest script on ko, its output into
    out/STEP.SCRIPT.raw.  ko is loaded again first when the module
    answering is another (a case may have removed it, and the script
    would then autoload the final one from build/mod)."""
    raw = os.path.join(out, '{}.{}.raw'.format(step, script))
    start = time.monotonic()
    with open(raw, 'w') as f:
        answering = guest.loaded_srcversion() == guest.file_srcversion(ko)
        error = None if answering else load(ko)
        if error:
            f.write('### series_cases: {}\n'.format(error))
            rc = error
        else:
            # timeout kills the script's process group too
            rc = subprocess.run(['timeout', '-k', '10',
                                 str(SELFTEST_TIMEOUT), IN_GUEST, FWD,
                                 script], stdout=f, stderr=subprocess.STDOUT,
                                cwd=REPO).returncode
    print('series_cases: {}: {}: exit {} after {:.0f} s'.format(
        step, script, rc, time.monotonic() - start), flush=True)


def run(out, pairs, jobs, shard=None):
    """For each STEP=KO: load KO, run STEP's cases into out/STEP.tap (KO
    is STEP's module but to see the check fail: another step's), then
    the SELFTESTS on it.  A step that cannot load its module gets
    out/STEP.error.  A step with out/STEP.classic (make series-corpus
    writes it: the step has no cls_flower.c, its module is the tree's
    own flower from cls_flower_classic.c) runs no case, only SELFTESTS."""
    steps = read_steps()
    cases = load_cases()
    rc = 0
    for pair in pairs:
        step, ko = pair.split('=')
        step = resolve(step, steps)
        classic = os.path.exists(os.path.join(out, step + '.classic'))
        ids = [] if classic else select(step, steps, cases, shard)
        tap = os.path.join(out, step + '.tap')
        for stale in [tap, os.path.join(out, step + '.error')] + [
                os.path.join(out, '{}.{}.raw'.format(step, script))
                for script in SELFTESTS]:
            if os.path.exists(stale):
                os.remove(stale)
        with open(os.path.join(out, step + '.ids'), 'w') as f:
            f.write('\n'.join(ids) + '\n')
        error = load(ko)
        if error:
            with open(os.path.join(out, step + '.error'), 'w') as f:
                f.write(error + '\n')
            print('series_cases: {}: {}'.format(step, error), flush=True)
            rc = 1
            continue
        print('series_cases: {}: {} cases on {}'.format(step, len(ids), ko),
              flush=True)
        if ids:
            r = subprocess.run([sys.executable, '-m', 'tdc.tdc', '-J',
                                str(jobs), '--tap', tap, '-e'] + ids,
                               cwd=REPO)
            rc = rc or r.returncode
        for script in SELFTESTS:
            selftest(out, step, ko, script)
    return rc


# --- on the host -----------------------------------------------------------
def tap_counts(path):
    """(passed, failed, failed ids) of a TAP file; a skip or a case that
    never reported counts as failed."""
    with open(path) as f:
        tap = read_tap(f, indented_plan=True)
    failed = [r.id for r in tap.results if not r.ok or r.skip is not None]
    passed = len(tap.results) - len(failed)
    plan = tap.plans[-1] if tap.plans else None
    missing = (plan or 0) - passed - len(failed)
    return passed, len(failed) + max(missing, 0), failed


def selftest_rows(path, script):
    """([(key, label, status)] of flower.selftests.rows_of, the script's
    own seconds or None) of a raw output; (None, None) without one."""
    if not os.path.exists(path):
        return None, None
    with open(path, errors='replace') as f:
        raw = f.read()
    tests = selftest_output.all_tests(os.path.join(FWD, script))
    segs, _, seconds, _, _ = selftest_output.parse(raw, tests)
    return [row[:3] for row in selftest_output.rows_of(segs, tests)], seconds


Verdict = collections.namedtuple('Verdict', 'passed failed not_yet early')
TESTED = ('OK', 'FAIL', 'SKIP')         # a TEST line's statuses


def judge_selftests(runs, last, early=None):
    """The oracle over one script's results along the series.  runs:
    [(step, classic, rows)] in the order of the series, rows those of
    selftest_rows() (None: no output); last: the step the series ends
    at, when it is among them (else None); early: {TEST label: steps
    where its OK is no baseline} (EARLY_PASS).
    Returns ({step: Verdict}, {key: [label, first step OK or None]}):
    passed (labels), failed ((label, why)), not_yet ((label, status)),
    early (labels OK there but no baseline).
    A script without a TEST line fails.  A classic step (the tree's own
    flower) must pass every TEST, and stands apart: the rewrite's steps
    start over after it.  At the others a TEST OK at an earlier step must
    be OK, one printed at an earlier step must be printed, and at the
    last step every TEST must be OK (and every test function print one);
    anything else not OK is "not yet", which counts neither way."""
    early = early or {}
    verdicts, first = {}, {}
    ok_at, seen_at = {}, {}     # key -> the step where it was OK, printed
    for step, classic, rows in runs:
        v = Verdict([], [], [], [])
        rows = rows or []
        tested = [(key, label) for key, label, status in rows
                  if status in TESTED]
        if not tested:
            v.failed.append(('(script)', 'printed no TEST line'
                             if rows else 'no output'))
        for key, label in tested:
            first.setdefault(key, [label, None])
        for key, label, status in rows:
            if status == 'OK':
                v.passed.append(label)
            elif classic:
                v.failed.append((label, status + ' on the tree\'s own flower'))
            elif key in ok_at:
                v.failed.append((label, '{}, OK at {}'.format(status,
                                                              ok_at[key])))
            elif step == last:
                v.failed.append((label, status + ' at the last step'))
            else:
                v.not_yet.append((label, status))
        if not classic and tested:
            keys = {key for key, _ in tested}
            v.failed.extend((label, 'missing, printed at ' + at)
                            for key, (label, at) in seen_at.items()
                            if key not in keys)
            for key, label in tested:
                seen_at.setdefault(key, (label, step))
            for key, label, status in rows:
                if status == 'OK' and step in early.get(label, ()):
                    v.early.append(label)
                elif status == 'OK':
                    ok_at.setdefault(key, step)
                    first[key][1] = first[key][1] or step
        verdicts[step] = v
    return verdicts, first


def selftests_table(tables, classic_steps):
    """The markdown table of every script's TESTs and the first step at
    which each is OK (a classic step's apart: a column of its own);
    tables: [(script, first of judge_selftests(), {classic step: rows})]."""
    lines = ['| script | test | OK from step |' +
             ''.join(' {} (the tree\'s flower) |'.format(c)
                     for c in classic_steps),
             '|---|---|---|' + '---|' * len(classic_steps)]
    for script, first, classic_rows in tables:
        status = {c: {key: st for key, _, st in classic_rows.get(c) or ()}
                  for c in classic_steps}
        for key, (label, step) in first.items():
            lines.append('| {} | {} | {} |'.format(
                script, label.replace('|', '\\|'), step or 'never') +
                ''.join(' {} |'.format(status[c].get(key, '-'))
                        for c in classic_steps))
    return lines


def read_same(out, order):
    """{step: the step before whose cls_flower.c it has} of the steps of
    order that out/STEP.same names (make series-corpus does not run them
    again)."""
    same = {}
    for step in order:
        if os.path.exists(os.path.join(out, step + '.same')):
            with open(os.path.join(out, step + '.same')) as f:
                same[step] = f.read().strip()
    return same


def judge_series_selftests(out, steps, ran, classic, last):
    """judge_selftests() over each of SELFTESTS' raw outputs at the steps
    that ran (classic: those of the tree's own flower; last: the last
    step's module).  Returns ({script: {step: Verdict}}, the tables of
    selftests_table(), {(step, script): its own seconds or None})."""
    order = [s for s, _ in steps]
    brings = {}
    for step, fams in reversed(steps):
        brings.update(dict.fromkeys(fams, step))
    judged, tables, seconds = {}, [], {}
    for script in SELFTESTS:
        runs = []
        for step in ran:
            rows, seconds[step, script] = selftest_rows(
                os.path.join(out, '{}.{}.raw'.format(step, script)), script)
            runs.append((step, step in classic, rows))
        early = {label: order[:order.index(brings[fam])]
                 for (s, label), fam in EARLY_PASS.items() if s == script}
        verdicts, first = judge_selftests(runs, last if last in ran
                                          else None, early)
        judged[script] = verdicts
        tables.append((script, first, {s: r for s, c, r in runs if c}))
    return judged, tables, seconds


def step_case_counts(path, want, classic):
    """(passed, failed, why or '', failed ids) of a step's cases from its
    files (path: out/STEP); want: how many cases it selected."""
    if os.path.exists(path + '.error'):
        with open(path + '.error') as f:
            return 0, max(want, 1), f.read().strip(), []
    if classic:
        return 0, 0, ('no net/sched/cls_flower.c: the tree\'s own flower, '
                      'no case (only the selftests)'), []
    if not want:
        return 0, 1, 'no case selected: nothing tested', []
    if not os.path.exists(path + '.ids'):
        return 0, want, 'not reached: the guest run ended before it', []
    p, fl, failed = tap_counts(path + '.tap')
    why = ''
    if p + fl < want:
        why = '{} of {} selected cases never reported'.format(
            want - p - fl, want)
        fl = want - p
    return p, fl, why, failed


def report_step_cases(out, step, classic, steps, cases, shard):
    """Print a step's "N passed, N failed" of its cases; (passed,
    failed)."""
    path = os.path.join(out, step)
    if os.path.exists(path + '.ids'):     # the guest reached the step
        with open(path + '.ids') as f:
            want = len(f.read().split())
    else:
        want = 0 if classic else len(select(step, steps, cases, shard))
    p, fl, why, failed = step_case_counts(path, want, classic)
    print('series-corpus: {}: {} passed, {} failed{}{}'.format(
        step, p, fl, ' (' + why + ')' if why else '',
        ': ' + ' '.join(failed[:20]) + (' ...' if len(failed) > 20 else '')
        if failed else ''))
    return p, fl


def report_step_selftests(step, judged, seconds):
    """Print a step's verdicts of SELFTESTS (judge_series_selftests());
    (passed, failed): each TEST counts."""
    passed = failed = 0
    for script in SELFTESTS:
        v = judged[script][step]
        took = seconds[step, script]
        print('series-corpus: {}: {}: {} passed, {} failed{}{}'.format(
            step, script, len(v.passed), len(v.failed),
            ', {} not yet'.format(len(v.not_yet)) if v.not_yet else '',
            ' ({:.0f} s)'.format(took) if took is not None else ''))
        for label, why in v.failed:
            print('series-corpus: {}: {}: FAIL {}: {}'.format(
                step, script, label, why))
        for label, status in v.not_yet:
            print('series-corpus: {}: {}: not yet {} ({})'.format(
                step, script, label, status))
        for label in v.early:
            print('series-corpus: {}: {}: OK before the step that '
                  'brings what it tests, no baseline: {} '
                  '(EARLY_PASS)'.format(step, script, label))
        passed += len(v.passed)
        failed += len(v.failed)
    return passed, failed


def report_selftests_table(out, tables, classic, ran, last):
    """Print the table of the first step each TEST passes at, and write
    it into out/selftests.md."""
    table = selftests_table(tables, classic)
    print('series-corpus: the first step each selftest passes at:')
    print('\n'.join(table))
    if last not in ran:
        print('series-corpus: {} (the last step\'s module) did not run: '
              'the rule that every TEST passes there was not '
              'applied'.format(last))
    with open(os.path.join(out, 'selftests.md'), 'w') as f:
        f.write('# The tree\'s forwarding selftests along the series\n\n'
                'Written by make series-corpus (tdc/series_cases.py), '
                'steps run: {}.  "OK from step": the first of them at '
                'which the TEST passed (an EARLY_PASS before its step '
                'aside); "never": none of them.\n\n'.format(
                    ' '.join(ran)) + '\n'.join(table) + '\n')


def report(out, names, guest_rc=0, shard=None):
    """Per step and overall "N passed, N failed"; 1 when any failed: the
    step's cases and its SELFTESTS (judge_selftests(): each TEST result
    counts), then the table of the first step each TEST passes at (also
    into out/selftests.md).  A step whose cls_flower.c is the step
    before's (out/STEP.same names it) is not run again; a guest that
    splatted or died fails the run."""
    steps = read_steps()
    cases = load_cases()
    order = [s for s, _ in steps]
    names = sorted({resolve(n, steps) for n in names}, key=order.index)
    same = read_same(out, order)
    ran = [s for s in names if s not in same]
    classic = [s for s in ran
               if os.path.exists(os.path.join(out, s + '.classic'))]
    # the last step's module: the series' last, or the step it equals
    last = same.get(order[-1], order[-1])
    judged, tables, seconds = judge_series_selftests(out, steps, ran,
                                                     classic, last)
    total_p = total_f = 0
    for step in names:
        if step in same:
            print('series-corpus: {}: net/sched/cls_flower.c is {}\'s: '
                  'not run again'.format(step, same[step]))
            continue
        cases_p, cases_f = report_step_cases(out, step, step in classic,
                                             steps, cases, shard)
        tests_p, tests_f = report_step_selftests(step, judged, seconds)
        total_p += cases_p + tests_p
        total_f += cases_f + tests_f
    if ran:
        report_selftests_table(out, tables, classic, ran, last)
    if guest_rc == guest.EXIT_SPLAT or guest_rc >= guest.EXIT_DIED:
        print('series-corpus: guest/run exit {}: a kernel splat or the guest '
              'died (above, and build/logs/console-series-corpus.log)'
              .format(guest_rc))
        total_f += 1
    print('{} passed, {} failed'.format(total_p, total_f))
    return 1 if total_f or not total_p else 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = p.add_subparsers(dest='cmd', required=True)
    sub.add_parser('list')
    sub.add_parser('steps').add_argument('steps', nargs='*')
    sub.add_parser('ids').add_argument('step')
    s = sub.add_parser('run')
    s.add_argument('out')
    s.add_argument('pairs', nargs='+', metavar='STEP=KO')
    s.add_argument('-J', type=int, default=2)
    s.add_argument('--shard', type=tdc.parse_shard, metavar='K/N')
    s = sub.add_parser('report')
    s.add_argument('out')
    s.add_argument('steps', nargs='*')
    s.add_argument('--guest-rc', type=int, default=0)
    s.add_argument('--shard', type=tdc.parse_shard, metavar='K/N')
    args = p.parse_args(argv)
    steps = read_steps()
    if args.cmd == 'list':
        for case in load_cases():
            fams = ' '.join(sorted(case_families.families(case)))
            print('{}  {:<26} {}'.format(
                case['id'], step_of(case, steps) or '(none)', fams))
    elif args.cmd == 'steps':
        print(' '.join(resolve(s, steps) for s in args.steps) if args.steps
              else ' '.join(s for s, _ in steps))
    elif args.cmd == 'ids':
        print('\n'.join(select(resolve(args.step, steps), steps,
                               load_cases())))
    elif args.cmd == 'run':
        return run(args.out, args.pairs, args.J, args.shard)
    else:
        return report(args.out, args.steps or [s for s, _ in steps],
                      args.guest_rc, args.shard)
    return 0


if __name__ == '__main__':
    sys.exit(main())
