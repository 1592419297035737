#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The offload oracle must fail on a module that gives drivers the wrong
rules: an oracle that can be fooled is worse than none.

Writes two broken copies of kernel/net/sched/cls_flower.c, each one
change to fl_hw_key_used(), into build/offload-canary/NAME/:

  union    every dissector key for every mask, as if drivers were given
           the union classify dissects with
  drop-ip  the IP key (tos, ttl) never given to drivers

make offload-canary builds each as an external module against ours,
replays the smoke's requests with it in place of ours
(offload/replay.py) and compares with stock's replay of the same
requests (offload/compare.py).  Each canary passes when the comparison
FAILS, and then says how many items it failed.  Ends with `N passed,
N failed`.

usage: python3 -m offload.canary write DIR
       python3 -m offload.canary judge NAME COMPARE_OUTPUT
"""
import os
import sys

from flower.results import summary_lines

HERE = os.path.dirname(os.path.realpath(__file__))
SOURCE = os.path.join(os.path.dirname(HERE), 'kernel', 'net', 'sched',
                      'cls_flower.c')

SWITCH = ('static bool fl_hw_key_used(const struct fl_flow_key *mask,\n'
          '\t\t\t   const struct fl_dissector_key *dk)\n{\n')
ENC = ('\tcase FLOW_DISSECTOR_KEY_ENC_CONTROL:\n'
       '\t\treturn memchr_inv(&mask->enc_ipv6, 0, sizeof(mask->enc_ipv6));\n')
CANARIES = {
    'union': (SWITCH, SWITCH + '\treturn true;\t/* canary: the union */\n'),
    'drop-ip': (ENC, ENC + '\tcase FLOW_DISSECTOR_KEY_IP:\n'
                '\t\treturn false;\t/* canary: no tos/ttl */\n'),
}


def write(out):
    text = open(SOURCE).read()
    for name, (old, new) in CANARIES.items():
        if text.count(old) != 1:
            sys.exit('offload.canary: {}: fl_hw_key_used() changed, the '
                     'canary no longer applies'.format(name))
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, 'cls_flower.c'), 'w') as f:
            f.write(text.replace(old, new))
        with open(os.path.join(d, 'Kbuild'), 'w') as f:
            f.write('obj-m := cls_flower.o\n')
    print(' '.join(CANARIES))


def judge(name, path):
    out = ''
    if os.path.exists(path):
        with open(path) as f:
            out = f.read()
    # the first "N passed, N failed" line (no skipped part)
    found = summary_lines(out, skipped=False)
    if not found:
        print('not ok - canary {}: no comparison'.format(name))
        return 1
    failed = found[0].failed
    if failed:
        print('ok - canary {}: the oracle fails it ({} items differ)'
              .format(name, failed))
        return 0
    print('not ok - canary {}: the oracle passes a broken module'
          .format(name))
    return 1


def main(argv):
    if argv[:1] == ['write'] and len(argv) == 2:
        write(argv[1])
        return 0
    if argv[:1] == ['judge'] and len(argv) == 3:
        return judge(argv[1], argv[2])
    sys.exit(__doc__)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
