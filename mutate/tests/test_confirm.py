"""Kills are confirmed (mutate/kills.py run_ids(), confirm()): the oracle that
failed runs again and must fail again, m0000 must pass every oracle of the
same run, timeouts and stalls are inconclusive; and the gate profile's
oracles.  Guests are fakes."""
import json
import os
import subprocess
import tempfile
import unittest
from unittest import mock

from mutate import guests, inguest, kills, modules, report, run

DOC = {'commit': 'c' * 40, 'mutants': [
    {'id': 'm%04d' % i, 'op': 'op', 'line': i} for i in range(1, 6)]}
ORDER = 'difftest,packets,selftests,corpus'


def passed(mid, order):
    return {'id': mid, 'verdict': 'survived', 'killer': None, 'order': order,
            'oracles': [{'name': o, 'ok': True, 'seconds': 1} for o in order]}


def failed(mid, order, killer, timeout=False, splat=None, why='x failed'):
    os_ = []
    for o in order:
        if o == killer:
            r = {'name': o, 'ok': False, 'why': why, 'timeout': timeout}
            if splat:
                r['splat'] = splat
            os_.append(r)
            break
        os_.append({'name': o, 'ok': True})
    return {'id': mid, 'verdict': 'killed', 'killer': killer, 'why': why,
            'order': order, 'oracles': os_}


class FakeGuests:
    """guest_round(): plan[(round number, id)] -> a function of the order
    giving that id's result (default: it passes); records the calls."""

    def __init__(self, plan):
        self.plan, self.calls = plan, []

    def __call__(self, work, ids, order, tag, variant='ours', exclude=()):
        self.calls.append((list(ids), order, tag))
        n = len(self.calls)
        o = [x for x in order.split(',') if x]
        out = {}
        for i in ids:
            f = self.plan.get((n, i))
            out[i] = f(i, o) if f else passed(i, o)
            out[i]['guest'] = tag
        return out


class TestAttempt(unittest.TestCase):
    O = ORDER.split(',')

    def test_fail(self):
        a = kills.attempt(failed('m0001', self.O, 'packets'), self.O)
        self.assertEqual((a['outcome'], a['oracle']), ('fail', 'packets'))

    def test_timeout_is_inconclusive(self):
        a = kills.attempt(failed('m0001', self.O, 'corpus', timeout=True), self.O)
        self.assertEqual(a['outcome'], 'inconclusive')

    def test_stall_lines_are_inconclusive(self):
        for line in ('rcu: INFO: rcu_sched detected stalls on CPUs/tasks:',
                     'INFO: task tdc.py:123 blocked for more than 120 seconds.',
                     'watchdog: BUG: soft lockup - CPU#1 stuck for 22s!',
                     'rcu: INFO: rcu_sched self-detected stall on CPU'):
            r = failed('m0001', self.O, 'selftests', splat=['Call Trace:', line],
                       why='kernel splat: ' + line)
            self.assertEqual(kills.attempt(r, self.O)['outcome'], 'inconclusive', line)
        # a real oops is a failure, even with a stall after it
        r = failed('m0001', self.O, 'packets', splat=[
            'BUG: kernel NULL pointer dereference, address: 0000000000000008',
            'rcu: INFO: rcu_sched detected stalls on CPUs/tasks:'])
        self.assertEqual(kills.attempt(r, self.O)['outcome'], 'fail')

    def test_crash(self):
        with tempfile.TemporaryDirectory() as d:
            start = os.path.join(d, 'm0001.start')
            with open(start, 'w') as f:
                f.write('packets\n')
            p = subprocess.CompletedProcess([], 143, '', '')
            with open(os.path.join(d, 'console.log'), 'w') as f:
                f.write('boot\n[ 12.0] BUG: unable to handle page fault for address: 8\n'
                        '[ 12.1] Call Trace:\n')
            r = guests.crash_result('m0001', p, d, start)
            self.assertIn('BUG: unable to handle page fault', r['why'])
            self.assertIn('during packets', r['why'])
            a = kills.attempt(r, self.O)
            self.assertEqual((a['outcome'], a['oracle']), ('fail', 'packets'))
            # a death with no splat: the console's tail as the reason, inconclusive
            with open(os.path.join(d, 'console.log'), 'w') as f:
                f.write('boot\nok 12 - 1f35 Packets: icmp\n')
            r = guests.crash_result('m0001', p, d, start)
            self.assertIn('no kernel splat; console tail: boot / ok 12 - 1f35', r['why'])
            self.assertNotIn('no reason', r['why'])
            self.assertEqual(kills.attempt(r, self.O)['outcome'], 'inconclusive')
            # a stall on the console: inconclusive too
            with open(os.path.join(d, 'console.log'), 'w') as f:
                f.write('rcu: INFO: rcu_sched detected stalls on CPUs/tasks:\n')
            r = guests.crash_result('m0001', p, d, start)
            self.assertEqual(kills.attempt(r, self.O)['outcome'], 'inconclusive')

    def test_rerun_order(self):
        self.assertEqual(kills.rerun_order({'oracle': 'selftests'}, self.O), 'selftests')
        self.assertEqual(kills.rerun_order({'oracle': 'insmod'}, self.O), '')
        self.assertEqual(kills.rerun_order({'oracle': 'rmmod'}, self.O), ORDER)


