#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""stress/lifecycle.py - module lifecycle, 100k filters, failslab, kmemleak.

Runs in the test guest (cls_flower loaded by guest/run; modprobe finds our
modules through MODPROBE_OPTIONS).  Parts, each skipped with --skip PART:

  module    rmmod / modprobe -r refused (module in use) while a flower
            filter exists; clean unload after the qdisc is deleted;
            modprobe loads ours again (ours() below) and it works.
  big       --filters N filters (default 100000) added with one `tc -b`
            batch, counted in a dump, then the qdisc deleted with all of
            them; the module unloads and reloads afterwards.
  netns     --netns-filters filters (3000) in 3 prios of a qdisc inside a
            network namespace that is then deleted: the netns cleanup
            frees them (without an RCU-deferred work: the netns is dead);
            the module refcount drops to 0 and it unloads/reloads.
  failslab  (debug kernel: /sys/kernel/debug/failslab) a fail-nth sweep
            (/proc/thread-self/fail-nth = 1, 2, ... until no fault site is
            left) over add / add-new-prio / replace (same key and other
            key) / delete requests, then --space-runs requests with
            task-filter + probability 100 + times 1 + a random space
            budget.  After each injected failure the filter set must be
            unchanged when the request was refused, and exactly the
            request's result when it was acknowledged (a failure in an
            allocation whose failure the kernel tolerates, e.g. the
            notification); no reply lost without the set being one of
            the two.
  kmemleak  (debug kernel) scan; every "unreferenced object" is a failure.

