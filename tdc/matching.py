# SPDX-License-Identifier: GPL-2.0
"""matching.py - how a tdc case fails, and the verify stage's checks.

CaseFailed is the failure of any stage of a case (tdc.py's runner raises
it for setup, execute, teardown...), with the lines the TAP report shows
under the "not ok".  verify() and verify_exit() are the verify stage:
the verify command must exit 0 (unless failing_verify_allowed()), and
its output must match the case's matchJSON (json_mismatch(), as
upstream; matchJSONExact: json_difference()) and its matchPattern
(matchCount times).  tdc.py imports all of these under their own names.
"""

import json
import re

OUTPUT_LINES = 40       # of a failing command's output, in the TAP report
PATTERN_SHOWN = 300     # characters of a failing matchPattern shown there


class CaseFailed(Exception):
    """A stage of a case failed; the lines say how."""

    def __init__(self, stage, *lines, outcome=None):
        super().__init__(stage)
        self.stage = stage
        self.lines = list(lines)
        if outcome is not None:
            self.lines.insert(0, 'command: ' + outcome.command)
            self.lines += _output_lines('stdout', outcome.out)
            self.lines += _output_lines('stderr', outcome.err)


def _output_lines(label, text):
    lines = text.rstrip('\n').split('\n') if text.strip() else []
    if not lines:
        return []
    cut = len(lines) - OUTPUT_LINES
    if cut > 0:
        lines = ['[... {} lines]'.format(cut)] + lines[cut:]
    return [label + ':'] + ['  ' + line for line in lines]


def json_mismatch(output, expected, path='$', key_value=False):
    """None if `expected` matches `output` as upstream tdc's matchJSON does,
    else where and how they differ.  A dict matches a dict that has all its
    keys with matching values (more keys are fine); a list matches a list
    whose first len(expected) elements match pairwise, so {} is a
    placeholder for an element; but an empty dict or list as the value of a
    key matches only an empty one.  Anything else must be equal."""
    if isinstance(expected, (dict, list)) and \
            type(output) is not type(expected):
        return '{}: expected {}, got {}'.format(
            path, type(expected).__name__, json.dumps(output))
    if key_value and expected in ({}, []):
        return None if output == expected else \
            '{}: expected {}, got {}'.format(path, json.dumps(expected),
                                             json.dumps(output))
    if isinstance(expected, dict):
        for key, value in expected.items():
            if key not in output:
                return '{}: no key {!r} in {}'.format(path, key,
                                                      json.dumps(output))
            found = json_mismatch(output[key], value,
                                  '{}.{}'.format(path, key), True)
            if found:
                return found
        return None
    if isinstance(expected, list):
        if len(expected) > len(output):
            return '{}: expected at least {} elements, got {}'.format(
                path, len(expected), len(output))
        for index, (out, exp) in enumerate(zip(output, expected)):
            found = json_mismatch(out, exp, '{}[{}]'.format(path, index))
            if found:
                return found
        return None
    if output != expected:
        return '{}: expected {}, got {}'.format(path, json.dumps(expected),
                                                json.dumps(output))
    return None


def json_difference(output, expected, path='$'):
    """None if `output` equals `expected` (JSON values), else where and how
    they first differ."""
    if isinstance(expected, dict) and isinstance(output, dict):
        for key in expected:
            if key not in output:
                return '{}: no key {!r}'.format(path, key)
        for key in output:
            if key not in expected:
                return '{}: key {!r} ({}) not expected'.format(
                    path, key, json.dumps(output[key]))
        for key, value in expected.items():
            found = json_difference(output[key], value,
                                    '{}.{}'.format(path, key))
            if found:
                return found
        return None
    if isinstance(expected, list) and isinstance(output, list):
        for index, (out, exp) in enumerate(zip(output, expected)):
            found = json_difference(out, exp, '{}[{}]'.format(path, index))
            if found:
                return found
        if len(output) != len(expected):
            return '{}: {} elements, expected {}{}'.format(
                path, len(output), len(expected), (
                    '; the first not expected: ' +
                    json.dumps(output[len(expected)]))
                if len(output) > len(expected) else '')
        return None
    if type(output) is not type(expected) or output != expected:
        return '{}: expected {}, got {}'.format(path, json.dumps(expected),
                                                json.dumps(output))
    return None


def failing_verify_allowed(case):
    """Whether the case's verify command may exit non-zero: its cmdUnderTest
    is expected to fail (expExitCode not 0) and the verify looks for that
    error (matchPattern, at least one match), as a verify that re-runs the
    failing command (`$TC -force -b $BATCH_FILE 2>&1`, `$FLNL add ...`)
    does; the error text must then be in its output."""
    return int(case.get('expExitCode', 0)) != 0 and \
        'matchJSON' not in case and 'matchPattern' in case and \
        int(case.get('matchCount', 1)) >= 1


def verify_exit(case, outcome):
    """Raise CaseFailed if the verify command exited non-zero where the case
    does not allow it (failing_verify_allowed): the output of a command
    that failed proves nothing, least of all that something is absent
    (matchCount 0) or what JSON it printed."""
    if outcome.code != 0 and not failing_verify_allowed(case):
        raise CaseFailed('verify', 'verify command {!r} failed: exit code {}, '
                         'expected 0{}'.format(
                             outcome.command, outcome.code,
                             ' (matchCount 0 must not match an error)'
                             if 'matchJSON' not in case and
                             int(case.get('matchCount', 1)) == 0 else ''),
                         outcome=outcome)


def verify(case, outcome):
    """Raise CaseFailed unless the verify command's output matches: its
    matchJSON and its matchPattern, each that it has (the cases here carry
    both, for the tdc.py of 6.1, which knows no matchJSON: a pattern that
    checks something else fails here too)."""
    text = outcome.output()
    if 'matchJSON' in case:
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise CaseFailed('verify', 'output is not JSON: {}'.format(exc),
                             outcome=outcome)
        if case.get('matchJSONExact'):
            mismatch = json_difference(data, case['matchJSON'])
            if mismatch:
                raise CaseFailed('verify', 'matchJSON (exact): ' + mismatch,
                                 outcome=outcome)
        mismatch = json_mismatch(data, case['matchJSON'])
        if mismatch:
            raise CaseFailed('verify', 'matchJSON: ' + mismatch,
                             outcome=outcome)
    if 'matchPattern' in case:
        want = int(case.get('matchCount', 1))
        found = len(re.findall(case['matchPattern'], text,
                               re.DOTALL | re.MULTILINE))
        if found != want:
            shown = case['matchPattern']
            if len(shown) > PATTERN_SHOWN:
                shown = shown[:PATTERN_SHOWN] + '...'
            raise CaseFailed('verify', 'matchPattern {!r}: {} matches, '
                             'expected {}{}'.format(
                                 shown, found, want,
                                 ' (matchJSON matched)'
                                 if 'matchJSON' in case else ''),
                             outcome=outcome)
