# SPDX-License-Identifier: GPL-2.0
"""ovs.ovsctl - Open vSwitch in the guest for ovs/scenarios.py: starting and
stopping ovsdb-server and ovs-vswitchd, their logs and what they say about
tc, network namespaces with ports and VLANs, a UDP/TCP echo server, dumps of
the datapath flows and of tc filters.
"""

import json
import os
import re
import socket
import subprocess
import sys
import time


REPO = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
PY = '/usr/bin/python3'
# the echo server and its client run in a namespace as this module
ECHO = [PY, '-m', 'ovs.ovsctl']
STATE = '/tmp/ovs'                  # db, logs, pid files' friends
RUNDIR = '/run/openvswitch'         # db.sock, pid files, mgmt sockets
VSWITCHD_LOG = STATE + '/ovs-vswitchd.log'
OVSDB_LOG = STATE + '/ovsdb-server.log'
ENV = dict(os.environ, OVS_RUNDIR=RUNDIR, OVS_DBDIR=STATE, OVS_LOGDIR=STATE,
           OVS_SYSCONFDIR=STATE + '/etc')
# Log lines that fail a scenario: OVS's own words for "the kernel's echo of
# a flower add differs from the request", "a flow could not be offloaded"
# (EOPNOTSUPP/ENOSPC are logged at DBG, which we turn on, other errors at
# ERR), any ERR/EMER line, and warnings of the offload modules.
BAD_LOG_RE = re.compile(
    r'acknowledgment does not match|failed to offload|\|(ERR|EMER)\|'
    r'|\|(tc|netdev_offload_tc|netdev_offload|dpif_netlink)'
    r'(\([^)]*\))?\|WARN\|')
# What OVS 3.1 logs (INFO) when its probe found that one tc prio takes
# filters of several masks (netdev-offload-tc.c probe_multi_mask_per_prio;
# the same words are in the host's /usr/sbin/ovs-vswitchd).
MULTI_MASK_LINE = 'probe tc: multiple masks on single tc prio is supported.'
# Lines that explain why a flow stayed in the kernel datapath (besides the
# kernel's extack for a refused flower add, see filter_naks()).
WHY_LOG_RE = re.compile(
    r'failed to offload|isn\'t supported|unsupported|compare failed'
    r'|acknowledgment does not match')
# netlink_socket at DBG: a NAK follows the error message it explains,
# which names the request's type; 44 is RTM_NEWTFILTER.
NAK_RE = re.compile(r'received NAK error=\d+ - .*')
NEWTFILTER_RE = re.compile(r'in-reply-to\(nl\(len:\d+, type=44\(')


def filter_naks(text):
    """The kernel's answers (errno - extack) to refused filter adds."""
    res, prev = [], ''
    for line in text.splitlines():
        m = NAK_RE.search(line)
        if m and NEWTFILTER_RE.search(prev):
            res.append(m.group(0))
        if '|netlink_socket' in line and not m:
            prev = line
    return res


def why_lines(text):
    """Log lines that say why something was not offloaded, the flow of
    each acknowledgment mismatch (the put that dpif_netlink logs next in
    the same thread), then the extack of each refused flower add."""
    lines = text.splitlines()
    res = []
    for i, l in enumerate(lines):
        if not WHY_LOG_RE.search(l):
            continue
        res.append(l.split('|', 4)[-1])
        thread = re.search(r'\|[a-z_]+(\([^)]*\))\|', l)
        if 'acknowledgment does not match' not in l or not thread:
            continue
        for nxt in lines[i + 1:i + 8]:
            m = re.search(r'put\[\w+\] ufid:\S+ (.*)', nxt)
            if m and thread.group(1) in nxt:
                res.append('mismatch on the flow: ' +
                           re.sub(r'\w+\(0/0\),', '', m.group(1)))
                break
    return res + ['kernel: ' + n for n in filter_naks(text)]


# --------------------------------------------------------------------------
# Running things

