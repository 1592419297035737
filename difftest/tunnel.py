# SPDX-License-Identifier: GPL-2.0
"""Tunnel filters for gen.py: enc_* keys of one tunnel family on a collect_md
VXLAN or Geneve device, the tunnel of their frames, what reaches a tunnel
device (tunnel_reach()), and the devices runner.py makes (tunnel_setup()).
"""
import ipaddress

from difftest import keys as K
from flower import packets as P
from difftest.filters import (TUN_DEVS, gen_filter, need_met, rand_mask,
                              rand_value)


# Tunnel filters: the collect_md devices (filters.TUN_DEVS; runner.py:
# "external", the tunnel's IANA port), dtr's MAC, and the local ranges
# (routes of type local on dtr) the tunnel frames are sent to.
TUN_MAC = 0x02000000d701
TUN_NET = {4: (0x0afd0000, 16),                         # 10.253.0.0/16
           6: (0x20010db8025300000000000000000000, 64)}  # 2001:db8:253::/64
TUNNEL_SHARE = 0.1


def tun_net(v):
    """(network, prefix length, address bits) of TUN_NET[v]."""
    net, plen = TUN_NET[v]
    return net, plen, 32 if v == 4 else 128


def tun_src(rng, v):
    """An outer source address the receiving stack takes (src_ok()); an
    IPv6 one in 2001:db8:1::/48."""
    if v == 6:
        return (0x20010db80001 << 80) | rng.getrandbits(80)
    while True:
        a = rng.getrandbits(32)
        if src_ok(a, 4):
            return a


def src_ok(a, v):
    """Whether the receiving stack takes a as a tunnel frame's source:
    IPv4 refuses martians (0/8, 127/8, multicast, broadcast) and a local
    address (fib_validate_source()); IPv6 multicast, ::, ::1 and
    v4-mapped ones (a local one it takes)."""
    if v == 4:
        net, plen, bits = tun_net(v)
        return 0 < a >> 24 < 224 and a >> 24 != 127 and \
            a >> (bits - plen) != net >> (bits - plen)
    return a >> 120 != 0xff and a > 1 and a >> 32 != 0xffff


def tun_value(rng, k, f):
    """A value of tunnel key k for filter f, mostly one a frame that the
    tunnel device decapsulates can carry: an address of TUN_NET as
    destination, a source the stack takes, the tunnel's port, a 24-bit
    VNI, a TOS without ECN CE (an outer CE over a not-ECT inner IP packet
    is dropped by the decapsulation)."""
    name, v = k['name'], f['tun_v']
    if rng.random() < 0.15:
        return rand_value(rng, k)
    if name.endswith('_dst') and name.startswith('enc_ipv'):
        net, plen, bits = tun_net(v)
        return net | rng.getrandbits(bits - plen)
    if name.endswith('_src') and name.startswith('enc_ipv'):
        return tun_src(rng, v)
    if name == 'enc_udp_dst':
        return P.TUNNEL_PORT[f['dev']]
    if name == 'enc_key_id':
        return rng.choice([0, 1, 0xffffff, rng.getrandbits(24)])
    if name == 'enc_ip_tos':
        return rng.getrandbits(8) & ~3
    return rand_value(rng, k)


def gen_tunnel_filter(rng, force=None):
    """A filter for a tunnel device: a clean filter of the inner frame
    (0-2 keys), its device (dev: vxlan or geneve) and tunnel family
    (tun_v), and 1-3 enc_* keys of that family (force: this one among
    them)."""
    f = gen_filter(rng, clean=True, nkeys=rng.randint(0, 2))
    f['dev'] = 'geneve' if rng.random() < 0.3 else 'vxlan'
    f['tun_v'] = 6 if force and 'ipv6' in force else \
        4 if force and 'ipv4' in force else rng.choice([4, 4, 6])
    pool = [k for k in K.KEYS if k['tunnel'] and need_met(f, k['draw'])
            and k['name'] != force]
    chosen = rng.sample(pool, rng.randint(0 if force else 1, 2 if force else 3))
    if force:
        chosen.insert(rng.randint(0, len(chosen)), K.KEY[force])
    for k in chosen:
        m = rand_mask(rng, k) if k['mask'] else None
        f['keys'].append([k['name'], tun_value(rng, k, f), m])
    return f


def rand_tun(rng, kind, v):
    """The encapsulation of a frame for a tunnel device: what runner.py's
    setup decapsulates (tunnel_reach())."""
    net, plen, bits = tun_net(v)
    return dict(kind=kind, v=v, dmac=TUN_MAC, smac=(rng.getrandbits(48) &
                                                   ~(1 << 40)) | (2 << 40),
                src=tun_src(rng, v), dst=net | rng.getrandbits(bits - plen),
                tos=rng.choice([0, 0, rng.getrandbits(6) << 2]),
                ttl=rng.choice([64, 1, 255, rng.getrandbits(8)]),
                sport=rng.getrandbits(16), dport=P.TUNNEL_PORT[kind],
                vni=rng.getrandbits(24))


def tunnel_reach(s):
    """The tunnel device (vxlan, geneve) whose flower sees the inner
    frame of s, as runner.py's setup and the receiving stack decide, or
    None: to dtr's MAC, to an address of TUN_NET from one the stack takes
    as a source, to the tunnel's port, no outer ECN CE over a not-ECT
    inner IP packet, an inner frame with its IP header whole.  runner.py
    waits for these frames on the tunnel devices; what the kernels did
    decides the verdicts."""
    t = s.get('tun')
    if not t or t['dmac'] not in (TUN_MAC, 0xffffffffffff) or \
            t['dport'] != P.TUNNEL_PORT[t['kind']]:
        return None
    net, plen, bits = tun_net(t['v'])
    if t['dst'] >> (bits - plen) != net >> (bits - plen) or \
            not src_ok(t['src'], t['v']):
        return None
    ip = s.get('ip')
    if t['tos'] & 3 == 3 and not s['tags'] and ip and \
            s['l3'] == 'ipv%d' % ip['v'] and not ip.get('tos', 0) & 3:
        return None
    # the decapsulation pulls an inner IP header whole
    # (pskb_inet_may_pull()); skb_vlan_untag() drops a tag without the
    # 2 bytes after it, before tc
    inner = P.build(P.untunneled(s))
    etype = int.from_bytes(inner[12:14], 'big')
    if len(inner) < 14 + {0x0800: 20, 0x86dd: 40}.get(etype, 0) or \
            (etype in K.VLAN_TPIDS and len(inner) < 20):
        return None
    return t['kind']


def link_cmd(kind, dev, port):
    """`ip` arguments that make a collect_md tunnel device (VXLAN
    without learning: no state of one frame for the next)."""
    return 'link add %s type %s external dstport %d%s' % (
        dev, kind, port, ' nolearning' if kind == 'vxlan' else '')


def tunnel_setup():
    """What runner.py needs to make the tunnel devices' side."""
    nets = {}
    for v, (net, plen) in TUN_NET.items():
        a = ipaddress.ip_address(net)
        nets['net%d' % v] = '%s/%d' % (a, plen)
    return dict(devs=TUN_DEVS, mac=P.mac(TUN_MAC), ports=P.TUNNEL_PORT,
                links={kind: link_cmd(kind, dev, P.TUNNEL_PORT[kind])
                       for kind, dev in TUN_DEVS.items()}, **nets)
