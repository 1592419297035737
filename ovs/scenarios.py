#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Open vSwitch's tc offload on our flower: the scenarios, run in the guest.

usage: python3 -m ovs.scenarios [--json FILE] [--logs DIR] SCENARIO...
(from the repository root; the traffic's echo server and client are
`python3 -m ovs.ovsctl serve|client`, run inside a namespace)

SCENARIO: l2, l3l4, ct, tunnel, or all.  Starts ovsdb-server and
ovs-vswitchd (the host's Debian 3.1 binaries, state in the guest's /tmp and
/run) with hw-offload=true, tc-policy=skip_hw, then per scenario makes a
bridge whose ports are veths into two namespaces, installs OpenFlow rules,
sends traffic and checks:

  traffic      each ping / TCP / UDP exchange does what the rules say
  offloaded    `dpctl/dump-flows type=tc,offloaded` holds the scenario's
               flows (per scenario: which kinds must be there), and each
               kind the traffic must cross after its install ("counted")
               has a flow whose flower filter counted packets (its
               `packets:` there is the filter's own counter): a filter
               that never matches leaves its traffic to the upcall and
               OVS's slow path, where every traffic check still passes
  kernel-dp    `dpctl/dump-flows type=ovs` (the openvswitch kernel
               datapath, where a flow stays when its flower add fails)
               holds no flow
  tc-counts    `tc -s filter show dev PORT ingress` on every port that
               received traffic shows flower filters that counted packets
  prios        the flower filters on the ports use one prio per
               ethertype, no more prios than the offloaded flows have
               ethertypes: OVS's allocation once its probe found that one
               prio takes several masks (the start scenario checks that)
  log          the ovs-vswitchd log written during the scenario has no
               'acknowledgment does not match', 'failed to offload', |ERR|
               or offload-module |WARN| line

Every check prints `ok` or `FAIL` with its scenario; a scenario that cannot
run prints SKIP with a reason and counts as failed.  The last line is
`N passed, N failed` (checks).  --json writes everything the report
(ovs/report.py) needs; --logs copies the OVS logs there.  Exit 1 if any
check failed.
"""

import json
import os
import re
import shutil
import sys
import time

from ovs.ovsctl import (BAD_LOG_RE, Log, MULTI_MASK_LINE, OVSDB_LOG, Server,
                        Setup, VSWITCHD_LOG, actions, add_ns_port, add_vlan,
                        dump_flows, filter_naks, flow_packets, ofctl, ping,
                        replay, run, start_ovs, stop_ovs, talk, tc_filters,
                        teardown, vsctl, why_lines)


# --------------------------------------------------------------------------
# Checks and scenarios

class Scenario:
    def __init__(self, name, title):
        self.name = name
        self.title = title
        self.checks = []
        self.info = {}

    def check(self, what, ok, detail=''):
        self.checks.append({'check': what, 'ok': bool(ok),
                            'detail': detail})
        print('%s %s: %s%s' % ('ok  ' if ok else 'FAIL', self.name, what,
                               (' -- ' + detail) if detail and not ok
                               else ''), flush=True)
        return ok

    def skip(self, reason):
        self.checks.append({'check': 'run', 'ok': False,
                            'detail': 'SKIP: ' + reason})
        print('SKIP %s: %s' % (self.name, reason), flush=True)

    def failed(self):
        return sum(1 for c in self.checks if not c['ok'])


class Want:
    """A kind of datapath flow that the scenario must find in flower.

    pred: predicate on one line of `dpctl/dump-flows type=tc,offloaded`.
    carried: the scenario sent traffic that such a flow must carry after
    OVS installed it (the first packet of a flow always takes the upcall,
    the later ones must hit the filter), so one matching flow must also
    show packets counted.  A tc flow's `packets:` in that dump is its
    flower filter's own counter (OVS reads it from the filter's action
    stats when it dumps the filter), so packets:0 there means the traffic
    went round flower, through the upcall and OVS's slow path, which
    every traffic check would still pass.  carried=False only for a flow
    that no packet legitimately reaches once it is installed: then the
    check says "installed", never "matched".
    near: optional predicate for the detail of a failure (flows of the
    kind that were offloaded but dumped otherwise).
    """

    def __init__(self, label, pred, carried=True, near=None):
        self.label = label
        self.pred = pred
        self.carried = carried
        self.near = near

    def check_name(self):
        return ('%s: %s' % ('offloaded, counted' if self.carried
                            else 'offloaded (installed only)', self.label))


def want_verdict(want, off, kdp):
    """(ok, detail) of one Want against the offloaded flows `off` and the
    kernel datapath's `kdp` (lines of dump-flows)."""
    hit = [f for f in off if want.pred(f)]
    if not hit:
        close = [f for f in off if want.near and want.near(f)]
        in_kdp = [f for f in kdp if want.pred(f)]
        return False, ('no offloaded flow matches; kernel datapath has '
                       '%d: %s%s' % (len(in_kdp), '; '.join(in_kdp)[:500],
                                     '; offloaded, dumped otherwise: ' +
                                     '; '.join(close)[:500] if close
                                     else ''))
    if not want.carried:
        return True, ''
    counted = [f for f in hit if flow_packets(f) > 0]
    if not counted:
        return False, ('%d offloaded flow(s) match but their tc filters '
                       'counted no packet although the scenario sent '
                       'traffic they must carry (it went through the '
                       'upcall, not flower): %s'
                       % (len(hit), '; '.join(hit)[:700]))
    return True, ''


