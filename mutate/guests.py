"""The guest runs of the campaign: a chunk of mutants per boot of
guest/run (mutate/inguest.py inside), watched for a guest that a mutant
wedged, a new guest for the rest when one stops early, and the "crash"
result of the mutant a guest died on (mutate/README.md).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from flower import guest
from flower.guest import is_splat
from mutate.common import BUILD, CONTROL, REPO, log, write_result

CHUNK = 20          # mutants per guest

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


# Oracle orders whose run per mutant takes minutes, not tens of them
SHORT_ORDERS = ('packets', 'packets-sample', 'packets-sample,cache')


def guest_round(work, ids, order, tag, variant='ours', exclude=()):
    """One boot over ids; returns {id: result} for those it finished and
    for those it died on (started, no result: killed by "crash").  Raises
    Stopped if we are stopped meanwhile."""
    out = os.path.join(BUILD, 'guest-out', 'mutate', tag)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    per = 300 if order in SHORT_ORDERS else 2400
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
