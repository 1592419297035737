#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""compare.py - our flower against the tree's stock flower, case by case.

usage: compare.py --ours FILE --stock FILE [--out FILE] [--corpus DIR]
                  [--seconds KERNEL=S]...

FILE is what tdc.py printed (its stdout or its --tap file) for the same
cases run on each kernel: guest/run -- ... and guest/run --variant stock
-- ...  The report (Markdown, default docs/stock-comparison.md) gives the
counts on each side and a table of every case whose result differs, with
the stage that failed and an excerpt of why, grouped by the likely cause.
The cause is guessed from the case (read from the corpus, default
tc-tests/) and from the failure text: see CAUSES.  A cause claims only
the failures it names ("classification" a packet counter that differs,
"dump" a filter dump that does not match); a difference none claims is
listed under "other", unexplained.
"""

import argparse
import collections
import json
import os
import re
import sys

from flower import needs
from flower.results import parse_tap as read_tap

HERE = os.path.dirname(os.path.realpath(__file__))
REPO = os.path.dirname(HERE)


class Result:
    def __init__(self, status, name, detail=None):
        self.status = status        # 'pass', 'fail' or 'skip'
        self.name = name
        self.detail = detail or []  # the "# ..." lines after a failure

    def stage(self):
        for line in self.detail:
            if line.startswith('stage: '):
                return line[len('stage: '):]
        return ''

    def why(self, width=160):
        """What went wrong, in a line: the mismatch or exit code, and the
        first line the command printed."""
        lines = [l.strip() for l in self.detail]
        what = next((l for l in lines if l.startswith(
            ('matchJSON', 'exit code', 'timed out', 'output is not JSON'))),
            '')
        if not what and any(l.startswith('matchPattern') for l in lines):
            what = 'pattern not found'
        printed = self.printed()
        text = '; '.join(x for x in (what, 'printed: ' + printed
                                      if printed else '') if x)
        return shorten(text, width)

    def printed(self):
        """The first line of the failing command's output (stdout, else
        stderr): Error: lines first."""
        out, section = [], None
        for line in self.detail:
            if line.strip() in ('stdout:', 'stderr:'):
                section = line.strip()
            elif section and line.strip():
                out.append(line.strip())
        errors = [l for l in out if l.startswith('Error:')]
        first = (errors or out or [''])[0]
        keys = re.findall(r'"keys":\{[^}]*\}', first)
        return ' '.join(sorted(set(keys))) if keys else first

    def mismatch(self):
        """The verify's mismatch line (matchJSON..., matchPattern...), or
        '' (another failure: the verify command failed, no JSON...)."""
        return next((line for line in self.detail
                     if line.startswith(('matchJSON', 'matchPattern'))), '')

    def command(self):
        """The command of the stage that failed, as it ran."""
        return next((line[len('command: '):] for line in self.detail
                     if line.startswith('command: ')), '')

    def errors(self):
        """The kernel's "Error: ..." lines in the failure output."""
        return [l.strip() for l in self.detail
                if l.strip().startswith('Error:')]


def shorten(text, width):
    text = text.replace('|', '\\|')
    return text if len(text) <= width else text[:width - 3] + '...'


def parse_tap(path):
    """{case id: Result} from tdc.py output (plain TAP lines, '# ' detail
    lines after a 'not ok').  A skip directive makes a skip, also on a
    'not ok' line."""
    results = collections.OrderedDict()
    with open(path, errors='replace') as f:
        for r in read_tap(f).results:
            if r.skip is not None:
                results[r.id] = Result('skip', r.name, [r.skip])
            elif r.ok:
                results[r.id] = Result('pass', r.name)
            else:
                results[r.id] = Result('fail', r.name, r.diagnostics)
    return results


def load_corpus(root):
    """{case id: case} for every case under root."""
    cases = {}
    for dirpath, dirs, names in os.walk(root):
        for name in names:
            if not name.endswith('.json'):
                continue
            try:
                with open(os.path.join(dirpath, name)) as f:
                    for case in json.load(f):
                        if isinstance(case, dict) and 'id' in case:
                            cases[case['id']] = case
            except (OSError, ValueError):
                pass
    return cases


def case_text(case):
    """Everything a case says, as one string, for the cause rules."""
    return json.dumps(case or {})


# (key, title, test(case, ours, stock)): the first that holds is the cause
def _stock_failed_at(stock, stage):
    return stock.status == 'fail' and stock.stage() == stage


def _duplicate_key(case, ours, stock):
    return 'A filter with the same key exists' in case_text(case)


def _zero_mask_address(case, ours, stock):
    return _classification(case, ours, stock) and \
        re.search(r'_ip [0-9a-f.:]+/0\b', case_text(case)) is not None


# A packet counter in a mismatch line: a matchJSON path under "stats"
# (tc -s -j), or a matchPattern on tc -s's "Sent N bytes N pkt"
COUNTER_JSON = re.compile(r'^matchJSON[^:]*: \S*\.stats\b')
COUNTER_TEXT = re.compile(r'Sent \S+ bytes \S+ pkt')


