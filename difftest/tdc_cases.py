# SPDX-License-Identifier: GPL-2.0
"""compare.py's reproducers as upstream-format tdc cases.
"""
import hashlib
import os

from difftest import keys as K
from difftest.checks import load
from difftest.classes import OURS_BUGS, class_title
from difftest.filters import RX_DEV
from difftest.tunnel import tunnel_setup


# --- tdc output ---------------------------------------------------------------
def tdc_dev(f):
    """(setup, the device of the filter, teardown) of a tdc case: $DEV1,
    or for a tunnel filter its collect_md device, to which $DEV1 (the
    scapy frames' receiver) hands the tunnel frames, as runner.py sets it
    up."""
    if not f.get('dev'):
        return (['$TC qdisc add dev $DEV1 ingress'], '$DEV1',
                ['$TC qdisc del dev $DEV1 ingress'])
    t = tunnel_setup()
    dev = t['devs'][f['dev']]
    return (['$IP link set $DEV1 address ' + t['mac'],
             '$IP route add local %s dev $DEV1' % t['net4'],
             '$IP -6 route add local %s dev $DEV1' % t['net6'],
             '$IP ' + t['links'][f['dev']],
             '$IP link set %s up' % dev, '$TC qdisc add dev %s ingress' % dev],
            dev, ['$IP link del %s' % dev])


def flnl_cmd(f, dev='$DEV1'):
    """The filter's request as flowernl.py sends it: its protocol (a
    lenient request's may differ from its eth_type), each attribute raw
    (by number where the uAPI has no name for it)."""
    parts = ['$FLNL add --dev %s --parent ingress --prio 1 --handle 1' % dev,
             '--protocol', '0x%04x' % K.PROTOS[f.get('tc_proto') or
                                                f['proto']]]
    for t, h in f['attrs']:
        if t == K.A['INDEV'] and bytes.fromhex(h).rstrip(b'\0').decode() == RX_DEV:
            parts.append('--attr indev=$DEV1')
        else:
            parts.append('--raw %s=%s' % (K.NAME.get(t, str(t)), h))
    parts.append('--action drop')   # counts like pass; flowernl maps ok->pass, which pyroute2 lacks
    return ' '.join(parts)


def tdc_case(r, seed):
    f = r['min_filter'] or r['filter_obj']
    p = r['min_packet'] if r['min_filter'] else r.get('packet_obj')
    cls = r['cls'] or 'UNEXPLAINED'
    setup, dev, teardown = tdc_dev(f)
    h = hashlib.sha1(('%s|%s|%s' % (seed, f['desc'], p and p['hex'])).encode())
    case = dict(
        id=h.hexdigest()[:4],
        name='difftest seed %s: %s: %s%s' % (
            seed, class_title(cls), f['desc'],
            (' vs frame %s' % p['kind']) if p else ''),
        category=['filter', 'flower', 'difftest'] + (['packets', 'scapy'] if p else []),
        plugins=dict(requires=['nsPlugin'] + (['scapyPlugin'] if p else [])),
        setup=setup,
        cmdUnderTest=flnl_cmd(f, dev),
        teardown=teardown,
    )
    if p is None:
        # the correct outcome: stock's for (a) and unexplained, else ours'
        o, st = r.get('min_errs') or ({}, {})
        want = st if cls in OURS_BUGS or cls == 'UNEXPLAINED' else o
        if 'model' in r:        # ours unlike its model: the model's answer
            want = dict(err=r['model'][0]) if r['model'] else {}
        case['expExitCode'] = str(want.get('err', 0))
        case['verifyCmd'] = '$TC filter show dev %s ingress' % dev
        case['matchPattern'] = 'flower'
        case['matchCount'] = '0' if want.get('err') else '1'
    else:
        # expected: the correct verdict: stock's for (a), ours' otherwise
        want = r['stock'] if cls in OURS_BUGS or cls == 'UNEXPLAINED' else r['ours']
        case['expExitCode'] = '0'
        case['scapy'] = [dict(iface='$DEV0', count=1,
                              packet="Ether(bytes.fromhex('%s'))" % p['hex'])]
        case['verifyCmd'] = '$TC -s -j filter show dev %s ingress' % dev
        case['matchJSON'] = [{}, {'options': {'actions': [
            {'stats': {'packets': want}}]}}]
    return case


def corpus_ids():
    ids = set()
    root = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'tc-tests')
    for d, _, files in os.walk(root):
        for fn in files:
            if fn.endswith('.json'):
                try:
                    ids.update(c.get('id') for c in load(os.path.join(d, fn)))
                except (ValueError, AttributeError, TypeError):
                    pass
    return ids


def frame_summary(hexs):
    try:
        from scapy.all import Ether   # noqa: F401  (host only, once)
        return Ether(bytes.fromhex(hexs)).summary()
    except Exception:                   # noqa: BLE001
        return '%d bytes' % (len(hexs) // 2)
