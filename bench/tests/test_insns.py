"""bench.insns: gdb's INSNS lines parsed, and the table made of them."""
import unittest

from bench import insns

LINES = [
    "Breakpoint 1 at 0xffffffffa0002000",
    "INSNS fl_classify 0 fl_classify=150 fl_mask_lookup=91 tcf_action_exec=55",
    "INSNS fl_classify 1 fl_classify=151 fl_mask_lookup=91 tcf_action_exec=55",
    "INSNS fl_classify 2 fl_classify=150 fl_mask_lookup=91 tcf_action_exec=55",
    "INSNS u32_classify 0 u32_classify=120 tcf_action_exec=55",
]


class TestInsns(unittest.TestCase):
    def test_parse(self):
        counts = insns.parse(LINES)
        self.assertEqual(len(counts["fl_classify"]), 3)
        self.assertEqual(counts["fl_classify"][1]["fl_classify"], 151)
        self.assertEqual(sum(counts["u32_classify"][0].values()), 175)

    def test_table_median_and_missing(self):
        text = insns.table(insns.parse(LINES[:4]), "ABC", "6.1.192",
                           "abc1234")
        self.assertIn("## fl_classify: 296 instructions (3 calls: "
                      "296, 296, 297)", text)
        self.assertIn("| fl_mask_lookup | 91 |", text)
        self.assertIn("u32_classify: no call counted", text)
        self.assertIn("srcversion ABC", text)
        self.assertIn("Commit measured: abc1234", text)


if __name__ == "__main__":
    unittest.main()
