# SPDX-License-Identifier: GPL-2.0
"""The model's netlink policy (flower/model.py check_policy()) where it
once disagreed with the kernel: an indev name longer than the policy's
IFNAMSIZ is ERANGE from the policy, before fl_set_key() could call it
too long (the stress fuzz of 7 Dec 2026: 10 of 8034 checks)."""

import errno
import unittest

from flower.model import Classifier
from flower.model_attrs import T_INDEV
from flower.model_attrs import Err


def policy_errno(data):
    try:
        Classifier.check_policy([(T_INDEV, data, None)])
    except Err as e:
        return e.args[0]
    return 0


class TestIndevPolicy(unittest.TestCase):
    def test_longer_than_ifnamsiz_is_the_policys_erange(self):
        self.assertEqual(policy_errno(b'lo' + b'\0' * 20), errno.ERANGE)
        self.assertEqual(policy_errno(b'x' * 17), errno.ERANGE)
        self.assertEqual(policy_errno(b'x' * 17 + b'\0'), errno.ERANGE)

    def test_sixteen_and_one_nul_pass_the_policy(self):
        # fl_set_key() then refuses it as too long (no room for the NUL)
        self.assertEqual(policy_errno(b'x' * 16), 0)
        self.assertEqual(policy_errno(b'x' * 16 + b'\0'), 0)
        self.assertEqual(policy_errno(b'lo\0'), 0)

    def test_empty_is_refused(self):
        self.assertEqual(policy_errno(b''), errno.ERANGE)


if __name__ == '__main__':
    unittest.main()
