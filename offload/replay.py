#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Guest side of the offload oracle: replay a request file's items on
whatever flower the guest's kernel has, with the test driver
(flower_offload_test.ko, loaded by the make target before this runs)
taking devices A and B, and record what every step did.

For each item (offload/common.py: its form; offload/sources.py: where
the items come from) the steps run in order; each step records its exit
status (1 when tc's batch line failed, the errno of a netlink request or
of a debugfs write), stderr (tc's "Error:"/"Warning:" lines are the
extack), the driver's log since the previous step (debugfs `log`, read
then cleared: one JSON object per callback), the time it took, and for
`show` steps the output of `tc -s -j filter show`.  A `flush` step
records the show it read and then one `tc filter del ... handle H` per
filter it showed.  After the last step the runner tears down on its own
(the clsact and ingress qdiscs of A, B and C deleted, the driver's refuse
and stats reset) and records the log of that as a step "teardown".

Every tc command goes to one `tc -s -j -force -batch -` (TcBatch): an
exec of tc costs a tenth of a second under TCG, a batch line a few ms,
and the whole corpus (3,400 items) replays in about 5 minutes.  The
output records each command as `tc ARGS`; the shows ran with -s -j.

Nothing is compared here: offload/compare.py does that on the host.

usage: python3 -m offload.replay REQUESTS.json OUT.json [--only ID,...]
exit status 0 when every item ran (whatever it did), 2 when the driver
is missing or the devices cannot be made.
"""
import argparse
import errno
import json
import os
import select
import shlex
import socket
import struct
import subprocess
import sys
import time

sys.dont_write_bytecode = True

from offload.common import (ALL_DEVS, DEBUGFS, DEV_C,  # noqa: E402
                            DIRECT, DRV_DIR, FLTEST_KIND, FLTEST_SYSFS,
                            INDIRECT)
from flower.nl import (NLM_F_CREATE, NLM_F_EXCL, RTM_NEWTFILTER,  # noqa: E402
                       TCA_CHAIN, TCA_KIND, TCA_OPTIONS, NLSock,
                       flower_attr, gact, nest, nla, parse_parent, tcmsg)
from flower import uapi  # noqa: E402
from flower.guest import loaded_srcversion  # noqa: E402

TC_TIMEOUT = 300          # one tc command under TCG, with a slow kernel
TCA_FLOWER_ACT = uapi.number('ACT')
SAVE_EVERY = 60.0                         # seconds between partial saves


def run(argv, timeout=TC_TIMEOUT):
    """(exit status, stdout, stderr) of argv; -1 on a timeout."""
    try:
        r = subprocess.run(argv, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return -1, '', 'timeout after %ds' % timeout
    return r.returncode, r.stdout, r.stderr


class TcBatch:
    """One `tc -s -j -force -batch -` for every tc command of the run: an
    exec costs a tenth of a second under TCG, a batch line a few ms.

    After each command two marker lines go in: `qdisc show dev MARK_DEV`
    (its one line of JSON, learnt at the start, ends the command's stdout:
    MARK_DEV has a pfifo no other command shows) and the word NO_CMD
    (tc knows no such object: its "Command failed -:N" ends the command's
    stderr; a missing device would not do: tc's lookup of one makes the
    kernel run modprobe, a fifth of a second under TCG).
    A command failed when its own "Command failed -:N" is there (rc 1,
    the line taken out of its stderr); else rc 0.  -s and -j apply to
    every line: the shows print JSON with statistics, the other commands
    print nothing on stdout either way."""
    MARK_DEV, NO_CMD = 'ofmk', 'ofmarker'

    def __init__(self):
        self.p = None

    def start(self):
        self.p = subprocess.Popen(
            ['stdbuf', '-oL', 'tc', '-s', '-j', '-force', '-batch', '-'],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, bufsize=0)
        self.line = 0
        self.buf = {self.p.stdout.fileno(): b'', self.p.stderr.fileno(): b''}
        self.mark = None
        self._send(['qdisc show dev %s' % self.MARK_DEV])
        out, _err = self._read(lambda o, e: b'\n' in o, TC_TIMEOUT)
        self.mark = out.split(b'\n')[0]
        self.buf[self.p.stdout.fileno()] = out[len(self.mark) + 1:]

    def stop(self):
        if self.p:
            self.p.kill()
            self.p.wait()
            self.p = None

    def _send(self, lines):
        self.p.stdin.write(''.join(ln + '\n' for ln in lines).encode())
        self.line += len(lines)

    def _read(self, done, timeout):
        """Read both pipes until done(stdout, stderr); returns them."""
        ofd, efd = self.p.stdout.fileno(), self.p.stderr.fileno()
        deadline = time.monotonic() + timeout
        while not done(self.buf[ofd], self.buf[efd]):
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            r, _w, _x = select.select([ofd, efd], [], [], left)
            for fd in r:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    raise EOFError
                self.buf[fd] += chunk
        out, err = self.buf[ofd], self.buf[efd]
        self.buf[ofd] = self.buf[efd] = b''
        return out, err

    def run(self, args, timeout=TC_TIMEOUT):
        """(rc, stdout, stderr) of one tc command line."""
        if '\n' in args:
            return 1, '', 'a batch line cannot hold a newline'
        if self.p is None:
            self.start()
        n_cmd = self.line + 1
        self._send([args, 'qdisc show dev %s' % self.MARK_DEV,
                    self.NO_CMD])
        end_err = ('Command failed -:%d\n' % self.line).encode()
        mark = b'\n' + self.mark + b'\n'
        try:
            out, err = self._read(lambda o, e: (b'\n' + o).endswith(mark) and
                                  e.endswith(end_err), timeout)
        except (TimeoutError, EOFError, OSError) as e:
            self.stop()
            return -1, '', 'tc batch: %s' % (
                'timeout after %ds' % timeout
                if isinstance(e, TimeoutError) else 'tc died')
        out = out[:len(out) - len(self.mark) - 1].decode(errors='replace')
        lines = err.decode(errors='replace').splitlines()[:-1]
        if lines and lines[-1].startswith('Object "%s"' % self.NO_CMD):
            lines = lines[:-1]
        failed = 'Command failed -:%d' % n_cmd
        rc = 1 if failed in lines else 0
        return rc, out, '\n'.join(ln for ln in lines if ln != failed)


TC = TcBatch()


def tc(args, timeout=TC_TIMEOUT):
    return TC.run(args, timeout)


# --- the driver ------------------------------------------------------------
def drv_path(name):
    return os.path.join(DRV_DIR, name)


def write(path, value):
    """0 or the errno of the write."""
    try:
        with open(path, 'w') as f:
            f.write(value + '\n')
        return 0
    except OSError as e:
        return e.errno or errno.EIO


def drv_write(name, value):
    """debugfs's file; `stats` also each fltest device's own, which its
    bindings answer STATS from."""
    rc = write(drv_path(name), value)
    if name == 'stats':
        for d in DIRECT:
            rc = rc or write(os.path.join(FLTEST_SYSFS % d, 'stats'), value)
    return rc


def drv_reset():
    drv_write('refuse', 'none')
    drv_write('stats', '0 0 0')


def take_log():
    """The driver's log since the last call (parsed lines), then cleared."""
    with open(drv_path('log')) as f:
        text = f.read()
    with open(drv_path('log'), 'w') as f:
        f.write('\n')
    out = []
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except ValueError:
            out.append({'unparsed': line})
    return out


