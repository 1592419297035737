#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""stress/scan_console.py LOG... - the kernel splats in guest console logs.

Uses guest/run's own splat detection (its SPLAT_RE / BENIGN_RE and
splats()), with one addition: a boot-time line that is one of the known
benign debug-kernel banners with a character or two lost on the serial
console (seen under load: "RCU lockdep checking is enable.") is not a
splat.  Only single lines without a following trace qualify, and only
above a 0.9 similarity to the banner.

Prints every real splat (first line and excerpt) and a summary line;
exit status 0 without real splats, 3 with.
"""

import difflib
import importlib.machinery
import importlib.util
import os
import re
import sys

sys.dont_write_bytecode = True
REPO = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))

BANNERS = (
    'rcu: RCU lockdep checking is enabled.',
    'Lock dependency validator: Copyright (c) 2006 Red Hat, Inc., '
    'Ingo Molnar',
    'kmemleak: Kernel memory leak detector initialized',
    'kmemleak: Automatic memory scanning thread started',
    'lockdep: fixing up alternatives.',
)
TS_RE = re.compile(r'^\[\s*\d+\.\d+\]\s*')


def guest_run_module():
    path = os.path.join(REPO, 'guest', 'run')
    loader = importlib.machinery.SourceFileLoader('guest_run', path)
    spec = importlib.util.spec_from_loader('guest_run', loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def is_banner(line):
    line = ' '.join(TS_RE.sub('', line).split())
    return any(difflib.SequenceMatcher(None, line, b).ratio() >= 0.9
               for b in BANNERS)


def garbled_banner(first, excerpt, gr):
    """True if `first` is a garbled banner and nothing else in the excerpt
    (guest/run takes up to 80 lines after a splat's first line) looks
    like a splat."""
    if not is_banner(first):
        return False
    for ln in excerpt.splitlines():
        if gr.SPLAT_RE.search(ln) and not gr.BENIGN_RE.search(ln) and \
                not is_banner(ln):
            return False
    return True


def scan(path, gr=None):
    """(real splats [(first line, excerpt)], garbled banners [line])."""
    gr = gr or guest_run_module()
    with open(path, 'rb') as f:
        text = f.read().decode(errors='replace')
    real, garbled = [], []
    for first, excerpt in gr.splats(text):
        if garbled_banner(first, excerpt, gr):
            garbled.append(first.strip())
        else:
            real.append((first, excerpt))
    return real, garbled


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    gr = guest_run_module()
    nreal = 0
    for path in argv:
        real, garbled = scan(path, gr)
        nreal += len(real)
        for first, excerpt in real:
            print('%s: SPLAT: %s\n%s' % (path, first.strip(), excerpt))
        for g in garbled:
            print('%s: benign banner garbled on the console, ignored: %s'
                  % (path, g))
        print('%s: %d splat(s)%s' % (path, len(real), ', %d garbled banner(s)'
                                     ' ignored' % len(garbled)
                                     if garbled else ''))
    return 3 if nreal else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
