# SPDX-License-Identifier: GPL-2.0
"""ovs/scenarios.py's verdicts on what OVS and tc dumped, and the report's
reading of them.  Host only: no guest, no OVS, no kernel.

The flows are the ones ours gave before the "counted" checks
(flows-before.txt): there an offloaded flow passed whether or not its
flower filter ever matched; now a flow kind that the scenario's traffic
must cross fails when its filter counted no packet (packets:0).
"""

import contextlib
import io
import os
import re
import unittest

from ovs import report
from ovs import scenarios as S

HERE = os.path.dirname(os.path.abspath(__file__))


def load_flows():
    """{scenario: [flow line]} from flows-before.txt."""
    res, cur = {}, None
    with open(os.path.join(HERE, 'flows-before.txt')) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            m = re.match(r'\[(\w+)\]$', line)
            if m:
                cur = res.setdefault(m.group(1), [])
            else:
                cur.append(line)
    return res


FLOWS = load_flows()


def zeroed(flows):
    """The same flows, as if flower had matched none of them (all their
    traffic through the upcall)."""
    return [re.sub(r'packets:\d+, bytes:\d+', 'packets:0, bytes:0', f)
            for f in flows]


def verdicts(wants, flows, kdp=()):
    return {w.label: S.want_verdict(w, flows, list(kdp)) for w in wants}


def failed(wants, flows, kdp=()):
    return sorted(label for label, (ok, _) in
                  verdicts(wants, flows, kdp).items() if not ok)


FIRST_FRAG = FLOWS['l3l4'][7]


class WantVerdict(unittest.TestCase):
    def test_fixture(self):
        self.assertEqual([len(FLOWS[k]) for k in
                          ('l2', 'l3l4', 'ct', 'tunnel')], [8, 28, 8, 16])
        self.assertIn('frag=first', FIRST_FRAG)
        self.assertIn('packets:0,', FIRST_FRAG)

    def test_packets_zero_where_traffic_was_sent_fails(self):
        # the brief's example: offloaded, but flower never matched it
        w = S.Want('a first-fragment flow', lambda f: 'frag=first' in f and
                   'in_port(l3a)' in f)
        ok, detail = S.want_verdict(w, [FIRST_FRAG], [])
        self.assertFalse(ok)
        self.assertIn('counted no packet', detail)
        self.assertIn('frag=first', detail)
        self.assertTrue(w.check_name().startswith('offloaded, counted: '))

    def test_counted_flow_passes(self):
        w = S.Want('a first-fragment reply flow',
                   lambda f: 'frag=first' in f and 'in_port(l3b)' in f)
        self.assertEqual(S.want_verdict(w, FLOWS['l3l4'], []), (True, ''))

    def test_one_counted_flow_of_the_kind_is_enough(self):
        w = S.Want('an ICMP first fragment', lambda f: 'frag=first' in f)
        ok, _ = S.want_verdict(w, FLOWS['l3l4'], [])
        self.assertTrue(ok)
        ok, _ = S.want_verdict(w, zeroed(FLOWS['l3l4']), [])
        self.assertFalse(ok)

    def test_installed_only_passes_without_packets(self):
        # a flow no packet crosses after its install: no claim of a match
        w = S.Want('an ARP flow', lambda f: 'eth_type(0x0806)' in f,
                   carried=False)
        self.assertEqual(S.want_verdict(w, zeroed(FLOWS['l2']), []),
                         (True, ''))
        self.assertIn('installed only', w.check_name())
        self.assertNotIn('counted', w.check_name())

    def test_missing_flow_fails_and_names_the_kernel_datapath(self):
        w = S.Want('a TCP/IPv6 flow', lambda f: 'ipv6(' in f and
                   'proto=6,' in f)
        kdp = [f for f in FLOWS['l3l4'] if w.pred(f)]
        off = [f for f in FLOWS['l3l4'] if not w.pred(f)]
        ok, detail = S.want_verdict(w, off, kdp)
        self.assertFalse(ok)
        self.assertIn('no offloaded flow matches; kernel datapath has 2',
                      detail)

    def test_near_flows_named_when_dumped_otherwise(self):
        w = S.Want('an 802.1Q flow', lambda f: 'encap(eth_type(0x0800)' in f,
                   near=lambda f: 'vlan(vid=10' in f)
        off = [f.replace('encap(eth_type(0x0800),ipv4(frag=no))', 'encap()')
               for f in FLOWS['l2']]
        ok, detail = S.want_verdict(w, off, [])
        self.assertFalse(ok)
        self.assertIn('dumped otherwise', detail)


