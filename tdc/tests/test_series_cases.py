# SPDX-License-Identifier: GPL-2.0
"""case_families.py and series_cases.py: the families each tdc case
needs, which step of the patch series it runs at, and the report of a
run of the series."""

import importlib
import io
import os
import tempfile
import unittest
from contextlib import redirect_stdout
from unittest import mock

from flower import keys, uapi
from tdc import case_families as cf
from tdc import series_cases as sc

STEPS = sc.read_steps()
DECLARED = set().union(*(f for _, f in STEPS))
CASES = {c['id']: c for c in sc.load_cases()}


def case(*setup, cmd='true', exp='0'):
    return {'id': 'test', 'setup': list(setup), 'cmdUnderTest': cmd,
            'expExitCode': exp}


def declared(c):
    """c with the families its commands use as its field."""
    return dict(c, **{cf.FIELD: sorted(cf.used_families(c))})


ADD = '$TC filter add dev $DEV1 ingress protocol ip prio 1 handle {} flower {}'


class TestRealCases(unittest.TestCase):
    """Cases of the corpus whose families are known from what they do."""

    def check(self, cid, families, step):
        self.assertEqual(cf.used_families(CASES[cid]), families, cid)
        self.assertEqual(cf.families(CASES[cid]), families, cid)
        self.assertEqual(sc.step_of(CASES[cid], STEPS), step, cid)

    def test_core(self):
        self.check('3376', {'core'}, '01-flower-core')       # action drop

    def test_vlan_word(self):       # num_of_vlans 1 vlan_prio 5
        self.check('2f97', {'core', 'vlan'}, '02-flower-vlan')

    def test_vlan_protocol_flnl(self):  # $FLNL --protocol 802.1ad
        c = case(cmd='$FLNL add --dev $DEV1 --prio 1 --protocol 802.1ad '
                 '--attr eth_type=802.1ad --attr vlan_id=3')
        self.assertEqual(cf.used_families(c), {'core', 'vlan'})
        self.assertEqual(sc.step_of(declared(c), STEPS), '02-flower-vlan')

    def test_leniency_by_category(self):
        # cvlan_id without an inner tag: the stock flower ignores it, the
        # series refuses it until its leniency step (tcgen tags the case)
        self.assertIn(cf.LENIENCY, CASES['c77a']['category'])
        self.assertEqual(cf.families(CASES['c77a']),
                         {'core', 'vlan', cf.LENIENCY})
        bringing = [s for s, fams in STEPS if cf.LENIENCY in fams]
        self.assertEqual(len(bringing), 1, 'kernel/series/families must '
                         'name the step that brings family %r' % cf.LENIENCY)
        self.assertEqual(sc.step_of(CASES['c77a'], STEPS), bringing[0])
        # the same request without the tag is the vlan step's
        untagged = declared(dict(CASES['c77a'],
                                 category=['filter', 'flower']))
        self.assertEqual(sc.step_of(untagged, STEPS), '02-flower-vlan')

    def test_a_redirection_ends_a_tc_request(self):
        # the warning cases: tc filter add ... 2>&1 | grep -cF '...'
        c = case(cmd=ADD.format(1, 'ip_tos 0x10') + " 2>&1 | grep -cF 'x'")
        self.assertEqual(cf.used_families(c), {'core', 'tos_ttl'})

    def test_conntrack(self):       # ct_state +trk+new
        self.check('4199', {'core', 'conntrack'}, '08-flower-conntrack')

    def test_tunnel(self):          # enc_key_id; $FLNL key_enc_udp_src_port
        self.check('e09d', {'core', 'tunnel'}, '07-flower-tunnel')
        self.check('5f5a', {'core', 'tunnel'}, '07-flower-tunnel')

    def test_l2tpv3_raw(self):      # $FLNL --raw key_l2tpv3_sid
        self.check('4c14', {'core', 'l2tpv3'}, '06-flower-pppoe-l2tpv3')

    def test_pppoe_behind_vlan(self):
        self.check('5283', {'core', 'pppoe', 'vlan'}, '06-flower-pppoe-l2tpv3')

    def test_pppoe_dump_by_category(self):
        # the steps before 24 dump a PPPoE filter as the stock flower does
        # (tcgen tags the dump cases of its PPPoE variants)
        self.check('91b6', {'core', 'pppoe', 'vlan', cf.PPPOE_DUMP},
                   '24-flower-pppoe-dump-as-given')
        self.check('c6b2', {'core', 'pppoe', cf.PPPOE_DUMP},
                   '24-flower-pppoe-dump-as-given')

    def test_geneve_exact_by_category(self):
        # the steps before 30 use Geneve option lengths as their own mask
        self.check('ceca', {'core', 'tunnel', cf.GENEVE_EXACT},
                   '30-flower-geneve-exact-lengths')

    def test_template(self):        # tc chain add ... flower dst_ip
        self.check('6f9f', {'core', 'templates'}, '11-flower-chain-templates')

    def test_two_masks(self):       # dst_ip /24 then /16, prio 1
        self.check('5e02', {'core', 'masks'}, '09-flower-masks')

    def test_replace_changes_mask(self):
        # the steps before 19 refuse it, as the stock flower does
        self.check('196a', {'core', 'masks', 'replace_mask'},
                   '19-flower-replace-across-masks')

    def test_replace_keeps_mask(self):  # replace on a prio of two masks
        self.check('5e9f', {'core', 'masks'}, '09-flower-masks')

    def test_port_range(self):      # tc ip_proto sctp dst_port 1-1024 ...
        self.check('e49b', {'core', 'port_range'}, '16-flower-port-range')
        # a range ($FLNL key_port_dst_min/max) beside a tc range: masks
        self.check('e557', {'core', 'masks', 'port_range'},
                   '16-flower-port-range')

    def test_port_range_beside_an_exact_port_is_two_masks(self):
        self.check('7715', {'core', 'masks', 'port_range'},
                   '16-flower-port-range')

    def test_hash(self):            # $FLNL key_hash, key_hash_mask
        self.check('3d43', {'core', 'hash'}, '17-flower-hash')

    def test_refused_add_adds_no_mask(self):
        # the second filter (another mask) is expected refused
        self.check('9bdc', {'core', 'templates'},
                   '11-flower-chain-templates')

    def test_prio_emptied_takes_new_mask(self):
        self.check('aa3f', {'core'}, '01-flower-core')
        self.check('dc1c', {'core'}, '01-flower-core')

    def test_mac_prefix_is_its_bits(self):      # /24 == ff:ff:ff:00:00:00
        self.check('69ba', {'core'}, '01-flower-core')


