# SPDX-License-Identifier: GPL-2.0
"""The oracle parameterised by its two variants (offload/compare.py
--a-name/--b-name, offload/known.py PAIRS, offload.mk OFL_A/OFL_B):
labels name the variants compared; stock-next against stock is strict
(a message stock-next adds fails unless declared); its declarations each
name a patch of kernel/stock-series, and a `rewrite` entry explains a
log difference only when it is exactly that patch's change; the stock
series' scenarios come only with --stock-series; the make targets run
the variants they are given, ours and stock by default."""

import json
import os
import re
import subprocess
import tempfile
import unittest

from offload import compare as C
from offload import known as K
from offload import scenarios
from offload.tests.test_compare import (ITEMS, PY, REPO, item_rec,
                                        replace_line, run_doc)

SN = ('stock-next', 'stock')
PAIR = K.PAIRS[SN]


def sn_result(a_rec, b_rec=None, known=None, items=ITEMS):
    b_rec = b_rec or item_rec()
    return C.compare(items, run_doc('stock-next', [a_rec]),
                     run_doc('stock', [b_rec]),
                     PAIR['known'] if known is None else known, SN,
                     PAIR['strict'])[0]


def zero_ip_line(extra=True, **kw):
    """A rule of `dst_ip 0.0.0.0/0`: addr_type masked, no address; with
    extra, the two zero-mask address keys patch 1 adds."""
    line = replace_line(**kw)
    line['used_keys'] = ['control', 'basic']
    line['keys'] = {'control': {'key': '0000020000000000',
                                'mask': '0000ffff00000000'},
                    'basic': {'key': '08000000', 'mask': 'ffff0000'}}
    if extra:
        line['used_keys'] += ['ipv4_addrs', 'ipv6_addrs']
        line['keys']['ipv4_addrs'] = {'key': '0' * 16, 'mask': '0' * 16}
        line['keys']['ipv6_addrs'] = {'key': '0' * 64, 'mask': '0' * 64}
    return line


def zero_enc_line(extra=True, mask='0000ffff00000000'):
    line = replace_line()
    line['used_keys'] = ['control', 'basic', 'enc_keyid']
    line['keys'] = {'control': {'key': '0' * 16, 'mask': '0' * 16},
                    'basic': {'key': '08000000', 'mask': 'ffff0000'},
                    'enc_keyid': {'key': '0000002a', 'mask': 'ffffffff'}}
    if extra:
        line['used_keys'].insert(2, 'enc_control')
        line['keys']['enc_control'] = {'key': '0000020000000000',
                                       'mask': mask}
    return line


class TestLabels(unittest.TestCase):
    def test_differences_name_the_variants(self):
        r = sn_result(item_rec(add_rc=1), known=[])
        self.assertEqual(r.status, 'fail')
        text = r.diffs[0].text
        self.assertIn('stock-next 1', text)
        self.assertIn('stock 0', text)
        self.assertNotIn('ours', text)

    def test_log_and_show_labels(self):
        a = item_rec()
        a['steps'][3]['log'] = []
        a['steps'][2]['show'] = a['steps'][2]['show'][:1]
        r = sn_result(a, known=[])
        texts = ' '.join(d.text for d in r.diffs)
        self.assertIn('0 callbacks on stock-next, 1 on stock', texts)
        self.assertIn('0 filters on stock-next, 1 on stock', texts)
        self.assertNotIn('ours', texts)

    def test_kinds_keep_the_names_apart(self):
        a = item_rec(add_log=[replace_line(has_extack=True)])
        r = sn_result(a, known=[])
        k = C.kinds([r], SN, True)[0][0]
        self.assertIn('stock-next ...', k)
        self.assertIn('stock ...', k)

    def test_default_names_are_ours_and_stock(self):
        self.assertEqual(C.NAMES, ('ours', 'stock'))
        r = C.compare(ITEMS, run_doc('ours', [item_rec(add_rc=1)]),
                      run_doc('stock', [item_rec()]), [])[0]
        self.assertIn('ours 1, stock 0', r.diffs[0].text)

    def test_run_problems_name_the_variants(self):
        p = C.run_problems(run_doc('stock-next', [item_rec()], 'X'),
                           run_doc('stock', [item_rec()], 'X'), names=SN)
        self.assertTrue(any('stock-next and stock' in x for x in p), p)
        p = C.run_problems(run_doc('ours', [item_rec()]),
                           run_doc('stock', [item_rec()]), names=SN)
        self.assertTrue(any('stock-next run comes from guest variant ours'
                            in x for x in p), p)


