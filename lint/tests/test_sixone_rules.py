# SPDX-License-Identifier: GPL-2.0
"""Every case in tc-tests/ is one that the tdc.py of linux-source-6.1
can run (lint/corpus.py sixone_problems()): it has matchPattern and
matchCount (6.1 reads them in every verify: KeyError), its pattern
checks what its matchJSON checks (6.1 ignores matchJSON), it has no key
6.1 ignores that changes the outcome (dependsOn), it makes the $DUMMY
6.1's nsPlugin does not make, and it cleans first and tears down what
it makes (6.1 runs every case in one namespace).  Before, the corpus
checker passed all of these, and under 6.1's tdc.py 2 of 741 cases
passed."""

import json
import os
import subprocess
import tempfile
import unittest

from lint import corpus, jsonpattern
from tdc import corpus as loader

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__))))
TC_TESTS = os.path.join(REPO, 'tc-tests')
CODES = list(corpus.CLEANUP_CODES)
INGRESS = '$TC qdisc add dev $DEV1 ingress'
CLEAN = ['$TC qdisc del dev $DEV1 ingress'] + CODES
SHOW = '$TC -j filter show dev $DEV1 ingress'
EXPECTED = [{}, {'options': {'handle': 1}}]


def case(**fields):
    base = {'id': 'ab12', 'name': 'x', 'category': ['filter', 'flower'],
            'seriesFamilies': ['core'],
            'plugins': {'requires': 'nsPlugin'},
            'setup': [CLEAN, INGRESS],
            'cmdUnderTest': '$TC filter add dev $DEV1 ingress protocol ip '
                            'prio 1 handle 1 flower',
            'expExitCode': '0', 'verifyCmd': SHOW, 'matchJSON': EXPECTED,
            'matchPattern': jsonpattern.pattern(EXPECTED),
            'matchCount': '1', 'teardown': [CLEAN]}
    base.update(fields)
    return base


def problems(**fields):
    c = case(**fields)
    for key in [k for k, v in fields.items() if v is None]:
        del c[key]
    return corpus.sixone_problems(c)


class TestVerifyFields(unittest.TestCase):
    def test_a_good_case_passes(self):
        self.assertEqual(problems(), [])

    def test_match_json_alone_is_refused(self):
        # 561 of 741 cases were like this: KeyError: 'matchPattern'
        found = problems(matchPattern=None, matchCount=None)
        self.assertIn("no matchPattern (6.1's tdc.py reads it in every "
                      "verify: KeyError)", found)
        self.assertIn("no matchCount (6.1's tdc.py reads it in every "
                      "verify: KeyError)", found)

    def test_a_pattern_that_checks_something_else_is_refused(self):
        self.assertTrue(problems(matchPattern=r'"handle":2'))
        self.assertTrue(problems(matchPattern=r'\A\['))
        self.assertTrue(problems(matchPattern=r'"handle"'))

    def test_exact_json_needs_the_exact_pattern(self):
        self.assertTrue(problems(matchJSONExact=True))
        self.assertEqual(problems(matchJSONExact=True,
                                  matchPattern=jsonpattern.pattern(
                                      EXPECTED, exact=True)), [])

    def test_keys_6_1_ignores(self):
        # dependsOn: 6.1 runs the case where ours skips it
        self.assertTrue([p for p in problems(
            plugins={'requires': []}, dependsOn='true') if 'dependsOn' in p])
        # timeout: 6.1 gives every command its TIMEOUT, the check is the
        # same
        self.assertEqual(problems(timeout=300), [])
        self.assertTrue(problems(notAKey=1))


