#!/usr/bin/python3
"""The `debug` oracle's workload (mutate/README.md), in a guest of the debug
kernel with the mutant loaded: filters added, replaced and deleted over
several masks, prios and a chain template, instances destroyed, then a
kmemleak scan.  KASAN, lockdep and the other checks of that kernel watch
the same requests (a splat fails the oracle: mutate/inguest.py).

Exit 0 and "leakcheck: 0 unreferenced objects" when kmemleak finds none;
exit 1 with the count and the first report when it does, or when a
request the unmutated module takes fails.
"""
import os
import subprocess
import sys
import tempfile
import time

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
    sh('ip link del %s' % DEV)
    text = scan()
    leaks = text.count('unreferenced object')
    print('leakcheck: %d unreferenced objects' % leaks)
    if leaks:
        print(text[:3000])
    return 1 if leaks else 0


if __name__ == '__main__':
    sys.exit(main())
