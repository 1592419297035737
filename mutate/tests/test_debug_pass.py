"""Which results the debug pass (mutate.run --debug) takes."""
import json
import os
import tempfile
import unittest
from unittest import mock

from mutate import modules, run

WORKLOAD = 'a' * 64     # the digest debug_pass() computed once


def result(verdict='survived', order=None, oracles=(), workload=None):
    return {'id': 'm0001', 'verdict': verdict,
            'order': order if order is not None else run.ORACLES.split(','),
            'oracles': [dict({'name': o}, **({'workload': workload} if o == 'debug'
                                            else {})) for o in oracles]}


class TestNeedsDebug(unittest.TestCase):
    def test_a_survivor_of_every_oracle(self):
        self.assertTrue(run.needs_debug(result(oracles=run.ORACLES.split(',')), WORKLOAD))

    def test_not_a_partial_one(self):
        # passed a shortened run only: the normal kernel's oracles first
        self.assertFalse(run.needs_debug(result(order=['difftest']), WORKLOAD))

    def test_not_killed_ones(self):
        self.assertFalse(run.needs_debug(result('killed'), WORKLOAD))
        self.assertFalse(run.needs_debug(result('stillborn'), WORKLOAD))

    def test_only_once(self):
        self.assertFalse(run.needs_debug(result(
            oracles=run.ORACLES.split(',') + ['debug'], workload=WORKLOAD), WORKLOAD))

    def test_again_when_the_workload_changed(self):
        # session 11 added failslab to leakcheck.py: m0378 dies there only
        for old in (None, '0' * 64):
            self.assertTrue(run.needs_debug(result(
                oracles=run.ORACLES.split(',') + ['debug'], workload=old), WORKLOAD))


class TestDebugPass(unittest.TestCase):
    def test_a_new_workload_replaces_the_old_run(self):
        doc = {'commit': 'c' * 40, 'mutants': [{'id': 'm0001', 'op': 'op', 'line': 1}]}
        with tempfile.TemporaryDirectory() as tmp:
            results = os.path.join(tmp, 'results')
            old = dict(result(oracles=run.ORACLES.split(',') + ['debug'], workload='old'),
                       commit=doc['commit'], killer=None)
            run.write_result(results, doc, old)
            run.write_result(results, doc, dict(old, id='m0002'))
            ran = {'m0001': {'verdict': 'killed', 'killer': None, 'why': '3 leaks',
                             'oracles': [{'name': 'debug', 'ok': False, 'why': '3 leaks'}]}}
            with mock.patch.object(run, 'run_ids', return_value=ran) as ri, \
                    mock.patch.object(run, 'baseline', return_value={'25cd': 'not ok'}), \
                    mock.patch.object(run.report, 'load_notes',
                                      return_value={'m0002': 'equivalent because'}), \
                    mock.patch.object(run, 'log'):
                run.debug_pass(tmp, results, doc)
            # m0002 is argued equivalent: not run
            self.assertEqual(ri.call_args[0][3], ['m0001'])
            # the packet cases there leave out what fails on m0000 too
            self.assertEqual(ri.call_args[1]['exclude'], {'25cd': 'not ok'})
            with open(os.path.join(results, 'm0001.json')) as f:
                r = json.load(f)
        debug = [o for o in r['oracles'] if o['name'] == 'debug']
        self.assertEqual(debug, [{'name': 'debug', 'ok': False, 'why': '3 leaks',
                                  'workload': run.debug_workload()}])
        self.assertEqual((r['verdict'], r['killer']), ('killed', 'debug'))


class TestDebugBuild(unittest.TestCase):
    def test_debug_modules_have_a_pattern_filled_stack(self):
        self.assertIn('-ftrivial-auto-var-init=pattern', modules.kbuild(modules.DEBUG_OBJ))
        self.assertNotIn('auto-var-init', modules.kbuild(modules.OURS_OBJ))

    def test_a_module_built_with_other_flags_is_built_again(self):
        with tempfile.TemporaryDirectory() as work:
            os.makedirs(os.path.join(work, 'm0001'))
            for name, text in (('cls_flower.c', 'src'), ('cls_flower.ko', ''),
                               ('Kbuild', 'obj-m := cls_flower.o\n')):
                with open(os.path.join(work, 'm0001', name), 'w') as f:
                    f.write(text)
            self.assertTrue(modules.built(work, 'm0001', 'src', modules.OURS_OBJ))
            self.assertFalse(modules.built(work, 'm0001', 'src', modules.DEBUG_OBJ))
            self.assertFalse(modules.built(work, 'm0001', 'other', modules.OURS_OBJ))


if __name__ == '__main__':
    unittest.main()
