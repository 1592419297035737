#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""tdc.py - run tc test cases written in upstream tdc's JSON format.

Run it from the repository root as `python3 -m tdc.tdc ...` (the
harness is the package tdc/, next to plugins/); `tdc/tdc.py ...` from
anywhere does the same (it re-executes itself that way).

A case: id, name, category, plugins.requires, setup, cmdUnderTest,
expExitCode, verifyCmd, matchPattern + matchCount (default 1) and/or
matchJSON (+ matchJSONExact: true, ours: the parsed output must equal
matchJSON, where upstream only wants it contained; a case with both
must pass both), teardown, skip
("yes"), dependsOn (a probe command: the case skips unless it exits 0),
scapy (scapyPlugin), timeout (seconds, for each of its commands; ours).
setup/teardown entries are a command or [command, allowed exit
codes...].  Consecutive setup commands run in one shell, each checked
against its exit codes as if alone (an exec costs tenths of a second in
the emulated guest); a $FLNL command runs alone, in a fork of the
runner.  Commands are shell command lines in which $TC,
$IP, $DEV0, $DEV1, $DEV2, $DUMMY, $NS, $BATCH_FILE, $FLNL ... are
substituted (string.Template); they run with the directory that holds
the case file's tc-tests/ as working directory (upstream cases call
./tdc_batch.py from there).

