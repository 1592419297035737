#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""stress/churn.py - filter churn under traffic, every packet accounted.

Runs in the test guest.  A veth pair va -> vb; vb has an ingress qdisc:

  prio 10  flower  eth_type ip, ip_proto udp, udp dst port P(k)   (churned)
  prio 20  flower  eth_type ip, dst_ip D(k)/32                    (churned)
  prio 100 flower  eth_type ip, ip_proto udp, udp dst port P(k)   (static:
           one per flow k, "catch-all" of that flow)
  prio 200 matchall                                   (strays: must be 0)

Every filter's action is a standalone gact action bound by index, so its
counter outlives the filter.  Flow k (k = 0..FLOWS-1) is UDP to D(k):P(k);
each action index belongs to one flow only: the churned filters of flow
k use the indexes of pool(k) (pass or drop), its catch-all one more.

A sender process (raw AF_PACKET socket on va, frames built by
flower.packets: no scapy import in the guest) sends the flows round-robin
while the main process churns: replace a filter keeping its key with
another action of the flow's pool, replace it with another flow's key
(EEXIST when that key is there already), delete, re-add, delete a whole
prio, for --cycles cycles.  Afterwards, for every flow k:

  sum(counters of pool(k)) + catch-all(k) == packets of flow k sent

(a packet matching both the old and the new filter of a replace is
counted by exactly one of them; none is lost; none is counted by a filter
of another flow), the matchall saw nothing, vb received exactly what the
counters add up to, every churn request got the answer the model
predicts, and a dump shows the filters the model holds.