def _counter_mismatch(case, stock):
    """stock's verify compared a packet counter and it differed.  A
    matchPattern that failed after matchJSON matched checks no counter:
    the cases carry it for 6.1's tdc.py, which knows no matchJSON."""
    line = stock.mismatch()
    if COUNTER_JSON.match(line):
        return True
    return line.startswith('matchPattern') and \
        '(matchJSON matched)' not in line and \
        COUNTER_TEXT.search(case.get('matchPattern', '') + line) is not None


def _classification(case, ours, stock):
    # the frames were sent and counted otherwise: not any stock failure
    # of a packet case (a failing command, a key dumped otherwise)
    return bool(case.get('scapy')) and \
        _stock_failed_at(stock, 'verify') and _counter_mismatch(case, stock)


def _stock_failed_on(case, stock, messages):
    """stock failed a case that names one of ours' extack `messages`."""
    text = case_text(case)
    return stock.status == 'fail' and any(m in text for m in messages)


# The category of the cases that check ours' warnings (tcgen.lenient):
# a request the stock flower accepts in silence, ours the same way but
# with a word on what it did (docs/leniency.md)
WARNINGS_CATEGORY = 'warnings'


def _warning(case, ours, stock):
    """stock failed a case that checks a warning of ours: one of category
    WARNINGS_CATEGORY, or one that names a warning (flower.needs)"""
    return stock.status == 'fail' and (
        WARNINGS_CATEGORY in case.get('category', ()) or
        any(m in case_text(case) for m in needs.WARNING_MSGS))


def _refusal_wording(case, ours, stock):
    # both refuse these: flower.needs' class
    return _stock_failed_on(case, stock, needs.REFUSED_INPUT_MSGS)


def _in_category(name):
    """stock failed a case of category `name` (a declared difference)"""
    return lambda case, ours, stock: stock.status == 'fail' and \
        name in case.get('category', ())


def _version(case, ours, stock):
    # the cases that look for fl_hashfn, a function only ours has, in
    # /proc/kallsyms (tcgen/add.py: 0b3e, b2af)
    return 'fl_hashfn' in case_text(case)


# A verify command that dumps filters: tc filter show/get, $FLNL show
# (tdc.flowernl once substituted, as the TAP's "command:" line has it)
DUMP_COMMAND = re.compile(r'\bfilter (show|get|list|ls)\b|'
                          r'(\$FLNL|\btdc\.flowernl) (show|get)\b')


def _dump(case, ours, stock):
    # the dump was read and did not match (not a failing dump command, nor
    # a counter in it: classification's), and the verify is that dump,
    # not a command elsewhere in the case
    return _stock_failed_at(stock, 'verify') and \
        stock.mismatch() != '' and not _counter_mismatch(case, stock) and \
        DUMP_COMMAND.search(case.get('verifyCmd', '') + '\n' +
                            stock.command()) is not None


def _our_failure(case, ours, stock):
    return ours.status == 'fail' and stock.status == 'pass'


CAUSES = [
    ('version', 'Module identity: the cases that check the module is ours '
     '(its function fl_hashfn in /proc/kallsyms)', _version),
    ('duplicate', 'Same key twice on an instance: ours refuses it with '
     'EEXIST and "A filter with the same key exists in this flower '
     'instance"; stock words it otherwise or (replace) accepts it',
     _duplicate_key),
    ('stock-series', 'A stock bug that a patch of kernel/stock-series '
     'fixes (docs/stock-series.md): the case fails on stock and passes on '
     'stock with the series, and on ours', _in_category('stock-series')),
    ('replace-mask', 'A replace that changes the filter\'s mask: ours '
     'swaps the filter in place; stock refuses it with EINVAL and keeps the '
     'old filter', _in_category('replace-mask')),
    ('first-fragment', 'A first fragment\'s L4 header: ours reads its ICMP '
     'type and code, TCP flags and L2TPv3 session (as Open vSwitch\'s '
     'frag=first flows need); stock leaves them zero',
     _in_category('first-fragment')),
    ('bind-leak', 'A filter refused after its classid was bound: stock '
     '6.1.192 lacks upstream ac177a330077 and leaves the class bound, so '
     'deleting the class fails with EBUSY (a stock bug)',
     _in_category('bind-leak')),
    ('warnings', 'Ours\' warnings: a request the stock flower accepts in '
     'silence (a key without its prerequisite, addresses of two families, '
     'a mask without its key...), which ours accepts the same way and '
     'says what it did (docs/leniency.md); these cases check that tc '
     'prints ours\' "Warning: ..."', _warning),
    ('extack', 'Refusal wording: requests both refuse (bad flags, skip_sw '
     'where nothing offloads, ct_state sets no packet has), ours with its '
     'own message, stock with another or none', _refusal_wording),
    ('zero-mask', 'An address key with an all-zero mask (dst_ip '
     '0.0.0.0/0, or a tunnel\'s enc_dst_ip 0.0.0.0/0): stock sets '
     'control.addr_type (enc_control.addr_type) in key and mask, but '
     'programs its dissector only with keys whose mask is non-zero, so '
     'IPV4_ADDRS (ENC_CONTROL) is not dissected, addr_type stays 0 in the '
     'packet and the filter matches nothing; ours matches every packet of '
     'the protocol',
     _zero_mask_address),
    ('classification', 'Classification: stock counts other frames for the '
     'same filter', _classification),
    ('dump', 'Dump differences: stock dumps other attributes or values for '
     'the same filter', _dump),
    ('ours', 'Cases that fail on ours only', _our_failure),
    ('other', 'Other differences', lambda case, ours, stock: True),
]