Output on stdout is TAP, in case order also with -J: "ok N - ID NAME",
"not ok N - ID NAME" followed by "#" lines saying which stage failed,
the command, its exit code and output, "ok N - ID NAME # skip REASON";
then a last line "N passed, N failed, N skipped".  -o FILE writes the
results once more in --format tap (default) or xunit (JUnit XML, for CI).
A case that skips for a reason it does not declare (declared: "skip":
"yes", or its dependsOn probe failing), e.g. a plugin that does not
load, fails: a run that ran nothing must not look green.  So does a
verify command that exits non-zero (upstream ignores its exit code),
unless the case expects its cmdUnderTest to fail and matches the error
with matchPattern at least once (failing_verify_allowed).  --lenient
counts such skips as skips, as upstream does (--strict, the default, is
kept for the gate's command line).  Exit status 1 if a case failed, 4 if
no case was selected, else 0.

Options as upstream's tdc.py where upstream has them (-f -D -c -e -p -d
-l -s -i -v -J --format -o); ours: --plugin, --strict/--lenient, --shard, --tap,
--timeout.
"""

import os
import sys

if __name__ == '__main__' and not __package__:
    import as_module                # run as a file: again as the module
    as_module.reexec('tdc.tdc')

import argparse                                 # noqa: E402
import collections                              # noqa: E402
import concurrent.futures                       # noqa: E402
import importlib                                # noqa: E402
import json                                     # noqa: E402
import multiprocessing                          # noqa: E402
import re                                       # noqa: E402
import secrets                                  # noqa: E402
import string                                   # noqa: E402
import time                                     # noqa: E402
import zlib                                     # noqa: E402
from xml.etree import ElementTree               # noqa: E402

from plugins.TdcPlugin import SkipCase          # noqa: E402
from tdc import corpus                          # noqa: E402
from tdc.commands import FLNL, PYTHON, Outcome, run as run_command  # noqa: E402
# a case's failure, and the verify stage (its names are tdc.py's too)
from tdc.matching import (  # noqa: E402,F401
    CaseFailed, failing_verify_allowed, json_difference, json_mismatch,
    verify, verify_exit)

HERE = os.path.dirname(os.path.realpath(__file__))
REPO = os.path.dirname(HERE)


def first_existing(*paths):
    return next((p for p in paths if os.path.exists(p)), paths[0])


# Upstream tdc_config.py's names; nsPlugin replaces the device and
# namespace names with per-case ones.  Batch files go to /tmp: in the
# guest the repository (and the kernel tree) is read-only.
BASE_NAMES = {
    'TC': first_existing('/sbin/tc', '/usr/sbin/tc'),
    'IP': first_existing('/sbin/ip', '/usr/sbin/ip', '/bin/ip'),
    'DEV0': 'v0p0',
    'DEV1': 'v0p1',
    'DEV2': '',
    'DUMMY': 'dummy1',
    'ETH': 'eth0',
    'NS': 'tcut',
    'EBPFDIR': './',
    'PYTHON': PYTHON,
    'FLNL': FLNL,
}


def case_names(case, timeout):
    """The variables of one case."""
    tag = re.sub(r'[^0-9A-Za-z_-]', '_', case['id'])
    names = dict(BASE_NAMES, TESTID=case['id'], TIMEOUT=str(timeout))
    names['BATCH_FILE'] = '/tmp/tdc-{}-batch.txt'.format(tag)
    names['BATCH_DIR'] = '/tmp/tdc-{}-batchdir'.format(tag)
    return names


def substitute(command, names):
    return string.Template(command).safe_substitute(names)


def referenced_names(command):
    """The $NAME / ${NAME} variables a command refers to."""
    return {m.group(1) or m.group(2) for m in
            re.finditer(r'\$(?:(\w+)|\{(\w+)\})', command)}


def case_commands(case):
    commands = [case.get('dependsOn', ''), case['cmdUnderTest'],
                case.get('verifyCmd', '')]
    for entry in case.get('setup', []) + case.get('teardown', []):
        commands.append(entry[0] if isinstance(entry, list) else entry)
    return [c for c in commands if c]


def command_and_codes(entry):
    """A setup/teardown entry -> (command, allowed exit codes)."""
    if isinstance(entry, list):
        return entry[0], [int(code) for code in entry[1:]]
    return entry, [0]


# --- setup commands in one shell ---------------------------------------------
BATCH_MARK = '__tdc_setup_failed__'


def setup_groups(entries):
    """Setup entries -> [[(command, codes)...]]: runs of consecutive
    commands that share one shell; a $FLNL command is a group of its own
    (commands.run runs it in a fork of the runner)."""
    groups, run = [], []
    for entry in entries:
        command, codes = command_and_codes(entry)
        if command.lstrip().startswith('$FLNL'):
            groups += [run] if run else []
            groups.append([(command, codes)])
            run = []
        else:
            run.append((command, codes))
    return groups + ([run] if run else [])


def batch_script(entries):
    """One shell script running the (command, codes) in order, each in a
    subshell of its own (as if alone: an exit, a cd or a variable stays
    there); after the first whose exit code is not in its codes it writes
    "BATCH_MARK index code" on stderr and exits 1."""
    lines = []
    for index, (command, codes) in enumerate(entries):
        lines += ['(', command, ')',
                  'tdc_rc=$?; case $tdc_rc in {}) ;; *) echo "{} {} '
                  '$tdc_rc" >&2; exit 1 ;; esac'.format(
                      '|'.join(str(code) for code in codes), BATCH_MARK,
                      index)]
    return '\n'.join(lines) + '\n'


def batch_failure(err):
    """(index, exit code, stderr without the mark) of the command that
    stopped a batch_script(), or None if none did."""
    found = re.search(r'^{} (\d+) (\d+)\n?\Z'.format(BATCH_MARK), err,
                      re.MULTILINE)
    if not found:
        return None
    return int(found.group(1)), int(found.group(2)), err[:found.start()]


def tc_root(path):
    """The directory holding the tc-tests/ that `path` is in (upstream runs
    from there), else the current directory."""
    parts = os.path.abspath(path).split(os.sep)
    if 'tc-tests' in parts:
        index = len(parts) - 1 - parts[::-1].index('tc-tests')
        return os.sep.join(parts[:index]) or os.sep
    return os.getcwd()


# --- failures (CaseFailed: tdc/matching.py) ----------------------------------
class DeclaredSkip(SkipCase):
    """The case's own dependsOn probe failed: a skip the case declares."""


def _exit_text(code):
    return 'timed out' if code is None else 'exit code {}'.format(code)