Last line: "N passed, N failed".
"""

import argparse
import collections
import errno
import json
import os
import random
import socket
import subprocess
import sys
import time

sys.dont_write_bytecode = True
from flower import packets, uapi
from flower.nl import (NLM_F_CREATE, NLM_F_EXCL, NLM_F_REPLACE, NLM_F_ACK,
                       NLM_F_REQUEST, RTM_DELTFILTER, RTM_NEWTFILTER,
                       TC_H_INGRESS, NLSock, Timeout, decode,
                       decode_filter, flower_attr, gact, tfilter)

ETH_P_IP = 0x0800
TC_ACT_OK, TC_ACT_SHOT = 0, 2
A_IPV4_DST, A_UDP_DST = uapi.number('KEY_IPV4_DST'), uapi.number('KEY_UDP_DST')
POOL = 4                    # action indexes per flow
HANDLES = 3                 # churned filters per prio


def sh(cmd, check=True):
    return subprocess.run(cmd, shell=True, check=check)


def port(k):
    return 4000 + k


def dst(k):
    return bytes([10, 9, k >> 8, (k & 0xFF) + 1])


def pool(k):
    return [1000 + 10 * k + j for j in range(POOL)]


def catchall(k):
    return 5000 + k


STRAY = 9999


def verdict(idx):
    return TC_ACT_SHOT if idx % 2 else TC_ACT_OK


def acts(idx):
    """TCA_FLOWER_ACT: the standalone gact action idx, bound by index."""
    return flower_attr('ACT', gact(verdict(idx), idx, nested=False))


def key_opts(prio, k):
    if prio == 20:
        return [('KEY_ETH_TYPE', ETH_P_IP), ('KEY_IPV4_DST', dst(k)),
                ('KEY_IPV4_DST_MASK', '255.255.255.255')]
    return [('KEY_ETH_TYPE', ETH_P_IP), ('KEY_IP_PROTO', 17),
            ('KEY_UDP_DST', port(k))]


class Churn:
    def __init__(self, nl, ifindex, rng):
        self.nl, self.ifindex, self.rng = nl, ifindex, rng
        # prio -> handle -> (flow, action index)
        self.filters = {10: {}, 20: {}}
        self.ops = collections.Counter()
        self.passed = self.failed = 0
        self.failures = []

    def fail(self, text):
        self.failed += 1
        if len(self.failures) < 20:
            self.failures.append(text)
            print('FAIL: ' + text, flush=True)

    def request(self, what, prio, handle, k=None, idx=None, flags=0):
        if what == 'del':
            data = tfilter(RTM_DELTFILTER, NLM_F_REQUEST | NLM_F_ACK,
                           self.ifindex, handle, TC_H_INGRESS, prio,
                           ETH_P_IP)
        else:
            data = tfilter(RTM_NEWTFILTER, NLM_F_REQUEST | NLM_F_ACK | flags,
                           self.ifindex, handle, TC_H_INGRESS, prio,
                           ETH_P_IP, options=key_opts(prio, k) + [acts(idx)])
        return self.nl.request(data)

    def expect(self, label, rep, want):
        self.ops[label] += 1
        if rep.err == want and not rep.lost:
            self.passed += 1
            return True
        self.fail('%s: expected %s, got %s %r' % (
            label, errno.errorcode.get(want, want) if want else 'ack',
            errno.errorcode.get(rep.err, rep.err) if rep.err else 'ack',
            rep.msg))
        return False

    def flows_at(self, prio):
        return {k for k, _i in self.filters[prio].values()}

    def step(self, flows):
        r = self.rng
        prio = 10 if r.random() < 0.75 else 20
        fl = self.filters[prio]
        x = r.random()
        if fl and x < 0.35:
            # same key, another action of the flow's pool
            h = r.choice(sorted(fl))
            k, old = fl[h]
            idx = r.choice([i for i in pool(k) if i != old])
            rep = self.request('new', prio, h, k, idx,
                               NLM_F_CREATE | NLM_F_REPLACE)
            if self.expect('replace-action', rep, 0):
                fl[h] = (k, idx)
        elif fl and x < 0.55:
            # another key (maybe one that is there already: EEXIST)
            h = r.choice(sorted(fl))
            k2 = r.randrange(flows)
            idx = r.choice(pool(k2))
            busy = any(kk == k2 and hh != h for hh, (kk, _i) in fl.items())
            rep = self.request('new', prio, h, k2, idx,
                               NLM_F_CREATE | NLM_F_REPLACE)
            if self.expect('replace-key' + ('-eexist' if busy else ''), rep,
                           errno.EEXIST if busy else 0):
                if not busy:
                    fl[h] = (k2, idx)
        elif fl and x < 0.75:
            h = r.choice(sorted(fl))
            rep = self.request('del', prio, h)
            if self.expect('delete', rep, 0):
                del fl[h]
        elif fl and x < 0.78:
            rep = self.request('del', prio, 0)
            if self.expect('delete-prio', rep, 0):
                fl.clear()
        else:
            free = [h for h in range(1, HANDLES + 1) if h not in fl]
            if not free:
                return self.step(flows)
            h = r.choice(free)
            k = r.randrange(flows)
            idx = r.choice(pool(k))
            busy = k in self.flows_at(prio)
            rep = self.request('new', prio, h, k, idx,
                               NLM_F_CREATE | NLM_F_EXCL)
            if self.expect('add' + ('-eexist' if busy else ''), rep,
                           errno.EEXIST if busy else 0):
                if not busy:
                    fl[h] = (k, idx)

    def check_dump(self):
        bodies = self.nl.dump_filters(self.ifindex)
        got = {10: {}, 20: {}}
        for body in bodies:
            (_i, handle, _p, prio, _proto), tca, opts, entry = \
                decode_filter(body)
            if prio not in got or not handle or opts is None:
                continue
            o = dict((t & 0x3FFF, v) for t, v in opts)
            if prio == 10:
                k = decode(A_UDP_DST, o[A_UDP_DST]) - 4000
            else:
                d = o[A_IPV4_DST]
                k = (d[2] << 8) + d[3] - 1
            act = entry['options']['TCA_FLOWER_ACT'][0]
            got[prio][handle] = (k, act['options']['parms']['index'])
        if got == self.filters:
            self.passed += 1
        else:
            self.fail('dumped filters %s, model %s' % (got, self.filters))


def sender(frames, wfd, stop_fd):
    """Child: send the frames round-robin until stop_fd is readable; then
    write {flow: sent} as JSON to wfd."""
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind(('va', 0))
    sent = [0] * len(frames)
    errors = 0
    import select
    n = 0
    while True:
        for k, fr in enumerate(frames):
            try:
                s.send(fr)
                sent[k] += 1
            except OSError:
                errors += 1
        n += 1
        if n % 16 == 0 and select.select([stop_fd], [], [], 0)[0]:
            break
    os.write(wfd, json.dumps({'sent': sent, 'errors': errors}).encode())
    os._exit(0)


def action_counts():
    """{index: packets} of every gact action (tc -s -j actions ls)."""
    out = subprocess.run(['tc', '-s', '-j', 'actions', 'ls', 'action',
                          'gact'], capture_output=True, text=True,
                         check=True).stdout
    counts = {}

    def walk(x):
        if isinstance(x, dict):
            if 'index' in x and 'stats' in x:
                counts[x['index']] = x['stats'].get('packets', 0)
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(json.loads(out))
    return counts


def stat(dev, name):
    with open('/sys/class/net/%s/statistics/%s' % (dev, name)) as f:
        return int(f.read())


def setup(flows):
    sh('ip link del va 2>/dev/null', check=False)
    sh('ip link add va type veth peer name vb')
    for d in ('va', 'vb'):
        # no IPv6 autoconfiguration chatter on the link
        sh('sysctl -qw net.ipv6.conf.%s.disable_ipv6=1' % d, check=False)
        sh('ip link set %s up' % d)
    sh('tc qdisc add dev vb ingress')
    batch = []
    for k in range(flows):
        for idx in pool(k) + [catchall(k)]:
            batch.append('actions add action gact %s index %d' % (
                'drop' if verdict(idx) == TC_ACT_SHOT else 'pass', idx))
    batch.append('actions add action gact pass index %d' % STRAY)
    for k in range(flows):
        batch.append('filter add dev vb ingress prio 100 protocol ip '
                     'handle %d flower ip_proto udp dst_port %d action '
                     'gact pass index %d' % (k + 1, port(k), catchall(k)))
    batch.append('filter add dev vb ingress prio 200 protocol all '
                 'matchall action gact pass index %d' % STRAY)
    subprocess.run(['tc', '-b', '-'], input='\n'.join(batch) + '\n',
                   text=True, check=True)
    with open('/sys/class/net/vb/ifindex') as f:
        return int(f.read())


def frames_for(flows):
    """Flow k's frame: UDP 10.8.0.1:1234 -> D(k):P(k), padded to 60 bytes."""
    return [packets.build(dict(
        dst=0x020000000002, src=0x020000000001, l3='ipv4',
        ip=dict(v=4, src=0x0a080001, dst=int.from_bytes(dst(k), 'big'),
                proto=17), l4=dict(kind='udp', sport=1234, dport=port(k)),
        pad=10)) for k in range(flows)]


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--seed', type=int, default=None)
    p.add_argument('--cycles', type=int, default=300,
                   help='churn requests (default 300)')
    p.add_argument('--flows', type=int, default=4)
    p.add_argument('--time-limit', type=float, default=0)
    p.add_argument('--check-every', type=int, default=100,
                   help='compare a dump with the model every N cycles')
    p.add_argument('--json', metavar='FILE')
    return p.parse_args(argv)