def ensure_driver():
    if not os.path.isdir(DRV_DIR):
        if not os.path.ismount(DEBUGFS):
            run(['mount', '-t', 'debugfs', 'debugfs', DEBUGFS])
    if not os.path.isdir(DRV_DIR):
        sys.exit('offload.replay: %s missing: is flower_offload_test.ko '
                 'loaded (make offload-drv; insmod)?' % DRV_DIR)


def setup_devices():
    """The veth pair (indirect), the fltest pair (direct), the dummy no
    driver takes, the batch's marker device; the driver takes the veths."""
    cmds = [['ip', 'link', 'add', INDIRECT[0], 'type', 'veth', 'peer',
             'name', INDIRECT[1]],
            ['ip', 'link', 'add', DEV_C, 'type', 'dummy']]
    cmds += [['ip', 'link', 'add', d, 'type', FLTEST_KIND] for d in DIRECT]
    cmds += [['ip', 'link', 'add', TcBatch.MARK_DEV, 'type', 'dummy'],
             ['tc', 'qdisc', 'add', 'dev', TcBatch.MARK_DEV, 'root',
              'handle', '4d4b:', 'pfifo', 'limit', '4321']]
    for cmd in cmds:
        rc, _o, err = run(cmd)
        if rc:
            sys.exit('offload.replay: %s: %s' % (' '.join(cmd), err.strip()))
    rc = drv_write('devices', ' '.join(INDIRECT))
    if rc:
        sys.exit('offload.replay: devices: %s' % os.strerror(rc))
    drv_reset()
    take_log()


# --- steps -----------------------------------------------------------------
def parse_json(text):
    try:
        return json.loads(text) if text.strip() else None
    except ValueError:
        return {'unparsed': text}


def step_tc(step):
    rc, out, err = tc(step['args'])
    rec = dict(op='tc', cmd='tc ' + step['args'], rc=rc, err=err.strip())
    if step.get('json'):
        rec['json'] = parse_json(out)
    return [rec]


def step_show(step):
    rc, out, err = tc('filter show ' + step['args'])
    return [dict(op='show', cmd='tc -s -j filter show ' + step['args'],
                 rc=rc, err=err.strip(), show=parse_json(out))]


