# SPDX-License-Identifier: GPL-2.0
"""tcgen.matches - the keys: one constructor per kind of match (how tc
spells it, what tc -j prints, which attributes the kernel dumps).
"""

from flower import uapi
from tcgen.common import PROTO_NAME


class Match:
    """One match of a filter: its tc words, the keys tc -j prints for it,
    and the TCA_FLOWER_* attributes the kernel dumps ($FLNL show names)."""

    def __init__(self, tc, keys=(), attrs=(), options=()):
        self.tc = tc
        self.keys = dict(keys)
        self.attrs = dict(attrs)
        self.options = dict(options)    # outside "keys" (indev)


def mac_mask(bits):
    value = (1 << 48) - (1 << (48 - bits))
    return ':'.join('%02x' % b for b in value.to_bytes(6, 'big'))


def mac(word, addr, mask=None):
    """dst_mac, src_mac, arp_sha, arp_tha; mask: prefix bits or a MAC."""
    attr = {'dst_mac': 'ETH_DST', 'src_mac': 'ETH_SRC',
            'arp_sha': 'ARP_SHA', 'arp_tha': 'ARP_THA'}[word]
    text, attrs = addr, {attr: addr, attr + '_MASK': mac_mask(48)}
    if mask is not None:
        text = '%s/%s' % (addr, mask)
        attrs[attr + '_MASK'] = mac_mask(mask) if isinstance(mask, int) \
            else mask
    return Match('%s %s' % (word, text), {word: text}, attrs)


def ip_mask(plen, v6):
    size = 128 if v6 else 32
    value = (1 << size) - (1 << (size - plen))
    if not v6:
        return '.'.join(str(b) for b in value.to_bytes(4, 'big'))
    import ipaddress
    return str(ipaddress.IPv6Address(value))


def ip(word, addr, plen=None):
    """src_ip/dst_ip (IPv4 or IPv6 by the address), arp_sip/arp_tip."""
    v6 = ':' in addr
    if word.startswith('arp'):
        attr = 'ARP_' + word[4:].upper()
    else:
        attr = '%s_%s' % ('IPV6' if v6 else 'IPV4', word[:3].upper())
    text, attrs = addr, {attr: addr, attr + '_MASK': ip_mask(
        128 if v6 else 32, v6)}
    shown = addr
    if plen is not None:
        text = '%s/%d' % (addr, plen)
        attrs[attr + '_MASK'] = ip_mask(plen, v6)
        if plen < (128 if v6 else 32):      # tc prints no /32 (/128)
            shown = text
    return Match('%s %s' % (word, text), {word: shown}, attrs)


# the IP protocols tc's flower names (and prints by name; others in hex)
IP_PROTO = {n: uapi.IP_PROTO[n] for n in ('tcp', 'udp', 'sctp', 'icmp',
                                          'icmpv6')}


def ip_proto(name):
    """ip_proto tcp|udp|sctp|icmp|icmpv6, or a number in hex."""
    num = IP_PROTO.get(name, None)
    shown = name if num else '%02x' % int(name, 16)
    return Match('ip_proto ' + name, {'ip_proto': shown},
                 {'IP_PROTO': num or int(name, 16)})


def u8(word, value, mask=None):
    """ip_tos / ip_ttl: printed as a number, the mask in hex."""
    attr = {'ip_tos': 'IP_TOS', 'ip_ttl': 'IP_TTL'}[word]
    keys, attrs = {word: value}, {attr: value, attr + '_MASK': 0xff}
    text = '%s %s' % (word, value)
    if mask is not None:
        text += '/0x%x' % mask
        keys[word + '_mask'] = '%x' % mask
        attrs[attr + '_MASK'] = mask
    return Match(text, keys, attrs)


def port(word, l4, value, mask=None):
    """dst_port/src_port of the tcp, udp or sctp given by ip_proto."""
    attr = '%s_%s' % (l4.upper(), word[:3].upper())
    keys, attrs = {word: value}, {attr: value, attr + '_MASK': 0xffff}
    text = '%s %d' % (word, value)
    if mask is not None:
        text += '/0x%x' % mask
        keys[word + '_mask'] = '%x' % mask
        attrs[attr + '_MASK'] = mask
    return Match(text, keys, attrs)


def port_range(word, lo, hi):
    """dst_port/src_port LO-HI (any of tcp, udp, sctp by ip_proto): tc
    sends TCA_FLOWER_KEY_PORT_{DST,SRC}_{MIN,MAX}, tc -j prints
    {"start": LO, "end": HI}."""
    attr = 'PORT_%s_' % word[:3].upper()
    return Match('%s %d-%d' % (word, lo, hi),
                 {word: {'start': lo, 'end': hi}},
                 {attr + 'MIN': lo, attr + 'MAX': hi})


