# SPDX-License-Identifier: GPL-2.0
"""tcgen.main - write the flower tdc corpus, tc-tests/filters/flower/*.json.

usage (from the repository root):
       python3 -m tcgen           (re)write the files
       python3 -m tcgen --check   exit 1 (and name them) if a
                                              file is not what this
                                              program writes

The rest of the story is in tcgen/__init__.py.
"""

import hashlib
import json
import os
import sys

from tcgen.actions import action_cases, classid_cases
from tcgen.add import add_cases, module_cases
from tcgen.cases import Corpus
from tcgen.common import HERE, OUT_DIR
from tcgen.errors import netlink_error_cases, tc_error_cases
from tcgen.handles import delete_more_cases, flag_cases, handle_cases
from tcgen.hash import hash_cases
from tcgen.lenient import lenient_cases, warning_cases
from tcgen.masks import masks_cases
from tcgen.more import packet_more_cases, scale_cases
from tcgen.port_range import port_range_cases
from tcgen.templates import num_of_vlans_cases, template_cases
from tcgen.themes_keys import (delete_cases, flush_cases, get_cases,
                               keys_cases, packet_cases, replace_cases,
                               roundtrip_cases, terse_cases)
from tcgen.tunnel_ct import ct_cases, tunnel_cases


def main_themes(c):
    module_cases(c)
    add_cases(c)
    masks_cases(c)
    template_cases(c)
    num_of_vlans_cases(c)
    handle_cases(c)
    delete_more_cases(c)
    flag_cases(c)
    tc_error_cases(c)
    netlink_error_cases(c)
    lenient_cases(c)
    warning_cases(c)
    action_cases(c)
    classid_cases(c)
    packet_more_cases(c)
    scale_cases(c)
    tunnel_cases(c)
    ct_cases(c)
    port_range_cases(c)
    hash_cases(c)


# The files this program wrote, with their sha256 (`sha256sum -c` reads
# it): it rewrites or deletes a file only if it is listed there and still
# has the listed content.  Any other file in filters/flower/ belongs to
# someone else: basic.json, regressions.json (hand-written regression
# cases), a file that merely looks like ours, and a generated file with a
# case added by hand.  The case files themselves stay plain upstream tdc
# JSON.
MANIFEST = 'generated.sha256'


def sha256(text):
    return hashlib.sha256(text.encode()).hexdigest()


def read_manifest(out_dir=OUT_DIR):
    """{file name: sha256} of what tcgen last wrote in out_dir."""
    try:
        with open(os.path.join(out_dir, MANIFEST)) as f:
            lines = f.read().splitlines()
    except OSError:
        return {}
    return {name: digest for digest, name in
            (line.split('  ', 1) for line in lines if line.strip())}


def manifest_text(files):
    return ''.join('%s  %s\n' % (sha256(text), name)
                   for name, text in sorted(files.items()))