def outer_ethertypes(flows):
    """The outermost eth_type(0x....) of each flow line, as a set."""
    res = set()
    for f in flows:
        m = re.search(r'eth_type\((0x[0-9a-fA-F]+)', f.split('actions:')[0])
        if m:
            res.add(int(m.group(1), 16))
    return res


def prio_verdict(tc, off):
    """(ok, detail): OVS used at most one tc prio per ethertype.

    OVS 3.1 (netdev-offload-tc.c, get_prio_for_tc_flower()) keys its prio
    map on the flow's (outer) ethertype alone once the probe found that a
    prio takes several masks (multi_mask_per_prio), and on (mask,
    ethertype) otherwise; the map is global, shared by all ports.  So on
    a flower that takes several masks per prio, as the stock one does,
    every protocol's filters sit in one prio, and the scenario's ports
    use no more prios than its offloaded flows have ethertypes.
    tc: {dev: [(prio, protocol, handle, packets, actions)]}."""
    by_proto = {}
    prios = set()
    for fl in tc.values():
        for f in fl:
            by_proto.setdefault(f[1], set()).add(f[0])
            prios.add(f[0])
    ethertypes = outer_ethertypes(off)
    split = {p: sorted(v) for p, v in by_proto.items() if len(v) > 1}
    ok = bool(prios) and not split and len(prios) <= len(ethertypes)
    detail = ('%d prio(s) for %d ethertype(s) of the offloaded flows (%s); '
              'prios by tc protocol: %s' % (
                  len(prios), len(ethertypes),
                  ', '.join('0x%04x' % e for e in sorted(ethertypes)),
                  ', '.join('%s: %s' % (p, ','.join(str(x) for x in
                                                     sorted(v)))
                            for p, v in sorted(by_proto.items(),
                                               key=lambda kv: str(kv[0])))))
    if split:
        detail += '; more than one prio for: %s' % ', '.join(
            str(p) for p in sorted(split, key=str))
    if not prios:
        detail = 'no flower filter on the ports'
    return ok, detail


def verify(sc, log, ports, want):
    """The common checks once the traffic has run.

    ports: devices whose ingress must show flower filters that counted
    packets.  want: [Want] that must each match at least one offloaded
    flow, one that counted packets where Want.carried.
    """
    off = dump_flows('tc,offloaded')
    kdp = dump_flows('ovs')
    sc.info['offloaded'] = off
    sc.info['kernel_dp'] = kdp
    sc.check('offloaded: dump-flows type=tc,offloaded is not empty',
             off, 'no offloaded flow')
    for w in want:
        ok, detail = want_verdict(w, off, kdp)
        sc.check(w.check_name(), ok, detail)
    sc.check('kernel-dp: dump-flows type=ovs holds no flow', not kdp,
             '%d flow(s): %s' % (len(kdp), '; '.join(kdp)[:800]))
    tc_pk = 0
    sc.info['tc'] = {}
    for dev in ports:
        fl = tc_filters(dev)
        sc.info['tc'][dev] = fl
        pk = sum(f[3] for f in fl)
        tc_pk += pk
        sc.check('tc-counts: %s has flower filters that counted packets'
                 % dev, fl and pk > 0,
                 '%d flower filter(s), %d packets' % (len(fl), pk))
    sc.info['tc_packets'] = tc_pk
    sc.info['offloaded_packets'] = sum(flow_packets(f) for f in off)
    sc.info['offloaded_counted'] = sum(1 for f in off if flow_packets(f))
    sc.info['ethertypes'] = ['0x%04x' % e for e in
                             sorted(outer_ethertypes(off))]
    ok, detail = prio_verdict(sc.info['tc'], off)
    sc.check('prios: one tc prio per ethertype (OVS\'s allocation when '
             'one prio takes several masks)', ok, detail)
    sc.info['prio_detail'] = detail
    text = log.text()
    bad = [l for l in text.splitlines() if BAD_LOG_RE.search(l)]
    sc.info['log_errors'] = bad
    sc.info['why'] = why_lines(text)
    if kdp:
        sc.info['why'] += ['kernel, flow put again: ' + n for n in
                           replay(dump_flows('ovs', names=False)[:4])]
    sc.info['log_dropped'] = len(re.findall(r'Dropped \d+ log messages',
                                            text))
    sc.check('log: no flower acknowledgment mismatch, offload failure or '
             'ERR line', not bad, '%d line(s): %s' % (len(bad),
                                                   ' | '.join(bad[:4])[:900]))


