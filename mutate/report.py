"""docs/mutation.md from the campaign's results (any shards, merged).

usage: python3 -m mutate.report [--plan build/mutate/mutants.json]
           [--results DIR...] [--equivalent mutate/equivalent.json]
           [--analysis mutate/analysis.json] [--out docs/mutation.md]

Every DIR holds one <id>.json per mutant (mutate/run.py); several DIRs
(the shards of a CI matrix) merge, and a mutant found twice must have one
verdict.  Results for another commit than the plan's are left out and
counted.  An equivalent mutant is one the hand-written equivalent file
names (with the reason): the generator never decides it.  The kill rate
is killed / (killed + survived and not equivalent).
"""
import argparse
import json
import os
import sys

ORACLES = ['difftest', 'packets', 'cache', 'selftests', 'corpus']
# mutate.run --oracles gate: the gate's own oracles (difftest-gate: the
# mutant against stock-next through difftest/compare.py's classes, as the
# gate's make difftest-smoke DT_STOCK=stock-next judges)
GATE_ORACLES = ['difftest-gate', 'packets', 'cache', 'selftests', 'corpus']
OTHER_KILLERS = ['debug', 'insmod', 'rmmod', 'crash']


def load_results(dirs, commit):
    """{id: result} for the plan's commit, and how many were of another."""
    got, other = {}, 0
    for d in dirs:
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if not name.endswith('.json'):
                continue
            with open(os.path.join(d, name)) as f:
                r = json.load(f)
            if r.get('commit') != commit:
                other += 1
                continue
            old = got.get(r['id'])
            if old and (old['verdict'], old.get('killer')) != (r['verdict'], r.get('killer')):
                raise SystemExit('mutate: %s has two verdicts: %s, %s' % (
                    r['id'], old['verdict'], r['verdict']))
            got[r['id']] = r
    return got, other


def load_notes(path, commit):
    """id -> text from a hand-written {"commit": C, "mutants": {id: text}}."""
    if not path or not os.path.exists(path):
        return {}
    with open(path) as f:
        doc = json.load(f)
    if doc.get('commit') != commit:
        raise SystemExit('mutate: %s is for commit %s, the plan is %s' % (
            path, doc.get('commit'), commit))
    return doc['mutants']


def partial(r):
    """A mutant that passed a run with only some of the oracles: not a
    survivor (the others might kill it), not killed."""
    return r['verdict'] == 'survived' and r.get('order', ORACLES) not in (
        ORACLES, GATE_ORACLES)


def score(plan, got, equivalent, rerun=None):
    """{killed, confirmed, inconclusive, survived, not run, out of,
    measured}: a score over the non-equivalent mutants that were born
    (stillborn and equivalent ones out).  killed: a first failure
    (confirmed or not); confirmed: killed, and the same oracle failed it
    again while m0000 passed it in the same run (mutate.kills.confirm());
    inconclusive: a timeout, a stall, a death without a splat.  rerun:
    the gate's score, whose results (got) cover the mutants the campaign
    killed (rerun: the campaign's results): a campaign survivor counts as
    surviving, a campaign kill with no gate result as not run; and a
    mutant the campaign never ran counts by the gate's own result (make
    mutate-gate SHARD=K/N runs a share of the plan first hand).
    measured: the commits whose oracles judged (the results' 'measured')."""
    s = {'killed': 0, 'confirmed': 0, 'inconclusive': 0, 'survived': 0,
         'not run': 0, 'out of': 0}
    measured = set()
    for m in plan['mutants']:
        i = m['id']
        base = rerun.get(i) if rerun is not None else got.get(i)
        if base is None and rerun is not None:
            base = got.get(i)       # the gate ran it first hand
        if base is None or base['verdict'] == 'stillborn' or partial(base):
            continue
        if base['verdict'] == 'survived' and i in equivalent:
            continue
        s['out of'] += 1
        r = got.get(i) if rerun is None or base['verdict'] != 'survived' else base
        if r is None:
            s['not run'] += 1
            continue
        if r is not base or rerun is None:
            measured.add(r.get('measured') or 'unknown')
        v = r['verdict']
        if v == 'killed':
            s['killed'] += 1
            s['confirmed'] += bool(r.get('confirmed'))
        elif v == 'inconclusive':
            s['inconclusive'] += 1
        elif partial(r):
            s['not run'] += 1
        else:
            s['survived'] += 1
    s['measured'] = sorted(measured)
    return s