def run(cmd, timeout=60, check=False, quiet=False):
    """Run a shell command; return (rc, stdout+stderr)."""
    try:
        p = subprocess.run(cmd, shell=True, env=ENV, timeout=timeout,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True,
                           errors='replace')
        rc, out = p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout or ''
        if isinstance(out, bytes):
            out = out.decode(errors='replace')
        rc, out = 124, out + '\n(timeout after %s s)' % timeout
    if rc and not quiet:
        print('  $ %s -> %d: %s' % (cmd, rc, out.strip()[-600:]), flush=True)
    if check and rc:
        raise Setup('%s: exit %d: %s' % (cmd, rc, out.strip()[-300:]))
    return rc, out


class Setup(Exception):
    """A scenario could not be set up (it is then SKIPped, i.e. failed)."""


def vsctl(args, timeout=60):
    return run('ovs-vsctl --timeout=%d %s' % (timeout, args),
               timeout=timeout + 10, check=True)[1]


def ofctl(bridge, flows):
    """Replace the bridge's OpenFlow table with `flows` (one per line)."""
    path = '%s/%s.flows' % (STATE, bridge)
    with open(path, 'w') as f:
        f.write('\n'.join(flows) + '\n')
    # OpenFlow 1.3: ovs-ofctl's default (OF1.0 + NXM) cannot replace
    # flows in tables other than 0.
    run('ovs-ofctl -O OpenFlow13 replace-flows %s %s' % (bridge, path),
        check=True)


def appctl(args, timeout=60):
    return run('ovs-appctl --timeout=%d %s' % (timeout, args),
               timeout=timeout + 10)[1]


# --------------------------------------------------------------------------
# OVS itself

def uptime():
    with open('/proc/uptime') as f:
        return float(f.read().split()[0])


def start_ovs():
    os.makedirs(RUNDIR, exist_ok=True)
    os.makedirs(STATE + '/etc/openvswitch', exist_ok=True)
    db = STATE + '/conf.db'
    if os.path.exists(db):
        os.unlink(db)
    run('ovsdb-tool create %s /usr/share/openvswitch/vswitch.ovsschema'
        % db, check=True)
    run('ovsdb-server %s --remote=punix:%s/db.sock --pidfile --detach '
        '--log-file=%s' % (db, RUNDIR, OVSDB_LOG), check=True)
    vsctl('--no-wait init')
    # hw-offload is read once at start: set before ovs-vswitchd runs.
    # max-idle: keep datapath flows for 2 min, longer than any scenario.
    # max-revalidator: revalidate (dump every port's filters) every 5 s,
    # not 0.5 s, so that netlink_socket's DBG log (rate-limited to a burst
    # of 600, then 1 line/s) keeps the kernel's answers to flower adds.
    # OVS_TC_POLICY (environment) only to see the checks fail: ours
    # refuses skip_sw, so with it every flow stays in the kernel datapath.
    vsctl('--no-wait set Open_vSwitch . other_config:hw-offload=true '
          'other_config:tc-policy=%s other_config:max-idle=120000 '
          'other_config:max-revalidator=5000'
          % os.environ.get('OVS_TC_POLICY', 'skip_hw'))
    # OVS 3.1.0's count_cpu_cores() returns 0 until the system has been up
    # for 10 s (fixed upstream by b354cee2e "ovs-thread: Fix cpus not read
    # for the first 10s", in 3.2).  Started earlier, per-CPU upcall
    # dispatch gets 0 handler threads ("Overriding n-handler-threads to
    # 0"): every miss is lost and no flow is ever installed.  The guest
    # reaches us ~3 s after boot, so wait.
    while uptime() < 11:
        time.sleep(0.2)
    # DBG for the modules that say why a flow was not offloaded
    # (EOPNOTSUPP is logged at DBG) and, during the probes, netlink_socket
    # for the kernel's extack text ("received NAK error=N - TEXT").
    run('ovs-vswitchd --pidfile --detach --log-file=%s '
        '-vdpif_netlink:file:dbg -vnetdev_offload_tc:file:dbg '
        '-vtc:file:dbg -vnetlink_socket:file:dbg' % VSWITCHD_LOG,
        check=True, timeout=120)
    # The probes run when the first bridge appears.
    vsctl('add-br br-probe')
    vsctl('del-br br-probe')
    # netlink_socket logs every message, rate-limited (burst 600, then
    # 1/s, shared by all threads): off until a replay needs it.
    appctl('vlog/set netlink_socket:file:info')


