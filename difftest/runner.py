#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Guest side of the differential oracle: install a batch of flower
filters, send its frames, read which filter counted which frame.

Runs inside the QEMU guest (guest/run) on whatever flower the kernel has.
No scapy, no pyroute2: frames come pre-built (hex) from difftest/gen.py,
filters as pre-encoded TCA_OPTIONS attributes; netlink is spoken here
with struct, because under TCG every Python-level decode costs.

Setup: veth dtx <-> dtr, IPv6 off (no RS/MLD/DAD chatter), clsact on dtr.
Filter i of a batch goes to the batch's prio[i] with handle[i] (without
those lists: prio i+1, handle 1), in list order, with one gact action
"continue" (TC_ACT_UNSPEC) of index base+i: classification goes on to the
next prio, so every prio sees every frame.  In a prio that holds several
filters (a group, each with its own mask) the first filter found counts
the frame and the prio ends there: at most one filter of a prio counts a
frame, and which one depends on the order of the masks.  A matchall
guard after the last prio counts every frame that went through the chain.

Verdicts: frames are sent in rounds of K; frame j of a round is sent 2^j
times, then one RTM_GETACTION dump reads all counters; a filter's counter
delta, in binary, says which of the K frames it counted.  The guard's
delta must be exactly 2^K-1 (else the round is retried): a stray frame
or a late softirq cannot go unnoticed.