def score_line(name, s):
    out = s['out of'] or 1
    return '| %s | %d (%.1f%%) | %d (%.1f%%) | %d | %d | %d | %d | %s |' % (
        name, s['killed'], 100 * s['killed'] / out, s['confirmed'],
        100 * s['confirmed'] / out, s['inconclusive'], s['survived'],
        s['not run'], s['out of'],
        ', '.join('`%s`' % c[:12] for c in s['measured']) or '-')


def scores_section(plan, got, equivalent, gate):
    """The two scores: the campaign's and the gate's (gate: the results
    of mutate.run --oracles gate, None when there are none)."""
    camp = score(plan, got, equivalent)
    w = ['', '## Two scores', '',
         'Out of the non-equivalent mutants that compiled.  "confirmed": '
         'the same oracle failed the mutant a second time (a fresh guest '
         'when the first failure left the guest untrusted) and `m0000` '
         'passed that oracle in the same run; "inconclusive": a timeout, a '
         'stall line (TCG load) or a guest death without a kernel splat, '
         'not a kill.  Campaign: its oracles (%s), each kill against '
         '`m0000`.  Gate: every mutant the campaign killed run again through '
         'the gate\'s own oracles (%s; `difftest-gate` is the mutant against '
         'stock-next through difftest/compare.py\'s classes, as `make '
         'difftest-smoke DT_STOCK=stock-next` judges; `make mutate-gate`); '
         'a campaign survivor counts as a survivor there, and a mutant the '
         'campaign never ran counts by the gate\'s own first-hand result '
         '(`make mutate-gate SHARD=K/N`).  "measured": the '
         'commit whose oracles judged.' % (
             ', '.join('`%s`' % o for o in ORACLES),
             ', '.join('`%s`' % o for o in GATE_ORACLES)),
         '',
         '| score | killed | confirmed | inconclusive | survived | not run '
         '| out of | measured at |',
         '|---|---|---|---|---|---|---|---|',
         score_line('campaign', camp)]
    if gate is None:
        w.append('| gate | - | - | - | - | - | - | not run yet |')
        g = None
    else:
        g = score(plan, gate, equivalent, rerun=got)
        w.append(score_line('gate', g))
    return w, camp, g


def summarize(plan, got, equivalent):
    ids = [m['id'] for m in plan['mutants']]
    s = {'planned': len(ids), 'ran': 0, 'stillborn': 0, 'killed': 0,
         'confirmed': 0, 'inconclusive': 0,
         'survived': 0, 'equivalent': 0, 'partial': 0, 'not run': 0}
    s.update({'killed by ' + k: 0 for k in ORACLES + OTHER_KILLERS})
    for i in ids:
        r = got.get(i)
        if not r:
            s['not run'] += 1
            continue
        s['ran'] += 1
        if r['verdict'] == 'stillborn':
            s['stillborn'] += 1
        elif r['verdict'] == 'killed':
            s['killed'] += 1
            s['killed by ' + r['killer']] = s.get('killed by ' + r['killer'], 0) + 1
            s['confirmed'] += bool(r.get('confirmed'))
        elif r['verdict'] == 'inconclusive':
            s['inconclusive'] += 1
        elif partial(r):
            s['partial'] += 1
        elif i in equivalent:
            s['equivalent'] += 1
        else:
            s['survived'] += 1
    live = s['killed'] + s['survived']
    s['kill rate'] = (s['killed'] / live) if live else None
    return s


def cell(text):
    text = ' '.join(text.split())
    return '`%s`' % text.replace('|', '\\|') if text else '(empty)'


def intro_lines(plan):
    """How the campaign was run: what was mutated, the oracles."""
    return [
        '# Mutation campaign: cls_flower.c',
        '',
        'Written by `make mutate-report` (mutate/report.py) from the '
        'results in',
        '`build/mutate/results/` (`make mutate`, `make mutate SHARD=K/N`; '
        'see',
        '`mutate/README.md`).  Source mutated: `%s` at commit `%s` (never '
        'the' % (plan['path'], plan['commit']),
        'work tree).  Each mutant is one text edit, built as an external '
        'module',
        'against ours\' kernel and run in the guest through the oracles, '
        'cheapest',
        'first: %s; the first failure kills it.  A mutant that does not '
        'compile is' % ', '.join('`%s`' % o for o in ORACLES),
        'stillborn (not counted as killed).  A mutant that survives them '
        'all is',
        'built once more against the debug kernel, its stack variables',
        'pattern-filled, and run in its guest through the `debug` oracle '
        '(`make',
        'mutate-debug`: a workload with failslab, watched by KASAN, lockdep '
        'and a',
        'kmemleak scan, then the packet cases).  Equivalent mutants are '
        'named,',
        'with the reason, by hand in `mutate/equivalent.json`.',
        '']


