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

--sample: the gate stage.  Three fixed mutants of HEAD (picked by operator
and text, not by id, so the pick survives edits elsewhere) and m0000 in
build/mutate/sample/, one boot, the oracle packets-sample only (three of
the packets-*.json files, mutate/inguest.py SAMPLE_FILES); each mutant must
be killed and m0000 must survive the same files in the same run.  Ends
with "N passed, N failed".
"""
import argparse
import concurrent.futures
import fcntl
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import re
import tempfile
import time

from flower import guest
from flower.guest import is_splat
from flower.results import parse_tap, summary_line
from mutate import gen, report

REPO = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
BUILD = os.path.join(REPO, 'build')
OURS_SRC = os.path.join(BUILD, 'src/ours')
OURS_OBJ = os.path.join(BUILD, 'obj/ours')
DEBUG_OBJ = os.path.join(BUILD, 'obj/debug')

ORACLES = ','.join(report.ORACLES)     # the campaign's order, cheapest first
# --oracles gate: the gate's own oracles (report.GATE_ORACLES), over the
# mutants the campaign killed, results in GATE_RESULTS
GATE_PROFILE = 'gate'
GATE_RESULTS = os.path.join(BUILD, 'mutate', 'gate', 'results')
CAMPAIGN_RESULTS = os.path.join(BUILD, 'mutate', 'results')
CHUNK = 20
CONTROL = 'm0000'
# (operator, text of the original line, text of the mutated line): each
# must be killed by the oracle packets-sample (three packets-*.json files).
SAMPLE = [
    ('key-row', 'FL_KEY_MASKED(IPV4_DST, ipv4.dst, IPV4_ADDRS),',
     'FL_KEY_MASKED(IPV4_DST, ipv6.src, IPV4_ADDRS),'),
    ('stmt-del', 'fl_dissect(skb, masks, &skb_key);', ';'),
    ('mask-drop', 'memset(mask_member, 0xff, desc->len);', ';'),
]


MEASURED = []      # measured(), once per invocation (main())


def log(msg):
    print('mutate: ' + msg, flush=True)


def plan(path, commit=None):
    if not os.path.exists(path) or commit:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        gen.main(['--commit', commit or 'HEAD', '--out', path])
    with open(path) as f:
        return json.load(f)


# The debug kernel, like Debian's, fills every stack variable with zeroes
# (INIT_STACK_ALL_ZERO): a read of a stack byte nobody wrote then reads 0,
# which is what the code meant to write (m0306: the classify key's tail
# never cleared).  The debug pass builds the module with a pattern fill
# instead, so that such a read changes what a filter matches.
DEBUG_CFLAGS = '-ftrivial-auto-var-init=pattern'


def kbuild(obj):
    return 'obj-m := cls_flower.o\n' + (
        'ccflags-y += %s\n' % DEBUG_CFLAGS if obj == DEBUG_OBJ else '')


def kernel_lock(obj):
    """The lock of builds against obj (the Makefile's kernel_lock)."""
    return os.path.join(BUILD, '.kernel-%s.lock' % os.path.basename(obj))


def build_one(work, mid, text, obj=OURS_OBJ):
    d = os.path.join(work, mid)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'cls_flower.c'), 'w') as f:
        f.write(text)
    with open(os.path.join(d, 'Kbuild'), 'w') as f:
        f.write(kbuild(obj))
    p = subprocess.run(['make', '-s', '-C', OURS_SRC, 'O=' + obj, 'M=' + d,
                        'modules'], capture_output=True, text=True)
    if p.returncode == 0 and os.path.exists(os.path.join(d, 'cls_flower.ko')):
        return None
    errs = [ln for ln in (p.stdout + p.stderr).splitlines() if 'error' in ln]
    return (errs or [(p.stdout + p.stderr).strip()[-300:]])[0]


def built(work, mid, text, obj=OURS_OBJ):
    """The module in work/mid is of this text and these flags (a plan for
    another commit may have used the same id)."""
    d = os.path.join(work, mid)
    try:
        with open(os.path.join(d, 'cls_flower.c')) as f, \
                open(os.path.join(d, 'Kbuild')) as k:
            same = f.read() == text and k.read() == kbuild(obj)
    except OSError:
        return False
    return same and os.path.exists(os.path.join(d, 'cls_flower.ko'))