# --- plugins ----------------------------------------------------------------
class Plugins:
    """The loaded plugins, and why the unavailable ones are not."""

    def __init__(self, runner):
        self.runner = runner
        self.loaded = {}         # name -> instance, in load order
        self.unavailable = {}    # name -> reason

    def load(self, name):
        if name in self.loaded or name in self.unavailable:
            return
        if not re.match(r'^\w+$', name) or not os.path.exists(
                os.path.join(REPO, 'plugins', name + '.py')):
            self.unavailable[name] = 'no plugin plugins/{}.py'.format(name)
            return
        try:
            module = importlib.import_module('plugins.' + name)
            self.loaded[name] = module.SubPlugin(self.runner)
        except Exception as exc:
            self.unavailable[name] = 'plugin {} does not load: {}: {}'.format(
                name, type(exc).__name__, exc)

    def call(self, hook, *args, reverse=False):
        items = list(self.loaded.values())
        for plugin in reversed(items) if reverse else items:
            getattr(plugin, hook)(*args)

    def adjust(self, stage, command):
        for plugin in self.loaded.values():
            command = plugin.adjust_command(stage, command)
        return command

    def preexec(self, stage):
        """One function running every plugin's preexec(stage), or None."""
        steps = [f for f in (p.preexec(stage) for p in self.loaded.values())
                 if f]
        if not steps:
            return None
        return lambda: [step() for step in steps]


def needed_plugins(case):
    """A scapy block needs scapyPlugin even if the case forgot to say so."""
    names = corpus.required_plugins(case)
    if case.get('scapy') and 'scapyPlugin' not in names:
        names.append('scapyPlugin')
    return names


# --- the runner -------------------------------------------------------------
_POOL_RUNNER = None             # with -J, the Runner the workers use


def _pool_run_one(number, entry):
    return _POOL_RUNNER.run_one(number, entry)


Result = collections.namedtuple('Result', 'number case path status lines '
                                'log seconds')


