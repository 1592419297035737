# SPDX-License-Identifier: GPL-2.0
"""corpus.py - find and load tdc case files, and what a runner must know
of a case.

tdc.py uses case_problems() on every case it is given (upstream's files
included): what keeps it from running the case.  tdc/tdc61.py asks
needs_offload_driver() which case files load the offload test driver.
The repository's own corpus is checked more strictly by lint/corpus.py
(python3 -m lint.corpus, the gate's corpus stage).
"""

import json
import os
import re

HERE = os.path.dirname(os.path.realpath(__file__))
DEFAULT_DIR = os.path.join(os.path.dirname(HERE), 'tc-tests')

STRICT_FIELDS = ('id', 'name', 'category', 'plugins', 'setup',
                 'cmdUnderTest', 'expExitCode', 'teardown')
# Every key a case may have (upstream's, plus our timeout and
# matchJSONExact, which upstream ignores); a key starting with "__" is a
# comment (upstream uses "__comment").  Anything else is a misspelling
# that would silently drop a check ("matchPatern").
KNOWN_FIELDS = frozenset(STRICT_FIELDS + (
    'verifyCmd', 'matchPattern', 'matchCount', 'matchJSON',
    'matchJSONExact', 'skip', 'dependsOn', 'scapy', 'timeout',
    'exitHiddenByPipe', 'seriesFamilies'))
# Ours, required of a case under filters/flower/: the families of
# kernel/series/families the case needs (sorted names), which say at
# which step of the series it runs (tdc/series_cases.py; its unit test
# checks that they are what the case's commands use).
FAMILIES_FIELD = 'seriesFamilies'


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


def is_int(value):
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
                    not all(is_int(code) for code in entry[1:]):
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
    if not is_int(case.get('expExitCode')):
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
    if 'matchCount' in case and not is_int(case['matchCount']):
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
    if 'matchJSONExact' in case and (case['matchJSONExact'] is not True or
                                     'matchJSON' not in case):
        problems.append('matchJSONExact is not true next to a matchJSON')
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
    if 'exitHiddenByPipe' in case and (
            not isinstance(case['exitHiddenByPipe'], str) or
            not case['exitHiddenByPipe'].strip()):
        problems.append('exitHiddenByPipe is not a reason (a non-empty '
                        'string)')
    families = case.get(FAMILIES_FIELD, [])
    if not isinstance(families, list) or \
            not all(isinstance(f, str) and f for f in families) or \
            families != sorted(set(families)):
        problems.append('{} is not a sorted list of family names'.format(
            FAMILIES_FIELD))
    return problems


def case_commands(case):
    """[(field, command)] of every command of a case."""
    found = []
    for field in ('dependsOn', 'cmdUnderTest', 'verifyCmd'):
        if isinstance(case.get(field), str):
            found.append((field, case[field]))
    for field in ('setup', 'teardown'):
        entries = case.get(field, [])
        for entry in entries if isinstance(entries, list) else []:
            command = entry[0] if isinstance(entry, list) and entry \
                else entry
            if isinstance(command, str):
                found.append((field, command))
    return found


# The offload test driver (offload/drv, offload/README.md).  A case that
# needs it loads it in its setup by this command, whose path is relative
# to the repository root, where ours runs: [OFFLOAD_LOAD, 0, 1], 1 being
# "File exists" (loaded already) and also what insmod says where the path
# is not there.  6.1's tdc.py and upstream's run every command from their
# own directory, so a run under them loads the driver first
# (tdc/tdc61.py does, from OFFLOAD_KO under the repository root), and the
# case's own insmod fails with 1 there; without the driver the case's
# `ip link add ... type fltest` fails its setup, and those runners skip it.
OFFLOAD_DRIVER = 'flower_offload_test'
OFFLOAD_KO = 'build/offload-drv/flower_offload_test.ko'
OFFLOAD_LOAD = 'insmod ' + OFFLOAD_KO


def needs_offload_driver(case):
    """Whether `case` loads the offload test driver in its setup."""
    return ('setup', OFFLOAD_LOAD) in case_commands(case)
