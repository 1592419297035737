# SPDX-License-Identifier: GPL-2.0
"""stress.flowerfuzz.run - the run's helpers: the devices, how an answer
compares with the prediction.
"""

import errno
import subprocess

from flower import uapi

from flower.nl import walk_attrs

from stress.flowerfuzz.attrs import ANY, TUN_OPT_KINDS, TYPE_MASK, T_ENC_OPTS


# requests counted by their answer (labels from Gen): another mask into a
# prio, a filter moved to another mask, an existing key under its mask
MASK_LABELS = ('add-newmask', 'replace-newmask', 'change-newmask',
               'add-samekey')

# meta_kinds(): the keys counted by kind (attribute name prefixes)
KINDS = (('tunnel', ('KEY_ENC_',)), ('ct', ('KEY_CT_',)),
         ('ip_flags', ('KEY_FLAGS',)), ('cvlan', ('KEY_CVLAN_',)),
         ('num_of_vlans', ('KEY_NUM_OF_VLANS',)), ('mpls', ('KEY_MPLS_',)),
         ('pppoe', ('KEY_PPPOE_', 'KEY_PPP_')), ('l2tpv3', ('KEY_L2TPV3_',)),
         ('port_range', ('KEY_PORT_',)), ('hash', ('KEY_HASH',)),
         # ENC_OPTS whose first option is vxlan's, erspan's or gtp's
         ('tun_opt', ()))


def meta_kinds(op):
    """The kinds of KINDS whose keys the request carries ('tunnel', 'ct',
    'ip_flags', ...)."""
    kinds = set()
    for t, d, _m in op.attrs or ():
        a = uapi.BY_NUMBER.get(t & TYPE_MASK)
        for kind, prefixes in KINDS:
            if a and prefixes and a.name.startswith(prefixes):
                kinds.add(kind)
        if t & TYPE_MASK == T_ENC_OPTS and d:
            opts, _rem = walk_attrs(d)
            if opts and opts[0][0] & TYPE_MASK in TUN_OPT_KINDS:
                kinds.add('tun_opt')
    return sorted(kinds)


def sh(cmd):
    subprocess.run(cmd, shell=True, check=True)


def setup(devs_only=False):
    for d in ('fz0', 'fz1'):
        subprocess.run('ip link del %s 2>/dev/null' % d, shell=True)
        sh('ip link add %s type dummy && ip link set %s up' % (d, d))
    sh('tc qdisc add dev fz0 ingress')
    devs = {}
    for d in ('fz0', 'fz1', 'lo'):
        with open('/sys/class/net/%s/ifindex' % d) as f:
            devs[d] = int(f.read())
    return devs


def teardown():
    for d in ('fz0', 'fz1'):
        subprocess.run('ip link del %s 2>/dev/null' % d, shell=True)


def answer_matches(want, rep, warning=ANY):
    """Whether the kernel's reply is the model's prediction (want: None
    for an ack, else the Err): the errno one of the predicted ones and
    the extack text exactly the predicted one (ANY: not predicted); an
    ack's extack is the warning (None: none; ANY: not predicted)."""
    if rep.lost:
        return False
    if want is None:
        return rep.err == 0 and (warning is ANY or rep.msg == warning)
    return rep.err in want.codes and (want.msg is ANY or
                                      rep.msg == want.msg)


def outcome_text(rep):
    if rep.lost:
        return 'lost(%s)' % errno.errorcode.get(rep.err, rep.err)
    if rep.err == 0:
        return 'ack' if rep.msg is None else 'ack %r' % rep.msg
    return '%s %r' % (errno.errorcode.get(rep.err, rep.err), rep.msg)
