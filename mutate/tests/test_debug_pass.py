"""Which results the debug pass (mutate.run --debug) takes."""
import unittest

from mutate import run


def result(verdict='survived', order=None, oracles=()):
    return {'id': 'm0001', 'verdict': verdict,
            'order': order if order is not None else run.ORACLES.split(','),
            'oracles': [{'name': o} for o in oracles]}


class TestNeedsDebug(unittest.TestCase):
    def test_a_survivor_of_every_oracle(self):
        self.assertTrue(run.needs_debug(result(oracles=run.ORACLES.split(','))))

    def test_not_a_partial_one(self):
        # passed a shortened run only: the normal kernel's oracles first
        self.assertFalse(run.needs_debug(result(order=['difftest'])))

    def test_not_killed_ones(self):
        self.assertFalse(run.needs_debug(result('killed')))
        self.assertFalse(run.needs_debug(result('stillborn')))

    def test_only_once(self):
        self.assertFalse(run.needs_debug(result(
            oracles=run.ORACLES.split(',') + ['debug'])))


if __name__ == '__main__':
    unittest.main()