def current_text(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def leftovers(files, out_dir=OUT_DIR):
    """Files tcgen wrote (its manifest says) and no longer writes."""
    return sorted(n for n in read_manifest(out_dir) if n not in files and
                  os.path.exists(os.path.join(out_dir, n)))


def not_ours(files, out_dir=OUT_DIR):
    """Why writing `files` (and deleting the leftovers) would overwrite or
    delete what tcgen did not write: one line per such file."""
    manifest = read_manifest(out_dir)
    problems = []
    for name in sorted(set(files) | set(leftovers(files, out_dir))):
        text = current_text(os.path.join(out_dir, name))
        if text is None or text == files.get(name):
            continue                    # nothing there, or no change
        if name not in manifest:
            problems.append('%s: not written by tcgen (not in %s): '
                            'rename it, or the theme' % (name, MANIFEST))
        elif sha256(text) != manifest[name]:
            problems.append('%s: changed since tcgen wrote it (a case '
                            'added by hand? those go to regressions.json); '
                            'undo the change, then run this again'
                            % name)
    return problems


def write(files, out_dir=OUT_DIR):
    """Write the generated files and the manifest, delete leftovers;
    nothing at all if not_ours() finds a problem.  -> problems."""
    problems = not_ours(files, out_dir)
    if problems:
        return problems
    os.makedirs(out_dir, exist_ok=True)
    for name in leftovers(files, out_dir):
        os.remove(os.path.join(out_dir, name))
    for name, text in sorted(files.items()):
        if current_text(os.path.join(out_dir, name)) != text:
            with open(os.path.join(out_dir, name), 'w') as f:
                f.write(text)
    with open(os.path.join(out_dir, MANIFEST), 'w') as f:
        f.write(manifest_text(files))
    return []


# Ids of cases tcgen no longer writes: never given to another case
# (an id names one test; a case whose meaning changed gets a new name, so
# a new id).  The one-mask-per-prio refusals, now accepted (theme masks),
# and the others below.
RETIRED_IDS = frozenset((
    'c716', '408d', 'c3bd', '2b35', 'dbc5', '7e08', '0045', 'bcc5', '728b',
    '01d8', '5545', 'dcf5', 'cba1', '7a30', '0739', 'ba65', 'c48d', '5fb7',
    'bd84', '3c14', '9220', '23af', '0500', '4f46', '3ddd', '0346', '491c',
    '6df1', '0396', '9896', '1ef0',
    # a zero-mask address key not dumped (it is now)
    'e81a',
    # a replace across masks refused as stock refuses it (ours accepts it)
    '7583', 'a135', '2329', 'aa60',
    # "ct_zone 5 does not count zone 6: added and shown back", the same
    # case as 05b0 under another name
    '09c9',
    # skip_hw / skip_sw on $DEV2, now on $DUMMY ($DEV2 is outside the
    # namespace under upstream's tdc.py)
    '2435', '6da1',
    # port ranges and the hash key refused as unsupported (EOPNOTSUPP):
    # implemented since series step 16 and 17 (keys-port_range,
    # packets-port_range, keys-hash)
    '7200', 'd5e4', '35bd', '9bb5', '0e8e', '85fc', 'e772',
    # vxlan_opts and erspan_opts refused as unsupported: implemented since
    # series step 18 (keys-enc round trips)
    'c7db', '12fc'))


def corpus():
    """The Corpus of every theme, its ids assigned."""
    c = Corpus()
    main_themes(c)
    keys_cases(c)
    get_cases(c)
    replace_cases(c)
    delete_cases(c)
    flush_cases(c)
    roundtrip_cases(c)
    terse_cases(c)
    packet_cases(c)
    # the files tcgen wrote last time are its own too (a theme
    # renamed: its old file goes, its ids stay with their names)
    c.assign_ids(foreign_ids(set('%s.json' % t for t in c.themes) |
                             set(read_manifest())) | RETIRED_IDS)
    c.add_families()
    return c


def build():
    """{file name: text} of the whole generated corpus."""
    c = corpus()
    files = {}
    for theme in sorted(c.themes):
        files[theme + '.json'] = json.dumps(c.themes[theme], indent=4) + '\n'
    return files


def foreign_ids(ours):
    """Ids of every case in tc-tests/ outside the files we write."""
    ids = set()
    for root, dirs, names in os.walk(HERE):
        for name in names:
            path = os.path.join(root, name)
            if not name.endswith('.json') or (
                    os.path.dirname(path) == OUT_DIR and name in ours):
                continue
            try:
                with open(path) as f:
                    ids |= {case.get('id') for case in json.load(f)}
            except (OSError, ValueError, AttributeError, TypeError):
                pass
    return ids


def main(argv):
    files = build()
    if argv[1:] == ['--check']:
        stale = [name for name, text in sorted(files.items())
                 if current_text(os.path.join(OUT_DIR, name)) != text]
        for name in stale:
            print('stale: ' + os.path.join(OUT_DIR, name))
        for name in leftovers(files):
            print('left over: ' + os.path.join(OUT_DIR, name))
        manifest = read_manifest() != {n: sha256(t) for n, t in files.items()}
        if manifest:
            print('stale: ' + os.path.join(OUT_DIR, MANIFEST))
        return 1 if stale or leftovers(files) or manifest else 0
    if argv[1:]:
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return 2
    problems = write(files)
    for line in problems:
        print('tcgen: refusing to write anything: ' + line,
              file=sys.stderr)
    if problems:
        return 1
    total = sum(len(json.loads(t)) for t in files.values())
    scapy = sum(1 for t in files.values() for case in json.loads(t)
                if 'scapy' in case)
    print('%d cases (%d with scapy) in %d files' % (total, scapy, len(files)))
    return 0