class Runner:
    def __init__(self, args):
        self.verbose = args.verbose
        self.timeout = args.timeout
        self.strict = getattr(args, 'strict', False)
        self.jobs = max(1, getattr(args, 'jobs', 1) or 1)
        self.device = getattr(args, 'device', None)
        self.plugins = Plugins(self)
        self.tap_file = open(args.tap, 'w') if args.tap else None
        self.case_log = None      # a case's log lines, while it runs

    def emit(self, line):
        print(line, flush=True)
        if self.tap_file:
            self.tap_file.write(line + '\n')

    def log(self, text):
        if self.verbose:
            for line in str(text).rstrip('\n').split('\n'):
                if self.case_log is None:
                    self.emit('# ' + line)
                else:
                    self.case_log.append('# ' + line)

    def run(self, entries):
        """Run entries [(case, file, problems)], printing TAP; return
        {'pass': N, 'fail': N, 'skip': N}.  With jobs > 1 the cases that
        run in a namespace of their own (nsPlugin) run in that many
        forked workers; any other case runs alone, in this process, after
        the cases before it are done.  The report is in case order."""
        for name in sorted({n for case, _, problems in entries
                            if not problems for n in needed_plugins(case)}):
            self.plugins.load(name)
        for name, reason in sorted(self.plugins.unavailable.items()):
            self.log(reason)
        counts = {'pass': 0, 'fail': 0, 'skip': 0}
        self.results = []
        self.emit('TAP version 13')
        self.emit('1..{}'.format(len(entries)))
        self.plugins.call('pre_suite', [case for case, _, _ in entries])
        try:
            for result in self.results_in_order(entries):
                counts[result.status] += 1
                self.results.append(result)
                self.report(result)
        finally:
            self.plugins.call('post_suite', reverse=True)
        self.emit('{pass} passed, {fail} failed, {skip} skipped'.format(
            **counts))
        if self.tap_file:
            self.tap_file.close()
        return counts

    def report(self, result):
        for line in result.log + tap_lines(result):
            self.emit(line)

    def run_one(self, number, entry):
        """Run one case -> Result."""
        start = time.monotonic()
        self.case_log = []
        try:
            status, lines = self.run_case(*entry)
        finally:
            log, self.case_log = self.case_log, None
        return Result(number, entry[0], entry[1], status, lines, log,
                      time.monotonic() - start)

    def results_in_order(self, entries):
        numbered = list(enumerate(entries, 1))
        # concurrent cases need namespaces of their own: nsPlugin, which
        # once loaded gives one to every case
        if self.jobs == 1 or 'nsPlugin' not in self.plugins.loaded:
            for number, entry in numbered:
                yield self.run_one(number, entry)
            return
        global _POOL_RUNNER
        _POOL_RUNNER = self          # the forked workers' copy runs cases
        sys.stdout.flush()
        pool = concurrent.futures.ProcessPoolExecutor(
            self.jobs, mp_context=multiprocessing.get_context('fork'))
        with pool:
            pending = [(number, entry, pool.submit(_pool_run_one, number,
                                                   entry))
                       for number, entry in numbered]
            yield from self.collect(pending)

    @staticmethod
    def collect(pending):
        for number, entry, future in pending:
            try:
                yield future.result()
            except Exception as exc:        # the worker died
                yield Result(number, entry[0], entry[1], 'fail', [
                    'stage: runner', 'worker process failed: {}: {}'.format(
                        type(exc).__name__, exc)], [], 0.0)

    def run_case(self, case, path, problems):
        """-> ('pass', []), ('skip', [reason]) or ('fail', [lines])."""
        if problems:
            return 'fail', ['stage: format'] + problems
        if case.get('skip') == 'yes':
            return 'skip', ['case marked "skip": "yes"']
        status, lines = self.run_case_in_plugins(case, path)
        if status == 'declared-skip':           # by its dependsOn probe
            return 'skip', lines
        if status == 'skip' and self.strict:
            return 'fail', ['stage: skip', 'skipped for a reason the case '
                            'does not declare (--strict): ' + lines[0]]
        return status, lines

    def run_case_in_plugins(self, case, path):
        for name in needed_plugins(case):
            if name in self.plugins.unavailable:
                return 'skip', [self.plugins.unavailable[name]]
        timeout = case.get('timeout', self.timeout)
        names = case_names(case, timeout)
        started = []
        status, lines = self.start_and_run(case, path, names, timeout,
                                           started)
        # post_case of every plugin whose pre_case ran, also after a
        # failure: the next case must find a clean environment
        for plugin in reversed(started):
            try:
                plugin.post_case(case, names)
            except Exception as exc:
                line = 'post_case of {}: {}: {}'.format(
                    type(plugin).__module__, type(exc).__name__, exc)
                if status != 'fail':
                    status, lines = 'fail', ['stage: post_case']
                lines.append(line)
        return status, lines

    def start_and_run(self, case, path, names, timeout, started):
        try:
            for plugin in self.plugins.loaded.values():
                started.append(plugin)
                plugin.pre_case(case, names)
        except SkipCase as why:
            return 'skip', [str(why)]
        except Exception as exc:
            return 'fail', ['stage: pre_case', 'pre_case of {}: {}: {}'.format(
                type(started[-1]).__module__, type(exc).__name__, exc)]
        skip = self.missing_requirement(case, names)
        if skip:
            return 'skip', [skip]
        try:
            return self.run_stages(case, names, tc_root(path), timeout)
        except DeclaredSkip as why:
            return 'declared-skip', [str(why)]
        except SkipCase as why:
            return 'skip', [str(why)]
        except CaseFailed as failed:
            return 'fail', ['stage: ' + failed.stage] + failed.lines

    def missing_requirement(self, case, names):
        """Why the case cannot run here (a tool or device it names is not
        there), or None."""
        for command in case_commands(case):
            for var in sorted(referenced_names(command)):
                if var in ('TC', 'IP') and not os.path.exists(names[var]):
                    return '${} {} not found'.format(var, names[var])
                if names.get(var) == '':
                    return '${} is empty (nsPlugin provides it)'.format(var)
        return None

    def run_setup_batch(self, group, names, cwd, timeout):
        """Setup commands [(command, codes)] in one shell; CaseFailed for
        the first one whose exit code is not allowed, as if it had run
        alone (its output comes with that of the commands before it)."""
        entries = [(self.plugins.adjust('setup', substitute(command, names)),
                    codes) for command, codes in group]
        for command, _ in entries:
            self.log('setup: ' + command)
        outcome = run_command(batch_script(entries), cwd,
                              timeout * len(entries),
                              self.plugins.preexec('setup'))
        if self.verbose > 1:
            self.log(outcome.out + outcome.err)
        failed = batch_failure(outcome.err)
        if failed:
            index, code, err = failed
            command, codes = entries[index]
            raise CaseFailed('setup', 'exit code {}, allowed {}{}'.format(
                code, codes, ' (after {} setup command(s) in the same '
                'shell)'.format(index) if index else ''),
                outcome=Outcome(command, code, outcome.out, err))
        if outcome.code != 0:
            raise CaseFailed('setup', '{} setup commands in one shell: {}'
                             .format(len(entries), _exit_text(outcome.code)),
                             outcome=Outcome(' ; '.join(
                                 c for c, _ in entries), outcome.code,
                                 outcome.out, outcome.err))

    def run_stages(self, case, names, cwd, timeout):
        def run(stage, command):
            command = self.plugins.adjust(stage, substitute(command, names))
            self.log('{}: {}'.format(stage, command))
            outcome = run_command(command, cwd, timeout,
                                  self.plugins.preexec(stage))
            if self.verbose > 1:
                self.log(outcome.out + outcome.err)
            return outcome

        if case.get('dependsOn'):
            probe = run('depends', case['dependsOn'])
            if probe.code != 0:
                raise DeclaredSkip('dependsOn {!r}: {}'.format(
                    case['dependsOn'], _exit_text(probe.code)))
        failure = None
        try:
            for group in setup_groups(case.get('setup', [])):
                if len(group) > 1:
                    self.run_setup_batch(group, names, cwd, timeout)
                    continue
                command, codes = group[0]
                outcome = run('setup', command)
                if outcome.code not in codes:
                    raise CaseFailed('setup', '{}, allowed {}'.format(
                        _exit_text(outcome.code), codes), outcome=outcome)
            outcome = run('execute', case['cmdUnderTest'])
            want = int(case['expExitCode'])
            if outcome.code != want:
                raise CaseFailed('execute', '{}, expected {}'.format(
                    _exit_text(outcome.code), want), outcome=outcome)
            try:
                self.plugins.call('post_execute', case, names)
            except SkipCase:
                raise
            except Exception as exc:
                raise CaseFailed('post_execute', '{}: {}'.format(
                    type(exc).__name__, exc))
            if case.get('verifyCmd') and ('matchJSON' in case or
                                          'matchPattern' in case):
                outcome = run('verify', case['verifyCmd'])
                if outcome.code is None:     # partial output proves nothing
                    raise CaseFailed('verify', 'timed out', outcome=outcome)
                verify_exit(case, outcome)
                verify(case, outcome)
        except (CaseFailed, SkipCase) as exc:
            failure = exc
        # teardown runs whatever happened; a failing teardown command fails
        # the case (if nothing failed before) but the others still run
        for entry in case.get('teardown', []):
            command, codes = command_and_codes(entry)
            outcome = run('teardown', command)
            if outcome.code not in codes and failure is None:
                failure = CaseFailed('teardown', '{}, allowed {}'.format(
                    _exit_text(outcome.code), codes), outcome=outcome)
        if failure is not None:
            raise failure
        return 'pass', []