class TestFamiliesField(unittest.TestCase):
    """A case's families are its field (corpus.FAMILIES_FIELD), read, not
    derived; the field must be what the case's commands use, so that it
    cannot go stale: tcgen writes it, a hand-written case says it."""

    def test_every_case_says_what_its_commands_use(self):
        stale = ['{} says {}, its commands use {}'.format(
            cid, c.get(cf.FIELD), sorted(cf.used_families(c)))
            for cid, c in sorted(CASES.items())
            if c.get(cf.FIELD) != sorted(cf.used_families(c))]
        self.assertEqual(stale, [], 'a generated case: run python3 -m '
                         'tcgen; a hand-written one: correct its field')

    def test_the_field_is_read(self):
        c = dict(CASES['3376'], **{cf.FIELD: ['core', 'vlan']})
        self.assertEqual(cf.families(c), {'core', 'vlan'})
        self.assertEqual(sc.step_of(c, STEPS), '02-flower-vlan')

    def test_a_case_without_the_field_is_refused(self):
        with self.assertRaisesRegex(ValueError, 'case test: no ' + cf.FIELD):
            cf.families(case(cmd=ADD.format(1, 'dst_ip 10.0.0.1')))


class TestShellWords(unittest.TestCase):
    """Requests are read from a command's shell words."""

    def test_flnl_batch_expect(self):
        req = "'add --dev $DEV1 --prio 1 --attr eth_type=ip --attr {}'"
        c = case(cmd="$FLNL batch --expect 22 'Bad thing' " +
                 req.format('vlan_id=3') + " --expect 0 '' " +
                 req.format('ip_tos=3'))
        self.assertEqual([r.refused for r in cf.requests(c)], [True, False])
        self.assertEqual(cf.used_families(c), {'core', 'vlan', 'tos_ttl'})

    def test_awk_batch_lines(self):
        c = case("awk 'BEGIN { for (i = 1; i <= 3; i++) printf \"filter "
                 "add dev $DEV1 ingress protocol ip prio 1 handle %d flower "
                 "dst_ip 10.0.0.0/%d\\n\", i, i + 8 }' > $BATCH_FILE",
                 cmd='$TC -b $BATCH_FILE')
        reqs = cf.requests(c)
        self.assertEqual([(r.prio, r.handle, r.keys) for r in reqs],
                         [('1', '%d', (('dst_ip', '10.0.0.0/%d'),))])
        self.assertIn(('dev', '$DEV1'), reqs[0].where)

    def test_quoted_words_and_options(self):
        c = case(cmd="$TC -s -n x filter add dev $DEV1 ingress protocol "
                 "'802.1q' prio 1 flower vlan_id 3 action drop; "
                 "$TC -j qdisc del dev $DEV1 ingress")
        reqs = cf.requests(c)
        self.assertEqual([(r.obj, r.protocol) for r in reqs],
                         [('filter', '802.1q'), ('reset', None)])
        self.assertIn(('dev', '$DEV1'), reqs[0].where)
        self.assertEqual(cf.used_families(c), {'core', 'vlan'})