def build(work, doc, ids, obj=OURS_OBJ):
    """Build each id (m0000 first) against the kernel tree obj; {id: first
    error line} of the stillborn."""
    src = gen.source_at(doc['commit'])
    by_id = {m['id']: m for m in doc['mutants']}
    texts = {i: src if i == CONTROL else gen.apply(src, by_id[i]) for i in ids}
    todo = [i for i in ids if not built(work, i, texts[i], obj)]
    if not todo:
        return {}
    with open(kernel_lock(obj), 'a') as lk:
        fcntl.flock(lk, fcntl.LOCK_EX)       # not while obj's kernel is rebuilt
        if CONTROL in todo:
            err = build_one(work, CONTROL, src, obj)
            if err:
                sys.exit('mutate: the unmutated source does not build: ' + err)
            todo.remove(CONTROL)
        t0 = time.time()
        with concurrent.futures.ThreadPoolExecutor(2) as ex:
            errs = dict(zip(todo, ex.map(lambda i: build_one(work, i, texts[i], obj),
                                         todo)))
    dead = {i: e for i, e in errs.items() if e}
    log('built %d modules in %.0f s, %d stillborn' % (len(todo), time.time() - t0, len(dead)))
    return dead


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


def measured():
    """The commit whose oracles (cases, runners, judges) this run uses:
    the checkout's HEAD (the source mutated is the plan's commit)."""
    p = subprocess.run(['git', 'rev-parse', 'HEAD'], cwd=REPO,
                       capture_output=True, text=True)
    return p.stdout.strip() or None


def write_result(results, doc, res):
    m = next((x for x in doc['mutants'] if x['id'] == res['id']), None)
    res.update(commit=doc['commit'])
    if 'measured' not in res:
        res['measured'] = MEASURED[0] if MEASURED else None
    if m:
        res.update(op=m['op'], line=m['line'])
    os.makedirs(results, exist_ok=True)
    with open(os.path.join(results, res['id'] + '.json'), 'w') as f:
        json.dump(res, f, indent=1, sort_keys=True)


# A mutant may oops the guest's kernel and leave inguest.py stuck (in a
# lock the oopsed task held): its own timeouts never fire and nothing
# new is written.  A splat on the console with no result written within
# WEDGED seconds of it ends the guest: that mutant is killed by "crash".
# Short: a splat fails the running oracle anyway (inguest.py), so a guest
# that would have gone on only changes the killer's name; the wait was a
# tenth of the campaign's guest time at 240 s (one mutant in ten oopses).
WEDGED = 90


def progress(out):
    """Newest mtime of the guest's result and start files."""
    return max([os.path.getmtime(os.path.join(out, f)) for f in os.listdir(out)
                if f.endswith(('.json', '.start'))] or [0])


def console_splat(out):
    try:
        with open(os.path.join(out, 'console.log'), errors='replace') as f:
            return any(is_splat(ln) for ln in f)
    except OSError:
        return False


def stop(p):
    p.terminate()
    try:
        p.wait(60)
    except subprocess.TimeoutExpired:
        p.kill()


def watched(cmd, out, poll=10):
    """subprocess.run(cmd) that stops a wedged guest (above)."""
    with tempfile.TemporaryFile('w+') as so, tempfile.TemporaryFile('w+') as se:
        p = subprocess.Popen(cmd, cwd=REPO, stdout=so, stderr=se, text=True)
        since = None        # a splat seen, and no progress since then
        try:
            while p.poll() is None:
                time.sleep(poll)
                if not console_splat(out) or (since and progress(out) > since):
                    since = None
                elif since is None:
                    since = time.time()
                elif time.time() - since > WEDGED:
                    log('guest wedged: a kernel splat and no result for %d s: '
                        'stopped' % WEDGED)
                    stop(p)
        except BaseException:       # we are stopped: the guest goes too
            stop(p)
            raise
        p.wait()
        so.seek(0)
        se.seek(0)
        return subprocess.CompletedProcess(cmd, p.returncode, so.read(), se.read())