# --- selecting cases ----------------------------------------------------------
def select_cases(args):
    """[(case, file, problems)] in file order, as -f/-D/-c/-e select them
    (upstream: -e and -c together select the union) less --exclude's."""
    paths = list(args.file or [])
    if args.directory or not paths:
        paths += args.directory or [os.path.join(REPO, 'tc-tests')]
    entries, seen = [], {}
    for path in corpus.case_files(paths):
        try:
            cases = corpus.load_file(path)
        except ValueError as exc:
            entries.append(({'id': os.path.basename(path), 'name': '(file)'},
                            path, [str(exc)]))
            continue
        for case in cases:
            problems = corpus.case_problems(case)
            cid = case.get('id')
            if cid in seen:
                problems.append('duplicate id (also in {})'.format(seen[cid]))
            else:
                seen[cid] = path
            entries.append((case, path, problems))
    if args.category or args.execute:
        entries = [e for e in entries
                   if set(args.category or []) & set(e[0].get('category', []))
                   or e[0].get('id') in (args.execute or [])]
    if args.exclude:
        entries = [e for e in entries if e[0].get('id') not in args.exclude]
    if args.shard:
        index, count = args.shard
        entries = [e for e in entries if shard_of(e[0], count) == index]
    return entries


def shard_of(case, count):
    """The shard (1..count) of a case: by a hash of its id, so that the
    same case lands in the same shard on every machine."""
    return zlib.crc32(str(case.get('id')).encode()) % count + 1


def parse_shard(text):
    """'K/N' -> (K, N), 1 <= K <= N."""
    try:
        index, count = (int(part) for part in text.split('/'))
    except ValueError:
        raise argparse.ArgumentTypeError('expected K/N, got %r' % text)
    if not 1 <= index <= count:
        raise argparse.ArgumentTypeError('K/N needs 1 <= K <= N')
    return index, count