class TestCorpus(unittest.TestCase):
    def test_every_case_gets_a_step(self):
        # families() raises on a word or attribute without a family
        none = [cid for cid, c in CASES.items()
                if sc.step_of(c, STEPS) is None]
        self.assertEqual(none, [])
        self.assertGreater(len(CASES), 400)

    def test_every_step_with_cls_flower_runs_cases(self):
        counts = [len(sc.select(s, STEPS, list(CASES.values())))
                  for s, _ in STEPS]
        # step 00 only moves the tree's file: no case needs it
        self.assertEqual((STEPS[0][1], counts[0]), (set(), 0))
        self.assertGreater(counts[1], 100)
        self.assertEqual(counts, sorted(counts))        # cumulative
        self.assertEqual(counts[-1], len(CASES))        # all at the end

    def test_every_family_is_declared(self):
        used = set(cf.TC_WORD.values()) | set(cf.ATTR_FAMILY.values())
        self.assertLessEqual(used, DECLARED)

    def test_every_uapi_attribute_has_a_family(self):
        self.assertEqual([a.name for a in uapi.TABLE
                          if cf.attr_family(a.name) is None], [])


def undeclared(rows):
    """The names of the rows whose family kernel/series/families does not
    declare (a typo, or a family no step brings: its cases run nowhere)."""
    return [k.name for k in rows if k.family not in DECLARED]


class TestKeyFamilies(unittest.TestCase):
    """A key's family is its flower/keys.py row's."""

    def test_every_key_row_has_a_declared_family(self):
        self.assertEqual(undeclared(keys.KEYS), [], 'flower/keys.py rows '
                         'of a family kernel/series/families does not name')

    def test_an_undeclared_family_is_seen(self):
        typo = keys.KEY['vlan_id']._replace(family='vlans')
        self.assertEqual(undeclared(keys.KEYS + (typo,)), ['vlan_id'])

    def test_other_tables_hold_no_key_row(self):
        # an entry there would hide the row's family; but the words rows
        # of two families share, decided there
        rows = {n for k in keys.KEYS for n in (k.attr, k.mask) if n}
        words = {w for k in keys.KEYS for w in (k.tc, keys.json_word(k))}
        other_attrs = {n for _, ns in cf.OTHER_ATTRS for n in ns.split()}
        other_words = {w for _, ws in cf.OTHER_WORDS for w in ws.split()}
        self.assertEqual(rows & other_attrs, set())
        self.assertEqual(words & other_words, {'src_port', 'dst_port'})

    def test_a_word_of_two_families_must_be_decided(self):
        with self.assertRaisesRegex(ValueError, "'src_port' is of families "
                                    'core port_range sctp'):
            cf.family_maps(keys.KEYS, other_words=())

    def test_a_new_key_needs_nothing_here(self):
        # a made-up key row: case_families knows its attribute, mask and tc
        # word, and their family, from flower.keys alone
        new = keys.KEY['l2tpv3_sid']._replace(
            name='foo', attr='KEY_FOO', mask='KEY_FOO_MASK', tc='foo_id',
            family='l2tpv3')
        tc = case(cmd=ADD.format(1, 'foo_id 7'))
        flnl = case(cmd='$FLNL add --dev $DEV1 --prio 1 --raw key_foo=7 '
                    '--raw key_foo_mask=255')
        with self.assertRaisesRegex(ValueError, 'no family'):
            cf.used_families(tc)                     # not a key yet
        self.addCleanup(importlib.reload, cf)   # once KEYS is back
        with mock.patch.object(keys, 'KEYS', keys.KEYS + (new,)):
            importlib.reload(cf)
        self.assertEqual(cf.attr_family('KEY_FOO'), 'l2tpv3')
        self.assertEqual(cf.attr_family('KEY_FOO_MASK'), 'l2tpv3')
        self.assertEqual(cf.used_families(tc), {'core', 'l2tpv3'})
        self.assertEqual(cf.used_families(flnl), {'core', 'l2tpv3'})
        self.assertEqual(sc.step_of(declared(tc), STEPS),
                         '06-flower-pppoe-l2tpv3')