def step_flush(step):
    """Show (-j), then delete every filter shown, by its handle."""
    where = step['args']
    rc, out, err = tc('filter show ' + where)
    shown = parse_json(out)
    recs = [dict(op='show', cmd='tc -s -j filter show ' + where, rc=rc,
                 err=err.strip(), show=shown)]
    recs[0]['log'] = take_log()
    for f in shown if isinstance(shown, list) else []:
        opts = f.get('options')
        if not isinstance(opts, dict) or 'handle' not in opts:
            continue
        h = opts['handle']
        h = '0x%x' % h if isinstance(h, int) else str(h)
        args = 'filter del %s chain %s pref %s handle %s %s' % (
            where, f.get('chain', 0), f.get('pref'), h, f.get('kind'))
        rc, _o, err = tc(args)
        rec = dict(op='tc', cmd='tc ' + args, rc=rc, err=err.strip())
        rec['log'] = take_log()
        recs.append(rec)
    return recs


NL = None


def step_nl_add(step):
    global NL
    if NL is None:
        NL = NLSock(timeout=TC_TIMEOUT)
    opts = b''.join(nla(t, bytes.fromhex(h)) for t, h in step['attrs'])
    opts += flower_attr('FLAGS', step.get('flags', 0))
    if step.get('act'):
        opts += nest(TCA_FLOWER_ACT, gact(step['act']))
    payload = tcmsg(socket.if_nametoindex(step['dev']), step['handle'],
                    parse_parent(step['hook']), step['prio'],
                    step['proto']) + \
        nla(TCA_KIND, b'flower\0') + nest(TCA_OPTIONS, opts)
    if step.get('chain'):
        payload += nla(TCA_CHAIN, struct.pack('=I', step['chain']))
    rep = NL.call(RTM_NEWTFILTER, NLM_F_CREATE | NLM_F_EXCL, payload)
    return [dict(op='nl_add', cmd='RTM_NEWTFILTER dev %s %s chain %d prio %d'
                 ' handle %d flags %d' % (step['dev'], step['hook'],
                                          step.get('chain', 0), step['prio'],
                                          step['handle'],
                                          step.get('flags', 0)),
                 rc=rep.err, err=rep.msg or '')]


def step_drv(step):
    rc = drv_write(step['file'], step['value'])
    return [dict(op='drv', cmd='echo %s > %s' % (step['value'], step['file']),
                 rc=rc, err=os.strerror(rc) if rc else '')]


def step_exec(step):
    rc, _o, err = run([step['op']] + shlex.split(step['args']))
    return [dict(op=step['op'], cmd='%s %s' % (step['op'], step['args']),
                 rc=rc, err=err.strip())]


STEPS = {'tc': step_tc, 'show': step_show, 'flush': step_flush,
         'nl_add': step_nl_add, 'drv': step_drv, 'ip': step_exec,
         'ethtool': step_exec}


def teardown():
    for dev in ALL_DEVS:
        for q in ('clsact', 'ingress'):
            tc('qdisc del dev %s %s' % (dev, q))
    drv_reset()
    return dict(op='teardown', cmd='teardown', rc=0, err='', log=take_log())


def run_item(it):
    t0 = time.time()
    recs = []
    try:
        for step in it['steps']:
            t1 = time.time()
            for rec in STEPS[step['op']](step):
                if 'log' not in rec:
                    rec['log'] = take_log()
                rec['ms'] = round(1000 * (time.time() - t1))
                t1 = time.time()
                recs.append(rec)
        error = None
    except Exception as e:              # recorded: the item fails to compare
        error = '%s: %s' % (type(e).__name__, e)
    recs.append(teardown())
    return dict(id=it['id'], steps=recs, error=error,
                secs=round(time.time() - t0, 3))


def save(path, doc):
    tmp = path + '.tmp'
    with open(tmp, 'w') as f:
        json.dump(doc, f)
    os.replace(tmp, path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('requests')
    ap.add_argument('out')
    ap.add_argument('--only', help='comma-separated item ids')
    a = ap.parse_args(argv)
    with open(a.requests) as f:
        req = json.load(f)
    items = req['items']
    if a.only:
        want = set(a.only.split(','))
        items = [it for it in items if it['id'] in want]
    ensure_driver()
    setup_devices()
    doc = dict(variant=os.environ.get('TDC_VARIANT', '?'),
               kernel=os.uname().release, meta=req.get('meta', {}),
               srcversion=loaded_srcversion('cls_flower'),
               driver_srcversion=loaded_srcversion('flower_offload_test'),
               complete=False, items=[])
    t0 = last = time.time()
    for n, it in enumerate(items, 1):
        doc['items'].append(run_item(it))
        now = time.time()
        if now - last > SAVE_EVERY:
            print('offload.replay: %d/%d items, %.0f s' % (n, len(items),
                                                           now - t0),
                  flush=True)
            doc['secs'] = round(now - t0, 1)
            save(a.out, doc)
            last = now
    doc['complete'] = True
    doc['secs'] = round(time.time() - t0, 1)
    save(a.out, doc)
    errors = sum(1 for r in doc['items'] if r['error'])
    print('offload.replay: %s: %d items in %.0f s (%d with a runner error)'
          % (doc['variant'], len(items), doc['secs'], errors))


if __name__ == '__main__':
    main()