# --- -i: ids for new cases -------------------------------------------------
def fill_in_ids(paths, taken):
    """Give every case without an id in the files `paths` a new random
    4-hex-digit one, unique over `taken` (ids in use), and rewrite those
    files (indent 4, as upstream's -i).  Returns {file: ids given}."""
    given = {}
    for path in paths:
        cases = corpus.load_file(path)
        new = []
        for case in cases:
            if case.get('id'):
                continue
            cid = secrets.token_hex(2)
            while cid in taken:
                cid = secrets.token_hex(2)
            taken.add(cid)
            # the id first, as in every case file
            items = [(k, v) for k, v in case.items() if k != 'id']
            case.clear()
            case.update([('id', cid)] + items)
            new.append(cid)
        if new:
            with open(path, 'w') as f:
                f.write(json.dumps(cases, indent=4) + '\n')
            given[path] = new
    return given


def ids_in_use(paths):
    ids = set()
    for path in corpus.case_files(paths):
        try:
            ids |= {c.get('id') for c in corpus.load_file(path)}
        except ValueError:
            pass
    return ids


# --- results as a file -------------------------------------------------------
def xunit(results, seconds):
    """JUnit XML (the xunit that CI systems read) for a list of Result."""
    counts = collections.Counter(r.status for r in results)
    suites = ElementTree.Element('testsuites')
    suite = ElementTree.SubElement(suites, 'testsuite', {
        'name': 'tdc', 'tests': str(len(results)),
        'failures': str(counts['fail']), 'errors': '0',
        'skipped': str(counts['skip']), 'time': '%.3f' % seconds})
    for r in results:
        case = ElementTree.SubElement(suite, 'testcase', {
            'classname': 'tdc.' + os.path.splitext(
                os.path.basename(r.path))[0],
            'name': '{}: {}'.format(r.case.get('id'), r.case.get('name', '')),
            'time': '%.3f' % r.seconds})
        if r.status == 'fail':
            failure = ElementTree.SubElement(case, 'failure',
                                             {'message': r.lines[0]})
            failure.text = '\n'.join(r.lines)
        elif r.status == 'skip':
            ElementTree.SubElement(case, 'skipped', {'message': r.lines[0]})
    ElementTree.indent(suites)
    return ElementTree.tostring(suites, encoding='unicode') + '\n'


def tap_lines(r):
    """The TAP lines of one Result."""
    title = '{} - {} {}'.format(r.number, r.case.get('id'),
                                r.case.get('name', ''))
    if r.status == 'skip':
        return ['ok {} # skip {}'.format(title, r.lines[0])]
    if r.status == 'pass':
        return ['ok ' + title]
    return ['not ok ' + title] + ['# ' + line for line in r.lines]


def tap(results):
    """The results as TAP, as stdout shows them (without -v comments)."""
    lines = ['TAP version 13', '1..{}'.format(len(results))]
    for r in results:
        lines += tap_lines(r)
    counts = collections.Counter(r.status for r in results)
    lines.append('{} passed, {} failed, {} skipped'.format(
        counts['pass'], counts['fail'], counts['skip']))
    return '\n'.join(lines) + '\n'