def replay(flows):
    """The kernel's extack for flows that stayed in the kernel datapath:
    put them again with dpctl/add-flow (which, like a handler's put, tries
    tc first) with netlink_socket at DBG, and read the NAKs."""
    log = Log()
    appctl('vlog/set netlink_socket:file:dbg')
    for f in flows:
        m = re.match(r'(.*?), packets:.*actions:(.*)$', f)
        if m:
            appctl("dpctl/add-flow '%s' '%s'" % (m.group(1), m.group(2)))
    appctl('vlog/set netlink_socket:file:info')
    return filter_naks(log.text())


def stop_ovs():
    for t in ('ovs-vswitchd', 'ovsdb-server'):
        run('ovs-appctl -t %s exit' % t, timeout=60, quiet=True)


class Log:
    """The ovs-vswitchd log from a given offset on."""

    def __init__(self):
        self.start = os.path.getsize(VSWITCHD_LOG)

    def text(self):
        with open(VSWITCHD_LOG, errors='replace') as f:
            f.seek(self.start)
            return f.read()


# --------------------------------------------------------------------------
# Topology

def add_ns_port(bridge, port, ns, addr, addr6=None, mtu=None, ipv6=False):
    """veth `port` on `bridge`, its peer eth0 in namespace `ns` with addr."""
    run('ip netns add %s' % ns, check=True)
    run('ip link add %s type veth peer name eth0 netns %s' % (port, ns),
        check=True)
    if not ipv6:
        run('ip netns exec %s sysctl -qw net.ipv6.conf.all.disable_ipv6=1 '
            'net.ipv6.conf.default.disable_ipv6=1' % ns, check=True)
        run('sysctl -qw net.ipv6.conf.%s.disable_ipv6=1' % port, check=True)
    if mtu:
        run('ip -n %s link set eth0 mtu %d' % (ns, mtu), check=True)
    run('ip -n %s addr add %s dev eth0' % (ns, addr), check=True)
    if addr6:
        run('ip -n %s addr add %s dev eth0 nodad' % (ns, addr6), check=True)
    run('ip -n %s link set eth0 up' % ns, check=True)
    run('ip -n %s link set lo up' % ns, check=True)
    run('ip link set %s up' % port, check=True)
    vsctl('add-port %s %s' % (bridge, port))


def add_vlan(ns, vid, addr):
    """eth0.VID in namespace ns: tagged frames on the (trunk) OVS port."""
    dev = 'eth0.%d' % vid
    run('ip -n %s link add link eth0 name %s type vlan id %d' % (ns, dev, vid),
        check=True)
    run('ip -n %s addr add %s dev %s' % (ns, addr, dev), check=True)
    run('ip -n %s link set %s up' % (ns, dev), check=True)


def teardown(bridges, namespaces, links=()):
    for b in bridges:
        run('ovs-vsctl --timeout=60 --if-exists del-br %s' % b, timeout=70,
            quiet=True)
    for ns in namespaces:
        run('ip netns del %s' % ns, quiet=True)
    for link in links:
        run('ip link del %s' % link, quiet=True)
    appctl('revalidator/purge')


# --------------------------------------------------------------------------
# Traffic (client and server run in namespaces, as this script)

def serve(proto, addr, port):
    """Answer 'pong ' + data, forever (killed by the scenario)."""
    fam = socket.AF_INET6 if ':' in addr else socket.AF_INET
    if proto == 'tcp':
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((addr, port))
        s.listen(8)
        print('ready', flush=True)
        while True:
            c, _ = s.accept()
            c.settimeout(10)
            try:
                data = c.recv(4096)
                c.sendall(b'pong ' + data)
            except OSError:
                pass
            c.close()
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.bind((addr, port))
    print('ready', flush=True)
    while True:
        data, peer = s.recvfrom(4096)
        s.sendto(b'pong ' + data, peer)