class TestDerivation(unittest.TestCase):
    def test_same_mask_twice(self):
        c = case(ADD.format(1, 'dst_ip 10.0.0.0/24'),
                 ADD.format(2, 'dst_ip 10.1.0.0/24'))
        self.assertEqual(cf.used_families(c), {'core'})

    def test_other_mask_same_prio(self):
        c = case(ADD.format(1, 'dst_ip 10.0.0.0/24'),
                 cmd=ADD.format(2, 'dst_ip 10.1.0.0/16'))
        self.assertEqual(cf.used_families(c), {'core', 'masks'})

    def test_ip_proto_given_or_not_is_another_mask(self):
        # b4d6, 2d71: step 01 refuses the second filter (its mask has the
        # ip_proto byte); the series-corpus run found them at step 01
        c = case(ADD.format(1, 'dst_ip 10.0.0.0/8'),
                 cmd=ADD.format(2, 'dst_ip 10.0.0.0/8 ip_proto udp'))
        self.assertEqual(cf.used_families(c), {'core', 'masks'})
        self.check_step('b4d6', '09-flower-masks')

    def test_two_ip_protos_share_a_mask(self):
        c = case(ADD.format(1, 'ip_proto tcp dst_ip 10.0.0.0/8'),
                 cmd=ADD.format(2, 'ip_proto udp dst_ip 10.1.0.0/8'))
        self.assertEqual(cf.used_families(c), {'core'})

    def check_step(self, cid, step):
        cases = {c['id']: c for c in sc.load_cases()}
        self.assertEqual(sc.step_of(cases[cid], STEPS), step)

    def test_other_mask_other_prio(self):
        c = case(ADD.format(1, 'dst_ip 10.0.0.0/24'),
                 ADD.format(2, 'dst_ip 10.1.0.0/16').replace('prio 1',
                                                             'prio 2'))
        self.assertEqual(cf.used_families(c), {'core'})

    def test_other_mask_after_the_prio_emptied(self):
        c = case(ADD.format(1, 'dst_ip 10.0.0.0/24'),
                 '$TC filter del dev $DEV1 ingress protocol ip prio 1 '
                 'handle 1 flower',
                 ADD.format(2, 'src_ip 10.1.0.0/16'))
        self.assertEqual(cf.used_families(c), {'core'})

    def test_other_mask_in_a_batch_file(self):
        c = case(ADD.format(1, 'dst_ip 10.0.0.0/24'),
                 "printf '%s\\n' 'filter add dev $DEV1 ingress protocol ip "
                 "prio 1 handle 2 flower src_ip 10.0.0.1' > $BATCH_FILE",
                 cmd='$TC -b $BATCH_FILE')
        self.assertEqual(cf.used_families(c), {'core', 'masks'})

    def test_flnl_mask_attribute(self):
        flnl = ('$FLNL add --dev $DEV1 --prio 1 --attr eth_type=ip '
                '--attr ipv4_dst=10.0.0.1 --attr ipv4_dst_mask={}')
        same = case(flnl.format('255.0.0.0'), flnl.format('255.0.0.0'))
        other = case(flnl.format('255.0.0.0'), flnl.format('255.255.0.0'))
        self.assertEqual(cf.used_families(same), {'core'})
        self.assertEqual(cf.used_families(other), {'core', 'masks'})

    def test_sctp_ports(self):
        c = case(cmd=ADD.format(1, 'ip_proto sctp dst_port 80'))
        self.assertEqual(cf.used_families(c), {'core', 'sctp'})

    def test_port_ranges(self):
        # a range is port_range's, of tcp, udp and sctp alike
        for l4 in ('tcp', 'udp', 'sctp'):
            c = case(cmd=ADD.format(1, 'ip_proto %s src_port 10-20' % l4))
            self.assertEqual(cf.used_families(c), {'core', 'port_range'}, l4)
        flnl = case(cmd='$FLNL add --dev $DEV1 --prio 1 --attr eth_type=ip '
                    '--attr ip_proto=17 --raw key_port_dst_min=0001 '
                    '--raw key_port_dst_max=0002')
        self.assertEqual(cf.used_families(flnl), {'core', 'port_range'})

    def test_ranges_share_a_mask_an_exact_port_does_not(self):
        two = case(ADD.format(1, 'ip_proto tcp dst_port 10-20'),
                   cmd=ADD.format(2, 'ip_proto tcp dst_port 30-40'))
        self.assertEqual(cf.used_families(two), {'core', 'port_range'})
        mixed = case(ADD.format(1, 'ip_proto tcp dst_port 10-20'),
                     cmd=ADD.format(2, 'ip_proto tcp dst_port 30'))
        self.assertEqual(cf.used_families(mixed), {'core', 'port_range', 'masks'})

    def test_hash_attributes(self):
        c = case(cmd='$FLNL add --dev $DEV1 --prio 1 --attr key_hash=1 '
                 '--attr key_hash_mask=0xff')
        self.assertEqual(cf.used_families(c), {'core', 'hash'})

    def test_only_unknown_attributes_are_always_refused(self):
        unknown = cf.parse_flnl('add', '--dev $DEV1 --raw 200=00', False)
        self.assertTrue(cf.always_refused(unknown))
        for attr in ('key_hash=1', 'key_port_src_min=0001'):
            req = cf.parse_flnl('add', '--dev $DEV1 --raw ' + attr, False)
            self.assertFalse(cf.always_refused(req), attr)

    def test_action_words_are_not_keys(self):
        c = case(cmd=ADD.format(1, 'dst_ip 10.0.0.1 action vlan push id 5'))
        self.assertEqual(cf.used_families(c), {'core'})

    def test_unknown_word_is_an_error(self):
        with self.assertRaisesRegex(ValueError, 'no family'):
            cf.used_families(case(cmd=ADD.format(1, 'new_key 1')))