def traffic(sc, what, ok, detail=''):
    sc.info.setdefault('traffic', []).append([what, bool(ok)])
    return sc.check('traffic: ' + what, ok, detail)


def pinged(sc, ns, addr, what, size=56, count=5):
    got, sent = ping(ns, addr, count=count, size=size)
    # The first echo goes through the upcall; all must come back.
    return traffic(sc, '%s (%d/%d replies)' % (what, got, sent), got == sent,
                   '%d of %d replies' % (got, sent))


def l2_wants(a, b):
    """The L2 scenario's flow kinds; all carry traffic after their
    install (pings both ways, untagged and in VLAN 10, and ARP again
    after the neighbour flush)."""
    return [
        Want('an ARP request flow from %s (broadcast, arp(op=1))' % a,
             lambda f: 'in_port(%s)' % a in f and
             'dst=ff:ff:ff:ff:ff:ff),eth_type(0x0806),arp(' in f and
             'op=1' in f),
        Want('an ARP flow from %s (the unicast reply)' % b,
             lambda f: 'in_port(%s)' % b in f and
             '),eth_type(0x0806)' in f and 'vlan(' not in f),
        Want('an IPv4 flow from %s' % a,
             lambda f: '),eth_type(0x0800)' in f and
             'in_port(%s)' % a in f),
        Want('an IPv4 flow from %s' % b,
             lambda f: '),eth_type(0x0800)' in f and
             'in_port(%s)' % b in f),
        Want('an 802.1Q flow from %s (vlan(vid=10), encap IPv4)' % a,
             lambda f: 'in_port(%s)' % a in f and 'vlan(vid=10' in f and
             'encap(eth_type(0x0800)' in f,
             near=lambda f: 'vlan(vid=10' in f),
        Want('an 802.1Q flow from %s (vlan(vid=10), encap IPv4)' % b,
             lambda f: 'in_port(%s)' % b in f and 'vlan(vid=10' in f and
             'encap(eth_type(0x0800)' in f,
             near=lambda f: 'vlan(vid=10' in f),
        Want('an 802.1Q ARP flow from %s (vlan(vid=10), encap ARP)' % a,
             lambda f: 'in_port(%s)' % a in f and 'vlan(vid=10' in f and
             'encap(eth_type(0x0806)' in f,
             near=lambda f: 'vlan(vid=10' in f),
        Want('an 802.1Q ARP flow from %s (vlan(vid=10), encap ARP)' % b,
             lambda f: 'in_port(%s)' % b in f and 'vlan(vid=10' in f and
             'encap(eth_type(0x0806)' in f,
             near=lambda f: 'vlan(vid=10' in f),
    ]


def s_l2(sc):
    """1. L2 normal forwarding: the NORMAL action, ARP and ping, untagged
    and in VLAN 10 (the ports are trunks)."""
    br, a, b = 'br-l2', 'l2a', 'l2b'
    try:
        vsctl('add-br %s' % br)
        add_ns_port(br, a, 'ns-l2a', '10.0.1.1/24')
        add_ns_port(br, b, 'ns-l2b', '10.0.1.2/24')
        add_vlan('ns-l2a', 10, '10.0.11.1/24')
        add_vlan('ns-l2b', 10, '10.0.11.2/24')
        log = Log()
        pinged(sc, 'ns-l2a', '10.0.1.2', 'ping ns-l2a -> ns-l2b')
        pinged(sc, 'ns-l2b', '10.0.1.1', 'ping ns-l2b -> ns-l2a')
        pinged(sc, 'ns-l2a', '10.0.11.2', 'ping in VLAN 10 ns-l2a -> ns-l2b')
        # The ARP exchanges above ran before their flows were installed
        # (the upcall installs them): ARP again, through the installed
        # flows, so that their filters must count it.  With no neighbour
        # entry left, ns-l2a broadcasts a request (same sip, tip, op as
        # the first) and ns-l2b answers with a unicast reply.  ns-l2b
        # first: its entry for ns-l2a, made STALE by the first request,
        # goes to a unicast probe 5 s after the pings used it; a probe
        # that reached ns-l2a after its flush would give it an entry
        # (STALE) and no broadcast at all.
        run('ip -n ns-l2b neigh flush all', check=True)
        time.sleep(1)
        run('ip -n ns-l2a neigh flush all', check=True)
        pinged(sc, 'ns-l2a', '10.0.1.2', 'ping ns-l2a -> ns-l2b after a '
               'neighbour flush (ARP again)', count=3)
        pinged(sc, 'ns-l2a', '10.0.11.2', 'ping in VLAN 10 ns-l2a -> ns-l2b '
               'after a neighbour flush (ARP again)', count=3)
        verify(sc, log, [a, b], l2_wants(a, b))
    finally:
        teardown([br], ['ns-l2a', 'ns-l2b'])


