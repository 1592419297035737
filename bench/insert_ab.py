#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""insert_ab.py - parallel flower inserts, two modules in one guest run.

Inserts take RTNL or not depending on the classifier (stock's flower and
ours are both TCF_PROTO_OPS_DOIT_UNLOCKED), and what that is worth shows
only with several CPUs, so this runs on a multi-vCPU guest in wall time,
not under -icount (which brings up one vCPU only).  Host load moves wall
time by +-15%, so the two modules alternate, round by round, in one boot,
and the report gives medians and their ratio:

    guest/run --smp 2 --no-load-flower -- /usr/bin/python3 -m bench.insert_ab \\
        --module stock=build/mod/stock/.../cls_flower.ko \\
        --module ours=build/mod/ours/.../cls_flower.ko --out DIR

(`make bench-insert` does this.)  Each round: one `tc -b` adding P*N
filters into prio 1, then P `tc -b` processes at once, each adding N
filters, all into prio 1 (one instance, the shape of
upstream tdc's concurrency cases) and then one prio per process; the
filters are counted in a dump afterwards, so a lost insert fails the run.

With --device fltest (and --driver, the offload test driver's .ko,
loaded first), the filters go to a device of the test driver, which
binds its block as a NIC driver does: every insert builds the rule
drivers get and offers it (the filters stay in software too), which is
what an insert costs with an offloading device bound.
"""

import argparse
import json
import os
import statistics
import subprocess
import shutil
import sys
import tempfile
import time

from bench.classify_control import parallel_insert
from bench.classify_rules import parallel_rules

DEV = 'insab0'
# single: the same filters from one `tc -b` (the plain insert rate)
LAYOUTS = ('single', 'one-prio', 'prio-per-process')


def sh(cmd):
    return subprocess.run(cmd, shell=True, check=True, text=True,
                          capture_output=True).stdout


def unload():
    """rmmod, once the instances freed after a grace period are gone."""
    for _ in range(100):
        if subprocess.run(['rmmod', 'cls_flower'], capture_output=True)\
                .returncode == 0 or not os.path.exists(
                    '/sys/module/cls_flower'):
            return
        time.sleep(0.1)
    sys.exit('insert_ab: cls_flower stays loaded')


def load(path):
    unload()
    sh('insmod %s' % path)


def one_round(layout, procs, per, tmp, kind='dummy'):
    sh('ip link del %s 2>/dev/null || true' % DEV)
    sh('ip link add %s type %s && tc qdisc add dev %s clsact'
       % (DEV, kind, DEV))
    paths = []
    batches = [parallel_rules('one-prio', 0, procs * per, DEV)] \
        if layout == 'single' else \
        [parallel_rules(layout, k, per, DEV) for k in range(procs)]
    for k, rules in enumerate(batches):
        paths.append(os.path.join(tmp, 'ab-%d.batch' % k))
        with open(paths[-1], 'w') as f:
            f.write('\n'.join(rules) + '\n')
    wall, done = parallel_insert(paths)
    n = sh('tc filter show dev %s ingress | grep -c "^filter .* handle"'
           % DEV)
    if kind == 'fltest':
        # every filter must have reached the driver, or nothing was measured
        hw = sh('tc filter show dev %s ingress | grep -c "^  *in_hw"' % DEV)
        if int(hw) != procs * per:
            sys.exit('insert_ab: %s: %s of %d filters in_hw'
                     % (layout, hw.strip(), procs * per))
    sh('ip link del %s' % DEV)
    bad = [d for d in done if d[1] != 0]
    if bad or int(n) != procs * per:
        sys.exit('insert_ab: %s: %s filters of %d, failed: %s'
                 % (layout, n.strip(), procs * per, bad[:2]))
    return procs * per / wall


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--module', action='append', required=True,
                   metavar='NAME=PATH')
    p.add_argument('--procs', type=int, default=10)
    p.add_argument('--per', type=int, default=10000)
    p.add_argument('--rounds', type=int, default=3)
    p.add_argument('--out', required=True)
    p.add_argument('--device', choices=('dummy', 'fltest'), default='dummy',
                   help='the device the filters go to (fltest: the offload '
                   'test driver\'s, bound as a NIC driver binds)')
    p.add_argument('--commit', default='unknown',
                   help='the commit measured, for the report\'s head')
    p.add_argument('--driver', metavar='KO',
                   help='the offload test driver, loaded for --device fltest')
    a = p.parse_args()
    if (a.device == 'fltest') != bool(a.driver):
        p.error('--device fltest needs --driver, and --driver needs it')
    if a.driver:
        # log_max=0: the driver writes nothing down, so that the numbers
        # are flower's and the rule building, not the test log's
        sh('insmod %s log_max=0' % a.driver)
    mods = [m.split('=', 1) for m in a.module]
    os.makedirs(a.out, exist_ok=True)
    rates = {(name, lay): [] for name, _ in mods for lay in LAYOUTS}
    tmp = tempfile.mkdtemp(prefix='insert_ab.')
    for r in range(a.rounds):
        for name, path in (mods if r % 2 == 0 else mods[::-1]):
            load(path)
            for lay in LAYOUTS:
                rate = one_round(lay, a.procs, a.per, tmp, a.device)
                rates[name, lay].append(rate)
                print('round %d %-6s %-16s %8.0f filters/s'
                      % (r + 1, name, lay, rate), flush=True)
    unload()
    if a.driver:
        sh('rmmod flower_offload_test')
    shutil.rmtree(tmp)
    rows = []
    for lay in LAYOUTS:
        row = dict(layout=lay, processes=a.procs, filters=a.procs * a.per,
                   cpus=os.cpu_count(), rounds=a.rounds)
        for name, _ in mods:
            row[name] = round(statistics.median(rates[name, lay]))
            row[name + '_all'] = [round(x) for x in rates[name, lay]]
        if len(mods) == 2:
            row['ratio'] = round(row[mods[1][0]] / row[mods[0][0]], 3)
        rows.append(row)
        print('%s: %s' % (lay, ', '.join('%s %d/s' % (n, row[n])
                                         for n, _ in mods)) +
              (', %s/%s %.2f' % (mods[1][0], mods[0][0], row['ratio'])
               if len(mods) == 2 else ''))
    with open(os.path.join(a.out, 'insert_ab.json'), 'w') as f:
        json.dump(rows, f, indent=1)
    with open(os.path.join(a.out, 'insert_ab.md'), 'w') as f:
        f.write(markdown(rows, [n for n, _ in mods], a))


def markdown(rows, names, a):
    """The report: one row per layout, medians and every round."""
    out = ['# %s: %s in one guest run\n' % (
               'Inserts with an offloading device bound' if a.device == 'fltest'
               else 'Parallel inserts', ' and '.join(names)),
           'Commit measured: %s (`make bench-insert`).\n' % a.commit,
           '%d `tc -b` processes at once, %d filters each (single: the '
           'same filters from one process), %d vCPUs, wall '
           'time (not -icount); the modules alternate round by round, '
           'medians of %d rounds.  Wall time moves with the host\'s load: '
           'compare the two modules within a round.  `bench/insert_ab.py`, '
           '`make bench-insert`.\n' % (a.procs, a.per, os.cpu_count(),
                                       a.rounds),
           ('The device: %s.\n' % (
               'a `fltest` device of the offload test driver (log_max=0), '
               'which binds its block as a NIC driver does: every filter is '
               'offered to it and is in_hw (checked), and stays in software'
               if a.device == 'fltest' else
               'a dummy, no offloading device bound: no rule is built')),
           '| layout | ' + ' | '.join('%s: filters/s' % n for n in names) +
           (' | %s / %s |' % (names[1], names[0]) if len(names) == 2
            else ' |') + ' every round |',
           '|---|' + '---:|' * (len(names) + (len(names) == 2)) + '---|']
    for r in rows:
        out.append('| %s | ' % r['layout'] +
                   ' | '.join(str(r[n]) for n in names) +
                   (' | %.2f' % r['ratio'] if 'ratio' in r else '') +
                   ' | %s |' % '; '.join('%s %s' % (n, r[n + '_all'])
                                         for n in names))
    return '\n'.join(out) + '\n'


if __name__ == '__main__':
    main()
