"""Host side of the mutation campaign (mutate/README.md).

  python3 -m mutate.run [--shard K/N] [--ids ID...] [--limit N]
  python3 -m mutate.run --sample

Campaign: the mutants of build/mutate/mutants.json (mutate/gen.py; made
from HEAD when missing, so every shard of one checkout mutates the same
commit) that have no result yet in build/mutate/results/, optionally a
shard (index mod N == K-1) and at most --limit of them, are built as
external modules against ours' kernel (kbuild M=build/mutate/<id>; one
that does not compile is stillborn), then run through the oracles in
guests (mutate/inguest.py), a chunk of mutants per boot; a guest that dies
on a mutant kills that mutant ("crash") and a new guest takes the rest.
m0000 is the unmutated source: built first (if it does not build, nothing
is stillborn: the build is broken) and run first in each shard, so its
result (which must survive) shows the oracles do not kill everything.

--debug: the mutants that survived every oracle above (and m0000) again,
built against the debug kernel (KASAN, lockdep, kmemleak) with stack
variables pattern-filled (DEBUG_CFLAGS) and run in its guest through the
`debug` oracle (mutate/leakcheck.py: a workload with failslab, then a
kmemleak scan; then the packet cases); a leak, a splat or a failing case
there kills.

--sample: the gate stage.  Four fixed mutants of HEAD (picked by operator
and text, not by id, so the pick survives edits elsewhere) and m0000 in
build/mutate/sample/, one boot, the oracles packets-sample (two of the
packets-*.json files, mutate/inguest.py SAMPLE_FILES) and cache (the flow
cache between changes, stress/flow_cache.py); each mutant must be killed
and m0000 must survive the same oracles in the same run.  Ends with "N
passed, N failed".

The program and the references its oracles judge by (difftest_ref(),
baseline(), gate_difftest_ref()) are here; the building of the mutants
is mutate/modules.py, the guest runs mutate/guests.py, the confirmation
of kills mutate/kills.py (run_ids()), what they share mutate/common.py.
"""
import argparse
import fcntl
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time

from flower import guest
from flower.results import parse_tap, summary_line
from mutate import gen, report
from mutate.common import (BUILD, CONTROL, DEBUG_OBJ, MEASURED, REPO, log,
                           measured, write_result)
from mutate.kills import ControlFailed, run_ids
from mutate.modules import DEBUG_CFLAGS, build

ORACLES = ','.join(report.ORACLES)     # the campaign's order, cheapest first
# --oracles gate: the gate's own oracles (report.GATE_ORACLES), over the
# mutants the campaign killed, results in GATE_RESULTS
GATE_PROFILE = 'gate'
GATE_RESULTS = os.path.join(BUILD, 'mutate', 'gate', 'results')
CAMPAIGN_RESULTS = os.path.join(BUILD, 'mutate', 'results')
# (operator, text of the original line, text of the mutated line[,
# function]): each must be killed by the sample's oracles, packets-sample
# (two packets-*.json files) and then cache (stress/flow_cache.py).
# The last is the flow cache's: a delete that does not bump the cache's
# generation (fl_insert() has the same line, hence the function).
SAMPLE = [
    ('key-row', 'FL_KEY_MASKED(ARP_SIP, arp.sip, ARP),',
     'FL_KEY_MASKED(ARP_SIP, arp.tip, ARP),'),
    ('stmt-del', 'fl_dissect(skb, masks, &skb_key);', ';'),
    ('mask-drop', 'memset(mask_member, 0xff, desc->len);', ';'),
    ('stmt-del', 'fl_cache_changed(head);', ';', 'fl_filter_remove'),
]
SAMPLE_ORACLES = 'packets-sample,cache'


def plan(path, commit=None):
    if not os.path.exists(path) or commit:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        gen.main(['--commit', commit or 'HEAD', '--out', path])
    with open(path) as f:
        return json.load(f)


DT = os.path.join(BUILD, 'mutate', 'difftest')


def control_guest(work, cmd, timeout, **kw):
    """subprocess.run() of a guest that loads m0000 (built by the caller)
    and runs the shell command cmd: the references below are its runs."""
    return subprocess.run(guest.command(
        ['sh', '-c', 'insmod %s && %s' % (
            os.path.join(work, CONTROL, 'cls_flower.ko'), cmd)],
        variant='ours', no_load_flower=True, timeout=timeout), cwd=REPO, **kw)


