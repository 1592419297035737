#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""gate.py - what `make test` runs: every stage, then one verdict.

Each stage is a command whose output ends with a summary ("N passed,
N failed[, N skipped]", or unittest's "Ran N tests" ... "OK"/"FAILED
(...)").  The stages run in order from the repository root, their output
is echoed as it comes, and the last line is the sum over the stages:
exactly "N passed, N failed".  To add a stage, add a line to STAGES: a
name, a command and the parser of its summary (tdc_stage() for tdc.py).

A stage whose output has no summary counts as 1 failed, and so does one
that exits non-zero although its summary shows no failure (it crashed
after the summary, or guest/run saw a kernel splat), and one whose summary
counts nothing at all ("0 passed, 0 failed", unittest's "Ran 0 tests"):
a stage that ran nothing passed nothing.

A skip is a pass of nothing: the total line counts every skipped test or
case as failed ("N passed, N failed"; the line before it says how many
skips are in the failed count).  A tdc stage (tdc_stage) also runs
tdc.py --strict, so that a case skipping for a reason it does not
declare fails there already, and it counts as 1 failed more unless the
TAP reports exactly as many cases as its tdc.py arguments select from
the JSON here on the host (a runner that stops early, or selects other
cases in the guest, does not pass).  Exit status 1 if anything failed,
else 0.  The summary gives each stage's wall time.

The debug kernel, which the debug stages build for themselves, is built
in the background from the start at nice 19 (PREBUILD_MAKE): the host stages
before the first guest keep one core busy, and the build takes the
other.  The gate waits for it before the first guest stage, whose
emulated CPUs need both cores (a build beside the flower stage doubled
its time, for nothing saved).

usage: python3 -m tdc.gate [STAGE...]   (from the repository root;
                                          default: all; --list shows them)
"""

import os
import sys

if __name__ == '__main__' and not __package__:
    import as_module                # run as a file: again as the module
    as_module.reexec('tdc.gate')

import collections                  # noqa: E402
import functools                    # noqa: E402
import re                           # noqa: E402
import subprocess                   # noqa: E402
import threading                    # noqa: E402
import time                         # noqa: E402

from flower import guest            # noqa: E402
from flower.results import Counts, parse_tap, summary_line  # noqa: E402

HERE = os.path.dirname(os.path.realpath(__file__))
REPO = os.path.dirname(HERE)
PY = '/usr/bin/python3'
UPSTREAM = 'build/src/pristine/tools/testing/selftests/tc-testing/tc-tests'

# Every stage but the unit stage is read by flower.results.summary_line:
# the last "N passed, N failed[, N skipped]" line, whitespace after it
# allowed.


def unittest_summary(output):
    """Counts from unittest's "Ran N tests" and its OK / FAILED line."""
    ran = re.findall(r'^Ran (\d+) tests? in ', output, re.MULTILINE)
    verdict = re.findall(r'^(OK|FAILED)(?: \((.*)\))?\s*$', output,
                         re.MULTILINE)
    if not ran or not verdict:
        return None
    details = dict((k.strip(), int(v)) for k, v in
                   re.findall(r'([a-z ]+)=(\d+)', verdict[-1][1]))
    failed = (details.get('failures', 0) + details.get('errors', 0) +
              details.get('unexpected successes', 0))
    skipped = details.get('skipped', 0)
    return Counts(int(ran[-1]) - failed - skipped, failed, skipped)


UNIT_FLOOR = 'test_the_tree_loses_no_test_file'


def unit_summary(output):
    """unittest_summary() of the unit stage, 1 failed more unless its
    floor ran: tdc/tests/test_unitfloor.py fails when a test file drops
    out of discovery, and is the one test that must always be there."""
    counts = unittest_summary(output)
    if counts is not None and UNIT_FLOOR not in output:
        print('gate: the unit stage did not run {} (tdc/tests dropped out '
              'of discovery?)'.format(UNIT_FLOOR), flush=True)
        return counts._replace(failed=counts.failed + 1)
    return counts


Stage = collections.namedtuple('Stage', 'name command parse')


def tdc_summary(output, tdc_args):
    """Counts of a tdc.py run; 1 failed more (and a line saying why) unless
    its TAP plan and results cover exactly the cases `tdc_args` select."""
    counts = summary_line(output)
    if counts is None:
        return None
    expected = len(selected_cases(tdc_args))
    tap = parse_tap(output)
    # every line that begins like a result counts, read as one or not
    reported = len(tap.results) + len(tap.unread)
    if tap.plans != [expected] or reported != expected or \
            sum(counts) != expected:
        print('gate: tdc.py reported {} cases (plan {}, summary {}), its '
              'arguments select {} here'.format(
                  reported, '/'.join(str(n) for n in tap.plans) or 'none',
                  sum(counts), expected), flush=True)
        return counts._replace(failed=counts.failed + 1)
    return counts


def selected_cases(tdc_args):
    """The cases tdc.py would run with these arguments, read on the host
    (no plugin is loaded, nothing runs)."""
    from tdc import tdc
    home = os.getcwd()
    os.chdir(REPO)                  # where the stage runs
    try:
        return tdc.select_cases(tdc.parse_args(list(tdc_args)))
    finally:
        os.chdir(home)


# How the gate starts tdc.py: in the guest, 2 vCPUs (guest/run --smp).
GUEST_PYTHON = guest.command([PY], timeout=7200, run='guest/run')


def tdc_stage(name, tdc_args, python=GUEST_PYTHON):
    """A stage running tdc.py --strict with `tdc_args` (in the guest)."""
    return Stage(name, list(python) + ['-m', 'tdc.tdc', '--strict'] +
                 list(tdc_args),
                 functools.partial(tdc_summary, tdc_args=tdc_args))


# One line per stage.  Commands run from the repository root.  The guest
# is emulated (TCG).  The tree's own flower cases (with their 1M-filter
# batches) are too slow for CI's budget here: `make upstream` runs them.
STAGES = [
    Stage('unit', [PY, '-m', 'unittest', 'discover', '-v'], unit_summary),
    Stage('corpus', [PY, '-m', 'tdc.corpus', 'tc-tests'], summary_line),
    Stage('kernel', ['guest/kernel-checks'], summary_line),
    # every patch of the series on its own: applies, checkpatch (netdev's
    # rules, on net/ paths), W=1 build (make series-gate adds sparse,
    # kernel-doc and i386)
    Stage('series', ['make', '--no-print-directory', 'series-gate-quick'],
          summary_line),
    # ours on a 32-bit kernel: the filter walk ends past handle 0xffffffff
    Stage('walk32', ['make', '--no-print-directory', 'walk32'],
          summary_line),
    tdc_stage('flower', ['-c', 'flower', '-J', '2']),
    # a sample of the same corpus under the tdc.py that linux-source-6.1
    # ships, its own plugins, FLNL defined (make tdc61 runs every file)
    Stage('tdc61-smoke', ['make', '--no-print-directory', 'tdc61-smoke'],
          summary_line),
    # oracles nobody here wrote: the tree's tc_flower.sh, and the stock
    # cls_flower on the same (filter, packet) pairs
    Stage('selftests-flower', ['make', '--no-print-directory',
                               'selftests-flower'], summary_line),
    # against stock-next (the stock flower with kernel/stock-series, whose
    # per-patch gate builds it): strict, every divergence fails.  make
    # difftest keeps ours against plain stock, divergences classified.
    Stage('difftest-smoke', ['make', '--no-print-directory',
                             'difftest-smoke', 'DT_STOCK=stock-next'],
          summary_line),
    # the stock cls_flower again, on what drivers are given: a sample of
    # the corpus' and difftest's filters and the offload scenarios, the
    # test driver's log compared (offload/compare.py)
    Stage('offload-smoke', ['make', '--no-print-directory',
                            'offload-smoke'], summary_line),
    # a real client: Open vSwitch's tc offload (start, L2 with VLAN, L3/L4)
    Stage('ovs-smoke', ['make', '--no-print-directory', 'ovs-smoke'],
          summary_line),
    Stage('bench-smoke', ['make', '--no-print-directory', 'bench-smoke'],
          summary_line),
    Stage('stress-smoke', ['make', '--no-print-directory', 'stress-smoke'],
          summary_line),
    # builds the debug kernel (KASAN, kmemleak, lockdep) first
    Stage('stress-debug-smoke', ['make', '--no-print-directory',
                                 'stress-debug-smoke'], summary_line),
    # unlocked adds, replaces, deletes and dumps racing on one prio, on
    # the debug kernel with two vCPUs
    Stage('stress-parallel', ['make', '--no-print-directory',
                              'stress-parallel'], summary_line),
    # the mutation machinery: three fixed mutants of HEAD must die on the
    # packet cases, the unmutated source must live (make mutate: hours)
    Stage('mutate-sample', ['make', '--no-print-directory',
                            'mutate-sample'], summary_line),
]


# The kernel the debug stages need, built while the host stages run: its
# make arguments, the stages that need it, and the stages it may run
# beside (host work that leaves a core idle); the gate waits for it
# before any other stage.  A failed background build fails nothing by
# itself: the stages that need it run the same make and report.
PREBUILD_MAKE = ['kernel', 'VARIANT=debug']
PREBUILD_FOR = {'stress-debug-smoke', 'stress-parallel'}
PREBUILD_BESIDE = {'unit', 'corpus', 'kernel', 'series', 'walk32'}
PREBUILD_LOG = os.path.join(REPO, 'build', 'logs', 'gate-prebuild-debug.log')


class Prebuild(threading.Thread):
    """PREBUILD_MAKE in the background, at nice 19, into PREBUILD_LOG."""

    def __init__(self):
        super().__init__(daemon=True)
        self.code = None
        self.seconds = None
        self.waited = None          # (seconds, the stage that waited)

    def run(self):
        os.makedirs(os.path.dirname(PREBUILD_LOG), exist_ok=True)
        start = time.monotonic()
        with open(PREBUILD_LOG, 'w') as out:
            self.code = subprocess.call(
                ['nice', '-n', '19', 'make', '--no-print-directory'] +
                PREBUILD_MAKE, cwd=REPO, stdin=subprocess.DEVNULL,
                stdout=out, stderr=subprocess.STDOUT)
        self.seconds = time.monotonic() - start

    def wait(self, stage):
        """Before `stage`: wait unless it may run beside the build."""
        if stage.name in PREBUILD_BESIDE or not self.is_alive():
            return
        print('=== {}: waiting for the background debug kernel build '
              '({})'.format(stage.name, os.path.relpath(PREBUILD_LOG, REPO)),
              flush=True)
        start = time.monotonic()
        self.join()
        self.waited = (time.monotonic() - start, stage.name)

    def summary(self):
        """The summary line, or None if it never ran to its end."""
        if self.seconds is None:
            return None
        line = '=== prebuild make {}: exit {} ({:.0f} s; log {})'.format(
            ' '.join(PREBUILD_MAKE), self.code, self.seconds,
            os.path.relpath(PREBUILD_LOG, REPO))
        if self.waited:
            line += ', {:.0f} s of it waited for before {}'.format(
                *self.waited)
        return line


def run_stage(stage):
    """Run one stage, echoing its output; return (Counts, note)."""
    out = sys.stdout
    print('=== {}: {}'.format(stage.name, ' '.join(stage.command)),
          file=out, flush=True)
    lines = []
    try:
        with subprocess.Popen(stage.command, cwd=REPO, text=True,
                              stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT,
                              errors='replace') as proc:
            for line in proc.stdout:
                out.write(line)
                out.flush()
                lines.append(line)
        code = proc.returncode
    except OSError as exc:
        print(str(exc), file=out)
        code = None
    counts = stage.parse(''.join(lines))
    if counts is None:
        return Counts(0, 1, 0), 'no summary line (exit {})'.format(code)
    if counts == Counts(0, 0, 0):
        return Counts(0, 1, 0), 'ran nothing: 0 passed, 0 failed ' \
            '(exit {})'.format(code)
    if code != 0 and counts.failed == 0:
        return counts._replace(failed=1), 'exit {} with no failure ' \
            'counted'.format(code)
    return counts, 'exit {}'.format(code)


def main(argv):
    if argv[:1] == ['--list']:
        for stage in STAGES:
            print('{:<19} {}'.format(stage.name, ' '.join(stage.command)))
        return 0
    unknown = set(argv) - {s.name for s in STAGES}
    if unknown:
        print('gate.py: no stage ' + ', '.join(sorted(unknown)),
              file=sys.stderr)
        return 2
    total = Counts(0, 0, 0)
    verdicts = []
    gate_start = time.monotonic()
    selected = [s for s in STAGES if not argv or s.name in argv]
    prebuild = Prebuild()
    if PREBUILD_FOR & {s.name for s in selected}:
        prebuild.start()
    for stage in selected:
        prebuild.wait(stage)
        start = time.monotonic()
        counts, note = run_stage(stage)
        total = Counts(*(a + b for a, b in zip(total, counts)))
        verdicts.append('=== {}: {} passed, {} failed, {} skipped ({}; '
                        '{:.0f} s)'.format(stage.name, counts.passed,
                                           counts.failed, counts.skipped,
                                           note, time.monotonic() - start))
    if prebuild.is_alive():
        prebuild.join()
    if prebuild.summary():
        verdicts.append(prebuild.summary())
    verdicts.append('=== gate: {:.0f} s'.format(time.monotonic() - gate_start))
    print('\n'.join(verdicts))
    if total.skipped:
        print('gate: {} skipped, counted as failed'.format(total.skipped))
    failed = total.failed + total.skipped
    print('{} passed, {} failed'.format(total.passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
