# SPDX-License-Identifier: GPL-2.0
"""Conntrack filters: the flows' frames (read back by scapy) have the
states the model gives them, ct filters go to chain 1 behind the ct
action, the flows are sent once each after a flush, the ct_state refusal
model, compare's check of the kernels' verdicts against the model.

    python3 -m unittest difftest.tests.test_ct
"""
import random
import struct
import sys
import types
import unittest

sys.dont_write_bytecode = True

from scapy.layers.inet import ICMP, IP, TCP, UDP, IPerror, UDPerror  # noqa: E402
from scapy.layers.inet6 import IPv6  # noqa: E402
from scapy.layers.l2 import Ether  # noqa: E402

from difftest import compare as C  # noqa: E402
from difftest import gen as G  # noqa: E402
from difftest import keys as K  # noqa: E402
from difftest import model as M  # noqa: E402
from difftest import runner as R  # noqa: E402
from difftest.tests.test_gen import FakeRig  # noqa: E402
from flower import packets as P  # noqa: E402

TRK, NEW, EST, REL, INV, RPL = (K.CT_TRK, K.CT_NEW, K.CT_EST, K.CT_REL,
                                K.CT_INV, K.CT_RPL)


def track(frames):
    """The ct_state of each frame (bytes, in order) by a small model of
    conntrack written from the frames alone (scapy reads them): a bad
    TCP checksum is invalid; a tuple's first frames are new until its
    reverse is seen (est+rpl), then est; an ICMP error quoting a known
    tuple is related (+rpl when it goes the tuple's reply way); an ICMP
    echo reply is the reverse of its request (same id); a frame not to
    the ct action's MAC is not tracked."""
    flows, out = {}, []     # original tuple -> reply seen
    for fr in frames:
        e = Ether(fr)
        if e.dst != P.mac(G.CT_MAC):
            out.append(0)       # no ct action: -trk
            continue
        ip = e[IP] if IP in e else e[IPv6]
        if TCP in e:
            t = TCP(bytes(e[TCP]))
            t.chksum = None     # scapy computes it over the pseudo header
            want = IP(bytes(IP(src=ip.src, dst=ip.dst) / t))[TCP].chksum
            out.append(TRK | INV if e[TCP].chksum != want else None)
            continue
        if ICMP in e and e[ICMP].type == 3:
            q = e[IPerror]
            tup = (q.src, q.dst, q[UDPerror].sport, q[UDPerror].dport)
            rev = (tup[1], tup[0], tup[3], tup[2])
            if tup in flows:
                # the quoted frame went the original way: the error goes
                # the reply way
                out.append(TRK | REL | RPL if ip.src == tup[1] else TRK | REL)
            elif rev in flows:
                out.append(TRK | REL)
            else:
                out.append(None)
            continue
        if UDP in e:
            tup = (ip.src, ip.dst, e[UDP].sport, e[UDP].dport)
            rev = (tup[1], tup[0], tup[3], tup[2])
        else:
            tup = (ip.src, ip.dst, 'icmp', e[ICMP].id)
            rev = (tup[1], tup[0], 'icmp', e[ICMP].id)
            if e[ICMP].type == 0 and rev not in flows:
                out.append(TRK | INV)   # a reply without a request
                continue
        if rev in flows:
            flows[rev] = True
            out.append(TRK | EST | RPL)
        elif flows.get(tup):
            out.append(TRK | EST)
        else:
            flows[tup] = False
            out.append(TRK | NEW)
    return out


def flows(seed=1):
    rng = random.Random(seed)
    act = G.ct_action(rng)
    return act, G.ct_flows(rng, act)


