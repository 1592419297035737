# SPDX-License-Identifier: GPL-2.0
"""offload/compare.py: a difference in what the driver was given (keys,
masks, their order, flags, in_hw_count, the extack, the exit status)
fails an item; identical runs pass; a message ours adds where stock has
none is counted, not failed; what may legitimately vary between two boots
(log seq, cookie ints, action indexes, times) is not compared.

Synthetic runs in offload/replay.py's output format."""

import copy
import json
import os
import subprocess
import tempfile
import unittest

from offload import compare as C

HERE = os.path.dirname(os.path.realpath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PY = '/usr/bin/python3'

ADD = 'tc filter add dev ofa ingress protocol ip prio 1 handle 1 flower ' \
    'dst_ip 10.0.0.1 action drop'


def replace_line(cookie=7, seq=1, **kw):
    line = {'seq': seq, 'dev': 'ofa', 'type': 'flower', 'cmd': 'replace',
            'cookie': cookie, 'chain': 0, 'prio': 1, 'proto': 2048,
            'classid': 0, 'has_extack': False,
            'used_keys': ['control', 'basic', 'ipv4_addrs'],
            'keys': {'control': {'key': '00000200', 'mask': '0000ffff'},
                     'basic': {'key': '08000000', 'mask': 'ffff0000'},
                     'ipv4_addrs': {'key': '000000000a000001',
                                    'mask': '00000000ffffffff'}},
            'actions': [{'id': 'drop', 'hw_stats': 3, 'index': 1}],
            'result': 0}
    line.update(kw)
    return line


def stats_line(cookie=7, seq=1):
    return {'seq': seq, 'dev': 'ofa', 'type': 'flower', 'cmd': 'stats',
            'cookie': cookie, 'chain': 0, 'prio': 1, 'proto': 2048,
            'classid': 0, 'has_extack': False, 'pkts': 0, 'bytes': 0,
            'drops': 0, 'hw_stats': 2, 'result': 0}


def destroy_line(cookie=7, seq=1, result=0):
    return {'seq': seq, 'dev': 'ofa', 'type': 'flower', 'cmd': 'destroy',
            'cookie': cookie, 'chain': 0, 'prio': 1, 'proto': 2048,
            'classid': 0, 'has_extack': False, 'result': result}


def shown(flags=('in_hw',), count=1, installed=3, index=1):
    opts = {'handle': 1, 'keys': {'dst_ip': '10.0.0.1'},
            'actions': [{'order': 1, 'kind': 'gact', 'index': index,
                         'installed': installed,
                         'stats': {'bytes': 0, 'packets': 0, 'drops': 0,
                                   'last_used': installed}}]}
    for f in flags:
        opts[f] = True
    if count is not None:
        opts['in_hw_count'] = count
    return [{'protocol': 'ip', 'pref': 1, 'kind': 'flower', 'chain': 0},
            {'protocol': 'ip', 'pref': 1, 'kind': 'flower', 'chain': 0,
             'options': opts}]


def item_rec(item_id='c-1', add_log=None, add_rc=0, add_err='', show=None):
    return {'id': item_id, 'error': None, 'secs': 0.1, 'steps': [
        {'op': 'tc', 'cmd': 'tc qdisc add dev ofa clsact', 'rc': 0,
         'err': '', 'log': [{'seq': 1, 'dev': 'ofa', 'type': 'block',
                             'cmd': 'bind', 'binder': 'ingress',
                             'shared': False, 'result': 0}]},
        {'op': 'tc', 'cmd': ADD, 'rc': add_rc, 'err': add_err,
         'log': [replace_line()] if add_log is None else add_log},
        {'op': 'show', 'cmd': 'tc -s -j filter show dev ofa ingress',
         'rc': 0, 'err': '', 'show': shown() if show is None else show,
         'log': [stats_line()]},
        {'op': 'tc', 'cmd': 'tc filter del dev ofa ingress chain 0 pref 1 '
         'handle 0x1 flower', 'rc': 0, 'err': '', 'log': [destroy_line()]},
        {'op': 'teardown', 'cmd': 'teardown', 'rc': 0, 'err': '',
         'log': []}]}


def run_doc(variant, recs, srcversion=None):
    return {'variant': variant, 'kernel': '6.1.test', 'complete': True,
            'secs': 1.0, 'srcversion': srcversion or 'SRC-' + variant,
            'meta': {'seed': 1}, 'items': recs}


ITEMS = [{'id': 'c-1', 'source': 'corpus', 'what': ADD}]


def result(ours_rec, stock_rec=None, known=()):
    stock_rec = stock_rec or item_rec()
    return C.compare(ITEMS, run_doc('ours', [ours_rec]),
                     run_doc('stock', [stock_rec]), list(known))[0]


class TestIdentical(unittest.TestCase):
    def test_identical_passes(self):
        r = result(item_rec())
        self.assertEqual((r.status, r.diffs), ('pass', []))

    def test_what_may_vary_between_boots_is_not_compared(self):
        # other seq numbers, other cookie ints (same structure), other
        # action indexes, other times in the dump
        ours = item_rec()
        ours['steps'][1]['log'] = [replace_line(cookie=40, seq=9)]
        ours['steps'][1]['log'][0]['actions'][0]['index'] = 5
        ours['steps'][2]['log'] = [stats_line(cookie=40, seq=3)]
        ours['steps'][2]['show'] = shown(installed=99, index=5)
        ours['steps'][3]['log'] = [destroy_line(cookie=40)]
        self.assertEqual(result(ours).status, 'pass')

    def test_a_second_destroy_names_the_same_rule(self):
        # stock sends DESTROY twice for a rule it failed to offload, the
        # driver not holding it (-ENOENT): the repeat tells the driver
        # nothing and is left out, and the rules after it keep their
        # names (no cascade of cookie differences)
        a, b = item_rec(), item_rec()
        a['steps'][1]['log'] = [destroy_line(2, result=-2)]
        b['steps'][1]['log'] = [destroy_line(33, result=-2),
                                destroy_line(33, result=-2)]
        for rec, raw in ((a, 3), (b, 34)):
            rec['steps'][2]['log'] = [replace_line(cookie=raw)]
            rec['steps'][3]['log'] = [destroy_line(cookie=raw)]
        self.assertEqual(result(a, b).diffs, [])

    def test_a_repeated_destroy_of_a_held_rule_is_a_difference(self):
        # a second destroy the driver answered 0 (it held the rule) is no
        # repeat: it says something, and differs
        a, b = item_rec(), item_rec()
        a['steps'][1]['log'] = [destroy_line(2, result=0)]
        b['steps'][1]['log'] = [destroy_line(33, result=0),
                                destroy_line(33, result=0)]
        r = result(a, b)
        self.assertEqual([d.step for d in r.diffs], [1])

    def test_a_replace_after_its_destroy_is_a_new_rule(self):
        # a freed rule's address reused: same int on one boot, another on
        # the other boot
        a, b = item_rec(), item_rec()
        a['steps'][3]['log'] = [destroy_line(7), replace_line(cookie=7)]
        b['steps'][3]['log'] = [destroy_line(7), replace_line(cookie=9)]
        self.assertEqual(result(a, b).status, 'pass')
        b['steps'][3]['log'] = [destroy_line(7), replace_line(cookie=8)]
        self.assertEqual(result(a, b).status, 'pass')

    def test_a_later_destroy_of_a_dead_int_is_a_new_rule(self):
        # the driver keeps a dead cookie's number: the DESTROY of a rule it
        # never took, at a freed rule's address, in a later step
        a, b = item_rec(), item_rec()
        a['steps'][3]['log'] = [destroy_line(7)]
        b['steps'][3]['log'] = [destroy_line(7)]
        a['steps'][4]['log'] = [destroy_line(7, result=-2)]
        b['steps'][4]['log'] = [destroy_line(12, result=-2)]
        self.assertEqual(result(a, b).status, 'pass')


class TestDifferencesFail(unittest.TestCase):
    def assertFails(self, ours, field, stock=None):
        r = result(ours, stock)
        self.assertEqual(r.status, 'fail', r)
        self.assertIn(field, {d.field for d in r.diffs if not d.added}, r)
        return r

    def test_key_bytes(self):
        ours = item_rec()
        ours['steps'][1]['log'][0]['keys']['ipv4_addrs']['key'] = \
            '000000000a000002'
        r = self.assertFails(ours, 'log')
        self.assertIn('keys.ipv4_addrs.key', r.diffs[0].text)

    def test_mask_bytes(self):
        ours = item_rec()
        ours['steps'][1]['log'][0]['keys']['ipv4_addrs']['mask'] = \
            '00000000ffffff00'
        self.assertFails(ours, 'log')

    def test_used_keys_union_dissector(self):
        # a module that gives drivers the union of a prio's keys
        ours = item_rec(add_log=[replace_line(
            used_keys=['control', 'basic', 'ipv4_addrs', 'ports'])])
        self.assertFails(ours, 'log')

    def test_dropped_key(self):
        line = replace_line(used_keys=['control', 'basic'])
        del line['keys']['ipv4_addrs']
        self.assertFails(item_rec(add_log=[line]), 'log')

    def test_order_of_callbacks(self):
        two = [replace_line(cookie=1), replace_line(cookie=2, prio=2)]
        ours, stock = item_rec(add_log=two), item_rec(add_log=two[::-1])
        self.assertFails(ours, 'log', stock)

    def test_missing_callback(self):
        ours = item_rec()
        ours['steps'][3]['log'] = []
        r = self.assertFails(ours, 'log')
        self.assertIn('0 callbacks on ours, 1 on stock', r.diffs[0].text)

    def test_destroy_of_another_filter(self):
        ours = item_rec()
        ours['steps'][3]['log'] = [destroy_line(cookie=8)]
        self.assertFails(ours, 'log')

    def test_has_extack(self):
        self.assertFails(item_rec(add_log=[replace_line(has_extack=True)]),
                         'log')

    def test_action(self):
        ours = item_rec(add_log=[replace_line(
            actions=[{'id': 'accept', 'hw_stats': 3, 'index': 1}])])
        self.assertFails(ours, 'log')

    def test_flags_in_dump(self):
        self.assertFails(item_rec(show=shown(flags=('not_in_hw',),
                                             count=None)), 'show')

    def test_in_hw_count(self):
        self.assertFails(item_rec(show=shown(count=2)), 'show')

    def test_hw_counters_in_dump(self):
        show = shown()
        show[1]['options']['actions'][0]['stats']['hw_packets'] = 5
        self.assertFails(item_rec(show=show), 'show')

    def test_exit_status(self):
        self.assertFails(item_rec(add_rc=1), 'rc')

    def test_errno(self):
        ours = item_rec(add_rc=1, add_err='RTNETLINK answers: Invalid '
                        'argument\nWe have an error talking to the kernel')
        stock = item_rec(add_rc=1, add_err='RTNETLINK answers: Operation '
                         'not supported\nWe have an error talking to the '
                         'kernel')
        self.assertFails(ours, 'stderr', stock)

    def test_other_extack(self):
        ours = item_rec(add_rc=1, add_err='Error: Mask does not fit the '
                        'template.\nWe have an error talking to the kernel')
        stock = item_rec(add_rc=1, add_err='Error: cls_flower: Mask does not'
                         ' fit the template.\nWe have an error talking to '
                         'the kernel')
        self.assertFails(ours, 'extack', stock)

    def test_extack_missing_on_ours(self):
        ours = item_rec(add_err='')
        stock = item_rec(add_err='Warning: flower_offload_test: refused.')
        self.assertFails(ours, 'extack', stock)

    def test_other_step_count(self):
        ours = item_rec()
        del ours['steps'][3]
        self.assertFails(ours, 'steps')

    def test_missing_item(self):
        r = C.compare(ITEMS, run_doc('ours', []),
                      run_doc('stock', [item_rec()]))[0]
        self.assertEqual(r.status, 'fail')
        self.assertEqual(r.diffs[0].field, 'item')

    def test_runner_error(self):
        ours = item_rec()
        ours['error'] = 'TimeoutError: '
        self.assertFails(ours, 'item')


class TestMessageAdded(unittest.TestCase):
    def test_added_message_counts_but_passes(self):
        ours = item_rec(add_err='Warning: a message of ours.')
        r = result(ours)
        self.assertEqual(r.status, 'added')
        passed, failed, c = C.counts([r, result(item_rec())])
        self.assertEqual((passed, failed, c['added'], c['pass']),
                         (2, 0, 1, 1))

    def test_message_hides_the_errno(self):
        # tc prints "RTNETLINK answers" only when the kernel sent no
        # message: that line missing on ours is part of the added message
        ours = item_rec(add_rc=1, add_err='Error: skip_sw filter not taken.'
                        '\nWe have an error talking to the kernel')
        stock = item_rec(add_rc=1, add_err='RTNETLINK answers: Operation '
                         'not supported\nWe have an error talking to the '
                         'kernel')
        r = result(ours, stock)
        self.assertEqual(r.status, 'added', r)
        self.assertIn('Operation not supported', r.diffs[0].text)

    def test_added_message_does_not_hide_other_differences(self):
        ours = item_rec(add_rc=1, add_err='Error: ours.')
        self.assertEqual(result(ours).status, 'fail')


class TestKnown(unittest.TestCase):
    KNOWN = [dict(name='rc-of-c1', items=r'^c-1$', fields=('rc',),
                  reason='argued')]

    def test_declared_difference_passes_as_known(self):
        r = result(item_rec(add_rc=1), known=self.KNOWN)
        self.assertEqual(r.status, 'known')
        self.assertEqual(r.known, self.KNOWN)

    def test_declaration_covers_only_its_fields(self):
        r = result(item_rec(add_rc=1, show=shown(count=2)),
                   known=self.KNOWN)
        self.assertEqual(r.status, 'fail')

    def test_declaration_covers_only_its_items(self):
        known = [dict(self.KNOWN[0], items=r'^s-')]
        self.assertEqual(result(item_rec(add_rc=1), known=known).status,
                         'fail')

    def test_declaration_by_ours_extack(self):
        # an entry naming ours' extack covers only items where ours said it
        known = [dict(self.KNOWN[0], items=r'', fields=('*',),
                      ours_extack=r'^Key requires')]
        said = item_rec(add_rc=1, add_err='Key requires ip_proto tcp')
        self.assertEqual(result(said, known=known).status, 'known')
        other = item_rec(add_rc=1, add_err='Mask given without its key')
        self.assertEqual(result(other, known=known).status, 'fail')


class TestCommandLine(unittest.TestCase):
    def run_compare(self, ours, stock, *extra):
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for name, doc in (('ours', ours), ('stock', stock),
                              ('req', {'items': ITEMS})):
                paths.append(os.path.join(tmp, name + '.json'))
                with open(paths[-1], 'w') as f:
                    json.dump(doc, f)
            doc = os.path.join(tmp, 'offload.md')
            p = subprocess.run(
                [PY, '-m', 'offload.compare', '--ours', paths[0], '--stock',
                 paths[1], '--requests', paths[2], '--doc', doc] +
                list(extra), cwd=REPO, capture_output=True, text=True)
            with open(doc) as f:
                return p, f.read()

    def test_identical_runs(self):
        p, doc = self.run_compare(run_doc('ours', [item_rec()]),
                                  run_doc('stock', [item_rec()]))
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(p.stdout.splitlines()[-1], '1 passed, 0 failed')
        self.assertIn('commit', doc.splitlines()[2])
        self.assertEqual(doc.strip().splitlines()[-1], '1 passed, 0 failed')

    def test_a_difference_fails(self):
        p, doc = self.run_compare(run_doc('ours', [item_rec(add_rc=1)]),
                                  run_doc('stock', [item_rec()]))
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stdout.splitlines()[-1], '0 passed, 1 failed')
        self.assertIn('| c-1 |', doc)

    def test_one_module_twice_proves_nothing(self):
        p, _doc = self.run_compare(
            run_doc('ours', [item_rec()], srcversion='X'),
            run_doc('stock', [item_rec()], srcversion='X'))
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stdout.splitlines()[-1], '1 passed, 1 failed')
        self.assertIn('same module', p.stdout)

    def test_no_rule_taken_proves_nothing(self):
        rec = item_rec(add_log=[])
        p, _doc = self.run_compare(run_doc('ours', [copy.deepcopy(rec)]),
                                   run_doc('stock', [rec]))
        self.assertEqual(p.returncode, 1)
        self.assertIn('took no flower rule', p.stdout)

    def test_incomplete_run(self):
        ours = run_doc('ours', [item_rec()])
        ours['complete'] = False
        p, _doc = self.run_compare(ours, run_doc('stock', [item_rec()]))
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stdout.splitlines()[-1], '1 passed, 1 failed')


if __name__ == '__main__':
    unittest.main()