L3L4_FLOWS = [
    'priority=300,arp actions=NORMAL',
    'priority=210,icmp,icmp_type=8,icmp_code=0 actions=NORMAL',
    'priority=200,icmp actions=NORMAL',
    'priority=210,icmp6,ipv6_dst=fd00:2::2,icmp_type=128 actions=NORMAL',
    'priority=200,icmp6 actions=NORMAL',
    'priority=210,tcp,tp_dst=5001,tcp_flags=+fin actions=NORMAL',
    'priority=200,tcp,tp_dst=5001 actions=NORMAL',
    'priority=200,tcp,tp_src=5001 actions=NORMAL',
    'priority=200,tcp6,tp_dst=5001 actions=NORMAL',
    'priority=200,tcp6,tp_src=5001 actions=NORMAL',
    'priority=200,udp,in_port=l3a,nw_dst=10.0.2.2,tp_dst=5002 '
    'actions=output:l3b',
    'priority=200,udp,in_port=l3b,nw_src=10.0.2.2,tp_src=5002 '
    'actions=output:l3a',
    'priority=250,tcp,tp_dst=5003 actions=drop',
    'priority=250,udp,tp_dst=5004 actions=drop',
    'priority=0 actions=drop',
]


def l3l4_wants(a, b):
    """The L3/L4 scenario's flow kinds, a -> b (requests, from the client
    namespace's port a) and b -> a (replies).  Every one carries traffic
    after its install: 5 pings each way (plain, ICMPv6, 3000 bytes in
    three fragments), 3 TCP/IPv4 connections (FIN in each), one TCP/IPv6,
    3 UDP exchanges, SYN and datagram retries to the dropped ports."""
    def on(port, *parts):
        return lambda f: ('in_port(%s)' % port in f and
                          all(p in f for p in parts))
    return [
        Want('an ICMP echo request flow from %s (icmp(type=8,code=0))' % a,
             on(a, 'proto=1,frag=no', 'icmp(type=8,code=0)')),
        Want('an ICMP echo reply flow from %s (icmp(type=0...))' % b,
             on(b, 'proto=1,frag=no', 'icmp(type=0')),
        Want('an ICMPv6 echo request flow from %s to fd00:2::2 '
             '(icmpv6(type=128))' % a,
             on(a, 'dst=fd00:2::2', 'proto=58', 'icmpv6(type=128')),
        Want('an ICMPv6 flow from %s to fd00:2::1 (the echo replies)' % b,
             on(b, 'dst=fd00:2::1', 'proto=58')),
        # The first fragment holds the ICMP header and OVS matches its
        # type (icmp(type=8/0xf8) for the requests).  Ours reads the L4
        # header of a first fragment (FLOW_DISSECTOR_F_PARSE_1ST_FRAG);
        # the stock flower does not: its ICMP type reads 0, so the request
        # flow cannot count there, and the reply flow (type=0/0xf8) counts
        # because 0 is what it asks for.  Both must carry their fragments.
        Want('an echo request first-fragment flow from %s (frag=first)' % a,
             on(a, 'proto=1,frag=first')),
        Want('an echo reply first-fragment flow from %s (frag=first)' % b,
             on(b, 'proto=1,frag=first')),
        Want('a later-fragment flow from %s (frag=later)' % a,
             on(a, 'proto=1,frag=later')),
        Want('a later-fragment flow from %s (frag=later)' % b,
             on(b, 'proto=1,frag=later')),
        Want('a TCP flow from %s to port 5001 without FIN '
             '(tcp_flags(-fin))' % a,
             lambda f: on(a, 'proto=6,', 'dst=5001', 'tcp_flags(-fin)')(f)
             and 'ipv4(' in f and not actions(f).startswith('drop')),
        Want('a TCP flow from %s to port 5001 with FIN (tcp_flags(+fin))'
             % a,
             lambda f: on(a, 'proto=6,', 'dst=5001', 'tcp_flags(+fin)')(f)
             and 'ipv4(' in f and not actions(f).startswith('drop')),
        Want('a TCP flow from %s from port 5001 (the replies)' % b,
             on(b, 'ipv4(', 'proto=6,', 'tcp(src=5001')),
        Want('a TCP/IPv6 flow from %s to port 5001' % a,
             on(a, 'ipv6(', 'proto=6,', 'dst=5001')),
        Want('a TCP/IPv6 flow from %s from port 5001' % b,
             on(b, 'ipv6(', 'proto=6,', 'tcp(src=5001')),
        Want('a UDP flow from %s to 10.0.2.2 port 5002 (output:%s)' % (a, b),
             on(a, 'dst=10.0.2.2', 'proto=17,', 'udp(dst=5002')),
        Want('a UDP flow from %s from port 5002 (output:%s)' % (b, a),
             on(b, 'src=10.0.2.2', 'proto=17,', 'udp(src=5002')),
        Want('a drop flow for TCP port 5003',
             lambda f: 'dst=5003' in f and actions(f).startswith('drop')),
        Want('a drop flow for UDP port 5004',
             lambda f: 'dst=5004' in f and actions(f).startswith('drop')),
    ]


