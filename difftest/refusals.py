# SPDX-License-Identifier: GPL-2.0
"""refusals.py - the hand-written refusal corpus (refusals.json) and what
it is checked against.

refusals.json holds flower requests, each with the answer stock 6.1
gives it as the uAPI's meaning says (include/uapi/linux/pkt_cls.h,
tc-flower(8)): accept or refuse (and the errno), and for an accept the
keys the filter then matches on and whether ours says something (a
warning: stock silently ignored a key, masked a value, dropped bits).
It was written by hand, not derived from ours' fl_keys[] or
flower/needs.py, so a wrong rule changed in the C tables and in the
Python model together still disagrees with it (issue 34 item 2).

This module only translates: a request into the filter dict model.py
and filters.py take (flower/keys.py and flower/uapi.py are used for
names, numbers and widths only, never for needs), and into the
TCA_OPTIONS attributes the kernel gets.

    python3 -m difftest.refusals               # the model against the corpus
    python3 -m difftest.refusals --tdc OUT     # the corpus as tdc cases

The tdc cases ($FLNL add with each attribute raw, the expected exit code
stock's errno, one filter shown for an accept) run in the guest against
either kernel:

    guest/run --variant stock -- /usr/bin/python3 -m tdc.tdc -f OUT
    guest/run --variant ours  -- /usr/bin/python3 -m tdc.tdc -f OUT
"""

import argparse
import errno
import hashlib
import ipaddress
import json
import os
import sys

from difftest import model as M
from flower import keys as FK
from flower import uapi

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                    'refusals.json')
ERRNO = {'EINVAL': errno.EINVAL, 'ERANGE': errno.ERANGE,
         'EOPNOTSUPP': errno.EOPNOTSUPP}
# the attributes that are a filter's shape, not a key of flower/keys.py's
# rows the model reads by name
SHAPE = ('KEY_ETH_TYPE', 'KEY_VLAN_ETH_TYPE', 'KEY_CVLAN_ETH_TYPE',
         'KEY_IP_PROTO')
MASK_OF = {k.mask: k for k in FK.KEYS if k.mask}


def load(path=PATH):
    with open(path) as fp:
        return json.load(fp)['requests']


def value(text, attr=None):
    """A corpus value as an integer: '0x..', a MAC, an IPv4 or IPv6
    address, a ppp_proto or ip_proto name, or an integer."""
    if isinstance(text, int):
        return text
    if attr == 'KEY_PPP_PROTO' and text in uapi.PPP_PROTO:
        return uapi.PPP_PROTO[text]
    if attr == 'KEY_IP_PROTO' and text in uapi.IP_PROTO:
        return uapi.IP_PROTO[text]
    if text.startswith('0x'):
        return int(text, 16)
    if text.count(':') == 5 and len(text) == 17:
        return int(text.replace(':', ''), 16)
    return int(ipaddress.ip_address(text))


def number(name):
    return name if isinstance(name, int) else uapi.BY_NAME[name].number


def payload(name, v):
    """The bytes of attribute `name` carrying integer v, by its uAPI
    type (length and byte order; VLAN ids, MPLS labels, ct keys and the
    hash are host order)."""
    a = uapi.BY_NAME[name]
    order = 'little' if a.nla_type in ('uint16', 'uint32') else 'big'
    return v.to_bytes(a.length, order)