Last line: "N passed, N failed".
"""

import argparse
import errno
import json
import os
import random
import socket
import struct
import subprocess
import sys
import time

sys.dont_write_bytecode = True
from flower.nl import (NETLINK_CAP_ACK, NETLINK_EXT_ACK, NLM_F_ACK,
                       NLM_F_CREATE, NLM_F_EXCL, NLM_F_REPLACE, NLM_F_REQUEST,
                       NLMSG_ERROR, RTM_DELTFILTER, RTM_NEWTFILTER,
                       SOL_NETLINK, TC_H_INGRESS, NLSock, decode_filter,
                       flower_attr, gact, tfilter)

FAILSLAB = '/sys/kernel/debug/failslab'
KMEMLEAK = '/sys/kernel/debug/kmemleak'
KALLSYMS = '/proc/kallsyms'


class Result:
    def __init__(self):
        self.passed = self.failed = 0
        self.notes = []
        self.data = {}

    def check(self, ok, what):
        if ok:
            self.passed += 1
            print('ok: ' + what, flush=True)
        else:
            self.failed += 1
            print('FAIL: ' + what, flush=True)
        return ok


def run(cmd, check=False, quiet=False):
    p = subprocess.run(cmd, shell=True, capture_output=True, text=True)
    if not quiet and (p.returncode or p.stderr.strip()):
        print('  $ %s -> %d %s' % (cmd, p.returncode,
                                    (p.stdout + p.stderr).strip()[:300]))
    if check and p.returncode:
        raise RuntimeError('%s failed: %s' % (cmd, p.stderr.strip()))
    return p


def loaded():
    return os.path.isdir('/sys/module/cls_flower')


def ours():
    """The loaded cls_flower is ours: it has fl_hashfn, the masked-key
    hash of its filters' rhashtable (address taken, so never inlined),
    which the stock module has not (/proc/kallsyms lists module text
    symbols as "ADDR t NAME\t[MODULE]")."""
    try:
        with open(KALLSYMS) as f:
            return any(line.split()[2:4] == ['fl_hashfn', '[cls_flower]']
                       for line in f)
    except OSError:
        return False


def ifindex(dev):
    with open('/sys/class/net/%s/ifindex' % dev) as f:
        return int(f.read())


def dummy(dev):
    run('ip link del %s 2>/dev/null' % dev, quiet=True)
    run('ip link add %s type dummy && ip link set %s up && '
        'tc qdisc add dev %s ingress' % (dev, dev, dev), check=True)


# --- module -----------------------------------------------------------------
def part_module(res):
    res.check(ours(), 'cls_flower loaded, and it is ours (fl_hashfn)')
    dummy('lc0')
    for i in range(3):
        run('tc filter add dev lc0 ingress prio %d protocol ip flower '
            'dst_ip 10.0.0.%d action drop' % (i + 1, i + 1), check=True)
    with open('/sys/module/cls_flower/refcnt') as f:
        refcnt = int(f.read())
    res.check(refcnt >= 1, 'module refcnt %d with 3 filters' % refcnt)
    p = run('rmmod cls_flower', quiet=True)
    res.check(p.returncode != 0 and 'in use' in p.stderr,
              'rmmod refused while filters exist (rc %d: %s)'
              % (p.returncode, p.stderr.strip()))
    p = run('modprobe -r cls_flower', quiet=True)
    res.check(p.returncode != 0 and loaded(),
              'modprobe -r refused while filters exist (rc %d: %s)'
              % (p.returncode, p.stderr.strip()))
    n = run('tc filter show dev lc0 ingress', quiet=True).stdout.count(
        'handle')
    res.check(n == 3, 'the 3 filters are still there (%d)' % n)
    run('tc qdisc del dev lc0 ingress', check=True)
    t = time.monotonic()
    p = run('modprobe -r cls_flower')
    res.check(p.returncode == 0 and not loaded(),
              'modprobe -r after deleting the qdisc (%.1f s)'
              % (time.monotonic() - t))
    p = run('modprobe cls_flower')
    res.check(p.returncode == 0 and ours(),
              'modprobe loads it again, ours: %s' % ours())
    p = run('tc qdisc add dev lc0 ingress && tc filter add dev lc0 ingress '
            'prio 1 protocol ip flower dst_ip 10.0.0.1 action drop && '
            'tc filter show dev lc0 ingress | grep -q "dst_ip 10.0.0.1"')
    res.check(p.returncode == 0, 'filters work after the reload')
    run('ip link del lc0')
    with open('/sys/module/cls_flower/refcnt') as f:
        refcnt = int(f.read())
    res.check(refcnt == 0, 'refcnt back to 0 once the device is gone (%d)'
              % refcnt)


# --- 100k filters -------------------------------------------------------------
def count_dump(nl, idx):
    return sum(1 for b in nl.dump_filters(idx, timeout=600)
               if struct.unpack_from('<I', b, 8)[0])


def part_big(res, n, nl):
    dummy('lc1')
    path = '/tmp/lifecycle-big.batch'
    with open(path, 'w') as f:
        for h in range(1, n + 1):
            f.write('filter add dev lc1 ingress protocol ip prio 1 handle %d '
                    'flower dst_ip 10.%d.%d.%d action drop\n'
                    % (h, h >> 16, (h >> 8) & 0xFF, h & 0xFF))
    t = time.monotonic()
    p = run('tc -b %s' % path)
    t_add = time.monotonic() - t
    res.check(p.returncode == 0, 'tc -b: %d filters added in %.1f s '
              '(%.0f/s)' % (n, t_add, n / max(t_add, 1e-9)))
    t = time.monotonic()
    got = count_dump(nl, ifindex('lc1'))
    t_dump = time.monotonic() - t
    res.check(got == n, 'dump shows %d filters (%.1f s)' % (got, t_dump))
    t = time.monotonic()
    p = run('tc qdisc del dev lc1 ingress')
    t_del = time.monotonic() - t
    res.check(p.returncode == 0, 'tc qdisc del with %d filters: %.1f s'
              % (n, t_del))
    t = time.monotonic()
    p = run('modprobe -r cls_flower')
    t_unload = time.monotonic() - t
    res.check(p.returncode == 0 and not loaded(),
              'module unloads after that (%.1f s: waits for the deferred '
              'frees)' % t_unload)
    p = run('modprobe cls_flower')
    res.check(p.returncode == 0 and ours(), 'and reloads')
    run('ip link del lc1')
    os.unlink(path)
    res.data['big'] = {'filters': n, 'add_s': round(t_add, 1),
                       'dump_s': round(t_dump, 1), 'qdisc_del_s': round(
                           t_del, 1), 'unload_s': round(t_unload, 1)}
    res.notes.append('big: %d filters: add %.1f s, dump %.1f s, qdisc del '
                     '%.1f s, unload %.1f s' % (n, t_add, t_dump, t_del,
                                                t_unload))


# --- netns -------------------------------------------------------------------
def refcnt():
    try:
        with open('/sys/module/cls_flower/refcnt') as f:
            return int(f.read())
    except OSError:
        return None


def part_netns(res, n):
    """Filters die with their network namespace: the netns cleanup
    destroys the qdisc when the netns can no longer be referenced, so
    the classifier frees filters directly instead of after a grace period
    (tcf_exts_get_net() fails)."""
    run('ip netns del lcns 2>/dev/null', quiet=True)
    p = run('ip netns add lcns && ip -n lcns link add d0 type dummy && '
            'ip -n lcns link set d0 up && tc -n lcns qdisc add dev d0 ingress')
    if not res.check(p.returncode == 0, 'netns with an ingress qdisc'):
        return
    path = '/tmp/lifecycle-netns.batch'
    with open(path, 'w') as f:
        for h in range(1, n + 1):
            f.write('filter add dev d0 ingress protocol ip prio %d handle %d '
                    'flower dst_ip 10.%d.%d.%d action drop\n'
                    % (1 + h % 3, h, h >> 16, (h >> 8) & 0xFF, h & 0xFF))
    p = run('tc -n lcns -b %s' % path)
    os.unlink(path)
    res.check(p.returncode == 0, 'netns: %d filters in 3 prios' % n)
    before = refcnt()
    t = time.monotonic()
    run('ip netns del lcns', check=True)
    while refcnt() and time.monotonic() - t < 300:
        time.sleep(0.5)
    took = time.monotonic() - t
    res.check(refcnt() == 0, 'netns deleted: module refcnt %s -> %s after '
              '%.1f s' % (before, refcnt(), took))
    p = run('modprobe -r cls_flower && modprobe cls_flower')
    res.check(p.returncode == 0 and ours(),
              'module unloads and reloads after the netns went')
    res.data['netns'] = {'filters': n, 'cleanup_s': round(took, 1)}


# --- failslab ---------------------------------------------------------------
def fs_set(name, value):
    with open(os.path.join(FAILSLAB, name), 'w') as f:
        f.write(str(value))


def fs_get(name):
    with open(os.path.join(FAILSLAB, name)) as f:
        return f.read().strip()


def failslab_for_marked_tasks():
    """Every slab allocation of a task that asks for a fault (fail-nth,
    or make-it-fail with a times/space budget) fails; no other task's."""
    fs_set('verbose', 0)             # no stack dumps on the console
    fs_set('ignore-gfp-wait', 'N')   # GFP_KERNEL allocations may fail too
    fs_set('task-filter', 'Y')
    fs_set('probability', 100)
    fs_set('interval', 1)
    fs_set('times', 0)
    fs_set('space', 0)