def s_l3l4(sc):
    """2. L3/L4 OpenFlow rules: ip, tcp/udp ports, icmp, IPv6, drops."""
    br, a, b = 'br-l3', 'l3a', 'l3b'
    servers = []
    try:
        vsctl('add-br %s' % br)
        add_ns_port(br, a, 'ns-l3a', '10.0.2.1/24', 'fd00:2::1/64',
                    ipv6=True)
        add_ns_port(br, b, 'ns-l3b', '10.0.2.2/24', 'fd00:2::2/64',
                    ipv6=True)
        ofctl(br, L3L4_FLOWS)
        sc.info['openflow'] = L3L4_FLOWS
        for proto, addr, port in (('tcp', '10.0.2.2', 5001),
                                  ('tcp', 'fd00:2::2', 5001),
                                  ('udp', '10.0.2.2', 5002),
                                  ('tcp', '10.0.2.2', 5003),
                                  ('udp', '10.0.2.2', 5004)):
            servers.append(Server('ns-l3b', proto, addr, port))
        log = Log()
        pinged(sc, 'ns-l3a', '10.0.2.2', 'icmp: ping 10.0.2.2')
        pinged(sc, 'ns-l3a', 'fd00:2::2', 'icmp6: ping fd00:2::2')
        pinged(sc, 'ns-l3a', '10.0.2.2', 'icmp: ping 10.0.2.2, 3000 bytes '
               '(fragments)', size=3000)
        for i in range(3):
            traffic(sc, 'tcp 10.0.2.2:5001 allowed (#%d)' % (i + 1),
                    talk('ns-l3a', 'tcp', '10.0.2.2', 5001))
        traffic(sc, 'tcp [fd00:2::2]:5001 allowed',
                talk('ns-l3a', 'tcp', 'fd00:2::2', 5001))
        for i in range(3):
            traffic(sc, 'udp 10.0.2.2:5002 allowed (#%d)' % (i + 1),
                    talk('ns-l3a', 'udp', '10.0.2.2', 5002))
        traffic(sc, 'tcp 10.0.2.2:5003 dropped',
                not talk('ns-l3a', 'tcp', '10.0.2.2', 5003))
        traffic(sc, 'udp 10.0.2.2:5004 dropped',
                not talk('ns-l3a', 'udp', '10.0.2.2', 5004))
        verify(sc, log, [a, b], l3l4_wants(a, b))
    finally:
        for s in servers:
            s.stop()
        teardown([br], ['ns-l3a', 'ns-l3b'])


CT_FLOWS = [
    'table=0,priority=300,arp actions=NORMAL',
    'table=0,priority=200,ip,ct_state=-trk actions=ct(table=1,zone=5)',
    'table=0,priority=0 actions=drop',
    # only cta may open connections (committed with a mark and a label);
    # replies of those pass
    'table=1,priority=200,ip,ct_state=+trk+new,in_port=cta '
    'actions=ct(commit,zone=5,exec(set_field:0x1->ct_mark,'
    'set_field:0x2->ct_label)),NORMAL',
    'table=1,priority=200,ip,ct_state=+trk+est,ct_zone=5,ct_mark=0x1,'
    'ct_label=0x2 actions=NORMAL',
    'table=1,priority=100,ip,ct_state=+trk+new,in_port=ctb actions=drop',
    'table=1,priority=0 actions=drop',
]


