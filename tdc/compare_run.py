# SPDX-License-Identifier: GPL-2.0
"""compare_run.py - one kernel's run of `make compare`, read back for the
pages made from it (tdc/leniency.py, tdc/upstream_fixes.py).

make compare writes, per kernel, KERNEL.tap and, beside it, KERNEL.commit
(the commit measured, when the run started) and KERNEL.seconds
("KERNEL=SECONDS", when it ended).  Run holds one kernel's results and
says of a case id 'pass', 'fail', 'skip' or NOT_RUN; cell() and
passes() put a list of case ids' results into a table cell and a
headline.
"""

import collections
import datetime
import os
import re
import sys

from tdc import compare

COMPARE_OUT = os.path.join(compare.REPO, 'build', 'guest-out', 'compare')
NOT_RUN = 'not run'
KERNELS = ('ours', 'stock')
# a cell lists failures first
STATUS_ORDER = ('fail', 'skip', NOT_RUN, 'pass')


class Run(collections.namedtuple('Run',
                                 'results commit tap_path when seconds')):
    """One kernel's run: results {id: compare.Result}, the commit it
    measured (a str), its TAP's path, when the TAP was last written (a
    UTC datetime) and how long the run took (seconds, a float; None when
    not read)."""

    __slots__ = ()

    def status(self, cid):
        """'pass', 'fail', 'skip' or NOT_RUN."""
        result = self.results.get(cid)
        return result.status if result else NOT_RUN


def side_file(tap, suffix):
    """The file make compare writes beside a TAP: ours.tap -> ours.X."""
    return re.sub(r'\.(tap|out)$', '', tap) + suffix


def read_seconds(path):
    """The seconds of a .seconds file ("ours=1190")."""
    with open(path) as f:
        text = f.read().strip()
    try:
        return float(text.rpartition('=')[2])
    except ValueError:
        raise OSError('%s: not KERNEL=SECONDS: %r' % (path, text))


def load_run(tap_path, commit_path, seconds_path=None):
    """A Run, or raise OSError for a missing file."""
    seconds = read_seconds(seconds_path) if seconds_path else None
    results = compare.parse_tap(tap_path)
    with open(commit_path) as f:
        commit = f.read().strip()
    when = datetime.datetime.fromtimestamp(os.path.getmtime(tap_path),
                                           datetime.timezone.utc)
    return Run(results, commit, tap_path, when, seconds)


def by_status(run, cids):
    """{status: [case ids]} of `cids` on `run`, in the order of cids."""
    by = collections.defaultdict(list)
    for cid in cids:
        by[run.status(cid)].append(cid)
    return by


def cell(run, cids, empty=''):
    """The results of `cids` on `run`, in a table cell: "pass" or
    "pass ×3" when all agree, else each status with its cases, failures
    first; all but a pass in bold.  `empty` when there is no case."""
    if not cids:
        return empty
    by = by_status(run, cids)
    if len(by) == 1:
        (status, ids), = by.items()
        text = status if len(ids) == 1 else '%s ×%d' % (status, len(ids))
        return text if status == 'pass' else '**%s**' % text
    parts = []
    for status in sorted(by, key=STATUS_ORDER.index):
        label = status if status == 'pass' else '**%s**' % status
        parts.append('%s %s' % (label, ', '.join(by[status])))
    return '; '.join(parts)


def passes(by, total):
    """"passes X of N" and what the others did, for a headline."""
    text = 'passes %d of %d' % (len(by['pass']), total)
    rest = ['%s %s' % (status, ', '.join(by[status]))
            for status in ('fail', 'skip', NOT_RUN) if by[status]]
    return text + (' (%s)' % '; '.join(rest) if rest else '')


def short_date(when):
    return when.strftime('%Y-%m-%d %H:%M UTC')


def add_arguments(parser):
    """--ours, --stock (TAPs) and --ours-commit, --stock-commit."""
    for name in KERNELS:
        parser.add_argument('--' + name, metavar='TAP',
                            default=os.path.join(COMPARE_OUT, name + '.tap'),
                            help='%s\'s TAP (default: make compare\'s)' % name)
        parser.add_argument('--%s-commit' % name, metavar='FILE',
                            help='the commit %s\'s run measured (default: '
                            'the .commit file beside its TAP)' % name)


def load_runs(args, prog, seconds=False):
    """{kernel: Run} of add_arguments()'s arguments, with the run's
    seconds when asked (a run that has not ended has no .seconds file);
    raises OSError naming the kernel.  Warns (on stderr, as prog) of a
    TAP older than its .commit file: not that run's."""
    runs = {}
    for name in KERNELS:
        tap = getattr(args, name)
        commit = getattr(args, name + '_commit') or side_file(tap, '.commit')
        try:
            runs[name] = load_run(tap, commit, side_file(tap, '.seconds')
                                  if seconds else None)
        except OSError as e:
            raise OSError('%s: %s (has its make compare run ended?)'
                          % (name, e))
        if os.path.getmtime(tap) < os.path.getmtime(commit):
            print('%s: warning: %s is older than its .commit file: not that '
                  'run\'s' % (prog, tap), file=sys.stderr)
    return runs


def failure_rows(cids, ours, stock):
    """A section: why each of `cids` that did not pass did not, on each
    kernel ([] when all passed on both)."""
    out = []
    for cid in cids:
        for name, run in (('ours', ours), ('stock', stock)):
            status = run.status(cid)
            if status == 'pass':
                continue
            result = run.results.get(cid)
            why = result.why() if status == 'fail' else \
                (result.detail or [''])[0] if status == 'skip' \
                else 'not in `%s`' % compare.shown_path(run.tap_path)
            out.append('| %s | %s | %s | %s | %s |' % (
                cid, name, status,
                result.stage() if status == 'fail' else '', why))
    if not out:
        return []
    return (['## Cases that did not pass', '',
             '| case | kernel | result | stage | why |',
             '|---|---|---|---|---|'] + out + [''])