class TestSteps(unittest.TestCase):
    def test_families_file_must_list_the_series(self):
        with tempfile.NamedTemporaryFile('w', suffix='families') as f:
            f.write('01-flower-core core\n')
            f.flush()
            with self.assertRaisesRegex(ValueError, 'not those of'):
                sc.read_steps(f.name)

    def test_resolve_by_number(self):
        self.assertEqual(sc.resolve('02', STEPS), '02-flower-vlan')


def raw(*tests, script='tc_flower.sh'):
    """selftests/in-guest's output of a script whose test functions print
    tests: (function, TEST label, status) (a function and None: it
    printed none)."""
    lines = ['### selftests: {} kernel 6.1.192 variant ours cls_flower '
             'srcversion ABC'.format(script)]
    for fn, label, status in tests:
        lines.append('+ ' + fn)
        if label:
            lines.append('TEST: {:<60}[{}]'.format(
                label, ' OK ' if status == 'OK' else status))
    return '\n'.join(lines + ['### selftests: exit 0 after 80.5 s', ''])


class TestJudgeSelftests(unittest.TestCase):
    """The oracle of the selftests along the series (judge_selftests)."""
    A, B = (('a_test', 'a', 0), 'a'), (('b_test', 'b', 0), 'b')

    def rows(self, a=None, b=None):
        return [key + (st,) for key, st in ((self.A, a), (self.B, b)) if st]

    def judge(self, *runs, last='03'):
        return sc.judge_selftests(list(runs), last)

    def test_all_ok_at_every_step(self):
        v, first = self.judge(('01', False, self.rows('OK', 'OK')),
                              ('03', False, self.rows('OK', 'OK')))
        self.assertEqual(v['03'], sc.Verdict(['a', 'b'], [], [], []))
        self.assertEqual(list(first.values()), [['a', '01'], ['b', '01']])

    def test_an_early_fail_is_not_yet(self):
        v, first = self.judge(('01', False, self.rows('OK', 'FAIL')),
                              ('02', False, self.rows('OK', 'SKIP')),
                              ('03', False, self.rows('OK', 'OK')))
        self.assertEqual(v['01'], sc.Verdict(['a'], [], [('b', 'FAIL')], []))
        self.assertEqual(v['02'].not_yet, [('b', 'SKIP')])
        self.assertEqual(v['03'].failed, [])
        self.assertEqual(first[self.B[0]], ['b', '03'])

    def test_a_regression_fails(self):
        v, _ = self.judge(('01', False, self.rows('OK', 'OK')),
                          ('02', False, self.rows('OK', 'FAIL')),
                          ('03', False, self.rows('OK', 'OK')))
        self.assertEqual(v['02'].failed, [('b', 'FAIL, OK at 01')])

    def test_a_skip_after_ok_is_a_regression(self):
        v, _ = self.judge(('01', False, self.rows('OK', 'OK')),
                          ('02', False, self.rows('OK', 'SKIP')))
        self.assertEqual(v['02'].failed, [('b', 'SKIP, OK at 01')])

    def test_the_last_step_must_pass_everything(self):
        for status in ('FAIL', 'SKIP'):
            v, first = self.judge(('01', False, self.rows('OK', status)),
                                  ('03', False, self.rows('OK', status)))
            self.assertEqual(v['01'].failed, [])
            self.assertEqual(v['03'].failed,
                             [('b', status + ' at the last step')])
            self.assertEqual(first[self.B[0]], ['b', None])

    def test_without_the_last_step_no_last_rule(self):
        v, _ = sc.judge_selftests([('01', False, self.rows('OK', 'FAIL'))],
                                  None)
        self.assertEqual(v['01'].failed, [])

    def test_a_function_without_test_line_fails_at_the_last_step(self):
        rows = self.rows('OK') + [(('b_test', ''), 'b_test (no TEST line)',
                                   'none')]
        v, _ = self.judge(('01', False, rows), ('03', False, rows))
        self.assertEqual(v['01'].not_yet, [('b_test (no TEST line)', 'none')])
        self.assertEqual(v['03'].failed, [('b_test (no TEST line)',
                                           'none at the last step')])

    def test_no_test_line_at_all_fails(self):
        none = [(('a_test', ''), 'a_test (no TEST line)', 'none')]
        v, _ = self.judge(('01', False, none), ('02', False, None))
        self.assertEqual(v['01'].failed, [('(script)',
                                           'printed no TEST line')])
        self.assertEqual(v['02'].failed, [('(script)', 'no output')])

    def test_a_test_missing_later_fails(self):
        v, _ = self.judge(('01', False, self.rows('OK', 'FAIL')),
                          ('02', False, self.rows('OK')),
                          ('03', False, self.rows('OK')))
        self.assertEqual(v['02'].failed, [('b', 'missing, printed at 01')])
        self.assertEqual(v['03'].failed, [('b', 'missing, printed at 01')])

    def test_an_early_pass_is_no_baseline(self):
        # EARLY_PASS: OK at 01 by accident, FAIL at 02, OK from 03 on
        early = {'b': ['01', '02']}
        v, first = sc.judge_selftests(
            [('01', False, self.rows('OK', 'OK')),
             ('02', False, self.rows('OK', 'FAIL')),
             ('03', False, self.rows('OK', 'OK')),
             ('04', False, self.rows('OK', 'FAIL'))], '05', early)
        self.assertEqual(v['01'], sc.Verdict(['a', 'b'], [], [], ['b']))
        self.assertEqual(v['02'], sc.Verdict(['a'], [], [('b', 'FAIL')], []))
        self.assertEqual(first[self.B[0]], ['b', '03'])
        self.assertEqual(v['04'].failed, [('b', 'FAIL, OK at 03')])

    def test_early_passes_name_declared_families(self):
        self.assertLessEqual(set(sc.EARLY_PASS.values()), DECLARED)

    def test_the_classic_step_must_pass_everything(self):
        v, _ = self.judge(('00', True, self.rows('OK', 'FAIL')),
                          ('01', False, self.rows('OK', 'OK')))
        self.assertEqual(v['00'].failed,
                         [('b', 'FAIL on the tree\'s own flower')])

    def test_the_classic_step_stands_apart(self):
        # OK on the tree's flower, not yet on the rewrite's first step: no
        # regression; missing there is no "missing" later either
        v, first = self.judge(('00', True, self.rows('OK', 'OK')),
                              ('01', False, self.rows('OK', 'FAIL')),
                              ('02', False, self.rows('OK', 'OK')))
        self.assertEqual(v['00'], sc.Verdict(['a', 'b'], [], [], []))
        self.assertEqual(v['01'], sc.Verdict(['a'], [], [('b', 'FAIL')], []))
        self.assertEqual(first[self.B[0]], ['b', '02'])
        v, _ = self.judge(('00', True, self.rows('OK', 'OK')),
                          ('01', False, self.rows('OK')))
        self.assertEqual(v['01'].failed, [])


