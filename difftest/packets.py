# SPDX-License-Identifier: GPL-2.0
"""Packet model for the differential oracle: a spec (plain dict, JSON-able)
and build(spec) -> frame bytes.  Headers are packed by hand (struct), so
that any field, including inconsistent ones (lengths of a truncated frame,
reserved bits, odd ARP sizes), can be set; scapy only renders reproducers.

spec keys:
  dst, src      ints (48 bit)
  tags          [[tpid, prio, dei, vid], ...] outermost first
  l3            'ipv4' 'ipv6' 'arp' 'mpls' 'pppoe' 'raw' 'len8023'
  etype         ethertype for l3 'raw' (also overrides the derived one)
  ip            {v, src, dst, tos, ttl, proto, frag: none|first|later,
                 opts: bytes of IPv4 options, ext: [hbh|rt|dst|frag]}
  arp           {op, sip, tip, sha, tha, hrd, pro, hln, pln, rarp}
  mpls          [[label, tc, bos, ttl], ...]   (payload: ip if present)
  mpls_mc       ethertype 0x8848 instead of 0x8847
  pppoe         {sid, proto}                   (payload: ip if present)
  l4            {kind: tcp|udp|sctp|icmp|icmp6|l2tp|gre|ipip|ip6ip|vxlan|raw,
                 sport, dport, flags, type, code, sid, err}
  inner         spec carried by gre/ipip/ip6ip/vxlan/icmp errors
  pad           trailing zero bytes;  trunc  cut the frame to this length
"""
import copy
import struct

from flower import uapi

# The model's names for ethertypes and IP protocols -> flower.uapi's names.
ETH_P = {model: uapi.ETH_P[name] for model, name in (
    ('ipv4', 'ip'), ('ipv6', 'ipv6'), ('arp', 'arp'), ('rarp', 'rarp'),
    ('mpls', 'mpls_uc'), ('mpls_mc', 'mpls_mc'), ('pppoe', 'ppp_ses'))}
L4_PROTO = {model: uapi.IP_PROTO[name] for model, name in (
    ('tcp', 'tcp'), ('udp', 'udp'), ('sctp', 'sctp'), ('icmp', 'icmp'),
    ('icmp6', 'icmpv6'), ('l2tp', 'l2tp'), ('gre', 'gre'), ('ipip', 'ipip'),
    ('ip6ip', 'ipv6'))}
PROTO_L4 = {v: k for k, v in L4_PROTO.items()}


