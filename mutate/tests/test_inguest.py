"""mutate/inguest.py's kill criteria, on outputs of the real tools."""
import json
import os
import unittest

from mutate import inguest

HERE = os.path.dirname(os.path.realpath(__file__))


class TestJudges(unittest.TestCase):
    def test_tdc(self):
        self.assertTrue(inguest.tdc_ok(0, 'ok 1 - a\n145 passed, 0 failed, 0 skipped\n')[0])
        self.assertFalse(inguest.tdc_ok(1, '127 passed, 18 failed, 0 skipped\n')[0])
        # a skip is a failure (as in the gate), and so is no summary or nothing run
        self.assertFalse(inguest.tdc_ok(0, '144 passed, 0 failed, 1 skipped\n')[0])
        self.assertFalse(inguest.tdc_ok(0, 'Traceback ...\n')[0])
        self.assertFalse(inguest.tdc_ok(0, '0 passed, 0 failed, 0 skipped\n')[0])

    def test_debug(self):
        # leakcheck.py, then tdc.py on the packet cases: both must pass
        clean = 'leakcheck: 75 faults injected\nleakcheck: 0 unreferenced objects\n'
        tdc = 'ok 1 - a\n145 passed, 0 failed, 0 skipped\n'
        self.assertTrue(inguest.debug_ok(0, clean + tdc)[0])
        # m0306 on a pattern-filled stack: the leaks are fine, 14 cases fail
        self.assertFalse(inguest.debug_ok(1, clean + '131 passed, 14 failed, 0 skipped\n')[0])
        ok, why = inguest.debug_ok(1, 'leakcheck: 3 unreferenced objects\nunreferenced object 0xff\n')
        self.assertEqual((ok, why), (False, 'leakcheck: 3 unreferenced objects'))
        self.assertFalse(inguest.debug_ok(1, 'Traceback ...\n')[0])
        # leakcheck alone (the packet cases never ran) is not a pass
        self.assertFalse(inguest.debug_ok(0, clean)[0])

    def test_selftests(self):
        ok = 'TEST: dst_mac match (skip_hw)          [ OK ]\n'
        self.assertTrue(inguest.selftests_ok(0, ok * 3)[0])
        self.assertFalse(inguest.selftests_ok(0, ok + 'TEST: src_ip match (skip_hw)   [FAIL]\n')[0])
        self.assertFalse(inguest.selftests_ok(1, ok)[0])
        self.assertFalse(inguest.selftests_ok(0, 'no tests\n')[0])

    def test_difftest(self):
        ref = {'batches': [{'filters': [{'err': 0, 'msg': '', 'bits': '1010'},
                                        {'err': 22, 'msg': 'no', 'bits': '0000'}],
                            'reached': '1111'}]}
        got = json.loads(json.dumps(ref))
        self.assertIsNone(inguest.difftest_same(ref, got))
        got['batches'][0]['filters'][0]['bits'] = '1011'     # one more frame counted
        self.assertEqual(inguest.difftest_same(ref, got), 'batch 0 filter 0: bits differs')
        got = json.loads(json.dumps(ref))
        got['batches'][0]['filters'][1]['err'] = 0           # a refused filter accepted
        self.assertEqual(inguest.difftest_same(ref, got), 'batch 0 filter 1: err differs')
        got = json.loads(json.dumps(ref))
        got['batches'][0]['reached'] = '1110'
        self.assertIn('reaching tc', inguest.difftest_same(ref, got))

    def test_fail_lines(self):
        import re
        self.assertRegex('not ok 46 - 1f35 Packets: icmp', inguest.FAIL_LINE['packets'])
        self.assertIsNone(re.search(inguest.FAIL_LINE['corpus'], 'ok 46 - 1f35'))
        self.assertRegex('TEST: ip_ttl match (skip_hw)        [FAIL]', inguest.FAIL_LINE['selftests'])
        self.assertIsNone(re.search(inguest.FAIL_LINE['selftests'],
                                    'TEST: ip_ttl match (skip_hw)        [ OK ]'))


if __name__ == '__main__':
    unittest.main()