def parse_args(argv):
    p = argparse.ArgumentParser(
        description='run tc test cases (upstream tdc JSON format), '
                    'report TAP')
    p.add_argument('-f', '--file', action='extend', nargs='+', metavar='FILE',
                   help='case file(s) to run (repeatable)')
    p.add_argument('-D', '--directory', action='extend', nargs='+',
                   metavar='DIR', help='directory of case files (default '
                   'tc-tests/, unless -f is given)')
    p.add_argument('-c', '--category', action='extend', nargs='+',
                   metavar='CATEGORY', help='only cases in CATEGORY')
    p.add_argument('-e', '--execute', action='extend', nargs='+',
                   metavar='ID', help='only the case(s) with ID')
    p.add_argument('--exclude', action='extend', nargs='+',
                   metavar='ID', help='leave out the case(s) with ID (after '
                   '-c and -e; the mutation campaign leaves out the cases '
                   'that fail on the unmutated source)')
    p.add_argument('-p', '--path', metavar='TC',
                   help='the tc binary ($TC; default {})'.format(
                       BASE_NAMES['TC']))
    p.add_argument('-d', '--device', metavar='DEV',
                   help='$DEV2, the "physical" device (nsPlugin moves it '
                   'into each case\'s namespace; default: a dummy there)')
    p.add_argument('--plugin', action='extend', nargs='+', default=[],
                   metavar='PLUGIN', help='load plugins/PLUGIN.py for all '
                   'cases, required or not')
    p.add_argument('-l', '--list', action='store_true',
                   help='list the selected cases, run nothing')
    p.add_argument('-s', '--show', action='store_true',
                   help='print the selected cases (JSON), run nothing')
    p.add_argument('-i', '--id', action='store_true',
                   help='give the cases without an id in the selected '
                   'files a new unique one (rewrites those files), run '
                   'nothing')
    p.add_argument('-v', '--verbose', action='count', default=0,
                   help='show commands as TAP comments (-vv: and output)')
    p.add_argument('-J', '--multiprocess', '--jobs', dest='jobs', type=int,
                   default=1, metavar='N', help='run N cases at a time (each '
                   'in its own namespace: needs nsPlugin); the report stays '
                   'in case order')
    p.add_argument('--shard', type=parse_shard, metavar='K/N',
                   help='run only shard K of N (1 <= K <= N), split by '
                   'a hash of the case id: N runners with K = 1..N run '
                   'each case exactly once')
    p.add_argument('--strict', action='store_true', default=True,
                   help='a case that skips for a reason it does not '
                   'declare ("skip": "yes" or its dependsOn) fails '
                   '(the default)')
    p.add_argument('--lenient', dest='strict', action='store_false',
                   help='count undeclared skips as skips, as upstream')
    p.add_argument('--format', choices=('tap', 'xunit', 'none'),
                   default='tap', help='format of -o FILE (default tap)')
    p.add_argument('-o', '--outfile', metavar='FILE',
                   help='write the results to FILE in --format')
    p.add_argument('--tap', metavar='FILE', help='write the TAP as it '
                   'comes (with -v comments) to FILE too')
    p.add_argument('--timeout', type=float, default=60,
                   help='seconds for each command (default 60; a case '
                   'may set its own "timeout")')
    args = p.parse_args(argv)
    if args.jobs < 1:
        p.error('-J needs N >= 1')
    if args.device and args.jobs > 1:
        p.error('-d with -J: one device cannot be in two cases\' '
                'namespaces at once')
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.path:
        BASE_NAMES['TC'] = args.path
    if args.device:
        BASE_NAMES['DEV2'] = args.device
    if args.id:
        paths = corpus.case_files(list(args.file or []) + list(
            args.directory or ([] if args.file else
                               [os.path.join(REPO, 'tc-tests')])))
        given = fill_in_ids(paths, ids_in_use(paths + [
            os.path.join(REPO, 'tc-tests')]))
        for path, ids in sorted(given.items()):
            print('{}: new ids {}'.format(path, ' '.join(ids)))
        if not given:
            print('tdc.py: no case without an id')
        return 0
    entries = select_cases(args)
    if args.show:
        print(json.dumps([case for case, _, _ in entries], indent=4))
        return 0
    if args.list:
        for case, path, problems in entries:
            print('{}  {:<40} {} [{}]{}'.format(
                case.get('id'), os.path.relpath(path), case.get('name'),
                ','.join(case.get('category', [])),
                '  (PROBLEM: {})'.format('; '.join(problems))
                if problems else ''))
        return 0
    runner = Runner(args)
    for name in args.plugin:
        runner.plugins.load(name)
        if name in runner.plugins.unavailable:
            print('tdc.py: ' + runner.plugins.unavailable[name],
                  file=sys.stderr)
            return 2
    start = time.monotonic()
    counts = runner.run(entries)
    if args.outfile and args.format != 'none':
        text = (xunit(runner.results, time.monotonic() - start)
                if args.format == 'xunit' else tap(runner.results))
        with open(args.outfile, 'w') as f:
            f.write(text)
    if not entries:
        print('tdc.py: no test cases selected', file=sys.stderr)
        return 4
    return 1 if counts['fail'] else 0


if __name__ == '__main__':
    sys.exit(main())
