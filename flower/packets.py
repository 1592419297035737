# SPDX-License-Identifier: GPL-2.0
"""flower.packets - one packet description, rendered as frame bytes
(build) or as scapy layers (scapy_layers) and their expression
(scapy_expr).

A spec is a plain, JSON-able dict (difftest's corpus stores them).
build(spec) packs its headers by hand (struct), so that any field,
including inconsistent ones (lengths of a truncated frame, reserved bits,
odd ARP sizes), can be set.  scapy_layers(spec) gives a consistent spec
as scapy layers (Layers: (name, fields) pairs, plain data, which tcgen
writes its frames in too), and scapy_expr(spec) renders them as the
expression tdc's scapyPlugin evaluates with scapy.all's names
(Ether(...)/IP(...)/UDP(...)); flower/tests/test_packets.py checks that
scapy builds the same bytes from it as build().  scapy_frame(layers)
builds the scapy packet of Layers without an eval; it is the only
function that imports scapy, when called: the guest imports this module
without it.

spec keys:
  dst, src      ints (48 bit)
  tags          [[tpid, prio, dei, vid], ...] outermost first
  l3            'ipv4' 'ipv6' 'arp' 'mpls' 'pppoe' 'raw' 'len8023'
  etype         ethertype for l3 'raw' (also overrides the derived one)
  ip            {v, src, dst, tos, ttl, proto, frag: none|first|later,
                 opts: hex of IPv4 options, ext: [hbh|rt|dst|frag]}
  arp           {op, sip, tip, sha, tha, hrd, pro, hln, pln, rarp}
  mpls          [[label, tc, bos, ttl], ...]   (payload: ip if present)
  mpls_mc       ethertype 0x8848 instead of 0x8847
  pppoe         {sid, proto}                   (payload: ip if present)
  l4            {kind: tcp|udp|sctp|icmp|icmp6|l2tp|gre|ipip|ip6ip|vxlan|
                 geneve|raw,
                 sport, dport, flags, type, code, sid, err, csum: a UDP
                 datagram or an ICMPv4 message with its checksum}
  inner         spec carried by gre/ipip/ip6ip/vxlan/geneve/icmp errors
                (vxlan/geneve: l4 {sport, dport, vni}, an inner with
                ether=True is a whole Ethernet frame)
  pad           trailing zero bytes;  trunc  cut the frame to this length
  ct            not built: what a ct action finds for the frame (difftest's
                conntrack flows): {state, zone, mark, labels}
  tun           the frame arrives encapsulated: {kind: vxlan|geneve, v: 4|6,
                dmac, smac, src, dst, tos, ttl, sport, dport, vni}; the
                rest of the spec is the inner Ethernet frame (what a
                flower on the collect_md tunnel device classifies, its
                tunnel metadata from these fields); wire(spec) is the
                frame on the wire as the other specs say it

L4 checksums are 0 (flower never reads them), but a UDP datagram's or
an ICMPv4 message's with l4 csum (conntrack checks them) and a VXLAN or
Geneve datagram's UDP checksum are computed (the tunnel's UDP socket
checks it, and IPv6 does not take 0); the IPv4 header checksum is
computed.
"""
import copy
import ipaddress
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

# What build() puts after the headers it packs.
TCP_DATA, UDP_DATA, PING_DATA = b'tcpdata!', b'udpdata!', b'pingpingpingping'
LLC = bytes([0x42, 0x42, 0x03])     # 802.2 LLC of an 802.3 length frame