class TestRunIds(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.results = os.path.join(self.tmp.name, 'results')

    def run_ids(self, plan, ids=('m0000', 'm0001', 'm0002', 'm0003', 'm0004')):
        g = FakeGuests(plan)
        with mock.patch.object(modules, 'build', return_value={}), \
                mock.patch.object(guests, 'guest_round', g), \
                mock.patch.object(guests, 'log'), mock.patch.object(kills, 'log'):
            got = kills.run_ids(self.tmp.name, self.results, DOC, list(ids), ORDER, 't')
        return got, g.calls

    def saved(self, mid):
        with open(os.path.join(self.results, mid + '.json')) as f:
            return json.load(f)

    def test_confirmation(self):
        got, calls = self.run_ids({
            # first run: m0001 and m0002 fail packets, m0003 times out in corpus
            (1, 'm0001'): lambda i, o: failed(i, o, 'packets'),
            (1, 'm0002'): lambda i, o: failed(i, o, 'packets'),
            (1, 'm0003'): lambda i, o: failed(i, o, 'corpus', timeout=True),
            # the confirmation: m0001 fails again, m0002 passes
            (2, 'm0001'): lambda i, o: failed(i, o, 'packets'),
        })
        # m0000 first in the first guest; one confirmation guest, packets only
        self.assertEqual(calls[0][0][0], 'm0000')
        self.assertEqual(calls[1][:2], (['m0001', 'm0002'], 'packets'))
        self.assertEqual(len(calls), 2)
        m1, m2, m3, m4 = (self.saved(i) for i in ('m0001', 'm0002', 'm0003', 'm0004'))
        # fail then fail: confirmed, both attempts kept
        self.assertEqual((m1['verdict'], m1['confirmed']), ('killed', True))
        self.assertEqual([a['outcome'] for a in m1['attempts']], ['fail', 'fail'])
        self.assertEqual(m1['attempts'][1]['guest'], 't-confirm1-1')
        self.assertEqual(m1['control_passed']['oracles'], ORDER.split(','))
        # fail then pass: a kill, not confirmed
        self.assertEqual((m2['verdict'], m2['confirmed']), ('killed', False))
        self.assertEqual([a['outcome'] for a in m2['attempts']], ['fail', 'pass'])
        self.assertIn('NOT confirmed', m2['why'])
        # a timeout: inconclusive, not a kill
        self.assertEqual((m3['verdict'], m3['confirmed']), ('inconclusive', False))
        self.assertEqual(m4['verdict'], 'survived')
        self.assertTrue(self.saved('m0000')['control'])

    def test_blocks(self):
        # CHUNK mutants at a time, each block confirmed and written before
        # the next; m0000 only in the first, and named in every result
        with mock.patch.object(guests, 'CHUNK', 2):
            got, calls = self.run_ids({
                (1, 'm0001'): lambda i, o: failed(i, o, 'packets'),
                (2, 'm0001'): lambda i, o: failed(i, o, 'packets'),
                (3, 'm0003'): lambda i, o: failed(i, o, 'selftests'),
                (4, 'm0003'): lambda i, o: failed(i, o, 'selftests')})
        self.assertEqual([c[0] for c in calls], [['m0000', 'm0001'], ['m0001'],
                                                 ['m0002', 'm0003'], ['m0003'], ['m0004']])
        self.assertEqual([c[1] for c in calls][1:4], ['packets', ORDER, 'selftests'])
        self.assertTrue(got['m0003']['confirmed'])
        self.assertEqual(self.saved('m0004')['control_passed']['guest'], 't-b1-1')

    def test_other_oracle_second_time_is_not_confirmed(self):
        self.run_ids({(1, 'm0001'): lambda i, o: failed(i, o, 'packets'),
                      (2, 'm0001'): lambda i, o: failed(i, o, 'packets', timeout=True)})
        m1 = self.saved('m0001')
        self.assertFalse(m1['confirmed'])
        self.assertEqual(m1['attempts'][1]['outcome'], 'inconclusive')

    def test_control_failure_aborts(self):
        for bad in (lambda i, o: failed(i, o, 'selftests'),
                    lambda i, o: failed(i, o, 'corpus', timeout=True),
                    lambda i, o: dict(passed(i, o), oracles=[])):
            with self.assertRaises(kills.ControlFailed) as cm:
                self.run_ids({(1, 'm0000'): bad,
                              (1, 'm0001'): lambda i, o: failed(i, o, 'packets')})
            self.assertIn('m0000', str(cm.exception))
            # nothing of the run is kept: no kill of it means anything
            self.assertFalse(os.path.exists(self.results) and os.listdir(self.results))

    def test_main_aborts_loudly(self):
        with mock.patch.object(run, 'plan', return_value=DOC), \
                mock.patch.object(run, 'measured', return_value='h' * 40), \
                mock.patch.object(run, 'baseline', return_value={}), \
                mock.patch.object(run, 'difftest_ref'), \
                mock.patch.object(run, 'BUILD', self.tmp.name), \
                mock.patch.object(run, 'run_ids',
                                  side_effect=run.ControlFailed('m0000 killed by packets')), \
                mock.patch.object(run, 'log'), \
                self.assertRaises(SystemExit) as cm:
            run.main(['--ids', 'm0001'])
        self.assertIn('ABORT', str(cm.exception))

    def test_sample_wants_confirmed_kills(self):
        picks = []
        for op, before, after, *func in run.SAMPLE:
            picks.append({'id': 'm%04d' % (len(picks) + 1), 'op': op, 'line': 1,
                          'before': before, 'after': after,
                          'func': (func or ['fl_x'])[0]})
        # the same line in another function is not picked
        twin = dict(picks[-1], id='m0009', func='fl_insert')
        doc = {'commit': 'c' * 40, 'mutants': picks + [twin]}
        got = {'m0000': dict(passed('m0000', ['packets-sample']), control=True),
               'm0001': dict(failed('m0001', ['packets-sample'], 'packets-sample'),
                             confirmed=True),
               'm0002': dict(failed('m0002', ['packets-sample'], 'packets-sample'),
                             confirmed=True),
               'm0003': dict(failed('m0003', ['packets-sample'], 'packets-sample'),
                             confirmed=False),
               'm0004': dict(failed('m0004', ['packets-sample', 'cache'],
                                    'cache'), confirmed=True)}
        with mock.patch.object(run, 'plan', return_value=doc), \
                mock.patch.object(run, 'BUILD', self.tmp.name), \
                mock.patch.object(run, 'run_ids', return_value=got), \
                mock.patch('builtins.print') as pr:
            self.assertEqual(run.sample(), 1)
        lines = [c.args[0] for c in pr.call_args_list]
        self.assertEqual(lines[-1], '4 passed, 1 failed')
        self.assertTrue(lines[3].startswith('FAIL   m0003'))
        with mock.patch.object(run, 'plan', return_value=doc), \
                mock.patch.object(run, 'BUILD', self.tmp.name), \
                mock.patch.object(run, 'run_ids', side_effect=run.ControlFailed('m0000 x')), \
                mock.patch('builtins.print') as pr:
            self.assertEqual(run.sample(), 1)
        self.assertEqual(pr.call_args_list[-1].args[0], '0 passed, 1 failed')


class TestGateProfile(unittest.TestCase):
    def test_summary_judge(self):
        """The cache oracle's judge: a last line with nothing failed and
        something passed, and exit 0."""
        self.assertEqual(inguest.summary_ok(0, 'x\n5 passed, 0 failed\n'),
                         (True, '5 passed'))
        for rc, out in ((0, 'FAIL  step 3: got {}\n4 passed, 1 failed\n'),
                        (0, '0 passed, 0 failed\n'), (1, '5 passed, 0 failed'),
                        (0, 'Traceback\n')):
            self.assertFalse(inguest.summary_ok(rc, out)[0], out)
        self.assertIn('FAIL  step 3', inguest.summary_ok(
            0, 'FAIL  step 3: got {}\n4 passed, 1 failed\n')[1])

    def test_oracle_list(self):
        self.assertEqual(run.oracle_order('gate'), 'difftest-gate,packets,cache,selftests,corpus')
        self.assertEqual(report.GATE_ORACLES, ['difftest-gate', 'packets', 'cache',
                                               'selftests', 'corpus'])
        self.assertEqual(run.oracle_order('packets'), 'packets')
        specs = inguest.oracles('/tmp/out', 'm0001')
        self.assertTrue(set(report.GATE_ORACLES) <= set(specs))
        cmds, judge, _ = specs['difftest-gate']
        runner, compare = cmds
        self.assertEqual(runner[1:3], ['-m', 'difftest.runner'])
        self.assertIn(inguest.DT_GATE + '/smoke.json', runner)
        # compare.py as the gate's make difftest-smoke DT_STOCK=stock-next
        self.assertEqual(compare[1:3], ['-m', 'difftest.compare'])
        for a in ('--cover', '--final'):
            self.assertIn(a, compare)
        self.assertEqual(compare[compare.index('--stock-name') + 1], 'stock-next')
        self.assertEqual(compare[compare.index('--stock') + 1],
                         inguest.DT_GATE + '/smoke-stock-next.json')
        self.assertEqual(compare[compare.index('--min-verdicts') + 1], '10000')
        self.assertIs(judge, inguest.compare_ok)

    def test_compare_judge(self):
        self.assertTrue(inguest.compare_ok(0, 'difftest: ...\n21300 passed, 0 failed\n')[0])
        ok, why = inguest.compare_ok(
            1, 'divergence [strict, fails: stock bug] batch 0 filter 3: x\n21299 passed, 1 failed\n')
        self.assertFalse(ok)
        self.assertIn('divergence [strict', why)
        self.assertFalse(inguest.compare_ok(1, 'difftest: FAIL: ours accepted no filter\n'
                                               '0 passed, 1 failed\n')[0])
        self.assertFalse(inguest.compare_ok(0, 'Traceback\n')[0])

    def test_runs_the_campaigns_kills(self):
        with tempfile.TemporaryDirectory() as d:
            camp = os.path.join(d, 'camp')
            os.makedirs(camp)
            for r in (failed('m0001', ['packets'], 'packets'), passed('m0002', ORDER.split(',')),
                      dict(failed('m0003', ['corpus'], 'corpus'), verdict='inconclusive'),
                      failed('m0004', ['difftest'], 'difftest'), passed('m0000', [])):
                r['commit'] = DOC['commit']
                with open(os.path.join(camp, r['id'] + '.json'), 'w') as f:
                    json.dump(r, f)
            self.assertEqual(run.campaign_killed([camp], DOC['commit']), ['m0001', 'm0004'])
            a = run.main.__globals__['argparse'].Namespace(
                results=os.path.join(d, 'gate'), ids=None, from_=[camp], limit=None,
                dt_seed='7', shard='1/1')
            with mock.patch.object(run, 'gate_difftest_ref') as ref, \
                    mock.patch.object(run, 'baseline', return_value={'25cd': 'x'}), \
                    mock.patch.object(run, 'run_ids', return_value={}) as ri, \
                    mock.patch.object(run, 'log'):
                run.gate_profile(a, d, DOC)
            ref.assert_called_once_with('7')
            (work, results, doc, ids, order, tag), kw = ri.call_args
            self.assertEqual(ids, ['m0000', 'm0001', 'm0004'])
            self.assertEqual(order, 'difftest-gate,packets,cache,selftests,corpus')
            self.assertEqual(results, os.path.join(d, 'gate'))
            self.assertEqual(kw['exclude'], {'25cd': 'x'})


if __name__ == '__main__':
    unittest.main()
