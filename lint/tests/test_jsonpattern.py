# SPDX-License-Identifier: GPL-2.0
"""lint/jsonpattern.py: a matchJSON as a matchPattern (for 6.1's tdc.py,
which reads only matchPattern) matches exactly the outputs that our
tdc.py's matchJSON matches; and the corpus checker's proof that a case's
pattern checks what its JSON checks."""

import json
import random
import re
import unittest

from lint import jsonpattern
from tdc import tdc

FLAGS = re.DOTALL | re.MULTILINE
WORDS = ('flower', 'ip', 'gact', '10.0.0.1/24', '[34997]', 'a b', '', 'k')


def random_output(rng, level, depth):
    """A JSON value such as tc or $FLNL prints, nested at most `depth`
    levels below `level`."""
    kinds = ['int', 'str', 'bool']
    if level < depth:
        kinds += ['dict', 'dict', 'list']
    kind = rng.choice(kinds)
    if kind == 'int':
        return rng.randrange(0, 300)
    if kind == 'str':
        return rng.choice(WORDS)
    if kind == 'bool':
        return rng.random() < 0.5
    if kind == 'list':
        return [random_output(rng, level + 1, depth)
                for _ in range(rng.randrange(0, 4))]
    keys = rng.sample(['handle', 'kind', 'keys', 'stats', 'options', 'a',
                       'pref', 'order', 'actions'], rng.randrange(0, 5))
    return {k: random_output(rng, level + 1, depth) for k in keys}


def random_subset(rng, out, key_value=False):
    """A matchJSON that `out` matches: some keys of each dict, a prefix
    of each list, {} in place of a dict element now and then."""
    if isinstance(out, dict):
        if not key_value and rng.random() < 0.2:
            return {}
        if key_value and not out:
            return {}
        keys = [k for k in out if rng.random() < 0.7]
        return {k: random_subset(rng, out[k], True) for k in keys}
    if isinstance(out, list):
        if key_value and not out:
            return []
        return [random_subset(rng, item)
                for item in out[:rng.randrange(0, len(out) + 1)]]
    return out


def perturb(rng, data):
    """`data` with one value somewhere changed, dropped or added."""
    paths = [p for p, _ in jsonpattern._paths(data)]
    path = rng.choice(paths)

    def change(value):
        choice = rng.random()
        if isinstance(value, dict):
            if value and choice < 0.5:
                value = dict(value)
                del value[rng.choice(list(value))]
                return value
            return dict(value, extra=1)
        if isinstance(value, list):
            return value[:-1] if value and choice < 0.5 else value + [7]
        return jsonpattern._changed(value)
    return jsonpattern._replace(data, path, change)


class TestSubsetPattern(unittest.TestCase):
    def agree(self, output, expected, style):
        text = jsonpattern.render(output, style)
        regex = re.compile(jsonpattern.pattern(expected, style=style), FLAGS)
        by_pattern = len(regex.findall(text)) == 1
        by_json = tdc.json_mismatch(output, expected) is None
        self.assertEqual(by_pattern, by_json, (style, text,
                                               json.dumps(expected)))

    def test_random_outputs_agree_with_json_mismatch(self):
        rng = random.Random(35)
        for style in jsonpattern.STYLES:
            for _ in range(400):
                output = [random_output(rng, 2, jsonpattern.DEPTH[style])
                          for _ in range(rng.randrange(0, 4))]
                expected = random_subset(rng, output)
                self.agree(output, expected, style)
                self.agree(perturb(rng, output), expected, style)
                if expected:
                    self.agree(output, perturb(rng, expected), style)

    def test_a_key_is_not_found_in_another_member_or_element(self):
        pat = jsonpattern.pattern([{'handle': 1}])
        self.assertIsNone(re.search(pat, '[{"a":{"handle":1}}]'))
        self.assertIsNone(re.search(pat, '[{"a":2},{"handle":1}]'))
        self.assertIsNone(re.search(pat, '[{"a":["x",{"handle":1}]}]'))
        self.assertIsNotNone(re.search(pat, '[{"a":{"handle":2},'
                                            '"handle":1}]'))

    def test_numbers_are_whole(self):
        pat = jsonpattern.pattern([{'packets': 1}])
        self.assertIsNone(re.search(pat, '[{"packets":10}]'))
        self.assertIsNotNone(re.search(pat, '[{"packets":1,"bytes":9}]'))

    def test_empty_value_of_a_key_only_matches_empty(self):
        pat = jsonpattern.pattern([{'keys': {}}])
        self.assertIsNotNone(re.search(pat, '[{"keys":{}}]'))
        self.assertIsNone(re.search(pat, '[{"keys":{"a":1}}]'))

    def test_too_deep_fails_rather_than_matching(self):
        def nested(levels):
            return [nested(levels - 1)] if levels else 1
        pat = jsonpattern.pattern([{'b': 1}])
        depth = jsonpattern.DEPTH['tc']
        # the list and the dict are 2 levels: a value nested DEPTH - 2
        # deep is skipped, one more level is not
        self.assertIsNotNone(re.search(pat, jsonpattern.render(
            [{'a': nested(depth - 2), 'b': 1}])))
        self.assertIsNone(re.search(pat, jsonpattern.render(
            [{'a': nested(depth - 1), 'b': 1}])))

    def test_flnl_style_takes_indented_sorted_output(self):
        out = [{'prio': 1, 'options': {'TCA_FLOWER_KEY_IP_PROTO': 6,
                                       'TCA_FLOWER_ACT': [{'order': 1}]}}]
        pat = jsonpattern.pattern([{'options': {
            'TCA_FLOWER_KEY_IP_PROTO': 6}}], style='flnl')
        self.assertIsNotNone(re.search(pat, jsonpattern.render(out, 'flnl'),
                                       FLAGS))