def to_filter(req):
    """The request as the filter dict model.predict() and
    filters.encode_filter() take (gen.py's)."""
    attrs = req['attrs']
    names = [a[0] for a in attrs]
    f = dict(proto=req['protocol'], vlan_eth=None, cvlan_eth=None,
             ip_proto=None, keys=[], indev=None, extra=[], long={})
    byname = {}
    for a in attrs:
        name, v = a[0], a[1]
        opts = a[2] if len(a) > 2 else {}
        if isinstance(v, dict) or isinstance(name, int) or \
                name in ('IN_HW_COUNT', 'FLAGS'):
            # raw: the model sees it only as an attribute type
            f['extra'].append([number(name), v['hex']])
            continue
        if opts.get('pad'):
            f['long'][str(number(name))] = opts['pad']
        if name == 'KEY_ETH_TYPE':
            f['proto'] = v
            if v != req['protocol']:
                f['tc_proto'] = req['protocol']
        elif name == 'KEY_VLAN_ETH_TYPE':
            f['vlan_eth'] = v
        elif name == 'KEY_CVLAN_ETH_TYPE':
            f['cvlan_eth'] = v
        elif name == 'KEY_IP_PROTO':
            f['ip_proto'] = value(v, name)
        elif name in MASK_OF:
            k = MASK_OF[name]
            if k.attr not in names:     # a mask without its key
                f['extra'].append([number(name),
                                   payload(name, value(v, name)).hex()])
        else:
            byname[name] = value(v, name)
    for name, v in byname.items():
        k = FK.BY_ATTR[name]
        m = None
        if k.mask:
            for a in attrs:
                if a[0] == k.mask and not isinstance(a[1], dict):
                    m = value(a[1], k.mask)
        f['keys'].append([k.name, v, m])
    if 'KEY_ETH_TYPE' not in names and req['protocol'] != 'all':
        f['no_eth_type'] = True
    if not f['extra']:
        del f['extra']
    if not f['long']:
        del f['long']
    return f


def key_names(attr_names):
    """Corpus attribute names -> the model's key names."""
    return {FK.BY_ATTR[n].name for n in attr_names}


def check(req, predict=None):
    """How the model's answer to req differs from the corpus: a list of
    phrases (none: it agrees).  predict: model.predict by default."""
    p = (predict or M.predict)(to_filter(req))
    out = []
    ref = p['refusal']
    if req['expect'] == 'refuse':
        if ref is None:
            out.append('model accepts, corpus refuses (%s)' % req['errno'])
        elif ref[0] != ERRNO[req['errno']]:
            out.append('model refuses with errno %d (%s), corpus %s' % (
                ref[0], ref[1], req['errno']))
        return out
    if ref is not None:
        return ['model refuses (%d: %s), corpus accepts' % tuple(ref[:2])]
    if 'kept' in req:
        want, got = key_names(req['kept']), set(p['applied'])
        if want != got:
            out.append('model keeps %s, corpus %s' % (
                sorted(got), sorted(want)))
    if 'warns' in req and bool(p['warnings']) != req['warns']:
        out.append('model %s, corpus %s' % (
            'warns (%s)' % p['warnings'][0] if p['warnings']
            else 'gives no warning',
            'expects a warning' if req['warns'] else 'expects none'))
    return out


def expected_errno(req):
    return ERRNO[req['errno']] if req['expect'] == 'refuse' else 0


def tdc_cases(reqs):
    """The corpus as tdc cases (difftest's reproducers' form): the request
    through $FLNL, each attribute raw, expecting stock's errno."""
    from difftest.filters import encode_filter
    from difftest.tdc_cases import flnl_cmd
    out = []
    for r in reqs:
        f = to_filter(r)
        f['attrs'] = encode_filter(f)
        err = expected_errno(r)
        out.append(dict(
            id=hashlib.sha1(('refusals|' + r['id']).encode()).hexdigest()[:4],
            name='refusal corpus %s: %s (%s)' % (
                r['id'], r['expect'] + (' ' + r['errno'] if err else ''),
                r['why']),
            category=['filter', 'flower', 'difftest', 'refusals'],
            plugins=dict(requires=['nsPlugin']),
            setup=['$TC qdisc add dev $DEV1 ingress'],
            cmdUnderTest=flnl_cmd(f),
            expExitCode=str(err),
            verifyCmd='$TC filter show dev $DEV1 ingress',
            # the filter's own line (tc also prints a line for the prio)
            matchPattern='flower chain 0 handle 0x1 ',
            matchCount='0' if err else '1',
            teardown=['$TC qdisc del dev $DEV1 ingress']))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--tdc', metavar='OUT',
                    help='write the corpus as tdc cases to OUT')
    a = ap.parse_args(argv)
    reqs = load()
    if a.tdc:
        with open(a.tdc, 'w') as fp:
            json.dump(tdc_cases(reqs), fp, indent=4)
        print('refusals: %d tdc cases in %s' % (len(reqs), a.tdc))
        return 0
    bad = 0
    for r in reqs:
        diff = check(r)
        if diff:
            bad += 1
            print('refusals: %s: %s' % (r['id'], '; '.join(diff)))
    print('%d passed, %d failed' % (len(reqs) - bad, bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