usage: runner.py CASES.json OUT.json [--rounds-k K] [--only B:F,...]
"""
import json
import os
import socket
import struct
import subprocess
import sys
import time

NETLINK_ROUTE = 0
RTM_NEWTFILTER, RTM_GETACTION = 44, 50
NLM_F_REQUEST, NLM_F_MULTI, NLM_F_ACK = 1, 2, 4
NLM_F_EXCL, NLM_F_CREATE, NLM_F_DUMP = 0x200, 0x400, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
NETLINK_EXT_ACK = 11
NLMSGERR_ATTR_MSG = 1
TCA_KIND, TCA_OPTIONS = 1, 2
TCA_FLOWER_ACT = 3
TCA_MATCHALL_ACT = 2
TCA_ACT_KIND, TCA_ACT_OPTIONS, TCA_ACT_INDEX, TCA_ACT_STATS = 1, 2, 3, 4
TCA_GACT_PARMS = 2
TCA_ROOT_TAB, TCA_ROOT_FLAGS = 1, 2
TCA_STATS_BASIC = 1
TC_ACT_UNSPEC = -1
NLA_F_NESTED = 0x8000
TC_H_CLSACT_INGRESS = 0xFFFFFFF2
TC_H_CLSACT_EGRESS = 0xFFFFFFF3
ETH_P_ALL = 0x0003


def nla(t, data):
    ln = 4 + len(data)
    return struct.pack('=HH', ln, t) + data + b'\0' * ((4 - ln % 4) % 4)


def nest(t, *parts):
    return nla(t | NLA_F_NESTED, b''.join(parts))


def parse_attrs(data):
    out = {}
    i = 0
    while i + 4 <= len(data):
        ln, t = struct.unpack_from('=HH', data, i)
        if ln < 4:
            break
        out.setdefault(t & 0x3fff, []).append(data[i + 4:i + ln])
        i += (ln + 3) & ~3
    return out


class Netlink:
    def __init__(self):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  NETLINK_ROUTE)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
        self.sock.setsockopt(270, NETLINK_EXT_ACK, 1)
        self.sock.bind((0, 0))
        self.seq = 0

    def send(self, mtype, flags, payload):
        self.seq += 1
        self.sock.send(struct.pack('=IHHII', 16 + len(payload), mtype,
                                   flags, self.seq, 0) + payload)
        return self.seq

    def request(self, mtype, flags, payload):
        """Send; return (errno, extack message)."""
        seq = self.send(mtype, flags | NLM_F_REQUEST | NLM_F_ACK, payload)
        while True:
            data = self.sock.recv(1 << 20)
            i = 0
            while i < len(data):
                ln, t, fl, s, _ = struct.unpack_from('=IHHII', data, i)
                if t == NLMSG_ERROR and s == seq:
                    err, = struct.unpack_from('=i', data, i + 16)
                    msg = ''
                    if fl & 0x200:      # NLM_F_ACK_TLVS
                        olen, = struct.unpack_from('=I', data, i + 20)
                        capped = fl & 0x100 or err == 0
                        start = i + 16 + 4 + (16 if capped else olen)
                        at = parse_attrs(data[start:i + ln])
                        if NLMSGERR_ATTR_MSG in at:
                            msg = at[NLMSGERR_ATTR_MSG][0].rstrip(b'\0').decode(
                                errors='replace')
                    return -err, msg
                i += (ln + 3) & ~3

    def dump(self, mtype, payload):
        seq = self.send(mtype, NLM_F_REQUEST | NLM_F_DUMP, payload)
        msgs = []
        while True:
            data = self.sock.recv(1 << 20)
            i = 0
            while i < len(data):
                ln, t, fl, s, _ = struct.unpack_from('=IHHII', data, i)
                if s == seq:
                    if t == NLMSG_DONE:
                        return msgs
                    if t == NLMSG_ERROR:
                        err, = struct.unpack_from('=i', data, i + 16)
                        raise OSError(-err, 'dump failed')
                    msgs.append(data[i + 16:i + ln])
                i += (ln + 3) & ~3


def sh(cmd):
    r = subprocess.run(cmd, shell=True, capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError('%s: %s' % (cmd, r.stderr.strip()))
    return r.stdout


def gact(index):
    parms = struct.pack('=IIiii', index, 0, TC_ACT_UNSPEC, 0, 0)
    return nest(1, nla(TCA_ACT_KIND, b'gact\0'),
                nest(TCA_ACT_OPTIONS, nla(TCA_GACT_PARMS, parms)))


def tcmsg(ifindex, handle, parent, info):
    return struct.pack('=BxxxiIII', socket.AF_UNSPEC, ifindex, handle,
                       parent, info)


class Rig:
    def __init__(self, rx, tx):
        self.rx, self.tx = rx, tx
        for k in ('all', 'default'):
            try:
                with open('/proc/sys/net/ipv6/conf/%s/disable_ipv6' % k, 'w') as fp:
                    fp.write('1')
            except OSError:
                pass
        sh('ip link add %s type veth peer name %s' % (tx, rx))
        sh('ip link set %s up && ip link set %s up' % (tx, rx))
        self.ifindex = socket.if_nametoindex(rx)
        self.nl = Netlink()
        self.pkt = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
        self.pkt.bind((tx, 0))
        self.next_index = 1

    def reset(self, hook):
        """hook ingress: filters on dtr's ingress (the outer VLAN tag is
        taken out of the frame by the stack before tc: accelerated tag);
        egress: on dtx's egress (tags still in the frame)."""
        for dev in (self.rx, self.tx):
            subprocess.run('tc qdisc del dev %s clsact' % dev, shell=True,
                           capture_output=True)
        dev = self.rx if hook == 'ingress' else self.tx
        sh('tc qdisc add dev %s clsact' % dev)
        self.hook_ifindex = socket.if_nametoindex(dev)
        self.parent = TC_H_CLSACT_INGRESS if hook == 'ingress' else \
            TC_H_CLSACT_EGRESS

    def add_filter(self, prio, proto, kind, opts, handle=1):
        info = (prio << 16) | socket.htons(proto)
        payload = tcmsg(self.hook_ifindex, handle, self.parent, info) + \
            nla(TCA_KIND, kind.encode() + b'\0') + nest(TCA_OPTIONS, opts)
        return self.nl.request(RTM_NEWTFILTER, NLM_F_CREATE | NLM_F_EXCL,
                               payload)

    def counters(self):
        """{action index: packets} for every gact action."""
        req = struct.pack('=BxH', 0, 0) + \
            nest(TCA_ROOT_TAB, nest(1, nla(TCA_ACT_KIND, b'gact\0'))) + \
            nla(TCA_ROOT_FLAGS, struct.pack('=II', 3, 3))  # LARGE|TERSE
        out = {}
        for m in self.nl.dump(RTM_GETACTION, req):
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