def difftest_ref(work, doc):
    """The difftest oracle's reference (inguest.py reads it): the smoke
    batch (DT/smoke1.json) and the verdicts of the unmutated source of the
    plan's commit on it (DT/smoke1-ours.json, from work/m0000's module).
    Made again when DT/smoke1.commit names another commit; a lock keeps
    concurrent shards from making it twice."""
    stamp = os.path.join(DT, 'smoke1.commit')
    os.makedirs(DT, exist_ok=True)
    with open(os.path.join(DT, '.lock'), 'a') as lk:
        fcntl.flock(lk, fcntl.LOCK_EX)
        if ref_commit(stamp) == doc['commit']:
            return
        log('difftest reference: the smoke batch on %s\'s unmutated module'
            % doc['commit'][:12])
        build(work, doc, [CONTROL])
        out = os.path.join(BUILD, 'guest-out', 'mutate', 'ref')
        os.makedirs(out, exist_ok=True)
        subprocess.run([sys.executable, '-m', 'difftest.gen', '--seed', '1',
                        '--batches', '1', '--filters', '60',
                        '--out', os.path.join(DT, 'smoke1.json')], cwd=REPO, check=True)
        control_guest(work, '/usr/bin/python3 -m difftest.runner --rounds-k 4 %s %s'
                      % (os.path.join(DT, 'smoke1.json'),
                         os.path.join(out, 'smoke1-ours.json')), 1500, check=True)
        shutil.copy(os.path.join(out, 'smoke1-ours.json'), DT)
        with open(stamp, 'w') as f:
            f.write(doc['commit'] + '\n')


BASELINE = os.path.join(BUILD, 'mutate', 'baseline.json')
# more fails than this on the unmutated source is a broken run, not cases
# written after the plan's commit
BASELINE_MAX = 10


def baseline(work, doc):
    """{case id: its 'not ok' line}: the flower cases that fail on m0000,
    the plan's commit unmutated, under today's corpus.  Each tests a change
    made after that commit (25cd: the ct_state fix), so it cannot tell a
    mutant from the original: the packets and corpus oracles leave it out
    (inguest --exclude) and docs/mutation.md lists it.  Made in a guest
    once per plan commit and corpus (BASELINE names both)."""
    from mutate import inguest      # its file lists, not its guest code
    packets, rest = inguest.case_files()
    digest = corpus_digest(packets + rest)
    os.makedirs(os.path.dirname(BASELINE), exist_ok=True)
    with open(BASELINE + '.lock', 'a') as lk:
        fcntl.flock(lk, fcntl.LOCK_EX)
        try:
            with open(BASELINE) as f:
                have = json.load(f)
            if (have.get('commit'), have.get('corpus')) == (doc['commit'], digest):
                return have['fails']
        except (OSError, ValueError):
            pass
        log('baseline: the flower corpus on %s\'s unmutated module'
            % doc['commit'][:12])
        build(work, doc, [CONTROL])
        p = control_guest(work, '/usr/bin/python3 -m tdc.tdc -J 2 -c flower -f '
                          + ' '.join(packets + rest), 2400, capture_output=True, text=True)
        fails = tdc_fails(p.stdout)
        if fails is None or len(fails) > BASELINE_MAX:
            sys.exit('mutate: the baseline run of %s on %s is broken (exit %d, %s): %s'
                     % (CONTROL, doc['commit'][:12], p.returncode,
                        'no tdc summary' if fails is None else '%d failed' % len(fails),
                        (p.stderr or p.stdout)[-1500:]))
        with open(BASELINE, 'w') as f:
            json.dump({'commit': doc['commit'], 'corpus': digest, 'fails': fails}, f,
                      indent=1, sort_keys=True)
        log('baseline: %d cases fail on the unmutated source: %s'
            % (len(fails), ' '.join(sorted(fails)) or '-'))
        return fails


def corpus_digest(files):
    """sha256 of the case files (paths relative to REPO): a case added or
    changed since the baseline was made may fail on the plan's commit too."""
    h = hashlib.sha256()
    for f in files:
        with open(os.path.join(REPO, f), 'rb') as fh:
            h.update(f.encode() + b'\0' + fh.read() + b'\0')
    return h.hexdigest()


def tdc_fails(out):
    """{id: line} of tdc.py's failed and skipped cases (the oracles count a
    skip as a failure), or None without a summary or with nothing passed."""
    counts = summary_line(out)
    if counts is None or not counts.passed:
        return None
    return {r.id: r.line for r in parse_tap(out).results
            if not r.ok or r.skip is not None}


def ref_commit(stamp):
    try:
        with open(stamp) as f:
            return f.read().strip()
    except OSError:
        return None