def start_sender(frames):
    """Fork the sender: (its pid, the pipe its counts come back on, the
    pipe that stops it)."""
    rfd, wfd = os.pipe()
    stop_r, stop_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rfd)
        os.close(stop_w)
        try:
            sender(frames, wfd, stop_r)
        finally:
            os._exit(1)
    os.close(wfd)
    os.close(stop_r)
    return pid, rfd, stop_w


def stop_sender(pid, rfd, stop_w):
    """Stop the sender; its counts ({'sent': [per flow], 'errors'})."""
    os.write(stop_w, b'x')
    res = b''
    while True:
        d = os.read(rfd, 65536)
        if not d:
            break
        res += d
    os.waitpid(pid, 0)
    return json.loads(res.decode())


def run_churn(a, ch):
    """The churn requests: (cycles done, seconds)."""
    t0 = time.monotonic()
    cycles = 0
    try:
        for i in range(a.cycles):
            if a.time_limit and time.monotonic() - t0 > a.time_limit:
                print('churn: time limit reached after %d cycles' % i)
                break
            ch.step(a.flows)
            cycles += 1
            if a.check_every and (i + 1) % a.check_every == 0:
                ch.check_dump()
    except Timeout as e:
        ch.fail('request timed out: %s' % e)
    return cycles, time.monotonic() - t0


def drain():
    """Let the receive side drain (netif_rx backlog, RCU-deferred frees):
    until vb's rx_packets stops moving."""
    last = -1
    for _ in range(50):
        rx = stat('vb', 'rx_packets')
        if rx == last:
            break
        last = rx
        time.sleep(0.2)