def run_batch(rig, batch, k, log):
    filters, packets = batch['filters'], batch['packets']
    prios = batch.get('prio') or [i + 1 for i in range(len(filters))]
    handles = batch.get('handle') or [1] * len(filters)
    rig.reset(batch.get('hook', 'ingress'))
    t0 = time.time()
    base = rig.next_index
    res = []
    for i, f in enumerate(filters):
        opts = b''.join(nla(t, bytes.fromhex(h)) for t, h in f['attrs'])
        opts += nest(TCA_FLOWER_ACT, gact(base + i))
        proto = {'ip': 0x0800, 'ipv6': 0x86dd, 'arp': 0x0806, 'rarp': 0x8035,
                 '802.1q': 0x8100, '802.1ad': 0x88a8, 'all': 3,
                 'ppp_ses': 0x8864, 'mpls_uc': 0x8847, 'mpls_mc': 0x8848,
                 'lldp': 0x88cc, '0x9000': 0x9000}[f['proto']]
        err, msg = rig.add_filter(prios[i], proto, 'flower', opts,
                                  handles[i])
        res.append(dict(err=err, msg=msg, bits=[]))
    guard = base + len(filters)
    err, msg = rig.add_filter(max(prios, default=0) + 1, ETH_P_ALL,
                              'matchall', nest(TCA_MATCHALL_ACT, gact(guard)))
    if err:
        raise RuntimeError('guard matchall: %s %s' % (err, msg))
    rig.next_index = guard + 1
    t_install = time.time() - t0
    frames = [bytes.fromhex(p['hex']) for p in packets]
    sent_ok = [True] * len(frames)
    for j, fr in enumerate(frames):
        if len(fr) < 14:
            sent_ok[j] = False
    verdict = [[0] * len(frames) for _ in filters]
    reached = [0] * len(frames)
    t0 = time.time()
    retries = 0
    prev = rig.counters()
    todo = [j for j in range(len(frames)) if sent_ok[j]]
    rounds = 0
    while todo:
        group, todo = todo[:k], todo[k:]
        for attempt in range(4):
            for bit, j in enumerate(group):
                for _ in range(1 << bit):
                    try:
                        rig.pkt.send(frames[j])
                    except OSError as e:
                        log('frame %d: send: %s' % (j, e))
                        sent_ok[j] = False
                        break
            want = sum(1 << bit for bit, j in enumerate(group) if sent_ok[j])
            for _ in range(25):
                cur = rig.counters()
                got = cur.get(guard, 0) - prev.get(guard, 0)
                if got >= want:
                    break
                time.sleep(0.02)
            # Frames the stack drops before tc (e.g. a truncated VLAN tag
            # that skb_vlan_untag refuses) never reach the guard: its delta
            # says which frames were classified.  Every filter's delta must
            # be a subset of it, else something else got in: retry.
            ok = not got & ~want and all(
                not (cur.get(base + i, 0) - prev.get(base + i, 0)) & ~got
                for i in range(len(filters)))
            if ok:
                break
            log('round %d: guard counted %d, want %d: retry' % (rounds, got, want))
            retries += 1
            prev = cur
        else:
            raise RuntimeError('round %d never settled' % rounds)
        for bit, j in enumerate(group):
            reached[j] = got >> bit & 1
        for i in range(len(filters)):
            d = cur.get(base + i, 0) - prev.get(base + i, 0)
            if d:
                for bit, j in enumerate(group):
                    if d >> bit & 1:
                        verdict[i][j] = 1
        prev = cur
        rounds += 1
    t_send = time.time() - t0
    for i, r in enumerate(res):
        r['bits'] = ''.join(map(str, verdict[i])) if not r['err'] else ''
    return dict(filters=res, sent=[int(x) for x in sent_ok],
                reached=''.join(map(str, reached)),
                t_install=t_install, t_send=t_send, rounds=rounds,
                retries=retries)


def main():
    args = sys.argv[1:]
    k = 4
    if '--rounds-k' in args:
        i = args.index('--rounds-k')
        k = int(args[i + 1])
        del args[i:i + 2]
    cases, out = args
    with open(cases) as fp:
        doc = json.load(fp)
    t_start = time.time()
    log = lambda m: sys.stderr.write('runner: %s\n' % m)   # noqa: E731
    rig = Rig(doc['rx'], doc['tx'])
    kver = os.uname().release
    results = []
    for bi, b in enumerate(doc['batches']):
        r = run_batch(rig, b, k, log)
        acc = sum(1 for f in r['filters'] if not f['err'])
        log('batch %d (%s): %d filters (%d accepted) x %d frames: install %.1fs, '
            'send/read %.1fs (%d rounds, %d retries)'
            % (bi, b.get('hook', 'ingress'), len(b['filters']), acc, len(b['packets']), r['t_install'],
               r['t_send'], r['rounds'], r['retries']))
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
                   module_version=module['version'],
                   seconds=time.time() - t_start, k=k, batches=results)
    tmp = out + '.tmp'
    with open(tmp, 'w') as fp:
        json.dump(doc_out, fp)
    os.rename(tmp, out)


if __name__ == '__main__':
    main()
