#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""stress/step.py - run stress/suite.sh parts in the guest, from the host.

usage: python3 -m stress.step [--variant V] [--timeout S] [--each]
                      [--name NAME] [-e VAR=VALUE]... [--append ARGS]
                      [--part-append PART=ARGS]... PART...
       (from the repository root)

Boots the guest (guest/run) once for all PARTs, or once per part with
--each, running `sh stress/suite.sh PART...` with the -e environment
(STRESS_SEED, FUZZ_COUNT, ... see suite.sh).  Console logs go to
build/logs/stress-<name>-<part|all>.log, a summary of every boot
(exit status, wall time, boot time, splats) to
build/guest-out/stress/<name>.runs.json.

A boot that guest/run fails with 3 (kernel splat) is rescanned with
stress/scan_console.py: a known boot banner garbled on the serial console
is not a splat (see there); anything else stays a failure.  Every other
guest/run failure (120 died, 121/125 setup, 124 timeout) is a failure.

The last line is "N passed, N failed": the parts' checks, plus one failed
check for every boot that ended in a splat, panic or timeout.  Exit
status 0 only when nothing failed.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.realpath(__file__))
REPO = os.path.dirname(HERE)

from flower import guest
from flower.results import summary_line
from stress import scan_console

VERBOSE_RE = re.compile(r'CMD started after ([\d.]+) s, total ([\d.]+) s')
EXITED_RE = re.compile(r'CMD exited (\d+)')


def boot(a, parts, tag):
    log = os.path.join(REPO, 'build', 'logs',
                       'stress-%s-%s.log' % (a.name, tag))
    os.makedirs(os.path.dirname(log), exist_ok=True)
    append = ' '.join([a.append] + [v.split('=', 1)[1] for v in
                                    a.part_append
                                    if v.split('=', 1)[0] in parts]).strip()
    env = list(a.env)
    if not any(e.startswith('STRESS_OUT=') for e in env):
        env.append('STRESS_OUT=' + os.path.join(REPO, 'build', 'guest-out',
                                                 'stress', a.name))
    cmd = guest.command(['sh', 'stress/suite.sh'] + parts,
                        variant=a.variant, timeout=a.timeout,
                        console_log=log, verbose=True, append=append,
                        env=env)
    print('stress: %s' % ' '.join(cmd), flush=True)
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    out_lines = []
    # stdout live; stderr (guest/run's own lines, CMD's stderr) afterwards
    for line in p.stdout:
        sys.stdout.write(line)
        sys.stdout.flush()
        out_lines.append(line.rstrip('\n'))
    err = p.stderr.read()
    rc = p.wait()
    wall = time.monotonic() - t0
    sys.stderr.write(err)
    info = {'parts': parts, 'variant': a.variant, 'rc': rc,
            'wall_seconds': round(wall, 1), 'console_log': log}
    m = VERBOSE_RE.search(err)
    if m:
        info['boot_seconds'] = float(m.group(1))
    # the suite's own total is the last result line: "N passed, N
    # failed" exactly, no skipped part, nothing after it
    passed, failed, _ = summary_line('\n'.join(out_lines), skipped=False,
                                     trailing_space=False) or (0, 0, 0)
    splats = None
    if rc == 3 or os.path.exists(log):
        real, garbled = scan_console.scan(log)
        splats = len(real)
        info['splats'] = splats
        info['garbled_banners_ignored'] = len(garbled)
        for g in garbled:
            print('stress: benign boot banner garbled on the console, not a '
                  'splat: %s' % g)
    if rc == 3 and splats == 0:
        m = EXITED_RE.search(err)
        rc = int(m.group(1)) if m else 1
        print('stress: guest/run reported a splat that is only a garbled '
              'boot banner; CMD exited %d' % rc)
    verdict = 'ok'
    if splats:
        verdict = 'kernel splat'
        failed += 1
    elif rc not in (0, 1):
        verdict = guest.verdict(rc) or 'exit %d' % rc
        failed += 1
    elif rc == 1 and failed == 0:
        failed = 1
    info.update(passed=passed, failed=failed, verdict=verdict)
    print('stress: %s on %s: %s, %.0f s wall, %d passed, %d failed'
          % ('+'.join(parts), a.variant, verdict, wall, passed, failed),
          flush=True)
    return info


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--variant', default='debug')
    p.add_argument('--timeout', type=float, default=7200)
    p.add_argument('--each', action='store_true',
                   help='one guest boot per part')
    p.add_argument('--name', default='run')
    p.add_argument('--append', default='',
                   help='kernel arguments for every boot')
    p.add_argument('--part-append', action='append', default=[],
                   metavar='PART=ARGS',
                   help='kernel arguments for boots that run PART')
    p.add_argument('-e', dest='env', action='append', default=[])
    p.add_argument('parts', nargs='+',
                   choices=('fuzz', 'churn', 'lifecycle', 'race', 'cache',
                            'corpus'))
    a = p.parse_args(argv)
    t0 = time.monotonic()
    runs = []
    if a.each:
        for part in a.parts:
            runs.append(boot(a, [part], part))
    else:
        runs.append(boot(a, a.parts, 'all'))
    outdir = os.path.join(REPO, 'build', 'guest-out', 'stress')
    os.makedirs(outdir, exist_ok=True)
    total = {'name': a.name, 'variant': a.variant, 'env': a.env,
             'runs': runs, 'wall_seconds': round(time.monotonic() - t0, 1)}
    with open(os.path.join(outdir, '%s.runs.json' % a.name), 'w') as f:
        json.dump(total, f, indent=1)
    passed = sum(r['passed'] for r in runs)
    failed = sum(r['failed'] for r in runs)
    print('stress: %s: %d boot(s), %.0f s wall in total'
          % (a.name, len(runs), time.monotonic() - t0))
    print('%d passed, %d failed' % (passed, failed))
    if any(r.get('splats') for r in runs):
        return 3            # as guest/run: a kernel splat
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
