#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Guest side of the differential oracle: install a batch of flower
filters, send its frames, read which filter counted which frame.

Runs inside the QEMU guest (guest/run) on whatever flower the kernel has.
No scapy, no pyroute2: frames come pre-built (hex) from difftest/gen.py,
filters as pre-encoded TCA_OPTIONS attributes; netlink is spoken with
flower.nl (struct, no pyroute2), because under TCG every Python-level
decode costs.

Setup: veth dtx <-> dtr (one queue each way: no frame gets an skb hash),
IPv6 off (no RS/MLD/DAD chatter), clsact on dtr.
Tunnel filters (a filter with a "dev": vxlan or geneve) go to the
ingress of a collect_md device of that kind (the doc's "tunnel": names,
ports); dtr takes the tunnel frames: its MAC is the doc's, routes of
type local make the doc's IPv4 and IPv6 ranges its own, and it alone has
IPv6 on (what dtr sends, an ICMP error or an NS, goes to dtx's ingress,
which no batch hooks).  Each such device has a guard of its own; a frame
reaches it after dtr's stack took it (the decapsulation), so its
counters are read once dtr's guard has counted the round and the frames
gen.py expects there (a packet's "tunnel") have come, or 0.2 s later.
Filter i of a batch goes to the batch's prio[i] with handle[i] (without
those lists: prio i+1, handle 1), in list order, with one gact action
"continue" (TC_ACT_UNSPEC) of index base+i: classification goes on to the
next prio, so every prio sees every frame.  In a prio that holds several
filters (a group, each with its own mask) the first filter found counts
the frame and the prio ends there: at most one filter of a prio counts a
frame, and which one depends on the order of the masks.  A matchall
guard after the last prio counts every frame that went through the chain.