class TestExactPattern(unittest.TestCase):
    def test_exact_is_the_text_as_printed(self):
        expected = [{'kind': 'flower', 'options': {'keys': {}}}]
        pat = jsonpattern.pattern(expected, exact=True)
        self.assertEqual(pat, r'\A\[\{"kind":"flower","options":'
                              r'\{"keys":\{\}\}\}\]\s*\Z')
        self.assertIsNotNone(re.search(pat, '[{"kind":"flower","options":'
                                            '{"keys":{}}}]\n', FLAGS))
        rng = random.Random(61)
        for _ in range(200):
            output = perturb(rng, expected)
            if output != expected:
                self.assertIsNone(re.search(pat, jsonpattern.render(output),
                                            FLAGS), output)

    def test_flnl_exact_sorts_and_indents(self):
        expected = [{'prio': 1, 'handle': 2}]
        pat = jsonpattern.pattern(expected, exact=True, style='flnl')
        self.assertIsNotNone(re.search(pat, json.dumps(
            expected, indent=2, sort_keys=True) + '\n', FLAGS))

    def test_style_of(self):
        self.assertEqual(jsonpattern.style_of(
            '$FLNL show --dev $DEV1 --protocol 0'), 'flnl')
        self.assertEqual(jsonpattern.style_of('$FLNL get --dev x'), 'flnl')
        self.assertEqual(jsonpattern.style_of(
            '$TC -j filter show dev $DEV1 ingress'), 'tc')


class TestProblems(unittest.TestCase):
    """The corpus checker's proof (jsonpattern.problems)."""

    BASE = {'verifyCmd': '$TC -s -j filter show dev $DEV1 ingress',
            'matchJSON': [{}, {'options': {'handle': 1, 'actions': [
                {'stats': {'packets': 2}}]}}]}

    def case(self, pattern, **more):
        return dict(self.BASE, matchPattern=pattern, matchCount='1', **more)

    def test_the_generated_pattern_passes(self):
        self.assertEqual(jsonpattern.problems(self.case(
            jsonpattern.pattern(self.BASE['matchJSON']))), [])

    def test_a_pattern_that_matches_anything_fails(self):
        found = jsonpattern.problems(self.case(r'\A.*'))
        self.assertTrue(found)
        self.assertIn('checks less than matchJSON', found[0])

    def test_a_pattern_that_checks_less_fails(self):
        found = jsonpattern.problems(self.case(r'"packets":2\b'))
        self.assertTrue(any('$[1].options.handle changed' in p
                            for p in found), found)

    def test_a_pattern_that_checks_something_else_fails(self):
        found = jsonpattern.problems(self.case(r'"packets":3\b'))
        self.assertIn('does not match matchJSON', found[0])

    def test_exact_json_needs_an_exact_pattern(self):
        subset = jsonpattern.pattern(self.BASE['matchJSON'])
        found = jsonpattern.problems(self.case(subset, matchJSONExact=True))
        self.assertTrue(any('with a key more' in p or 'element more' in p
                            for p in found), found)
        exact = jsonpattern.pattern(self.BASE['matchJSON'], exact=True)
        self.assertEqual(jsonpattern.problems(self.case(
            exact, matchJSONExact=True)), [])

    def test_match_count_must_be_one(self):
        found = jsonpattern.problems(dict(self.case(
            jsonpattern.pattern(self.BASE['matchJSON'])), matchCount='2'))
        self.assertIn('matchCount 1', found[0])


if __name__ == '__main__':
    unittest.main()
