#!/usr/bin/python3
"""The `debug` oracle's workload (mutate/README.md), in a guest of the debug
kernel with the mutant loaded: filters added, replaced and deleted over
several masks, prios and a chain template, instances destroyed; requests
whose allocations fail one after another (failslab's fail-nth), so that
every error path of a request runs; then a kmemleak scan.  KASAN, lockdep
and the other checks of that kernel watch the same requests (a splat
fails the oracle: mutate/inguest.py).

usage: python3 -m mutate.leakcheck   (from the repository root)

Exit 0 and "leakcheck: 0 unreferenced objects" when kmemleak finds none;
exit 1 with the count and the first report when it does, or when a
request the unmutated module takes fails.
"""
import os
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
from flower.nl import RTM_NEWCHAIN, TC_H_INGRESS  # noqa: E402
from flower.nl import (NLM_F_ACK, NLM_F_CREATE, NLM_F_EXCL,  # noqa: E402
                       NLM_F_REQUEST, tfilter)
from stress.lifecycle import (FAILSLAB, Injector,  # noqa: E402
                              failslab_for_marked_tasks, ifindex, new_msg)

ETH_P_IP = 0x0800

KMEMLEAK = '/sys/kernel/debug/kmemleak'
DEV = 'lk0'
ROUNDS = 3


def sh(cmd):
    p = subprocess.run(cmd, shell=True, capture_output=True, text=True)
    if p.returncode:
        sys.exit('leakcheck: %r failed (%d): %s' % (cmd, p.returncode,
                                                    p.stderr.strip()[:300]))


def batch(lines):
    with tempfile.NamedTemporaryFile('w', suffix='.batch', delete=False) as f:
        f.write('\n'.join(lines) + '\n')
    try:
        sh('tc -b ' + f.name)
    finally:
        os.unlink(f.name)


def one_round(r):
    """Two prios, three masks, handles far apart (IDR nodes on several
    levels), replaces, deletes, one prio deleted whole, then the qdisc."""
    f = 'filter %%s dev %s ingress protocol ip' % DEV
    sh('tc qdisc add dev %s ingress' % DEV)
    adds = ['%s prio 1 handle %d flower dst_ip 10.%d.0.%d action drop'
            % (f % 'add', h * 65537, r, h) for h in range(1, 101)]
    adds += ['%s prio 1 handle %d flower src_ip 10.%d.%d.0/24 action pass'
             % (f % 'add', 7000 + h, r, h) for h in range(1, 21)]
    adds += ['%s prio 2 handle %d flower ip_proto tcp dst_port %d '
             'action gact drop' % (f % 'add', h, 1000 + h) for h in range(1, 51)]
    batch(adds)
    batch(['%s prio 1 handle %d flower dst_ip 10.%d.1.%d action pass'
           % (f % 'replace', h * 65537, r, h) for h in range(1, 21)] +
          ['%s prio 1 handle %d flower' % (f % 'del', h * 65537)
           for h in range(21, 41)])
    sh('tc filter del dev %s ingress prio 2' % DEV)
    sh('tc chain add dev %s ingress chain 5 protocol ip flower '
       'dst_ip 0.0.0.0/16' % DEV)
    batch(['filter add dev %s ingress protocol ip chain 5 prio 1 handle %d '
           'flower dst_ip 10.%d.0.0/16 action drop' % (DEV, h, h)
           for h in range(1, 11)])
    sh('tc chain del dev %s ingress chain 5' % DEV)
    sh('tc qdisc del dev %s ingress' % DEV)


def faulted_requests(max_nth=200):
    """Three requests, each sent again and again with its n-th allocation
    failed (n = 1, 2, ... until none is left): a filter whose mask is new
    to a prio that has filters, the first filter of a new prio, and a
    chain template.  Each may be refused or acknowledged; what it took on
    a failed path must be freed (fl_change() makes and frees a new mask's
    table) and nothing may touch what it did not get (fl_tmplt_create()
    allocates two buffers).  Returns the number of faults injected."""
    sh('tc qdisc add dev %s ingress' % DEV)
    sh('tc filter add dev %s ingress protocol ip prio 1 handle 1 flower '
       'dst_ip 10.0.0.1 action drop' % DEV)
    idx, inj, injected = ifindex(DEV), Injector(), 0
    f = 'tc filter del dev %s ingress protocol ip prio %%d handle 7 flower' % DEV
    requests = [(new_msg(idx, prio, 7, None, NLM_F_CREATE | NLM_F_EXCL,
                         src=[10, 9, 0, 7]), f % prio) for prio in (1, 2)]
    requests.append((tfilter(
        RTM_NEWCHAIN, NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL,
        idx, 0, TC_H_INGRESS, 0, ETH_P_IP, chain=5,
        options=[('KEY_ETH_TYPE', ETH_P_IP),
                 ('KEY_IPV4_DST_MASK', '255.255.0.0')]),
        'tc chain del dev %s ingress chain 5' % DEV))
    for data, undo in requests:
        for n in range(1, max_nth + 1):
            _err, _lost, hit = inj.nth_request(data, n)
            # acknowledged, or its reply lost: what it adds may be there
            subprocess.run(undo, shell=True, capture_output=True)
            if not hit:
                break
            injected += 1
    sh('tc qdisc del dev %s ingress' % DEV)
    return injected


def scan():
    """Unreferenced objects now; kmemleak ignores objects younger than 5 s
    and reports a leak after two scans that find no reference."""
    time.sleep(6)
    for _ in range(2):
        with open(KMEMLEAK, 'w') as f:
            f.write('scan')
    with open(KMEMLEAK) as f:
        return f.read()


def main():
    if not os.path.exists(KMEMLEAK):
        sys.exit('leakcheck: no %s: run on the debug kernel' % KMEMLEAK)
    with open(KMEMLEAK, 'w') as f:
        f.write('clear')            # only what this run leaks counts
    sh('ip link add %s type dummy' % DEV)
    sh('ip link set %s up' % DEV)
    for r in range(ROUNDS):
        one_round(r)
    if not os.path.isdir(FAILSLAB):
        sys.exit('leakcheck: no %s: run on the debug kernel' % FAILSLAB)
    failslab_for_marked_tasks()
    faults = faulted_requests()
    if not faults:
        sys.exit('leakcheck: failslab injected no fault: the error paths '
                 'did not run')
    print('leakcheck: %d faults injected' % faults)
    sh('ip link del %s' % DEV)
    text = scan()
    leaks = text.count('unreferenced object')
    print('leakcheck: %d unreferenced objects' % leaks)
    if leaks:
        print(text[:3000])
    return 1 if leaks else 0


if __name__ == '__main__':
    sys.exit(main())