def ct_wants(a, b):
    """The conntrack scenario's flow kinds.  Every one carries traffic
    after its install: the ping and 3 connections from a (4 new
    connections: the first takes the upcall), their replies, the SYN
    retries from b."""
    return [
        Want('a ct_state(-trk) flow from %s sending to ct' % a,
             lambda f: 'in_port(%s)' % a in f and
             re.search(r'ct_state\([^)]*-trk', f) and
             actions(f).startswith('ct(')),
        Want('a ct_state(-trk) flow from %s sending to ct' % b,
             lambda f: 'in_port(%s)' % b in f and
             re.search(r'ct_state\([^)]*-trk', f) and
             actions(f).startswith('ct(')),
        Want('a +new+trk flow from %s with ct(commit)' % a,
             lambda f: 'in_port(%s)' % a in f and
             re.search(r'ct_state\([^)]*\+new', f) and
             'ct(commit' in actions(f)),
        Want('a +est+trk flow from %s matching ct_zone, ct_mark and '
             'ct_label' % a,
             lambda f: 'in_port(%s)' % a in f and
             re.search(r'ct_state\([^)]*\+est', f) and
             'ct_zone(0x5' in f and 'ct_mark(0x1' in f and
             'ct_label(' in f),
        Want('a +est+trk flow from %s matching ct_zone, ct_mark and '
             'ct_label (the replies)' % b,
             lambda f: 'in_port(%s)' % b in f and
             re.search(r'ct_state\([^)]*\+est', f) and
             'ct_zone(0x5' in f and 'ct_mark(0x1' in f and
             'ct_label(' in f),
        Want('a +new+trk drop flow (from %s)' % b,
             lambda f: 'in_port(%s)' % b in f and
             re.search(r'ct_state\([^)]*\+new', f) and
             actions(f).startswith('drop')),
    ]


def s_ct(sc):
    """3. conntrack: ct(commit) in a zone with a mark and a label,
    ct_state=+trk+est replies matching them, a stateful drop."""
    br, a, b = 'br-ct', 'cta', 'ctb'
    servers = []
    try:
        vsctl('add-br %s' % br)
        add_ns_port(br, a, 'ns-cta', '10.0.3.1/24')
        add_ns_port(br, b, 'ns-ctb', '10.0.3.2/24')
        ofctl(br, CT_FLOWS)
        sc.info['openflow'] = CT_FLOWS
        servers.append(Server('ns-ctb', 'tcp', '10.0.3.2', 5001))
        servers.append(Server('ns-cta', 'tcp', '10.0.3.1', 5005))
        log = Log()
        pinged(sc, 'ns-cta', '10.0.3.2', 'ping cta -> ctb (committed)')
        for i in range(3):
            traffic(sc, 'tcp cta -> ctb:5001 allowed (#%d)' % (i + 1),
                    talk('ns-cta', 'tcp', '10.0.3.2', 5001))
        traffic(sc, 'tcp ctb -> cta:5005 dropped (ct_state=+new from ctb)',
                not talk('ns-ctb', 'tcp', '10.0.3.1', 5005))
        verify(sc, log, [a, b], ct_wants(a, b))
    finally:
        for s in servers:
            s.stop()
        teardown([br], ['ns-cta', 'ns-ctb'])


GENEVE_TLV = '{class=0xffff,type=0x80,len=4}->tun_metadata0'


def tunnel_wants(kind, dev, opts=False):
    """A tunnel pair's flow kinds: 5 pings and a TCP connection each way,
    so the IPv4 flows carry traffic after their install (the ARP ones
    need not, and are not checked)."""
    return [
        Want('%s: an IPv4 decap flow (tunnel(...) match on %s)'
             % (kind, dev),
             lambda f: f.startswith('tunnel(') and
             'in_port(%s)' % dev in f and 'eth_type(0x0800)' in f),
        Want('%s: an IPv4 encap flow (set(tunnel(...)) to %s)'
             % (kind, dev),
             lambda f: 'set(tunnel(' in actions(f) and
             'eth_type(0x0800)' in f),
    ] + ([
        Want('%s: an IPv4 decap flow matching the TLV option' % kind,
             lambda f: f.startswith('tunnel(') and 'geneve({' in
             f.split('actions:')[0] and 'eth_type(0x0800)' in f),
        Want('%s: an IPv4 encap flow setting the TLV option' % kind,
             lambda f: 'set(tunnel(' in actions(f) and 'geneve({' in
             actions(f) and 'eth_type(0x0800)' in f),
    ] if opts else [])


