#!/usr/bin/python3
"""Host side: how much `tdc.py -J N` speeds the flower corpus up.

  bench/jobs.py [--jobs 1 2 3] [--out DIR] [--variant ours] [-- TDC ARGS]

For each N, one guest (guest/run, 2 vCPUs) runs `tdc.py --strict -c
flower -J N` and writes xunit; this script, on the host, takes the
corpus wall time from the xunit (tdc's own clock, boot and Python start
left out), the sum of the cases' own times, and the host CPU time QEMU
used (resource usage of the waited-for children: vCPU threads, the 9p
I/O thread, everything).  All N are run one after the other in this one
invocation, so the ratios come from one run on one host.

What the host can give, measured in the same invocation: a busy loop run
alone and then once per core at the same time, in a few rounds (the
"cores" of a cloud VM can share a physical core with other tenants, so 2
need not do twice the work of 1, and the ratio moves from round to
round).  The serial run already keeps about one host core busy (its two
vCPU threads share the runner's, tc's and the kernel's asynchronous
work, such as netns cleanup, and QEMU's I/O thread serves 9p), so the
table also says how many cores each -J kept busy: a speed-up of 2 needs
the same CPU work done on twice the cores.

Writes DIR/results.json and DIR/table.md (default build/guest-out/jobs).
"""
import argparse
import json
import multiprocessing
import os
import resource
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree

REPO = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
PYTHON = '/usr/bin/python3'

sys.path.insert(0, REPO)            # run as a file (bench.mk): flower/
from flower import guest            # noqa: E402


def spin(seconds):
    """Iterations of an empty loop in `seconds` of wall time."""
    end, count = time.monotonic() + seconds, 0
    while time.monotonic() < end:
        count += 1
    return count


def host_parallel_ratio(cores, seconds=3, rounds=3):
    """Work done by `cores` busy loops at once / by one alone, per round
    (alone, then together), sorted: a shared host varies from round to
    round."""
    ratios = []
    with multiprocessing.Pool(cores) as pool:
        for _ in range(rounds):
            alone = spin(seconds)
            ratios.append(sum(pool.map(spin, [seconds] * cores)) / alone)
    return sorted(ratios)


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def read_xunit(path):
    suite = ElementTree.parse(path).getroot().find('testsuite')
    cases = list(suite.iter('testcase'))
    return {'guest_wall': float(suite.get('time')),
            'case_sum': sum(float(c.get('time')) for c in cases),
            'cases': len(cases),
            'failed': int(suite.get('failures')),
            'skipped': int(suite.get('skipped'))}


def run_one(jobs, args):
    xml = os.path.join(args.out, 'J%d.xml' % jobs)
    if os.path.exists(xml):
        os.remove(xml)
    cmd = [PYTHON, '-m', 'tdc.tdc', '--strict', '-c', 'flower', '-J',
           str(jobs), '--format', 'xunit', '-o', xml] + list(args.tdc_args)
    load = os.getloadavg()[0]
    cpu, start = children_cpu(), time.monotonic()
    with open(os.path.join(args.out, 'J%d.log' % jobs), 'w') as log:
        rc = guest.run(cmd, dict(variant=args.variant, timeout=7200),
                       stdout=log, stderr=subprocess.STDOUT).rc
    point = {'jobs': jobs, 'rc': rc, 'load_before': load,
             'host_wall': time.monotonic() - start,
             'host_cpu': children_cpu() - cpu}
    if os.path.exists(xml):
        point.update(read_xunit(xml))
    print('jobs: -J %d: %s' % (jobs, json.dumps(point)), flush=True)
    return point


def table(points, cores, host_ratio):
    base = points[0]
    busy = base['host_cpu'] / base['host_wall']
    rows = ['| -J | corpus wall (s) | speed-up | sum of case times (s) '
            '| QEMU host CPU (s) | host cores busy | cases passed |',
            '|---:|---:|---:|---:|---:|---:|---:|']
    for p in points:
        if 'guest_wall' not in p:
            rows.append('| %d | no result (guest exit %d) ||||||'
                        % (p['jobs'], p['rc']))
            continue
        passed = p['cases'] - p['failed'] - p['skipped']
        rows.append('| %d | %.0f | %.2f | %.0f | %.0f | %.2f | %d/%d |'
                    % (p['jobs'], p['guest_wall'],
                       base['guest_wall'] / p['guest_wall'], p['case_sum'],
                       p['host_cpu'], p['host_cpu'] / p['host_wall'],
                       passed, p['cases']))
    rows += ['', 'Host: %d busy loops at once do %s times the work of one '
             '(rounds before and after the runs, sorted).' % (cores, ', '.join(
                 '%.2f' % r for r in host_ratio))]
    for p in points[1:]:
        if 'host_cpu' in p and base.get('host_cpu'):
            rows.append('At -J %d QEMU used %.2f times the serial run\'s host '
                        'CPU and kept %.2f of the host\'s %d cores busy '
                        '(serial: %.2f).'
                        % (p['jobs'], p['host_cpu'] / base['host_cpu'],
                           p['host_cpu'] / p['host_wall'], cores, busy))
    return '\n'.join(rows) + '\n'


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--jobs', type=int, nargs='+', default=[1, 2, 3])
    ap.add_argument('--out', default=os.path.join(REPO, 'build', 'guest-out',
                                                   'jobs'))
    ap.add_argument('--variant', default='ours')
    ap.add_argument('tdc_args', nargs='*', help='more tdc.py arguments '
                    '(after --), e.g. --shard 1/4')
    args = ap.parse_args()
    if args.jobs[0] != 1:
        ap.error('--jobs must start with 1: the serial run is the base')
    os.makedirs(args.out, exist_ok=True)
    cores = os.cpu_count()
    host_ratio = host_parallel_ratio(cores)       # before the runs ...
    points = [run_one(jobs, args) for jobs in args.jobs]
    host_ratio = sorted(host_ratio + host_parallel_ratio(cores))  # ... after
    meta = {'host_cores': cores, 'host_parallel_ratio': host_ratio,
            'variant': args.variant,
            'tdc_args': args.tdc_args,
            'date': time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}
    with open(os.path.join(args.out, 'results.json'), 'w') as f:
        json.dump({'meta': meta, 'points': points}, f, indent=1)
    text = table(points, cores, host_ratio)
    with open(os.path.join(args.out, 'table.md'), 'w') as f:
        f.write(text)
    print(text, end='')
    ok = all(p.get('cases') and p['failed'] == 0 and p['skipped'] == 0
             for p in points)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
