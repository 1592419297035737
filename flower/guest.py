# SPDX-License-Identifier: GPL-2.0
"""flower.guest - what guest/run's exit status and console log mean.

guest/run (the QEMU test guest) exits with CMD's own status, or with one
of EXIT_* when the kernel or the guest failed; VERDICT names those for
the reports.  SPLAT_RE / BENIGN_RE decide which console lines make a run
fail; splats() finds them with an excerpt.  guest/run, stress/ and
selftests/run all judge a boot by these.
"""

import re

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