def act(verdict):
    """TCA_FLOWER_ACT: one new gact action of this verdict."""
    return flower_attr('ACT', gact(verdict, nested=False))


def new_msg(idx, prio, handle, dst, flags, verdict=2, src=None):
    opts = [('KEY_ETH_TYPE', 0x0800)]
    if src is None:
        opts += [('KEY_IPV4_DST', bytes(dst))]
    else:
        opts += [('KEY_IPV4_SRC', bytes(src))]
    return tfilter(RTM_NEWTFILTER, NLM_F_REQUEST | NLM_F_ACK | flags, idx,
                   handle, TC_H_INGRESS, prio, 0x0800,
                   options=opts + [act(verdict)])


def del_msg(idx, prio, handle):
    return tfilter(RTM_DELTFILTER, NLM_F_REQUEST | NLM_F_ACK, idx, handle,
                   TC_H_INGRESS, prio, 0x0800)


class Injector:
    """Sends one pre-encoded request with a fault armed for this thread
    only, with as few other syscalls as possible in between (anything
    else the thread does while armed, e.g. an mmap, could take the
    fault).  That is why it is not flower.nl's NLSock, whose select()
    and buffer handling would run armed."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  socket.NETLINK_ROUTE)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
        self.sock.bind((0, 0))
        self.sock.settimeout(60)
        self.buf = bytearray(1 << 16)
        self.nth = os.open('/proc/thread-self/fail-nth', os.O_RDWR)
        self.mif = os.open('/proc/thread-self/make-it-fail', os.O_RDWR)
        self.seq = 1000

    def _send(self, data, arm, disarm):
        self.seq += 1
        data = bytearray(data)
        struct.pack_into('<I', data, 8, self.seq)
        data = bytes(data)
        buf, sock, seq = self.buf, self.sock, self.seq
        err, lost = None, None
        arm()
        try:
            try:
                sock.send(data)
            except OSError as e:
                disarm()
                return None, ('send', e.errno)
            while True:
                n = sock.recv_into(buf)
                if n >= 20 and struct.unpack_from('<I', buf, 8)[0] == seq \
                        and struct.unpack_from('<H', buf, 4)[0] == \
                        NLMSG_ERROR:
                    err = -struct.unpack_from('<i', buf, 16)[0]
                    break
        except socket.timeout:
            disarm()
            raise
        except OSError as e:
            lost = ('reply', e.errno)
        disarm()
        return err, lost

    def nth_request(self, data, n):
        """(err, lost errno, injected?)"""
        def arm():
            os.pwrite(self.nth, b'%d' % n, 0)

        def disarm():
            pass
        err, lost = self._send(data, arm, disarm)
        left = int(os.pread(self.nth, 32, 0) or b'0')
        if left:
            os.pwrite(self.nth, b'0', 0)
        return err, lost, left == 0

    def space_request(self, data, space):
        fs_set('times', 1)
        fs_set('space', space)

        def arm():
            os.pwrite(self.mif, b'1', 0)

        def disarm():
            os.pwrite(self.mif, b'0', 0)
        err, lost = self._send(data, arm, disarm)
        injected = fs_get('times') == '0'
        return err, lost, injected


SLUB_DEBUG_FAILSLAB = 'slub_debug=A;-,kmemleak_object,kmemleak_scan_area'


def cache_filter():
    """Fault injection only in the slab caches flagged SLAB_FAILSLAB, when
    the kernel was booted with SLUB_DEBUG_FAILSLAB (every cache but
    kmemleak's own; make stress does that for lifecycle).  kmemleak's
    metadata allocations fall back to a pool when they fail, so a fault
    injected there is absorbed and only blurs the counts.  (The per-cache
    failslab file in /sys/kernel/slab is read-only in 6.1.)  Returns
    (caches flagged, caches not flagged) and sets cache-filter when some
    are flagged."""
    base = '/sys/kernel/slab'
    if not os.path.isdir(base):
        return None
    flagged = unflagged = 0
    for c in sorted(os.listdir(base)):
        if os.path.islink(os.path.join(base, c)):
            continue                    # an alias of a merged cache
        try:
            with open(os.path.join(base, c, 'failslab')) as f:
                on = f.read().strip() == '1'
        except OSError:
            continue
        flagged += on
        unflagged += not on
    fs_set('cache-filter', 'Y' if flagged else 'N')
    return flagged, unflagged


def snapshot(nl, idx):
    """The filter set: {(prio, handle): (options without actions, action
    kinds and verdicts)}."""
    out = {}
    for body in nl.dump_filters(idx):
        (_i, handle, _p, prio, proto), _tca, opts, entry = decode_filter(body)
        if not handle or opts is None:
            continue
        keys = tuple((t & 0x3FFF, v) for t, v in opts if t & 0x3FFF != 3)
        acts = tuple((a.get('kind'), ((a.get('options') or {}).get('parms')
                                      or {}).get('action'))
                     for a in entry['options'].get('TCA_FLOWER_ACT') or [])
        out[(prio, handle)] = (proto, keys, acts)
    return out


class Failslab:
    """failslab on each kind of request: every allocation site (fail-nth
    1, 2, ...) and random byte budgets (space); after each faulted
    request the filter set must be the one before (refused, or sendmsg
    failed), the applied one (acknowledged), or either (reply lost)."""

    DEV = 'lc2'

    def __init__(self, res, nl):
        self.res, self.nl = res, nl
        self.inj = Injector()
        self.stats = {'injected': 0, 'refused': {}, 'acked': 0,
                      'send failed': 0, 'reply lost': 0, 'not reached': 0}
        self.bad = 0
        self.idx = None
        # (name, the request for ifindex i)
        self.ops = [
            ('add', lambda i: new_msg(i, 1, 10, [10, 1, 0, 10],
                                      NLM_F_CREATE | NLM_F_EXCL)),
            ('add-new-prio', lambda i: new_msg(i, 3, 1, [10, 3, 0, 1],
                                               NLM_F_CREATE | NLM_F_EXCL)),
            ('replace-same-key', lambda i: new_msg(
                i, 1, 1, [10, 1, 0, 1], NLM_F_CREATE | NLM_F_REPLACE,
                verdict=0)),
            ('replace-other-key', lambda i: new_msg(
                i, 1, 2, [10, 1, 0, 99], NLM_F_CREATE | NLM_F_REPLACE)),
            ('delete', lambda i: del_msg(i, 1, 3)),
            ('delete-last-of-prio', lambda i: del_msg(i, 2, 0)),
        ]
        # the request that takes the applied set back to the baseline
        self.undo = {
            'add': lambda i: [del_msg(i, 1, 10)],
            'add-new-prio': lambda i: [del_msg(i, 3, 0)],
            'replace-same-key': lambda i: [new_msg(
                i, 1, 1, [10, 1, 0, 1], NLM_F_CREATE | NLM_F_REPLACE)],
            'replace-other-key': lambda i: [new_msg(
                i, 1, 2, [10, 1, 0, 2], NLM_F_CREATE | NLM_F_REPLACE)],
            'delete': lambda i: [new_msg(i, 1, 3, [10, 1, 0, 3],
                                         NLM_F_CREATE | NLM_F_EXCL)],
            'delete-last-of-prio': lambda i: [
                new_msg(i, 2, h, None, NLM_F_CREATE | NLM_F_EXCL,
                        src=[10, 2, 0, h]) for h in (1, 2)],
        }

    def baseline(self):
        """A fresh device with 5 filters in prio 1 and 2 in prio 2."""
        run('ip link del %s 2>/dev/null' % self.DEV, quiet=True)
        dummy(self.DEV)
        i = ifindex(self.DEV)
        for h in range(1, 6):
            r = self.nl.request(new_msg(i, 1, h, [10, 1, 0, h],
                                        NLM_F_CREATE | NLM_F_EXCL))
            assert r.err == 0, r
        for h in range(1, 3):
            r = self.nl.request(new_msg(i, 2, h, None,
                                        NLM_F_CREATE | NLM_F_EXCL,
                                        src=[10, 2, 0, h]))
            assert r.err == 0, r
        self.idx = i

    def snapshot(self):
        return snapshot(self.nl, self.idx)

    def judge(self, name, how, err, lost, injected, before, applied):
        """Checks the set after one request; returns (fault injected?,
        the set now)."""
        stats = self.stats
        state = self.snapshot()
        if not injected:
            stats['not reached'] += 1
            if not (err == 0 and state == applied):
                self.bad += 1
                self.res.check(False, 'failslab %s %s: no fault injected, '
                               'answer %s, set %s' % (
                                   name, how, err, 'applied' if state ==
                                   applied else 'other'))
            return False, state
        stats['injected'] += 1
        if lost is not None and lost[0] == 'send':
            stats['send failed'] += 1
            ok = state == before
            what = 'sendmsg failed (%s)' % errno.errorcode.get(lost[1],
                                                               lost[1])
        elif lost is not None:
            stats['reply lost'] += 1
            ok = state in (before, applied)
            what = 'reply lost (%s)' % errno.errorcode.get(lost[1], lost[1])
        elif err:
            name_e = errno.errorcode.get(err, str(err))
            stats['refused'][name_e] = stats['refused'].get(name_e, 0) + 1
            ok = state == before
            what = 'refused %s' % name_e
        else:
            stats['acked'] += 1
            ok = state == applied
            what = 'acknowledged'
        if not ok:
            self.bad += 1
            self.res.check(False, 'failslab %s %s: %s but the filter set is '
                           '%s' % (name, how, what,
                                   'the one before' if state == before
                                   else 'the applied one' if state == applied
                                   else 'neither the one before nor the '
                                   'applied one: %r' % (state,)))
        return True, state

    def restore(self, name, state, before, applied):
        if state == applied:
            for m in self.undo[name](self.idx):
                self.nl.request(m)
            state = self.snapshot()
        if state != before:
            self.baseline()

    def every_site(self, max_nth):
        """fail-nth 1, 2, ... on each request until one is not reached:
        ({name: fault sites}, {name: the set it produces})."""
        per_op, sets = {}, {}
        self.baseline()
        base = self.snapshot()
        for name, build in self.ops:
            # the set the request produces when nothing fails
            r = self.nl.request(build(self.idx))
            applied = self.snapshot()
            sets[name] = applied
            if not self.res.check(r.err == 0 and applied != base,
                                  'failslab %s: works without faults'
                                  % name):
                self.baseline()
                continue
            self.restore(name, applied, base, applied)
            n = 0
            while n < max_nth:
                n += 1
                err, lost, injected = self.inj.nth_request(build(self.idx),
                                                           n)
                more, state = self.judge(name, 'fail-nth %d' % n, err, lost,
                                         injected, base, applied)
                self.restore(name, state, base, applied)
                if not more:
                    break
            per_op[name] = n - 1
        return per_op, sets, base

    def budgets(self, rng, space_runs, sets, base):
        """random budgets: the first allocation after `space` bytes fails"""
        for _k in range(space_runs):
            name, build = rng.choice([o for o in self.ops if o[0] in sets])
            space = rng.randrange(0, 16384)
            err, lost, injected = self.inj.space_request(build(self.idx),
                                                         space)
            _more, state = self.judge(name, 'space %d' % space, err, lost,
                                      injected, base, sets[name])
            self.restore(name, state, base, sets[name])


def part_failslab(res, nl, space_runs, seed, max_nth):
    if not os.path.isdir(FAILSLAB) or \
            not os.path.exists('/proc/thread-self/fail-nth'):
        print('failslab: not available on this kernel, skipped')
        res.notes.append('failslab: not available (run on the debug '
                         'kernel)')
        return
    caches = cache_filter()
    if caches and not caches[0]:
        caches = None               # no cache filter: every cache may fail
    failslab_for_marked_tasks()
    fsl = Failslab(res, nl)
    rng = random.Random(seed)
    t0 = time.monotonic()
    per_op, sets, base = fsl.every_site(max_nth)
    fsl.budgets(rng, space_runs, sets, base)
    fs_set('probability', 0)
    fs_set('times', 0)
    run('ip link del %s' % fsl.DEV)
    took = time.monotonic() - t0
    stats = fsl.stats
    res.check(fsl.bad == 0 and stats['injected'] > 0,
              'failslab: %d faults injected (%s), every filter set '
              'consistent with its answer' % (stats['injected'], stats))
    res.data['failslab'] = dict(stats, sites=per_op, seconds=round(took),
                                caches=caches)
    res.notes.append('failslab: slab caches with failslab (on, off; '
                     'None: all): %s; fault sites per request (fail-nth): '
                     '%s; %d injected: %s; %.0f s' % (
                         caches, per_op, stats['injected'], stats, took))


# --- kmemleak -----------------------------------------------------------------
def part_kmemleak(res):
    if not os.path.exists(KMEMLEAK):
        print('kmemleak: not available on this kernel, skipped')
        return
    time.sleep(6)           # kmemleak ignores objects younger than 5 s
    t = time.monotonic()
    with open(KMEMLEAK, 'w') as f:
        f.write('scan')
    with open(KMEMLEAK) as f:
        text = f.read()
    leaks = text.count('unreferenced object')
    if leaks:
        print(text[:6000])
    res.check(leaks == 0, 'kmemleak: %d unreferenced objects (scan %.0f s)'
              % (leaks, time.monotonic() - t))
    res.data['kmemleak_leaks'] = leaks
    res.notes.append('kmemleak: %d leaks' % leaks)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--filters', type=int, default=100000)
    p.add_argument('--space-runs', type=int, default=30)
    p.add_argument('--max-nth', type=int, default=400,
                   help='give up a fail-nth sweep after this many sites')
    p.add_argument('--seed', type=int, default=1)
    p.add_argument('--json', metavar='FILE', help='write the results here')
    p.add_argument('--skip', action='append', default=[],
                   choices=('module', 'big', 'netns', 'failslab',
                            'kmemleak'))
    p.add_argument('--netns-filters', type=int, default=3000)
    a = p.parse_args(argv)
    res = Result()
    nl = NLSock(timeout=120)
    t0 = time.monotonic()
    if os.path.exists(KMEMLEAK):
        with open(KMEMLEAK, 'w') as f:
            f.write('clear')        # report only what this run leaks
    for part, fn in (('module', lambda: part_module(res)),
                     ('big', lambda: part_big(res, a.filters, nl)),
                     ('netns', lambda: part_netns(res, a.netns_filters)),
                     ('failslab', lambda: part_failslab(
                         res, nl, a.space_runs, a.seed, a.max_nth)),
                     ('kmemleak', lambda: part_kmemleak(res))):
        if part in a.skip:
            continue
        t = time.monotonic()
        print('--- %s' % part, flush=True)
        try:
            fn()
        except Exception as e:  # a broken part fails, the others still run
            res.check(False, '%s: %s: %s' % (part, type(e).__name__, e))
        print('--- %s: %.1f s' % (part, time.monotonic() - t), flush=True)
    for n in res.notes:
        print('lifecycle: ' + n)
    print('lifecycle: %.1f s' % (time.monotonic() - t0))
    if a.json:
        with open(a.json, 'w') as f:
            json.dump({'filters': a.filters, 'space_runs': a.space_runs,
                       'notes': res.notes, 'seconds': round(
                           time.monotonic() - t0, 1), 'passed': res.passed,
                       'failed': res.failed, **res.data}, f, indent=1)
    print('%d passed, %d failed' % (res.passed, res.failed))
    return 1 if res.failed else 0


if __name__ == '__main__':
    sys.exit(main())