def csum(data):
    if len(data) % 2:
        data += b'\0'
    s = sum(struct.unpack('!%dH' % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def lse(label, tc, bos, ttl):
    """One MPLS label stack entry (scapy.all has no MPLS layer: it is in
    scapy.contrib, which tdc's scapyPlugin does not load)."""
    return struct.pack('!I', ((label & 0xfffff) << 12) | ((tc & 7) << 9) |
                       ((bos & 1) << 8) | (ttl & 0xff))


# the IANA ports of VXLAN and Geneve (a collect_md device listens there)
TUNNEL_PORT = {'vxlan': 4789, 'geneve': 6081}
ETH_P_TEB = 0x6558      # Transparent Ethernet Bridging: Geneve's Ethernet
# fields narrower than the key that matches them (enc_key_id: 32 bits)
FIELD_BITS = {'tun.vni': 0xffffff}


def tunnel_header(kind, vni):
    """The 8-byte VXLAN header (RFC 7348: flags I, the VNI) or Geneve
    header (RFC 8926: version 0, no options, protocol Ethernet, the VNI);
    a VNI has 24 bits."""
    if kind == 'vxlan':
        return struct.pack('!BBHI', 0x08, 0, 0, (vni & 0xffffff) << 8)
    return struct.pack('!BBHI', 0, 0, ETH_P_TEB, (vni & 0xffffff) << 8)


def _udp(s, ip_v, sport, dport, body):
    """A UDP datagram with its checksum (RFC 768 / RFC 8200 8.1: over the
    pseudo-header; a result of 0 is sent as 0xffff)."""
    ip = s['ip']
    n = 4 if ip_v == 4 else 16
    pseudo = ip['src'].to_bytes(n, 'big') + ip['dst'].to_bytes(n, 'big') + \
        (struct.pack('!BBH', 0, 17, 8 + len(body)) if ip_v == 4 else
         struct.pack('!I3xB', 8 + len(body), 17))
    hdr = struct.pack('!HHHH', sport, dport, 8 + len(body), 0)
    return hdr[:6] + struct.pack('!H', csum(pseudo + hdr + body) or 0xffff) \
        + body


def _l4(s, ip_v):
    l4 = s.get('l4') or {'kind': 'raw'}
    k = l4['kind']
    if k == 'tcp':
        word = (5 << 12) | (l4.get('flags', 0x10) & 0x0fff)
        return struct.pack('!HHIIHHHH', l4.get('sport', 1), l4.get('dport', 2),
                           1, 0, word, 512, 0, 0) + TCP_DATA
    if k == 'udp':
        body = UDP_DATA
        if l4.get('csum'):      # conntrack checks it (IPv6 takes no 0)
            return _udp(s, ip_v, l4.get('sport', 1), l4.get('dport', 2),
                        body)
        return struct.pack('!HHHH', l4.get('sport', 1), l4.get('dport', 2),
                           8 + len(body), 0) + body
    if k in TUNNEL_PORT:
        inner = build(s['inner']) if (s.get('inner') or {}).get('ether') \
            else bytes(14)
        return _udp(s, ip_v, l4.get('sport', 1),
                     l4.get('dport', TUNNEL_PORT[k]),
                     tunnel_header(k, l4.get('vni', 1)) + inner)
    if k == 'sctp':
        return struct.pack('!HHII', l4.get('sport', 1), l4.get('dport', 2),
                           0x1234, 0) + bytes([0, 3, 0, 16]) + bytes(12)
    if k in ('icmp', 'icmp6'):
        rest = bytes(4)
        payload = b''
        if s.get('inner') is not None:
            payload = _l3(s['inner'])[:48]
        else:
            payload = PING_DATA
        hdr = struct.pack('!BBH', l4.get('type', 8), l4.get('code', 0), 0)
        if l4.get('csum') and k == 'icmp':
            # conntrack marks an ICMP message with a bad checksum invalid
            hdr = hdr[:2] + struct.pack('!H', csum(hdr + rest + payload))
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
        for entry in s['mpls']:
            b += lse(*entry)
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
        return LLC + bytes(40)
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


def wire(s):
    """The spec of the frame on the wire: for a spec with 'tun', the
    outer Ethernet / IP / UDP / VXLAN or Geneve headers its tun gives,
    carrying the rest of the spec as the inner Ethernet frame; any other
    spec as it is."""
    t = s.get('tun')
    if not t:
        return s
    inner = dict(s, ether=True)
    del inner['tun']
    ip = dict(v=t['v'], src=t['src'], dst=t['dst'], tos=t.get('tos', 0),
              ttl=t.get('ttl', 64), proto=17, id=1)
    return dict(dst=t['dmac'], src=t['smac'], tags=[],
                l3='ipv%d' % t['v'], ip=ip,
                l4=dict(kind=t['kind'], sport=t['sport'], dport=t['dport'],
                        vni=t['vni']), inner=inner)


def untunneled(s):
    """The inner frame of a spec with 'tun' (what the tunnel device's
    flower classifies), as a spec of its own; any other spec as it is."""
    return {k: v for k, v in s.items() if k != 'tun'}


def build(s):
    if s.get('tun'):
        return build(wire(s))
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


# --- the same frame as scapy layers ---------------------------------------
# A frame as scapy writes it: Layers, a tuple of (layer name, {field:
# value}) pairs, outermost first; plain data.  render() writes it as the
# expression tdc's scapyPlugin evaluates with scapy.all's names
# (Ether(...)/IP(...)/UDP(...)); scapy_frame() builds the same packet by
# calling those classes with the fields, for its length and bytes (the
# only function here that imports scapy, when called).  A value is
# written by its repr(), so it is an int, str, bytes, or a list of them
# (what repr() writes back exactly), or Code: text written as it is
# (scapy_layers() uses it for what needs an expression: bytes(20), an
# IPOption, a frame's bytes cut), which render() writes and
# scapy_frame() refuses (it would take an eval).
#
# scapy_layers(s) is the frame build(s) packs.  Fields build() derives
# (lengths, IHL, the IPv4 checksum, ethertypes and IP protocols scapy's
# layer bindings give) are left to scapy, so that
# flower/tests/test_packets.py compares two packers; the spec's fields
# (and build()'s defaults) are written out, unless scapy's default is the
# same value.
VLAN_LAYER = {uapi.ETH_P['802.1q']: 'Dot1Q', uapi.ETH_P['802.1ad']: 'Dot1AD'}


class Code(str):
    """Text that layer() writes as it is, not as its repr()."""
    __repr__ = str.__str__


def zeros(n):
    return Code('bytes(%d)' % n)


class Layers(tuple):
    """A frame as scapy layers: (name, {field: value}) pairs, outermost
    first.  a / b stacks b on a, as scapy's / does."""

    def __new__(cls, layers=()):
        return super().__new__(cls, ((name, dict(fields))
                                     for name, fields in layers))

    def __truediv__(self, other):
        return Layers(tuple(self) + tuple(other))

    def with_fields(self, name, nth=0, **fields):
        """The same frame, the nth layer called `name` with `fields`
        changed or added (a field keeps its place)."""
        at = [i for i, (n, _f) in enumerate(self) if n == name][nth]
        return Layers(self[:at] + ((name, dict(self[at][1], **fields)),) +
                      self[at + 1:])


def one(name, **fields):
    """A frame of one layer: Layers([(name, fields)])."""
    return Layers([(name, fields)])


def layer(name, **fields):
    """'Name(f=v,...)', each value as its repr()."""
    return '%s(%s)' % (name, ','.join('%s=%r' % f for f in fields.items()))


def render(layers):
    """The scapy expression of a frame given as Layers."""
    return '/'.join(layer(name, **fields) for name, fields in layers)


def scapy_frame(layers):
    """The scapy packet of a frame given as Layers: each layer's class
    from scapy.all called with its fields, stacked by /; TypeError for a
    Code value.  Imports scapy (the guest never calls this)."""
    import scapy.all
    frame = None
    for name, fields in layers:
        code = [k for k, v in fields.items() if isinstance(v, Code)]
        if code:
            raise TypeError('%s(%s=%s): an expression, not a value'
                            % (name, code[0], fields[code[0]]))
        part = getattr(scapy.all, name)(**fields)
        frame = part if frame is None else frame / part
    return frame


def vlan_layer(tpid):
    """scapy's layer for a VLAN tag of TPID tpid (Dot1Q for a TPID that
    is neither 802.1Q's nor 802.1ad's: the layer before gives it)."""
    return VLAN_LAYER.get(tpid, 'Dot1Q')


def pppoe_layers(sid, proto):
    """PPPoE session header and the PPP protocol, uncompressed (2 bytes:
    scapy's PPP layer compresses it to one, which flower does not match)."""
    return one('PPPoE', sessionid=sid) / one('Raw',
                                              load=proto.to_bytes(2, 'big'))


def mac(n):
    return ':'.join('%02x' % b for b in n.to_bytes(6, 'big'))


def addr(n, v):
    return str(ipaddress.IPv4Address(n) if v == 4 else
               ipaddress.IPv6Address(n))


def _but(fields, defaults):
    """fields without those that have scapy's default value."""
    return {k: v for k, v in fields.items()
            if k not in defaults or defaults[k] != v}


def _unrenderable(s):
    """Why build(s) is no frame scapy_expr() renders, or None."""
    if s.get('trunc') is not None:
        return 'trunc=%d: a truncated frame' % s['trunc']
    a = s.get('arp') if s['l3'] == 'arp' else None
    if a and (a.get('hln', 6), a.get('pln', 4)) != (6, 4):
        return 'arp hln=%d pln=%d with 6- and 4-byte addresses' % (
            a.get('hln', 6), a.get('pln', 4))
    l4 = s.get('l4') or {}
    if s.get('ip') and s['l3'] != 'arp' and l4.get('kind') == 'icmp' and \
            l4.get('type', 8) in (13, 14, 17, 18):
        return ('icmp type %d: scapy\'s ICMP has timestamp or mask fields '
                'where build() has its payload' % l4['type'])
    return _unrenderable(s['inner']) if s.get('inner') else None


def scapy_expr(s, nested=False):
    """The scapy expression of the frame build(s) packs: render() of
    scapy_layers()."""
    return render(scapy_layers(s, nested))


def scapy_layers(s, nested=False):
    """The Layers of the frame build(s) packs; ValueError, naming it, for
    what only an inconsistent frame has.  nested: a frame carried by
    another one; a padded one is its bytes (scapy leaves Padding out of
    the carrier's lengths, build() counts it)."""
    if s.get('tun'):
        return scapy_layers(wire(s))
    why = _unrenderable(s)
    if why:
        raise ValueError('no scapy expression: ' + why)
    heads = [('Ether', dict(dst=mac(s['dst']), src=mac(s['src'])))]
    nexts = []      # per head: the ethertype after it, scapy's own one?
    for tpid, prio, dei, vid in s.get('tags', []):
        nexts.append((tpid, tpid in VLAN_LAYER))
        heads.append((vlan_layer(tpid), _but(dict(vlan=vid, prio=prio, id=dei),
                                             dict(prio=0, id=0))))
    body, bound = _l3_layers(s)
    nexts.append((etype_of(s), etype_of(s) == bound))
    out = Layers((name, fields if own else dict(fields, type=etype))
                 for (name, fields), (etype, own) in zip(heads, nexts)) / body
    if s.get('pad'):
        out /= one('Padding', load=zeros(s['pad']))
        if nested:
            return one('Raw', load=Code('bytes(%s)' % render(out)))
    return out


def _l3_layers(s):
    """(the Layers after the last ethertype, the ethertype scapy gives
    the first of them; None for Raw)."""
    l3 = s['l3']
    if l3 in ('ipv4', 'ipv6'):
        return _ip_layers(s), ETH_P['ipv%d' % s['ip']['v']]
    if l3 == 'arp':
        return _arp_layer(s['arp']), ETH_P['arp']
    ip = _ip_layers(s) if s.get('ip') else one('Raw', load=zeros(20))
    if l3 == 'mpls':
        return one('Raw', load=b''.join(lse(*e) for e in s['mpls'])) / ip, \
            None
    if l3 == 'pppoe':
        p = s['pppoe']
        return pppoe_layers(p.get('sid', 1), p.get('proto', 0x21)) / ip, \
            ETH_P['pppoe']
    if l3 == 'len8023':
        return one('Raw', load=Code('%r+bytes(40)' % LLC)), None
    return one('Raw', load=zeros(s.get('raw_len', 30))), None


def _arp_layer(a):
    """scapy's ARP packs hwsrc/psrc as a MAC / an IPv4 address only for
    hwtype Ethernet / ptype IPv4, else as byte strings."""
    hrd, pro = a.get('hrd', 1), a.get('pro', ETH_P['ipv4'])
    hw = mac if hrd == 1 else (lambda n: n.to_bytes(6, 'big'))
    pa = (lambda n: addr(n, 4)) if pro == ETH_P['ipv4'] else \
        (lambda n: n.to_bytes(4, 'big'))
    return one('ARP', **_but(dict(
        hwtype=hrd, ptype=pro, op=a.get('op', 1), hwsrc=hw(a['sha']),
        psrc=pa(a['sip']), hwdst=hw(a['tha']), pdst=pa(a['tip'])),
        dict(hwtype=1, ptype=ETH_P['ipv4'])))


IP6_EXT = {'hbh': 'IPv6ExtHdrHopByHop', 'dst': 'IPv6ExtHdrDestOpt',
           'rt': 'IPv6ExtHdrRouting', 'frag': 'IPv6ExtHdrFragment'}


def _ip_layers(s):
    """IP, or IPv6 and its extension headers, then the L4 layers."""
    ip = s['ip']
    v = ip['v']
    hdrs = [('IP' if v == 4 else 'IPv6',
             dict(src=addr(ip['src'], v), dst=addr(ip['dst'], v)))]
    frag = ip.get('frag', 'none')
    off, mf = {'none': (0, 0), 'first': (0, 1)}.get(
        frag, (ip.get('fragoff', 8), ip.get('mf', 0)))
    if v == 4:
        hdrs[0][1].update(_but(dict(
            tos=ip.get('tos', 0), id=ip.get('id', 1),
            flags=ip.get('df', 0) << 1 | mf, frag=off, ttl=ip.get('ttl', 64)),
            dict(tos=0, id=1, flags=0, frag=0, ttl=64)))
        opts = bytes.fromhex(ip.get('opts', ''))
        if opts:            # NOP-padded, as build() does
            opts += b'\x01' * (-len(opts) % 4)
            hdrs[0][1]['options'] = Code('[IPOption(%r)]' % opts)
    else:
        hdrs[0][1].update(_but(dict(
            tc=ip.get('tos', 0), fl=ip.get('flow', 0), hlim=ip.get('ttl', 64)),
            dict(tc=0, fl=0, hlim=64)))
        exts = list(ip.get('ext', []))
        if frag != 'none' and 'frag' not in exts:
            exts.append('frag')
        for e in exts:
            hdrs.append((IP6_EXT[e], _but(dict(offset=off, m=mf, id=7),
                                          dict(offset=0, m=0))
                         if e == 'frag' else {}))
    l4, bound = _l4_layers(s, v)
    if ip.get('proto', 17) != bound:
        hdrs[-1][1]['proto' if v == 4 else 'nh'] = ip.get('proto', 17)
    return Layers(hdrs) / l4


def _l4_layers(s, v):
    """(the Layers after the IP header(s), the IP protocol scapy gives
    the first of them; None for Raw).  L4 checksums 0, as build()."""
    l4 = s.get('l4') or {'kind': 'raw'}
    k = l4['kind']
    ports = dict(sport=l4.get('sport', 1), dport=l4.get('dport', 2))
    inner = s.get('inner')
    if k == 'tcp':
        flags = l4.get('flags', 0x10) & 0xfff   # 3 reserved bits, 9 flags
        tcp = dict(ports, seq=1, **_but(dict(reserved=flags >> 9),
                                        dict(reserved=0)))
        return one('TCP', **tcp, flags=flags & 0x1ff, window=512,
                   chksum=0) / one('Raw', load=TCP_DATA), L4_PROTO['tcp']
    if k == 'udp':
        # scapy computes the checksum build() computes for csum
        return one('UDP', **ports, **({} if l4.get('csum') else
                                      dict(chksum=0))) / \
            one('Raw', load=UDP_DATA), L4_PROTO['udp']
    if k in TUNNEL_PORT:
        body = scapy_layers(inner, True) if (inner or {}).get('ether') else \
            one('Raw', load=zeros(14))
        # scapy computes the UDP checksum, as build() does; it binds
        # UDP dport 4789 to VXLAN, not 6081 to Geneve (scapy.contrib)
        udp = dict(sport=ports['sport'])
        dport = l4.get('dport', TUNNEL_PORT[k])
        if k == 'geneve' or dport != TUNNEL_PORT[k]:
            udp['dport'] = dport
        if k == 'geneve':
            hdr = one('Raw', load=tunnel_header(k, l4.get('vni', 1)))
        else:
            # RFC 7348's flags (I); before Ether scapy's VXLAN says
            # VXLAN-GPE (flags 0x0c, NextProtocol 3) unless told
            hdr = one('VXLAN', flags=0x08, NextProtocol=0,
                      vni=l4.get('vni', 1) & 0xffffff)
        return one('UDP', **udp) / hdr / body, L4_PROTO['udp']
    if k == 'sctp':
        return one('SCTP', **ports, tag=0x1234, chksum=0) / \
            one('SCTPChunkData', beginning=1, ending=1), L4_PROTO['sctp']
    if k in ('icmp', 'icmp6'):
        payload = one('Raw', load=PING_DATA if inner is None else Code(
            'bytes(%s)[:48]' % render(_l3_layers(inner)[0])))
        code = dict(type=l4.get('type', 8), code=l4.get('code', 0))
        if k == 'icmp':
            # scapy computes the checksum build() computes for csum
            return one('ICMP', **code, **({} if l4.get('csum') else
                                          dict(chksum=0))) / payload, \
                L4_PROTO['icmp'] if v == 4 else None
        return one('ICMPv6Unknown', **code, cksum=0, msgbody=bytes(4)) / \
            payload, L4_PROTO['icmp6'] if v == 6 else None
    if k == 'l2tp':
        return one('Raw', load=l4.get('sid', 1).to_bytes(4, 'big') +
                   bytes(12)), None
    if k == 'gre' and inner:
        return one('GRE') / (scapy_layers(inner, True)
                             if inner.get('ether')
                             else _l3_layers(inner)[0]), L4_PROTO['gre']
    if k == 'gre':
        return one('GRE', proto=ETH_P['ipv4']) / \
            one('Raw', load=zeros(20)), L4_PROTO['gre']
    if k in ('ipip', 'ip6ip') and inner:
        return _l3_layers(inner)[0], \
            L4_PROTO['ipip' if inner['ip']['v'] == 4 else 'ip6ip']
    if k in ('ipip', 'ip6ip'):
        return one('Raw', load=zeros(20)), None
    return one('Raw', load=zeros(l4.get('raw_len', 16))), None
