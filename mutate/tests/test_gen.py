"""mutate/gen.py: determinism, what each operator does, sharding."""
import re
import unittest

from mutate import gen

# A small source with one instance of each thing an operator looks for
SRC = '''\
/* a comment with mask->x = 1; and a == b inside */
static const struct fl_key_desc fl_keys[] = {
	FL_KEY_MASKED(IPV4_SRC, ipv4.src, IPV4),
	FL_KEY_MASKED(IPV4_DST, ipv4.dst, IPV4),
	FL_KEY_EXACT(IP_PROTO, basic.ip_proto, IP),
};

static const struct fl_dissector_key fl_dissector_keys[] = {
	FL_DISSECTOR_KEY(BASIC, basic),
	FL_DISSECTOR_KEY(ETH_ADDRS, eth),
};

static const struct {
	u32 uapi;
	u32 dissector;
} fl_ip_flags[] = {
	{ TCA_FLOWER_KEY_FLAGS_IS_FRAGMENT,	FLOW_DIS_IS_FRAGMENT },
	{ TCA_FLOWER_KEY_FLAGS_FRAG_IS_FIRST,	FLOW_DIS_FIRST_FRAG },
};

static u16 fl_ct_states[] = {
	[IP_CT_NEW] = TCA_FLOWER_KEY_CT_FLAGS_TRACKED |
		      TCA_FLOWER_KEY_CT_FLAGS_NEW,
};

static int fl_classify(struct sk_buff *skb, int n)
{
	int i;

	for (i = 0; i < n; i++)
		fl_dissect(skb, i - 1);
	if (!skb)
		return -1;
	return n == 2 && i > 3;
}

static int fl_set_key_x(struct fl_flow_key *mask)
{
	mask->control.flags = 0;
	return 0;
}
'''


def by_op(rows, op):
    return [r for r in rows if r['op'] == op]


class TestGen(unittest.TestCase):
    def setUp(self):
        self.rows = gen.mutants(SRC)

    def test_deterministic_and_numbered(self):
        self.assertEqual(self.rows, gen.mutants(SRC))
        self.assertEqual([r['id'] for r in self.rows],
                         ['m%04d' % (i + 1) for i in range(len(self.rows))])
        keys = [(r['start'], r['end'], r['op'], r['new']) for r in self.rows]
        self.assertEqual(keys, sorted(keys))

    def test_every_mutant_differs_once(self):
        texts = [gen.apply(SRC, r) for r in self.rows]
        self.assertNotIn(SRC, texts)
        self.assertEqual(len(set(texts)), len(texts))

    def test_comments_untouched(self):
        self.assertTrue(all(r['line'] > 1 for r in self.rows))
        code = gen.blank_comments(SRC)
        self.assertEqual(len(code), len(SRC))
        self.assertNotIn('mask->x', code)

    def test_key_row_points_at_next_member(self):
        rows = by_op(self.rows, 'key-row')
        self.assertEqual([(r['before'].strip(), r['after'].strip()) for r in rows], [
            ('FL_KEY_MASKED(IPV4_SRC, ipv4.src, IPV4),', 'FL_KEY_MASKED(IPV4_SRC, ipv4.dst, IPV4),'),
            ('FL_KEY_MASKED(IPV4_DST, ipv4.dst, IPV4),', 'FL_KEY_MASKED(IPV4_DST, basic.ip_proto, IPV4),'),
            ('FL_KEY_EXACT(IP_PROTO, basic.ip_proto, IP),', 'FL_KEY_EXACT(IP_PROTO, ipv4.src, IP),')])
        self.assertEqual([r['after'].strip() for r in by_op(self.rows, 'dissector-row')],
                         ['FL_DISSECTOR_KEY(BASIC, eth),', 'FL_DISSECTOR_KEY(ETH_ADDRS, basic),'])

    def test_mask_drop_and_stmt_del(self):
        self.assertEqual([(r['before'].strip(), r['after'].strip())
                          for r in by_op(self.rows, 'mask-drop')],
                         [('mask->control.flags = 0;', ';')])
        # the call in fl_classify; declarations and returns are not statements to drop
        self.assertEqual([r['before'].strip() for r in by_op(self.rows, 'stmt-del')],
                         ['fl_dissect(skb, i - 1);'])

    def test_boundary_negate_off_by_one(self):
        pairs = lambda op: [(r['before'].strip(), r['after'].strip()) for r in by_op(self.rows, op)]
        self.assertEqual(pairs('boundary'), [
            ('for (i = 0; i < n; i++)', 'for (i = 0; i <= n; i++)'),
            ('return n == 2 && i > 3;', 'return n == 2 && i >= 3;')])
        self.assertEqual(pairs('negate'), [
            ('if (!skb)', 'if (skb)'),
            ('return n == 2 && i > 3;', 'return n != 2 && i > 3;'),
            ('return n == 2 && i > 3;', 'return n == 2 || i > 3;')])
        self.assertEqual(pairs('off-by-one'), [('fl_dissect(skb, i - 1);', 'fl_dissect(skb, i);')])
        # "-1" (a value, not an offset) and "->" are left alone
        self.assertFalse(any('return -1' in r['before'] for r in self.rows))

    def test_flag_map(self):
        after = [r['after'].strip() for r in by_op(self.rows, 'flag-map')]
        self.assertEqual(after, [
            '{ TCA_FLOWER_KEY_FLAGS_IS_FRAGMENT,	FLOW_DIS_FIRST_FRAG },',
            '{ TCA_FLOWER_KEY_FLAGS_FRAG_IS_FIRST,	FLOW_DIS_IS_FRAGMENT },',
            '[IP_CT_NEW] = 0 |',
            '0,'])

    def test_shards_partition(self):
        rows = [{'id': 'm%04d' % i} for i in range(1, 24)]
        for n in (1, 2, 5):
            parts = [gen.shard(rows, k, n) for k in range(1, n + 1)]
            ids = [r['id'] for p in parts for r in p]
            self.assertEqual(sorted(ids), [r['id'] for r in rows])
            self.assertEqual(len(ids), len(set(ids)))
        self.assertEqual([r['id'] for r in gen.shard(rows, 2, 5)], ['m0002', 'm0007', 'm0012', 'm0017', 'm0022'])

    def test_real_source(self):
        """The committed cls_flower.c gives at least 150 mutants of every operator."""
        text = gen.source_at('HEAD')
        rows = gen.mutants(text)
        self.assertGreaterEqual(len(rows), 150)
        self.assertEqual({r['op'] for r in rows}, {
            'key-row', 'dissector-row', 'mask-drop', 'boundary', 'off-by-one',
            'negate', 'flag-map', 'stmt-del'})
        for r in rows:
            self.assertTrue(re.match(r'm\d{4}$', r['id']))
            self.assertNotEqual(r['before'], r['after'])


if __name__ == '__main__':
    unittest.main()