class TestFlows(unittest.TestCase):
    def test_states_as_the_frames_say(self):
        for seed in range(1, 6):
            act, fl = flows(seed)
            got = track([P.build(s) for _k, s in fl])
            self.assertEqual(got, [s['ct']['state'] for _k, s in fl], seed)
            # every state a frame can have after a ct action, but -trk
            self.assertEqual({s['ct']['state'] for _k, s in fl},
                             {TRK | NEW, TRK | EST, TRK | EST | RPL,
                              TRK | REL | RPL, TRK | INV, 0})
            # both families, and a frame no ct_state filter of protocol
            # ip or ipv6 can see (ARP)
            self.assertEqual({s['l3'] for _k, s in fl},
                             {'ipv4', 'ipv6', 'arp'})

    def test_checksums_conntrack_checks(self):
        """ICMP and IPv6 UDP checksums right (conntrack would call them
        invalid), the TCP one wrong (the invalid frame), IPv4 UDP's 0
        (none)."""
        _act, fl = flows()
        for kind, s in fl:
            e = Ether(P.build(s))
            for layer in (ICMP, UDP):
                if layer in e and (layer is ICMP or IPv6 in e):
                    ck = e[layer].chksum
                    del e[layer].chksum
                    self.assertEqual(Ether(bytes(e))[layer].chksum, ck, kind)
                elif layer in e and not e.haslayer(UDPerror):
                    self.assertEqual(e[UDP].chksum, 0, kind)
            if TCP in e:
                self.assertEqual(e[TCP].chksum, 0, kind)
            self.assertEqual(e.dst, P.mac(G.NOCT_MAC if 'untracked' in kind
                                          else G.CT_MAC))

    def test_zone_mark_labels(self):
        """Tracked frames carry the action's zone, mark and labels; the
        invalid one (no conntrack entry) only its zone."""
        act, fl = flows()
        for _k, s in fl:
            tracked = s['ct']['state'] not in (TRK | INV, 0)
            self.assertEqual(s['ct'], dict(
                state=s['ct']['state'],
                zone=act['zone'] if s['ct']['state'] else 0,
                mark=act['mark'] if tracked else 0,
                labels=act['labels'] if tracked else 0))

    def test_a_broken_flow_is_seen(self):
        """The tracker above tells a reply with its ports not swapped
        from the model's +est+rpl (it is another flow's first frame)."""
        _act, fl = flows()
        kind, s = fl[3]
        self.assertEqual(kind, 'ct:udp_reply')
        s['l4']['sport'], s['l4']['dport'] = s['l4']['dport'], s['l4']['sport']
        got = track([P.build(t) for _k, t in fl])
        self.assertNotEqual(got, [t['ct']['state'] for _k, t in fl])


class TestFilters(unittest.TestCase):
    def test_ct_keys_only_in_chain_1(self):
        for seed in range(1, 4):
            b = G.gen_batch(random.Random(seed), 40, cover=True)
            for f in b['filters']:
                ct = {n for n, _v, _m in f['keys'] if n in K.CT}
                self.assertEqual(bool(f.get('chain')), bool(ct), f['desc'])
                if f.get('chain'):
                    self.assertTrue(f['desc'].startswith('chain 1 '))
            # every ct key in a filter ours takes
            self.assertTrue(set(K.CT) <= G.covered(b['filters']))
            flow = [p for p in b['packets'] if p.get('ct')]
            self.assertEqual(len(flow), len(flows()[1]))
            self.assertEqual(b['packets'][-len(flow):], flow)

    def test_filters_aim_at_the_flows(self):
        """Some ct filters match a flow frame, some miss all by one bit
        of one key (near misses), over a few batches."""
        hit = near = 0
        for seed in range(1, 6):
            b = G.gen_batch(random.Random(seed), 20)
            flow = [p['spec'] for p in b['packets'] if p.get('ct')]
            for f in b['filters']:
                if not f.get('chain') or M.predict_refusal(f):
                    continue
                if any(C.ct_expected(f, s) for s in flow):
                    hit += 1
                elif any(sum(bin((P.get_field(s, K.KEY[n]['field']) ^ v) &
                                 M.full_mask(K.KEY[n], m)).count('1')
                             for n, v, m in f['keys']) == 1 for s in flow):
                    near += 1
        self.assertGreater(hit, 10)
        self.assertGreater(near, 5)

    def test_chain_attribute(self):
        """Rig.add_filter() puts TCA_CHAIN 1 in the request of a chain 1
        filter, none in a chain 0 one."""
        sent = []

        class NL:
            def call(self, msg_type, flags, payload):
                sent.append(payload)
                return types.SimpleNamespace(err=0, msg='')
        rig = R.Rig.__new__(R.Rig)
        rig.nl = NL()
        rig.hooks = {None: (7, R.TC_H_CLSACT_INGRESS)}
        rig.add_filter(3, 0x0800, 'flower', b'', 1, chain=1)
        rig.add_filter(3, 0x0800, 'flower', b'', 1)
        chains = []
        for payload in sent:
            at = R.parse_attrs(payload[20:])
            chains.append([struct.unpack('=I', v)[0]
                           for v in at.get(R.TCA_CHAIN, [])])
        self.assertEqual(chains, [[1], []])


