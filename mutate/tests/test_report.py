"""mutate/report.py: merging shards' results into the summary."""
import json
import os
import tempfile
import unittest

from mutate import report

PLAN = {'commit': 'c1', 'path': 'kernel/net/sched/cls_flower.c', 'mutants': [
    {'id': 'm%04d' % i, 'op': 'negate', 'line': i, 'func': 'fl_classify',
     'before': 'a == b', 'after': 'a != b'} for i in range(1, 7)]}


def result(mid, verdict, killer=None, commit='c1'):
    return {'id': mid, 'verdict': verdict, 'killer': killer, 'commit': commit,
            'why': 'x | y', 'oracles': [{'name': 'packets', 'ok': True, 'seconds': 50}]}


class TestReport(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def shard(self, name, results):
        d = os.path.join(self.tmp.name, name)
        os.makedirs(d)
        for r in results:
            with open(os.path.join(d, r['id'] + '.json'), 'w') as f:
                json.dump(r, f)
        return d

    def test_merge_shards(self):
        a = self.shard('1', [result('m0001', 'killed', 'packets'),
                             result('m0003', 'survived'),
                             result('m0005', 'stillborn')])
        b = self.shard('2', [result('m0002', 'killed', 'corpus'),
                             result('m0004', 'survived'),
                             result('m0006', 'killed', 'crash', commit='other')])
        got, other = report.load_results([a, b], 'c1')
        self.assertEqual(sorted(got), ['m0001', 'm0002', 'm0003', 'm0004', 'm0005'])
        self.assertEqual(other, 1)
        s = report.summarize(PLAN, got, {'m0004': 'same code'})
        self.assertEqual((s['ran'], s['not run'], s['stillborn'], s['killed'],
                          s['survived'], s['equivalent']), (5, 1, 1, 2, 1, 1))
        self.assertEqual((s['killed by packets'], s['killed by corpus'], s['killed by crash']),
                         (1, 1, 0))
        # the equivalent one is out of the rate; the stillborn one too
        self.assertAlmostEqual(s['kill rate'], 2 / 3)

    def test_two_verdicts_refused(self):
        a = self.shard('1', [result('m0001', 'killed', 'packets')])
        b = self.shard('2', [result('m0001', 'survived')])
        with self.assertRaises(SystemExit):
            report.load_results([a, b], 'c1')

    def test_render(self):
        got = {'m0001': result('m0001', 'killed', 'packets'),
               'm0002': result('m0002', 'survived'), 'm0003': result('m0003', 'survived')}
        text, s = report.render(PLAN, got, 0, {'m0002': 'the compare is symmetric'},
                                {'m0003': 'a case with two masks would kill it'})
        self.assertIn('**3 of the 6 planned mutants have run**', text)
        self.assertIn('equivalent: the compare is symmetric', text)
        self.assertIn('NOT equivalent: a case with two masks would kill it', text)
        rows = [ln for ln in text.splitlines() if ln.startswith('| m0')]
        self.assertEqual(len(rows), 7)          # m0000 and the six planned
        self.assertIn('| m0001 | negate | 1 | `a == b` | `a != b` | killed, not confirmed | packets: x \\| y |', rows)
        self.assertIn('| m0006 | negate | 6 | `a == b` | `a != b` | not run |  |', rows)

    def test_cases_left_out_are_named(self):
        got = {'m0001': dict(result('m0001', 'killed', 'corpus'), exclude=['25cd']),
               'm0002': result('m0002', 'survived')}
        text, _ = report.render(PLAN, got, 0, {}, {})
        self.assertIn('left out, because they fail on the unmutated source too', text)
        self.assertIn('`25cd`, in the runs of 1 mutants', text)
        text, _ = report.render(PLAN, {'m0002': result('m0002', 'survived')}, 0, {}, {})
        self.assertNotIn('left out', text)

    def test_closed_holes(self):
        # a survivor once (its analysis stays), killed now: listed as a
        # hole closed; a survivor with an analysis is not
        got = {'m0001': result('m0001', 'killed', 'debug'),
               'm0002': result('m0002', 'survived')}
        text, _ = report.render(PLAN, got, 0, {},
                                {'m0001': 'a leak only kmemleak sees',
                                 'm0002': 'no case has two masks'})
        closed = text.split('## Holes found and closed')[1].split('## ')[0]
        self.assertIn('**m0001**', closed)
        self.assertIn('killed by debug', closed)
        self.assertIn('a leak only kmemleak sees', closed)
        self.assertNotIn('m0002', closed)
        text, _ = report.render(PLAN, {'m0002': result('m0002', 'survived')}, 0,
                                {}, {'m0002': 'no case has two masks'})
        self.assertNotIn('## Holes found and closed', text)


class TestTwoScores(unittest.TestCase):
    """The campaign's score and the gate's, out of the non-equivalent
    mutants that compiled; confirmed and inconclusive apart."""

    def test_scores(self):
        def r(mid, v, confirmed=False, measured='a' * 40, killer='packets'):
            x = result(mid, v, killer if v != 'survived' else None)
            x.update(confirmed=confirmed, measured=measured)
            return x
        camp = {'m0001': r('m0001', 'killed', True), 'm0002': r('m0002', 'killed'),
                'm0003': r('m0003', 'inconclusive', killer='corpus'),
                'm0004': r('m0004', 'survived'), 'm0005': r('m0005', 'survived'),
                'm0006': r('m0006', 'stillborn')}
        eq = {'m0005': 'same code'}
        s = report.score(PLAN, camp, eq)
        self.assertEqual({k: s[k] for k in ('killed', 'confirmed', 'inconclusive',
                                            'survived', 'not run', 'out of')},
                         {'killed': 2, 'confirmed': 1, 'inconclusive': 1,
                          'survived': 1, 'not run': 0, 'out of': 4})
        self.assertEqual(s['measured'], ['a' * 40])
        # the gate reran m0001 and m0002 (m0003 not yet); m0004 survived
        # the campaign: a survivor for the gate too
        gate = {'m0001': r('m0001', 'killed', True, 'b' * 40),
                'm0002': r('m0002', 'survived', measured='b' * 40)}
        g = report.score(PLAN, gate, eq, rerun=camp)
        self.assertEqual({k: g[k] for k in ('killed', 'confirmed', 'inconclusive',
                                            'survived', 'not run', 'out of')},
                         {'killed': 1, 'confirmed': 1, 'inconclusive': 0,
                          'survived': 2, 'not run': 1, 'out of': 4})
        self.assertEqual(g['measured'], ['b' * 40])
        text, _ = report.render(PLAN, camp, 0, eq, {}, gate=gate)
        self.assertIn('## Two scores', text)
        self.assertIn('| campaign | 2 (50.0%) | 1 (25.0%) | 1 | 1 | 0 | 4 | `aaaaaaaaaaaa` |',
                      text)
        self.assertIn('| gate | 1 (25.0%) | 1 (25.0%) | 0 | 2 | 1 | 4 | `bbbbbbbbbbbb` |', text)
        self.assertIn('| m0003 | negate | 3 | `a == b` | `a != b` | inconclusive |', text)
        # no gate run yet: said so
        text, _ = report.render(PLAN, camp, 0, eq, {})
        self.assertIn('| gate | - | - | - | - | - | - | not run yet |', text)
        s = report.summarize(PLAN, camp, eq)
        self.assertEqual((s['killed'], s['confirmed'], s['inconclusive'], s['survived']),
                         (2, 1, 1, 1))

    def test_gate_first_hand(self):
        """make mutate-gate SHARD=K/N: mutants the campaign never ran count
        by the gate's own results; stillborn and equivalent ones do not."""
        def r(mid, v, confirmed=False):
            x = result(mid, v, 'packets' if v == 'killed' else None)
            x.update(confirmed=confirmed, measured='b' * 40)
            return x
        gate = {'m0001': r('m0001', 'killed', True), 'm0002': r('m0002', 'killed'),
                'm0003': r('m0003', 'survived'), 'm0004': r('m0004', 'survived'),
                'm0005': r('m0005', 'stillborn')}
        g = report.score(PLAN, gate, {'m0004': 'same code'}, rerun={})
        self.assertEqual({k: g[k] for k in ('killed', 'confirmed', 'survived',
                                            'not run', 'out of')},
                         {'killed': 2, 'confirmed': 1, 'survived': 1,
                          'not run': 0, 'out of': 3})


if __name__ == '__main__':
    unittest.main()