def progress_lines(s, got, other):
    """How many ran, results left out, the control, cases excluded."""
    ctl = got.get('m0000')
    w = ['**%d of the %d planned mutants have run**%s.' % (
        s['ran'], s['planned'],
        '' if s['ran'] == s['planned']
        else '; the other %d have no result yet' % s['not run'])]
    if other:
        w.append('%d result files of another commit were left out.' % other)
    w.append('Control `m0000` (the unmutated source, same build, same '
             'oracles): %s.'
             % ('**%s**%s (oracles run: %s)' % (
                 ctl['verdict'],
                 ' by ' + ctl['killer'] if ctl.get('killer') else '',
                 ', '.join([o['name'] for o in ctl.get('oracles', [])]))
                if ctl else 'not run'))
    left = sorted({i for r in got.values() for i in r.get('exclude', [])})
    if left:
        w.append('Cases the packets and corpus oracles left out, because '
                 'they fail on the unmutated source too (each tests a '
                 'change made after the commit mutated; '
                 '`mutate.run.baseline`): %s, in the runs of %d mutants.'
                 % (', '.join('`%s`' % i for i in left),
                    sum(1 for r in got.values() if r.get('exclude'))))
    return w


def summary_section(s):
    """The counts of summarize(), and the kill rate."""
    w = ['', '## Summary', '', '| | mutants |', '|---|---|']
    for k in ['planned', 'ran', 'stillborn', 'killed', 'confirmed'] + \
             ['killed by ' + o for o in ORACLES + OTHER_KILLERS] + \
             ['inconclusive', 'survived', 'equivalent', 'partial', 'not run']:
        w.append('| %s | %d |' % (k, s[k]))
    w.append('')
    w.append('"partial": passed the oracles of a shortened run '
             '(`--oracles`), not yet the rest; neither killed nor a '
             'survivor.')
    w.append('')
    w.append('| | |\n|---|---|')
    w.append('| kill rate (killed / killed + survived, equivalents and '
             'partial out) | %s |' % (
                 '%.1f%% of %d (%d partial not counted)' % (
                     100 * s['kill rate'], s['killed'] + s['survived'],
                     s['partial'])
                 if s['kill rate'] is not None else '-'))
    return w


def operator_section(plan, got, equivalent):
    """Verdicts per mutation operator."""
    by_op = {}
    for m in plan['mutants']:
        r = got.get(m['id'])
        v = r['verdict'] if r else 'not run'
        if v == 'survived' and partial(r):
            v = 'partial'
        elif v == 'survived' and m['id'] in equivalent:
            v = 'equivalent'
        by_op.setdefault(m['op'], {}).setdefault(v, 0)
        by_op[m['op']][v] += 1
    cols = ['killed', 'inconclusive', 'survived', 'equivalent', 'partial',
            'stillborn', 'not run']
    w = ['', '## By operator', '', '| operator | ' + ' | '.join(cols) + ' |',
         '|---|' + '---|' * len(cols)]
    for op in sorted(by_op):
        w.append('| %s | %s |' % (op, ' | '.join(str(by_op[op].get(c, 0))
                                                 for c in cols)))
    return w