def tunnel_pair(sc, kind, tag, net, vni, opts=False):
    """Two bridges, each a namespace port and a `kind` tunnel port to the
    other; the underlay addresses are local (dummy device), so the
    encapsulated packets come back in through the stack and the kernel's
    collect_md tunnel device.  NORMAL forwarding, or with opts (Geneve)
    rules that add a TLV option on encap and match it on decap."""
    bra, brb = 'br-%sa' % tag, 'br-%sb' % tag
    a, b = '%sa' % tag, '%sb' % tag
    ula, ulb = '10.1.%d.1' % net, '10.1.%d.2' % net
    dev = {'vxlan': 'vxlan_sys_4789', 'geneve': 'genev_sys_6081'}[kind]
    under = 'ul-%s' % tag
    servers = []
    try:
        run('ip link add %s type dummy' % under, check=True)
        run('ip addr add %s/32 dev %s' % (ula, under), check=True)
        run('ip addr add %s/32 dev %s' % (ulb, under), check=True)
        run('ip link set %s up' % under, check=True)
        for br, port, ns, addr, tun, local, remote in (
                (bra, a, 'ns-' + a, '10.0.%d.1/24' % net, 't' + a, ula, ulb),
                (brb, b, 'ns-' + b, '10.0.%d.2/24' % net, 't' + b, ulb, ula)):
            vsctl('add-br %s' % br)
            add_ns_port(br, port, ns, addr, mtu=1400)
            vsctl('add-port %s %s -- set interface %s type=%s '
                  'options:remote_ip=%s options:local_ip=%s options:key=%d'
                  % (br, tun, tun, kind, remote, local, vni))
            if opts:
                # the TLV map is global: only the first add succeeds
                run("ovs-ofctl add-tlv-map %s '%s'" % (br, GENEVE_TLV),
                    quiet=True)
                flows = ['priority=100,in_port=%s actions=set_field:0xabcd'
                         '->tun_metadata0,output:%s' % (port, tun),
                         'priority=100,in_port=%s,tun_metadata0=0xabcd '
                         'actions=output:%s' % (tun, port),
                         'priority=0 actions=drop']
                ofctl(br, flows)
                sc.info.setdefault('openflow', []).extend(
                    ['%s: %s' % (br, f) for f in flows])
        servers.append(Server('ns-' + b, 'tcp', '10.0.%d.2' % net, 5001))
        log = Log()
        pinged(sc, 'ns-' + a, '10.0.%d.2' % net,
               '%s: ping ns-%s -> ns-%s' % (kind, a, b))
        traffic(sc, '%s: tcp ns-%s -> ns-%s:5001' % (kind, a, b),
                talk('ns-' + a, 'tcp', '10.0.%d.2' % net, 5001))
        verify(sc, log, [a, b, dev], tunnel_wants(kind, dev, opts))
    finally:
        for s in servers:
            s.stop()
        teardown([bra, brb], ['ns-' + a, 'ns-' + b], [under])


def s_tunnel(sc):
    """4. VXLAN (NORMAL) and Geneve (a TLV option set on encap, matched
    on decap) tunnel ports between two bridges."""
    for kind, tag, net, vni, opts in (('vxlan', 'vx', 4, 100, False),
                                      ('geneve', 'gn', 5, 200, True)):
        sub = Scenario(sc.name, sc.title)
        try:
            tunnel_pair(sub, kind, tag, net, vni, opts)
        except Setup as e:
            sub.skip('%s: %s' % (kind, e))
        sc.checks += sub.checks
        for k, v in sub.info.items():
            if isinstance(v, list):
                sc.info.setdefault(k, []).extend(v)
            elif isinstance(v, int):
                sc.info[k] = sc.info.get(k, 0) + v
            elif isinstance(v, dict):
                sc.info.setdefault(k, {}).update(v)


SCENARIOS = [
    ('l2', '1. L2 normal forwarding (NORMAL, ARP, ping, VLAN 10)', s_l2),
    ('l3l4', '2. L3/L4 OpenFlow rules (ip, icmp, tcp/udp ports, tcp_flags, '
     'IPv6, fragments, drops)', s_l3l4),
    ('ct', '3. conntrack (ct(commit) with zone, mark, label; '
     'ct_state=+trk+est; stateful drop)', s_ct),
    ('tunnel', '4. VXLAN and Geneve (with a TLV option) tunnel ports '
     'between two bridges',
     s_tunnel),
]


