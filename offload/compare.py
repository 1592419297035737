#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Host side of the offload oracle: two variants, A and B (by default
ours and stock), must give drivers the same rules.  Reads the two runs
of offload/replay.py (same request file) and reports every difference,
item by item (an item: one filter request with its flag, one template,
one scenario; offload/sources.py).  The pair (--a-name, --b-name) picks
the declared differences: offload/known.py's PAIRS (ours/stock: KNOWN;
stock-next/stock: KNOWN_STOCK_NEXT, each entry naming the stock patch
behind it).  Below "ours" is A and "stock" is B; the output says the
variants' names.

Compared, step by step (same commands in the same order):
  rc       exit status (tc's batch line failed or not, a netlink errno, a
           debugfs write's errno)
  stderr   tc's stderr without the extack lines ("RTNETLINK answers: ..."
           says the errno)
  extack   tc's "Error: ..."/"Warning: ..." lines (the netlink message of
           a nl_add): equal, or stock has none and ours has one ("message
           added": counted, listed, not a failure; a failure like any other
           difference for a strict pair, stock-next/stock, unless declared)
  log      the driver's callbacks in order: dev, type, cmd, cookie, chain,
           prio, proto, classid, has_extack, used_keys, each key's key and
           mask bytes, the actions (id, hw_stats, parameters), the stats
           the driver answered, its result and extack; the block binds
  show     `tc -s -j filter show` per filter: chain, pref, protocol,
           kind, handle, the flags (skip_hw, skip_sw, in_hw, not_in_hw),
           in_hw_count, classid, per action its kind and counters