def sample():
    work = os.path.join(BUILD, 'mutate', 'sample')
    doc = plan(os.path.join(work, 'mutants.json'), 'HEAD')
    picks = []
    for op, before, after, *func in SAMPLE:
        hit = [m['id'] for m in doc['mutants'] if m['op'] == op and
               m['before'].strip() == before and m['after'].strip() == after
               and (not func or m['func'] == func[0])]
        if len(hit) != 1:
            print('FAIL   sample mutant %s %r -> %r: %d matches' % (op, before, after, len(hit)))
            print('0 passed, 1 failed')
            return 1
        picks.append(hit[0])
    results = os.path.join(work, 'results')
    shutil.rmtree(results, ignore_errors=True)
    try:
        got = run_ids(work, results, doc, [CONTROL] + picks, SAMPLE_ORACLES,
                      'sample')
    except ControlFailed as e:
        print('FAIL   %s' % e)
        print('0 passed, 1 failed')
        return 1
    passed = failed = 0
    for i in [CONTROL] + picks:
        r = got.get(i, {'verdict': 'missing'})
        want = 'survived' if i == CONTROL else 'killed'
        # a kill counts when confirmed: the same oracle failed it twice
        # (m0000 passed it in this run: run_ids() checks)
        ok = r['verdict'] == want and (i == CONTROL or r.get('confirmed') is True)
        passed, failed = passed + ok, failed + (not ok)
        print('%-6s %s (%s): %s%s, want %s%s' % (
            'ok' if ok else 'FAIL', i, 'unmutated' if i == CONTROL else
            next(m['op'] for m in doc['mutants'] if m['id'] == i),
            r['verdict'], '' if i == CONTROL else
            (', confirmed' if r.get('confirmed') else ', not confirmed'),
            want if i == CONTROL else want + ' and confirmed',
            ': ' + r.get('why', '') if r.get('why') else ''))
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


def debug_workload():
    """sha256 of the debug oracle's workload (leakcheck.py, the packet
    cases, the build flags): a survivor runs it again when it changes (a
    new part may reach what the old one did not)."""
    from mutate import inguest      # its file lists, not its guest code
    packets, _rest = inguest.case_files()
    return hashlib.sha256((corpus_digest(['mutate/leakcheck.py'] + packets) +
                           DEBUG_CFLAGS).encode()).hexdigest()


def needs_debug(r, workload):
    """A survivor of every oracle of the normal kernel that the debug
    kernel has not seen yet, or has seen with a workload other than this
    one (debug_workload())."""
    return (r['verdict'] == 'survived' and not report.partial(r) and
            not any(o['name'] == 'debug' and o.get('workload') == workload
                    for o in r['oracles']))


def debug_pass(work, results, doc):
    """--debug: the survivors (and m0000, ahead of them) built against the
    debug kernel and run through the `debug` oracle in its guest; the
    outcome is added to each one's result, stamped with the workload's
    digest (a kill there is by "debug", or by crash/insmod/rmmod as on
    the normal kernel)."""
    # once, before the run: the survivors are picked and stamped by the
    # workload they ran, not by what the files hold when the pass ends
    workload = debug_workload()
    have = {}
    for f in sorted(os.listdir(results)):
        with open(os.path.join(results, f)) as fh:
            r = json.load(fh)
        if r.get('commit') == doc['commit'] and needs_debug(r, workload):
            have[r['id']] = r
    # argued equivalent by hand: a run there could only confirm it, and a
    # debug run costs 5-8 minutes
    equivalent = sorted(set(have) & set(report.load_notes(
        os.path.join(REPO, 'mutate/equivalent.json'), doc['commit'])))
    ids = sorted((i for i in have if i not in equivalent),
                 key=lambda i: (i != CONTROL, i))
    log('debug kernel: %d to run: %s (equivalent, not run: %s)'
        % (len(ids), ' '.join(ids) or '-', ' '.join(equivalent) or '-'))
    if not ids:
        return 0
    got = run_ids(os.path.join(work, 'debug'), os.path.join(work, 'debug', 'results'),
                  doc, ids, 'debug', 'debug', 'debug', DEBUG_OBJ,
                  exclude=baseline(work, doc))
    for i, extra in got.items():
        r = have[i]
        ran = extra['oracles'] or [{'name': 'debug', 'ok': False,
                                    'why': extra.get('why')}]
        for o in ran:
            o['workload'] = workload
        # an older workload's run is replaced, not kept beside
        r['oracles'] = [o for o in r['oracles'] if o['name'] != 'debug'] + ran
        if extra['verdict'] != 'survived':
            r.update(verdict='inconclusive' if extra['verdict'] == 'inconclusive'
                     else 'killed', killer=extra['killer'] or 'debug',
                     why='debug kernel: %s' % extra.get('why'),
                     confirmed=extra.get('confirmed', False),
                     attempts=extra.get('attempts', []))
        write_result(results, doc, r)
        log('%s on the debug kernel: %s' % (i, r['verdict'] + (
            ' by ' + r['killer'] if r['killer'] else '')))
    return 0


