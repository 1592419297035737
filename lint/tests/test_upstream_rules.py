# SPDX-License-Identifier: GPL-2.0
"""Every case in tc-tests/ is one upstream's current tdc.py can run
(lint/corpus.py upstream_problems()): one command per setup/teardown
entry, nothing its nsPlugin would run only in part inside the case's
namespace, upstream's variables only, matchJSON on JSON output; the few
cases that need $FLNL (ours) say so."""

import os
import unittest

from lint import corpus

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__))))
TC_TESTS = os.path.join(REPO, 'tc-tests')


def case(**fields):
    base = {'id': 'ab12', 'name': 'x', 'category': ['filter', 'flower'],
            'plugins': {'requires': 'nsPlugin'}, 'setup': [],
            'cmdUnderTest': '$TC qdisc show dev $DEV1', 'expExitCode': '0',
            'verifyCmd': '$TC qdisc show dev $DEV1', 'matchPattern': 'x',
            'matchCount': '1', 'teardown': []}
    base.update(fields)
    return base


def problems(**fields):
    return corpus.upstream_problems(case(**fields))


class TestShellSplit(unittest.TestCase):
    def test_operators_outside_quotes_only(self):
        self.assertEqual(corpus.shell_split('a && b; c | d'), (
            [('', 'a '), ('&&', ' b'), (';', ' c '), ('|', ' d')], False,
            False))
        parts, sub, _ = corpus.shell_split(
            "awk 'BEGIN { for (i = 0; i < 2; i++) print $(i) }' > f 2>&1")
        self.assertEqual(len(parts), 1)
        self.assertFalse(sub)

    def test_substitution(self):
        for text in ('echo $(ls)', 'echo "$(ls)"', 'echo `ls`'):
            self.assertTrue(corpus.shell_split(text)[1], text)
        self.assertFalse(corpus.shell_split("echo '$(ls)' \\$(x")[1])

    def test_redirections_are_not_operators(self):
        for text in ('cmd 2>&1', 'cmd &> f', 'cmd >&2'):
            self.assertEqual(len(corpus.shell_split(text)[0]), 1, text)
        self.assertEqual(len(corpus.shell_split('cmd & other')[0]), 2)

    def test_open_quote(self):
        self.assertTrue(corpus.shell_split('echo "x')[2])