class TestRunner(unittest.TestCase):
    def batch(self):
        b = G.gen_batch(random.Random(5), 12)
        b['packets'] = b['packets'][:5] + [p for p in b['packets']
                                          if p.get('ct')]
        return b

    def test_flows_once_each_after_the_flush(self):
        b = self.batch()
        rig = FakeRig()
        sends = []
        orig = rig.send
        rig.send = lambda fr: (sends.append(fr), orig(fr))
        r = R.run_batch(rig, b, 4, lambda m: None)
        flow = [bytes.fromhex(p['hex']) for p in b['packets'] if p.get('ct')]
        # the regular frames first (rounds of 4: 2^j times each), then
        # the flows' frames once each, in order, after the flush; then
        # the regular frames again, the flows' not
        regular = 1 + 2 + 4 + 8 + 1
        self.assertEqual(sends[regular:regular + len(flow)], flow)
        self.assertEqual(rig.flushed_at, regular)
        self.assertEqual(len(sends), regular + len(flow) + regular)
        self.assertEqual(sends[:regular], sends[-regular:])
        for f in r['filters']:
            if not f['err']:
                self.assertEqual(f['bits_again'],
                                 f['bits'][:5] + '-' * len(flow))
        self.assertEqual(r['reached_ct'], '0' * 5 + '1' * len(flow))
        # the ct action after chain 0's guard
        last = max(p for p, f in zip(b['prio'], b['filters'])
                   if not f.get('chain'))
        self.assertEqual(rig.trigger[:2], ('ingress', last + 2))

    def test_a_disturbed_flow_round_is_not_sent_again(self):
        """A flow frame whose round does not settle fails the batch (a
        second send would change its flow's state)."""
        b = self.batch()
        rig = FakeRig()
        orig = rig.send

        def send(fr):
            orig(fr)
            if fr[:6] == G.CT_MAC.to_bytes(6, 'big'):
                orig(fr)        # something else came too
        rig.send = send
        with self.assertRaisesRegex(RuntimeError, 'not sent again'):
            R.run_batch(rig, b, 4, lambda m: None)


class TestRefusals(unittest.TestCase):
    def test_ct_state_combinations(self):
        """ours refuses exactly the combinations stock's
        fl_validate_ct_state() refuses (under the mask), with ours'
        messages (kernel/net/sched/cls_flower.c's)."""
        with open('kernel/net/sched/cls_flower.c') as fp:
            src = fp.read()
        for st in range(64):
            stock = (st and not st & TRK) or (st & NEW and st & EST) or \
                (st & INV and st & ~(TRK | INV)) or (st & NEW and st & RPL)
            msg = M.ct_state_error(st)
            self.assertEqual(bool(msg), bool(stock), hex(st))
            if msg:
                self.assertIn('"%s"' % msg, src)
            for m in (None, 0x3f, st, 0):
                f = dict(proto='ip', vlan_eth=None, cvlan_eth=None,
                         ip_proto=None, indev=None, keys=[['ct_state', st, m]])
                want = M.ct_state_error(st & (0xffff if m is None else m))
                self.assertEqual(M.predict_refusal(f),
                                 [M.EINVAL, want, None] if want else None)


class TestCompare(unittest.TestCase):
    def test_expected_by_protocol(self):
        """A filter of protocol ip sees the IPv4 flow frames, ipv6 the
        IPv6 ones, all every one (ARP too); ip_proto narrows it."""
        _act, fl = flows()
        f = dict(proto='all', ip_proto=None, keys=[['ct_zone', 0, 0]])
        for proto, ipp, l3 in (('all', None, {'ipv4', 'ipv6', 'arp'}),
                               ('ip', None, {'ipv4'}),
                               ('ipv6', None, {'ipv6'}),
                               ('ip', 1, {'ipv4'})):
            g = dict(f, proto=proto, ip_proto=ipp)
            got = {s['l3'] for _k, s in fl if C.ct_expected(g, s)}
            self.assertEqual(got, l3, proto)
        g = dict(f, proto='ip', ip_proto=1)
        self.assertEqual({s['ip']['proto'] for _k, s in fl
                          if C.ct_expected(g, s)}, {1})

    def test_model_check(self):
        """compare.py's check: a chain 1 verdict on a flow frame that is
        not the model's is a problem of the run, on either kernel."""
        b = G.gen_batch(random.Random(6), 8)
        flow = [j for j, p in enumerate(b['packets']) if p.get('ct')]
        cases = dict(batches=[b])
        res = dict(sent=[1] * len(b['packets']), filters=[
            dict(err=0, msg='', bits=''.join(
                str(int(bool(f.get('chain')) and j in flow and
                        C.ct_expected(f, b['packets'][j]['spec'])))
                for j in range(len(b['packets']))))
            for f in b['filters']])
        ok = [i for i, f in enumerate(b['filters'])
              if f.get('chain') and not M.predict_refusal(f)]
        self.assertEqual(C.ct_model_misses(cases, dict(batches=[res]),
                                           dict(batches=[res])), [])
        bad = dict(res, filters=[dict(x) for x in res['filters']])
        i, j = ok[0], flow[2]
        bits = list(bad['filters'][i]['bits'])
        bits[j] = '1' if bits[j] == '0' else '0'
        bad['filters'][i]['bits'] = ''.join(bits)
        self.assertEqual(
            C.ct_model_misses(cases, dict(batches=[res]),
                              dict(batches=[bad])),
            [(0, i, j, res['filters'][i]['bits'][j], bits[j])])


if __name__ == '__main__':
    unittest.main()