def classify(case, ours, stock):
    for key, title, test in CAUSES:
        if test(case or {}, ours, stock):
            return key
    return 'other'


def counts(results):
    c = collections.Counter(r.status for r in results.values())
    return c['pass'], c['fail'], c['skip']


def shown_path(path):
    path = os.path.abspath(path)
    return os.path.relpath(path, REPO) if path.startswith(REPO + os.sep) \
        else path


def report(ours, stock, corpus, ours_path, stock_path, seconds=None,
           commit=None, stock_name='stock'):
    ids = list(ours) + [i for i in stock if i not in ours]
    differ = [i for i in ids if i in ours and i in stock and
              ours[i].status != stock[i].status]
    only_ours = [i for i in ids if i not in stock]
    only_stock = [i for i in ids if i not in ours]
    groups = collections.OrderedDict((key, []) for key, _, _ in CAUSES)
    for cid in differ:
        groups[classify(corpus.get(cid), ours[cid], stock[cid])].append(cid)

    out = ['# Our flower against the stock 6.1 flower' if
           stock_name == 'stock' else '# Our flower against ' + stock_name,
           '', 'Generated by `tdc/compare.py` from two runs of the same '
           'tdc cases:', '',
           '- ours: `%s`' % shown_path(ours_path),
           '- %s: `%s`' % (stock_name, shown_path(stock_path)), '']
    if stock_name != 'stock':
        out += ['The causes below are the ones `make compare` gives the '
                'stock flower\'s differences; here they are %s\'s, the '
                'stock flower with kernel/stock-series applied.'
                % stock_name, '']
    if commit:
        out += ['Commit measured: `%s` (when the runs started).' % commit, '']
    out += ['| kernel | cases | passed | failed | skipped | run (guest, wall) |',
           '|---|---|---|---|---|---|']
    for label, results in (('ours', ours), (stock_name, stock)):
        p, f, s = counts(results)
        took = (seconds or {}).get(label)
        out.append('| %s | %d | %d | %d | %d | %s |' % (
            label, len(results), p, f, s,
            '%.1f min' % (took / 60) if took else '-'))
    same = sum(1 for i in ids if i in ours and i in stock and
               ours[i].status == stock[i].status)
    out += ['', '%d cases give the same result on both, %d differ.'
            % (same, len(differ))]
    if only_ours or only_stock:
        out.append('%d cases ran on ours only, %d on %s only.'
                   % (len(only_ours), len(only_stock), stock_name))
    out.append('')
    if differ:
        out += ['## Differences by likely cause', '']
        out += ['| cause | cases |', '|---|---|']
        for key, title, _ in CAUSES:
            if groups[key]:
                out.append('| %s | %d |' % (key, len(groups[key])))
        out.append('')
    for key, title, _ in CAUSES:
        cids = groups[key]
        if not cids:
            continue
        out += ['### %s: %s' % (key, title), '',
                '| id | case | ours | %s | stage | why (the side that '
                'failed) |' % stock_name, '|---|---|---|---|---|---|']
        for cid in cids:
            o, s = ours[cid], stock[cid]
            failed = s if s.status == 'fail' else o
            out.append('| %s | %s | %s | %s | %s | %s |' % (
                cid, shorten(o.name or s.name, 90), o.status, s.status,
                failed.stage(), failed.why()))
        out.append('')
    return '\n'.join(out) + '\n'


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--ours', required=True, metavar='FILE')
    p.add_argument('--stock', required=True, metavar='FILE')
    p.add_argument('--out', default=os.path.join(REPO, 'docs',
                                                 'stock-comparison.md'),
                   metavar='FILE')
    p.add_argument('--corpus', default=os.path.join(REPO, 'tc-tests'),
                   metavar='DIR')
    p.add_argument('--seconds', action='append', default=[],
                   metavar='KERNEL=S', help='how long that run took')
    p.add_argument('--commit', metavar='TEXT', help='the commit the runs '
                   'measured (make compare writes it when they start)')
    p.add_argument('--stock-name', default='stock', metavar='VARIANT',
                   help='what --stock ran on (stock-next: the stock flower '
                   'with kernel/stock-series)')
    args = p.parse_args(argv)
    seconds = {k: float(v) for k, v in
               (x.split('=', 1) for x in args.seconds)}
    ours, stock = parse_tap(args.ours), parse_tap(args.stock)
    if not ours or not stock:
        print('compare.py: no tdc results in %s' %
              (args.ours if not ours else args.stock), file=sys.stderr)
        return 2
    text = report(ours, stock, load_corpus(args.corpus), args.ours,
                  args.stock, seconds, args.commit, args.stock_name)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, 'w') as f:
        f.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