class TestRules(unittest.TestCase):
    def test_a_plain_case_passes(self):
        self.assertEqual(problems(), [])
        self.assertEqual(problems(
            setup=['$TC qdisc add dev $DEV1 ingress',
                   ["$IP link show $DEV0", 1],
                   "awk 'BEGIN { for (i = 0; i < 3; i++) print i }' "
                   "> $BATCH_FILE"],
            verifyCmd="$TC filter show dev $DEV1 ingress | grep -c 'handle'",
            teardown=['rm -f $BATCH_FILE']), [])

    def test_a_plain_value_in_a_matchjson_list(self):
        # helper-31's first a257 matched "data": [17, 34, 51, 68]: upstream's
        # find_in_json_other() crashed on it, and this checker let it by
        verify = '$TC -j filter show dev $DEV1 ingress'
        found = problems(verifyCmd=verify, matchJSON=[{'options': {
            'keys': {'geneve_opt_key': [{'class': 258,
                                         'data': [17, 34, 51, 68]}]}}}])
        self.assertEqual(len(found), 1)
        self.assertIn('matchJSON $[0].options.keys.geneve_opt_key[0].data'
                      '[0]: a plain value in a list', found[0])
        self.assertEqual(problems(verifyCmd=verify, matchJSON=[
            {'options': {'keys': {'geneve_opt_key': [{'class': 258}]}}}]),
            [])

    def test_chains_and_substitutions(self):
        for setup in ('$TC qdisc add dev $DEV1 ingress && true',
                      'true; $TC qdisc add dev $DEV1 ingress',
                      'false || true', 'sleep 1 &',
                      'echo $($TC filter show dev $DEV1 ingress)'):
            self.assertTrue(problems(setup=[setup]), setup)

    def test_dev2_is_outside_upstreams_namespace(self):
        # 2435, 6da1 and 9d42 used $DEV2, which upstream's nsPlugin does
        # not move into the case's namespace
        found = problems(setup=['$TC qdisc add dev $DEV2 ingress'])
        self.assertEqual(len(found), 1)
        self.assertIn('$DEV2', found[0])
        self.assertEqual(problems(setup=['$TC qdisc add dev $DUMMY ingress']),
                         [])

    def test_pipes_only_into_text_filters(self):
        self.assertTrue(problems(cmdUnderTest='echo x | $TC -b -'))
        self.assertEqual(problems(cmdUnderTest='$TC -s qdisc show | '
                                  'grep -c x | wc -l'), [])

    def test_first_word_a_program(self):
        for command in ('cd /tmp', 'A=1 $TC qdisc show', '! true',
                        'exit 0'):
            self.assertTrue(problems(cmdUnderTest=command), command)

    def test_single_spaces(self):
        self.assertTrue(problems(cmdUnderTest="echo 'a  b'"))

    def test_variables(self):
        self.assertTrue(problems(cmdUnderTest='$PYTHON -c 1'))
        self.assertTrue(problems(cmdUnderTest='echo ${HOME}'))
        self.assertEqual(problems(cmdUnderTest='echo $TESTID ${DUMMY}'), [])

    def test_flnl_needs_the_mark(self):
        flnl = '$FLNL show --dev $DEV1'
        self.assertTrue(problems(cmdUnderTest=flnl))
        self.assertEqual(problems(
            cmdUnderTest=flnl,
            category=['filter', 'flower', corpus.FLNL_CATEGORY]), [])
        self.assertTrue(problems(category=['flower', corpus.FLNL_CATEGORY]))

    def test_no_probe_in_a_namespace_case(self):
        # Upstream runs the probe in a namespace not made yet: the case
        # would always skip there, and with a scapy block end the run.
        flnl = dict(cmdUnderTest='$FLNL show --dev $DEV1',
                    category=['filter', 'flower', corpus.FLNL_CATEGORY])
        self.assertIn(corpus.PROBE_IN_NAMESPACE,
                      problems(dependsOn='$FLNL --help', **flnl))
        self.assertIn(corpus.PROBE_IN_NAMESPACE,
                      problems(dependsOn='$TC qdisc help'))
        # without nsPlugin the probe runs where upstream runs everything
        self.assertEqual(problems(dependsOn='$TC qdisc help',
                                  plugins={'requires': []}), [])

    def test_verify_fields_upstream_reads(self):
        c = case()
        del c['verifyCmd'], c['matchPattern'], c['matchCount']
        self.assertTrue(corpus.upstream_problems(c))
        c = case()
        del c['matchCount']
        self.assertTrue(corpus.upstream_problems(c))

    def test_json_output_wants_match_json(self):
        for verify in ('$TC -j filter show dev $DEV1 ingress',
                       '$TC -s -json filter show dev $DEV1 ingress',
                       '$FLNL show --dev $DEV1'):
            self.assertTrue(
                [p for p in problems(verifyCmd=verify) if 'JSON' in p],
                verify)
        self.assertEqual(problems(verifyCmd='$TC -s filter show dev $DEV1'),
                         [])
        # beside matchJSON, the pattern is for 6.1's tdc.py, which knows
        # no matchJSON (test_sixone_rules)
        self.assertEqual(problems(verifyCmd='$TC -j filter show dev $DEV1 '
                                  'ingress', matchJSON=[]), [])

    def test_plugins_and_scapy(self):
        self.assertTrue(problems(plugins={'requires': 'myPlugin'}))
        self.assertTrue(problems(scapy={'iface': '$DEV0', 'count': '1',
                                        'packet': 'Ether()'}))


class TestCorpus(unittest.TestCase):
    def test_every_case_upstream_can_run(self):
        found = []
        for path in corpus.case_files([TC_TESTS]):
            for c in corpus.load_file(path):
                found += ['{}: {}: {}'.format(os.path.relpath(path, TC_TESTS),
                                              c.get('id'), p)
                          for p in corpus.upstream_problems(c)]
        self.assertEqual(found, [], '\n'.join(found))

    def test_flnl_cases_are_few(self):
        cases = [c for path in corpus.case_files([TC_TESTS])
                 for c in corpus.load_file(path)]
        marked = [c for c in cases
                  if corpus.FLNL_CATEGORY in c.get('category', [])]
        self.assertTrue(marked)
        self.assertLess(len(marked), len(cases) / 20,
                        '%d of %d cases need $FLNL' % (len(marked),
                                                       len(cases)))


if __name__ == '__main__':
    unittest.main()