Conntrack filters (a filter with "chain": 1) go to chain 1 of the hook,
with a guard of their own there; chain 0 ends (after its guard) with the
batch's ct action for frames to the doc's ct MAC, and a plain goto chain
1 for frames to its mac_noct (Rig.ct_trigger()).  The conntrack flows'
frames (a packet with "ct") are sent last, once each, one round each,
after a conntrack flush; such a round is never retried (a resend would
change its flow's state): one that does not settle fails the batch.

Verdicts: frames are sent in rounds of K; frame j of a round is sent 2^j
times, then one RTM_GETACTION dump reads all counters; a filter's counter
delta, in binary, says which of the K frames it counted.  The guard's
delta must be exactly 2^K-1 (else the round is retried): a stray frame
or a late softirq cannot go unnoticed.

Then every frame but the conntrack flows' is sent again, in the same
rounds, and its verdicts are kept apart ("bits_again"): the first pass
met each flow's first frame with a cold flow cache (a miss), the second
meets it warm (a hit), and compare.py requires both passes to agree on
each kernel.

usage: python3 -m difftest.runner CASES.json OUT.json [--rounds-k K] [--only B:F,...]
"""
import json
import os
import socket
import struct
import subprocess
import sys
import time

from difftest.keys import PROTOS
from flower import nl
from flower.nl import (NLM_F_ACK, NLM_F_CREATE, NLM_F_DUMP, NLM_F_EXCL,
                       NLM_F_REQUEST, RTM_GETACTION, RTM_GETTFILTER, nlmsg,
                       RTM_NEWTFILTER, TC_H_CLSACT_EGRESS,
                       TC_H_CLSACT_INGRESS, TCA_KIND, TCA_OPTIONS, NLSock,
                       nest, nla, tcmsg, walk_attrs)
from flower.nl import (TCA_ACT_INDEX, TCA_ACT_KIND, TCA_ACT_OPTIONS,
                       TCA_ACT_STATS, TCA_GACT_PARMS)
from flower.nl import attrs_by_type as parse_attrs
from flower.uapi import ETH_P_ALL

TCA_CHAIN = 11
NETLINK_NETFILTER = 12
# not compared in a dump: the actions (their counters) and the drivers'
# count (stock dumps it always, ours in a full dump)
TCA_FLOWER_IN_HW_COUNT = 86
DUMP_SKIP = (3, TCA_FLOWER_IN_HW_COUNT)
IPCTNL_MSG_CT_DELETE = 1 << 8 | 2      # NFNL_SUBSYS_CTNETLINK's
TCA_FLOWER_ACT = 3
TCA_MATCHALL_ACT = 2
TCA_ROOT_TAB, TCA_ROOT_FLAGS = 1, 2
TCA_STATS_BASIC = 1
TC_ACT_UNSPEC = nl.TC_ACT['unspec']
# a batch's install and counter dumps take seconds under TCG; a kernel
# that does not answer in this long is stuck
NL_TIMEOUT = 600


def sh(cmd, lines=None):
    """Run cmd (with these lines on stdin: `ip -batch -`, `tc -batch -`,
    one process for many commands, each a second under TCG)."""
    r = subprocess.run(cmd, shell=True, capture_output=True, text=True,
                       input=None if lines is None else '\n'.join(lines))
    if r.returncode:
        raise RuntimeError('%s%s: %s' % (cmd, lines or '', r.stderr.strip()))
    return r.stdout


def gact(index):
    """The action list of one gact action by index, verdict unspec
    (the filter counts its frames and they go on)."""
    return nl.gact(TC_ACT_UNSPEC, index)


def ipv6_off(dev, off):
    try:
        with open('/proc/sys/net/ipv6/conf/%s/disable_ipv6' % dev, 'w') as fp:
            fp.write('1' if off else '0')
    except OSError:
        pass


def veth_cmd(tx, rx):
    """The veth pair, one queue each way: with more, dtx's transmit
    picks a queue by skb_get_hash(), whose seed is random per boot, and
    dtr's ingress would see that hash (the hash key's filters compare two
    boots: keys.py); with one, no frame has a hash."""
    return 'ip link add %s numtxqueues 1 numrxqueues 1 type veth peer name ' \
        '%s numtxqueues 1 numrxqueues 1' % (tx, rx)


class Rig:
    def __init__(self, rx, tx, tunnel=None):
        self.rx, self.tx = rx, tx
        for k in ('all', 'default'):
            ipv6_off(k, True)
        sh(veth_cmd(tx, rx))
        self.tun = {}           # kind -> device name
        sh('ip -batch -', (self.tunnel_setup(tunnel) if tunnel else []) +
           ['link set %s up' % dev for dev in (tx, rx)] +
           (['route add local %s dev %s' % (tunnel['net6'], rx)]
            if tunnel else []))
        self.ifindex = socket.if_nametoindex(rx)
        self.nl = NLSock(timeout=NL_TIMEOUT, rcvbuf=1 << 22)
        self.pkt = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
        self.pkt.bind((tx, 0))
        self.next_index = 1

    def tunnel_setup(self, t):
        """`ip` commands: dtr (still down; IPv6 turned on here) takes the
        tunnel frames: its MAC, the local IPv4 range (the IPv6 one once
        it is up); one collect_md device a kind (gen.py's command)."""
        ipv6_off(self.rx, False)
        self.tun = dict(t['devs'])
        return ['link set %s address %s' % (self.rx, t['mac']),
                'route add local %s dev %s' % (t['net4'], self.rx)] + [
            cmd for kind, dev in sorted(self.tun.items())
            for cmd in (t['links'][kind], 'link set %s up' % dev)]

    def reset(self, hook):
        """hook ingress: filters on dtr's ingress (the outer VLAN tag is
        taken out of the frame by the stack before tc: accelerated tag);
        egress: on dtx's egress (tags still in the frame).  Tunnel
        filters: on their device's ingress, whatever the hook."""
        devs = (self.rx, self.tx) + tuple(self.tun.values())
        subprocess.run('tc -force -batch -', shell=True, capture_output=True,
                       text=True, input='\n'.join(
                           'qdisc del dev %s clsact' % d for d in devs))
        dev = self.rx if hook == 'ingress' else self.tx
        sh('tc -batch -', ['qdisc add dev %s clsact' % d
                           for d in (dev,) + tuple(self.tun.values())])
        self.hooks = {None: (socket.if_nametoindex(dev),
                             TC_H_CLSACT_INGRESS if hook == 'ingress' else
                             TC_H_CLSACT_EGRESS)}
        for kind, tdev in self.tun.items():
            self.hooks[kind] = (socket.if_nametoindex(tdev),
                                TC_H_CLSACT_INGRESS)

    def add_filter(self, prio, proto, kind, opts, handle=1, dev=None,
                   chain=0):
        """Send (dev: a tunnel kind, else the batch's hook; chain: the
        hook's chain); return (errno, extack message or '')."""
        ifindex, parent = self.hooks[dev]
        payload = tcmsg(ifindex, handle, parent, prio, proto) + \
            nla(TCA_KIND, kind.encode() + b'\0') + nest(TCA_OPTIONS, opts)
        if chain:
            payload += nla(TCA_CHAIN, struct.pack('=I', chain))
        rep = self.nl.call(RTM_NEWTFILTER, NLM_F_CREATE | NLM_F_EXCL,
                           payload)
        return rep.err, rep.msg or ''

    def dump_filters(self, dev=None):
        """{(chain, prio, handle): [[type, hex], ...]} of the flower
        filters on dev's hook (a tunnel kind, else the batch's), every
        chain: their TCA_OPTIONS, sorted (the kernels' attribute orders
        differ), without the actions and TCA_FLOWER_IN_HW_COUNT."""
        ifindex, parent = self.hooks[dev]
        rep = self.nl.call(RTM_GETTFILTER, NLM_F_DUMP,
                           tcmsg(ifindex, 0, parent))
        if rep.err:
            raise OSError(rep.err, 'filter dump failed: %s' % rep.msg)
        out = {}
        for typ, _flags, body in rep.msgs:
            if typ != RTM_NEWTFILTER:
                continue
            _ifi, handle, _parent, info = struct.unpack_from('=iIII', body, 4)
            tca = {t & 0x3fff: v for t, v in walk_attrs(body, 20)[0]}
            if tca.get(TCA_KIND, b'').rstrip(b'\0') != b'flower' or \
                    TCA_OPTIONS not in tca or not handle:
                continue
            chain = struct.unpack_from('=I', tca[TCA_CHAIN])[0] \
                if TCA_CHAIN in tca else 0
            out[(chain, info >> 16, handle)] = sorted(
                [t & 0x3fff, v.hex()] for t, v in
                walk_attrs(tca[TCA_OPTIONS])[0]
                if t & 0x3fff not in DUMP_SKIP)
        return out

    def ct_trigger(self, hook, prio, ct):
        """The batch's ct action in chain 0 after the guard: frames to
        the conntrack flows' MAC get the action (zone, commit with the mark
        and labels) and go on in chain 1; frames to mac_noct go on in
        chain 1 without it.  tc builds the action (its
        netlink is long); a one-off, so its second under TCG does not
        count."""
        dev = self.rx if hook == 'ingress' else self.tx
        sh('tc -batch -', [
            'filter add dev %s %s prio %d protocol all flower dst_mac %s '
            'action ct commit zone %d mark 0x%x label %032x pipe '
            'action goto chain 1' % (dev, hook, prio, ct['mac'], ct['zone'],
                                     ct['mark'], ct['labels']),
            # -trk frames: chain 1 without the ct action
            'filter add dev %s %s prio %d protocol all flower dst_mac %s '
            'action goto chain 1' % (dev, hook, prio + 1, ct['mac_noct'])])

    def ct_flush(self):
        """Delete every conntrack entry (ctnetlink, as `conntrack -F`):
        the flows of a batch start with none."""
        with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                           NETLINK_NETFILTER) as nl:
            nl.settimeout(NL_TIMEOUT)
            nl.bind((0, 0))
            nl.send(nlmsg(IPCTNL_MSG_CT_DELETE, NLM_F_REQUEST | NLM_F_ACK,
                          struct.pack('=BBH', socket.AF_UNSPEC, 0, 0)))
            err, = struct.unpack_from('=i', nl.recv(65536), 16)
        if err:
            raise OSError(-err, 'conntrack flush: %s' % os.strerror(-err))

    def counters(self):
        """{action index: packets} for every gact action."""
        req = struct.pack('=BxH', 0, 0) + \
            nest(TCA_ROOT_TAB, nest(1, nla(TCA_ACT_KIND, b'gact\0'))) + \
            nla(TCA_ROOT_FLAGS, struct.pack('=II', 3, 3))  # LARGE|TERSE
        out = {}
        rep = self.nl.call(RTM_GETACTION, NLM_F_DUMP, req)
        if rep.err:
            raise OSError(rep.err, 'action dump failed: %s' % rep.msg)
        for _type, _flags, m in rep.msgs:       # RTM_NEWACTION
            top = parse_attrs(m[4:])
            for tab in top.get(TCA_ROOT_TAB, []):
                for acts in parse_attrs(tab).values():
                    for a in acts:
                        at = parse_attrs(a)
                        if TCA_ACT_INDEX in at:
                            idx, = struct.unpack('=I', at[TCA_ACT_INDEX][0][:4])
                        else:
                            o = parse_attrs(at[TCA_ACT_OPTIONS][0])
                            idx, = struct.unpack_from('=I', o[TCA_GACT_PARMS][0])
                        st = parse_attrs(at[TCA_ACT_STATS][0])
                        b = st[TCA_STATS_BASIC][0]
                        out[idx] = struct.unpack_from('=QI', b)[1]
        return out


