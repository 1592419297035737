#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""gate.py - what `make test` runs: every stage, then one verdict.

Each stage is a command whose output ends with a summary ("N passed,
N failed[, N skipped]", or unittest's "Ran N tests" ... "OK"/"FAILED
(...)").  The stages run in order from the repository root, their output
is echoed as it comes (see BESIDE for stages that run two at a time:
each stage's output stays together, in the order of STAGES), and the
last line is the sum over the stages:
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

The kernels and modules that later stages need (the stock modules, the
i386 kernel of walk32, the debug kernel) are built in the background
from the start, one after the other at nice 19 (BUILDS): the host stages
and the guest stages after flower keep one core busy, and the build
takes the other.  The gate waits for a
build only before a stage that needs it, and stops it while the flower
stage runs, whose emulated CPUs need both cores.

usage: python3 -m gate.gate [STAGE...]   (from the repository root;
                                           default: all; --list shows them)
"""

import os
import sys

if __name__ == '__main__' and not __package__:
    # run as a file: again as the module (tdc/as_module.py), from the
    # repository, not from gate/, where "gate" is this file
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    from tdc import as_module
    as_module.reexec('gate.gate')

import collections                  # noqa: E402
import functools                    # noqa: E402
import queue                        # noqa: E402
import re                           # noqa: E402
import signal                       # noqa: E402
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
    floor ran: gate/tests/test_unitfloor.py fails when a test file drops
    out of discovery, and is the one test that must always be there."""
    counts = unittest_summary(output)
    if counts is not None and UNIT_FLOOR not in output:
        print('gate: the unit stage did not run {} (gate/tests dropped out '
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
    Stage('corpus', [PY, '-m', 'lint.corpus', 'tc-tests'], summary_line),
    Stage('kernel', ['tree/kernel-checks'], summary_line),
    # every patch of the series on its own: applies, checkpatch (netdev's
    # rules, on net/ paths), W=1 build (make series-gate adds sparse,
    # kernel-doc and i386)
    Stage('series', ['make', '--no-print-directory', 'series-gate-quick'],
          summary_line),
    # four workers on two vCPUs: one runs while another waits on the 9p
    # root or a child (three: 474 s alone, against 591 s with two in the
    # gate; in the gate of cd8c60e, 652 s with 10% of the cores idle)
    tdc_stage('flower', ['-c', 'flower', '-J', '4']),
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
    # ours on a 32-bit kernel: the filter walk ends past handle 0xffffffff
    # (its kernel built in the background: BUILDS)
    Stage('walk32', ['make', '--no-print-directory', 'walk32'],
          summary_line),
    # the debug kernel (KASAN, kmemleak, lockdep), built in the background
    Stage('stress-debug-smoke', ['make', '--no-print-directory',
                                 'stress-debug-smoke'], summary_line),
    # the mutation machinery: fixed mutants of HEAD must die on the packet
    # cases and the cache oracle, the unmutated source must live (make
    # mutate: hours)
    Stage('mutate-sample', ['make', '--no-print-directory',
                            'mutate-sample'], summary_line),
    # after the builds, beside the end of mutate-sample (which outlasts
    # stress-debug-smoke), where a core would sit idle: before them, it
    # would only push the debug build back
    Stage('stress-smoke', ['make', '--no-print-directory', 'stress-smoke'],
          summary_line),
    # unlocked adds, replaces, deletes and dumps racing on one prio, on
    # the debug kernel with two vCPUs
    Stage('stress-parallel', ['make', '--no-print-directory',
                              'stress-parallel'], summary_line),
]


# The kernels and modules the later stages need, built in the background
# from the start at nice 19: the host stages and the guest stages after
# flower keep one core busy (one vCPU at work, or none), and a build takes
# the other.
# One build at a time, in this order; the gate waits for a build only
# before a stage that needs it, and stops the build (SIGSTOP) while a
# stage whose emulated CPUs need both cores runs (a build beside the
# flower stage doubled its time, for nothing saved).  Even at nice 19 a
# build slows the one-vCPU stages beside it (offload-smoke 142 s against
# 57 s alone, in the gate of 3ab7243): it hides its own time, not more.
# A failed background build fails nothing by itself: the stages that need
# it run the same make and report.
Build = collections.namedtuple('Build', 'name make needed_by')
BUILDS = [
    # the stock cls_flower modules for ours' kernel (with the stock series:
    # each patch checked as make stock-series-gate does)
    Build('stock-next', ['stock-next-ext'], {'difftest-smoke'}),
    Build('stock', ['stock-ext'], {'offload-smoke'}),
    # the i386 kernel and its /init (tinyconfig)
    Build('i386', ['walk32-kernel'], {'walk32'}),
    # the debug kernel (KASAN, kmemleak, lockdep)
    Build('debug', ['kernel', 'VARIANT=debug'],
          {'stress-debug-smoke', 'stress-parallel'}),
]
# the stages during which the background builds are stopped
BOTH_CORES = {'flower'}
# Once the background builds are done, one core would sit idle beside a
# stage that keeps one emulated CPU busy: two of these stages then run at
# a time, in the order of STAGES (the second starts beside the first).
# Each boots its own guest and writes its own files under build/; the
# kernel builds each stage's make starts are serialized by the kernel
# locks, and leave the modules of a running guest in place when nothing
# changed (the top Makefile's kernel-locked).  Not here: the host stages
# before flower (one build of the series at a time is theirs) and flower
# (two emulated CPUs, busy: 6% of the cores idle with four workers).  stress-parallel has
# two emulated CPUs too, but they wait on each other (43% of the cores
# idle when it ran alone, in the gate of cd8c60e): it starts beside the
# end of mutate-sample or stress-smoke instead of after both, and a race
# it runs is no less a race with a third vCPU thread on the cores.
BESIDE = {'tdc61-smoke', 'selftests-flower', 'difftest-smoke',
          'offload-smoke', 'ovs-smoke', 'bench-smoke', 'stress-smoke',
          'walk32', 'stress-debug-smoke', 'mutate-sample',
          'stress-parallel'}
BUILD_LOGS = os.path.join(REPO, 'build', 'logs')


class Background(threading.Thread):
    """BUILDS, one after another, each `nice -n 19 make ARGS` in its own
    process group (so that pause() can stop its compilers too), into
    build/logs/gate-prebuild-NAME.log."""

    def __init__(self, builds, command=('nice', '-n', '19', 'make',
                                        '--no-print-directory')):
        super().__init__(daemon=True)
        self.builds = list(builds)
        self.command = list(command)
        self.done = {b.name: threading.Event() for b in self.builds}
        self.results = {}           # name -> (exit code, wall seconds)
        self.waited = {}            # name -> (seconds, the stage that waited)
        self.paused = 0.0           # seconds stopped, over all builds
        self._lock = threading.Lock()
        self._go = threading.Event()
        self._go.set()
        self._proc = None
        self._stopped_at = None
        self._killed = False

    def log(self, build):
        return os.path.join(BUILD_LOGS, 'gate-prebuild-{}.log'.format(
            build.name))

    def run(self):
        os.makedirs(BUILD_LOGS, exist_ok=True)
        for build in self.builds:
            self._go.wait()         # not started while paused
            start = time.monotonic()
            with open(self.log(build), 'w') as out, self._lock:
                if self._killed:
                    break
                self._proc = subprocess.Popen(
                    self.command + build.make, cwd=REPO,
                    stdin=subprocess.DEVNULL, stdout=out,
                    stderr=subprocess.STDOUT, start_new_session=True)
            code = self._proc.wait()
            self.results[build.name] = (code, time.monotonic() - start)
            self.done[build.name].set()
        with self._lock:
            self._proc = None
        for event in self.done.values():    # killed: nobody waits on
            event.set()

    def _signal(self, sig):
        proc = self._proc
        if proc is not None and proc.poll() is None:
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                pass

    def pause(self):
        with self._lock:
            self._go.clear()
            self._stopped_at = time.monotonic()
            self._signal(signal.SIGSTOP)

    def resume(self):
        with self._lock:
            if self._stopped_at is None:
                return
            self._signal(signal.SIGCONT)
            self.paused += time.monotonic() - self._stopped_at
            self._stopped_at = None
            self._go.set()

    def kill(self):
        """At exit: nothing keeps building after the gate."""
        with self._lock:
            self._killed = True
            self._signal(signal.SIGCONT)
            self._signal(signal.SIGTERM)
            self._go.set()

    def before(self, stage):
        """Before `stage`: wait for the builds it needs, and stop the
        others while it runs if it needs both cores."""
        for build in self.builds:
            if stage.name in build.needed_by and \
                    not self.done[build.name].is_set() and self.is_alive():
                print('=== {}: waiting for the background {} kernel build '
                      '({})'.format(stage.name, build.name,
                                    os.path.relpath(self.log(build), REPO)),
                      flush=True)
                start = time.monotonic()
                self.done[build.name].wait()
                self.waited[build.name] = (time.monotonic() - start,
                                           stage.name)
        if stage.name in BOTH_CORES and self.is_alive():
            self.pause()

    def after(self, stage):
        if stage.name in BOTH_CORES:
            self.resume()

    def finished(self):
        """Every build has ended (or none was started)."""
        return all(event.is_set() for event in self.done.values())

    def summary(self):
        """A line per build that ran to its end."""
        lines = []
        for build in self.builds:
            if build.name not in self.results:
                continue
            code, seconds = self.results[build.name]
            line = '=== prebuild {} (make {}): exit {} ({:.0f} s; log ' \
                '{})'.format(build.name, ' '.join(build.make), code, seconds,
                             os.path.relpath(self.log(build), REPO))
            if build.name in self.waited:
                line += ', {:.0f} s of it waited for before {}'.format(
                    *self.waited[build.name])
            lines.append(line)
        if self.paused:
            lines.append('=== prebuild: stopped {:.0f} s while {} ran'.format(
                self.paused, ', '.join(sorted(BOTH_CORES))))
        return lines


class Output:
    """The stages' output on stdout, each stage's lines together and the
    stages in the order they started: the oldest running stage's lines
    are echoed as they come, a later one's are kept until every stage
    started before it has ended."""

    def __init__(self, out):
        self.out = out
        self._lock = threading.Lock()
        self._runs = []             # started, not all printed: [lines, done]

    def start(self, first_line):
        run = [[], False]
        with self._lock:
            self._runs.append(run)
        self.line(run, first_line + '\n')
        return run

    def line(self, run, text):
        with self._lock:
            run[0].append(text)
            if self._runs[0] is run:
                self.out.write(text)
                self.out.flush()

    def end(self, run):
        with self._lock:
            run[1] = True
            while self._runs and self._runs[0][1]:
                self._runs.pop(0)
                if self._runs:      # the next one's lines so far
                    self.out.write(''.join(self._runs[0][0]))
                    self.out.flush()


class StageRun(threading.Thread):
    """One stage's command, in its own session (so that stop() ends its
    children too), its output into `output`; counts and note when it
    ends (verdict())."""

    def __init__(self, stage, output, finished):
        super().__init__(daemon=True)
        self.stage = stage
        self.output = output
        self.finished = finished    # a queue.Queue told when it ends
        self.proc = None
        self.lines = []
        self.code = None
        self.seconds = None

    def run(self):
        start = time.monotonic()
        run = self.output.start('=== {}: {}'.format(
            self.stage.name, ' '.join(self.stage.command)))
        try:
            self.proc = subprocess.Popen(
                self.stage.command, cwd=REPO, text=True,
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, errors='replace',
                start_new_session=True)
            with self.proc:
                for line in self.proc.stdout:
                    self.output.line(run, line)
                    self.lines.append(line)
            self.code = self.proc.returncode
        except OSError as exc:
            self.output.line(run, str(exc) + '\n')
        finally:
            self.seconds = time.monotonic() - start
            self.output.end(run)
            self.finished.put(self)

    def stop(self):
        """The gate is stopped: so is the stage, children included (a
        make's guest/run would otherwise go on, its QEMU too)."""
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

    def verdict(self):
        """(Counts, note) of the ended stage."""
        counts = self.stage.parse(''.join(self.lines))
        code = self.code
        if counts is None:
            return Counts(0, 1, 0), 'no summary line (exit {})'.format(code)
        if counts == Counts(0, 0, 0):
            return Counts(0, 1, 0), 'ran nothing: 0 passed, 0 failed ' \
                '(exit {})'.format(code)
        if code != 0 and counts.failed == 0:
            return counts._replace(failed=1), 'exit {} with no failure ' \
                'counted'.format(code)
        return counts, 'exit {}'.format(code)


def may_start(stage, running, background):
    """Whether `stage` may start now, beside the stages `running`."""
    if not running:
        return True
    return (len(running) == 1 and stage.name in BESIDE and
            running[0].stage.name in BESIDE and background.finished())


def run_stages(stages, background, output):
    """Run `stages` in order, two at a time where may_start() lets them;
    return {name: StageRun} once all have ended."""
    finished = queue.Queue()
    pending, running, ended = list(stages), [], {}
    try:
        while pending or running:
            if pending and may_start(pending[0], running, background):
                stage = pending.pop(0)
                background.before(stage)
                run = StageRun(stage, output, finished)
                running.append(run)
                run.start()
                continue
            run = finished.get()
            run.join()
            running.remove(run)
            background.after(run.stage)
            ended[run.stage.name] = run
    except BaseException:
        for run in running:
            run.stop()
        raise
    return ended


def _terminated(signum, frame):
    raise SystemExit(128 + signum)


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
    # a SIGTERM unwinds like ^C, so that the stage and the background
    # builds are stopped too (a stopped build would otherwise stay stopped)
    signal.signal(signal.SIGTERM, _terminated)
    total = Counts(0, 0, 0)
    verdicts = []
    gate_start = time.monotonic()
    selected = [s for s in STAGES if not argv or s.name in argv]
    names = {s.name for s in selected}
    background = Background(b for b in BUILDS if b.needed_by & names)
    if background.builds:
        background.start()
    try:
        ended = run_stages(selected, background, Output(sys.stdout))
        for stage in selected:
            counts, note = ended[stage.name].verdict()
            total = Counts(*(a + b for a, b in zip(total, counts)))
            verdicts.append('=== {}: {} passed, {} failed, {} skipped ({}; '
                            '{:.0f} s)'.format(stage.name, counts.passed,
                                               counts.failed, counts.skipped,
                                               note, ended[stage.name].seconds))
    finally:
        if background.is_alive():
            background.kill()
            background.join()
    verdicts.extend(background.summary())
    verdicts.append('=== gate: {:.0f} s'.format(time.monotonic() - gate_start))
    print('\n'.join(verdicts))
    if total.skipped:
        print('gate: {} skipped, counted as failed'.format(total.skipped))
    failed = total.failed + total.skipped
    print('{} passed, {} failed'.format(total.passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