class TestStrict(unittest.TestCase):
    def test_an_added_message_fails_on_the_strict_pair(self):
        a = item_rec(add_err='Warning: something new.')
        self.assertEqual(sn_result(a).status, 'fail')
        # the same runs as ours/stock: counted, not failed
        self.assertEqual(C.compare(ITEMS, run_doc('ours', [a]),
                                   run_doc('stock', [item_rec()]),
                                   [])[0].status, 'added')

    def test_a_declared_message_is_known(self):
        a = item_rec(item_id='s-ss-4-enc-two-families',
                     add_err='Warning: cls_flower: IPv4 tunnel addresses '
                     'ignored with IPv6.')
        items = [dict(ITEMS[0], id='s-ss-4-enc-two-families')]
        r = sn_result(a, item_rec(item_id=items[0]['id']), items=items)
        self.assertEqual(r.status, 'known', r)
        self.assertEqual([k['patch'] for k in r.known], [4])

    def test_the_declaration_needs_its_message(self):
        # patch 4's entry covers items where stock-next said its warning
        a = item_rec(item_id='s-ss-4-enc-two-families',
                     add_log=[replace_line(prio=3)])
        items = [dict(ITEMS[0], id='s-ss-4-enc-two-families')]
        r = sn_result(a, item_rec(item_id=items[0]['id']), items=items)
        self.assertEqual(r.status, 'fail')
        # and with its message, the log difference is declared too
        a['steps'][1]['err'] = 'Warning: cls_flower: IPv4 tunnel ' \
            'addresses ignored with IPv6.'
        r = sn_result(a, item_rec(item_id=items[0]['id']), items=items)
        self.assertEqual(r.status, 'known')


class TestRewrite(unittest.TestCase):
    def test_patch_1_exactly(self):
        a = item_rec(add_log=[zero_ip_line()])
        b = item_rec(add_log=[zero_ip_line(extra=False)])
        r = sn_result(a, b)
        self.assertEqual(r.status, 'known', r)
        self.assertEqual([k['name'] for k in r.known],
                         ['zero-ip-address-mask'])

    def test_patch_1_and_another_difference_fails(self):
        line = zero_ip_line()
        line['keys']['basic']['mask'] = 'ffffff00'
        a = item_rec(add_log=[line])
        b = item_rec(add_log=[zero_ip_line(extra=False)])
        self.assertEqual(sn_result(a, b).status, 'fail')

    def test_an_address_key_with_a_mask_is_not_patch_1(self):
        line = zero_ip_line()
        line['keys']['ipv4_addrs']['mask'] = '00000000ffffffff'
        a = item_rec(add_log=[line])
        b = item_rec(add_log=[zero_ip_line(extra=False)])
        self.assertEqual(sn_result(a, b).status, 'fail')

    def test_patch_1_removed_keys_stock_gave(self):
        # the other way round (stock-next without keys stock gives) is
        # no patch's change
        a = item_rec(add_log=[zero_ip_line(extra=False)])
        b = item_rec(add_log=[zero_ip_line()])
        self.assertEqual(sn_result(a, b).status, 'fail')

    def test_patch_2_exactly(self):
        a = item_rec(add_log=[zero_enc_line()])
        b = item_rec(add_log=[zero_enc_line(extra=False)])
        r = sn_result(a, b)
        self.assertEqual(r.status, 'known', r)
        self.assertEqual([k['patch'] for k in r.known], [2])

    def test_patch_2_with_more_than_addr_type_fails(self):
        a = item_rec(add_log=[zero_enc_line(mask='0000ffffffffffff')])
        b = item_rec(add_log=[zero_enc_line(extra=False)])
        self.assertEqual(sn_result(a, b).status, 'fail')

    def test_patches_1_and_2_in_one_item(self):
        both = zero_ip_line()
        enc = zero_enc_line()
        both['used_keys'] = both['used_keys'] + ['enc_control']
        both['keys'] = dict(both['keys'],
                            enc_control=enc['keys']['enc_control'])
        a = item_rec(add_log=[both])
        b = item_rec(add_log=[zero_ip_line(extra=False)])
        r = sn_result(a, b)
        self.assertEqual(r.status, 'known', r)
        self.assertEqual(sorted(k['patch'] for k in r.known), [1, 2])

    def test_a_rewrite_explains_no_other_field(self):
        a = item_rec(add_log=[zero_ip_line()], add_rc=1)
        b = item_rec(add_log=[zero_ip_line(extra=False)])
        self.assertEqual(sn_result(a, b).status, 'fail')