class ScenarioWants(unittest.TestCase):
    """Each scenario's flow kinds against the flows of the run before."""

    def test_l3l4_before_fails_only_the_request_first_fragment(self):
        self.assertEqual(
            failed(S.l3l4_wants('l3a', 'l3b'), FLOWS['l3l4']),
            ['an echo request first-fragment flow from l3a (frag=first)'])

    def test_l3l4_all_through_the_slow_path_fails_every_kind(self):
        wants = S.l3l4_wants('l3a', 'l3b')
        self.assertTrue(all(w.carried for w in wants))
        self.assertEqual(len(failed(wants, zeroed(FLOWS['l3l4']))),
                         len(wants))

    def test_l3l4_every_kind_is_found(self):
        # with every flow counted, each kind matches some flow
        flows = [f.replace('packets:0,', 'packets:1,')
                 for f in FLOWS['l3l4']]
        self.assertEqual(failed(S.l3l4_wants('l3a', 'l3b'), flows), [])

    def test_l2_before_fails_the_arp_kinds(self):
        # the ARP flows of that run saw no packet after their install
        # (no ARP exchange followed): now the scenario ARPs again
        self.assertEqual(
            failed(S.l2_wants('l2a', 'l2b'), FLOWS['l2']),
            ['an 802.1Q ARP flow from l2a (vlan(vid=10), encap ARP)',
             'an 802.1Q ARP flow from l2b (vlan(vid=10), encap ARP)',
             'an ARP flow from l2b (the unicast reply)',
             'an ARP request flow from l2a (broadcast, arp(op=1))'])

    def test_l2_arp_kinds_pass_once_counted(self):
        flows = [f.replace('packets:0,', 'packets:1,') for f in FLOWS['l2']]
        self.assertEqual(failed(S.l2_wants('l2a', 'l2b'), flows), [])

    def test_ct_and_tunnel_before_pass_and_fail_when_zeroed(self):
        cases = [(S.ct_wants('cta', 'ctb'), FLOWS['ct']),
                 (S.tunnel_wants('vxlan', 'vxlan_sys_4789'),
                  FLOWS['tunnel']),
                 (S.tunnel_wants('geneve', 'genev_sys_6081', opts=True),
                  FLOWS['tunnel'])]
        for wants, flows in cases:
            self.assertEqual(failed(wants, flows), [])
            self.assertEqual(len(failed(wants, zeroed(flows))), len(wants))


def tc(*filters):
    """{dev: [(prio, protocol, handle, packets, actions)]}."""
    res = {}
    for dev, prio, proto in filters:
        res.setdefault(dev, []).append((prio, proto, 1, 1, ['mirred']))
    return res


L3L4_ETHERTYPES = {0x0800, 0x0806, 0x86dd}


class Prios(unittest.TestCase):
    def test_outer_ethertypes(self):
        self.assertEqual(S.outer_ethertypes(FLOWS['l3l4']), L3L4_ETHERTYPES)
        # the VLAN flows count as 0x8100, their inner type is not a prio's
        self.assertEqual(S.outer_ethertypes(FLOWS['l2']),
                         {0x0800, 0x0806, 0x8100})

    def test_one_prio_per_ethertype_passes(self):
        ok, detail = S.prio_verdict(
            tc(('l3a', 2, 'ip'), ('l3a', 2, 'ip'), ('l3a', 3, 'arp'),
               ('l3b', 2, 'ip'), ('l3b', 4, 'ipv6'), ('l3b', 3, 'arp')),
            FLOWS['l3l4'])
        self.assertTrue(ok, detail)
        self.assertIn('3 prio(s) for 3 ethertype(s)', detail)

    def test_one_prio_per_mask_fails(self):
        # what OVS does when its multi-mask probe fails: a prio per
        # (mask, ethertype), e.g. ip filters in prios 2, 5 and 6
        ok, detail = S.prio_verdict(
            tc(('l3a', 2, 'ip'), ('l3a', 5, 'ip'), ('l3a', 3, 'arp'),
               ('l3b', 6, 'ip'), ('l3b', 4, 'ipv6')), FLOWS['l3l4'])
        self.assertFalse(ok)
        self.assertIn('more than one prio for: ip', detail)

    def test_more_prios_than_ethertypes_fails(self):
        ok, _ = S.prio_verdict(
            tc(('l3a', 2, 'ip'), ('l3a', 3, 'arp'), ('l3a', 4, 'ipv6')),
            [f for f in FLOWS['l3l4'] if 'eth_type(0x86dd)' not in f])
        self.assertFalse(ok)

    def test_no_filter_fails(self):
        self.assertEqual(S.prio_verdict({'l3a': []}, FLOWS['l3l4']),
                         (False, 'no flower filter on the ports'))


