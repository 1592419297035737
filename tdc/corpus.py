#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""corpus.py - find, load and check tdc case files.

tdc.py uses case_problems() on every case it is given (upstream's files
included).  Run as a program it checks the repository's own corpus more
strictly (check_tree): ids are 4 lowercase hex digits and unique over the
whole tree, every case has the full upstream set of fields, and a case
under filters/flower/ is in category "flower".  It prints each problem and
a final line "N passed, N failed" (cases without / with problems, plus
one check of the corpus size: at least --min-flower cases in category
"flower", at least --min-packets of them with a scapy block).

usage: corpus.py [--min-flower N] [--min-packets N] [DIR]
       (default: the repository's tc-tests/, 400 and 100)
"""

import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.realpath(__file__))
DEFAULT_DIR = os.path.join(os.path.dirname(HERE), 'tc-tests')

ID_RE = re.compile(r'^[0-9a-f]{4}$')
STRICT_FIELDS = ('id', 'name', 'category', 'plugins', 'setup',
                 'cmdUnderTest', 'expExitCode', 'teardown')
# Every key a case may have (upstream's, plus our timeout); a key starting
# with "__" is a comment (upstream uses "__comment").  Anything else is a
# misspelling that would silently drop a check ("matchPatern").
KNOWN_FIELDS = frozenset(STRICT_FIELDS + (
    'verifyCmd', 'matchPattern', 'matchCount', 'matchJSON', 'skip',
    'dependsOn', 'scapy', 'timeout'))


def case_files(paths):
    """JSON files: files as given, directories walked in sorted order."""
    found = []
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs.sort()
                found += [os.path.join(root, f) for f in sorted(files)
                          if f.endswith('.json')]
        else:
            found.append(path)
    return found


def load_file(path):
    """The list of cases in `path`; raises ValueError if it is not one."""
    try:
        with open(path) as f:
            cases = json.load(f)
    except (OSError, ValueError) as exc:
        raise ValueError('{}: {}'.format(path, exc))
    if not isinstance(cases, list) or not all(isinstance(c, dict)
                                              for c in cases):
        raise ValueError('{}: not a JSON list of case objects'.format(path))
    return cases


def _is_int(value):
    try:
        int(value)
        return not isinstance(value, bool)
    except (TypeError, ValueError):
        return False


def _command_list_problems(field, entries):
    if not isinstance(entries, list):
        return ['{} is not a list'.format(field)]
    problems = []
    for entry in entries:
        if isinstance(entry, list):
            if not entry or not isinstance(entry[0], str) or \
                    not all(_is_int(code) for code in entry[1:]):
                problems.append('{} entry {!r} is not [command, exit '
                                'codes...]'.format(field, entry))
        elif not isinstance(entry, str):
            problems.append('{} entry {!r} is not a command'.format(
                field, entry))
    return problems


def required_plugins(case):
    requires = case.get('plugins', {}).get('requires', [])
    return [requires] if isinstance(requires, str) else list(requires)


def case_problems(case):
    """What keeps tdc.py from running `case` (empty list: nothing)."""
    problems = ['unknown key {!r}'.format(key) for key in case
                if key not in KNOWN_FIELDS and not key.startswith('__')]
    if not isinstance(case.get('id'), str) or not case['id']:
        problems.append('no id')
    if not isinstance(case.get('name'), str):
        problems.append('no name')
    if not isinstance(case.get('cmdUnderTest'), str):
        problems.append('no cmdUnderTest')
    if not _is_int(case.get('expExitCode')):
        problems.append('expExitCode is not an integer')
    category = case.get('category', [])
    if not isinstance(category, list) or \
            not all(isinstance(c, str) for c in category):
        problems.append('category is not a list of strings')
    for field in ('setup', 'teardown'):
        problems += _command_list_problems(field, case.get(field, []))
    for field in ('verifyCmd', 'matchPattern', 'dependsOn'):
        if field in case and not isinstance(case[field], str):
            problems.append('{} is not a string'.format(field))
    if 'matchCount' in case and not _is_int(case['matchCount']):
        problems.append('matchCount is not an integer')
    if ('matchPattern' in case or 'matchJSON' in case) and \
            not case.get('verifyCmd'):
        problems.append('matchPattern/matchJSON without verifyCmd')
    if case.get('verifyCmd') and 'matchPattern' not in case and \
            'matchJSON' not in case:
        problems.append('verifyCmd without matchPattern or matchJSON: '
                        'nothing would be verified')
    if 'matchCount' in case and 'matchPattern' not in case:
        problems.append('matchCount without matchPattern')
    if 'matchPattern' in case:
        try:
            re.compile(case['matchPattern'])
        except (re.error, TypeError) as exc:
            problems.append('matchPattern: {}'.format(exc))
    plugins = case.get('plugins', {})
    requires = plugins.get('requires', []) if isinstance(plugins, dict) \
        else None
    if not isinstance(requires, (str, list)):
        problems.append('plugins is not {"requires": NAME or [NAME...]}')
    scapy = case.get('scapy', [])
    for block in scapy if isinstance(scapy, list) else [scapy]:
        if not isinstance(block, dict) or \
                not {'iface', 'count', 'packet'} <= set(block):
            problems.append('scapy block {!r} lacks iface, count or '
                            'packet'.format(block))
    if 'timeout' in case and not isinstance(case['timeout'], (int, float)):
        problems.append('timeout is not a number')
    return problems


def strict_case_problems(case, relpath):
    """case_problems() plus the repository's own rules."""
    problems = case_problems(case)
    if not ID_RE.match(str(case.get('id', ''))):
        problems.append('id {!r} is not 4 lowercase hex digits'.format(
            case.get('id')))
    problems += ['no ' + f for f in STRICT_FIELDS if f not in case]
    parts = relpath.split(os.sep)
    if parts[:2] == ['filters', 'flower'] and \
            'flower' not in case.get('category', []):
        problems.append('category lacks "flower" (file is under '
                        'filters/flower/)')
    if case.get('scapy') and 'scapyPlugin' not in required_plugins(case):
        problems.append('has a scapy block but does not require scapyPlugin')
    return problems


def check_tree(root):
    """(cases checked, cases with problems, [problem lines]) for the
    corpus under `root`; an unreadable file counts as one bad case."""
    lines, count, bad, seen = [], 0, 0, {}
    for path in case_files([root]):
        rel = os.path.relpath(path, root)
        try:
            cases = load_file(path)
        except ValueError as exc:
            lines.append(str(exc))
            count, bad = count + 1, bad + 1
            continue
        for case in cases:
            count += 1
            problems = strict_case_problems(case, rel)
            cid = case.get('id')
            if cid in seen:
                problems.append('duplicate id (also in {})'.format(seen[cid]))
            elif isinstance(cid, str):
                seen[cid] = rel
            lines += ['{}: {}: {}'.format(rel, cid, p) for p in problems]
            bad += bool(problems)
    return count, bad, lines


def corpus_size(root):
    """(cases in category "flower", those of them with a scapy block)."""
    flower = packets = 0
    for path in case_files([root]):
        try:
            cases = load_file(path)
        except ValueError:
            continue
        for case in cases:
            if 'flower' in case.get('category', []):
                flower += 1
                packets += bool(case.get('scapy'))
    return flower, packets


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--min-flower', type=int, default=400, metavar='N')
    p.add_argument('--min-packets', type=int, default=100, metavar='N')
    p.add_argument('root', nargs='?', default=DEFAULT_DIR, metavar='DIR')
    a = p.parse_args(argv)
    count, bad, lines = check_tree(a.root)
    for line in lines:
        print(line)
    flower, packets = corpus_size(a.root)
    size_ok = flower >= a.min_flower and packets >= a.min_packets
    print('corpus size: {} flower cases (at least {}), {} with packets '
          '(at least {}): {}'.format(flower, a.min_flower, packets,
                                     a.min_packets,
                                     'ok' if size_ok else 'TOO SMALL'))
    passed, failed = count - bad + size_ok, bad + (not size_ok)
    print('{} passed, {} failed'.format(passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