class TestReport(unittest.TestCase):
    """report(): the cases' TAP files and the selftests' raw output."""

    def setUp(self):
        # the scripts' ALL_TESTS, as the tree's forwarding directory has them
        self.fwd = tempfile.TemporaryDirectory()
        for script, tests in (('tc_flower.sh', 'a_test b_test'),
                              ('tc_chains.sh', 'c_test')):
            with open(os.path.join(self.fwd.name, script), 'w') as f:
                f.write('ALL_TESTS="{}"\n'.format(tests))
        patch = mock.patch.object(sc, 'FWD', self.fwd.name)
        patch.start()
        self.addCleanup(patch.stop)
        self.addCleanup(self.fwd.cleanup)

    def report(self, files, names):
        with tempfile.TemporaryDirectory() as out:
            for name, text in files.items():
                with open(os.path.join(out, name), 'w') as f:
                    f.write(text)
            buf = io.StringIO()
            with redirect_stdout(buf):
                rc = sc.report(out, names)
            with open(os.path.join(out, 'selftests.md')) as f:
                doc = f.read()
        return rc, buf.getvalue().splitlines(), doc

    @staticmethod
    def step(name, a='OK', b='OK', c='OK', classic=False):
        """The files of a step that ran one case (OK) and the scripts."""
        files = {name + '.' + script + '.raw': raw(*tests, script=script)
                 for script, tests in (
                     ('tc_flower.sh', [('a_test', 'a', a),
                                       ('b_test', 'b', b)]),
                     ('tc_chains.sh', [('c_test', 'c', c)]))}
        if classic:
            files.update({name + '.classic': '', name + '.ids': ''})
        else:
            files.update({name + '.ids': 'aaaa\n',
                          name + '.tap': '1..1\nok 1 - aaaa x\n'})
        return files

    def test_all_passed(self):
        rc, lines, doc = self.report(
            dict(self.step('01-flower-core', b='FAIL'),
                 **self.step('30-flower-geneve-exact-lengths')), ['01', '30'])
        self.assertEqual((rc, lines[-1]), (0, '7 passed, 0 failed'))
        self.assertIn('series-corpus: 01-flower-core: tc_flower.sh: 1 '
                      'passed, 0 failed, 1 not yet (80 s)', lines)
        self.assertIn('| tc_flower.sh | b | 30-flower-geneve-exact-lengths |',
                      doc)

    def test_a_regression_fails(self):
        rc, lines, _ = self.report(
            dict(self.step('01-flower-core'),
                 **self.step('09-flower-masks', c='FAIL')), ['01', '09'])
        self.assertEqual((rc, lines[-1]), (1, '7 passed, 1 failed'))
        self.assertIn('series-corpus: 09-flower-masks: tc_chains.sh: FAIL '
                      'c: FAIL, OK at 01-flower-core', lines)
        self.assertTrue(any('did not run' in line for line in lines))

    def test_the_last_step_fails_a_not_yet(self):
        # the series' last step (its module: the step before's, .same)
        last, before = STEPS[-1][0], STEPS[-2][0]
        files = dict(self.step('01-flower-core', b='FAIL'),
                     **self.step(before, b='SKIP'))
        files[last + '.same'] = before + '\n'
        rc, lines, doc = self.report(files, ['01', before, last])
        self.assertEqual((rc, lines[-1]), (1, '6 passed, 1 failed'))
        self.assertIn('| tc_flower.sh | b | never |', doc)

    def test_the_last_step_is_the_one_it_equals(self):
        # the last step not run again (its cls_flower.c is the one
        # before's, the Kconfig default's step): that one is the last
        last, before = STEPS[-1][0], STEPS[-2][0]
        files = dict(self.step(before, b='FAIL'))
        files[last + '.same'] = before + '\n'
        rc, lines, _ = self.report(files, [before, last])
        self.assertEqual((rc, lines[-1]), (1, '3 passed, 1 failed'))
        self.assertIn('series-corpus: {}: tc_flower.sh: '
                      'FAIL b: FAIL at the last step'.format(before), lines)

    def test_template_filter_fits_before_templates(self):
        # EARLY_PASS: OK at 01 (a second mask refused), FAIL at 09: not yet
        files = dict(self.step('01-flower-core'),
                     **self.step('09-flower-masks', c='FAIL'))
        for name in files:
            files[name] = files[name].replace('TEST: c ',
                                              'TEST: template filter fits ')
        with mock.patch.object(sc, 'EARLY_PASS', {
                ('tc_chains.sh', 'template filter fits'): 'templates'}):
            rc, lines, doc = self.report(files, ['01', '09'])
        self.assertEqual((rc, lines[-1]), (0, '7 passed, 0 failed'))
        self.assertIn('series-corpus: 09-flower-masks: tc_chains.sh: not yet '
                      'template filter fits (FAIL)', lines)
        self.assertIn('| tc_chains.sh | template filter fits | never |', doc)

    def test_a_script_without_output_fails(self):
        files = self.step('01-flower-core')
        del files['01-flower-core.tc_chains.sh.raw']
        rc, lines, _ = self.report(files, ['01'])
        self.assertEqual((rc, lines[-1]), (1, '3 passed, 1 failed'))
        self.assertIn('series-corpus: 01-flower-core: tc_chains.sh: FAIL '
                      '(script): no output', lines)

    def test_a_classic_step_runs_no_case_and_passes_everything(self):
        rc, lines, doc = self.report(
            self.step('01-flower-core', classic=True), ['01'])
        self.assertEqual((rc, lines[-1]), (0, '3 passed, 0 failed'))
        self.assertIn("no net/sched/cls_flower.c", lines[0])
        self.assertIn("| 01-flower-core (the tree's flower) |", doc)
        rc, lines, _ = self.report(
            dict(self.step('01-flower-core', classic=True, c='SKIP'),
                 **self.step('02-flower-vlan', c='FAIL')), ['01', '02'])
        self.assertEqual((rc, lines[-1]), (1, '5 passed, 1 failed'))
        self.assertIn("series-corpus: 01-flower-core: tc_chains.sh: FAIL c: "
                      "SKIP on the tree's own flower", lines)


    def test_all_cases_passed(self):
        # and the three selftests (step()'s)
        rc, lines, _ = self.report(dict(self.step('01-flower-core'), **{
            '01-flower-core.ids': 'aaaa\nbbbb\n',
            '01-flower-core.tap': '1..2\nok 1 - aaaa x\nok 2 - bbbb y\n'}),
            ['01'])
        self.assertEqual((rc, lines[-1]), (0, '5 passed, 0 failed'))

    def test_a_step_that_ran_nothing_fails(self):
        rc, lines, _ = self.report(dict(self.step('01-flower-core'), **{
            '01-flower-core.ids': '\n'}), ['01'])
        self.assertEqual((rc, lines[-1]), (1, '3 passed, 1 failed'))
        self.assertIn('no case selected', lines[0])

    def test_cases_that_never_reported_fail(self):
        rc, lines, _ = self.report(dict(self.step('01-flower-core'), **{
            '01-flower-core.ids': 'aaaa\nbbbb\ncccc\n',
            '01-flower-core.tap':
            '1..3\nok 1 - aaaa x\nok 2 - bbbb # skip\n'}), ['01'])
        self.assertEqual((rc, lines[-1]), (1, '4 passed, 2 failed'))

    def test_a_step_not_reached_fails(self):
        rc, lines, _ = self.report({}, ['02'])
        self.assertEqual(rc, 1)
        self.assertIn('not reached', lines[0])
        self.assertIn('series-corpus: 02-flower-vlan: tc_flower.sh: FAIL '
                      '(script): no output', lines)


if __name__ == '__main__':
    unittest.main()