START_LOG = """\
2026-12-04T05:27:01.000Z|00030|netdev_offload_tc|INFO|probe tc: block offload is supported.
2026-12-04T05:27:01.000Z|00031|netdev_offload_tc|INFO|probe tc: multiple masks on single tc prio is supported.
2026-12-04T05:27:01.000Z|00032|netdev_offload_tc|INFO|probe tc: supported ovs ct_state bits: 0x3f
2026-12-04T05:27:01.000Z|00033|dpif_netlink|INFO|Overriding n-handler-threads to 2, setting n-revalidator-threads to 1
2026-12-04T05:27:01.000Z|00034|netdev_offload|INFO|br-probe: Assigned flow API 'linux_tc'.
"""


class Start(unittest.TestCase):
    def run_start(self, text):
        sc = S.Scenario('start', 'start')
        with contextlib.redirect_stdout(io.StringIO()):
            S.check_start(sc, text)
        return {c['check']: c['ok'] for c in sc.checks}

    def test_probe_line_is_ovs_31s(self):
        self.assertEqual(S.MULTI_MASK_LINE, 'probe tc: multiple masks on '
                         'single tc prio is supported.')

    def test_multi_mask_probe_passes(self):
        res = self.run_start(START_LOG)
        self.assertEqual(len(res), 5)
        self.assertTrue(all(res.values()), res)

    def test_refused_multi_mask_probe_fails(self):
        res = self.run_start(START_LOG.replace(
            'multiple masks on single tc prio is supported.', 'x'))
        bad = [k for k, ok in res.items() if not ok]
        self.assertEqual(len(bad), 1)
        self.assertIn('multi-mask probe', bad[0])


class Report(unittest.TestCase):
    def scenario(self, flows, checks):
        return {'name': 'l3l4', 'title': '2. L3/L4', 'passed': False,
                'checks': checks,
                'info': {'offloaded': flows, 'kernel_dp': [],
                         'tc': tc(('l3a', 2, 'ip'), ('l3a', 3, 'arp'),
                                  ('l3b', 4, 'ipv6')),
                         'ethertypes': ['0x0800', '0x0806', '0x86dd'],
                         'traffic': [['ping', True]]}}

    def test_row_counts_flows_that_counted_packets(self):
        sc = self.scenario(FLOWS['l3l4'], [{'check': 'x', 'ok': True,
                                            'detail': ''}])
        row = report.row('ours', sc)
        counted = sum(1 for f in FLOWS['l3l4']
                      if not re.search(r'packets:0,', f))
        self.assertIn('| 28 / %d |' % counted, row)
        self.assertIn('| 3 / 3 / 3 |', row)
        self.assertIn('3 tc prio(s) for 3 ethertype(s)', row)

    def test_first_fragment_failure_gets_its_cause(self):
        w = S.l3l4_wants('l3a', 'l3b')[4]
        ok, detail = S.want_verdict(w, FLOWS['l3l4'], [])
        sc = self.scenario(FLOWS['l3l4'], [
            {'check': w.check_name(), 'ok': ok, 'detail': detail}])
        why = report.why(sc)
        self.assertIn('FLOW_DISSECTOR_F_PARSE_1ST_FRAG', why)
        self.assertIn('echo request first-fragment', why)


if __name__ == '__main__':
    unittest.main()
