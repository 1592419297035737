# SPDX-License-Identifier: GPL-2.0
"""offload/sources.py and offload/scenarios.py: the corpus' filter lines
moved to device A with their variables substituted, each taken as given,
with skip_sw and with skip_hw; difftest's filters as raw requests; every
item well formed, ids unique."""

import json
import unittest

from offload import scenarios, sources as S
from offload.common import DEV_C, DIRECT, INDIRECT, INDIRECT_SUFFIX

DEV_A, DEV_B = DIRECT
OPS = {'tc', 'show', 'flush', 'nl_add', 'drv', 'ip', 'ethtool'}


def norm(command):
    out = []
    for words in S.tc_words(command):
        n = S.normalize(words)
        if n:
            out.append(S.devices(' '.join(n[2] + ['flower'] + n[3]),
                                 'direct'))
    return out


class TestCorpusLines(unittest.TestCase):
    def test_variables_and_device(self):
        self.assertEqual(norm('$TC filter add dev $DEV1 ingress protocol ip '
                              'prio 1 handle 1 flower dst_ip 10.0.0.1 '
                              'action drop'),
                         ['filter add dev %s ingress protocol ip prio 1 '
                          'handle 1 flower dst_ip 10.0.0.1 action drop'
                          % DEV_A])

    def test_other_devices_parents_and_blocks(self):
        self.assertEqual(norm('$TC filter add dev fla parent 1: protocol ip '
                              'prio 1 handle 1 flower dst_ip 10.3.0.1 '
                              'classid 1:10'),
                         ['filter add dev %s ingress protocol ip prio 1 '
                          'handle 1 flower dst_ip 10.3.0.1 classid 1:10'
                          % DEV_A])
        self.assertEqual(norm('$TC filter add block 7 protocol ip prio 1 '
                              'handle 1 flower dst_ip 10.0.0.0/8'),
                         ['filter add dev %s ingress protocol ip prio 1 '
                          'handle 1 flower dst_ip 10.0.0.0/8' % DEV_A])
        self.assertEqual(norm('$TC filter add dev vx0 egress protocol ip '
                              'flower enc_key_id 1'),
                         ['filter add dev %s egress protocol ip flower '
                          'enc_key_id 1' % DEV_A])

    def test_devices_named_in_the_options(self):
        self.assertEqual(norm('$TC filter add dev $DEV1 ingress protocol ip '
                              'flower indev flin0 action mirred egress '
                              'redirect dev fla'),
                         ['filter add dev %s ingress protocol ip flower '
                          'indev %s action mirred egress redirect dev %s'
                          % (DEV_A, DEV_C, DEV_B)])

    def test_batch_file_lines(self):
        self.assertEqual(norm("printf '%s\\n' 'filter add dev $DUMMY ingress "
                              "protocol ip prio 1 flower skip_sw dst_ip "
                              "10.0.0.0/8 action drop' 'filter show dev "
                              "$DUMMY ingress' > $BATCH_FILE"),
                         ['filter add dev %s ingress protocol ip prio 1 '
                          'flower skip_sw dst_ip 10.0.0.0/8 action drop'
                          % DEV_A])

    def test_not_a_flower_add(self):
        for cmd in ('$TC filter del dev $DEV1 ingress prio 1 flower',
                    '$TC filter show dev $DEV1 ingress',
                    '$TC filter change dev $DEV1 ingress protocol ip prio 1 '
                    'handle 1 flower dst_ip 10.0.0.1',
                    '$TC filter add dev $DEV1 ingress matchall action drop',
                    "awk 'BEGIN { printf \"filter add dev $DEV1 ingress "
                    "flower\\n\" }' > $BATCH_FILE"):
            self.assertEqual(norm(cmd), [], cmd)

    def test_a_command_list(self):
        self.assertEqual(len(norm('$TC filter add dev $DEV1 ingress flower '
                                  'dst_mac 02:00:00:00:00:01 && $TC filter '
                                  'add dev $DEV1 ingress prio 2 flower '
                                  'src_mac 02:00:00:00:00:01')), 2)

    def test_templates(self):
        words = S.tc_words('$TC chain add dev $DEV1 ingress protocol ip '
                           'chain 3 flower dst_ip 192.0.2.0/24')
        n = S.normalize(words[0])
        self.assertEqual(n[0], 'chain')
        items = S.corpus_items([n + ([],)])
        self.assertEqual(items[0]['what'], 'chain add dev %s ingress '
                         'protocol ip chain 3 flower dst_ip 192.0.2.0/24'
                         % DEV_A)
        self.assertEqual(len(items), 1)
        self.assertIn('chain del dev %s ingress chain 3' % DEV_A,
                      [s.get('args') for s in items[0]['steps']])


