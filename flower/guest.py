# SPDX-License-Identifier: GPL-2.0
"""flower.guest - the one way Python starts the test guest, and what
guest/run's exit status and console log mean.

command() builds a guest/run command line from named options, and run()
runs it and gives back a Result whose verdict names a status that is
not CMD's own; every Python tool that boots the guest goes through them
(a shell recipe in a Makefile calls guest/run itself).  guest/run (the
QEMU test guest) exits with CMD's own status, or with one of EXIT_* when
the kernel or the guest failed; VERDICT names those for the reports.
SPLAT_RE / BENIGN_RE decide which console lines make a run fail;
splats() finds them with an excerpt.  guest/run, stress/ and
selftests/run all judge a boot by these.  In the guest,
loaded_srcversion() tells which cls_flower build is the one answering.
"""

import collections
import os
import re
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
GUEST_RUN = os.path.join(REPO, 'guest', 'run')

EXIT_SPLAT = 3          # the kernel log shows a splat, even if CMD passed
EXIT_DIED = 120         # the guest died (panic, reboot) before CMD finished
EXIT_NOSTART = 121      # the guest never started CMD
EXIT_TIMEOUT = 124      # --timeout expired
EXIT_HOST = 125         # host-side failure (build products, QEMU)

VERDICT = {EXIT_SPLAT: 'kernel splat', EXIT_DIED: 'guest died (panic)',
           EXIT_NOSTART: 'CMD never started', EXIT_TIMEOUT: 'timeout',
           EXIT_HOST: 'host-side failure'}


def verdict(rc):
    """A guest/run exit status that is not CMD's own, named; else None."""
    return VERDICT.get(rc)


def command(cmd, variant=None, timeout=None, console_log=None,
            no_load_flower=False, smp=None, append=None, env=(),
            verbose=False, run=GUEST_RUN):
    """The guest/run command line that runs the list cmd in the guest of
    variant (guest/run's default, ours, when None), with guest/run's
    options by name: env is a list of VAR=VALUE; run is the path of
    guest/run as the caller's command line should show it."""
    argv = [run]
    if variant:
        argv += ['--variant', variant]
    if no_load_flower:
        argv.append('--no-load-flower')
    if timeout is not None:
        argv += ['--timeout', str(timeout)]
    if smp is not None:
        argv += ['--smp', str(smp)]
    if console_log:
        argv += ['--console-log', console_log]
    if verbose:
        argv.append('-v')
    if append:
        argv += ['--append', append]
    for e in env:
        argv += ['-e', e]
    return argv + ['--'] + list(cmd)


# what run() gives back: guest/run's exit status, verdict(rc) (None when
# the status is CMD's own), and the output run() captured (None when it
# went elsewhere)
Result = collections.namedtuple('Result', 'rc verdict stdout stderr')


def run(cmd, options=None, **kwargs):
    """Run the list cmd in the guest (options: command()'s keywords) from
    the repository's root, as subprocess.run(**kwargs) would; a Result."""
    kwargs.setdefault('cwd', REPO)
    p = subprocess.run(command(cmd, **(options or {})), **kwargs)
    return Result(p.returncode, verdict(p.returncode), p.stdout, p.stderr)


# Console lines that make a run fail. Boot-time chatter that merely names a
# debug facility (e.g. "kmemleak: Kernel memory leak detector initialized")
# does not match.
SPLAT_RE = re.compile(
    r"BUG:|WARNING:|KASAN|UBSAN:|Oops|general protection fault|Call Trace"
    r"|kernel BUG at|Kernel panic|suspicious RCU usage"
    r"|possible recursive locking|possible circular locking"
    r"|inconsistent lock state|lockdep|unreferenced object 0x"
    r"|suspected memory leak|detected stall|blocked for more than"
    r"|Unable to handle kernel|Initramfs unpacking failed")
BENIGN_RE = re.compile(
    r"kmemleak: (Kernel memory leak detector initialized"
    r"|Automatic memory scanning thread)"
    r"|RCU lockdep checking is enabled|Lock dependency validator"
    r"|lockdep: fixing up alternatives|MAX_LOCKDEP"
    r"|memory used by lock dependency info"
    r"|per task-struct memory footprint")
PANIC_RE = re.compile(r"Kernel panic - not syncing.*")
INIT_RE = re.compile(r"Run /init as init process")
TRACE_END_RE = re.compile(r"---\[ end (trace|Kernel panic)")
EXCERPT_LINES = 80      # a splat's excerpt: up to its trace's end marker


def died_before_init(text):
    """The console log of a boot that panicked before the kernel ran
    /init: nothing of the guest's command had run, nor any module of ours
    (/init loads them).  Seen under TCG on the debug kernel: a KASAN report
    in identify_cpu() two seconds into the boot."""
    return bool(PANIC_RE.search(text)) and not INIT_RE.search(text)


def is_splat(line):
    return bool(SPLAT_RE.search(line)) and not BENIGN_RE.search(line)


def splats(text):
    """List of (first line, excerpt) for every splat in the console log."""
    lines = text.splitlines()
    found = []
    i = 0
    while i < len(lines):
        ln = lines[i]
        if is_splat(ln):
            j = i + 1
            while j < len(lines) and j < i + EXCERPT_LINES:
                if TRACE_END_RE.search(lines[j]):
                    j += 1
                    break
                j += 1
            found.append((ln, "\n".join(lines[max(0, i - 1):j])))
            i = j
        else:
            i += 1
    return found


# A module's srcversion (a hash of its source) tells which build of it is
# the one loaded: the loaded module's, from sysfs, against a module file's,
# from modinfo, shows that the file is the one answering and not an
# autoloaded other.
def loaded_srcversion(module='cls_flower'):
    """The srcversion of the module loaded (in the guest), or None when
    none is."""
    try:
        with open('/sys/module/%s/srcversion' % module) as f:
            return f.read().strip()
    except OSError:
        return None


def file_srcversion(ko):
    """The srcversion of the module file ko ('' when modinfo finds none)."""
    return subprocess.run(['modinfo', '-F', 'srcversion', ko],
                          capture_output=True, text=True).stdout.strip()