Not compared: the log's seq; an action's index (the kernel allocates
indexes the lowest free first, and an action freed by an RCU work may or
may not be free yet, on either kernel); the dump's keys (the corpus and
tdc compare dumps); times.  Cookies are the driver's small ints, renamed
per item in order of appearance (Cookies: when an int names a new rule
at a freed rule's address).

An item passes when nothing differs but added messages; an item whose
every difference an entry of the pair's table in offload/known.py
explains passes as "known" (an entry with a `rewrite` explains the log's
differences only when A's log, rewritten, is B's); anything else
fails.  A run that proves nothing counts one failure more per reason: a
run missing or cut short, one cls_flower module (or one guest variant)
on both sides, a run from another guest variant than its name, no
flower rule the driver took on stock.
Prints the failures, then `N passed, N failed`; --doc writes the report
(docs/offload.md; offload/report.py writes the page).  Exit status 1 on
a failure.

usage: python3 -m offload.compare --a A.json --b B.json
           [--a-name ours] [--b-name stock]
           [--requests REQ.json] [--doc FILE] [--list N] [--wall SECS]
           [--same-module]
(--ours and --stock are --a and --b.)
"""
import argparse
import collections
import json
import re
import sys

sys.dont_write_bytecode = True

from flower.report import load, module_problems  # noqa: E402
from offload.known import KNOWN, PAIRS  # noqa: E402

TIME_KEYS = frozenset(('installed', 'last_used', 'first_used', 'expires'))
FLAG_KEYS = ('skip_hw', 'skip_sw', 'in_hw', 'not_in_hw', 'verbose')
EXTACK_PREFIXES = ('Error:', 'Warning:')
DESTROYS = ('destroy', 'tmplt_destroy')
FIELDS = ('rc', 'stderr', 'extack', 'log', 'show', 'steps', 'item')

Diff = collections.namedtuple('Diff', 'field step cmd text added')
# the variants compared, A and B: the names the output uses
NAMES = ('ours', 'stock')


# --- normalization -----------------------------------------------------------
def split_stderr(op, err):
    """(extack lines, other lines) of a step's stderr."""
    if op == 'nl_add':
        return ([err] if err else []), []
    lines = [ln for ln in (err or '').splitlines() if ln.strip()]
    ext = [ln for ln in lines if ln.startswith(EXTACK_PREFIXES)]
    return ext, [ln for ln in lines if not ln.startswith(EXTACK_PREFIXES)]


class Cookies:
    """The driver's cookie ints -> 1, 2, ... in order of appearance in an
    item.  After a device was given a DESTROY of an int, the int names a
    new rule (a freed rule's address used again) when that device is
    given a REPLACE or TMPLT_CREATE of it (the driver numbers such a
    cookie anew itself), or any call of it in a later step (the driver
    keeps a dead cookie's number, so the DESTROY of a new rule it never
    took can come with an old number); a DESTROY in the same step is the
    same rule's (stock destroys a rule it failed to add twice)."""

    def __init__(self):
        self.canon = {}
        self.dead = {}          # (dev, raw) -> step of its DESTROY
        self.next = 0

    def name(self, dev, raw, cmd, step=0):
        death = self.dead.get((dev, raw))
        if raw not in self.canon or (death is not None and (
                cmd in ('replace', 'tmplt_create') or death != step)):
            self.next += 1
            self.canon[raw] = self.next
            self.dead = {d: st for d, st in self.dead.items()
                         if d[1] != raw}
        if cmd in DESTROYS:
            self.dead[(dev, raw)] = step
        return self.canon[raw]


def norm_line(line, cookies, step=0):
    out = {k: v for k, v in line.items() if k != 'seq'}
    if 'cookie' in out:
        out['cookie'] = cookies.name(out.get('dev'), out['cookie'],
                                     out.get('cmd'), step)
    if isinstance(out.get('actions'), list):
        out['actions'] = [{k: v for k, v in a.items() if k != 'index'}
                          if isinstance(a, dict) else a
                          for a in out['actions']]
    return out


def strip_times(obj):
    if isinstance(obj, dict):
        return {k: strip_times(v) for k, v in obj.items()
                if k not in TIME_KEYS}
    if isinstance(obj, list):
        return [strip_times(v) for v in obj]
    return obj


def project_show(show):
    """The offload-relevant part of `tc -s -j filter show`: one dict per
    filter."""
    if not isinstance(show, list):
        return show
    out = []
    for f in show:
        opts = f.get('options') if isinstance(f, dict) else None
        if not isinstance(opts, dict) or 'handle' not in opts:
            continue
        acts = []
        for a in opts.get('actions') or []:
            acts.append(dict(order=a.get('order'), kind=a.get('kind'),
                             stats=strip_times(a.get('stats')),
                             hw_stats=a.get('hw_stats'),
                             used_hw_stats=a.get('used_hw_stats')))
        out.append(dict(chain=f.get('chain'), pref=f.get('pref'),
                        protocol=f.get('protocol'), kind=f.get('kind'),
                        handle=opts.get('handle'),
                        flags=[k for k in FLAG_KEYS if opts.get(k)],
                        in_hw_count=opts.get('in_hw_count'),
                        classid=opts.get('classid'), actions=acts))
    return out


def rule_of(line):
    return tuple(line.get(k) for k in ('dev', 'type', 'cookie', 'chain',
                                      'prio'))


def norm_log(lines, cookies, step):
    """The step's log, less the destroys that tell a driver again to
    forget a rule it was told to forget in this step, and does not hold
    (-ENOENT).  Stock sends that for every rule it failed to offload:
    fl_hw_replace_filter() destroys the rule, and fl_change()'s error
    path (errout_hw) destroys it again, on every callback of the block.
    A driver must take a destroy of a rule it does not hold, so the second
    tells it nothing; ours sends one.  Returns (log, how many dropped)."""
    out, gone, dropped = [], set(), 0
    for ln in lines:
        line = norm_line(ln, cookies, step)
        rule = rule_of(line)
        if line.get('cmd') == 'destroy':
            if rule in gone and line.get('result') == -2:
                dropped += 1
                continue
            gone.add(rule)
        elif line.get('cmd') == 'replace':
            gone.discard(rule)
        out.append(line)
    return out, dropped


def norm_item(rec):
    """A replay record -> [{cmd, op, rc, extack, stderr, log, show,
    dropped}] (dropped: repeated destroys left out, repeated_destroy())."""
    cookies = Cookies()
    steps = []
    for i, s in enumerate(rec.get('steps', [])):
        ext, other = split_stderr(s.get('op'), s.get('err'))
        log, dropped = norm_log(s.get('log', []), cookies, i)
        steps.append(dict(
            cmd=s.get('cmd'), op=s.get('op'), rc=s.get('rc'), extack=ext,
            stderr=other, log=log, dropped=dropped,
            show=project_show(s['show']) if 'show' in s else None))
    return steps


# --- differences -------------------------------------------------------------
def short(v, n=90):
    t = json.dumps(v, sort_keys=True) if not isinstance(v, str) else v
    return t if len(t) <= n else t[:n - 3] + '...'


def dict_diff(a, b, prefix=''):
    """Paths where dicts a (ours) and b (stock) differ: [(path, a, b)]."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b), key=str):
            if a.get(k, '<absent>') != b.get(k, '<absent>'):
                out += dict_diff(a.get(k, '<absent>'), b.get(k, '<absent>'),
                                 prefix + ('.' if prefix else '') + str(k))
        return out
    if a != b:
        return [(prefix or '.', a, b)]
    return []


def log_diff(ours, stock, names=NAMES):
    """One line saying how two driver logs differ, or None."""
    na, nb = names
    if ours == stock:
        return None
    for i, (a, b) in enumerate(zip(ours, stock)):
        if a != b:
            what = '%s %s on %s' % (b.get('type', '?'), b.get('cmd', '?'),
                                    b.get('dev', '?'))
            paths = dict_diff(a, b)
            p, va, vb = paths[0]
            more = ' (+%d more)' % (len(paths) - 1) if len(paths) > 1 else ''
            return 'callback %d (%s): %s: %s %s, %s %s%s' % (
                i + 1, what, p, na, short(va), nb, short(vb), more)
    longer, n = (na, len(ours)) if len(ours) > len(stock) \
        else (nb, len(stock))
    extra = (ours if len(ours) > len(stock) else stock)[min(len(ours),
                                                           len(stock))]
    return '%d callbacks on %s, %d on %s; %s also has %s %s on %s' % (
        len(ours), na, len(stock), nb, longer, extra.get('type', '?'),
        extra.get('cmd', '?'), extra.get('dev', '?')) if n else None


def show_diff(ours, stock, names=NAMES):
    na, nb = names
    if ours == stock:
        return None
    if not isinstance(ours, list) or not isinstance(stock, list):
        return '%s %s, %s %s' % (na, short(ours), nb, short(stock))
    if len(ours) != len(stock):
        return '%d filters on %s, %d on %s' % (len(ours), na, len(stock),
                                               nb)
    for a, b in zip(ours, stock):
        if a != b:
            paths = dict_diff(a, b)
            p, va, vb = paths[0]
            more = ' (+%d more)' % (len(paths) - 1) if len(paths) > 1 else ''
            return 'filter chain %s pref %s handle %s: %s: %s %s, %s ' \
                '%s%s' % (b.get('chain'), b.get('pref'), b.get('handle'), p,
                          na, short(va), nb, short(vb), more)
    return None


def diff_item(ours_rec, stock_rec, names=NAMES):
    """[Diff] between one item's two records (A's, B's)."""
    na, nb = names
    if ours_rec is None or stock_rec is None:
        return [Diff('item', None, None, 'no result on %s' % (
            na if ours_rec is None else nb), False)]
    out = []
    for name, rec in ((na, ours_rec), (nb, stock_rec)):
        if rec.get('error'):
            out.append(Diff('item', None, None, 'runner error on %s: %s' % (
                name, rec['error']), False))
    a, b = norm_item(ours_rec), norm_item(stock_rec)
    if len(a) != len(b):
        # after the steps' own differences: the cause comes first (a
        # filter one kernel refused is one flush delete fewer there)
        out.append(Diff('steps', None, None, '%d steps on %s, %d on %s'
                        % (len(a), na, len(b), nb), False))
    count = out.pop() if len(a) != len(b) else None
    for i, (x, y) in enumerate(zip(a, b)):
        cmd = y['cmd']
        if x['cmd'] != y['cmd']:
            out.append(Diff('steps', i, cmd, 'step %d is `%s` on %s' % (
                i + 1, x['cmd'], na), False))
            break
        if x['rc'] != y['rc']:
            out.append(Diff('rc', i, cmd, 'exit status: %s %s, %s %s'
                            % (na, x['rc'], nb, y['rc']), False))
        added = x['extack'] != y['extack'] and not y['extack']
        stock_err = y['stderr']
        if added:
            # tc prints "RTNETLINK answers: <errno>" only when the kernel
            # sent no message: ours' message hides the errno
            stock_err = [ln for ln in stock_err if not ln.startswith(
                'RTNETLINK answers:')]
        if x['stderr'] != stock_err:
            out.append(Diff('stderr', i, cmd, 'stderr: %s %s, %s %s' % (
                na, short(' / '.join(x['stderr']) or '(none)'),
                nb, short(' / '.join(y['stderr']) or '(none)')), False))
        if x['extack'] != y['extack']:
            hidden = [ln for ln in y['stderr'] if ln not in stock_err]
            out.append(Diff('extack', i, cmd, 'extack: %s %s, %s %s%s' % (
                na, short(' / '.join(x['extack']) or '(none)'),
                nb, short(' / '.join(y['extack']) or '(none)'),
                ' (%s: %s; the errno tc does not print with a message)'
                % (nb, short(' / '.join(hidden))) if hidden else ''),
                added))
        t = log_diff(x['log'], y['log'], names)
        if t:
            out.append(Diff('log', i, cmd, t, False))
        t = show_diff(x['show'], y['show'], names)
        if t:
            out.append(Diff('show', i, cmd, t, False))
    if count:
        out.append(count)
    return out


def ours_extacks(record):
    """The extack messages the steps of ours' record of an item ended with."""
    return [st.get('err') or '' for st in (record or {}).get('steps', [])]


def known_applies(k, item, ours_record):
    """Whether entry k is about this item (its ids/what, and the extack
    of ours (A) it names, if it names one: ours_extack or a_extack)."""
    if not (re.search(k['items'], item.get('id', '')) or
            re.search(k['items'], item.get('what', ''))):
        return False
    said = k.get('a_extack', k.get('ours_extack'))
    return said is None or any(
        re.search(said, e) for e in ours_extacks(ours_record))


def failing(diffs, strict=False):
    """The differences that fail an item unless declared: all of them on
    a strict pair, else all but a message A adds."""
    return [d for d in diffs if strict or not d.added]


def rewritten(record, entries):
    """(record with every log line of A passed through each entry's
    rewrite, [the entries that changed a line])."""
    changed = []
    steps = []
    for st in record.get('steps', []):
        lines = []
        for ln in st.get('log', []):
            for k in entries:
                new = k['rewrite'](ln)
                if new != ln:
                    ln = new
                    if k not in changed:
                        changed.append(k)
            lines.append(ln)
        steps.append(dict(st, log=lines))
    return dict(record, steps=steps), changed


def known_for(item, diffs, known=KNOWN, ours_record=None,
              stock_record=None, strict=False, names=NAMES):
    """The entries of known that explain every failing diff, or None.
    Entries with a rewrite explain the log's differences when A's log,
    rewritten by them all, is B's (needs both records)."""
    fails = failing(diffs, strict)
    if not fails:
        return None
    used = []
    rewriters = [k for k in known if k.get('rewrite') and
                 known_applies(k, item, ours_record)]
    if rewriters and ours_record is not None and stock_record is not None \
            and any(d.field == 'log' for d in fails):
        rec, changed = rewritten(ours_record, rewriters)
        if changed and not any(
                d.field == 'log' for d in diff_item(rec, stock_record,
                                                    names)):
            fails = [d for d in fails if d.field != 'log']
            used += changed
    for d in fails:
        for k in known:
            if k.get('fields') and known_applies(k, item, ours_record) and \
                    ('*' in k['fields'] or d.field in k['fields']) and \
                    not (k.get('rewrite') and d.field == 'log'):
                if k not in used:
                    used.append(k)
                break
        else:
            return None
    return used


Result = collections.namedtuple('Result', 'item status diffs known')


def compare(items, ours, stock, known=KNOWN, names=NAMES, strict=False):
    """[Result] per item; status 'pass', 'added', 'known' or 'fail'.
    ours, stock: the runs of A and B; strict: a message A adds fails
    unless declared (status 'known' then)."""
    o = {r['id']: r for r in (ours or {}).get('items', [])}
    s = {r['id']: r for r in (stock or {}).get('items', [])}
    out = []
    for it in items:
        diffs = diff_item(o.get(it['id']), s.get(it['id']), names)
        if not diffs:
            out.append(Result(it, 'pass', diffs, None))
        elif not failing(diffs, strict):
            out.append(Result(it, 'added', diffs, None))
        else:
            k = known_for(it, diffs, known, o.get(it['id']),
                          s.get(it['id']), strict, names)
            out.append(Result(it, 'known' if k else 'fail', diffs, k))
    return out


def run_problems(ours, stock, same_ok=False, names=NAMES):
    """Why a comparison of these runs proves nothing, as lines."""
    na, nb = names
    problems = []
    for name, run in ((na, ours), (nb, stock)):
        if not run:
            problems.append('no result from %s' % name)
        elif not run.get('complete'):
            problems.append('the %s run stopped before its last item' % name)
    if not ours or not stock:
        return problems
    if not same_ok:
        problems += module_problems(ours, stock, 'run', names)
        if ours.get('variant') == stock.get('variant'):
            problems.append('%s and %s come from the same guest '
                            'variant (%s)' % (na, nb, ours.get('variant')))
        for name, run in ((na, ours), (nb, stock)):
            if run.get('variant') not in (name, '?', None):
                problems.append('the %s run comes from guest variant %s'
                                % (name, run.get('variant')))
    taken = sum(1 for r in stock.get('items', []) for s in r['steps']
                for ln in s.get('log', []) if ln.get('type') == 'flower' and
                ln.get('cmd') == 'replace' and ln.get('result') == 0)
    if not taken:
        problems.append('the driver took no flower rule on %s: it did '
                        'not bind, or nothing was offered' % nb)
    return problems


def counts(results):
    c = collections.Counter(r.status for r in results)
    passed = c['pass'] + c['added'] + c['known']
    return passed, c['fail'], c


# --- output ------------------------------------------------------------------
def describe(d):
    where = '' if d.step is None else 'step %d `%s`: ' % (d.step + 1,
                                                          short(d.cmd, 70))
    return where + d.text


def by_field(results, strict=False):
    c = collections.Counter()
    for r in results:
        if r.status == 'fail':
            for f in sorted({d.field for d in failing(r.diffs, strict)}):
                c[f] += 1
    return c


def kind_of(d, names=NAMES):
    """A difference with its numbers and long values taken out: failures
    of one cause read as one kind."""
    alt = '|'.join(re.escape(n) for n in sorted(names, key=len,
                                                 reverse=True))
    text = re.sub(r'(?<![\w-])(%s) [^,;]*' % alt, r'\1 ...', d.text) \
        if d.field in ('log', 'show') and 'callbacks' not in d.text \
        and 'filters on' not in d.text else d.text
    if d.field != 'rc':             # exit statuses are few: kept
        text = re.sub(r'\d+', 'N', text)
    if not text.startswith(d.field):
        text = '%s: %s' % (d.field, text)
    return text[:170]


def kinds(results, names=NAMES, strict=False):
    """[(kind, [results])] of the failed items by their first difference,
    most items first."""
    by = collections.OrderedDict()
    for r in results:
        if r.status == 'fail':
            d = failing(r.diffs, strict)[0]
            by.setdefault(kind_of(d, names), []).append(r)
    return sorted(by.items(), key=lambda kv: -len(kv[1]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--a', '--ours', dest='a', required=True,
                    help="A's run (offload/replay.py's output)")
    ap.add_argument('--b', '--stock', dest='b', required=True,
                    help="B's run")
    ap.add_argument('--a-name', default='ours',
                    help='the variant A is (default ours)')
    ap.add_argument('--b-name', default='stock',
                    help='the variant B is (default stock)')
    ap.add_argument('--requests', help='the request file: every item of it '
                    'must have a result on both kernels')
    ap.add_argument('--doc', help='write the report here (docs/offload.md)')
    ap.add_argument('--list', type=int, default=40,
                    help='failed items printed (default 40)')
    ap.add_argument('--wall', help='wall time of the run, for the report')
    ap.add_argument('--same-module', action='store_true',
                    help='allow one module compared with itself (a check '
                    'that a kernel gives the same log twice)')
    ap.add_argument('--made-by', help='the command the report says wrote '
                    'it (default: make offload, make offload-A)')
    ap.add_argument('--note', action='append', default=[],
                    help='a paragraph for the report (which module was '
                    'measured, ...); may be repeated')
    a = ap.parse_args(argv)
    names = (a.a_name, a.b_name)
    pair = PAIRS.get(names)
    if pair is None:
        print('offload.compare: no declarations for %s against %s: '
              'offload/known.py PAIRS has %s' % (
                  a.a_name, a.b_name, ', '.join(
                      '%s/%s' % p for p in sorted(PAIRS))))
        print('0 passed, 1 failed')
        return 1
    ours, stock = load(a.a), load(a.b)
    if a.requests:
        req = load(a.requests)
        items = req['items'] if req else []
    else:
        seen, items = set(), []
        for run in (stock, ours):
            for r in (run or {}).get('items', []):
                if r['id'] not in seen:
                    seen.add(r['id'])
                    items.append(dict(id=r['id'], source=r['id'][:1],
                                      what=''))
    strict = pair['strict']
    results = compare(items, ours, stock, pair['known'], names, strict)
    passed, failed, c = counts(results)
    problems = run_problems(ours, stock, a.same_module, names)
    for p in problems:
        print('offload.compare: PROBLEM: %s' % p)
    fails = [r for r in results if r.status == 'fail']
    for r in fails[:a.list]:
        fd = failing(r.diffs, strict)
        print('FAIL %s  %s' % (r.item['id'], short(r.item.get('what', ''),
                                                   100)))
        for d in fd[:3]:
            print('     %s' % describe(d))
        if len(fd) > 3:
            print('     ... %d more' % (len(fd) - 3))
    if len(fails) > a.list:
        print('... %d more failed items' % (len(fails) - a.list))
    for k, rs in kinds(results, names, strict)[:15]:
        print('%6d  %s' % (len(rs), k))
    fields = by_field(results, strict)
    print('offload.compare: %s vs %s%s: %d items: %d identical, %d with a '
          'message added by %s, %d known, %d failed%s' % (
              a.a_name, a.b_name, ' (strict)' if strict else '',
              len(results), c['pass'], c['added'], a.a_name, c['known'],
              c['fail'],
              (' (' + ', '.join('%s %d' % kv for kv in sorted(fields.items()))
               + ')') if fields else ''))
    if a.doc:
        from offload.report import report   # the page: its own module
        with open(a.doc, 'w') as f:
            f.write(report(results, ours, stock, a.wall, problems=problems,
                           names=names, pair=pair, notes=a.note,
                           made_by=a.made_by))
        print('offload.compare: wrote %s' % a.doc)
    if not results:
        failed = max(failed, 1)
    failed += len(problems)
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
