# SPDX-License-Identifier: GPL-2.0
"""flower.results - reading what the tools print: the summary line and TAP.

Every tool here ends its output with a summary line, and tdc.py prints
TAP.  This module is the one reader of both; it imports nothing of the
repository, so any tool (on the host or in the guest) can use it.

The summary line (the gate counts each stage by it):

    N passed, N failed
    N passed, N failed, N skipped

summary_line() gives the Counts of the last such line, summary_lines()
all of them in order.  By default the ", N skipped" part is allowed and
so is whitespace after the line, as the gate reads them; a caller that
wants neither says so (skipped=False, trailing_space=False) and then
does not read such a line as a summary at all.

TAP, as tdc.py writes it (dialect 'tdc'):

    TAP version 13
    1..N                            the plan
    ok N - ID NAME
    not ok N - ID NAME
    # stage: verify                 diagnostics: '#' lines after a result
    ok N - ID NAME # skip REASON    a skip directive

and as the tdc.py of Linux 6.1 (TdcResults.format_tap) writes it
(dialect '6.1'): "ok N ID - NAME", "not ok N ID - NAME",
"ok N ID - NAME # skipped - REASON", the failure text on the lines after
a result, not '#'-prefixed.  parse_tap() reads either into a Tap: the
results in order (TapResult), the plans, and the lines that begin like
a result ("ok N ", "not ok N ") but are not one of the dialect's.
"""

import collections
import re

Counts = collections.namedtuple('Counts', 'passed failed skipped')


def _summary_re(skipped, trailing_space):
    return re.compile(r'^(\d+) passed, (\d+) failed' +
                      (r'(?:, (\d+) skipped)?' if skipped else '') +
                      (r'\s*$' if trailing_space else '$'), re.MULTILINE)


_SUMMARY_RES = {(s, t): _summary_re(s, t)
                for s in (True, False) for t in (True, False)}


def summary_lines(text, skipped=True, trailing_space=True):
    """Counts of every "N passed, N failed[, N skipped]" line of `text`,
    in order.  A line must be exactly that, from its first character:
    skipped=False refuses the ", N skipped" part, trailing_space=False
    any whitespace after the line's last digit or word.  Without a
    skipped part, skipped is 0."""
    found = _SUMMARY_RES[bool(skipped), bool(trailing_space)].finditer(text)
    return [Counts(int(m.group(1)), int(m.group(2)),
                   int(m.group(3) or 0) if skipped else 0) for m in found]


def summary_line(text, skipped=True, trailing_space=True):
    """Counts of the last summary line of `text` (see summary_lines()),
    or None if it has none."""
    found = summary_lines(text, skipped, trailing_space)
    return found[-1] if found else None


class TapResult(collections.namedtuple(
        'TapResult', 'ok number id name skip diagnostics line')):
    """One result line.  ok: True for "ok", False for "not ok"; number:
    its int; id: the case id; name: the rest of the title, stripped;
    skip: the reason of a skip directive ('' if none given), None
    without one; diagnostics: the lines that belong to it, stripped
    (see parse_tap()); line: the result line itself."""

    __slots__ = ()


Tap = collections.namedtuple('Tap', 'results plans unread')
Tap.__doc__ = """results: TapResult in order; plans: the N of every
"1..N" line, in order; unread: the lines that begin like a result ("ok
N ", "not ok N ") but that the dialect does not read as one (a check
that every result-like line is a result can count them)."""

# 'tdc': a result is a line that begins "ok N - ID" or "not ok N - ID";
# anything may follow the id.  It skips if "# skip" follows the id
# anywhere: tdc.py writes " # skip REASON" after the name.
_TDC_RESULT = re.compile(r'(not )?ok (\d+) - (\S+)')
_TDC_SKIP = re.compile(r'# skip ?')
# '6.1': the name is what comes before the first " # skipped - ".
_61_RESULT = re.compile(
    r'^(not )?ok (\d+) (\S+) - (.*?)(?: # skipped - (.*))?$')
_RESULT_LIKE = re.compile(r'(not )?ok \d+ ')
_PLAN = re.compile(r'1\.\.(\d+)\s*$')
_INDENTED_PLAN = re.compile(r'\s*1\.\.(\d+)\s*$')


def _tdc_result(line):
    m = _TDC_RESULT.match(line)
    if not m:
        return None
    skip = _TDC_SKIP.search(line, m.start(3))
    name = line[m.end(3):skip.start() if skip else len(line)]
    return TapResult(not m.group(1), int(m.group(2)), m.group(3),
                     name.strip(), line[skip.end():] if skip else None,
                     [], line)


def _61_result(line):
    m = _61_RESULT.match(line)
    if not m:
        return None
    return TapResult(not m.group(1), int(m.group(2)), m.group(3),
                     m.group(4).strip(), m.group(5), [], line)


DIALECTS = {'tdc': _tdc_result, '6.1': _61_result}


def parse_tap(source, dialect='tdc', numbered=False, indented_plan=False):
    """A Tap of `source`: a str (split at '\\n') or an iterable of lines
    (a file; the line ends are dropped).

    Diagnostics: in dialect 'tdc' the '#' lines right after a result
    (its '#' dropped), up to the first line that is not one; in '6.1'
    every non-blank line after a result up to the next result.
    numbered=True: a result line whose number is not the next one
    (1, 2, ...) is not read as a result but as any other line (6.1's
    failure text may hold such a line).  indented_plan=True: a plan
    line may begin with whitespace.  A plan line may end with
    whitespace."""
    read = DIALECTS[dialect]
    plan_re = _INDENTED_PLAN if indented_plan else _PLAN
    lines = source.split('\n') if isinstance(source, str) else \
        (raw.rstrip('\n') for raw in source)
    results, plans, unread = [], [], []
    current = None
    for line in lines:
        result = read(line)
        if result and numbered and result.number != len(results) + 1:
            result = None
        if result:
            results.append(result)
            current = result
            continue
        if _RESULT_LIKE.match(line):
            unread.append(line)
        plan = plan_re.match(line)
        if plan:
            plans.append(int(plan.group(1)))
        if dialect == '6.1':
            if current and line.strip():
                current.diagnostics.append(line.strip())
        elif current and line.startswith('#'):
            current.diagnostics.append(line[1:].strip())
        else:
            current = None
    return Tap(results, plans, unread)