def where(f):
    """Which guard's frames filter f sees: chain 1's ('ct'), its tunnel
    device's, or the hook's (None)."""
    return 'ct' if f.get('chain') else f.get('dev')


class BatchRun:
    """One batch on the rig: its filters and guards installed, its
    frames sent in rounds, which filter counted which frame."""

    def __init__(self, rig, batch, log):
        self.rig, self.batch, self.log = rig, batch, log
        self.filters, self.packets = batch['filters'], batch['packets']
        n = len(self.filters)
        self.prios = batch.get('prio') or [i + 1 for i in range(n)]
        self.handles = batch.get('handle') or [1] * n
        self.hook = batch.get('hook', 'ingress')
        self.ct = batch.get('ct')

    def install(self):
        """A clean hook, the batch's filters and the guards."""
        self.rig.reset(self.hook)
        t0 = time.time()
        self.base = self.rig.next_index
        self.install_filters()
        self.install_guards()
        self.t_install = time.time() - t0

    def install_filters(self):
        """Filter i with action index base + i; res[i] its answer."""
        self.res = []
        for i, f in enumerate(self.filters):
            opts = b''.join(nla(t, bytes.fromhex(h)) for t, h in f['attrs'])
            opts += nest(TCA_FLOWER_ACT, gact(self.base + i))
            # the filter's protocol: its eth_type's, unless a lenient
            # request gives another (model.tc_proto())
            err, msg = self.rig.add_filter(
                self.prios[i], PROTOS[f.get('tc_proto') or f['proto']],
                'flower', opts, self.handles[i], dev=f.get('dev'),
                chain=f.get('chain', 0))
            self.res.append(dict(err=err, msg=msg, bits=[]))

    def install_guards(self):
        """A guard on the hook, one on each tunnel device the batch uses
        and one in chain 1 (the ct filters' chain): 'ct'; then the ct
        action that sends frames to chain 1."""
        filters, prios, base = self.filters, self.prios, self.base
        self.devs = sorted({f['dev'] for f in filters if f.get('dev')})
        self.guards = guards = {d: base + len(filters) + n for n, d in
                                enumerate([None] + self.devs +
                                          (['ct'] if self.ct else []))}
        for d, g in guards.items():
            last = max([p for p, f in zip(prios, filters)
                        if bool(f.get('chain')) == (d == 'ct')], default=0)
            err, msg = self.rig.add_filter(last + 1, ETH_P_ALL, 'matchall',
                                           nest(TCA_MATCHALL_ACT, gact(g)),
                                           dev=None if d == 'ct' else d,
                                           chain=1 if d == 'ct' else 0)
            if err:
                raise RuntimeError('guard matchall %s: %s %s' % (d, err,
                                                                 msg))
        if self.ct:
            self.rig.ct_trigger(self.hook, max(
                [p for p, f in zip(prios, filters) if not f.get('chain')],
                default=0) + 2, self.ct)
        self.guard = guards[None]
        self.rig.next_index = base + len(filters) + len(guards)

    def prepare_frames(self):
        """The frames' bytes (one shorter than an Ethernet header is
        not sent) and empty verdicts."""
        self.frames = [bytes.fromhex(p['hex']) for p in self.packets]
        self.sent_ok = [True] * len(self.frames)
        for j, fr in enumerate(self.frames):
            if len(fr) < 14:
                self.sent_ok[j] = False
        self.verdict = [[0] * len(self.frames) for _ in self.filters]
        self.reached = [0] * len(self.frames)
        # what reached each tunnel device, and chain 1 ('ct')
        self.gdevs = self.devs + (['ct'] if self.ct else [])
        self.reached_tun = {d: [0] * len(self.frames) for d in self.gdevs}
        self.mispredicted = 0

    def goes(self, j, d):               # gen.py's expectation
        return self.sent_ok[j] and (
            bool(self.packets[j].get('ct')) if d == 'ct'
            else self.packets[j].get('tunnel') == d)

    def round_plan(self, k, again=False):
        """[(frames, attempts, flush first)]: rounds of k frames
        (retried when something else got in); then, but @again, the
        conntrack flows: each frame once, in order, after a flush (a
        frame sent again, or 2^j times, would change its flow's
        state)."""
        plan = []
        todo = [j for j in range(len(self.frames))
                if self.sent_ok[j] and not self.packets[j].get('ct')]
        while todo:
            plan.append((todo[:k], 4, False))
            todo = todo[k:]
        if again:
            return plan
        ct_todo = [(j,) for j in range(len(self.frames))
                   if self.sent_ok[j] and self.packets[j].get('ct')]
        plan += [(g, 1, n == 0) for n, g in enumerate(ct_todo)]
        return plan

    def send_group(self, group):
        """Frame j of the group 2^j times; one the socket refuses is
        not sent again."""
        for bit, j in enumerate(group):
            for _ in range(1 << bit):
                try:
                    self.rig.pkt.send(self.frames[j])
                except OSError as e:
                    self.log('frame %d: send: %s' % (j, e))
                    self.sent_ok[j] = False
                    break

    def await_counters(self, want, twant):
        """(counters, the hook guard's delta, {device: its guard's
        delta}) once the hook's guard counted want and the tunnel guards
        theirs (or 0.2 s after the hook's)."""
        guards, prev = self.guards, self.prev
        for n in range(25):
            cur = self.rig.counters()
            got = cur.get(self.guard, 0) - prev.get(self.guard, 0)
            tgot = {d: cur.get(guards[d], 0) - prev.get(guards[d], 0)
                    for d in self.gdevs}
            if got >= want and (n >= 10 or all(
                    tgot[d] >= twant[d] for d in self.gdevs)):
                break
            time.sleep(0.02)
        return cur, got, tgot

    def settled(self, cur, got, want, tgot):
        """Whether the round counted nothing but its own frames."""
        # Frames the stack drops before tc (e.g. a truncated VLAN tag
        # that skb_vlan_untag refuses) never reach the guard: its delta
        # says which frames were classified.  Every filter's delta must
        # be a subset of its guard's, a tunnel guard's (chain 1's) of
        # the hook's, else something else got in: retry.
        guards, prev, base = self.guards, self.prev, self.base
        seen = {guards[d]: tgot[d] for d in self.gdevs}
        seen[self.guard] = got
        return not got & ~want and all(
            not tgot[d] & ~got for d in self.gdevs) and all(
            not (cur.get(base + i, 0) - prev.get(base + i, 0)) &
            ~seen[guards[where(f)]]
            for i, f in enumerate(self.filters))

    def run_round(self, group, attempts):
        """Send the group until a round settles (at most attempts
        times): (counters, guard delta, tunnel guards' deltas)."""
        for attempt in range(attempts):
            self.send_group(group)
            want = sum(1 << bit for bit, j in enumerate(group)
                       if self.sent_ok[j])
            twant = {d: sum(1 << bit for bit, j in enumerate(group)
                            if self.goes(j, d)) for d in self.gdevs}
            cur, got, tgot = self.await_counters(want, twant)
            if self.settled(cur, got, want, tgot):
                return cur, got, tgot
            self.log('round %d: guard counted %d, want %d: retry' % (
                self.rounds, got, want))
            self.retries += 1
            self.prev = cur
        raise RuntimeError('round %d never settled%s' % (
            self.rounds, ' (a conntrack flow frame: not sent again)'
            if attempts == 1 else ''))

    def record_round(self, group, cur, got, tgot):
        """Bit j of a delta: frame j of the group reached the guard, or
        was counted by the filter."""
        for bit, j in enumerate(group):
            self.reached[j] = got >> bit & 1
            for d in self.gdevs:
                self.reached_tun[d][j] = tgot[d] >> bit & 1
                self.mispredicted += d != 'ct' and \
                    self.reached_tun[d][j] != self.goes(j, d)
        for i in range(len(self.filters)):
            d = cur.get(self.base + i, 0) - self.prev.get(self.base + i, 0)
            if d:
                for bit, j in enumerate(group):
                    if d >> bit & 1:
                        self.verdict[i][j] = 1
        self.prev = cur
        self.rounds += 1

    def send_all(self, k):
        t0 = time.time()
        self.retries = 0
        self.prev = self.rig.counters()
        self.rounds = 0
        for group, attempts, flush in self.round_plan(k):
            if flush:
                self.rig.ct_flush()
            cur, got, tgot = self.run_round(group, attempts)
            self.record_round(group, cur, got, tgot)
        self.t_send = time.time() - t0

    def send_again(self, k):
        """The frames but the conntrack flows' once more, their verdicts
        in verdict_again ('-': not sent again); the first pass's
        verdicts and what reached the guards stay."""
        first = self.verdict, self.reached, self.reached_tun
        self.verdict = [[0] * len(self.frames) for _ in self.filters]
        self.reached = [0] * len(self.frames)
        self.reached_tun = {d: [0] * len(self.frames) for d in self.gdevs}
        self.prev = self.rig.counters()
        again = set()
        for group, attempts, _ in self.round_plan(k, again=True):
            cur, got, tgot = self.run_round(group, attempts)
            self.record_round(group, cur, got, tgot)
            again.update(group)
        self.verdict_again = [
            [str(v[j]) if j in again else '-' for j in range(len(v))]
            for v in self.verdict]
        self.verdict, self.reached, self.reached_tun = first

    def read_dumps(self):
        """What each filter holds: its dump (compare.py compares ours'
        with stock's)."""
        t0 = time.time()
        self.dumps = {d: self.rig.dump_filters(d) for d in [None] + self.devs}
        self.t_dump = time.time() - t0

    def result(self):
        filters = self.filters
        for i, r in enumerate(self.res):
            r['bits'] = ''.join(map(str, self.verdict[i])) \
                if not r['err'] else ''
            r['bits_again'] = ''.join(self.verdict_again[i]) \
                if not r['err'] else ''
            if not r['err']:
                r['dump'] = self.dumps[filters[i].get('dev')].get(
                    (filters[i].get('chain', 0), self.prios[i],
                     self.handles[i]))
        return dict(filters=self.res, sent=[int(x) for x in self.sent_ok],
                    reached=''.join(map(str, self.reached)),
                    reached_tunnel={d: ''.join(map(str, r))
                                    for d, r in self.reached_tun.items()
                                    if d != 'ct'},
                    reached_ct=''.join(map(str,
                                           self.reached_tun.get('ct', []))),
                    tunnel_mispredicted=self.mispredicted,
                    t_install=self.t_install, t_send=self.t_send,
                    t_dump=self.t_dump, rounds=self.rounds,
                    retries=self.retries)


