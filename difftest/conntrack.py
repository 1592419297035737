# SPDX-License-Identifier: GPL-2.0
"""Conntrack filters for gen.py: the batch's ct action (ct_action()), its
conntrack flows (ct_flows()) and chain 1 filters with ct_* keys aimed at
them.
"""
from difftest import keys as K
from difftest.model import full_mask, predict_refusal
from flower import packets as P
from difftest.filters import covered, rand_mask, rand_value


# Conntrack filters: runner.py puts a ct action in chain 0 (after the
# guard: a flower filter for frames to CT_MAC, "action ct commit zone Z
# mark M label L pipe action goto chain 1"), these filters in chain 1.
# A batch's conntrack flows (ct_flows()) go to CT_MAC from 10.254.0.0/16.
CT_MAC = 0x02000000c701
CT_NET = {4: 0x0afe0000, 6: 0x20010db8025400000000000000000000}
# frames to NOCT_MAC go to chain 1 without the ct action (-trk)
NOCT_MAC = 0x02000000c702
CT_FILTERS = 12
CT_PROTOS = ['ip', 'ip', 'ipv6', 'all', 'all']
CT_IP_PROTOS = {'ip': [17, 6, 1], 'ipv6': [17, 58]}


def ct_action(rng):
    """The batch's ct action: its zone, and the mark and labels it
    commits (runner.py's ct_trigger())."""
    return dict(zone=rng.randint(1, 0xffff), mark=rng.getrandbits(32) | 1,
                labels=rng.getrandbits(128) | 1)


def ct_flows(rng, act):
    """The frames of a batch's conntrack flows, in the order runner.py
    sends them (each once, conntrack flushed before), each with what
    chain 1 sees for it (its spec's 'ct': state, zone, mark, labels), as
    a list of (kind, spec).  A UDP flow a -> b (IPv4 UDP checksum 0 is
    none: conntrack takes it): the first packet and the second one
    before any reply are +trk+new, an ICMP port unreachable b -> a
    quoting it +trk+rel+rpl, the reply +trk+est+rpl, a packet after it
    +trk+est; a TCP SYN c -> d with checksum 0 (conntrack checks it at
    the ct action's PRE_ROUTING hook) +trk+inv, with no conntrack entry
    (no mark, no labels: the action's zone); an ICMP echo c -> d +trk+new
    and its reply +trk+est+rpl; an IPv6 UDP flow (checksummed) +trk+new
    and +trk+est+rpl.  Every tracked frame is committed: the action's
    mark and labels.  Last, frames to NOCT_MAC, which reach chain 1
    without the ct action: -trk, zone 0 (a UDP packet of the first flow,
    an ARP request)."""
    a, b, c, d = (CT_NET[4] | x for x in rng.sample(range(1, 0xffff), 4))
    e, g = (CT_NET[6] | rng.getrandbits(64) for _ in range(2))
    p, q = rng.randint(1024, 0xffff), rng.randint(1, 0xffff)
    smac = (rng.getrandbits(48) & ~(1 << 40)) | (2 << 40)
    trk, new, est, rel, rpl, inv = (K.CT_TRK, K.CT_NEW, K.CT_EST,
                                    K.CT_REL, K.CT_RPL, K.CT_INV)

    def frame(src, dst, proto, l4, state, tracked=True, inner=None, v=4):
        s = dict(dst=CT_MAC, src=smac, tags=[], pad=0, trunc=None,
                 l3='ipv%d' % v, ip=dict(v=v, src=src, dst=dst, tos=0,
                                         ttl=64, proto=proto, frag='none',
                                         id=rng.getrandbits(16)), l4=l4)
        if inner:
            s['inner'] = inner
        s['ct'] = dict(state=state, zone=act['zone'],
                       mark=act['mark'] if tracked else 0,
                       labels=act['labels'] if tracked else 0)
        return s

    def udp(src, sp, dst, dp, state, v=4):
        return frame(src, dst, 17, dict(kind='udp', sport=sp, dport=dp,
                                        csum=v == 6), state, v=v)
    first = udp(a, p, b, q, trk | new)
    untracked = dict(P.clone(first), dst=NOCT_MAC,
                     ct=dict(state=0, zone=0, mark=0, labels=0))
    arp = dict(untracked, l3='arp', arp=dict(op=1, sip=a, tip=b, sha=smac,
                                             tha=0, rarp=False))
    for k in ('ip', 'l4'):
        del arp[k]
    return [
        ('ct:udp_new', first),
        ('ct:udp_new_again', udp(a, p, b, q, trk | new)),
        ('ct:icmp_error_rel', frame(b, a, 1, dict(kind='icmp', type=3,
                                                  code=3, csum=True),
                                    trk | rel | rpl, inner=dict(
                                        l3='ipv4', ip=first['ip'],
                                        l4=first['l4']))),
        ('ct:udp_reply', udp(b, q, a, p, trk | est | rpl)),
        ('ct:udp_est', udp(a, p, b, q, trk | est)),
        ('ct:tcp_bad_csum_inv', frame(c, d, 6, dict(
            kind='tcp', sport=p, dport=q, flags=0x002), trk | inv, False)),
        ('ct:ping_new', frame(c, d, 1, dict(kind='icmp', type=8, code=0,
                                            csum=True), trk | new)),
        ('ct:pong_reply', frame(d, c, 1, dict(kind='icmp', type=0, code=0,
                                              csum=True), trk | est | rpl)),
        ('ct:udp6_new', udp(e, p, g, q, trk | new, v=6)),
        ('ct:udp6_reply', udp(g, q, e, p, trk | est | rpl, v=6)),
        ('ct:untracked_udp', untracked),
        ('ct:untracked_arp', arp),
    ]