def tcp_flags(value, mask=None):
    """tc sends the 12-bit mask 0xfff when none is given."""
    shown = '0x%x/%x' % (value, 0xfff if mask is None else mask)
    text = 'tcp_flags 0x%x' % value + ('' if mask is None else '/0x%x' % mask)
    return Match(text, {'tcp_flags': shown},
                 {'TCP_FLAGS': value, 'TCP_FLAGS_MASK':
                  0xfff if mask is None else mask})


def icmp(word, v6, value, mask=None):
    """ICMP type/code (tc's words "type" and "code")."""
    attr = 'ICMPV%d_%s' % (6 if v6 else 4, word.upper())
    text = '%s %d' % (word, value) + ('' if mask is None else '/%d' % mask)
    keys = {'icmp_' + word: str(value) + ('' if mask is None
                                          else '/%d' % mask)}
    attrs = {attr: value, attr + '_MASK': 0xff if mask is None else mask}
    return Match(text, keys, attrs)


ARP_OPS = {'request': 1, 'reply': 2}


def arp_op(op, mask=None):
    num = ARP_OPS.get(op) or int(op)
    text = 'arp_op %s' % op + ('' if mask is None else '/%d' % mask)
    shown = op if mask is None else '%d/%d' % (num, mask)
    attrs = {'ARP_OP': num, 'ARP_OP_MASK': 0xff if mask is None else mask}
    return Match(text, {'arp_op': shown}, attrs)


def vlan_id(vid):
    return Match('vlan_id %d' % vid, {'vlan_id': vid}, {'VLAN_ID': vid})


def vlan_prio(prio):
    return Match('vlan_prio %d' % prio, {'vlan_prio': prio},
                 {'VLAN_PRIO': prio})


# vlan_ethtype/cvlan_ethtype: the number and the name tc prints
ETHTYPE = {n: (uapi.ETH_P[n], PROTO_NAME[n])
           for n in ('ip', 'ipv6', 'arp', '802.1q', '802.1ad', 'ppp_ses')}


def vlan_ethtype(name, word='vlan_ethtype', attr='VLAN_ETH_TYPE'):
    num, shown = ETHTYPE[name]
    return Match('%s %s' % (word, name), {word: shown}, {attr: num})


def cvlan_ethtype(name):
    return vlan_ethtype(name, 'cvlan_ethtype', 'CVLAN_ETH_TYPE')


def cvlan_id(vid):
    return Match('cvlan_id %d' % vid, {'cvlan_id': vid}, {'CVLAN_ID': vid})


def cvlan_prio(prio):
    return Match('cvlan_prio %d' % prio, {'cvlan_prio': prio},
                 {'CVLAN_PRIO': prio})


def num_of_vlans(n):
    return Match('num_of_vlans %d' % n, {'num_of_vlans': n},
                 {'NUM_OF_VLANS': n})


def ip_flags(text):
    """ip_flags frag/nofrag/firstfrag/nofirstfrag, '/'-separated."""
    shown = {}
    for word in text.split('/'):
        shown[word[2:] if word.startswith('no') else word] = \
            not word.startswith('no')
    return Match('ip_flags ' + text, {'ip_flags': shown})


def mpls_lse(label, tc, bos, ttl):
    """tc's mpls_label/mpls_tc/mpls_bos/mpls_ttl of the first entry."""
    return Match('mpls_label %d mpls_tc %d mpls_bos %d mpls_ttl %d'
                 % (label, tc, bos, ttl),
                 {'mpls_label': label, 'mpls_tc': str(tc),
                  'mpls_bos': str(bos), 'mpls_ttl': str(ttl)},
                 {'MPLS_LABEL': label, 'MPLS_TC': tc, 'MPLS_BOS': bos,
                  'MPLS_TTL': ttl})


def mpls_depth(depth, label, ttl):
    """mpls lse depth N label L ttl T (TCA_FLOWER_KEY_MPLS_OPTS)."""
    return Match('mpls lse depth %d label %d ttl %d' % (depth, label, ttl),
                 {'mpls': [{'depth': depth, 'label': label, 'ttl': ttl}]})


def pppoe_sid(sid):
    return Match('pppoe_sid %d' % sid, {'pppoe_sid': sid})


PPP_PROTO = uapi.PPP_PROTO


def ppp_proto(name):
    return Match('ppp_proto ' + name, {'ppp_proto': name},
                 {'PPP_PROTO': PPP_PROTO[name]})


def l2tpv3_sid(sid):
    return Match('l2tpv3_sid %d' % sid, {'l2tpv3_sid': sid})


def indev(dev):
    return Match('indev ' + dev, options={'indev': dev},
                 attrs={'INDEV': dev})