class Stopped(Exception):
    """The campaign was stopped (SIGTERM, ^C) while a guest ran: .done
    holds the results that guest had finished."""

    def __init__(self, done):
        super().__init__('stopped')
        self.done = done


def finished(out, ids):
    """{id: result} of the ids the guest wrote a result for in out."""
    done = {}
    for i in ids:
        try:
            with open(os.path.join(out, i + '.json')) as f:
                done[i] = json.load(f)
        except (OSError, ValueError):   # none, or cut short by the stop
            pass
    return done


def guest_round(work, ids, order, tag, variant='ours', exclude=()):
    """One boot over ids; returns {id: result} for those it finished and
    for those it died on (started, no result: killed by "crash").  Raises
    Stopped if we are stopped meanwhile."""
    out = os.path.join(BUILD, 'guest-out', 'mutate', tag)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    per = 300 if order in ('packets', 'packets-sample') else 2400
    cmd = guest.command(
        ['/usr/bin/python3', '-m', 'mutate.inguest', '--mods', work, '--out', out,
         '--oracles', order, '--exclude', ','.join(sorted(exclude))] + ids,
        variant=variant, no_load_flower=True, timeout=300 + per * len(ids),
        console_log=os.path.join(out, 'console.log'))
    try:
        p = watched(cmd, out)
    except (KeyboardInterrupt, SystemExit):
        raise Stopped(finished(out, ids)) from None
    sys.stdout.write(p.stdout)
    done = finished(out, ids)
    for i in ids:
        start = os.path.join(out, i + '.start')
        if i not in done and os.path.exists(start):
            done[i] = crash_result(i, p, out, start)
    for r in done.values():
        r['guest'] = tag
    if not done:
        log('guest made no progress (exit %d): %s' % (p.returncode, p.stderr[-2000:]))
    return done


def rounds(work, results, doc, ids, order, tag, variant, exclude, control=None):
    """ids through guests of CHUNK mutants each ({id: result}); a guest
    that stops early leaves the rest to a new one.  control(result) is
    called on m0000's result as soon as it has one (it raises to abort).
    Stopped: the finished results are written, and we exit."""
    out, todo, n = {}, list(ids), 0
    while todo:
        chunk = todo[:CHUNK]
        n += 1
        try:
            got = guest_round(work, chunk, order, '%s-%d' % (tag, n), variant, exclude)
        except Stopped as e:
            # kept, but a kill among them is not confirmed (confirm())
            kept = dict(out, **e.done)
            for r in kept.values():
                r.setdefault('confirmed', False)
                write_result(results, doc, r)
            sys.exit('mutate: stopped; kept the %d results the guests had '
                     'finished (kills among them not confirmed): %s'
                     % (len(kept), ' '.join(kept) or '-'))
        if not got:
            sys.exit('mutate: giving up: a guest ran none of %s' % ' '.join(chunk))
        if control and CONTROL in got:
            control(got[CONTROL])
        out.update(got)
        todo = [i for i in todo if i not in got]
    return out


