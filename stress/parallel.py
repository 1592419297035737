#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""parallel.py - unlocked flower requests racing on one instance (guest only).

The classifier takes no RTNL for its requests, so adds, replaces, deletes,
gets and dumps on one prio run at the same time.  Four phases, each with
WORKERS `tc -b` processes at once on a dummy device's clsact ingress:

  insert   every worker adds its own filters (own handles, own masks);
           afterwards the dump holds exactly all of them, each once.
  churn    workers add, replace (to another mask), delete and get filters
           of one shared handle range while another dumps in a loop;
           afterwards the dump and `tc filter get` agree handle by handle,
           and deleting the prio leaves nothing.
  empty    workers add and delete the only filters of a prio over and
           over, so the instance is emptied and created again under
           their feet (cls_api's delete_empty and -EAGAIN replay paths).
  ranges   workers add, replace (another range) and delete port range
           filters of one mask, more than a change indexes at once, so
           that the index's work builds beside them; one dumps; then
           the prio is deleted with the work still queued.  As churn.
  cache    (--cache-steps N) the flow cache with a sender on every CPU
           while filters change: stress.flow_cache's senders mode, one
           check for all its steps.

Run it on the debug kernel with several vCPUs to let lockdep, KASAN and
PROVE_RCU see the races:

    guest/run --variant debug --smp 2 -- /usr/bin/python3 -m stress.parallel

Ends with "N passed, N failed" (one check per line above).
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

DEV = 'flp0'


def sh(cmd, check=True):
    r = subprocess.run(cmd, shell=True, capture_output=True, text=True)
    if check and r.returncode:
        raise RuntimeError('%s: exit %d: %s' % (cmd, r.returncode,
                                                r.stderr.strip()))
    return r


def handles(pref):
    out = sh('tc -j filter show dev %s ingress pref %d' % (DEV, pref)).stdout
    return sorted(f['options']['handle'] for f in json.loads(out or '[]')
                  if 'options' in f)


def batches(lines_per_worker, tmp):
    """Write one batch file per worker; start them all, wait for all."""
    procs = []
    for i, lines in enumerate(lines_per_worker):
        path = os.path.join(tmp, 'w%d.batch' % i)
        with open(path, 'w') as f:
            f.write('\n'.join(lines) + '\n')
        # -force: a batch goes on after a command that fails (a race lost)
        procs.append(subprocess.Popen(['tc', '-force', '-b', path],
                                      stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, text=True))
    return [(p.wait(), p.stderr.read()) for p in procs]


def flt(pref, handle, mask, n, verb='add'):
    """Filter n: its own dst_ip; the src_ip prefix length picks the mask."""
    a, b = divmod(n, 250)
    return ('filter %s dev %s ingress pref %d handle %d protocol ip flower '
            'src_ip 192.168.0.0/%d dst_ip 10.%d.%d.1 action drop'
            % (verb, DEV, pref, handle, mask, a % 250, b + 1))


def phase_insert(a, tmp):
    per = a.filters // a.workers
    work = [[flt(1, w * per + i + 1, 16 + w % 8, w * per + i)
             for i in range(per)] for w in range(a.workers)]
    res = batches(work, tmp)
    bad = [err for rc, err in res if rc]
    got = handles(1)
    want = list(range(1, per * a.workers + 1))
    ok = not bad and got == want
    print('%s: insert: %d workers, %d filters in pref 1, %d masks; dump '
          'holds %d, %d distinct%s'
          % ('ok' if ok else 'FAIL', a.workers, len(want), min(8, a.workers),
             len(got), len(set(got)),
             '' if not bad else '; tc: ' + bad[0][-300:]))
    sh('tc filter del dev %s ingress pref 1' % DEV)
    return ok


def phase_churn(a, tmp, rnd):
    span = 64
    work = []
    for w in range(a.workers):
        lines = []
        for _ in range(a.ops):
            h = rnd.randrange(1, span + 1)
            op = rnd.choice(('add', 'replace', 'delete', 'get'))
            if op == 'delete':
                lines.append('filter del dev %s ingress pref 1 handle %d '
                             'protocol ip flower' % (DEV, h))
            elif op == 'get':
                lines.append('filter get dev %s ingress pref 1 handle %d '
                             'protocol ip flower' % (DEV, h))
            else:
                # The key follows the handle, the mask varies: a replace
                # moves a filter to another mask, and two filters never
                # share a masked key.
                lines.append(flt(1, h, rnd.choice((24, 28, 32)), h, op))
        work.append(lines)
    work.append(['filter show dev %s ingress' % DEV] * (a.ops // 4))
    return churned(a, a.ops, 1, span, 'churn', 'handles',
                   batches(work, tmp))


def churned(a, ops, pref, span, phase, what, res):
    """The check after a churn of handles 1..`span` of `pref`: every
    dumped filter once, in the span, gettable; then the prio deleted at
    once, and nothing left.  `res`: the batches' (exit code, stderr)."""
    got = handles(pref)
    agree = all(sh('tc filter get dev %s ingress pref %d handle %d '
                   'protocol ip flower' % (DEV, pref, h),
                   check=False).returncode == 0 for h in got)
    sh('tc filter del dev %s ingress pref %d' % (DEV, pref), check=False)
    left = handles(pref)
    ok = agree and len(set(got)) == len(got) and not left and \
        all(0 < h <= span for h in got)
    print('%s: %s: %d workers x %d ops on %d %s, one dumper; %d filters '
          'at the end, every one gettable: %s; after deleting the prio: '
          '%d left; tc exit codes %s'
          % ('ok' if ok else 'FAIL', phase, a.workers, ops, span, what,
             len(got), agree, len(left), sorted(set(rc for rc, _ in res))))
    return ok


RANGE_SPAN = 100     # handles: past the 64 filters a change indexes at once


def range_flt(handle, width, verb='add'):
    """Filter `handle` of pref 3: dst_port range of its own, `width`+1
    ports, so that ranges of neighbouring handles may overlap."""
    lo = 1000 + 10 * handle
    return ('filter %s dev %s ingress pref 3 handle %d protocol ip flower '
            'ip_proto udp dst_port %d-%d action drop'
            % (verb, DEV, handle, lo, lo + width))


def phase_ranges(a, tmp, rnd):
    work = [[range_flt(h, 5) for h in range(1, RANGE_SPAN + 1)]]
    for w in range(a.workers):
        lines = []
        for _ in range(a.ops // 2):
            h = rnd.randrange(1, RANGE_SPAN + 1)
            op = rnd.choice(('add', 'replace', 'delete'))
            if op == 'delete':
                lines.append('filter del dev %s ingress pref 3 handle %d '
                             'protocol ip flower' % (DEV, h))
            else:
                lines.append(range_flt(h, rnd.choice((5, 9, 25)), op))
        work.append(lines)
    work.append(['filter show dev %s ingress pref 3' % DEV] * (a.ops // 8))
    # churned() deletes the prio at once: the instance goes while its
    # index's work may be queued
    return churned(a, a.ops // 2, 3, RANGE_SPAN, 'ranges', 'range filters',
                   batches(work, tmp))


def phase_empty(a, tmp):
    work = []
    for w in range(a.workers):
        lines = []
        for i in range(a.ops // 2):
            lines.append(flt(2, w + 1, 32, w))
            lines.append('filter del dev %s ingress pref 2 handle %d '
                         'protocol ip flower' % (DEV, w + 1))
        work.append(lines)
    res = batches(work, tmp)
    left = handles(2)
    # Every add and delete of a worker's own handle must succeed: no
    # other worker touches it, so a failure is a lost request.
    bad = [err for rc, err in res if rc]
    ok = not bad and not left
    print('%s: empty: %d workers adding and deleting the only filters of '
          'pref 2 %d times each; failed batches %d, filters left %d%s'
          % ('ok' if ok else 'FAIL', a.workers, a.ops // 2, len(bad),
             len(left), '' if not bad else '; tc: ' + bad[0][-300:]))
    return ok


def phase_cache(a, seed):
    from stress import flow_cache
    # senders that leave the CPUs room: tc's changes are what is timed
    passed, failed = flow_cache.under_traffic(a.cache_steps, seed,
                                              senders=os.cpu_count(),
                                              gap='500usec')
    ok = passed > 0 and not failed
    print('%s: cache: %d changes under traffic from every CPU; %d windows '
          'counted by the right filter alone, %d not'
          % ('ok' if ok else 'FAIL', a.cache_steps, passed, failed))
    return ok


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--workers', type=int, default=8)
    p.add_argument('--filters', type=int, default=4000,
                   help='filters of the insert phase, over all workers')
    p.add_argument('--ops', type=int, default=400,
                   help='requests per worker in churn and empty')
    p.add_argument('--seed', type=int, default=None)
    p.add_argument('--cache-steps', type=int, default=0,
                   help='steps of the cache phase (0: not run)')
    a = p.parse_args()
    if not os.environ.get('TDC_GUEST'):
        sys.exit('parallel.py changes tc state: run it in the guest '
                 '(guest/run -- /usr/bin/python3 -m stress.parallel)')
    seed = a.seed if a.seed is not None else random.randrange(1 << 30)
    print('parallel: seed %d (--seed to replay), %d CPUs'
          % (seed, os.cpu_count()))
    rnd = random.Random(seed)
    sh('ip link add %s type dummy && ip link set %s up && '
       'tc qdisc add dev %s clsact' % (DEV, DEV, DEV))
    with tempfile.TemporaryDirectory() as tmp:
        results = [phase_insert(a, tmp), phase_churn(a, tmp, rnd),
                   phase_empty(a, tmp), phase_ranges(a, tmp, rnd)]
    sh('ip link del %s' % DEV)
    if a.cache_steps:
        results.append(phase_cache(a, seed))
    print('%d passed, %d failed' % (results.count(True),
                                    results.count(False)))
    return 0 if all(results) else 1


if __name__ == '__main__':
    sys.exit(main())