def check_accounting(ch, flows, sent, delta, rx, txd, rxd):
    """Every packet sent is counted once: by a churned filter or by its
    flow's catch-all, none by the stray catch-all, and vb received them
    all (with no drops before ingress)."""
    lossless = txd == 0 and rxd == 0
    total_counted = sum(delta.values())
    for k in range(flows):
        churned = sum(delta.get(i, 0) for i in pool(k))
        caught = delta.get(catchall(k), 0)
        n = sent['sent'][k]
        print('churn: flow %d: sent %d = churned filters %d + catch-all %d'
              ' (%s)' % (k, n, churned, caught,
                         ' '.join('%d:%d' % (i, delta.get(i, 0))
                                  for i in pool(k))))
        if churned + caught == n or (not lossless and churned + caught <= n):
            ch.passed += 1
        else:
            ch.fail('flow %d: %d sent, %d counted (%d by churned filters, '
                    '%d by its catch-all)' % (k, n, churned + caught,
                                              churned, caught))
    if delta.get(STRAY, 0) == 0:
        ch.passed += 1
    else:
        ch.fail('the matchall catch-all counted %d packets'
                % delta.get(STRAY, 0))
    if rx == total_counted:
        ch.passed += 1
    else:
        ch.fail('vb received %d packets, counters add up to %d'
                % (rx, total_counted))
    if lossless:
        ch.passed += 1
    else:
        ch.fail('packets dropped before ingress: va tx_dropped %d, vb '
                'rx_dropped %d (accounting is then only an upper bound)'
                % (txd, rxd))


def main(argv=None):
    a = parse_args(argv)
    seed = a.seed if a.seed is not None else int(time.time()) % 1000000
    rng = random.Random(seed)
    print('churn: seed %d, cycles %d, flows %d' % (seed, a.cycles, a.flows),
          flush=True)

    frames = frames_for(a.flows)
    ifindex = setup(a.flows)
    nl = NLSock(timeout=60)
    ch = Churn(nl, ifindex, rng)
    base_counts = action_counts()
    rx0 = stat('vb', 'rx_packets')
    txd0, rxd0 = stat('va', 'tx_dropped'), stat('vb', 'rx_dropped')

    pid, rfd, stop_w = start_sender(frames)
    cycles, churn_time = run_churn(a, ch)
    sent = stop_sender(pid, rfd, stop_w)
    drain()
    ch.check_dump()

    counts = action_counts()
    delta = {i: counts.get(i, 0) - base_counts.get(i, 0) for i in counts}
    rx = stat('vb', 'rx_packets') - rx0
    txd = stat('va', 'tx_dropped') - txd0
    rxd = stat('vb', 'rx_dropped') - rxd0
    total_sent = sum(sent['sent'])
    total_counted = sum(delta.values())
    print('churn: %d cycles in %.1f s; requests: %s' % (
        cycles, churn_time, ', '.join('%s %d' % kv for kv in
                                      sorted(ch.ops.items()))))
    print('churn: sent %d packets (%s), send errors %d; vb received %d, '
          'va tx_dropped %d, vb rx_dropped %d; counters sum %d'
          % (total_sent, ' '.join('flow%d=%d' % (k, n) for k, n in
                                  enumerate(sent['sent'])),
             sent['errors'], rx, txd, rxd, total_counted))
    check_accounting(ch, a.flows, sent, delta, rx, txd, rxd)

    rc = sh('tc qdisc del dev vb ingress', check=False).returncode
    if rc == 0:
        ch.passed += 1
    else:
        ch.fail('tc qdisc del dev vb ingress failed')
    sh('ip link del va', check=False)
    sh('tc actions flush action gact', check=False)
    if a.json:
        with open(a.json, 'w') as f:
            json.dump({'seed': seed, 'cycles': cycles,
                       'seconds': round(churn_time, 1),
                       'requests': dict(ch.ops), 'packets_sent': total_sent,
                       'packets_counted': total_counted,
                       'passed': ch.passed, 'failed': ch.failed}, f,
                      indent=1)
    print('%d passed, %d failed' % (ch.passed, ch.failed))
    return 1 if ch.failed else 0


if __name__ == '__main__':
    sys.exit(main())
