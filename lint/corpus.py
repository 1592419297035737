#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""corpus.py - the corpus checker: the repository's own tdc case files.

tdc/corpus.py finds and loads case files, and its case_problems() is what
tdc.py asks of every case it is given (upstream's files included).  This
checks the repository's own corpus more strictly (check_tree): ids are 4 lowercase hex digits and unique over the
whole tree, every case has the full upstream set of fields, and a case
under filters/flower/ is in category "flower".  It prints each problem and
a final line "N passed, N failed" (cases without / with problems, plus
one check of the corpus size: at least --min-flower cases in category
"flower", at least --min-packets of them with a scapy block).  Its
strict checks include upstream_problems(): every case must be one that
upstream's current tdc.py can run (one command per setup entry, no
command line that its nsPlugin would run only in part inside the case's
namespace, only upstream's variables, matchJSON on JSON output, no
dependsOn probe in a namespace case), except that a case may use $FLNL
when it says so (category "flowernl"); and sixone_problems(): every case
must be one that the tdc.py of linux-source-6.1 can run (matchPattern
and matchCount in every verify, checking what a matchJSON beside them
checks: lint/jsonpattern.py; no key 6.1 ignores that changes the outcome;
$DUMMY made by the case; what the setup makes in the namespace, which
6.1 shares between all cases of a run, removed first and in the
teardown; no insmod but the offload driver's OFFLOAD_LOAD, which a run
under 6.1's tdc.py does first).  And two checks against cases that a
flower that never matches, or a tc that failed, would pass:
positive_control_problems() (a case that sends frames expects some frame
counted) and hidden_exit_problems() (no $TC or $FLNL command piped into
another program, which hides its exit status, unless the case says why
in exitHiddenByPipe).

usage: python3 -m lint.corpus [--min-flower N] [--min-packets N] [DIR]
       (default: the repository's tc-tests/, 400 and 100)
"""

import argparse
import json
import os
import re
import shlex
import sys

from lint import jsonpattern
from tdc.corpus import (DEFAULT_DIR, FAMILIES_FIELD, OFFLOAD_LOAD,
                        STRICT_FIELDS, case_commands,
                        case_files, case_problems, is_int, load_file,
                        required_plugins)

ID_RE = re.compile(r'^[0-9a-f]{4}$')


# --- what upstream's tdc.py can run -----------------------------------------
# Upstream (Linux 6.6 on) runs every command as a shell command line, with
# "$IP netns exec $NS " put in front of it by nsPlugin, in an empty
# environment, with the variables of its tdc_config.py (NAMES; TESTID it
# sets for each case) substituted; it reads verifyCmd and, with
# matchPattern, matchCount of every case; a required plugin it cannot
# find stops the whole run.
UPSTREAM_NAMES = frozenset((
    'TC', 'IP', 'DEV0', 'DEV1', 'DEV2', 'DUMMY', 'ETH', 'BATCH_FILE',
    'BATCH_DIR', 'TIMEOUT', 'NS', 'EBPFDIR', 'TESTID'))
UPSTREAM_PLUGINS = frozenset((
    'nsPlugin', 'scapyPlugin', 'buildebpfPlugin', 'rootPlugin',
    'valgrindPlugin'))
# Ours: $FLNL, the raw netlink tool.  A case using it says so by its
# category; upstream runs it where its tdc_config_local.py defines FLNL in
# EXTRA_NAMES (tc-tests/README.md), and fails it elsewhere.  Not a
# dependsOn probe: see PROBE_IN_NAMESPACE.
FLNL_CATEGORY = 'flowernl'
# Upstream's tdc.py (run_one_test) runs dependsOn as an "execute" command,
# which nsPlugin runs with "ip netns exec $NS" in front, before nsPlugin
# has made the namespace: the probe fails, always, and the case is
# skipped.  Its skip path still calls the plugins' post_execute, so a
# case with a scapy block sends on $DEV0, which was never made: sendp()
# raises OSError (No such device) and the whole run ends there.
PROBE_IN_NAMESPACE = ("upstream runs dependsOn inside the case's namespace "
                      "before nsPlugin makes it: the probe always fails "
                      "there and the case is skipped (with a scapy block "
                      "its skip path sends on a missing $DEV0 and ends "
                      "the run)")
# What a pipeline may pass its output on to: programs that only filter
# text, which do the same outside the case's namespace, where upstream's
# nsPlugin leaves every part of a command line but the first.
TEXT_FILTERS = frozenset((
    'grep', 'egrep', 'fgrep', 'wc', 'sed', 'awk', 'head', 'tail', 'sort',
    'uniq', 'cut', 'tr'))
# First words `ip netns exec` cannot exec (shell syntax and builtins).
SHELL_WORDS = frozenset((
    '!', '{', '}', '(', ')', 'if', 'for', 'while', 'until', 'case', 'cd',
    'export', 'exit', 'set', 'unset', 'source', '.', 'eval', 'exec',
    'local', 'return', 'read', 'alias'))
VARIABLE_RE = re.compile(r'\$(?:([A-Za-z_]\w*)|\{([A-Za-z_]\w*)\})')
CONTROL_OPERATORS = ('&&', '||', ';;', '|&', ';', '|', '&', '\n')


def shell_split(command):
    """Split a shell command line at its control operators outside quotes
    -> ([(operator before the part, or '', part)...], whether it has a
    command substitution ($(...) or `...` outside single quotes), whether
    a quote is left open)."""
    parts, current, before = [], [], ''
    quote, substitution, i = None, False, 0
    while i < len(command):
        ch = command[i]
        if quote == "'":
            quote = None if ch == "'" else quote
        elif ch == '\\':
            current.append(command[i:i + 2])
            i += 2
            continue
        elif ch == '`' or command.startswith('$(', i):
            substitution = True
        elif quote == '"':
            quote = None if ch == '"' else quote
        elif ch in '\'"':
            quote = ch
        else:
            found = next((op for op in CONTROL_OPERATORS
                          if command.startswith(op, i)), None)
            if found == '&' and (command[i - 1:i] in ('<', '>') or
                                 command[i + 1:i + 2] == '>'):
                found = None                # 2>&1, &>: a redirection
            if found:
                parts.append((before, ''.join(current)))
                current, before = [], found
                i += len(found)
                continue
        current.append(ch)
        i += 1
    parts.append((before, ''.join(current)))
    return parts, substitution, quote is not None


def _first_word(text):
    try:
        words = shlex.split(text)
    except ValueError:
        words = text.split()
    return words[0] if words else ''


def prints_json(command):
    """Whether a verify command prints JSON: tc -j ..., $FLNL show|get,
    as the last command of a pipeline (`$FLNL show | grep -o ...` prints
    text)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    while '|' in words:
        words = words[words.index('|') + 1:]
    if words[:1] == ['$TC']:
        options = []
        for word in words[1:]:
            if not word.startswith('-'):
                break
            options.append(word.lstrip('-'))
        return any(o in ('j', 'json') for o in options)
    return words[:1] == ['$FLNL'] and words[1:2] in (['show'], ['get'])


# Upstream's variables that name no device inside the case's namespace
OUTSIDE_NAMES = {'DEV2': "upstream's nsPlugin leaves it outside the case's "
                         "namespace: use $DUMMY"}


def scalar_in_list(value, path):
    """The path of the first list in `value` (a matchJSON) with an item
    that is neither an object nor a list, or None."""
    if isinstance(value, list):
        for i, item in enumerate(value):
            if not isinstance(item, (dict, list)):
                return '{}[{}]'.format(path, i)
            found = scalar_in_list(item, '{}[{}]'.format(path, i))
            if found:
                return found
    elif isinstance(value, dict):
        for key, item in value.items():
            found = scalar_in_list(item, '{}.{}'.format(path, key))
            if found:
                return found
    return None


def upstream_problems(case):
    """Why upstream's tdc.py could not run `case` as ours does (see above
    UPSTREAM_NAMES); empty if it can."""
    problems, uses_flnl = [], False
    for field, command in case_commands(case):
        where = '{} {!r}: '.format(field, command)
        for match in VARIABLE_RE.finditer(command):
            name = match.group(1) or match.group(2)
            if name == 'FLNL':
                uses_flnl = True
            elif name not in UPSTREAM_NAMES:
                problems.append(where + '${} is not one of upstream '
                                'tdc\'s variables'.format(name))
            elif name in OUTSIDE_NAMES:
                problems.append(where + '${}: {}'.format(
                    name, OUTSIDE_NAMES[name]))
        parts, substitution, open_quote = shell_split(command)
        if open_quote:
            problems.append(where + 'a quote is not closed')
        if substitution:
            problems.append(where + 'upstream runs a $(...) or `...` '
                            'outside the namespace')
        for before, part in parts:
            word = _first_word(part)
            if before in ('|', '|&'):
                if word not in TEXT_FILTERS:
                    problems.append(where + 'upstream runs {!r} after a '
                                    'pipe outside the namespace'.format(
                                        part.strip()))
            elif before:
                problems.append(where + '{!r}: one command per entry; '
                                'upstream runs what follows outside the '
                                'namespace'.format(before))
            elif word in SHELL_WORDS or '=' in word:
                problems.append(where + '{!r} is not a program that ip '
                                'netns exec can run'.format(word))
        if ' '.join(command.split()) != command:
            problems.append(where + 'upstream joins the words with single '
                            'spaces')
    category = case.get('category', [])
    if 'dependsOn' in case and 'nsPlugin' in required_plugins(case):
        problems.append(PROBE_IN_NAMESPACE)
    if uses_flnl and FLNL_CATEGORY not in category:
        problems.append('uses $FLNL (ours) but is not in category '
                        '{!r}'.format(FLNL_CATEGORY))
    if not uses_flnl and FLNL_CATEGORY in category:
        problems.append('in category {!r} but does not use $FLNL'.format(
            FLNL_CATEGORY))
    if not case.get('verifyCmd'):
        problems.append('no verifyCmd (upstream reads it in every case)')
    if 'matchPattern' in case and 'matchCount' not in case:
        problems.append('matchPattern without matchCount (upstream reads '
                        'it)')
    if 'matchPattern' in case and 'matchJSON' not in case and \
            prints_json(case.get('verifyCmd', '')):
        problems.append('verifyCmd prints JSON: match it with matchJSON '
                        '(and the matchPattern that checks the same)')
    for name in required_plugins(case):
        if name not in UPSTREAM_PLUGINS:
            problems.append('plugin {} is not one of upstream\'s'.format(
                name))
    where = scalar_in_list(case.get('matchJSON'), '$')
    if where:
        problems.append('matchJSON {}: a plain value in a list (upstream\'s '
                        'find_in_json_other() tests `key in value` on it '
                        'and crashes; match the object that holds the '
                        'list instead)'.format(where))
    scapy = case.get('scapy', [])
    for block in scapy if isinstance(scapy, list) else [scapy]:
        if isinstance(block, dict) and not isinstance(block.get('count'),
                                                      int):
            problems.append('scapy count {!r} is not a number (upstream '
                            'counts with range())'.format(block.get('count')))
    return problems


# --- what the tdc.py of linux-source-6.1 can run ---------------------------
# 6.1's tdc.py (build/src/pristine/tools/testing/selftests/tc-testing)
# reads matchPattern and matchCount in every verify (a KeyError without
# them ends the run), knows no matchJSON, runs every command with its one
# TIMEOUT, ignores dependsOn, and its nsPlugin makes one namespace for
# the whole run, with $DEV0/$DEV1 (and -d's device) but no $DUMMY: what a
# case leaves there, the next case meets.  A setup command that fails
# there skips every case after it ("previous setup failed"); so does a
# teardown command that fails.
SIXONE_FIELDS = frozenset((
    'id', 'name', 'category', 'plugins', 'setup', 'cmdUnderTest',
    'expExitCode', 'verifyCmd', 'matchPattern', 'matchCount', 'teardown',
    'skip', 'scapy'))
# Keys ours knows and 6.1's does not, and why each does or does not
# change what the case checks there.
SIXONE_IGNORES = {
    'matchJSON': None,          # the matchPattern beside it checks the same
    'matchJSONExact': None,     # (jsonpattern.problems proves both)
    'timeout': None,            # how long a command may take, not what it
                                # must do: 6.1 gives every command its
                                # TIMEOUT (make tdc61 sets it to the largest)
    'dependsOn': "6.1's tdc.py ignores dependsOn and runs the case where "
                 "ours skips it",
    'exitHiddenByPipe': None,   # a declaration for the corpus checker
                                # (hidden_exit_problems), not a check
    'seriesFamilies': None,     # which series step runs the case, not
                                # what it checks
}
# What a cleanup command may exit with when there is nothing to clean:
# tc and ip say 1 for a device that is not there, 2 for an object that is
# not, tc actions 255.
CLEANUP_CODES = (0, 1, 2, 255)


def _made(command):
    """[(what, cleanup command, device it is on or None)] for the
    namespace objects one setup command makes: an ingress, clsact or root
    qdisc, a link (a veth makes its peer too), an address, an action."""
    words = command.split()
    if words[:4] == ['$TC', 'qdisc', 'add', 'dev'] and len(words) > 5:
        dev, rest = words[4], words[5:]
        kind = next((k for k in ('root', 'clsact', 'ingress') if k in rest),
                    None)
        if kind:
            return [('{} qdisc on {}'.format(kind, dev),
                     '$TC qdisc del dev {} {}'.format(dev, kind), dev)]
        return []
    if words[:3] == ['$IP', 'link', 'add'] and len(words) > 3:
        name = words[4] if words[3] == 'dev' and len(words) > 4 else words[3]
        made = [('link ' + name, '$IP link del ' + name, None)]
        if 'peer' in words:
            peer = words[words.index('peer') + 1:]
            peer = peer[1:] if peer[:1] == ['name'] else peer
            if peer:
                made.append(('link ' + peer[0], '$IP link del ' + name,
                             None))
        return made
    if words[:3] in (['$IP', 'addr', 'add'], ['$IP', 'address', 'add']) \
            and 'dev' in words[4:]:
        dev = words[words.index('dev', 4) + 1]
        return [('address {} on {}'.format(words[3], dev),
                 '$IP addr del {} dev {}'.format(words[3], dev), dev)]
    if words[:4] == ['$TC', 'actions', 'add', 'action'] and \
            'index' in words:
        index = words[words.index('index') + 1]
        return [('{} action {}'.format(words[4], index),
                 '$TC actions del action {} index {}'.format(words[4], index),
                 None)]
    return []


def cleanups(setup):
    """The cleanup commands of what `setup` makes in the namespace, in
    the order it makes them; an object on a link that the setup made
    itself goes with that link."""
    found, links = [], set()
    for entry in setup:
        command = entry[0] if isinstance(entry, list) and entry else entry
        if not isinstance(command, str):
            continue
        for what, cleanup, dev in _made(command):
            if what.startswith('link '):
                links.add(what[len('link '):])
            if dev in links or cleanup in found:
                continue
            found.append(cleanup)
    return found


def _is_cleanup(entry, command):
    return isinstance(entry, list) and entry[:1] == [command] and \
        set(CLEANUP_CODES) <= {int(c) for c in entry[1:] if is_int(c)}


def sixone_problems(case):
    """Why the tdc.py of linux-source-6.1 could not run `case` as ours
    does (empty if it can), beyond upstream_problems()."""
    problems = []
    for key in case:
        if key in SIXONE_FIELDS or key.startswith('__'):
            continue
        why = SIXONE_IGNORES.get(key, "6.1's tdc.py does not know it")
        if why:
            problems.append('key {!r}: {}'.format(key, why))
    if case.get('verifyCmd'):
        for field in ('matchPattern', 'matchCount'):
            if field not in case:
                problems.append("no {} (6.1's tdc.py reads it in every "
                                "verify: KeyError)".format(field))
    problems += jsonpattern.problems(case)
    for entry in case.get('setup', []) if isinstance(
            case.get('setup'), list) else []:
        command = entry[0] if isinstance(entry, list) and entry else entry
        if not isinstance(command, str) or command.split()[:1] != [
                'insmod']:
            continue
        if command != OFFLOAD_LOAD or not isinstance(entry, list) or \
                1 not in [int(c) for c in entry[1:] if is_int(c)]:
            problems.append('setup {!r}: a module is loaded only as {}: '
                            '6.1\'s tdc.py runs from its own directory, '
                            'where the path is not there (exit 1), after '
                            'tdc/tdc61.py loaded the driver'.format(
                                command, json.dumps([OFFLOAD_LOAD, 0, 1])))
    setup = case.get('setup', [])
    setup = setup if isinstance(setup, list) else []
    teardown = case.get('teardown', [])
    teardown = teardown if isinstance(teardown, list) else []
    commands = [c for _, c in case_commands(case)]
    if any('$DUMMY' in c or '${DUMMY}' in c for c in commands) and \
            '$IP link add $DUMMY type dummy' not in [
                e[0] if isinstance(e, list) and e else e for e in setup]:
        problems.append("uses $DUMMY, which 6.1's nsPlugin does not make: "
                        "the setup makes it ($IP link add $DUMMY type "
                        "dummy, after deleting it)")
    for cleanup in cleanups(setup):
        first = next((i for i, e in enumerate(setup)
                      if _is_cleanup(e, cleanup)), None)
        made = next(i for i, e in enumerate(setup)
                    if cleanup in cleanups(setup[:i + 1]))
        if first is None or first > made:
            problems.append('setup makes what {!r} removes without running '
                            'it first as {}: under 6.1\'s tdc.py the cases '
                            'share one namespace, and one cut short leaves '
                            'it there'.format(cleanup, json.dumps(
                                [cleanup] + list(CLEANUP_CODES))))
        if not any(_is_cleanup(e, cleanup) for e in teardown):
            problems.append('teardown does not remove what the setup made '
                            '({}): the next case under 6.1\'s tdc.py meets '
                            'it'.format(json.dumps([cleanup] +
                                                   list(CLEANUP_CODES))))
    return problems


# --- checks that fail on a flower that never matches ---------------------
# A packet case (one with a scapy block: corpus_size counts them so)
# proves something about classification only if some count it checks
# must be non-zero: a case whose every count is 0 passes on a flower that
# never matches, and on a run whose frames never arrived.  So each has a
# positive control, a frame that must be counted (by the filter under
# test, or by a filter or class the case sets up behind it).
SENT_RE = re.compile(r'Sent (\S+) bytes (\S+) pkt')
PACKETS_RE = re.compile(r'"packets":\s*(\d+)')


def _json_packet_counts(value):
    """The "packets" numbers in a matchJSON, wherever they are."""
    if isinstance(value, dict):
        found = []
        for key, inner in value.items():
            if key == 'packets' and is_int(inner):
                found.append(int(inner))
            else:
                found += _json_packet_counts(inner)
        return found
    if isinstance(value, list):
        return [n for inner in value for n in _json_packet_counts(inner)]
    return []


def packet_counts(case):
    """The packet counts a case's verify expects: from its matchJSON
    ("packets", anywhere), else from its matchPattern (tc -s's "Sent B
    bytes P pkt", or "packets":P), each an int, or None for a count the
    pattern leaves open ([0-9]+).  A pattern that must not match
    (matchCount 0) expects no count."""
    if 'matchJSON' in case:
        return _json_packet_counts(case['matchJSON'])
    pattern = case.get('matchPattern')
    if not isinstance(pattern, str) or not is_int(
            case.get('matchCount', 1)) or int(case.get('matchCount', 1)) < 1:
        return []
    texts = [m.group(2) for m in SENT_RE.finditer(pattern)] + \
        [m.group(1) for m in PACKETS_RE.finditer(pattern)]
    return [int(t) if t.isdigit() else None for t in texts]


def positive_control_problems(case):
    """Why a packet case could pass on a flower that never matches."""
    if not case.get('scapy'):
        return []
    counts = packet_counts(case)
    if not counts:
        return ['sends frames but its verify checks no packet count (a '
                'flower that never matches would pass it): check the '
                'counters of a frame that must be counted']
    if not any(n for n in counts if n is not None):
        return ['sends frames but every packet count its verify checks is '
                '0 (a flower that never matches passes it): add a positive '
                'control, a frame that must be counted by the filter under '
                'test or by one the case sets up behind it']
    return []


# A pipeline's exit status is its last command's: `$TC ... | wc -l`
# succeeds, and may print what the case wants, when tc failed.  The
# programs whose exit status is the kernel's verdict on a request:
KERNEL_TOOLS = frozenset(('$TC', '${TC}', '$FLNL', '${FLNL}'))
# A case may still pipe one where nothing but the request's success can
# give the output the case wants (ours' warnings: `$TC filter add ...
# 2>&1 | grep -cF 'Warning: ...'` exits 0 only if tc printed the warning,
# which it prints only for a request the kernel accepted), and says so in
# this field, with that reason: the only way to check a command's stderr
# is a pipe.
PIPE_OPT_OUT = 'exitHiddenByPipe'


def piped_kernel_tools(case):
    """[(field, command)] of the commands whose $TC (or $FLNL) feeds a
    pipe, so that its exit status is lost."""
    found = []
    for field, command in case_commands(case):
        parts = shell_split(command)[0]
        for (_before, part), (after, _next) in zip(parts, parts[1:]):
            if after in ('|', '|&') and _first_word(part) in KERNEL_TOOLS:
                found.append((field, command))
                break
    return found


def hidden_exit_problems(case):
    """A $TC or $FLNL command whose exit status a pipe hides, in a case
    that does not declare it (PIPE_OPT_OUT); a declaration with no such
    pipe."""
    piped = piped_kernel_tools(case)
    if piped and PIPE_OPT_OUT in case:
        return []
    if PIPE_OPT_OUT in case:
        return ['declares {} but pipes no $TC or $FLNL command'.format(
            PIPE_OPT_OUT)]
    return ['{} {!r}: a pipe hides the exit status of {} (the pipeline '
            'succeeds when it fails): run it without a pipe (tc -j and '
            'matchJSON, or a matchPattern with matchCount), or say why no '
            'failure can pass in "{}"'.format(
                field, command, _first_word(command), PIPE_OPT_OUT)
            for field, command in piped]


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
    if parts[:2] == ['filters', 'flower'] and FAMILIES_FIELD not in case:
        problems.append('no {} (file is under filters/flower/)'.format(
            FAMILIES_FIELD))
    if case.get('scapy') and 'scapyPlugin' not in required_plugins(case):
        problems.append('has a scapy block but does not require scapyPlugin')
    problems += positive_control_problems(case)
    problems += hidden_exit_problems(case)
    problems += ['upstream: ' + p for p in upstream_problems(case)]
    problems += ['6.1: ' + p for p in sixone_problems(case)]
    return problems


def what_it_tests(case):
    """The case without its id and name: two cases equal in this run the
    same commands and check the same result."""
    return json.dumps({k: v for k, v in case.items()
                       if k not in ('id', 'name')}, sort_keys=True)


def check_tree(root):
    """(cases checked, cases with problems, [problem lines]) for the
    corpus under `root`; an unreadable file counts as one bad case."""
    lines, count, bad, seen, tests = [], 0, 0, {}, {}
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
            twin = tests.setdefault(what_it_tests(case), cid)
            if twin != cid:
                problems.append('the same test as {} (only id and name '
                                'differ)'.format(twin))
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