def run_ids(work, results, doc, ids, order, tag, variant='ours', obj=OURS_OBJ,
            exclude=()):
    """Every id through the guests, each kill confirmed (confirm()); a
    result file each.  Returns them.  m0000, when among ids, runs first
    and must pass every oracle (ControlFailed otherwise, before anything
    else is written).  exclude: case ids the tdc oracles leave out
    (baseline())."""
    ids = sorted(ids, key=lambda i: i != CONTROL)
    dead = build(work, doc, ids, obj)
    out = {}
    for i, e in dead.items():
        out[i] = {'id': i, 'verdict': 'stillborn', 'killer': None, 'why': e, 'oracles': []}
        write_result(results, doc, out[i])
    order_l = [o for o in order.split(',') if o]
    control = (lambda r: check_control(r, order_l)) if CONTROL in ids else None
    todo = [i for i in ids if i not in dead]
    ctl = None      # the guest where m0000 passed every oracle of order
    # a block at a time (m0000 in the first), its kills confirmed and its
    # results written before the next: a campaign that dies keeps them
    for b in range(0, len(todo), CHUNK):
        block = todo[b:b + CHUNK]
        btag = tag if len(todo) <= CHUNK else '%s-b%d' % (tag, b // CHUNK + 1)
        first = rounds(work, results, doc, block, order, btag, variant, exclude,
                       control)
        if CONTROL in first:
            ctl = first[CONTROL].get('guest')
        # a second attempt of the oracle that failed, for each conclusive
        # kill, in fresh guests (one group of guests per oracle)
        again = {}
        for i, r in first.items():
            a = attempt(r, order_l)
            r['attempts'] = [a]
            if i != CONTROL and a['outcome'] == 'fail':
                again.setdefault(rerun_order(a, order_l), []).append(i)
        second = {}
        for k, (o, group) in enumerate(sorted(again.items())):
            log('confirming %d kill%s by %s: %s' % (
                len(group), 's' if len(group) > 1 else '', o or 'insmod',
                ' '.join(group)))
            second.update(rounds(work, results, doc, group, o,
                                 '%s-confirm%d' % (btag, k + 1), variant, exclude))
        for i, r in first.items():
            if i == CONTROL:
                r['control'] = True
            else:
                r = confirm(r, second.get(i), order_l)
                if ctl:
                    # m0000 passed these oracles in this run (check_control())
                    r['control_passed'] = {'guest': ctl, 'oracles': order_l}
            write_result(results, doc, r)
            out[i] = r
    return out


class ControlFailed(Exception):
    """m0000, the unmutated source, failed an oracle: that oracle would
    kill everything, and no kill of this run means anything."""


def check_control(r, order):
    """Raise ControlFailed unless m0000 survived and passed every oracle
    of order."""
    passed = [o['name'] for o in r.get('oracles', []) if o.get('ok')]
    if r.get('verdict') != 'survived' or passed != list(order):
        raise ControlFailed('%s (the unmutated source) %s%s%s in guest %s: %s' % (
            CONTROL, r.get('verdict'), ' by ' + r['killer'] if r.get('killer') else '',
            '' if passed == list(order) else ' (passed %s of %s)' % (
                ','.join(passed) or 'none', ','.join(order) or 'none'),
            r.get('guest', '?'), r.get('why', '')))


# TCG load makes these on a guest nothing is wrong with: an oracle that
# ran into one (or timed out) says nothing about the mutant
STALL_RE = re.compile(r'detected stall|blocked for more than|soft lockup'
                      r'|rcu_sched self-detected|rcu_preempt detected')


def first_splat(lines):
    """The line that opens a splat (a Call Trace line follows one)."""
    for ln in lines:
        if 'Call Trace' not in ln:
            return ln
    return lines[0] if lines else None


def crash_result(i, p, out, start):
    """The result of a mutant the guest died or hung on (started, no
    result): "crash" with the splat's first line when the console has
    one, else (a death with no splat: TCG hangs, guest/run's timeout)
    with the console's tail, marked so: attempt() calls it inconclusive."""
    try:
        with open(start) as f:
            running = f.read().strip() or None
    except OSError:
        running = None
    try:
        with open(os.path.join(out, 'console.log'), errors='replace') as f:
            console = f.read().splitlines()
    except OSError:
        console = []
    sp = [ln.strip() for ln in console if is_splat(ln)]
    exit_ = 'guest/run exit %d (%s)' % (
        p.returncode, (p.stderr.strip().splitlines() or [''])[0][:200] or
        guest.verdict(p.returncode) or 'no message')
    tail = ' / '.join(ln.strip() for ln in console[-5:] if ln.strip())[-400:]
    first = first_splat(sp)
    return {'id': i, 'verdict': 'killed', 'killer': 'crash', 'running': running,
            'splat': sp[:8],
            'why': '%s during %s: %s' % (
                exit_, running or 'insmod',
                'kernel splat: ' + first[:200] if first else
                'no kernel splat; console tail: ' + (tail or '(empty)')),
            'oracles': []}


def attempt(r, order):
    """One run of a mutant through order, as {'outcome': pass, fail or
    inconclusive, 'oracle': the one that failed, 'why', 'guest'}.
    Inconclusive: an oracle's timeout, a stall line (STALL_RE) as the
    splat, a guest death without a kernel splat."""
    a = {'outcome': 'pass', 'oracle': None, 'why': r.get('why'),
         'guest': r.get('guest')}
    if r['verdict'] == 'survived':
        return a
    killer = r.get('killer')
    if killer == 'crash':
        a['oracle'] = r.get('running') or 'insmod'
        sp = first_splat(r.get('splat') or [])
        a['outcome'] = 'fail' if sp and not STALL_RE.search(sp) else 'inconclusive'
        return a
    a['oracle'] = killer
    a['outcome'] = 'fail'
    o = next((x for x in r.get('oracles', []) if x['name'] == killer and not x['ok']), None)
    if o:
        sp = first_splat(o.get('splat') or [])
        if o.get('timeout') or (sp and STALL_RE.search(sp)) or \
                STALL_RE.search(o.get('why') or ''):
            a['outcome'] = 'inconclusive'
    return a


def rerun_order(a, order):
    """The oracles a confirmation runs: the one that failed; none for an
    insmod kill; all of them for an rmmod kill (after they passed)."""
    if a['oracle'] == 'insmod':
        return ''
    if a['oracle'] == 'rmmod' or a['oracle'] not in order:
        return ','.join(order)
    return a['oracle']


def confirm(r, again, order):
    """The mutant's result from its first run r and the confirmation run
    again (None: none was run).  A kill is confirmed only when the same
    oracle failed it both times, conclusively (attempt()): fail then
    pass, or fail then a timeout, stall or death without a splat, is a
    kill that is not confirmed; a first attempt that is inconclusive
    gives the verdict "inconclusive" (not a kill).  Both attempts are
    kept in 'attempts'."""
    first = r['attempts'][0] if r.get('attempts') else attempt(r, order)
    r['attempts'] = [first]
    if first['outcome'] == 'pass':
        r['confirmed'] = False
        return r
    if first['outcome'] == 'inconclusive':
        r.update(verdict='inconclusive', confirmed=False)
        return r
    if again is None:
        r['confirmed'] = False
        return r
    sub = rerun_order(first, order)
    second = attempt(again, [o for o in sub.split(',') if o])
    r['attempts'].append(second)
    r['confirmed'] = second['outcome'] == 'fail' and second['oracle'] == first['oracle']
    if not r['confirmed']:
        r['why'] = '%s; NOT confirmed: the second attempt %s' % (
            r.get('why'), {'pass': 'passed', 'inconclusive': 'was inconclusive: %s'
                           % second['why'],
                           'fail': 'failed on %s' % second['oracle']}[second['outcome']])
    return r


def sample():
    work = os.path.join(BUILD, 'mutate', 'sample')
    doc = plan(os.path.join(work, 'mutants.json'), 'HEAD')
    picks = []
    for op, before, after in SAMPLE:
        hit = [m['id'] for m in doc['mutants'] if m['op'] == op and
               m['before'].strip() == before and m['after'].strip() == after]
        if len(hit) != 1:
            print('FAIL   sample mutant %s %r -> %r: %d matches' % (op, before, after, len(hit)))
            print('0 passed, 1 failed')
            return 1
        picks.append(hit[0])
    results = os.path.join(work, 'results')
    shutil.rmtree(results, ignore_errors=True)
    try:
        got = run_ids(work, results, doc, [CONTROL] + picks, 'packets-sample',
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
    GATE_RESULTS."""
    results = a.results or GATE_RESULTS
    ids = a.ids or campaign_killed(getattr(a, 'from_') or [CAMPAIGN_RESULTS],
                                   doc['commit'])
    have = set(f[:-5] for f in os.listdir(results)) if os.path.isdir(results) else set()
    todo = [i for i in ids if i not in have and i != CONTROL][:a.limit]
    log('gate profile (%s), commit %s measured at %s: %d mutants to run (%d '
        'killed by the campaign, %d have gate results)' % (
            ','.join(report.GATE_ORACLES), doc['commit'][:12],
            (MEASURED[0] if MEASURED and MEASURED[0] else '?')[:12], len(todo), len(ids), len(have & set(ids))))
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
    ap.add_argument('--shard', default='1/1', metavar='K/N')
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