class TestSharedNamespace(unittest.TestCase):
    def test_no_clean_first_is_refused(self):
        found = problems(setup=[INGRESS])
        self.assertEqual(len(found), 1, found)
        self.assertIn("removes without running it first", found[0])

    def test_no_teardown_is_refused(self):
        found = problems(teardown=[])
        self.assertEqual(len(found), 1, found)
        self.assertIn('teardown does not remove', found[0])

    def test_a_cleanup_must_allow_nothing_to_clean(self):
        # a plain "$TC qdisc del dev $DEV1 ingress" fails (exit 2) where
        # the command under test deleted it, and 6.1 then skips the rest
        self.assertTrue(problems(teardown=['$TC qdisc del dev $DEV1 '
                                           'ingress']))
        self.assertTrue(problems(setup=[CLEAN[:2], INGRESS]))

    def test_dummy_must_be_made(self):
        dummy = ['$IP link del $DUMMY'] + CODES
        uses = dict(cmdUnderTest='$TC qdisc add dev $DUMMY ingress',
                    teardown=[CLEAN, dummy])
        found = problems(**uses)
        self.assertTrue([p for p in found if '$DUMMY' in p], found)
        self.assertEqual(problems(setup=[
            dummy, CLEAN, '$IP link add $DUMMY type dummy',
            '$IP link set $DUMMY up', INGRESS], **uses), [])

    def test_cleanups(self):
        self.assertEqual(corpus.cleanups([
            INGRESS, '$TC qdisc add dev $DEV1 root handle 1: htb',
            '$TC qdisc add dev $DEV1 ingress_block 7 clsact',
            '$IP link add fla type veth peer name flb',
            '$TC qdisc add dev flb ingress',     # on a link made here
            '$IP addr add 10.9.0.1/24 dev $DEV1',
            '$IP addr add 2001:db8::1/64 dev fla nodad',
            '$IP link add dev vx0 type vxlan external dstport 4789',
            ['$TC actions add action gact drop index 5', 0],
            '$TC filter add dev $DEV1 ingress protocol ip flower',
            '$TC qdisc add dev fla parent 1:10 handle 10: prio']), [
            '$TC qdisc del dev $DEV1 ingress',
            '$TC qdisc del dev $DEV1 root',
            '$TC qdisc del dev $DEV1 clsact',
            '$IP link del fla',
            '$IP addr del 10.9.0.1/24 dev $DEV1',
            '$IP link del vx0',
            '$TC actions del action gact index 5'])


class TestOffloadDriver(unittest.TestCase):
    LOAD = [corpus.OFFLOAD_LOAD, 0, 1]

    def test_the_driver_is_loaded_by_its_one_command(self):
        self.assertEqual(problems(setup=[self.LOAD, CLEAN, INGRESS]), [])
        self.assertTrue(loader.needs_offload_driver(case(
            setup=[self.LOAD, CLEAN, INGRESS])))
        self.assertFalse(loader.needs_offload_driver(case()))

    def test_another_insmod_is_refused(self):
        # 6.1's tdc.py runs from its own directory: exit 1 (the path is
        # not there) must be allowed, and tdc61.py loads only this driver
        for load in ([corpus.OFFLOAD_LOAD, 0], corpus.OFFLOAD_LOAD,
                     ['insmod /tmp/other.ko', 0, 1]):
            found = problems(setup=[load, CLEAN, INGRESS])
            self.assertEqual(len(found), 1, (load, found))
            self.assertIn('a module is loaded only as', found[0])


class TestChecker(unittest.TestCase):
    def test_the_checker_program_refuses_a_json_only_case(self):
        # the corpus stage of the gate: it passed such a case before
        good = case()
        bad = case(id='cd34', cmdUnderTest='$TC filter add dev $DEV1 '
                   'ingress protocol ip prio 2 handle 1 flower')
        del bad['matchPattern'], bad['matchCount']
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, 'filters', 'flower', 'a.json')
            os.makedirs(os.path.dirname(path))
            with open(path, 'w') as f:
                json.dump([good, bad], f)
            run = subprocess.run(
                ['/usr/bin/python3', '-m', 'lint.corpus', '--min-flower', '1',
                 '--min-packets', '0', tmp], cwd=REPO, capture_output=True,
                text=True)
        self.assertEqual(run.returncode, 1, run.stdout)
        self.assertIn('cd34: 6.1: no matchPattern', run.stdout)
        self.assertNotIn('ab12', run.stdout)
        self.assertEqual(run.stdout.splitlines()[-1], '2 passed, 1 failed')

    def test_every_case_6_1_can_run(self):
        found = []
        for path in corpus.case_files([TC_TESTS]):
            for c in corpus.load_file(path):
                found += ['{}: {}: {}'.format(os.path.relpath(path, TC_TESTS),
                                              c.get('id'), p)
                          for p in corpus.sixone_problems(c)]
        self.assertEqual(found, [], '\n'.join(found[:20]))


if __name__ == '__main__':
    unittest.main()
