# SPDX-License-Identifier: GPL-2.0
"""jsonpattern.py - a case's matchJSON as a matchPattern, and the check
that a matchPattern checks what its matchJSON checks.

The tdc.py that linux-source-6.1 ships knows no matchJSON: it reads
matchPattern and matchCount in every verify (KeyError without them) and
ignores matchJSON and matchJSONExact.  So every case here that matches
JSON carries a matchPattern (matchCount 1) that checks the same thing on
the text of the output; our tdc.py checks both, the newer upstream
tdc.py reads matchJSON first.

pattern(expected, exact, style) writes it, for the two JSON printers the
corpus verifies with: `tc -j` (style "tc": compact, one line, keys in
tc's order) and `$FLNL show|get` (style "flnl": json.dumps(indent=2,
sort_keys=True)).

- matchJSONExact (exact=True): the output must be exactly matchJSON.
  The pattern is the JSON text itself, as that printer writes it,
  anchored at both ends (\\A ... \\s*\\Z).  tc prints a dump's keys in a
  fixed order; the generator writes them in that order (a key order of
  its own would fail under our tdc.py, which checks both).
- matchJSON (a part of the output): as upstream's and our tdc.py match
  it: a dict matches a dict that has those keys (more keys are fine, in
  any order), a list matches the first elements of a list, position by
  position ({} holds a place), an empty {} or [] as the value of a key
  matches only an empty one, anything else must be equal.  Each key is
  looked for by a lookahead that skips what comes before it in that dict
  character by character, a bracketed group (nested up to DEPTH levels,
  counted from the top of the output) as one, so a key is never found
  inside another member's value or in another element.  This holds for
  output whose strings have no escaped quote and no unbalanced bracket,
  as tc's and $FLNL's have (names, numbers, hex; a protocol tc prints as
  "[34997]" is balanced): `"key":` cannot start inside a string.

For a hand-written case, `python3 -m lint.jsonpattern FILE [ID...]`
prints the "matchPattern" and "matchCount" lines of each case of FILE
(those with ID) that has a matchJSON, to paste beside it.

problems(case) is the corpus checker's proof that a case's pattern
checks the same as its matchJSON: the pattern must match matchJSON's own
text (as the verify command's printer would print it) matchCount times,
and must not once any scalar in it is changed, any key left out, and (for
matchJSONExact) any key or element added.  A pattern that matches
anything fails that, and so does one that checks less than the JSON.
"""

import copy
import json
import re
import sys

# How deep the output of each printer may nest, counted from its top
# list: tc's filter dump is the list, a filter, its options, the
# actions, an action, its "prob", and the "control_action" in that (7);
# $FLNL show goes on into an action's own attributes and the structs in
# them (7).  One level more for either, to spare.  A skipped member nested
# deeper makes the pattern fail to match: never match more.
DEPTH = {'tc': 8, 'flnl': 8}
STYLES = tuple(DEPTH)

_OTHER = r'[^{}\[\]]'
# after a number, true, false or null: the value ends there
_END = r'(?=\s*[,}\]])'


def _literal(text):
    """A regular expression matching `text` literally (spaces and
    newlines stay as they are, easier to read in the JSON)."""
    return re.sub(r'([\\.^$*+?{}\[\]|()])', r'\\\1', text)


def _token(depth):
    """One token of a container's content: a character that is no
    bracket, or a bracketed group nested up to `depth` deep."""
    if depth <= 0:
        return _OTHER
    return r'(?:{}|[{{\[]{}*[}}\]])'.format(_OTHER, _token(depth - 1))


def render(data, style='tc'):
    """The text the printer of `style` gives for `data`."""
    if style == 'flnl':
        return json.dumps(data, indent=2, sort_keys=True)
    return json.dumps(data, separators=(',', ':'))


def _subset(expected, level, key_value, ws, tail, depth):
    """The pattern of a value at nesting `level` (1: the top) that
    matches as matchJSON does; tail: nothing follows it in the pattern,
    so a container need not be consumed to its end."""
    rest = _token(depth - level) + '*'
    if isinstance(expected, dict):
        if key_value and not expected:
            return r'\{' + ws + r'\}'
        out = r'\{'
        for key, value in expected.items():
            out += '(?={}*?{}{}:{}{})'.format(
                _token(depth - level), _literal(json.dumps(key)), ws,
                ws, _subset(value, level + 1, True, ws, True, depth))
        return out if tail and expected else out + rest + r'\}'
    if isinstance(expected, list):
        if key_value and not expected:
            return r'\[' + ws + r'\]'
        out = r'\[' + ws
        for index, item in enumerate(expected):
            if index:
                out += ws + ',' + ws
            out += _subset(item, level + 1, False, ws,
                           tail and index == len(expected) - 1, depth)
        return out if tail and expected else out + rest + r'\]'
    text = _literal(json.dumps(expected))
    return text if isinstance(expected, str) else text + _END


