# SPDX-License-Identifier: GPL-2.0
"""The model of fl_change() against its pins (flower/tests/model_pins.py):
every prediction of the sample as it was pinned."""

import unittest

from flower.tests import model_pins


class TestPins(unittest.TestCase):
    def test_predictions_as_pinned(self):
        want = model_pins.load()
        got = model_pins.compute()
        for part in ('difftest', 'refusals', 'fuzz'):
            w, g = want[part], got[part]
            self.assertEqual(len(w), len(g), part)
            bad = [i for i, (a, b) in enumerate(zip(w, g))
                   if a != model_pins.canon(b)]
            self.assertEqual(bad[:1], [], '%s: %d of %d differ; the first: '
                             'pinned %r, now %r' % (
                                 part, len(bad), len(w), bad and w[bad[0]],
                                 bad and g[bad[0]]))


if __name__ == '__main__':
    unittest.main()