def probes(text):
    """What OVS learnt at start, and the kernel's answers to the refused
    filter adds of its probes."""
    keep = re.compile(r'probe tc:|Datapath dispatch mode|Overriding n-handler'
                      r'|Using policy|Flow API|netlink_socket\|ERR')
    lines = ([l.split('|', 4)[-1] for l in text.splitlines()
              if keep.search(l)] +
             ['kernel: ' + n for n in filter_naks(text)])
    return list(dict.fromkeys(lines))


def check_start(sc, text):
    """What the scenarios rely on, from the log of OVS's start."""
    m = re.findall(r'Overriding n-handler-threads to (\d+)', text)
    sc.check('upcall handler threads > 0 (per-CPU dispatch)',
             m and int(m[-1]) > 0,
             'Overriding n-handler-threads to %s' % (m[-1] if m else '?'))
    sc.check('ports get the linux_tc flow API',
             "br-probe: Assigned flow API 'linux_tc'" in text,
             "no \"br-probe: Assigned flow API 'linux_tc'\"")
    sc.check('tc block offload probe succeeded',
             'block offload is supported' in text, 'not in the log')
    # probe_multi_mask_per_prio() (netdev-offload-tc.c) adds two filters
    # in prio 1, the second with one more mask (src_mac); when the kernel
    # takes both it sets multi_mask_per_prio (one prio per ethertype, as
    # checked per scenario) and logs this line; when not, nothing (the
    # refusal shows as a `kernel:` NAK in the probe lines).
    sc.check('tc multi-mask probe succeeded (one prio takes several masks)',
             MULTI_MASK_LINE in text,
             'no "%s" in the log; the probe\'s filter adds: %s'
             % (MULTI_MASK_LINE, '; '.join(filter_naks(text)) or '-'))
    bad = [l for l in text.splitlines() if BAD_LOG_RE.search(l)]
    sc.check('log has no ERR / offload error line', not bad,
             ' | '.join(bad[:4])[:900])


def main(argv):
    out_json = logs = None
    names = []
    while argv:
        a = argv.pop(0)
        if a == '--json':
            out_json = argv.pop(0)
        elif a == '--logs':
            logs = argv.pop(0)
        elif a == 'all':
            names += [s[0] for s in SCENARIOS]
        else:
            names.append(a)
    unknown = set(names) - {s[0] for s in SCENARIOS}
    if unknown or not names:
        print(__doc__)
        return 2
    t0 = time.time()
    res = {'variant': os.environ.get('TDC_VARIANT', '?'),
           'kernel': os.uname().release, 'scenarios': []}
    run_ = [s for s in SCENARIOS if s[0] in names]
    done = []
    started = False
    try:
        rc, out = run('ovs-vswitchd --version', quiet=True)
        res['ovs'] = out.splitlines()[0] if out else '?'
        start_ovs()
        started = True
    except Setup as e:
        for name, title, _ in run_:
            sc = Scenario(name, title)
            sc.skip('OVS did not start: %s' % e)
            done.append(sc)
    if started:
        with open(VSWITCHD_LOG, errors='replace') as f:
            text = f.read()
        res['probes'] = probes(text)
        for line in res['probes']:
            print('# ' + line, flush=True)
        sc = Scenario('start', '0. OVS start: upcalls, flow API, probes')
        check_start(sc, text)
        done.append(sc)
        for name, title, fn in run_:
            sc = Scenario(name, title)
            print('# %s' % title, flush=True)
            t1 = time.time()
            try:
                fn(sc)
            except Setup as e:
                sc.skip(str(e))
            except Exception as e:   # a bug here must not pass
                sc.skip('%s: %s' % (type(e).__name__, e))
            sc.info['seconds'] = round(time.time() - t1, 1)
            done.append(sc)
        stop_ovs()
    for sc in done:
        res['scenarios'].append({'name': sc.name, 'title': sc.title,
                                 'checks': sc.checks, 'info': sc.info,
                                 'passed': sc.failed() == 0})
    res['seconds'] = round(time.time() - t0, 1)
    if logs:
        os.makedirs(logs, exist_ok=True)
        for f in (VSWITCHD_LOG, OVSDB_LOG):
            if os.path.exists(f):
                shutil.copy(f, logs)
    if out_json:
        os.makedirs(os.path.dirname(os.path.abspath(out_json)),
                    exist_ok=True)
        with open(out_json + '.tmp', 'w') as f:
            json.dump(res, f, indent=1)
        os.replace(out_json + '.tmp', out_json)
    passed = sum(1 for sc in done for c in sc.checks if c['ok'])
    failed = sum(1 for sc in done for c in sc.checks if not c['ok'])
    for sc in done:
        print('# %s: %s' % (sc.title, 'PASS' if sc.failed() == 0 else
                            '%d check(s) failed' % sc.failed()))
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