DT_GATE = os.path.join(BUILD, 'mutate', 'gate', 'difftest')


def oracle_order(arg):
    """--oracles: a comma list, or the profile name 'gate'."""
    return ','.join(report.GATE_ORACLES) if arg == GATE_PROFILE else arg


def stock_next_ko():
    import glob
    kos = sorted(glob.glob(os.path.join(
        BUILD, 'mod', 'stock-next', 'lib', 'modules', '*', 'kernel', 'net',
        'sched', 'cls_flower.ko')))
    if not kos:
        sys.exit('mutate: no stock-next module: make stock-next-ext first '
                 '(make mutate-gate does)')
    return kos[-1]


def gate_difftest_ref(seed):
    """The gate profile's difftest reference (inguest.py's difftest-gate
    reads it): make difftest-smoke's batch (2 batches of 60 filters, --cover,
    the seed given) in DT_GATE/smoke.json and stock-next's verdicts on it
    (DT_GATE/smoke-stock-next.json, from a stock-next guest).  Made again
    when DT_GATE/stamp names another seed, checkout or stock-next module."""
    with open(stock_next_ko(), 'rb') as f:
        stamp_text = '%s %s %s\n' % (seed, MEASURED[0] if MEASURED else measured(),
                                     hashlib.sha256(f.read()).hexdigest())
    os.makedirs(DT_GATE, exist_ok=True)
    stamp = os.path.join(DT_GATE, 'stamp')
    with open(os.path.join(DT_GATE, '.lock'), 'a') as lk:
        fcntl.flock(lk, fcntl.LOCK_EX)
        if ref_commit(stamp) == stamp_text.strip():
            return
        log('gate difftest reference: seed %s, stock-next\'s verdicts' % seed)
        cases = os.path.join(DT_GATE, 'smoke.json')
        subprocess.run([sys.executable, '-m', 'difftest.gen', '--seed', str(seed),
                        '--batches', '2', '--filters', '60', '--cover',
                        '--out', cases], cwd=REPO, check=True)
        out = os.path.join(BUILD, 'guest-out', 'mutate', 'gate-ref')
        os.makedirs(out, exist_ok=True)
        subprocess.run(guest.command(
            ['/usr/bin/python3', '-m', 'difftest.runner', '--rounds-k', '4', cases,
             os.path.join(out, 'smoke-stock-next.json')],
            variant='stock-next', timeout=1500), cwd=REPO, check=True)
        shutil.copy(os.path.join(out, 'smoke-stock-next.json'), DT_GATE)
        with open(stamp, 'w') as f:
            f.write(stamp_text)


def campaign_killed(dirs, commit):
    """The ids the campaign killed (any shard's directory), for the
    plan's commit: what the gate profile runs again."""
    got, _other = report.load_results(dirs, commit)
    return sorted(i for i, r in got.items()
                  if r['verdict'] == 'killed' and i != CONTROL)


def gate_profile(a, work, doc):
    """--oracles gate: every mutant the campaign killed (--from, default
    build/mutate/results; or --ids) that has no gate result yet, at most
    --limit, through the gate's oracles, m0000 first; results in
    GATE_RESULTS.  With --shard K/N other than 1/1: that share of the
    plan, first hand, whatever the campaign made of it (the gate's score
    then needs no campaign: report.score())."""
    results = a.results or GATE_RESULTS
    if a.shard != '1/1':
        k, n = map(int, a.shard.split('/'))
        ids = [r['id'] for r in gen.shard(doc['mutants'], k, n)]
    else:
        ids = a.ids or campaign_killed(
            getattr(a, 'from_') or [CAMPAIGN_RESULTS], doc['commit'])
    have = set(f[:-5] for f in os.listdir(results)) if os.path.isdir(results) else set()
    todo = [i for i in ids if i not in have and i != CONTROL][:a.limit]
    whose = ('in shard %s of the plan' % a.shard if a.shard != '1/1'
             else 'killed by the campaign')
    log('gate profile (%s), commit %s measured at %s: %d mutants to run (%d '
        '%s, %d have gate results)' % (
            ','.join(report.GATE_ORACLES), doc['commit'][:12],
            (MEASURED[0] if MEASURED and MEASURED[0] else '?')[:12], len(todo),
            len(ids), whose, len(have & set(ids))))
    if not todo:
        return 0
    gate_difftest_ref(a.dt_seed)
    exclude = baseline(work, doc)
    try:
        got = run_ids(work, results, doc, [CONTROL] + todo,
                      ','.join(report.GATE_ORACLES), 'gate', exclude=exclude)
    except ControlFailed as e:
        sys.exit('mutate: ABORT: %s' % e)
    log('gate: ran %s' % tally(got))
    return 0


