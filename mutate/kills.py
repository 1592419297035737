"""The confirmation of kills (mutate/README.md "Confirmed kills"): every
mutant through the guests, then, for each conclusive kill, the oracle
that failed once more in a fresh guest; m0000 must pass every oracle of
the same run.
"""
import re

from mutate import guests, modules
from mutate.common import CONTROL, OURS_OBJ, log, write_result

# TCG load makes these on a guest nothing is wrong with: an oracle that
# ran into one (or timed out) says nothing about the mutant
STALL_RE = re.compile(r'detected stall|blocked for more than|soft lockup'
                      r'|rcu_sched self-detected|rcu_preempt detected')


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


def run_ids(work, results, doc, ids, order, tag, variant='ours', obj=OURS_OBJ,
            exclude=()):
    """Every id through the guests, each kill confirmed (confirm()); a
    result file each.  Returns them.  m0000, when among ids, runs first
    and must pass every oracle (ControlFailed otherwise, before anything
    else is written).  exclude: case ids the tdc oracles leave out
    (run.baseline())."""
    ids = sorted(ids, key=lambda i: i != CONTROL)
    dead = modules.build(work, doc, ids, obj)
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
    for b in range(0, len(todo), guests.CHUNK):
        block = todo[b:b + guests.CHUNK]
        btag = tag if len(todo) <= guests.CHUNK else '%s-b%d' % (
            tag, b // guests.CHUNK + 1)
        first = guests.rounds(work, results, doc, block, order, btag, variant,
                              exclude, control)
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
            second.update(guests.rounds(work, results, doc, group, o,
                                        '%s-confirm%d' % (btag, k + 1),
                                        variant, exclude))
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
        sp = guests.first_splat(r.get('splat') or [])
        a['outcome'] = 'fail' if sp and not STALL_RE.search(sp) else 'inconclusive'
        return a
    a['oracle'] = killer
    a['outcome'] = 'fail'
    o = next((x for x in r.get('oracles', []) if x['name'] == killer and not x['ok']), None)
    if o:
        sp = guests.first_splat(o.get('splat') or [])
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