def ct_mask(rng, k):
    """A mask for ct key k: ct_state's within its flags (stock's policy
    refuses others), the others' as any key's."""
    if k['name'] != 'ct_state':
        return rand_mask(rng, k)
    return rng.choice([None, K.CT_FLAGS, K.CT_TRK | rng.getrandbits(6),
                       rng.getrandbits(6)])


def gen_ct_filter(rng, flows, force=None):
    """A filter for chain 1 (behind the ct action): protocol ip, ipv6
    (rarely with an ip_proto) or all, and 1-3 conntrack keys (force: this one
    among them) with the values one frame of the batch's flows has, a
    third of them one bit off under the mask (a near miss), a few
    random."""
    f = dict(proto=rng.choice(CT_PROTOS), vlan_eth=None,
             cvlan_eth=None, ip_proto=None, keys=[], indev=None, chain=1)
    if f['proto'] in CT_IP_PROTOS and rng.random() < 0.3:
        f['ip_proto'] = rng.choice(CT_IP_PROTOS[f['proto']])
    names = [n for n in K.CT if n != force]
    chosen = rng.sample(names, rng.randint(0 if force else 1,
                                           2 if force else 3))
    if force:
        chosen.insert(rng.randint(0, len(chosen)), force)
    want = rng.choice(flows)[1]['ct']
    for name in chosen:
        k = K.KEY[name]
        v = P.get_field({'ct': want}, k['field'])
        m = ct_mask(rng, k)
        bits = full_mask(k, m) & k['bits']
        x = rng.random()
        if x < 0.3 and bits:
            v ^= 1 << rng.choice([i for i in range(8 * k['width'])
                                  if bits >> i & 1])
        elif x < 0.35:
            v = rand_value(rng, k) & k['bits']
        f['keys'].append([name, v, m])
    return f


def gen_ct_filter_with(rng, flows, name):
    """A chain 1 filter ours takes with key name under a non-zero mask."""
    for _ in range(5000):
        f = gen_ct_filter(rng, flows, force=name)
        if predict_refusal(f) is None and name in covered([f]):
            return f
    raise RuntimeError('no ct filter with key %s' % name)