def pattern(expected, exact=False, style='tc'):
    """The matchPattern (matchCount 1) that checks what matchJSON
    `expected` (with matchJSONExact if exact) checks, on the output of a
    printer of `style`."""
    assert style in STYLES, style
    if exact:
        return r'\A' + _literal(render(expected, style)) + r'\s*\Z'
    ws = r'\s*' if style == 'flnl' else ''
    return r'\A\s*' + _subset(expected, 1, False, ws, True, DEPTH[style])


def style_of(verify):
    """The printer of a verify command's output: "flnl" when its last
    command is `$FLNL show|get`, else "tc"."""
    last = verify.split('|')[-1].split()
    return 'flnl' if last[:1] == ['$FLNL'] and last[1:2] in (
        ['show'], ['get']) else 'tc'


# --- the check ----------------------------------------------------------------
def _paths(data, path=()):
    """(path, value) of every dict, list and scalar in `data`."""
    yield path, data
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _paths(value, path + (key,))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _paths(value, path + (index,))


def _replace(data, path, fn):
    data = copy.deepcopy(data)
    if not path:
        return fn(data)
    parent = data
    for step in path[:-1]:
        parent = parent[step]
    result = fn(parent[path[-1]])
    if result is _DELETE:
        del parent[path[-1]]
    else:
        parent[path[-1]] = result
    return data


_DELETE = object()


def _changed(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return value + 'x'
    return 0                                # null


def _show(path):
    return '$' + ''.join('[{}]'.format(p) if isinstance(p, int)
                         else '.' + str(p) for p in path)


def variants(expected, exact):
    """(what was changed, data) of the outputs that must not match:
    every scalar changed, every key left out, every list without its
    last element, and with exact (or where matchJSON has an empty {} or
    [] as a key's value) every dict given a key more and every list an
    element more."""
    for path, value in _paths(expected):
        if isinstance(value, (dict, list)):
            # an empty {} or [] as a key's value matches only an empty one
            empty_value = not value and path and isinstance(path[-1], str)
            if isinstance(value, dict) and (exact or empty_value):
                yield _show(path) + ' with a key more', _replace(
                    expected, path, lambda d: dict(d, tdc_extra=0))
            if isinstance(value, list) and (exact or empty_value):
                yield _show(path) + ' with an element more', _replace(
                    expected, path, lambda d: d + [0])
            if isinstance(value, list) and value:
                yield _show(path) + ' without its last element', \
                    _replace(expected, path, lambda d: d[:-1])
        else:
            yield _show(path) + ' changed', _replace(expected, path,
                                                    _changed)
        if path and isinstance(path[-1], str):
            yield _show(path) + ' left out', _replace(
                expected, path, lambda _v: _DELETE)


def problems(case):
    """Why `case`'s matchPattern does not check what its matchJSON does
    (empty: it does, or the case has no matchJSON)."""
    if 'matchJSON' not in case or 'matchPattern' not in case:
        return []
    try:
        regex = re.compile(str(case['matchPattern']),
                           re.DOTALL | re.MULTILINE)
        want = int(case.get('matchCount', 1))
    except (re.error, TypeError, ValueError):
        return []                   # case_problems() reports those
    style = style_of(case.get('verifyCmd') or '')
    expected, exact = case['matchJSON'], bool(case.get('matchJSONExact'))
    if want != 1:
        return ['matchPattern beside matchJSON must have matchCount 1']
    found = len(regex.findall(render(expected, style)))
    if found != want:
        return ['matchPattern does not match matchJSON printed as {} '
                'prints it ({} matches, matchCount {})'.format(
                    '$FLNL' if style == 'flnl' else 'tc -j', found, want)]
    out = []
    for what, data in variants(expected, exact):
        if len(regex.findall(render(data, style))) == want:
            out.append('matchPattern still matches with {}: it checks '
                       'less than matchJSON'.format(what))
    return out[:3] + (['... and {} more'.format(len(out) - 3)]
                      if len(out) > 3 else [])


def main(argv):
    if not argv or argv[0].startswith('-'):
        print(next(p for p in __doc__.split('\n\n')
                   if p.startswith('For a hand-written case')),
              file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        cases = json.load(f)
    for case in cases:
        if 'matchJSON' not in case or (argv[1:] and
                                       case.get('id') not in argv[1:]):
            continue
        print('{}:\n        "matchPattern": {},\n        "matchCount": "1",'
              .format(case.get('id'), json.dumps(pattern(
                  case['matchJSON'], bool(case.get('matchJSONExact')),
                  style_of(case.get('verifyCmd') or '')))))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