class TestItems(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.commands = S.corpus_commands()
        cls.corpus = S.corpus_items(cls.commands)
        cls.difftest = S.difftest_items(1, 10)
        cls.scenarios = scenarios.items('direct') + \
            scenarios.items('indirect')
        cls.indirect = S.corpus_items(S.sample(cls.commands, 5),
                                      'indirect', templates=False)

    def test_corpus_is_read(self):
        self.assertGreater(len(self.commands), 500)
        keys = [' '.join(c[2] + ['flower'] + c[3]) for c in self.commands]
        self.assertEqual(len(keys), len(set(keys)))

    def test_three_flags_each_unless_given(self):
        by_base = {}
        for it in self.corpus:
            by_base.setdefault(it['id'].split('+')[0], []).append(
                it['flags'])
        for base, flags in by_base.items():
            if base.startswith('t-'):
                continue
            self.assertIn(sorted(flags), (['', 'skip_hw', 'skip_sw'], ['']),
                          base)
        given = [it for it in self.corpus if ' skip_sw' in it['what'] and
                 not it['flags']]
        self.assertTrue(given)
        for it in given:
            self.assertNotIn(it['id'] + '+skip_hw',
                             {i['id'] for i in self.corpus})

    def test_own_action_indexes(self):
        with_index = [it for it in self.corpus
                      if ' index ' in it['what']]
        self.assertTrue(with_index)
        indexes = [it['what'].split(' index ')[1].split()[0]
                   for it in with_index]
        self.assertEqual(len(indexes), len(set(indexes)))
        self.assertEqual(S.own_indexes(['action', 'gact', 'index', '5'],
                                       100), ['action', 'gact', 'index',
                                              '105'])

    def test_flag_right_after_flower(self):
        for it in self.corpus:
            if it['flags']:
                self.assertIn(' flower %s ' % it['flags'], it['what'] + ' ')

    def test_difftest_filters_as_raw_requests(self):
        self.assertEqual(len(self.difftest) % 3, 0)
        flags = {it['flags']: it['steps'][1]['flags']
                 for it in self.difftest}
        self.assertEqual(flags, {'': 0, 'skip_hw': 1, 'skip_sw': 2})
        for it in self.difftest:
            add = it['steps'][1]
            self.assertEqual(add['op'], 'nl_add')
            self.assertEqual(add['dev'], DEV_A)
            self.assertTrue(add['attrs'] or add['proto'])
            self.assertNotIn('dtr', it['what'])
            self.assertNotIn('[prio', it['what'])

    def test_bindings(self):
        for it in self.corpus + self.difftest:
            self.assertEqual(it['binding'], 'direct')
            self.assertNotIn(INDIRECT[0], json.dumps(it['steps']))
            self.assertNotIn('@A@', json.dumps(it))
        self.assertEqual(len(self.indirect), 15)
        for it in self.indirect:
            self.assertTrue(it['id'].endswith(INDIRECT_SUFFIX))
            self.assertEqual(it['binding'], 'indirect')
            self.assertNotIn(DEV_A, json.dumps(it['steps']))
            self.assertIn('dev %s ' % INDIRECT[0], it['what'])
        direct = {it['id'] for it in self.scenarios
                  if it['binding'] == 'direct'}
        for it in self.scenarios:
            if it['binding'] == 'indirect':
                self.assertIn(it['id'][:-len(INDIRECT_SUFFIX)], direct)
                self.assertNotIn(DEV_A, json.dumps(it['steps']))
            else:
                self.assertNotIn(INDIRECT[0], json.dumps(it['steps']))

    def test_every_item_well_formed(self):
        items = self.corpus + self.difftest + self.scenarios + \
            self.indirect
        ids = [it['id'] for it in items]
        self.assertEqual(len(ids), len(set(ids)))
        for it in items:
            self.assertTrue({'id', 'source', 'binding', 'what', 'origin',
                             'flags', 'steps'} <= set(it), it['id'])
            for step in it['steps']:
                self.assertIn(step['op'], OPS, it['id'])
                if step['op'] == 'tc':
                    self.assertNotIn('\n', step['args'])
                    self.assertFalse(step['args'].startswith('-'),
                                     'a batch line takes no options')

    def test_scenarios_cover_the_brief(self):
        names = {it['id'] for it in self.scenarios}
        for want in ('s-stats', 's-block-playback', 's-template',
                     's-refuse-all', 's-refuse-key', 's-replace-same-mask',
                     's-replace-other-key', 's-delete', 's-qdisc-del'):
            self.assertIn(want, names)

    def test_sample(self):
        some = S.sample(self.commands, 10)
        filters = [c for c in some if c[0] == 'filter']
        self.assertEqual(len(filters), 10)
        self.assertEqual(len(some) - 10,
                         sum(1 for c in self.commands if c[0] == 'chain'))


if __name__ == '__main__':
    unittest.main()