def series_numbers():
    with open(os.path.join(REPO, 'kernel', 'stock-series', 'series')) as f:
        return list(range(1, 1 + sum(1 for ln in f if ln.strip() and
                                     not ln.startswith('#'))))


class TestDeclarations(unittest.TestCase):
    def test_every_stock_next_entry_names_a_patch(self):
        nums = series_numbers()
        for k in K.KNOWN_STOCK_NEXT:
            self.assertIn(k.get('patch'), nums, k['name'])
            self.assertTrue(k.get('reason'), k['name'])
            self.assertTrue(k.get('fields') or k.get('rewrite'), k['name'])
            re.compile(k['items'])

    def test_expectations_match_the_declarations(self):
        # a patch said to change what drivers get has an entry; one said
        # not to has none
        for n, (want, why) in K.STOCK_SERIES_DRIVERS.items():
            declared = [k for k in K.KNOWN_STOCK_NEXT if k['patch'] == n]
            self.assertEqual(bool(declared), want == 'yes', n)
            self.assertTrue(why)

    def test_pairs(self):
        self.assertIs(K.PAIRS[('ours', 'stock')]['known'], K.KNOWN)
        self.assertFalse(K.PAIRS[('ours', 'stock')]['strict'])
        self.assertTrue(PAIR['strict'])

    def test_the_scenarios_cover_every_patch_assessed(self):
        ids = {it['id'] for it in scenarios.stock_series_items('a', 'b')}
        for n in K.STOCK_SERIES_DRIVERS:
            self.assertTrue(any(i.startswith('s-ss-%d-' % n) for i in ids),
                            n)

    def test_stock_series_scenarios_only_when_asked(self):
        plain = [it['id'] for it in scenarios.items('direct')]
        more = [it['id'] for it in scenarios.items('direct', True)]
        self.assertFalse([i for i in plain if i.startswith('s-ss-')])
        self.assertEqual(len(more) - len(plain),
                         len(scenarios.stock_series_items('a', 'b')))
        # the playback scenarios stay last
        self.assertEqual(more[-len(scenarios.LAST):], plain[-len(
            scenarios.LAST):])