def client(proto, addr, port):
    """Exit 0 when the server answered, 1 otherwise (3 s per try)."""
    fam = socket.AF_INET6 if ':' in addr else socket.AF_INET
    msg = b'ping %d' % os.getpid()
    if proto == 'tcp':
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.settimeout(4)
        try:
            s.connect((addr, port))
            s.sendall(msg)
            ok = s.recv(4096) == b'pong ' + msg
        except OSError as e:
            print('tcp %s:%d: %s' % (addr, port, e))
            ok = False
        return 0 if ok else 1
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.settimeout(3)
    for _ in range(3):
        try:
            s.sendto(msg, (addr, port))
            if s.recvfrom(4096)[0] == b'pong ' + msg:
                return 0
        except OSError as e:
            print('udp %s:%d: %s' % (addr, port, e))
    return 1


class Server:
    def __init__(self, ns, proto, addr, port):
        self.p = subprocess.Popen(
            ['ip', 'netns', 'exec', ns] + ECHO + ['serve', proto, addr,
                                                  str(port)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            stdin=subprocess.DEVNULL, env=ENV, cwd=REPO)
        line = self.p.stdout.readline()
        if line.strip() != 'ready':
            self.stop()
            raise Setup('server %s %s:%d in %s: %r' % (proto, addr, port, ns,
                                                       line))

    def stop(self):
        self.p.kill()
        self.p.wait()


def ping(ns, addr, count=5, size=56):
    """(received, sent) of a ping from namespace ns."""
    cmd = 'ping6' if ':' in addr else 'ping'
    rc, out = run('ip netns exec %s %s -c %d -i 0.3 -W 5 -s %d %s'
                  % (ns, cmd, count, size, addr), timeout=count * 6 + 10,
                  quiet=True)
    m = re.search(r'(\d+) packets transmitted, (\d+) received', out)
    return (int(m.group(2)), int(m.group(1))) if m else (0, count)


def talk(ns, proto, addr, port):
    rc, out = run('cd %s && ip netns exec %s %s client %s %s %d'
                  % (REPO, ns, ' '.join(ECHO), proto, addr, port),
                  timeout=30, quiet=True)
    return rc == 0


# --------------------------------------------------------------------------
# What OVS and tc say

def dump_flows(kind, names=True):
    """Datapath flows of dpctl/dump-flows type=KIND."""
    out = appctl('dpctl/dump-flows %s type=%s'
                 % ('--names' if names else '--no-names', kind))
    return [l.strip() for l in out.splitlines()
            if l.strip() and not l.startswith('ovs-appctl')
            and ('actions:' in l)]


def flow_packets(flow):
    m = re.search(r'packets:(\d+)', flow)
    return int(m.group(1)) if m else 0


def actions(flow):
    """The actions of a dump-flows line."""
    return flow.split('actions:', 1)[1] if 'actions:' in flow else ''


def tc_filters(dev):
    """[(prio, eth protocol, handle, packets, action kinds)] of the flower
    filters on dev's ingress, from `tc -s -j filter show`."""
    rc, out = run('tc -s -j filter show dev %s ingress' % dev, quiet=True)
    if rc:
        return []
    try:
        data = json.loads(out or '[]')
    except ValueError:
        return []
    res = []
    for f in data:
        if f.get('kind') != 'flower' or 'options' not in f:
            continue
        acts = f['options'].get('actions', [])
        pk = max([a.get('stats', {}).get('packets', 0) for a in acts] or [0])
        res.append((f.get('pref'), f.get('protocol'),
                    f['options'].get('handle'), pk,
                    [a.get('kind') for a in acts]))
    return res


def echo_main(argv):
    """python3 -m ovs.ovsctl serve|client PROTO ADDR PORT"""
    if len(argv) == 4 and argv[0] in ('serve', 'client'):
        return (serve if argv[0] == 'serve' else client)(
            argv[1], argv[2], int(argv[3]))
    print(echo_main.__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(echo_main(sys.argv[1:]))