def csum(data):
    if len(data) % 2:
        data += b'\0'
    s = sum(struct.unpack('!%dH' % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def _l4(s, ip_v):
    l4 = s.get('l4') or {'kind': 'raw'}
    k = l4['kind']
    if k == 'tcp':
        word = (5 << 12) | (l4.get('flags', 0x10) & 0x0fff)
        return struct.pack('!HHIIHHHH', l4.get('sport', 1), l4.get('dport', 2),
                           1, 0, word, 512, 0, 0) + b'tcpdata!'
    if k == 'udp':
        body = b'udpdata!'
        return struct.pack('!HHHH', l4.get('sport', 1), l4.get('dport', 2),
                           8 + len(body), 0) + body
    if k == 'vxlan':
        inner = build(s['inner']) if s.get('inner', {}).get('ether') else bytes(14)
        body = struct.pack('!BBHI', 0x08, 0, 0, (l4.get('vni', 1) << 8)) + inner
        return struct.pack('!HHHH', l4.get('sport', 1), 4789,
                           8 + len(body), 0) + body
    if k == 'sctp':
        return struct.pack('!HHII', l4.get('sport', 1), l4.get('dport', 2),
                           0x1234, 0) + bytes([0, 3, 0, 16]) + bytes(12)
    if k in ('icmp', 'icmp6'):
        rest = bytes(4)
        payload = b''
        if s.get('inner') is not None:
            payload = _l3(s['inner'])[:48]
        else:
            payload = b'pingpingpingping'
        hdr = struct.pack('!BBH', l4.get('type', 8), l4.get('code', 0), 0)
        return hdr + rest + payload
    if k == 'l2tp':
        return struct.pack('!I', l4.get('sid', 1)) + bytes(12)
    if k == 'gre':
        inner = s.get('inner')
        if inner is None:
            return struct.pack('!HH', 0, 0x0800) + bytes(20)
        proto = 0x6558 if inner.get('ether') else (
            0x86dd if inner['ip']['v'] == 6 else 0x0800)
        body = build(inner) if inner.get('ether') else _l3(inner)
        return struct.pack('!HH', 0, proto) + body
    if k in ('ipip', 'ip6ip'):
        return _l3(s['inner']) if s.get('inner') else bytes(20)
    return bytes(l4.get('raw_len', 16))


def _ipv4(s):
    ip = s['ip']
    opts = bytes.fromhex(ip.get('opts', ''))
    if len(opts) % 4:
        opts += b'\x01' * (4 - len(opts) % 4)    # NOP padding
    payload = _l4(s, 4)
    frag = ip.get('frag', 'none')
    off, mf = 0, 0
    if frag == 'first':
        mf = 1
    elif frag == 'later':
        off, mf = ip.get('fragoff', 8), ip.get('mf', 0)
    df = ip.get('df', 0)
    ihl = 5 + len(opts) // 4
    hdr = struct.pack('!BBHHHBBH4s4s', 0x40 | ihl, ip.get('tos', 0),
                      ihl * 4 + len(payload), ip.get('id', 1),
                      (df << 14) | (mf << 13) | off, ip.get('ttl', 64),
                      ip.get('proto', 17), 0,
                      ip['src'].to_bytes(4, 'big'),
                      ip['dst'].to_bytes(4, 'big')) + opts
    hdr = hdr[:10] + struct.pack('!H', csum(hdr)) + hdr[12:]
    return hdr + payload


def _ipv6(s):
    ip = s['ip']
    payload = _l4(s, 6)
    nh = ip.get('proto', 17)
    ext = ip.get('ext', [])
    frag = ip.get('frag', 'none')
    exts = list(ext)
    if frag != 'none' and 'frag' not in exts:
        exts.append('frag')
    # build from the innermost outwards
    for e in reversed(exts):
        if e in ('hbh', 'dst'):
            payload = bytes([nh, 0, 1, 4, 0, 0, 0, 0]) + payload
            nh = 0 if e == 'hbh' else 60
        elif e == 'rt':
            payload = bytes([nh, 0, 0, 0, 0, 0, 0, 0]) + payload
            nh = 43
        elif e == 'frag':
            off, m = 0, 0
            if frag == 'first' or frag == 'none':
                m = 1 if frag == 'first' else 0
            else:
                off, m = ip.get('fragoff', 8), ip.get('mf', 0)
            payload = struct.pack('!BBHI', nh, 0, (off << 3) | m, 7) + payload
            nh = 44
    first = (6 << 28) | (ip.get('tos', 0) << 20) | ip.get('flow', 0)
    return struct.pack('!IHBB', first, len(payload), nh, ip.get('ttl', 64)) + \
        ip['src'].to_bytes(16, 'big') + ip['dst'].to_bytes(16, 'big') + payload


def _l3(s):
    """The bytes after the (last) ethertype."""
    l3 = s['l3']
    if l3 in ('ipv4', 'ipv6'):
        return _ipv4(s) if s['ip']['v'] == 4 else _ipv6(s)
    if l3 == 'arp':
        a = s['arp']
        hln, pln = a.get('hln', 6), a.get('pln', 4)
        return struct.pack('!HHBBH', a.get('hrd', 1), a.get('pro', 0x0800),
                           hln, pln, a.get('op', 1)) + \
            a['sha'].to_bytes(6, 'big') + a['sip'].to_bytes(4, 'big') + \
            a['tha'].to_bytes(6, 'big') + a['tip'].to_bytes(4, 'big')
    if l3 == 'mpls':
        b = b''
        for label, tc, bos, ttl in s['mpls']:
            b += struct.pack('!I', ((label & 0xfffff) << 12) | ((tc & 7) << 9)
                             | ((bos & 1) << 8) | (ttl & 0xff))
        if s.get('ip'):
            b += _ipv4(s) if s['ip']['v'] == 4 else _ipv6(s)
        else:
            b += bytes(20)
        return b
    if l3 == 'pppoe':
        p = s['pppoe']
        if s.get('ip'):
            body = _ipv4(s) if s['ip']['v'] == 4 else _ipv6(s)
        else:
            body = bytes(20)
        body = struct.pack('!H', p.get('proto', 0x21)) + body
        return struct.pack('!BBHH', 0x11, 0, p.get('sid', 1), len(body)) + body
    if l3 == 'len8023':
        return bytes([0x42, 0x42, 0x03]) + bytes(40)
    return bytes(s.get('raw_len', 30))


def etype_of(s):
    if s.get('etype') is not None:
        return s['etype']
    l3 = s['l3']
    if l3 in ('ipv4', 'ipv6'):
        return ETH_P['ipv4'] if s['ip']['v'] == 4 else ETH_P['ipv6']
    if l3 == 'arp':
        return ETH_P['rarp'] if s['arp'].get('rarp') else ETH_P['arp']
    if l3 == 'mpls':
        return ETH_P['mpls_mc'] if s.get('mpls_mc') else ETH_P['mpls']
    if l3 == 'pppoe':
        return ETH_P['pppoe']
    if l3 == 'len8023':
        return 46
    return 0x9000


def build(s):
    b = s['dst'].to_bytes(6, 'big') + s['src'].to_bytes(6, 'big')
    for tpid, prio, dei, vid in s.get('tags', []):
        b += struct.pack('!HH', tpid, (prio << 13) | (dei << 12) | vid)
    b += struct.pack('!H', etype_of(s)) + _l3(s)
    b += bytes(s.get('pad', 0))
    if s.get('trunc') is not None:
        b = b[:s['trunc']]
    return b


def header_len(s):
    """Bytes up to the end of the L3 header start (for truncation points)."""
    return 14 + 4 * len(s.get('tags', []))


# --- field access by the key table's field paths ------------------------
def get_field(s, path):
    if path == 'ntags':
        return len(s.get('tags', []))
    obj, name = _resolve(s, path)
    if path == 'ip.fragflags':
        if not s.get('ip'):
            return None
        fr = s['ip'].get('frag', 'none')
        return {'none': 0, 'first': 3, 'later': 1}[fr]
    return obj.get(name, 0) if obj is not None else None


def _resolve(s, path):
    if path in ('dst', 'src'):
        return s, path
    head, name = path.split('.')
    if head.startswith('tag'):
        i = int(head[3:])
        tags = s.setdefault('tags', [])
        if len(tags) <= i:
            return None, name
        return {'prio': tags[i][1], 'vid': tags[i][3], '_tag': i}, name
    if head.startswith('mpls') and head != 'mpls':
        i = int(head[4:])
        st = s.get('mpls') or []
        if len(st) <= i:
            return None, name
        return {'label': st[i][0], 'tc': st[i][1], 'bos': st[i][2],
                'ttl': st[i][3], '_lse': i}, name
    return s.get(head), name


def set_field(s, path, value, rng=None):
    if path == 'ntags':
        tags = s.setdefault('tags', [])
        while len(tags) > value:
            tags.pop()
        while len(tags) < value:
            tags.append([0x8100, 0, 0, (len(tags) * 7 + 5) & 0xfff])
        return
    if path == 'ip.fragflags':
        s['ip']['frag'] = {0: 'none', 1: 'later', 2: 'none', 3: 'first'}[value & 3]
        if value & 1 and not value & 2:
            s['ip'].setdefault('fragoff', 8)
        return
    if path in ('dst', 'src'):
        s[path] = value
        return
    head, name = path.split('.')
    if head.startswith('tag'):
        i = int(head[3:])
        tags = s.setdefault('tags', [])
        while len(tags) <= i:
            tags.append([0x8100, 0, 0, 1])
        tags[i][{'prio': 1, 'vid': 3}[name]] = value
        return
    if head.startswith('mpls') and head != 'mpls':
        i = int(head[4:])
        st = s.setdefault('mpls', [])
        while len(st) <= i:
            st.append([16, 0, 0, 64])
        st[i][{'label': 0, 'tc': 1, 'bos': 2, 'ttl': 3}[name]] = value
        return
    s.setdefault(head, {})[name] = value


def clone(s):
    return copy.deepcopy(s)