def run_batch(rig, batch, k, log):
    run = BatchRun(rig, batch, log)
    run.install()
    run.prepare_frames()
    run.send_all(k)
    run.send_again(k)
    run.read_dumps()
    return run.result()


def main():
    args = sys.argv[1:]
    k = 4
    if '--rounds-k' in args:
        i = args.index('--rounds-k')
        k = int(args[i + 1])
        del args[i:i + 2]
    params = {}
    while '--param' in args:    # NAME=VALUE: one of ours' module parameters
        i = args.index('--param')
        name, value = args[i + 1].split('=', 1)
        params[name] = value
        del args[i:i + 2]
    cases, out = args
    with open(cases) as fp:
        doc = json.load(fp)
    for name, value in params.items():
        # before any filter: the parameters apply to instances made after
        with open('/sys/module/cls_flower/parameters/' + name, 'w') as fp:
            fp.write(value)
    t_start = time.time()
    log = lambda m: sys.stderr.write('runner: %s\n' % m)   # noqa: E731
    rig = Rig(doc['rx'], doc['tx'], doc.get('tunnel'))
    kver = os.uname().release
    results = []
    for bi, b in enumerate(doc['batches']):
        r = run_batch(rig, b, k, log)
        acc = sum(1 for f in r['filters'] if not f['err'])
        log('batch %d (%s): %d filters (%d accepted) x %d frames: install %.1fs, '
            'send/read %.1fs (%d rounds, %d retries); tunnel frames %s, '
            '%d not where gen.py expected; chain 1 (ct) reached by %d of '
            '%d conntrack flow frames'
            % (bi, b.get('hook', 'ingress'), len(b['filters']), acc, len(b['packets']), r['t_install'],
               r['t_send'], r['rounds'], r['retries'],
               ' '.join('%s %d' % (d, x.count('1'))
                        for d, x in r['reached_tunnel'].items()) or 'none',
               r['tunnel_mispredicted'], r['reached_ct'].count('1'),
               sum(bool(p.get('ct')) for p in b['packets'])))
        results.append(r)
    # which module answered (compare.py refuses one module twice)
    module = {}
    for name in ('srcversion', 'version'):
        try:
            with open('/sys/module/cls_flower/' + name) as fp:
                module[name] = fp.read().strip()
        except OSError:
            module[name] = None
    doc_out = dict(seed=doc['seed'], kernel=kver,
                   variant=os.environ.get('TDC_VARIANT', '?'),
                   srcversion=module['srcversion'],
                   module_version=module['version'], params=params,
                   seconds=time.time() - t_start, k=k, batches=results)
    tmp = out + '.tmp'
    with open(tmp, 'w') as fp:
        json.dump(doc_out, fp)
    os.rename(tmp, out)


if __name__ == '__main__':
    main()