def tally(got):
    by = {}
    for r in got.values():
        key = r['verdict'] + (' by ' + r['killer'] if r.get('killer') else '') + (
            ' (confirmed)' if r.get('confirmed') else '')
        by[key] = by.get(key, 0) + 1
    return '%d: %s' % (len(got), ', '.join('%s %d' % kv for kv in sorted(by.items())))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--shard', default='1/1', metavar='K/N',
                    help='a deterministic share of the plan: index mod N == '
                    'K-1; with --oracles gate, run first hand')
    ap.add_argument('--ids', nargs='*')
    ap.add_argument('--limit', type=int)
    ap.add_argument('--oracles', default=ORACLES,
                    help='a comma list, or "gate": the gate\'s own oracles '
                    '(%s) over the mutants the campaign killed, results in '
                    'build/mutate/gate/results' % ','.join(report.GATE_ORACLES))
    ap.add_argument('--from', dest='from_', nargs='+', metavar='DIR',
                    help='--oracles gate: the campaign\'s result directories '
                    '(default build/mutate/results)')
    ap.add_argument('--results', help='--oracles gate: where its results go')
    ap.add_argument('--dt-seed', default=time.strftime('%Y%m%d', time.gmtime()),
                    help='--oracles gate: the difftest seed (default: today, '
                    'UTC, as make difftest-smoke)')
    ap.add_argument('--sample', action='store_true')
    ap.add_argument('--debug', action='store_true',
                    help='the survivors through the debug kernel\'s oracle')
    a = ap.parse_args(argv)
    # SIGTERM (make's, CI's) unwinds like ^C, so that run_ids() keeps the
    # results of a guest that is stopped midway
    signal.signal(signal.SIGTERM, lambda sig, frame: sys.exit(128 + sig))
    MEASURED[:] = [measured()]
    if a.sample:
        return sample()
    work = os.path.join(BUILD, 'mutate')
    results = os.path.join(work, 'results')
    doc = plan(os.path.join(work, 'mutants.json'))
    if a.debug:
        try:
            return debug_pass(work, results, doc)
        except ControlFailed as e:
            sys.exit('mutate: ABORT: %s' % e)
    if a.oracles == GATE_PROFILE:
        return gate_profile(a, work, doc)
    k, n = map(int, a.shard.split('/'))
    if not 1 <= k <= n:
        sys.exit('mutate: --shard K/N needs 1 <= K <= N')
    rows = gen.shard(doc['mutants'], k, n)
    ids = [r['id'] for r in rows if not a.ids or r['id'] in a.ids]
    have = set(f[:-5] for f in os.listdir(results)) if os.path.isdir(results) else set()
    ids = [i for i in ids if i not in have][:a.limit]
    log('commit %s, shard %d/%d: %d mutants to run (%d of the shard have results)'
        % (doc['commit'][:12], k, n, len(ids), len(rows) - len(ids)))
    if not ids:
        return 0
    # the control runs first in every invocation and must pass every
    # oracle there: a kill is confirmed only against m0000's pass in the
    # same run (run_ids())
    ids = [CONTROL] + [i for i in ids if i != CONTROL]
    if 'difftest' in a.oracles.split(','):
        difftest_ref(work, doc)
    if 'difftest-gate' in a.oracles.split(','):
        gate_difftest_ref(a.dt_seed)
    # the baseline is the tdc oracles' (a corpus run on m0000)
    exclude = baseline(work, doc) if {'packets', 'corpus'} & set(
        a.oracles.split(',')) else {}
    try:
        got = run_ids(work, results, doc, ids, a.oracles, 'shard%d-%d' % (k, n),
                      exclude=exclude)
    except ControlFailed as e:
        sys.exit('mutate: ABORT: %s' % e)
    log('ran %s' % tally(got))
    return 0


if __name__ == '__main__':
    sys.exit(main())