class TestCommandLine(unittest.TestCase):
    def run_compare(self, a, b, *extra, items=ITEMS):
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for name, doc in (('a', a), ('b', b), ('req', {'items': items})):
                paths.append(os.path.join(tmp, name + '.json'))
                with open(paths[-1], 'w') as f:
                    json.dump(doc, f)
            doc = os.path.join(tmp, 'offload.md')
            p = subprocess.run(
                [PY, '-m', 'offload.compare', '--a', paths[0], '--b',
                 paths[1], '--requests', paths[2], '--doc', doc] +
                list(extra), cwd=REPO, capture_output=True, text=True)
            text = ''
            if os.path.exists(doc):
                with open(doc) as f:
                    text = f.read()
            return p, text

    def test_stock_next_pair(self):
        a = item_rec(add_log=[zero_ip_line()])
        b = item_rec(add_log=[zero_ip_line(extra=False)])
        p, doc = self.run_compare(run_doc('stock-next', [a]),
                                  run_doc('stock', [b]),
                                  '--a-name', 'stock-next')
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn('stock-next vs stock (strict)', p.stdout)
        self.assertEqual(p.stdout.splitlines()[-1], '1 passed, 0 failed')
        self.assertIn('# Offload oracle: what drivers are given, stock-next '
                      'vs stock', doc)
        self.assertIn('make offload-stock-next', doc)
        self.assertIn('zero-ip-address-mask** (stock patch 1) (1 items',
                      doc)
        self.assertIn('## The stock series and what drivers get', doc)
        self.assertIn('| 1 | net/sched: cls_flower: match an all-zero IP '
                      'address mask | yes |', doc)
        self.assertIn('- stock-next: kernel', doc)
        self.assertNotIn('by ours', doc)

    def test_a_difference_names_the_variants(self):
        p, doc = self.run_compare(run_doc('stock-next', [item_rec(
            add_rc=1)]), run_doc('stock', [item_rec()]),
            '--a-name', 'stock-next')
        self.assertEqual(p.returncode, 1)
        self.assertIn('exit status: stock-next 1, stock 0', p.stdout)
        self.assertEqual(p.stdout.splitlines()[-1], '0 passed, 1 failed')

    def test_a_pair_without_declarations_fails(self):
        p, _doc = self.run_compare(run_doc('stock', [item_rec()]),
                                   run_doc('stock-next', [item_rec()]),
                                   '--a-name', 'stock', '--b-name',
                                   'stock-next')
        self.assertEqual(p.returncode, 1)
        self.assertIn('no declarations for stock against stock-next',
                      p.stdout)

    def test_ours_and_stock_by_default(self):
        p, doc = self.run_compare(run_doc('ours', [item_rec()]),
                                  run_doc('stock', [item_rec()]))
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn('ours vs stock:', p.stdout)
        self.assertIn('written by `make offload`', doc.lower())
        self.assertNotIn('stock series', doc)


class TestMake(unittest.TestCase):
    def make_n(self, *args):
        p = subprocess.run(['make', '-n', '--no-print-directory',
                            'offload-run', 'OFL_NAME=t', 'OFL_SRCARGS=',
                            'OFL_GTIMEOUT=1'] + list(args), cwd=REPO,
                           capture_output=True, text=True)
        return p.returncode, p.stdout + p.stderr

    def test_default_variants(self):
        rc, out = self.make_n()
        self.assertEqual(rc, 0, out)
        self.assertIn('for v in ours stock; do', out)
        self.assertIn('--a-name ours', out)
        self.assertIn('--b-name stock', out)
        self.assertIn('t-ours.json', out)

    def test_stock_next_against_stock(self):
        rc, out = self.make_n('OFL_A=stock-next')
        self.assertEqual(rc, 0, out)
        self.assertIn('for v in stock-next stock; do', out)
        self.assertIn('--a /', out)
        self.assertIn('t-stock-next.json --a-name stock-next', out)

    def test_unknown_variant(self):
        rc, out = self.make_n('OFL_B=debug')
        self.assertNotEqual(rc, 0)
        self.assertIn('OFL_A and OFL_B must each be one of', out)

    def make_eval(self, expr, *args):
        """A make expression's value, with the top Makefile's variables
        (no recipe runs: make offload would build ours' kernel)."""
        p = subprocess.run(['make', '-s', '--no-print-directory', '--eval',
                            'ofl-eval: ; @echo %s' % expr, 'ofl-eval'] +
                           list(args), cwd=REPO, capture_output=True,
                           text=True)
        return p.stdout.strip()

    def test_another_pair_keeps_to_its_own_files(self):
        # make offload with another pair never writes ours/stock's page
        self.assertEqual(self.make_eval('[$(OFL_PAIR)]'), '[]')
        self.assertEqual(self.make_eval('[$(OFL_PAIR)]', 'OFL_A=stock-next'),
                         '[stock-next-vs-stock]')
        with open(os.path.join(REPO, 'offload', 'offload.mk')) as f:
            mk = f.read()
        self.assertIn('OFL_NAME=$(OFL_PAIR:%=%-)full', mk)
        self.assertIn('OFL_NAME=$(OFL_PAIR:%=%-)smoke', mk)
        self.assertIn('$(if $(OFL_PAIR),$(REPO)/docs/offload-$(OFL_PAIR).md,'
                      '$(OFL_DOC))', mk)

    def test_driver_installed_for_stock_next(self):
        self.assertEqual(self.make_eval('$(call offload_mods,ours)'),
                         'ours stock stock-next')
        self.assertEqual(self.make_eval('$(call offload_mods,debug)'),
                         'debug')

if __name__ == '__main__':
    unittest.main()
