#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""python3 -m stress.scan_console LOG... - kernel splats in console logs.

Uses guest/run's splat detection (flower.guest: SPLAT_RE / BENIGN_RE and
splats()), with one addition: a boot-time line that is one of the known
benign debug-kernel banners with a character or two lost on the serial
console (seen under load: "RCU lockdep checking is enable.") is not a
splat.  Only single lines without a following trace qualify, and only
above a 0.9 similarity to the banner.

Prints every real splat (first line and excerpt) and a summary line;
exit status 0 without real splats, 3 with.
"""

import difflib
import re
import sys

from flower import guest

BANNERS = (
    'rcu: RCU lockdep checking is enabled.',
    'Lock dependency validator: Copyright (c) 2006 Red Hat, Inc., '
    'Ingo Molnar',
    'kmemleak: Kernel memory leak detector initialized',
    'kmemleak: Automatic memory scanning thread started',
    'lockdep: fixing up alternatives.',
)
TS_RE = re.compile(r'^\[\s*\d+\.\d+\]\s*')


def is_banner(line):
    line = ' '.join(TS_RE.sub('', line).split())
    return any(difflib.SequenceMatcher(None, line, b).ratio() >= 0.9
               for b in BANNERS)


def garbled_banner(first, excerpt):
    """True if `first` is a garbled banner and nothing else in the excerpt
    (guest/run takes up to 80 lines after a splat's first line) looks
    like a splat."""
    if not is_banner(first):
        return False
    for ln in excerpt.splitlines():
        if guest.is_splat(ln) and not is_banner(ln):
            return False
    return True


def scan(path):
    """(real splats [(first line, excerpt)], garbled banners [line])."""
    with open(path, 'rb') as f:
        text = f.read().decode(errors='replace')
    real, garbled = [], []
    for first, excerpt in guest.splats(text):
        if garbled_banner(first, excerpt):
            garbled.append(first.strip())
        else:
            real.append((first, excerpt))
    return real, garbled


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    nreal = 0
    for path in argv:
        real, garbled = scan(path)
        nreal += len(real)
        for first, excerpt in real:
            print('%s: SPLAT: %s\n%s' % (path, first.strip(), excerpt))
        for g in garbled:
            print('%s: benign banner garbled on the console, ignored: %s'
                  % (path, g))
        print('%s: %d splat(s)%s' % (path, len(real), ', %d garbled banner(s)'
                                     ' ignored' % len(garbled)
                                     if garbled else ''))
    return guest.EXIT_SPLAT if nreal else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