def oracle_cost_section(got):
    """The median guest seconds of each oracle's passing runs ([] when
    none passed)."""
    secs = {}
    for r in got.values():
        for o in r.get('oracles', []):
            if o.get('ok'):
                secs.setdefault(o['name'], []).append(o['seconds'])
    if not secs:
        return []
    w = ['', '## Oracle cost (passing runs, seconds in the guest)', '',
         '| oracle | runs | median |', '|---|---|---|']
    for o in ORACLES:
        v = sorted(secs.get(o, []))
        if v:
            w.append('| %s | %d | %.0f |' % (o, len(v), v[len(v) // 2]))
    return w


def mutant_line(m):
    """id, operator, line, function, the text before and after."""
    return '**%s** %s line %d (%s): %s -> %s' % (
        m['id'], m['op'], m['line'], m['func'] or '-', cell(m['before']),
        cell(m['after']))


def survivors_section(plan, got, equivalent, analysis):
    """Each survivor, with why it is equivalent or its analysis."""
    surv = [m for m in plan['mutants']
            if got.get(m['id'], {}).get('verdict') == 'survived'
            and not partial(got[m['id']])]
    w = ['', '## Survivors', '']
    if not surv:
        w.append('None among the mutants that ran.')
    for m in surv:
        eq = equivalent.get(m['id'])
        w.append('- %s  ' % mutant_line(m))
        w.append('  %s' % ('equivalent: ' + eq if eq else 'NOT equivalent: ' +
                           analysis.get(m['id'], 'no analysis yet')))
    return w


def closed_holes_section(plan, got, analysis):
    """Mutants analysis.json has that are killed now."""
    # analysis.json keeps why a mutant once survived: one killed since
    # was a hole in the oracles, closed by what its analysis names
    closed = [m for m in plan['mutants'] if m['id'] in analysis and
              got.get(m['id'], {}).get('verdict') == 'killed']
    w = []
    if closed:
        w += ['', '## Holes found and closed', '',
              'Survivors of an earlier run, killed now by the case or oracle '
              'added for them:', '']
    for m in closed:
        w.append('- %s: killed by %s  ' % (mutant_line(m),
                                           got[m['id']]['killer']))
        w.append('  ' + analysis[m['id']])
    return w


def table_verdict(r, mid, equivalent):
    """A mutant's verdict in the table of every mutant."""
    v = r['verdict'] if r else 'not run'
    if v == 'survived' and partial(r):
        v = 'partial (passed %s)' % ', '.join(r['order'])
    elif v == 'survived' and mid in equivalent:
        v = 'equivalent'
    elif v == 'killed' and mid != 'm0000':
        v = 'killed, confirmed' if r.get('confirmed') else 'killed, not confirmed'
    return v


def table_killer(r, v):
    """The killer and why (cut at 120 characters); a stillborn's why."""
    killer = ''
    if r and r.get('killer'):
        killer = r['killer'] + (': ' + ' '.join(r['why'].split())[:120]
                                if r.get('why') else '')
    elif r and v == 'stillborn':
        killer = ' '.join(r.get('why', '').split())[:120]
    return killer


def every_mutant_section(plan, got, equivalent):
    """One row a mutant, the control m0000 first."""
    w = ['', '## Every mutant', '',
         '| id | operator | line | before | after | verdict | killer |',
         '|---|---|---|---|---|---|---|']
    control = {'id': 'm0000', 'op': 'none', 'line': 0, 'before': '',
               'after': ''}
    for m in [control] + plan['mutants']:
        r = got.get(m['id'])
        v = table_verdict(r, m['id'], equivalent)
        killer = table_killer(r, v)
        w.append('| %s | %s | %d | %s | %s | %s | %s |' % (
            m['id'], m['op'], m['line'], cell(m['before']),
            cell(m['after']), v, killer.replace('|', '\\|')))
    return w


def render(plan, got, other, equivalent, analysis, notes='', gate=None):
    s = summarize(plan, got, equivalent)
    w = intro_lines(plan)
    w += progress_lines(s, got, other)
    w += scores_section(plan, got, equivalent, gate)[0]
    w += summary_section(s)
    w += operator_section(plan, got, equivalent)
    w += oracle_cost_section(got)
    w += survivors_section(plan, got, equivalent, analysis)
    w += closed_holes_section(plan, got, analysis)
    if notes:
        w += ['', '## Notes on the runs', '', notes.strip()]
    w += every_mutant_section(plan, got, equivalent)
    return '\n'.join(w) + '\n', s


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--plan', default='build/mutate/mutants.json')
    ap.add_argument('--results', nargs='+', default=['build/mutate/results'])
    ap.add_argument('--equivalent', default='mutate/equivalent.json')
    ap.add_argument('--analysis', default='mutate/analysis.json')
    ap.add_argument('--notes', default='mutate/notes.md',
                    help='hand-written remarks on the runs, copied in')
    ap.add_argument('--gate-results', nargs='+', default=['build/mutate/gate/results'],
                    help='mutate.run --oracles gate\'s results: the gate\'s score')
    ap.add_argument('--out', default='docs/mutation.md')
    a = ap.parse_args(argv)
    with open(a.plan) as f:
        plan = json.load(f)
    got, other = load_results(a.results, plan['commit'])
    gate = None
    if any(os.path.isdir(d) for d in a.gate_results):
        gate, _ = load_results(a.gate_results, plan['commit'])
    text, s = render(plan, got, other, load_notes(a.equivalent, plan['commit']),
                     load_notes(a.analysis, plan['commit']),
                     open(a.notes).read() if os.path.exists(a.notes) else '',
                     gate)
    with open(a.out, 'w') as f:
        f.write(text)
    print('mutate: %s: %d of %d mutants ran, %d killed, %d survived, %d equivalent, '
          '%d stillborn' % (a.out, s['ran'], s['planned'], s['killed'], s['survived'],
                            s['equivalent'], s['stillborn']))
    return 0


if __name__ == '__main__':
    sys.exit(main())
