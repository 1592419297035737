#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""generate.py - write the flower tdc corpus, tc-tests/filters/flower/*.json.

usage (from the repository root):
       python3 -m tc-tests.generate           (re)write the files
       python3 -m tc-tests.generate --check   exit 1 (and name them) if a
                                              file is not what this
                                              program writes

It writes only the files it lists in filters/flower/generated.sha256
(which it writes too): it refuses to overwrite or delete any other file,
or one of its own that was changed by hand.  Regression cases are written
by hand in filters/flower/regressions.json (see tc-tests/README.md).

The corpus tests our cls_flower (kernel/net/sched/cls_flower.c)
through stock iproute2 6.1 `tc ... flower` and, for what tc refuses to
build, through tdc/flowernl.py ($FLNL, raw netlink via pyroute2).

Most cases come from KEYS, a catalogue of key variants ("dst_ip /24 over
IPv4", "vlan_id + vlan_prio over 802.1Q", ...).  Each variant says how
tc spells it, what `tc -j filter show` prints for it, which netlink
attributes the kernel dumps, another value with the same mask, and
packets that match and that do not.  From a variant come its cases in
keys-<family> (add it and a same-mask second filter: the whole dump is
exactly what was given), replace, delete, get, flush, dump-roundtrip
($FLNL show) and packets-<family> (scapy frames counted exactly).  The
other themes (masks: several on one prio, templates, errors, handles,
actions, classid, scale) are written out one by one below.  Several
masks per prio, mask order and templates behave as in the stock 6.1
flower, the oracle for those cases.

Every case is one upstream tdc.py can run (tdc/corpus.py
upstream_problems(), checked by a unit test): one command per setup
entry, no &&, ;, || or $(...) that upstream's nsPlugin would run only in
part inside the case's namespace, matchJSON where the output is JSON.
Where a dump must be exactly what is given (no other key, no other
filter), the case adds "matchJSONExact": our tdc.py then wants the
parsed output equal to matchJSON; upstream ignores the field and matches
as it always does.  The few cases that need $FLNL (raw netlink) are in
category "flowernl" and depend on `$FLNL --help`: where $FLNL is not
defined they skip.

The guest is slow (TCG): tdc.py runs a case's setup commands in one
shell, there is no teardown for what nsPlugin's namespace deletion
removes anyway, and raw netlink requests are sent many per $FLNL
process (pyroute2 takes ~10 s to import there).

Case ids are the first 4 hex digits of sha1(name), re-hashed on a
collision (with any case in tc-tests/, basic.json included), so that an
id stays with its case when others are added.  Output is deterministic;
tdc/tests/test_corpus_generated.py fails when the committed files differ
from what this writes.
"""

import collections
import functools
import hashlib
import json
import os
import re
import shlex
import sys

from tdc import flower_attrs            # the TCA_FLOWER_* table

HERE = os.path.dirname(os.path.realpath(__file__))
OUT_DIR = os.path.join(HERE, 'filters', 'flower')

# Frames are sent on $DEV0 and arrive at $DEV1's ingress in the case's
# namespace.  The MACs are not $DEV1's (veth delivers them anyway) and no
# device in the guest uses them, so that nothing else ever matches.
DST_MAC = '02:00:00:00:00:01'
SRC_MAC = '02:00:00:00:00:02'
ETH_HLEN = 14           # ingress counts bytes from the network header on
VLAN_HLEN = 4           # the outer tag is taken out of the frame on receive

TCA_FLOWER_MAX = flower_attrs.MAX    # 105 in 6.1's pkt_cls.h

INGRESS = '$TC qdisc add dev $DEV1 ingress'
INGRESS_DEL = '$TC qdisc del dev $DEV1 ingress'
SHOW = '$TC -j filter show dev $DEV1 ingress'
SHOW_STATS = '$TC -s -j filter show dev $DEV1 ingress'


# One line of tc's plain filter dump per filter (the line of the instance
# has no handle).
FILTER_LINE = r'^filter [^\n]* handle 0x[0-9a-f]+\b'


def filters(n, dev='$DEV1'):
    """verifyCmd and match: exactly n filters on dev's ingress."""
    return dict(verify='$TC filter show dev %s ingress' % dev,
                pattern=FILTER_LINE, count=n)


def quote(word):
    """One shell word, in double quotes if it holds a single quote."""
    if "'" in word and not re.search(r'["$`\\]', word):
        return '"%s"' % word
    return shlex.quote(word)


FLNL_TIMEOUT = 300      # $FLNL imports pyroute2: ~10 s in a TCG guest, more
                        # on a busy host


# --- what tc prints ---------------------------------------------------------
# tc's name for the filter's protocol (the "protocol" of the dump) and what
# it prints as the flower key eth_type.
PROTO_NAME = {'ip': 'ip', 'ipv6': 'ipv6', 'arp': 'arp', 'rarp': 'rarp',
              '802.1q': '802.1Q', '802.1ad': '802.1ad', 'all': 'all',
              'mpls_uc': 'mpls_uc', 'ppp_ses': 'ppp_ses',
              '0x88b5': '[34997]'}
ETH_TYPE_KEY = {'ip': 'ipv4', 'ipv6': 'ipv6', 'arp': 'arp', 'rarp': 'rarp',
                '802.1q': '8100', '802.1ad': '88a8', '0x88b5': '88b5',
                'mpls_uc': '8847', 'ppp_ses': '8864'}
ETH_TYPE_NUM = {'ip': 0x0800, 'ipv6': 0x86dd, 'arp': 0x0806,
                'rarp': 0x8035, '802.1q': 0x8100, '802.1ad': 0x88a8,
                '0x88b5': 0x88b5, 'mpls_uc': 0x8847, 'ppp_ses': 0x8864}
ETH_TYPE_SHOWN = {ETH_TYPE_NUM[p]: ETH_TYPE_KEY[p] for p in ETH_TYPE_NUM}
# PPP protocol -> the ethertype the kernel keys (and dumps) for it
PPP_CARRIED = {0x21: 0x0800, 0x57: 0x86dd, 0x281: 0x8847, 0x283: 0x8848}
# The order in which tc 6.1 (flower_print_opt) prints the keys.
KEY_ORDER = ('num_of_vlans', 'vlan_id', 'vlan_prio', 'vlan_ethtype',
             'cvlan_id', 'cvlan_prio', 'cvlan_ethtype', 'dst_mac', 'src_mac',
             'eth_type', 'pppoe_sid', 'ppp_proto', 'mpls', 'mpls_label',
             'mpls_tc', 'mpls_bos', 'mpls_ttl', 'ip_flags', 'ip_proto', 'ip_tos', 'ip_tos_mask', 'ip_ttl',
             'ip_ttl_mask', 'dst_ip', 'src_ip', 'dst_port', 'dst_port_mask',
             'src_port', 'src_port_mask', 'tcp_flags', 'icmp_type',
             'icmp_code', 'arp_sip', 'arp_tip', 'arp_op', 'arp_sha',
             'arp_tha')


def compact(data):
    """JSON as tc -j writes it."""
    return json.dumps(data, separators=(',', ':'))


def rx(text):
    """`text` as a regular expression that matches it literally (unlike
    re.escape, leaves spaces alone: easier to read in the JSON)."""
    return re.sub(r'([\\.^$*+?{}\[\]|()])', r'\\\1', text)


# --- the keys: one constructor per kind of match ------------------------------
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


IP_PROTO = {'tcp': 6, 'udp': 17, 'sctp': 132, 'icmp': 1, 'icmpv6': 58}


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


ETHTYPE = {'ip': (0x0800, 'ip'), 'ipv6': (0x86dd, 'ipv6'),
           'arp': (0x0806, 'arp'), '802.1q': (0x8100, '802.1Q'),
           '802.1ad': (0x88a8, '802.1ad'), 'ppp_ses': (0x8864, 'ppp_ses')}


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


PPP_PROTO = {'ip': 0x21, 'ipv6': 0x57, 'mpls_uc': 0x281, 'mpls_mc': 0x283}


def ppp_proto(name):
    return Match('ppp_proto ' + name, {'ppp_proto': name},
                 {'PPP_PROTO': PPP_PROTO[name]})


def l2tpv3_sid(sid):
    return Match('l2tpv3_sid %d' % sid, {'l2tpv3_sid': sid})


def indev(dev):
    return Match('indev ' + dev, options={'indev': dev},
                 attrs={'INDEV': dev})


# --- packets (scapy expressions) ----------------------------------------------
def _fields(fields):
    return ','.join('%s=%r' % item for item in fields.items())


def ether(dst=DST_MAC, src=SRC_MAC, **fields):
    return 'Ether(%s)' % _fields(dict(dst=dst, src=src, **fields))


def layer(name, **fields):
    return '%s(%s)' % (name, _fields(fields))


def udp(sport=1000, dport=2000):
    return layer('UDP', sport=sport, dport=dport)


def ip4(l4=None, eth=None, **fields):
    fields = dict(dict(src='10.2.0.1', dst='10.1.0.1'), **fields)
    return '/'.join([eth or ether(), layer('IP', **fields), l4 or udp()])


def ip6(l4=None, eth=None, **fields):
    fields = dict(dict(src='2001:db8:2::1', dst='2001:db8:1::1'), **fields)
    return '/'.join([eth or ether(), layer('IPv6', **fields), l4 or udp()])


def arp_pkt(eth_type=None, **fields):
    fields = dict(dict(op=1, hwsrc=SRC_MAC, psrc='10.0.0.1',
                       hwdst='00:00:00:00:00:00', pdst='10.0.0.2'), **fields)
    eth = ether(dst='ff:ff:ff:ff:ff:ff') if eth_type is None else \
        ether(dst='ff:ff:ff:ff:ff:ff', type=eth_type)
    return eth + '/' + layer('ARP', **fields)


def dot1q(inner=None, tpid=None, **tag):
    """A frame with one VLAN tag (802.1Q, or 802.1ad with tpid)."""
    tag = dict(dict(vlan=10), **tag)
    name = 'Dot1AD' if tpid == 0x88a8 else 'Dot1Q'
    return '/'.join([ether(), layer(name, **tag),
                     inner or layer('IP', src='10.2.0.1', dst='10.1.0.1'),
                     udp()])


def tags(*tagspec, inner=None):
    """A frame with VLAN tags given as (tpid, vid, prio), outermost
    first, then `inner` (default IPv4/UDP)."""
    layers = [ether()]
    for tpid, vid, prio in tagspec:
        layers.append(layer('Dot1AD' if tpid == 0x88a8 else 'Dot1Q',
                            vlan=vid, prio=prio))
    layers.append(inner or '/'.join([
        layer('IP', src='10.2.0.1', dst='10.1.0.1'), udp()]))
    return '/'.join(layers)


def mpls_frame(*lses):
    """An MPLS unicast frame with label stack entries (label, tc, ttl);
    the last one has the bottom-of-stack bit."""
    data = b''
    for i, (label, tc, ttl) in enumerate(lses):
        bos = 1 if i == len(lses) - 1 else 0
        data += ((label << 12) | (tc << 9) | (bos << 8) | ttl).to_bytes(
            4, 'big')
    return '%s/Raw(load=%r)' % (ether(type=0x8847), data + b'\x45' + bytes(19))


def l2tp(sid):
    """L2TPv3 over IP: the session id is the first word after IP."""
    return ip4(proto=115, l4='Raw(load=%r)' % (sid.to_bytes(4, 'big') +
                                              bytes(8)))


def pppoe(sid, proto=0x21, inner=None):
    """PPPoE session; the PPP protocol uncompressed (2 bytes: scapy's
    PPP layer compresses it to one, which neither flower matches)."""
    return '/'.join([layer('PPPoE', sessionid=sid),
                     'Raw(load=%r)' % proto.to_bytes(2, 'big'),
                     inner or '/'.join([layer('IP', src='10.2.0.1',
                                              dst='10.1.0.1'), udp()])])


def raw_frame(eth_type, size=32):
    return '%s/Raw(load=b%r)' % (ether(type=eth_type), 'x' * size)


_SCAPY = None


def ingress_bytes(packet):
    """What an action at $DEV1's ingress counts for `packet`: the frame
    without its Ethernet header (and without the outer VLAN tag, which
    the receive path moves out of the frame)."""
    global _SCAPY
    if _SCAPY is None:
        import scapy.all
        _SCAPY = vars(scapy.all)
    frame = eval(packet, _SCAPY)
    size = len(frame) - ETH_HLEN
    if frame.type in (0x8100, 0x88a8):
        size -= VLAN_HLEN
    return size


def frame_bytes(packet):
    global _SCAPY
    ingress_bytes(packet)           # imports scapy
    return len(eval(packet, _SCAPY))


# --- the key catalogue --------------------------------------------------------
class Variant:
    """A filter's protocol and matches, another value with the same mask
    (alt), packets that match (hit) and that do not (miss)."""

    def __init__(self, family, label, proto, matches, alt, hit, miss,
                 setup=(), tc_prints=True):
        self.family, self.label, self.proto = family, label, proto
        self.matches, self.alt = matches, alt
        self.hit, self.miss = hit, miss
        self.setup = list(setup)
        # tc 6.1 prints IP addresses and ICMP keys only when eth_type is
        # ip/ipv6: not for a VLAN filter's inner ones
        self.tc_prints = tc_prints

    @property
    def title(self):
        return '%s (%s)' % (self.label, self.family)

    def words(self, alt=False):
        return ' '.join(m.tc for m in (self.alt if alt else self.matches))

    def eth_type(self, alt=False):
        """The TCA_FLOWER_KEY_ETH_TYPE the kernel dumps, or None.  For a
        filter with VLAN tags (a TPID protocol, or num_of_vlans) it is
        the innermost ethertype, as in the tree's flower: none when the
        tags are all the filter gives."""
        attrs = {}
        for m in self.alt if alt else self.matches:
            attrs.update(m.attrs)
        if self.proto not in ('802.1q', '802.1ad') and \
                not attrs.get('NUM_OF_VLANS'):
            return ETH_TYPE_NUM.get(self.proto)
        inner = attrs.get('CVLAN_ETH_TYPE', attrs.get('VLAN_ETH_TYPE'))
        if inner in (0x8100, 0x88a8):
            return None
        if inner == 0x8864:
            return PPP_CARRIED.get(attrs.get('PPP_PROTO'))
        return inner

    def keys(self, alt=False):
        found = {}
        eth_type = self.eth_type(alt)
        if eth_type is not None:
            found['eth_type'] = ETH_TYPE_SHOWN.get(eth_type,
                                                   '%04x' % eth_type)
        for m in self.alt if alt else self.matches:
            found.update(m.keys)
        return {k: found[k] for k in KEY_ORDER if k in found}

    def options(self, handle, alt=False):
        """The "options" of tc -j filter show for the filter."""
        opts = {'handle': handle}
        for m in self.alt if alt else self.matches:
            opts.update(m.options)
        opts['keys'] = self.keys(alt)
        opts['not_in_hw'] = True
        return opts

    def attrs(self, alt=False):
        """The attributes the kernel dumps, as $FLNL show names them."""
        found = {}
        if self.eth_type(alt) is not None:
            found['TCA_FLOWER_KEY_ETH_TYPE'] = self.eth_type(alt)
        for m in self.alt if alt else self.matches:
            for name, value in m.attrs.items():
                found[('TCA_FLOWER_' if name == 'INDEV' else
                       'TCA_FLOWER_KEY_') + name] = value
        found['TCA_FLOWER_FLAGS'] = 8           # TCA_CLS_FLAGS_NOT_IN_HW
        return found

    def masked(self):
        return any('/' in m.tc for m in self.matches)


def V(*args, **kwargs):
    return Variant(*args, **kwargs)


def _cat():
    """The catalogue, family by family."""
    eth, v4, v6, l4 = [], [], [], []
    # --- Ethernet addresses and type
    for word, other in (('dst_mac', 'dst'), ('src_mac', 'src')):
        def frame(addr, other=other):
            return raw_frame(0x88b5) if addr is None else \
                raw_frame(0x88b5).replace(
                    "%s=%r" % (other, DST_MAC if other == 'dst' else SRC_MAC),
                    "%s=%r" % (other, addr))
        eth += [
            V('eth', word + ' exact', 'all',
              [mac(word, '02:00:00:00:aa:01')],
              [mac(word, '02:00:00:00:aa:02')],
              [frame('02:00:00:00:aa:01')], [frame('02:00:00:00:aa:03')]),
            V('eth', word + ' /40 prefix', 'all',
              [mac(word, '02:00:00:00:ab:00', 40)],
              [mac(word, '02:00:00:00:ac:00', 40)],
              [frame('02:00:00:00:ab:00'), frame('02:00:00:00:ab:7f')],
              [frame('02:00:00:00:ad:00')]),
            V('eth', word + ' non-contiguous mask', 'all',
              [mac(word, '02:00:00:00:00:0c', 'ff:ff:00:00:00:ff')],
              [mac(word, '02:00:00:00:00:0d', 'ff:ff:00:00:00:ff')],
              [frame('02:00:12:34:56:0c'), frame('02:00:00:00:00:0c')],
              [frame('02:00:00:00:00:0e'), frame('02:01:00:00:00:0c')]),
        ]
    eth += [
        V('eth', 'dst_mac and src_mac over IPv4', 'ip',
          [mac('dst_mac', '02:00:00:00:bb:01'),
           mac('src_mac', '02:00:00:00:bb:02')],
          [mac('dst_mac', '02:00:00:00:bb:03'),
           mac('src_mac', '02:00:00:00:bb:04')],
          [ip4(eth=ether('02:00:00:00:bb:01', '02:00:00:00:bb:02'))],
          [ip4(eth=ether('02:00:00:00:bb:01', '02:00:00:00:bb:04')),
           ip4(eth=ether('02:00:00:00:bb:03', '02:00:00:00:bb:02'))]),
        V('eth', 'eth_type 0x88b5 alone', '0x88b5', [], [],
          [raw_frame(0x88b5)], [raw_frame(0x88b6)]),
        V('eth', 'indev with src_mac', 'all',
          [indev('flin0'), mac('src_mac', '02:00:00:00:cc:01')],
          [indev('flin0'), mac('src_mac', '02:00:00:00:cc:02')],
          [], [], setup=['$IP link add flin0 type dummy']),
    ]
    # --- IPv4 addresses
    v4 += [
        V('ipv4', 'dst_ip exact', 'ip', [ip('dst_ip', '10.1.0.1')],
          [ip('dst_ip', '10.1.0.2')],
          [ip4(dst='10.1.0.1')], [ip4(dst='10.1.0.3')]),
        V('ipv4', 'dst_ip /24', 'ip', [ip('dst_ip', '10.1.0.0', 24)],
          [ip('dst_ip', '10.1.7.0', 24)],
          [ip4(dst='10.1.0.1'), ip4(dst='10.1.0.254')],
          [ip4(dst='10.1.1.1')]),
        V('ipv4', 'dst_ip /8', 'ip', [ip('dst_ip', '10.0.0.0', 8)],
          [ip('dst_ip', '11.0.0.0', 8)],
          [ip4(dst='10.200.3.4')], [ip4(dst='12.0.0.1')]),
        V('ipv4', 'dst_ip /27 with host bits in the key', 'ip',
          [ip('dst_ip', '10.1.0.33', 27)], [ip('dst_ip', '10.1.0.65', 27)],
          [ip4(dst='10.1.0.63'), ip4(dst='10.1.0.32')],
          [ip4(dst='10.1.0.64')]),
        V('ipv4', 'src_ip exact', 'ip', [ip('src_ip', '192.168.7.1')],
          [ip('src_ip', '192.168.7.2')],
          [ip4(src='192.168.7.1')], [ip4(src='192.168.7.3')]),
        V('ipv4', 'src_ip /16', 'ip', [ip('src_ip', '192.168.0.0', 16)],
          [ip('src_ip', '192.169.0.0', 16)],
          [ip4(src='192.168.44.1')], [ip4(src='192.170.0.1')]),
        V('ipv4', 'src_ip and dst_ip exact', 'ip',
          [ip('dst_ip', '10.1.0.2'), ip('src_ip', '10.2.0.2')],
          [ip('dst_ip', '10.1.0.3'), ip('src_ip', '10.2.0.3')],
          [ip4(src='10.2.0.2', dst='10.1.0.2')],
          [ip4(src='10.2.0.3', dst='10.1.0.2'),
           ip4(src='10.2.0.2', dst='10.1.0.3')]),
        V('ipv4', 'src_ip /12 and dst_ip /28', 'ip',
          [ip('dst_ip', '10.9.9.0', 28), ip('src_ip', '172.16.0.0', 12)],
          [ip('dst_ip', '10.9.9.16', 28), ip('src_ip', '172.32.0.0', 12)],
          [ip4(src='172.31.1.1', dst='10.9.9.15')],
          [ip4(src='172.31.1.1', dst='10.9.9.16'),
           ip4(src='172.15.1.1', dst='10.9.9.1')]),
    ]
    # --- IPv6 addresses
    v6 += [
        V('ipv6', 'dst_ip exact', 'ipv6', [ip('dst_ip', '2001:db8:1::1')],
          [ip('dst_ip', '2001:db8:1::2')],
          [ip6(dst='2001:db8:1::1')], [ip6(dst='2001:db8:1::3')]),
        V('ipv6', 'dst_ip /64', 'ipv6',
          [ip('dst_ip', '2001:db8:1:1::', 64)],
          [ip('dst_ip', '2001:db8:1:2::', 64)],
          [ip6(dst='2001:db8:1:1::1'), ip6(dst='2001:db8:1:1:ffff::9')],
          [ip6(dst='2001:db8:1:3::1')]),
        V('ipv6', 'dst_ip /48', 'ipv6', [ip('dst_ip', '2001:db8:5::', 48)],
          [ip('dst_ip', '2001:db8:6::', 48)],
          [ip6(dst='2001:db8:5:77::1')], [ip6(dst='2001:db8:7::1')]),
        V('ipv6', 'dst_ip /120 with host bits in the key', 'ipv6',
          [ip('dst_ip', '2001:db8::1:1', 120)],
          [ip('dst_ip', '2001:db8::2:1', 120)],
          [ip6(dst='2001:db8::1:ff')], [ip6(dst='2001:db8::2:1')]),
        V('ipv6', 'src_ip exact', 'ipv6', [ip('src_ip', '2001:db8:2::7')],
          [ip('src_ip', '2001:db8:2::8')],
          [ip6(src='2001:db8:2::7')], [ip6(src='2001:db8:2::9')]),
        V('ipv6', 'src_ip /8', 'ipv6', [ip('src_ip', 'fd00::', 8)],
          [ip('src_ip', 'fc00::', 8)],
          [ip6(src='fd12:3456::1')], [ip6(src='fe80::1')]),
        V('ipv6', 'src_ip /56 and dst_ip exact', 'ipv6',
          [ip('dst_ip', '2001:db8:1::5'), ip('src_ip', '2001:db8:2::', 56)],
          [ip('dst_ip', '2001:db8:1::6'), ip('src_ip', '2001:db8:3::', 56)],
          [ip6(src='2001:db8:2:ff::1', dst='2001:db8:1::5')],
          [ip6(src='2001:db8:2:100::1', dst='2001:db8:1::5'),
           ip6(src='2001:db8:2::1', dst='2001:db8:1::6')]),
    ]
    # --- ip_proto (an ICMPv6-only filter would count the guest's own
    # neighbour discovery and MLD frames: it has no packets)
    tcp4 = layer('TCP', sport=1000, dport=2000)
    ipp = []
    for proto, pkt in (('ip', ip4), ('ipv6', ip6)):
        ipp += [
            V('ip_proto', proto + ' ip_proto tcp', proto,
              [ip_proto('tcp')], [ip_proto('udp')],
              [pkt(l4=tcp4)], [pkt(), pkt(l4=layer('SCTP', sport=1,
                                                   dport=2))]),
            V('ip_proto', proto + ' ip_proto udp', proto,
              [ip_proto('udp')], [ip_proto('sctp')],
              [pkt()], [pkt(l4=tcp4)]),
            V('ip_proto', proto + ' ip_proto sctp', proto,
              [ip_proto('sctp')], [ip_proto('tcp')],
              [pkt(l4=layer('SCTP', sport=1, dport=2))], [pkt()]),
        ]
    ipp += [
        V('ip_proto', 'ip ip_proto icmp', 'ip', [ip_proto('icmp')],
          [ip_proto('tcp')], [ip4(l4=layer('ICMP'))], [ip4(l4=tcp4)]),
        V('ip_proto', 'ip ip_proto 0x59 (OSPF) by number', 'ip',
          [ip_proto('59')], [ip_proto('58')],
          [ip4(l4=layer('Raw', load=b'ospf'), proto=89)],
          [ip4(), ip4(l4=layer('Raw', load=b'eigrp'), proto=88)]),
        # the outer header decides, as in stock flower (which dissects
        # with FLOW_DISSECTOR_F_STOP_BEFORE_ENCAP): the GRE-encapsulated
        # UDP inside must not make the frame look like UDP
        V('ip_proto', 'ip ip_proto 0x2f (GRE) on an IPv4-in-GRE frame', 'ip',
          [ip_proto('2f')], [ip_proto('2e')],
          [ip4(l4=layer('GRE', proto=0x0800) + '/' + layer(
              'IP', src='192.0.2.1', dst='192.0.2.2') + '/' + udp())],
          [ip4()]),
        V('ip_proto', 'ipv6 ip_proto icmpv6', 'ipv6', [ip_proto('icmpv6')],
          [ip_proto('udp')], [], []),
    ]
    # --- ports
    for l4name in ('tcp', 'udp', 'sctp'):
        def seg(sport=1000, dport=2000, l4name=l4name):
            return layer(l4name.upper(), sport=sport, dport=dport)
        for word in ('dst_port', 'src_port'):
            def pk(v, word=word, seg=seg, pkt=ip4):
                return pkt(l4=seg(**{word[:1] + 'port': v}))
            l4 += [
                V('ports', '%s %s exact' % (l4name, word), 'ip',
                  [ip_proto(l4name), port(word, l4name, 80)],
                  [ip_proto(l4name), port(word, l4name, 443)],
                  [pk(80)], [pk(81), pk(443)]),
                V('ports', '%s %s masked 0x1000/0xff00' % (l4name, word),
                  'ip', [ip_proto(l4name), port(word, l4name, 0x1000,
                                                0xff00)],
                  [ip_proto(l4name), port(word, l4name, 0x2000, 0xff00)],
                  [pk(0x1000), pk(0x10ff)], [pk(0x1100), pk(0x2000)]),
            ]
    l4 += [
        V('ports', 'ipv6 tcp dst_port exact', 'ipv6',
          [ip_proto('tcp'), port('dst_port', 'tcp', 22)],
          [ip_proto('tcp'), port('dst_port', 'tcp', 23)],
          [ip6(l4=layer('TCP', dport=22))],
          [ip6(l4=layer('TCP', dport=23)), ip6(l4=layer('UDP', dport=22))]),
        V('ports', 'ipv6 udp src_port masked', 'ipv6',
          [ip_proto('udp'), port('src_port', 'udp', 0x4000, 0xf000)],
          [ip_proto('udp'), port('src_port', 'udp', 0x5000, 0xf000)],
          [ip6(l4=layer('UDP', sport=0x4abc))],
          [ip6(l4=layer('UDP', sport=0x5abc))]),
        V('ports', 'ipv6 sctp src_port and dst_port', 'ipv6',
          [ip_proto('sctp'), port('dst_port', 'sctp', 3868),
           port('src_port', 'sctp', 5000)],
          [ip_proto('sctp'), port('dst_port', 'sctp', 3869),
           port('src_port', 'sctp', 5001)],
          [ip6(l4=layer('SCTP', sport=5000, dport=3868))],
          [ip6(l4=layer('SCTP', sport=5001, dport=3868))]),
        V('ports', 'tcp src_port and dst_port', 'ip',
          [ip_proto('tcp'), port('dst_port', 'tcp', 8080),
           port('src_port', 'tcp', 40000)],
          [ip_proto('tcp'), port('dst_port', 'tcp', 8081),
           port('src_port', 'tcp', 40001)],
          [ip4(l4=layer('TCP', sport=40000, dport=8080))],
          [ip4(l4=layer('TCP', sport=40000, dport=8081)),
           ip4(l4=layer('TCP', sport=40001, dport=8080))]),
    ]
    # --- TOS / TTL
    tos = [
        V('tos_ttl', 'ip ip_tos exact', 'ip', [u8('ip_tos', 16)],
          [u8('ip_tos', 32)], [ip4(tos=16)], [ip4(tos=20), ip4(tos=32)]),
        V('tos_ttl', 'ip ip_tos masked', 'ip', [u8('ip_tos', 32, 0xe0)],
          [u8('ip_tos', 64, 0xe0)], [ip4(tos=0x20), ip4(tos=0x3f)],
          [ip4(tos=0x40)]),
        V('tos_ttl', 'ip ip_ttl exact', 'ip', [u8('ip_ttl', 64)],
          [u8('ip_ttl', 65)], [ip4(ttl=64)], [ip4(ttl=63)]),
        V('tos_ttl', 'ip ip_ttl masked', 'ip', [u8('ip_ttl', 64, 0xf0)],
          [u8('ip_ttl', 128, 0xf0)], [ip4(ttl=64), ip4(ttl=79)],
          [ip4(ttl=80)]),
        V('tos_ttl', 'ipv6 ip_tos (traffic class) exact', 'ipv6',
          [u8('ip_tos', 40)], [u8('ip_tos', 48)], [ip6(tc=40)],
          [ip6(tc=41)]),
        V('tos_ttl', 'ipv6 ip_tos masked', 'ipv6',
          [u8('ip_tos', 128, 0xc0)], [u8('ip_tos', 64, 0xc0)],
          [ip6(tc=0x80), ip6(tc=0xbf)], [ip6(tc=0x40)]),
        V('tos_ttl', 'ipv6 ip_ttl (hop limit) exact', 'ipv6',
          [u8('ip_ttl', 77)], [u8('ip_ttl', 78)], [ip6(hlim=77)],
          [ip6(hlim=76)]),
        V('tos_ttl', 'ip ip_tos and ip_ttl', 'ip',
          [u8('ip_tos', 8), u8('ip_ttl', 32)],
          [u8('ip_tos', 4), u8('ip_ttl', 33)],
          [ip4(tos=8, ttl=32)], [ip4(tos=8, ttl=33), ip4(tos=4, ttl=32)]),
    ]
    # --- TCP flags
    def tcp(flags, pkt=ip4):
        return pkt(l4=layer('TCP', sport=1000, dport=2000, flags=flags))
    tf = [
        V('tcp_flags', 'ip tcp_flags SYN (default mask 0xfff)', 'ip',
          [ip_proto('tcp'), tcp_flags(0x2)], [ip_proto('tcp'),
                                               tcp_flags(0x12)],
          [tcp('S')], [tcp('SA'), tcp('A')]),
        V('tcp_flags', 'ip tcp_flags ACK without SYN (mask 0x12)', 'ip',
          [ip_proto('tcp'), tcp_flags(0x10, 0x12)],
          [ip_proto('tcp'), tcp_flags(0x02, 0x12)],
          [tcp('A'), tcp('PA')], [tcp('SA'), tcp('S')]),
        V('tcp_flags', 'ipv6 tcp_flags FIN (mask 0x1)', 'ipv6',
          [ip_proto('tcp'), tcp_flags(0x1, 0x1)],
          [ip_proto('tcp'), tcp_flags(0x0, 0x1)],
          [tcp('FA', ip6)], [tcp('A', ip6)]),
    ]
    # --- ICMP
    def icmp4(**f):
        return ip4(l4=layer('ICMP', **f))

    def icmp6(name, **f):
        return ip6(l4=layer(name, **f))
    ic = [
        V('icmp', 'icmp type 8', 'ip',
          [ip_proto('icmp'), icmp('type', False, 8)],
          [ip_proto('icmp'), icmp('type', False, 0)],
          [icmp4(type=8)], [icmp4(type=0), icmp4(type=13)]),
        V('icmp', 'icmp type 3 code 3', 'ip',
          [ip_proto('icmp'), icmp('type', False, 3),
           icmp('code', False, 3)],
          [ip_proto('icmp'), icmp('type', False, 3),
           icmp('code', False, 1)],
          [icmp4(type=3, code=3)],
          [icmp4(type=3, code=1), icmp4(type=11, code=3)]),
        V('icmp', 'icmp code 1 alone', 'ip',
          [ip_proto('icmp'), icmp('code', False, 1)],
          [ip_proto('icmp'), icmp('code', False, 2)],
          [icmp4(type=3, code=1), icmp4(type=11, code=1)],
          [icmp4(type=3, code=2)]),
        V('icmp', 'icmp type masked 8/252', 'ip',
          [ip_proto('icmp'), icmp('type', False, 8, 252)],
          [ip_proto('icmp'), icmp('type', False, 12, 252)],
          [icmp4(type=8), icmp4(type=11)], [icmp4(type=12)]),
        V('icmp', 'icmpv6 type 128 (echo request)', 'ipv6',
          [ip_proto('icmpv6'), icmp('type', True, 128)],
          [ip_proto('icmpv6'), icmp('type', True, 129)],
          [icmp6('ICMPv6EchoRequest')], [icmp6('ICMPv6EchoReply')]),
        V('icmp', 'icmpv6 type 1 code 4', 'ipv6',
          [ip_proto('icmpv6'), icmp('type', True, 1),
           icmp('code', True, 4)],
          [ip_proto('icmpv6'), icmp('type', True, 1),
           icmp('code', True, 3)],
          [icmp6('ICMPv6DestUnreach', code=4)],
          [icmp6('ICMPv6DestUnreach', code=3)]),
        V('icmp', 'icmpv6 code masked 1/1', 'ipv6',
          [ip_proto('icmpv6'), icmp('code', True, 1, 1)],
          [ip_proto('icmpv6'), icmp('code', True, 0, 1)],
          [icmp6('ICMPv6DestUnreach', code=1),
           icmp6('ICMPv6DestUnreach', code=3)],
          [icmp6('ICMPv6DestUnreach', code=4)]),
    ]
    # --- ARP / RARP
    ar = [
        V('arp', 'arp_op request', 'arp', [arp_op('request')],
          [arp_op('reply')], [arp_pkt(op=1)], [arp_pkt(op=2)]),
        V('arp', 'arp_op reply', 'arp', [arp_op('reply')],
          [arp_op('request')], [arp_pkt(op=2)], [arp_pkt(op=1)]),
        V('arp', 'arp_op masked 1/1', 'arp', [arp_op('1', 1)],
          [arp_op('0', 1)], [arp_pkt(op=1)], [arp_pkt(op=2)]),
        V('arp', 'arp_sip exact', 'arp', [ip('arp_sip', '10.0.0.1')],
          [ip('arp_sip', '10.0.0.5')], [arp_pkt(psrc='10.0.0.1')],
          [arp_pkt(psrc='10.0.0.9')]),
        V('arp', 'arp_sip /24', 'arp', [ip('arp_sip', '10.3.3.0', 24)],
          [ip('arp_sip', '10.3.4.0', 24)], [arp_pkt(psrc='10.3.3.200')],
          [arp_pkt(psrc='10.3.5.1')]),
        V('arp', 'arp_tip exact', 'arp', [ip('arp_tip', '10.0.0.254')],
          [ip('arp_tip', '10.0.0.253')], [arp_pkt(pdst='10.0.0.254')],
          [arp_pkt(pdst='10.0.0.252')]),
        V('arp', 'arp_tip /16', 'arp', [ip('arp_tip', '10.4.0.0', 16)],
          [ip('arp_tip', '10.5.0.0', 16)], [arp_pkt(pdst='10.4.200.1')],
          [arp_pkt(pdst='10.6.0.1')]),
        V('arp', 'arp_sha exact', 'arp',
          [mac('arp_sha', '02:00:00:00:dd:01')],
          [mac('arp_sha', '02:00:00:00:dd:02')],
          [arp_pkt(hwsrc='02:00:00:00:dd:01')],
          [arp_pkt(hwsrc='02:00:00:00:dd:03')]),
        V('arp', 'arp_sha /24', 'arp',
          [mac('arp_sha', '02:00:01:00:00:00', 24)],
          [mac('arp_sha', '02:00:02:00:00:00', 24)],
          [arp_pkt(hwsrc='02:00:01:12:34:56')],
          [arp_pkt(hwsrc='02:00:03:00:00:01')]),
        V('arp', 'arp_tha exact', 'arp',
          [mac('arp_tha', '02:00:00:00:ee:01')],
          [mac('arp_tha', '02:00:00:00:ee:02')],
          [arp_pkt(op=2, hwdst='02:00:00:00:ee:01')],
          [arp_pkt(op=2, hwdst='02:00:00:00:ee:03')]),
        V('arp', 'arp_tha non-contiguous mask', 'arp',
          [mac('arp_tha', '02:00:00:00:00:0f', 'ff:00:00:00:00:ff')],
          [mac('arp_tha', '02:00:00:00:00:1f', 'ff:00:00:00:00:ff')],
          [arp_pkt(op=2, hwdst='02:ab:cd:ef:00:0f')],
          [arp_pkt(op=2, hwdst='02:00:00:00:00:1f')]),
        V('arp', 'arp request from 10.0.0.1/32 for 10.0.0.0/24', 'arp',
          [arp_op('request'), ip('arp_sip', '10.7.0.1', 32),
           ip('arp_tip', '10.7.1.0', 24)],
          [arp_op('request'), ip('arp_sip', '10.7.0.2', 32),
           ip('arp_tip', '10.7.1.0', 24)],
          [arp_pkt(psrc='10.7.0.1', pdst='10.7.1.9')],
          [arp_pkt(op=2, psrc='10.7.0.1', pdst='10.7.1.9'),
           arp_pkt(psrc='10.7.0.1', pdst='10.7.2.9')]),
        V('arp', 'rarp arp_tip', 'rarp', [ip('arp_tip', '10.0.7.0', 24)],
          [ip('arp_tip', '10.0.8.0', 24)],
          # the flow dissector takes only opcodes 1 and 2, also in RARP
          [arp_pkt(eth_type=0x8035, op=1, pdst='10.0.7.7')],
          [arp_pkt(eth_type=0x8035, op=1, pdst='10.0.9.7'),
           arp_pkt(op=1, pdst='10.0.7.7')]),
    ]
    # --- VLAN
    vl = [
        V('vlan', '802.1q vlan_id', '802.1q', [vlan_id(10)], [vlan_id(11)],
          [dot1q(vlan=10)], [dot1q(vlan=11), ip4()]),
        V('vlan', '802.1q vlan_prio', '802.1q', [vlan_prio(5)],
          [vlan_prio(4)], [dot1q(vlan=1, prio=5)], [dot1q(vlan=1, prio=4)]),
        V('vlan', '802.1q vlan_id and vlan_prio', '802.1q',
          [vlan_id(100), vlan_prio(3)], [vlan_id(101), vlan_prio(2)],
          [dot1q(vlan=100, prio=3)],
          [dot1q(vlan=100, prio=2), dot1q(vlan=101, prio=3)]),
        V('vlan', '802.1q vlan_id 4095', '802.1q', [vlan_id(4095)],
          [vlan_id(4094)], [dot1q(vlan=4095)], [dot1q(vlan=4094)]),
        V('vlan', '802.1q vlan_ethtype ipv6', '802.1q',
          [vlan_ethtype('ipv6')], [vlan_ethtype('arp')],
          [dot1q(inner=layer('IPv6', src='2001:db8:2::1',
                             dst='2001:db8:1::1'))],
          [dot1q()]),
        V('vlan', '802.1q vlan_id with vlan_ethtype ip and dst_ip', '802.1q',
          [vlan_id(20), vlan_ethtype('ip'), ip('dst_ip', '10.1.0.5')],
          [vlan_id(21), vlan_ethtype('ip'), ip('dst_ip', '10.1.0.5')],
          [dot1q(vlan=20, inner=layer('IP', src='10.2.0.1',
                                      dst='10.1.0.5'))],
          [dot1q(vlan=20, inner=layer('IP', src='10.2.0.1',
                                      dst='10.1.0.6')),
           dot1q(vlan=21, inner=layer('IP', src='10.2.0.1',
                                      dst='10.1.0.5'))]),
        V('vlan', '802.1ad vlan_id', '802.1ad', [vlan_id(30)],
          [vlan_id(31)], [dot1q(vlan=30, tpid=0x88a8)],
          [dot1q(vlan=31, tpid=0x88a8), dot1q(vlan=30)]),
        V('vlan', '802.1ad vlan_prio and vlan_ethtype ip', '802.1ad',
          [vlan_prio(7), vlan_ethtype('ip')],
          [vlan_prio(6), vlan_ethtype('ip')],
          [dot1q(vlan=3, prio=7, tpid=0x88a8)],
          [dot1q(vlan=3, prio=6, tpid=0x88a8)]),
    ]
    # --- IP flags (fragments)
    first, later = ip4(flags='MF'), ip4(frag=185)
    fl = [
        V('ip_flags', 'ip ip_flags frag', 'ip', [ip_flags('frag')],
          [ip_flags('nofrag')], [first, later], [ip4()]),
        V('ip_flags', 'ip ip_flags nofrag', 'ip', [ip_flags('nofrag')],
          [ip_flags('frag')], [ip4()], [first, later]),
        V('ip_flags', 'ip ip_flags firstfrag', 'ip',
          [ip_flags('firstfrag')], [ip_flags('nofirstfrag')], [first],
          [later, ip4()]),
        V('ip_flags', 'ip ip_flags frag/nofirstfrag (later fragments)', 'ip',
          [ip_flags('frag/nofirstfrag')], [ip_flags('frag/firstfrag')],
          [later], [first, ip4()]),
    ]
    # --- QinQ and the number of tags
    ad, q = 0x88a8, 0x8100
    qq = [
        V('qinq', '802.1ad cvlan_id, cvlan_prio and cvlan_ethtype', '802.1ad',
          [vlan_id(100), vlan_ethtype('802.1q'), cvlan_id(200),
           cvlan_prio(3), cvlan_ethtype('ip')],
          [vlan_id(100), vlan_ethtype('802.1q'), cvlan_id(201),
           cvlan_prio(3), cvlan_ethtype('ip')],
          [tags((ad, 100, 0), (q, 200, 3))],
          [tags((ad, 100, 0), (q, 201, 3)), tags((ad, 100, 0), (q, 200, 2)),
           tags((ad, 101, 0), (q, 200, 3)), tags((ad, 100, 0))]),
        # regression: vlan_ethtype is the ethertype right after the outer
        # tag, not the innermost one (ours once counted this QinQ frame)
        V('qinq', '802.1ad vlan_ethtype ip does not match a QinQ frame '
          'carrying IPv4', '802.1ad', [vlan_id(100), vlan_ethtype('ip')],
          [vlan_id(101), vlan_ethtype('ip')], [tags((ad, 100, 0))],
          [tags((ad, 100, 0), (q, 200, 0))]),
        V('qinq', '802.1q num_of_vlans 2 and vlan_id', '802.1q',
          [num_of_vlans(2), vlan_id(10)], [num_of_vlans(2), vlan_id(11)],
          [tags((q, 10, 0), (q, 20, 0))],
          [tags((q, 10, 0)), tags((q, 11, 0), (q, 20, 0))]),
    ]
    # --- MPLS
    mp = [
        V('mpls', 'mpls_uc label, tc, bos and ttl', 'mpls_uc',
          [mpls_lse(100, 3, 1, 64)], [mpls_lse(101, 3, 1, 64)],
          [mpls_frame((100, 3, 64))],
          [mpls_frame((101, 3, 64)), mpls_frame((100, 3, 63)),
           mpls_frame((100, 2, 64)), mpls_frame((100, 3, 64), (5, 0, 1))]),
        V('mpls', 'mpls_uc lse depth 2 (label on the wrong depth misses)',
          'mpls_uc', [mpls_depth(2, 200, 10)], [mpls_depth(2, 201, 10)],
          [mpls_frame((1, 0, 5), (200, 0, 10))],
          [mpls_frame((200, 0, 10)), mpls_frame((1, 0, 5), (201, 0, 10)),
           mpls_frame((200, 0, 10), (1, 0, 5))]),
    ]
    # --- PPPoE
    v6in = '/'.join([layer('IPv6', src='2001:db8:2::1',
                           dst='2001:db8:1::1'), udp()])
    pp = [
        V('pppoe', 'ppp_ses pppoe_sid and ppp_proto ip', 'ppp_ses',
          [pppoe_sid(10), ppp_proto('ip')], [pppoe_sid(11), ppp_proto('ip')],
          ['/'.join([ether(), pppoe(10)])],
          ['/'.join([ether(), pppoe(11)]),
           '/'.join([ether(), pppoe(10, 0x57, v6in)])]),
        # regression (found by the stock-flower oracle): PPPoE behind a
        # tag is keyed on the PPPoE header, as untagged
        V('pppoe', '802.1q vlan_ethtype ppp_ses pppoe_sid', '802.1q',
          [vlan_ethtype('ppp_ses'), pppoe_sid(7)],
          [vlan_ethtype('ppp_ses'), pppoe_sid(8)],
          [tags((q, 10, 0), inner=pppoe(7))],
          [tags((q, 10, 0), inner=pppoe(8)), tags((q, 10, 0))]),
    ]
    # regression: an address key needs an address of its family: a
    # truncated IPv4 header (no address dissected) is not 0.0.0.0
    v4.append(V('ipv4', 'src_ip 0.0.0.0 does not match a truncated IPv4 '
                'header', 'ip', [ip('src_ip', '0.0.0.0')],
                [ip('src_ip', '0.0.0.1')], [ip4(src='0.0.0.0')],
                ["%s/Raw(load=b'E\\x00\\x00\\x14')" % ether(type=0x0800)]))
    return (eth + v4 + v6 + ipp + l4 + tos + tf + ic + ar + vl + fl + qq +
            mp + pp)


KEYS = _cat()
FAMILIES = sorted({v.family for v in KEYS})


def representatives():
    """One variant per family, protocol, set of key words and
    masked-or-not: the replace and delete themes need no more."""
    seen, found = set(), []
    for v in KEYS:
        if not v.tc_prints or v.words(alt=True) == v.words():
            continue
        sig = (v.family, v.proto, tuple(sorted(m.tc.split()[0]
                                                for m in v.matches)),
               v.masked())
        if sig not in seen:
            seen.add(sig)
            found.append(v)
    return found


# --- building cases -------------------------------------------------------------
class Corpus:
    def __init__(self):
        self.themes = collections.OrderedDict()     # theme -> [case]
        self.names = set()

    def case(self, theme, name, cmd, exp=0, setup=(), verify=None,
             pattern=None, count=1, match_json=None, exact=None, scapy=None,
             teardown=(), ingress=True, timeout=None):
        """A case on $DEV1's ingress qdisc (ingress=False: the setup
        makes its own qdiscs), one command per setup entry.  No teardown
        is needed for what is inside the case's namespace: nsPlugin
        deletes it.  exact: the parsed JSON output must be exactly this
        (matchJSON + matchJSONExact)."""
        assert name not in self.names, 'duplicate name: ' + name
        self.names.add(name)
        case = collections.OrderedDict()
        case['id'] = None
        case['name'] = name
        base, _, family = theme.partition('-')
        if base in ('keys', 'packets'):         # keys-ipv4 -> keys, ipv4
            case['category'] = ['filter', 'flower', base, family]
        else:
            case['category'] = ['filter', 'flower', theme]
        if scapy:
            case['category'].append('scapy')
        setup = ([INGRESS] if ingress else []) + list(setup)
        flnl = any('$FLNL' in x for x in [cmd, verify or ''] + setup)
        if flnl:
            case['category'].append('flowernl')
        case['plugins'] = {'requires': ['nsPlugin', 'scapyPlugin']
                           if scapy else 'nsPlugin'}
        if flnl:
            case['dependsOn'] = '$FLNL --help'
        case['setup'] = setup
        case['cmdUnderTest'] = cmd
        case['expExitCode'] = str(exp)
        if scapy:
            case['scapy'] = [
                {'iface': '$DEV0', 'count': n, 'packet': p}
                for p, n in scapy]
        if verify:
            case['verifyCmd'] = verify
            if exact is not None:
                case['matchJSON'] = exact
                case['matchJSONExact'] = True
            elif match_json is not None:
                case['matchJSON'] = match_json
            else:
                case['matchPattern'] = pattern
                case['matchCount'] = str(count)
        case['teardown'] = list(teardown)
        if any('$FLNL' in x for x in (cmd, verify or '')):
            timeout = timeout or FLNL_TIMEOUT
        if timeout:
            case['timeout'] = timeout
        self.themes.setdefault(theme, []).append(case)
        return case

    def refused(self, theme, name, cmd, exp, message, setup=(), left=0,
                dev='$DEV1', **kw):
        """A command the kernel refuses: exit code `exp` (2 from tc, the
        errno from $FLNL), `message` on stderr, `left` filters remain on
        `dev` (the device cmd adds to).  For tc, the verify step sends the
        same request again and then dumps the filters, in one `tc -force
        -b` of a batch file the setup writes: its output has the message
        and exactly `left` filter lines after it.  A $FLNL request goes
        through `$FLNL batch` (refused_many), which checks the errno and
        the message itself."""
        if cmd.startswith('$FLNL '):
            return refused_many(self, theme, name, [(cmd, exp, message)],
                                setup=setup, left=left, dev=dev, **kw)
        assert cmd.startswith('$TC ') and "'" not in cmd, cmd
        batch = "printf '%%s\\n' '%s' 'filter show dev %s ingress' " \
                "> $BATCH_FILE" % (cmd[len('$TC '):], dev)
        pattern = r'^Error: %s\.$' % rx(message)
        if left:
            pattern += r'(?:.*?%s){%d}' % (FILTER_LINE, left)
        pattern += r'(?!.*?%s)' % FILTER_LINE
        return self.case(theme, name, cmd, exp=exp,
                         setup=list(setup) + [batch],
                         verify='$TC -force -b $BATCH_FILE 2>&1',
                         pattern=pattern, **kw)

    def assign_ids(self, reserved):
        """Ids from the names, in name order, avoiding `reserved`."""
        taken = set(reserved)
        cases = sorted((c for cs in self.themes.values() for c in cs),
                       key=lambda c: c['name'])
        for case in cases:
            salt = 0
            while True:
                text = case['name'] + ('#%d' % salt if salt else '')
                cid = hashlib.sha1(text.encode()).hexdigest()[:4]
                if cid not in taken:
                    break
                salt += 1
            taken.add(cid)
            case['id'] = cid


def tc_filter(op, proto, words='', prio=1, handle=None, dev='$DEV1',
              parent='ingress', tail=''):
    cmd = '$TC filter %s dev %s %s protocol %s prio %d' % (
        op, dev, parent, proto, prio)
    if handle is not None:
        cmd += ' handle %s' % handle
    cmd += ' flower'
    for part in (words, tail):
        if part:
            cmd += ' ' + part
    return cmd


def flnl(op, proto='ip', attrs=(), raw=(), prio=1, handle=None,
         eth_type=True, dev='$DEV1'):
    """A raw request through $FLNL; eth_type: also send
    TCA_FLOWER_KEY_ETH_TYPE for the protocol, as tc does."""
    cmd = '$FLNL %s --dev %s --prio %d --protocol %s' % (op, dev, prio,
                                                          proto)
    if handle is not None:
        cmd += ' --handle %s' % handle
    if eth_type and proto != 'all':
        cmd += ' --attr eth_type=%s' % proto
    for item in attrs:
        cmd += ' --attr ' + item
    for item in raw:
        cmd += ' --raw ' + item
    return cmd


def header(proto, prio=1):
    return {'protocol': PROTO_NAME[proto], 'pref': prio, 'kind': 'flower',
            'chain': 0}


def entry(proto, options, prio=1):
    return dict(header(proto, prio), options=options)


def dump(*instances):
    """The tc -j filter show output, parsed, for instances given as
    (proto, prio, [options of each filter])."""
    return json.loads(dump_text(*instances))


def dump_text(*instances):
    """The exact tc -j filter show output for instances given as
    (proto, prio, [options of each filter])."""
    out = []
    for proto, prio, filters in instances:
        out.append(header(proto, prio))
        out += [entry(proto, opts, prio) for opts in filters]
    return compact(out)


def stats_json(proto, packets, nbytes, prio=1, handle=1, extra=None):
    """matchJSON: the filter's (first) action counted packets/bytes."""
    stats = {'bytes': nbytes, 'packets': packets}
    stats.update(extra or {})
    return [{'kind': 'flower'},
            {'protocol': PROTO_NAME[proto], 'pref': prio, 'kind': 'flower',
             'options': {'handle': handle, 'actions': [{'stats': stats}]}}]


# --- themes from the catalogue --------------------------------------------------
def keys_cases(c):
    """keys-<family>: a filter with the variant's keys, then a second one
    with another value under the same mask: both are accepted, and the
    whole dump is exactly what was given, each key with its mask,
    nothing else."""
    for v in KEYS:
        if not v.tc_prints:
            continue
        first = tc_filter('add', v.proto, v.words(), handle=1)
        if v.words(alt=True) == v.words():
            c.case('keys-' + v.family,
                   'Add %s: tc -j filter show gives back exactly its keys'
                   % v.title, first, setup=v.setup, verify=SHOW,
                   exact=dump((v.proto, 1, [v.options(1)])))
            continue
        c.case('keys-' + v.family,
               'Add %s, then another value under the same mask: the dump '
               'gives back exactly both, key by key' % v.title,
               tc_filter('add', v.proto, v.words(alt=True), handle=2),
               setup=v.setup + [first], verify=SHOW,
               exact=dump((v.proto, 1, [
                   v.options(1), v.options(2, alt=True)])))


def replace_cases(c):
    for v in representatives():
        c.case('replace',
               'Replace %s with another value of the same mask: the handle '
               'stays, the keys change' % v.title,
               tc_filter('replace', v.proto, v.words(alt=True),
                         handle='0x42'),
               setup=v.setup + [tc_filter('add', v.proto, v.words(),
                                          handle='0x42')],
               verify=SHOW, exact=dump(
                   (v.proto, 1, [v.options(0x42, alt=True)])))


def delete_cases(c):
    for v in representatives():
        c.case('delete',
               'Delete one of two %s filters by handle: the other stays '
               'as it was' % v.title,
               '$TC filter del dev $DEV1 ingress protocol %s prio 1 '
               'handle 1 flower' % v.proto,
               setup=v.setup + [
                   tc_filter('add', v.proto, v.words(), handle=1),
                   tc_filter('add', v.proto, v.words(alt=True), handle=2)],
               verify=SHOW, exact=dump(
                   (v.proto, 1, [v.options(2, alt=True)])))


def flush_cases(c):
    """delete: flush (delete every filter of the qdisc) with each
    variant of a family on a prio of its own."""
    for family in FAMILIES:
        variants = [v for v in KEYS if v.family == family]
        setup = []
        for prio, v in enumerate(variants, 1):
            setup += [s for s in v.setup if s not in setup]
            setup.append(tc_filter('add', v.proto, v.words(), prio=prio,
                                   handle=prio))
        c.case('delete', 'Flush the %s keys: with %d filters on %d prios, '
               'deleting every filter of the qdisc leaves nothing'
               % (family, len(variants), len(variants)),
               '$TC filter del dev $DEV1 ingress', setup=setup,
               **filters(0))


def get_cases(c):
    """get: one filter of two, by handle, for the first exact and the
    first masked variant of each family and protocol."""
    seen = set()
    for v in representatives():
        if (v.family, v.proto, v.masked()) in seen:
            continue
        seen.add((v.family, v.proto, v.masked()))
        get = '$TC -j filter get dev $DEV1 ingress protocol %s prio 1 ' \
              'handle 0x42 flower' % v.proto
        c.case('get', 'Get %s by handle 0x42 returns that filter and its '
               'keys' % v.title, get,
               setup=v.setup + [
                   tc_filter('add', v.proto, v.words(alt=True),
                             handle='0x41'),
                   tc_filter('add', v.proto, v.words(), handle='0x42')],
               verify=get,
               match_json=[{'kind': 'flower', 'options': v.options(0x42)}])


def terse_cases(c):
    """dump-roundtrip: tc -brief dumps (TCA_DUMP_FLAGS_TERSE) give each
    filter's handle, flags and action kinds, never its keys."""
    adds = [tc_filter('add', 'ip', 'dst_ip 10.0.0.1', handle=1,
                      tail='action drop'),
            tc_filter('add', 'ip', 'skip_hw dst_ip 10.0.0.2', handle=2,
                      tail='classid 1:2 action pass'),
            tc_filter('add', 'ip', 'dst_ip 10.0.0.3', handle=3)]
    gact = [{'order': 1, 'kind': 'gact'}]
    options = [{'handle': 1, 'keys': {}, 'not_in_hw': True,
                'actions': gact},
               {'handle': 2, 'keys': {}, 'skip_hw': True, 'not_in_hw': True,
                'actions': gact},
               {'handle': 3, 'keys': {}, 'not_in_hw': True}]
    c.case('dump-roundtrip',
           'Terse dump (tc -brief) of three filters: handles, flags and '
           'action kinds, no keys, no classid', adds[-1], setup=adds[:-1],
           verify='$TC -br -j filter show dev $DEV1 ingress',
           exact=dump(('ip', 1, options)))
    c.case('dump-roundtrip',
           'Terse dump after deleting the middle filter lists the other '
           'two', '$TC filter del dev $DEV1 ingress protocol ip prio 1 '
           'handle 2 flower', setup=adds,
           verify='$TC -br -j filter show dev $DEV1 ingress',
           exact=dump(('ip', 1, [options[0], options[2]])))


ROUNDTRIP_GROUPS = [
    ('link-layer, ARP and VLAN', ('eth', 'arp', 'vlan')),
    ('IPv4/IPv6 address, ip_proto and TOS/TTL',
     ('ipv4', 'ipv6', 'ip_proto', 'tos_ttl')),
    ('port, TCP flag and ICMP', ('ports', 'tcp_flags', 'icmp')),
    ('IP flag, QinQ, MPLS and PPPoE', ('ip_flags', 'qinq', 'mpls', 'pppoe')),
]


def roundtrip_cases(c):
    """dump-roundtrip: what tc sent comes back from the kernel attribute
    by attribute, masks included ($FLNL show decodes the netlink dump
    with pyroute2).  Every variant on a prio of its own, in three cases
    only: $FLNL takes ~10 s to start in the guest."""
    assert sorted(f for _, fs in ROUNDTRIP_GROUPS for f in fs) == FAMILIES
    for label, families in ROUNDTRIP_GROUPS:
        variants = [v for v in KEYS if v.family in families]
        setup, expected = [], []
        for prio, v in enumerate(variants, 1):
            setup += [s for s in v.setup if s not in setup]
            setup.append(tc_filter('add', v.proto, v.words(), prio=prio,
                                   handle=prio))
            expected += [{'handle': 0, 'prio': prio},
                         {'handle': prio, 'prio': prio, 'kind': 'flower',
                          'protocol': ETH_TYPE_NUM.get(v.proto, 3),
                          'options': v.attrs()}]
        last = setup.pop()
        c.case('dump-roundtrip',
               'Netlink round trip of the %s keys (%d filters, one per '
               'prio): the kernel dumps every key attribute with its mask'
               % (label, len(variants)), last, setup=setup,
               verify='$FLNL show --dev $DEV1 --protocol 0',
               match_json=expected)


def packet_cases(c):
    """packets-<family>: the matching frames are counted, exactly, the
    others not."""
    for v in KEYS:
        if not v.hit:
            continue
        nbytes = sum(ingress_bytes(p) for p in v.hit)
        c.case('packets-' + v.family,
               'Packets: %s counts the %d matching frame(s) and none of '
               'the %d others' % (v.title, len(v.hit), len(v.miss)),
               tc_filter('add', v.proto, v.words(), handle=1,
                         tail='action ok'),
               setup=v.setup, scapy=[(p, 1) for p in v.hit + v.miss],
               verify=SHOW_STATS,
               match_json=stats_json(v.proto, len(v.hit), nbytes))


# --- themes written out ---------------------------------------------------------
# --- tunnel (enc_*) and conntrack (ct_*) keys -----------------------------------
# Their values come from metadata, not from the frame's headers: enc_* from
# the tunnel a collect_md ("external") VXLAN or Geneve device took the
# packet out of, ct_* from the conntrack entry act_ct attached.  So these
# cases build that path: $DEV1 gets the outer destination's MAC and
# addresses, the filters go on the tunnel device's ingress; ct filters go
# in chain 1 behind `ct_state -trk action ct commit pipe action goto chain 1`.
TUN_LOCAL4, TUN_PEER4 = '10.9.0.1', '10.9.0.2'
TUN_LOCAL6, TUN_PEER6 = '2001:db8:9::1', '2001:db8:9::2'
TUN_SETUP = ['$IP link set $DEV1 address ' + DST_MAC,
             '$IP addr add %s/24 dev $DEV1' % TUN_LOCAL4,
             '$IP addr add %s/64 dev $DEV1 nodad' % TUN_LOCAL6]
TUN_DEVS = {
    'vxlan': ['$IP link add vx0 type vxlan external dstport 4789',
              '$IP link set vx0 up', '$TC qdisc add dev vx0 ingress'],
    'geneve': ['$IP link add gnv0 type geneve external',
               '$IP link set gnv0 up', '$TC qdisc add dev gnv0 ingress'],
}
TUN_DEV = {'vxlan': 'vx0', 'geneve': 'gnv0'}
TUN_INNER = ("Ether(dst='02:00:00:00:01:01', src='02:00:00:00:01:02')/"
             "IP(src='192.168.9.1', dst='192.168.9.2')/ICMP()")


def geneve_opt(cls, typ, data):
    """One Geneve option on the wire: class, type, length in words, data."""
    return (cls.to_bytes(2, 'big') + bytes([typ, len(data) // 4]) + data)


def tunneled(kind='vxlan', vni=42, src=TUN_PEER4, dst=TUN_LOCAL4, sport=1234,
             dport=None, tos=0, ttl=64, opts=b''):
    """The frame $DEV0 sends: outer Ethernet/IP(v6)/UDP, the VXLAN or
    Geneve header, then TUN_INNER."""
    if ':' in dst:
        outer = 'IPv6(src=%r, dst=%r, tc=%d, hlim=%d)' % (src, dst, tos, ttl)
    else:
        outer = 'IP(src=%r, dst=%r, tos=%d, ttl=%d)' % (src, dst, tos, ttl)
    if kind == 'vxlan':
        udp_ = 'UDP(sport=%d, dport=%d)' % (sport, dport or 4789)
        # flags 0x08 (VNI present) alone: scapy's default also sets the
        # GPE next-protocol bit, which a plain VXLAN device drops
        hdr = 'VXLAN(flags=0x08, vni=%d)' % vni
    else:
        udp_ = 'UDP(sport=%d, dport=%d)' % (sport, dport or 6081)
        hdr = 'Raw(load=%r)' % (bytes([len(opts) // 4, 0, 0x65, 0x58]) +
                                vni.to_bytes(3, 'big') + b'\x00' + opts)
    return '/'.join([ether(), outer, udp_, hdr, TUN_INNER])


def tun_stats(kind, packets, prio=1):
    return stats_json('ip', packets, packets * ingress_bytes(TUN_INNER),
                      prio=prio)


GNV_OPT_A = geneve_opt(0x0102, 0x80, bytes.fromhex('00880022'))
GNV_OPT_A2 = geneve_opt(0x0102, 0x80, bytes.fromhex('0088ffff'))
GNV_OPT_B = geneve_opt(0x0103, 0x01, bytes.fromhex('11223344'))

# (name, kind, tc words, [(frame, count)] that match, that do not, shown:
# what tc prints back)
TUNNEL_KEYS = [
    ('enc_key_id', 'vxlan', 'enc_key_id 42',
     [tunneled(vni=42)], [tunneled(vni=43), tunneled(vni=0)],
     r'enc_key_id 42'),
    ('enc_key_id 0 (VNI 0)', 'vxlan', 'enc_key_id 0',
     [tunneled(vni=0)], [tunneled(vni=1)], r'enc_key_id 0'),
    ('enc_src_ip and enc_dst_ip (IPv4 tunnel)', 'vxlan',
     'enc_src_ip %s enc_dst_ip %s' % (TUN_PEER4, TUN_LOCAL4),
     [tunneled()], [tunneled(src='10.9.0.3'),
                    tunneled(src=TUN_PEER6, dst=TUN_LOCAL6)],
     r'enc_dst_ip %s\n\s*enc_src_ip %s' % (rx(TUN_LOCAL4), rx(TUN_PEER4))),
    ('enc_src_ip /24 prefix', 'vxlan', 'enc_src_ip 10.9.0.0/24',
     [tunneled(), tunneled(src='10.9.0.77')], [tunneled(src='10.8.0.2')],
     r'enc_src_ip 10\.9\.0\.0/24'),
    ('enc_dst_ip (IPv6 tunnel)', 'vxlan', 'enc_dst_ip %s' % TUN_LOCAL6,
     [tunneled(src=TUN_PEER6, dst=TUN_LOCAL6)], [tunneled()],
     r'enc_dst_ip %s' % rx(TUN_LOCAL6)),
    ('enc_dst_port', 'vxlan', 'enc_dst_port 4789',
     [tunneled()], [], r'enc_dst_port 4789'),
    ('enc_tos and enc_ttl', 'vxlan', 'enc_tos 0x10 enc_ttl 33',
     [tunneled(tos=0x10, ttl=33)], [tunneled(tos=0x10), tunneled(ttl=33)],
     r'enc_tos 16\n\s*enc_ttl 33'),
    ('geneve_opts, one option exact', 'geneve', 'geneve_opts 0102:80:00880022',
     [tunneled('geneve', opts=GNV_OPT_A)],
     [tunneled('geneve', opts=GNV_OPT_A2), tunneled('geneve'),
      tunneled('geneve', opts=GNV_OPT_A + GNV_OPT_B)],
     r'geneve_opts 0102:80:00880022/ffff:ff:ffffffff'),
    ('geneve_opts, masked data', 'geneve',
     'geneve_opts 0102:80:00880000/ffff:ff:ffff0000',
     [tunneled('geneve', opts=GNV_OPT_A), tunneled('geneve', opts=GNV_OPT_A2)],
     [tunneled('geneve', opts=GNV_OPT_B)],
     r'geneve_opts 0102:80:00880000/ffff:ff:ffff0000'),
]


def tunnel_cases(c):
    """keys-enc and packets-enc: each tunnel key on a collect_md VXLAN or
    Geneve device; errors for what cannot match."""
    for name, kind, words, hit, miss, shown in TUNNEL_KEYS:
        dev = TUN_DEV[kind]
        setup = TUN_SETUP + TUN_DEVS[kind]
        add = tc_filter('add', 'ip', words, dev=dev, handle=1,
                        tail='action drop')
        c.case('keys-enc', 'Keys: %s on a %s device: added and shown back'
               % (name, kind), add, setup=setup,
               verify='$TC filter show dev %s ingress' % dev,
               pattern=shown)
        c.case('packets-enc', 'Packets: %s counts the %d matching tunneled '
               'frame(s), not the %d near miss(es)' % (name, len(hit),
                                                        len(miss)),
               add, setup=setup,
               scapy=[(p, 1) for p in hit + miss],
               verify='$TC -s -j filter show dev %s ingress' % dev,
               match_json=tun_stats(kind, len(hit)))
    for kind, words, other, shown in [
            ('vxlan', 'enc_key_id 42 enc_dst_ip 10.9.0.1',
             'enc_key_id 43 enc_dst_ip 10.9.0.1', r'enc_key_id 43'),
            ('geneve', 'geneve_opts 0102:80:00880022',
             'geneve_opts 0102:80:00880033', r'geneve_opts 0102:80:00880033')]:
        dev = TUN_DEV[kind]
        c.case('keys-enc', 'Replace %s with %s on a %s device: the handle '
               'stays, the key changes, one filter' % (words, other, kind),
               tc_filter('replace', 'ip', other, dev=dev, handle=1,
                         tail='action drop'),
               setup=TUN_SETUP + TUN_DEVS[kind] + [
                   tc_filter('add', 'ip', words, dev=dev, handle=1,
                             tail='action drop')],
               verify='$TC filter show dev %s ingress' % dev,
               pattern=r'handle 0x1 [^\n]*\n(?:[^\n]*\n)*?\s*' + shown)
    c.case('packets-enc', 'Packets: enc_key_id 0 on $DEV1 (no tunnel '
           'device) counts no plain frame: a tunnel key needs tunnel '
           'metadata', tc_filter('add', 'ip', 'enc_key_id 0', handle=1,
                                 tail='action drop'),
           scapy=[(ip4(), 2)], verify=SHOW_STATS,
           match_json=stats_json('ip', 0, 0))
    c.case('packets-enc', 'Packets: enc_key_id 42 beside dst_ip: a tunneled '
           'frame counts only when the inner dst_ip matches too',
           tc_filter('add', 'ip', 'enc_key_id 42 dst_ip 192.168.9.2',
                     dev='vx0', handle=1, tail='action drop'),
           setup=TUN_SETUP + TUN_DEVS['vxlan'],
           scapy=[(tunneled(), 1),
                  (tunneled().replace("dst='192.168.9.2'",
                                      "dst='192.168.9.3'"), 1)],
           verify='$TC -s -j filter show dev vx0 ingress',
           match_json=tun_stats('vxlan', 1))
    c.case('packets-enc', 'Packets: enc_src_port 1234 ($FLNL: tc 6.1 has '
           'no enc_src_port) counts the frame from UDP port 1234, not 1235',
           flnl('add', 'ip', ['key_enc_udp_src_port=1234'], dev='vx0',
                handle=1) + ' --action drop',
           setup=TUN_SETUP + TUN_DEVS['vxlan'],
           scapy=[(tunneled(), 1), (tunneled(sport=1235), 1)],
           verify='$TC -s -j filter show dev vx0 ingress',
           match_json=tun_stats('vxlan', 1))
    # The kernel's own dump of two Geneve options (tc 6.1 prints only the
    # first): both options and their masks come back
    two = 'geneve_opts 0102:80:00880022/ffff:ff:ffff0000,0103:01:11223344'
    c.case('packets-enc', 'Packets: geneve_opts with two options counts '
           'the frame with both, not one with the first alone',
           tc_filter('add', 'ip', two, dev='gnv0', handle=1,
                     tail='action drop'),
           setup=TUN_SETUP + TUN_DEVS['geneve'],
           scapy=[(tunneled('geneve', opts=GNV_OPT_A2 + GNV_OPT_B), 1),
                  (tunneled('geneve', opts=GNV_OPT_A), 1)],
           verify='$TC -s -j filter show dev gnv0 ingress',
           match_json=tun_stats('geneve', 1))
    t = 'errors'
    for words, msg in [
            ('vxlan_opts 01020304', 'Only Geneve tunnel options are '
             'supported'),
            ('erspan_opts 1:12:0:0', 'Only Geneve tunnel options are '
             'supported'),
            ('enc_dst_ip 10.0.0.1 enc_src_ip 2001:db8::1',
             'IPv4 and IPv6 tunnel addresses cannot be combined')]:
        c.refused(t, 'tc %s: refused (%s)' % (words, msg),
                  tc_filter('add', 'ip', words), 2, msg)


CT_CHAIN0 = ('$TC filter add dev $DEV1 ingress prio 1 chain 0 protocol ip '
             'flower ct_state -trk action ct %s pipe action goto chain 1')
CT_ORIG = ip4(l4=udp(5000, 5001))
CT_REPLY = ip4(l4=udp(5001, 5000), src='10.1.0.1', dst='10.2.0.1')
# the original direction, its reply, the original again: +new, +est+rpl, +est
CT_PACKETS = [(CT_ORIG, 1), (CT_REPLY, 1), (CT_ORIG, 1)]

# (name, act_ct arguments, chain 1 words, packets of CT_PACKETS counted, shown)
CT_KEYS = [
    ('ct_state +trk+new: the first packet', 'commit', 'ct_state +trk+new',
     [0], r'ct_state \+trk\+new'),
    ('ct_state +trk+est: after the reply, both ways', 'commit',
     'ct_state +trk+est', [1, 2], r'ct_state \+trk\+est'),
    ('ct_state +trk+est+rpl: the reply', 'commit', 'ct_state +trk+est+rpl',
     [1], r'ct_state \+trk\+est\+rpl'),
    ('ct_state +trk+est-rpl: the original direction', 'commit',
     'ct_state +trk+est-rpl', [2], r'ct_state \+trk\+est-rpl'),
    ('ct_zone 5 (act_ct zone 5)', 'zone 5 commit', 'ct_zone 5', [0, 1, 2],
     r'ct_zone 5'),
    ('ct_zone 5 does not count zone 6', 'zone 6 commit', 'ct_zone 5', [],
     r'ct_zone 5'),
    ('ct_mark 0x12/0xff (act_ct commit mark 0x1234)',
     'commit mark 0x1234', 'ct_mark 0x34/0xff', [0, 1, 2],
     r'ct_mark 52/0xff'),
    ('ct_mark 0x35/0xff does not count mark 0x1234', 'commit mark 0x1234',
     'ct_mark 0x35/0xff', [], r'ct_mark 53/0xff'),
    ('ct_label (act_ct commit label)',
     'commit label 01000000000000000000000000000000',
     'ct_label 01000000000000000000000000000000', [0, 1, 2],
     r'ct_label 01000000000000000000000000000000'),
]


def ct_cases(c):
    """keys-ct and packets-ct: conntrack keys in chain 1, behind act_ct in
    chain 0; errors for ct_state flags no packet has together."""
    for name, act, words, counted, shown in CT_KEYS:
        add = ('$TC filter add dev $DEV1 ingress prio 1 chain 1 protocol ip '
               'flower %s action drop' % words)
        c.case('keys-ct', 'Keys: %s: added and shown back' % name, add,
               verify='$TC filter show dev $DEV1 ingress chain 1',
               pattern=shown)
        nbytes = sum(ingress_bytes(CT_PACKETS[i][0]) for i in counted)
        c.case('packets-ct', 'Packets: %s' % name, add,
               setup=[CT_CHAIN0 % act], scapy=CT_PACKETS,
               verify='$TC -s -j filter show dev $DEV1 ingress chain 1',
               match_json=stats_json('ip', len(counted), nbytes))
    c.case('keys-ct', 'Replace ct_state +trk+new with +trk-new (the same '
           'mask) in chain 1: the handle stays, the key changes',
           '$TC filter replace dev $DEV1 ingress prio 1 chain 1 handle 1 '
           'protocol ip flower ct_state +trk-new action drop',
           setup=['$TC filter add dev $DEV1 ingress prio 1 chain 1 handle 1 '
                  'protocol ip flower ct_state +trk+new action drop'],
           verify='$TC filter show dev $DEV1 ingress chain 1',
           pattern=r'handle 0x1 [^\n]*\n\s*eth_type ipv4\n\s*'
                   r'ct_state \+trk-new\n')
    c.case('packets-ct', 'Packets: ct_state -trk in chain 0 counts every '
           'packet (none is tracked before act_ct)',
           '$TC filter add dev $DEV1 ingress prio 2 chain 0 protocol ip '
           'flower ct_state -trk action ok', setup=[],
           scapy=CT_PACKETS, verify=SHOW_STATS,
           match_json=stats_json('ip', 3, sum(
               ingress_bytes(p) for p, _n in CT_PACKETS), prio=2))
    t = 'errors'
    for words, msg in [
            ('ct_state +trk+new+est', 'ct_state +new excludes +est and +rpl'),
            ('ct_state +trk+new+rpl', 'ct_state +new excludes +est and +rpl'),
            ('ct_state -trk+new', 'ct_state flags other than trk need +trk'),
            ('ct_state +est', 'ct_state flags other than trk need +trk'),
            ('ct_state +trk+inv+rpl', 'ct_state +inv goes with +trk alone')]:
        c.refused(t, 'tc %s: refused (%s)' % (words, msg),
                  tc_filter('add', 'ip', words), 2, msg)


def main_themes(c):
    module_cases(c)
    add_cases(c)
    masks_cases(c)
    template_cases(c)
    num_of_vlans_cases(c)
    handle_cases(c)
    delete_more_cases(c)
    flag_cases(c)
    tc_error_cases(c)
    netlink_error_cases(c)
    action_cases(c)
    classid_cases(c)
    packet_more_cases(c)
    scale_cases(c)
    tunnel_cases(c)
    ct_cases(c)


def module_cases(c):
    c.case('add', 'The cls_flower module answering is ours: its version '
           'reads seed-6.1', 'cat /sys/module/cls_flower/version',
           verify='cat /sys/module/cls_flower/version',
           pattern=r'\Aseed-6\.1\n\Z')
    c.case('add', 'A flower filter holds a reference on the cls_flower '
           'module, and that module is ours (seed-6.1)',
           tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8'),
           verify='cat /sys/module/cls_flower/version '
                  '/sys/module/cls_flower/refcnt',
           pattern=r'\Aseed-6\.1\n[1-9][0-9]*\n\Z')


def add_cases(c):
    c.case('add', 'Add with no key at all on protocol ip: only eth_type is '
           'dumped', tc_filter('add', 'ip'), verify=SHOW,
           exact=dump(('ip', 1, [
               {'handle': 1, 'keys': {'eth_type': 'ipv4'},
                'not_in_hw': True}])))
    c.case('add', 'Add with no key at all on protocol all: the keys are '
           'empty', tc_filter('add', 'all'), verify=SHOW,
           exact=dump(('all', 1, [
               {'handle': 1, 'keys': {}, 'not_in_hw': True}])))
    # the key still asks for an IPv4 address, so it is dumped (its mask
    # printed as an address): the dump gives the same filter back
    c.case('add', 'Add a zero-length prefix dst_ip 0.0.0.0/0: accepted, '
           'and dumped with its all-zero mask',
           tc_filter('add', 'ip', 'dst_ip 0.0.0.0/0'), verify=SHOW,
           exact=dump(('ip', 1, [
               {'handle': 1, 'keys': {'eth_type': 'ipv4',
                                      'dst_ip': '0.0.0.0/0.0.0.0'},
                'not_in_hw': True}])))
    every = ('dst_mac 02:00:00:00:00:01 src_mac 02:00:00:00:00:02/24 '
             'ip_proto tcp ip_tos 0x10/0xf0 ip_ttl 64 '
             'dst_ip 10.1.0.0/24 src_ip 10.2.0.0/16 '
             'dst_port 80 src_port 0x4000/0xf000 tcp_flags 0x2/0x12')
    every_keys = collections.OrderedDict([
        ('dst_mac', '02:00:00:00:00:01'), ('src_mac', '02:00:00:00:00:02/24'),
        ('eth_type', 'ipv4'), ('ip_proto', 'tcp'), ('ip_tos', 16),
        ('ip_tos_mask', 'f0'), ('ip_ttl', 64), ('dst_ip', '10.1.0.0/24'),
        ('src_ip', '10.2.0.0/16'), ('dst_port', 80),
        ('src_port', 16384), ('src_port_mask', 'f000'),
        ('tcp_flags', '0x2/12')])
    c.case('add', 'Add every IPv4/TCP key at once, some masked: all come '
           'back', tc_filter('add', 'ip', every, handle=1), verify=SHOW,
           exact=dump(('ip', 1, [
               {'handle': 1, 'keys': every_keys, 'not_in_hw': True}])))
    c.case('add', 'Add with classid: the dump shows classid 1:5',
           tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8 classid 1:5', handle=1),
           verify=SHOW, exact=dump(('ip', 1, [
               {'handle': 1, 'classid': '1:5',
                'keys': {'eth_type': 'ipv4', 'dst_ip': '10.0.0.0/8'},
                'not_in_hw': True}])))
    c.case('add', 'Add with hw_tc 3: a classid in the hw tc range, dumped '
           'as hw_tc 3',
           tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8 hw_tc 3', handle=1),
           verify=SHOW, exact=dump(('ip', 1, [
               {'handle': 1, 'hw_tc': 3,
                'keys': {'eth_type': 'ipv4', 'dst_ip': '10.0.0.0/8'},
                'not_in_hw': True}])))
    c.case('add', 'Add on clsact ingress and egress: both dumped with '
           'their keys',
           '$TC filter add dev $DEV1 egress protocol ip prio 1 handle 1 '
           'flower src_ip 10.0.0.0/8',
           setup=['$TC qdisc add dev $DEV1 clsact',
                  '$TC filter add dev $DEV1 ingress protocol ip prio 1 '
                  'handle 1 flower dst_ip 10.0.0.0/8'],
           ingress=False, verify='$TC -j filter show dev $DEV1 egress',
           exact=dump(('ip', 1, [
               {'handle': 1, 'keys': {'eth_type': 'ipv4',
                                      'src_ip': '10.0.0.0/8'},
                'not_in_hw': True}])))
    c.case('add', 'Add on the egress of a prio qdisc (parent 1:): the '
           'filter is dumped under that parent',
           '$TC filter add dev $DUMMY parent 1: protocol ip prio 1 handle 1 '
           'flower dst_ip 10.0.0.0/8 classid 1:2',
           setup=['$TC qdisc add dev $DUMMY root handle 1: prio'],
           ingress=False, verify='$TC -j filter show dev $DUMMY parent 1:',
           exact=dump(('ip', 1, [
               {'handle': 1, 'classid': '1:2',
                'keys': {'eth_type': 'ipv4', 'dst_ip': '10.0.0.0/8'},
                'not_in_hw': True}])))
    c.case('add', 'Filters on ten prios, each with its own mask, all '
           'dumped in prio order',
           '$TC -b $BATCH_FILE',
           setup=["awk 'BEGIN { for (i = 1; i <= 10; i++) printf \"filter "
                  "add dev $DEV1 ingress protocol ip prio %d handle 1 flower "
                  "dst_ip 10.0.0.0/%d\\n\", i, i + 14 }' > $BATCH_FILE"],
           teardown=['rm -f $BATCH_FILE'], verify=SHOW,
           exact=dump(*[
               ('ip', i, [{'handle': 1, 'keys': {
                   'eth_type': 'ipv4', 'dst_ip': '10.0.0.0/%d' % (i + 14)},
                   'not_in_hw': True}]) for i in range(1, 11)]))
    c.case('add', 'Add on a shared block: the filter is dumped on the '
           'block',
           '$TC filter add block 7 protocol ip prio 1 handle 1 flower '
           'dst_ip 10.0.0.0/8',
           setup=['$TC qdisc add dev $DEV1 ingress_block 7 clsact'],
           ingress=False, verify='$TC -j filter show block 7',
           exact=dump(('ip', 1, [
               {'handle': 1, 'keys': {'eth_type': 'ipv4',
                                      'dst_ip': '10.0.0.0/8'},
                'not_in_hw': True}])))
    chain3 = {'protocol': 'ip', 'pref': 1, 'kind': 'flower'}
    c.case('add', 'Add on chain 3: the filter is dumped on that chain',
           '$TC filter add dev $DEV1 ingress protocol ip prio 1 chain 3 '
           'handle 1 flower dst_ip 10.0.0.0/8',
           verify='$TC -j filter show dev $DEV1 ingress chain 3',
           exact=[chain3, dict(chain3, options={
               'handle': 1, 'keys': {'eth_type': 'ipv4',
                                     'dst_ip': '10.0.0.0/8'},
               'not_in_hw': True})])


def counted(proto, per_handle, prio=1):
    """matchJSON: the filters of one prio in handle order (as tc dumps
    them), each given as (handle, [(packet, count)] its first action
    counted)."""
    out = [{'kind': 'flower'}]
    for handle, frames in sorted(per_handle):
        out.append({'protocol': PROTO_NAME[proto], 'pref': prio,
                    'kind': 'flower', 'options': {
                        'handle': handle, 'actions': [{'stats': {
                            'bytes': sum(n * ingress_bytes(p)
                                         for p, n in frames),
                            'packets': sum(n for _p, n in frames)}}]}})
    return out


def in_prio(n, prio=1, dev='$DEV1'):
    """verifyCmd and match: n filters on dev's ingress, all in `prio`."""
    return dict(verify='$TC filter show dev %s ingress' % dev,
                pattern=r'^filter [^\n]*\bpref %d [^\n]*\bhandle '
                        r'0x[0-9a-f]+\b' % prio, count=n)


def refused_rx(c, theme, name, cmd, line, setup=(), left=0, **kw):
    """Like Corpus.refused, the error given as a regular expression for
    one line of tc's output (`line`, without ^ and $): tc exits 2, prints
    that line, and `left` filters remain on $DEV1."""
    assert cmd.startswith('$TC ') and "'" not in cmd, cmd
    batch = "printf '%%s\\n' '%s' 'filter show dev $DEV1 ingress' " \
            "> $BATCH_FILE" % cmd[len('$TC '):]
    pattern = r'^%s$' % line
    if left:
        pattern += r'(?:.*?%s){%d}' % (FILTER_LINE, left)
    pattern += r'(?!.*?%s)' % FILTER_LINE
    return c.case(theme, name, cmd, exp=2, setup=list(setup) + [batch],
                  verify='$TC -force -b $BATCH_FILE 2>&1', pattern=pattern,
                  **kw)


def tcp(ip=None, **fields):
    """An IPv4/TCP frame: TCP fields, ip: IP fields."""
    return ip4(l4=layer('TCP', **dict(dict(sport=1000, dport=2000),
                                      **fields)), **(ip or {}))


def eth_ip4(**fields):
    return ip4(eth=ether(**fields))


def v6_in_tag(**tag):
    return dot1q(inner=layer('IPv6', src='2001:db8:2::1',
                             dst='2001:db8:1::1'), **tag)


# Two filters of different masks on one prio, for the masks theme:
# (protocol, first filter, second filter, label, then frames (or None)
# that both match, that only the first matches, only the second, neither).
# The first filter's mask is the older: it counts what both match.
MASK_PAIRS = [
    ('ip', 'dst_ip 10.1.0.0/24', 'dst_ip 10.1.0.0/16',
     'dst_ip /24 then /16',
     ip4(dst='10.1.0.5'), None, ip4(dst='10.1.7.5'), ip4(dst='10.3.0.1')),
    ('ip', 'dst_ip 10.1.0.0/16', 'dst_ip 10.1.0.0/24',
     'dst_ip /16 then /24',
     ip4(dst='10.1.0.5'), ip4(dst='10.1.7.5'), None, ip4(dst='10.3.0.1')),
    ('ip', 'dst_ip 10.1.0.0/24', 'dst_ip 10.1.0.1',
     'dst_ip /24 then an exact dst_ip',
     ip4(dst='10.1.0.1'), ip4(dst='10.1.0.7'), None, ip4(dst='10.3.0.1')),
    ('ip', 'dst_ip 10.1.0.0/24', 'src_ip 10.1.0.0/24',
     'dst_ip then src_ip (another key)',
     ip4(src='10.1.0.9'), ip4(), ip4(src='10.1.0.9', dst='10.3.0.1'),
     ip4(dst='10.3.0.1')),
    ('ip', 'dst_ip 10.1.0.0/24 src_ip 10.2.0.0/24',
     'dst_ip 10.3.0.0/24', 'dst_ip+src_ip then dst_ip alone (subset)',
     None, ip4(), ip4(dst='10.3.0.1'), ip4(dst='10.4.0.1')),
    ('ip', 'dst_ip 10.3.0.0/24',
     'dst_ip 10.1.0.0/24 src_ip 10.2.0.0/24',
     'dst_ip then dst_ip+src_ip (superset)',
     None, ip4(dst='10.3.0.1'), ip4(), ip4(dst='10.4.0.1')),
    ('ip', '', 'dst_ip 10.1.0.0/24', 'no key then dst_ip',
     ip4(), ip4(dst='10.3.0.1'), None, ip6()),
    ('ip', 'dst_ip 10.1.0.0/24', '', 'dst_ip then no key',
     ip4(), None, ip4(dst='10.3.0.1'), ip6()),
    ('ipv6', 'dst_ip 2001:db8::/64', 'dst_ip 2001:db8::/48',
     'IPv6 dst_ip /64 then /48',
     ip6(dst='2001:db8::5'), None, ip6(dst='2001:db8:0:7::5'), ip6()),
    ('ipv6', 'src_ip 2001:db8::1', 'src_ip 2001:db8::/127',
     'IPv6 exact src_ip then /127',
     ip6(src='2001:db8::1'), None, ip6(src='2001:db8::'), ip6()),
    ('all', 'dst_mac 02:00:00:00:00:01/24', 'dst_mac 02:00:00:00:00:01',
     'dst_mac /24 then exact',
     ip4(), eth_ip4(dst='02:00:00:00:00:07'), None,
     eth_ip4(dst='02:00:01:00:00:01')),
    ('all', 'dst_mac 02:00:00:00:00:01', 'src_mac 02:00:00:00:00:01',
     'dst_mac then src_mac',
     eth_ip4(src='02:00:00:00:00:01'), ip4(),
     eth_ip4(dst='02:00:00:00:00:09', src='02:00:00:00:00:01'),
     eth_ip4(dst='02:00:00:00:00:09')),
    ('all', 'dst_mac 02:00:00:00:00:01/ff:00:00:00:00:ff',
     'dst_mac 02:00:00:00:00:01/ff:00:00:00:00:fe',
     'dst_mac masks one bit apart',
     ip4(), None, eth_ip4(dst='02:00:00:00:00:00'),
     eth_ip4(dst='02:00:00:00:00:03')),
    ('ip', 'ip_proto tcp dst_port 80', 'ip_proto tcp dst_port 80/0xff00',
     'tcp dst_port exact then masked',
     tcp(dport=80), None, tcp(dport=81), tcp(dport=0x150)),
    ('ip', 'ip_proto tcp dst_port 80', 'ip_proto tcp src_port 80',
     'tcp dst_port then src_port',
     tcp(sport=80, dport=80), tcp(dport=80), tcp(sport=80), tcp()),
    ('ip', 'ip_proto tcp dst_port 80', 'ip_proto tcp',
     'tcp dst_port then ip_proto alone',
     tcp(dport=80), None, tcp(dport=81), ip4(l4=udp(1000, 80))),
    ('ip', 'ip_proto udp', 'dst_ip 10.0.0.1', 'ip_proto then dst_ip',
     ip4(dst='10.0.0.1'), ip4(), tcp(ip=dict(dst='10.0.0.1')), tcp()),
    ('ip', 'ip_tos 0x10', 'ip_tos 0x10/0xf0', 'ip_tos exact then masked',
     ip4(tos=0x10), None, ip4(tos=0x14), ip4(tos=0x20)),
    ('ip', 'ip_ttl 64/0xf0', 'ip_ttl 64/0xf8', 'ip_ttl two masks',
     ip4(ttl=64), ip4(ttl=72), None, ip4(ttl=32)),
    ('ip', 'ip_proto tcp tcp_flags 0x2/0x2',
     'ip_proto tcp tcp_flags 0x2/0x12', 'tcp_flags two masks',
     tcp(flags='S'), tcp(flags='SA'), None, tcp(flags='A')),
    ('ip', 'ip_proto icmp type 8', 'ip_proto icmp type 8 code 0',
     'icmp type then type+code',
     ip4(l4=layer('ICMP', type=8, code=0)),
     ip4(l4=layer('ICMP', type=8, code=1)), None,
     ip4(l4=layer('ICMP', type=0, code=0))),
    # no frames: the other hosts' MLD reports (type 143) would count
    ('ipv6', 'ip_proto icmpv6 type 128/240', 'ip_proto icmpv6 type 128',
     'icmpv6 masked type then exact', None, None, None, None),
    ('arp', 'arp_sip 10.0.0.0/24', 'arp_sip 10.0.0.0/16',
     'arp_sip /24 then /16',
     arp_pkt(), None, arp_pkt(psrc='10.0.5.1'), arp_pkt(psrc='10.1.0.1')),
    ('arp', 'arp_op request', 'arp_op request arp_tip 10.0.0.1',
     'arp_op then arp_op+arp_tip',
     arp_pkt(pdst='10.0.0.1'), arp_pkt(), None, arp_pkt(op=2)),
    ('arp', 'arp_sha 02:00:00:00:00:01', 'arp_tha 02:00:00:00:00:01',
     'arp_sha then arp_tha',
     arp_pkt(hwsrc='02:00:00:00:00:01', hwdst='02:00:00:00:00:01'),
     arp_pkt(hwsrc='02:00:00:00:00:01'), arp_pkt(hwdst='02:00:00:00:00:01'),
     arp_pkt()),
    ('802.1q', 'vlan_id 10', 'vlan_id 10 vlan_prio 1',
     'vlan_id then vlan_id+vlan_prio',
     dot1q(vlan=10, prio=1), dot1q(vlan=10, prio=0), None,
     dot1q(vlan=11, prio=1)),
    ('802.1q', 'vlan_prio 1', 'vlan_ethtype ip', 'vlan_prio then '
     'vlan_ethtype',
     dot1q(prio=1), v6_in_tag(prio=1), dot1q(prio=0), v6_in_tag(prio=0)),
    ('ip', 'dst_ip 10.0.0.0/8', 'dst_ip 10.0.0.0/8 skip_hw '
     'ip_proto udp', 'dst_ip then dst_ip+ip_proto',
     ip4(), tcp(), None, ip4(dst='11.0.0.1')),
]


def masks_cases(c):
    """Several masks on one prio (as in the stock flower): a filter whose
    mask differs from the others' gets a mask of its own; a frame is
    looked up mask by mask, the oldest mask first, and the first filter
    found counts it; a mask goes when its last filter goes.  The same
    masked key twice in a prio is still refused (EEXIST)."""
    t = 'masks'
    for index, (proto, first, second, label, both, only1, only2,
                neither) in enumerate(MASK_PAIRS):
        c.case(t, 'Two masks on one prio (%s): the second filter is '
               'accepted, both are dumped in that prio' % label,
               tc_filter('add', proto, second, handle=2),
               setup=[tc_filter('add', proto, first, handle=1)],
               **in_prio(2))
        if index % 2 == 0:      # every other pair: the same on two prios
            c.case(t, 'Mask mismatch resolved by another prio (%s): the '
                   'second instance takes its own mask' % label,
                   tc_filter('add', proto, second, prio=2, handle=2),
                   setup=[tc_filter('add', proto, first, handle=1)],
                   **filters(2))
        frames = [(p, n) for p, n in ((both, 1), (only1, 2), (only2, 4),
                                      (neither, 1)) if p]
        if not frames:
            continue
        what = []
        if both:
            what.append('a frame both match counts in the first (the older '
                        'mask)')
        what.append('each counts its own frames, a frame neither matches '
                    'counts nowhere')
        c.case(t, 'Packets, two masks on one prio (%s): %s'
               % (label, '; '.join(what)),
               tc_filter('add', proto, second, handle=2, tail='action drop'),
               setup=[tc_filter('add', proto, first, handle=1,
                                tail='action drop')],
               scapy=frames, verify=SHOW_STATS,
               match_json=counted(proto, [
                   (1, [(p, n) for p, n in ((both, 1), (only1, 2)) if p]),
                   (2, [(p, n) for p, n in ((only2, 4),) if p])]))
    indev_setup = ['$IP link add flin0 type dummy',
                   tc_filter('add', 'ip', 'indev flin0 dst_ip 10.0.0.0/8',
                             handle=1)]
    c.case(t, 'Two masks on one prio: indev+dst_ip then dst_ip alone are '
           'both accepted', tc_filter('add', 'ip', 'dst_ip 11.0.0.0/8',
                                      handle=2),
           setup=indev_setup, **in_prio(2))
    c.case(t, 'indev is part of the mask: two filters on two input '
           'devices share it',
           tc_filter('add', 'ip', 'indev $DUMMY dst_ip 10.0.0.0/8',
                     handle=2), setup=indev_setup, **filters(2))
    c.case(t, 'A MAC mask given as /24 equals ff:ff:ff:00:00:00: both '
           'filters share the mask',
           tc_filter('add', 'all',
                     'dst_mac 02:00:01:00:00:00/ff:ff:ff:00:00:00', handle=2),
           setup=[tc_filter('add', 'all', 'dst_mac 02:00:00:00:00:00/24',
                            handle=1)],
           **filters(2))
    c.case(t, 'tcp dst_port and udp dst_port share a mask: both on one '
           'instance',
           tc_filter('add', 'ip', 'ip_proto udp dst_port 53', handle=2),
           setup=[tc_filter('add', 'ip', 'ip_proto tcp dst_port 80',
                            handle=1)],
           verify=SHOW, exact=dump(('ip', 1, [
               {'handle': 1, 'keys': {'eth_type': 'ipv4', 'ip_proto': 'tcp',
                                      'dst_port': 80}, 'not_in_hw': True},
               {'handle': 2, 'keys': {'eth_type': 'ipv4', 'ip_proto': 'udp',
                                      'dst_port': 53},
                'not_in_hw': True}])))
    # Mask identity shows in the order: a filter that shares the oldest
    # mask counts before a filter of a younger mask, however late it came
    same = eth_ip4(dst='02:00:01:00:00:05')
    c.case(t, 'Packets: dst_mac /24 and /ff:ff:ff:00:00:00 are one mask: '
           'the filter added last in the second spelling counts first, '
           'before the src_mac filter of a younger mask',
           tc_filter('add', 'all',
                     'dst_mac 02:00:01:00:00:00/ff:ff:ff:00:00:00', handle=3,
                     tail='action drop'),
           setup=[tc_filter('add', 'all', 'dst_mac 02:00:00:00:00:00/24',
                            handle=1, tail='action drop'),
                  tc_filter('add', 'all', 'src_mac ' + SRC_MAC, handle=2,
                            tail='action drop')],
           scapy=[(same, 2), (ip4(), 1),
                  (eth_ip4(dst='02:00:09:00:00:01'), 4)],
           verify=SHOW_STATS, match_json=counted('all', [
               (1, [(ip4(), 1)]),
               (2, [(eth_ip4(dst='02:00:09:00:00:01'), 4)]),
               (3, [(same, 2)])]))
    udp53 = ip4(l4=udp(1000, 53))
    c.case(t, 'Packets: tcp dst_port and udp dst_port are one mask: the udp '
           'filter added last counts first, before the dst_ip filter of a '
           'younger mask',
           tc_filter('add', 'ip', 'ip_proto udp dst_port 53', handle=3,
                     tail='action drop'),
           setup=[tc_filter('add', 'ip', 'ip_proto tcp dst_port 80',
                            handle=1, tail='action drop'),
                  tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24', handle=2,
                            tail='action drop')],
           scapy=[(udp53, 2), (tcp(dport=80), 1), (ip4(), 4)],
           verify=SHOW_STATS, match_json=counted('ip', [
               (1, [(tcp(dport=80), 1)]), (2, [(ip4(), 4)]),
               (3, [(udp53, 2)])]))
    c.case(t, 'After a delete, a filter of another mask is accepted beside '
           'the one left: two filters, two masks, one prio',
           tc_filter('add', 'ip', 'dst_ip 10.0.0.0/16', handle=3),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24', handle=1),
                  tc_filter('add', 'ip', 'dst_ip 10.2.0.0/24', handle=2),
                  '$TC filter del dev $DEV1 ingress protocol ip prio 1 '
                  'handle 1 flower'],
           verify=SHOW, exact=dump(('ip', 1, [
               {'handle': 2, 'keys': {'eth_type': 'ipv4',
                                      'dst_ip': '10.2.0.0/24'},
                'not_in_hw': True},
               {'handle': 3, 'keys': {'eth_type': 'ipv4',
                                      'dst_ip': '10.0.0.0/16'},
                'not_in_hw': True}])))
    c.case(t, 'Once the last filter is deleted the instance is gone: a '
           'new mask is accepted on that prio',
           tc_filter('add', 'ip', 'src_ip 10.0.0.0/16', handle=3),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24', handle=1),
                  tc_filter('add', 'ip', 'dst_ip 10.2.0.0/24', handle=2),
                  '$TC filter del dev $DEV1 ingress protocol ip prio 1 '
                  'handle 1 flower',
                  '$TC filter del dev $DEV1 ingress protocol ip prio 1 '
                  'handle 2 flower'],
           verify=SHOW, exact=dump(('ip', 1, [
               {'handle': 3, 'keys': {'eth_type': 'ipv4',
                                      'src_ip': '10.0.0.0/16'},
                'not_in_hw': True}])))
    mask_order_cases(c, t)
    mask_replace_cases(c, t)
    mask_eexist_cases(c, t)
    enc = TUN_SETUP + TUN_DEVS['vxlan']
    c.case(t, 'enc_dst_ip /16 in a prio of enc_dst_ip /24: accepted, a '
           'second mask', tc_filter('add', 'ip', 'enc_dst_ip 10.8.0.0/16',
                                    handle=2),
           setup=[tc_filter('add', 'ip', 'enc_dst_ip 10.9.0.0/24',
                            handle=1)], **in_prio(2))
    c.case(t, 'Packets: enc_key_id 42 then enc_dst_ip 10.9.0.0/16 on one '
           'prio of a VXLAN device: a VNI 42 frame (both match) counts in '
           'the older mask, VNI 43 in the other',
           tc_filter('add', 'ip', 'enc_dst_ip 10.9.0.0/16', dev='vx0',
                     handle=2, tail='action drop'),
           setup=enc + [tc_filter('add', 'ip', 'enc_key_id 42', dev='vx0',
                                  handle=1, tail='action drop')],
           scapy=[(tunneled(vni=42), 2), (tunneled(vni=43), 1)],
           verify='$TC -s -j filter show dev vx0 ingress',
           match_json=counted('ip', [(1, [(TUN_INNER, 2)]),
                                     (2, [(TUN_INNER, 1)])]))


def drop_filter(op, words, handle):
    """tc filter add/replace of a protocol ip filter with action drop."""
    return tc_filter(op, 'ip', words, handle=handle, tail='action drop')


def mask_order_cases(c, t):
    """Which filter counts a frame that filters of two masks match: the
    one in the older mask, whatever the filters' own age or handles."""
    A = 'dst_ip 10.1.0.0/24'          # mask 1
    wide = 'dst_ip 10.0.0.0/8'        # mask 2, covers mask 1's keys
    add = functools.partial(drop_filter, 'add')
    c.case(t, 'Mask order: a filter added last into the oldest mask counts '
           'the frame a filter of a younger mask matches too',
           add('dst_ip 10.2.0.0/24', 3), setup=[add(A, 1), add(wide, 2)],
           scapy=[(ip4(dst='10.2.0.1'), 2), (ip4(dst='10.1.0.1'), 1),
                  (ip4(dst='10.9.0.1'), 4)],
           verify=SHOW_STATS, match_json=counted('ip', [
               (1, [(ip4(dst='10.1.0.1'), 1)]),
               (2, [(ip4(dst='10.9.0.1'), 4)]),
               (3, [(ip4(dst='10.2.0.1'), 2)])]))
    c.case(t, 'Mask order, not handle order: handle 2 in the older mask '
           'counts a frame handle 1 (younger mask) matches too',
           add(wide, 1), setup=[add(A, 2)],
           scapy=[(ip4(dst='10.1.0.1'), 2), (ip4(dst='10.9.0.1'), 1)],
           verify=SHOW_STATS, match_json=counted('ip', [
               (1, [(ip4(dst='10.9.0.1'), 1)]),
               (2, [(ip4(dst='10.1.0.1'), 2)])]))
    # dst_ip 10.1.0.0/24 (handle 1) and src_ip 10.2.0.0/16 (handle 2):
    # ip4() is in both, src 10.9.0.1 only in 1, dst 10.3.0.1 only in 2
    B = 'src_ip 10.2.0.0/16'
    only_a, only_b = ip4(src='10.9.0.1'), ip4(dst='10.3.0.1')
    frames = [(ip4(), 2), (only_a, 1), (only_b, 4)]
    delete = '$TC filter del dev $DEV1 ingress protocol ip prio 1 ' \
             'handle %d flower'
    c.case(t, 'Mask order: dst_ip /24 (older mask) then src_ip /16: the '
           'frame both match counts in dst_ip',
           add(B, 2), setup=[add(A, 1)], scapy=frames, verify=SHOW_STATS,
           match_json=counted('ip', [(1, [(ip4(), 2), (only_a, 1)]),
                                     (2, [(only_b, 4)])]))
    c.case(t, 'Mask order flips when the oldest mask empties: its only '
           'filter deleted and added again, its mask is the youngest and '
           'the other mask counts the frame both match',
           add(A, 1), setup=[add(A, 1), add(B, 2), delete % 1],
           scapy=frames, verify=SHOW_STATS,
           match_json=counted('ip', [(1, [(only_a, 1)]),
                                     (2, [(ip4(), 2), (only_b, 4)])]))
    c.case(t, 'Mask order stays while the oldest mask keeps a filter: one '
           'of its two filters deleted and added again still counts first',
           add(A, 1), setup=[add(A, 1), add(B, 2),
                             add('dst_ip 10.5.0.0/24', 3), delete % 1],
           scapy=frames, verify=SHOW_STATS,
           match_json=counted('ip', [(1, [(ip4(), 2), (only_a, 1)]),
                                     (2, [(only_b, 4)]), (3, [])]))


def mask_replace_cases(c, t):
    """Replace on a prio of several masks: a key of the filter's own mask
    takes its place, and so does one of another mask (which stock refuses
    with EINVAL)."""
    add = functools.partial(drop_filter, 'add')
    rep = functools.partial(drop_filter, 'replace')
    setup = [add('dst_ip 10.1.0.0/24', 1), add('src_ip 10.2.0.0/16', 2)]
    old, new = ip4(src='10.9.0.1'), ip4(src='10.9.0.1', dst='10.3.0.1')
    c.case(t, 'Replace on a prio of two masks with a key of the same mask: '
           'handle 1 stays, its new key counts, its old key not',
           rep('dst_ip 10.3.0.0/24', 1), setup=setup,
           scapy=[(new, 2), (old, 1), (ip4(dst='10.3.0.1'), 4),
                  (ip4(dst='10.7.0.1'), 3)],
           verify=SHOW_STATS, match_json=counted('ip', [
               (1, [(new, 2), (ip4(dst='10.3.0.1'), 4)]),
               (2, [(ip4(dst='10.7.0.1'), 3)])]))
    c.case(t, 'Replace on a prio of two masks with a key of the same mask: '
           'the dump shows the new key under the same handle',
           rep('dst_ip 10.3.0.0/24', 1), setup=setup, verify=SHOW,
           match_json=dump(('ip', 1, [
               {'handle': 1, 'keys': {'eth_type': 'ipv4',
                                      'dst_ip': '10.3.0.0/24'}},
               {'handle': 2, 'keys': {'eth_type': 'ipv4',
                                      'src_ip': '10.2.0.0/16'}}])))
    # stock refuses these with EINVAL (fl_check_assign_mask() keeps a
    # replaced filter in its mask); ours swaps the filter in place, by
    # design (README): the new filter is published before the old goes;
    # tdc/compare.py files stock's failures of this theme under that cause
    by_design = 'replace-mask'
    c.case(by_design, 'Replace with a key of a new mask works in place: '
           'handle 1 takes the new key, which counts; its old key no longer '
           'does',
           rep('dst_ip 10.3.0.0/16', 1), setup=setup,
           scapy=[(old, 2), (new, 1)],
           verify=SHOW_STATS, match_json=counted('ip', [
               (1, [(new, 1)]), (2, [])]))
    c.case(by_design, 'Replace with a key of the other mask of the prio '
           '($FLNL): accepted, both filters stay',
           flnl('replace', 'ip', ['ipv4_src=10.3.0.0',
                                  'ipv4_src_mask=255.255.0.0'], handle=1),
           setup=setup, **in_prio(2))
    c.case(by_design, 'Replace the only filter with another mask: the '
           'filter takes the new key under its handle',
           tc_filter('replace', 'ip', 'dst_ip 10.0.0.0/16', handle=1),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24', handle=1)],
           verify=SHOW, exact=dump(('ip', 1, [
               {'handle': 1, 'keys': {'eth_type': 'ipv4',
                                      'dst_ip': '10.0.0.0/16'},
                'not_in_hw': True}])))
    c.case(by_design, 'Replace with a key of another member (dst_ip to '
           'src_ip): the dump shows the new key only',
           tc_filter('replace', 'ip', 'src_ip 10.0.0.0/16', handle=1),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24', handle=1)],
           verify=SHOW, exact=dump(('ip', 1, [
               {'handle': 1, 'keys': {'eth_type': 'ipv4',
                                      'src_ip': '10.0.0.0/16'},
                'not_in_hw': True}])))


def mask_eexist_cases(c, t):
    """The same masked key twice in one prio: EEXIST, whatever the other
    masks of the prio."""
    dup = 'A filter with the same key exists in this flower instance'
    c.refused(t, 'Same key twice on one instance (other handle): EEXIST',
              tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24', handle=2), 2,
              dup, setup=[tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24',
                                    handle=1)], left=1)
    c.refused(t, 'Keys equal under the mask (10.1.0.1/24 and 10.1.0.2/24) '
              'are the same key: EEXIST',
              tc_filter('add', 'ip', 'dst_ip 10.1.0.2/24', handle=2), 2,
              dup, setup=[tc_filter('add', 'ip', 'dst_ip 10.1.0.1/24',
                                    handle=1)], left=1)
    c.refused(t, 'Same masked MAC key twice (bits outside the /24 differ): '
              'EEXIST',
              tc_filter('add', 'all', 'src_mac 02:00:00:aa:bb:cc/24',
                        handle=2), 2, dup,
              setup=[tc_filter('add', 'all', 'src_mac 02:00:00:11:22:33/24',
                               handle=1)], left=1)
    c.refused(t, 'Same key twice with automatic handles: EEXIST',
              tc_filter('add', 'ipv6', 'ip_proto tcp dst_port 22'), 2, dup,
              setup=[tc_filter('add', 'ipv6', 'ip_proto tcp dst_port 22')],
              left=1)
    c.refused(t, 'Replace a filter with the key of another filter on the '
              'instance: EEXIST, both stay',
              tc_filter('replace', 'ip', 'dst_ip 10.2.0.0/24', handle=1), 2,
              dup, setup=[tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24',
                                    handle=1),
                          tc_filter('add', 'ip', 'dst_ip 10.2.0.0/24',
                                    handle=2)], left=2)
    c.case(t, 'Same key on two prios is fine: two instances',
           tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24', prio=2, handle=1),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24', handle=1)],
           **filters(2))
    c.case(t, 'Same key with an action that differs is still the same '
           'key: EEXIST',
           tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24 action drop',
                     handle=2), exp=2,
           setup=[tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24 action ok',
                            handle=1)],
           **filters(1))
    # tc shows the errno only when the kernel gives no extack (the stock
    # flower gives none here): $FLNL checks the errno itself
    two = [tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24', handle=1),
           tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8', handle=2)]
    refused_many(c, t, 'Two masks on one prio: a key equal under the older '
                 'mask to its filter (10.1.0.77/24), and one equal under the '
                 'younger mask to its filter (10.9.9.9/8, with a handle and '
                 'without), are each refused with EEXIST; both filters stay',
                 [(flnl('add', 'ip', ['ipv4_dst=10.1.0.77',
                                      'ipv4_dst_mask=255.255.255.0'],
                        handle=3), 17, ''),
                  (flnl('add', 'ip', ['ipv4_dst=10.9.9.9',
                                      'ipv4_dst_mask=255.0.0.0'],
                        handle=3), 17, ''),
                  (flnl('add', 'ip', ['ipv4_dst=10.9.9.9',
                                      'ipv4_dst_mask=255.0.0.0']), 17, '')],
                 setup=two, left=2)


# --- chain templates and num_of_vlans -------------------------------------------
TMPLT = '$TC chain add dev $DEV1 ingress protocol ip chain %d flower ' \
        'dst_ip 192.0.2.0/24'
CHAIN_SHOW = '$TC -j chain show dev $DEV1 ingress'
# the stock flower's extack (NL_SET_ERR_MSG_MOD puts the module's name
# before it)
MISFIT = r'Error: (?:cls_flower: )?Mask does not fit the template\.'


def tmplt_json(chain):
    return [{'parent': 'ffff:', 'kind': 'flower', 'chain': chain,
             'options': {'keys': {'eth_type': 'ipv4',
                                  'dst_ip': '192.0.2.0/24'}}}]


def template_cases(c):
    """templates: a flower chain template (tc chain add ... flower KEYS)
    fixes which mask bits the chain's filters may use: a filter whose
    mask has a bit the template's has not is refused."""
    t = 'templates'

    def add(words, chain=0, handle=1, tail=''):
        return ' '.join(w for w in (
            '$TC filter add dev $DEV1 ingress protocol ip pref 1 chain %d '
            'handle %d flower' % (chain, handle), words, tail) if w)
    c.case(t, 'Chain template on chain 0 (protocol ip, flower dst_ip '
           '192.0.2.0/24): accepted, tc -j chain show gives it back',
           TMPLT % 0, verify=CHAIN_SHOW, exact=tmplt_json(0))
    c.case(t, 'Chain template: tc chain show prints the template\'s '
           'kind, chain and keys', '$TC chain show dev $DEV1 ingress',
           setup=[TMPLT % 0], verify='$TC chain show dev $DEV1 ingress',
           pattern=r'\Achain parent ffff: flower chain 0 \n  eth_type ipv4\n'
                   r'  dst_ip 192\.0\.2\.0/24\n\Z')
    c.case(t, 'Chain template on chain 3: accepted, shown on chain 3',
           TMPLT % 3, verify=CHAIN_SHOW, exact=tmplt_json(3))
    hit, miss = ip4(dst='192.0.2.7'), ip4(dst='192.0.3.7')
    c.case(t, 'Packets: a filter with the template\'s mask (dst_ip '
           '192.0.2.0/24) is accepted and counts its frames',
           add('dst_ip 192.0.2.0/24', tail='action drop'),
           setup=[TMPLT % 0], scapy=[(hit, 2), (miss, 1)],
           verify=SHOW_STATS, match_json=counted('ip', [(1, [(hit, 2)])]))
    for words, what in [('dst_ip 10.0.0.0/16', 'a /16: fewer bits'),
                        ('', 'no key but the protocol')]:
        c.case(t, 'A filter whose mask fits the template (%s) is accepted'
               % what, add(words), setup=[TMPLT % 0], **in_prio(1))
    for words, what in [('src_ip 192.0.2.1', 'src_ip: another key'),
                        ('dst_ip 192.0.2.1', 'dst_ip /32: bits outside '
                         'the /24'),
                        ('ip_proto tcp', 'ip_proto: another key')]:
        refused_rx(c, t, 'A filter whose mask does not fit the template '
                   '(%s) is refused: Mask does not fit the template' % what,
                   add(words), MISFIT, setup=[TMPLT % 0])
    refused_rx(c, t, 'A misfit beside a fitting filter is refused, the '
               'fitting one stays', add('src_ip 192.0.2.1', handle=2),
               MISFIT, setup=[TMPLT % 0, add('dst_ip 192.0.2.0/24')],
               left=1)
    refused_rx(c, t, 'A template on chain 3 holds in chain 3: a misfit '
               'there is refused', add('src_ip 192.0.2.1', chain=3),
               MISFIT, setup=[TMPLT % 3])
    c.case(t, 'A template on chain 3 does not hold in chain 0: a filter '
           'that would not fit it is accepted there',
           add('src_ip 192.0.2.1'), setup=[TMPLT % 3], **in_prio(1))
    delete = '$TC chain del dev $DEV1 ingress chain 0'
    c.case(t, 'tc chain del removes the template and the chain\'s filters: '
           'tc -j chain show is empty', delete,
           setup=[TMPLT % 0, add('dst_ip 192.0.2.0/24')], verify=CHAIN_SHOW,
           exact=[])
    c.case(t, 'tc chain del removes the template and the chain\'s filters: '
           'no filter left', delete,
           setup=[TMPLT % 0, add('dst_ip 192.0.2.0/24')], **filters(0))
    c.case(t, 'After tc chain del, a filter the template refused is '
           'accepted', add('src_ip 192.0.2.1'), setup=[TMPLT % 0, delete],
           **in_prio(1))


def num_of_vlans_cases(c):
    """keys-vlan/qinq and packets-vlan/qinq: num_of_vlans asks for that
    many tags; with it, vlan and cvlan keys need no TPID protocol (the
    tags' TPIDs are then not matched) and vlan_ethtype keys what follows
    the tag."""
    q, ad = 0x8100, 0x88a8
    add = '$TC filter add dev $DEV1 ingress pref 1 flower '

    def v4(src):
        return '/'.join([layer('IP', src=src, dst='10.1.0.1'), udp()])
    forms = [
        ('vlan', 'num_of_vlans 1 vlan_prio 5 (no protocol: all)',
         add + 'num_of_vlans 1 vlan_prio 5', 'all',
         {'num_of_vlans': 1, 'vlan_prio': 5},
         [dot1q(vlan=10, prio=5), dot1q(vlan=20, prio=5, tpid=ad)],
         [dot1q(vlan=10, prio=4), tags((q, 10, 5), (q, 20, 5)), ip4()],
         'one tag of prio 5 (802.1Q or 802.1ad)', 'prio 4, two tags or '
         'none'),
        ('qinq', 'protocol 802.1q num_of_vlans 2 vlan_id 10 cvlan_id 20',
         '$TC filter add dev $DEV1 ingress protocol 802.1q pref 1 flower '
         'num_of_vlans 2 vlan_id 10 cvlan_id 20', '802.1q',
         {'num_of_vlans': 2, 'vlan_id': 10, 'cvlan_id': 20},
         [tags((q, 10, 0), (q, 20, 0)), tags((q, 10, 3), (ad, 20, 1))],
         [tags((q, 10, 0), (q, 21, 0)), tags((q, 11, 0), (q, 20, 0)),
          tags((q, 10, 0)), tags((q, 10, 0), (q, 20, 0), (q, 30, 0)),
          tags((ad, 10, 0), (q, 20, 0))],
         'two tags, 10 then 20 (any inner TPID)', 'other ids, one or '
         'three tags, an 802.1ad outer tag'),
        ('vlan', 'num_of_vlans 1 vlan_ethtype ip src_ip 192.0.2.1 (no '
         'protocol: all)',
         add + 'num_of_vlans 1 vlan_ethtype ip src_ip 192.0.2.1', 'all',
         {'num_of_vlans': 1, 'vlan_ethtype': 'ip', 'eth_type': 'ipv4',
          'src_ip': '192.0.2.1'},
         [tags((q, 10, 0), inner=v4('192.0.2.1')),
          tags((ad, 10, 0), inner=v4('192.0.2.1'))],
         [tags((q, 10, 0), inner=v4('192.0.2.2')), ip4(src='192.0.2.1'),
          tags((q, 10, 0), (q, 20, 0), inner=v4('192.0.2.1')),
          v6_in_tag(vlan=10)],
         'one tag then IPv4 from 192.0.2.1', 'another source, no tag, two '
         'tags, IPv6'),
    ]
    for family, label, cmd, proto, keys, hit, miss, hits, misses in forms:
        c.case('keys-' + family, 'Add %s: accepted, tc -j filter show '
               'gives back exactly its keys' % label, cmd, verify=SHOW,
               exact=dump((proto, 1, [{'handle': 1, 'keys': keys,
                                       'not_in_hw': True}])))
        c.case('packets-' + family, 'Packets: %s counts the frames with %s, '
               'not %s' % (label, hits, misses), cmd + ' action drop',
               scapy=[(p, 1) for p in hit + miss], verify=SHOW_STATS,
               match_json=counted(proto, [(1, [(p, 1) for p in hit])]))


def handle_cases(c):
    t = 'handles'

    def one(handle, proto='ip', words='dst_ip 10.0.0.0/8'):
        return {'handle': handle, 'keys': {'eth_type': 'ipv4',
                                           'dst_ip': words.split()[1]},
                'not_in_hw': True}
    c.case(t, 'Explicit handle 0x10 is kept and dumped as 16',
           tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8', handle='0x10'),
           verify=SHOW, exact=dump(('ip', 1, [one(16)])))
    c.case(t, 'Automatic handles are allocated from 1 upward: 1, 2, 3',
           tc_filter('add', 'ip', 'dst_ip 12.0.0.0/8'),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8'),
                  tc_filter('add', 'ip', 'dst_ip 11.0.0.0/8')],
           verify=SHOW, exact=dump(('ip', 1, [
               one(1), one(2, words='dst_ip 11.0.0.0/8'),
               one(3, words='dst_ip 12.0.0.0/8')])))
    c.case(t, 'An automatic handle fills the lowest gap (2 after 1, 2, 3 '
           'and deleting 2)',
           tc_filter('add', 'ip', 'dst_ip 13.0.0.0/8'),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8'),
                  tc_filter('add', 'ip', 'dst_ip 11.0.0.0/8'),
                  tc_filter('add', 'ip', 'dst_ip 12.0.0.0/8'),
                  '$TC filter del dev $DEV1 ingress protocol ip prio 1 '
                  'handle 2 flower'],
           verify=SHOW, exact=dump(('ip', 1, [
               one(1), one(2, words='dst_ip 13.0.0.0/8'),
               one(3, words='dst_ip 12.0.0.0/8')])))
    c.case(t, 'An automatic handle after an explicit 1 is 2',
           tc_filter('add', 'ip', 'dst_ip 11.0.0.0/8'),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8', handle=1)],
           verify=SHOW, exact=dump(('ip', 1, [
               one(1), one(2, words='dst_ip 11.0.0.0/8')])))
    c.case(t, 'The largest handle, 0xffffffff, is accepted and dumped',
           tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8', handle='0xffffffff'),
           verify=SHOW,
           exact=dump(('ip', 1, [one(0xffffffff)])))
    c.case(t, 'Get by the largest handle 0xffffffff',
           '$TC -j filter get dev $DEV1 ingress protocol ip prio 1 handle '
           '0xffffffff flower',
           setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8',
                            handle='0xffffffff')],
           verify='$TC -j filter get dev $DEV1 ingress protocol ip prio 1 '
                  'handle 0xffffffff flower',
           match_json=[{'options': one(0xffffffff)}])
    c.case(t, 'Delete by the largest handle 0xffffffff',
           '$TC filter del dev $DEV1 ingress protocol ip prio 1 handle '
           '0xffffffff flower',
           setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8',
                            handle='0xffffffff'),
                  tc_filter('add', 'ip', 'dst_ip 11.0.0.0/8', handle=1)],
           verify=SHOW, exact=dump(('ip', 1, [
               one(1, words='dst_ip 11.0.0.0/8')])))
    c.case(t, 'After handle 0xffffffff an automatic handle starts at 1',
           tc_filter('add', 'ip', 'dst_ip 11.0.0.0/8'),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8',
                            handle='0xffffffff')],
           verify=SHOW, exact=dump(('ip', 1, [
               one(1, words='dst_ip 11.0.0.0/8'), one(0xffffffff)])))
    c.case(t, 'Handles above INT_MAX (0x80000000) are accepted when given',
           tc_filter('add', 'ip', 'dst_ip 11.0.0.0/8', handle='0x80000000'),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8',
                            handle='0x7fffffff')],
           verify=SHOW, exact=dump(('ip', 1, [
               one(0x7fffffff), one(0x80000000,
                                    words='dst_ip 11.0.0.0/8')])))
    c.case(t, 'The dump lists filters in handle order, not insertion '
           'order',
           tc_filter('add', 'ip', 'dst_ip 12.0.0.0/8', handle=5),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8', handle=9),
                  tc_filter('add', 'ip', 'dst_ip 11.0.0.0/8', handle=2)],
           verify=SHOW, exact=dump(('ip', 1, [
               one(2, words='dst_ip 11.0.0.0/8'),
               one(5, words='dst_ip 12.0.0.0/8'), one(9)])))
    exists = 'Filter already exists'
    c.refused(t, 'add with a handle that exists: Filter already exists '
              '(EEXIST)',
              tc_filter('add', 'ip', 'dst_ip 11.0.0.0/8', handle=1), 2,
              exists, setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8',
                                       handle=1)], left=1)
    c.refused(t, 'add with the largest handle twice: Filter already exists',
              tc_filter('add', 'ip', 'dst_ip 11.0.0.0/8',
                        handle='0xffffffff'), 2, exists,
              setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8',
                               handle='0xffffffff')], left=1)
    c.refused(t, 'add with the handle an automatic filter got: Filter '
              'already exists',
              tc_filter('add', 'ip', 'dst_ip 11.0.0.0/8', handle=1), 2,
              exists, setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8')],
              left=1)
    c.case(t, 'replace keeps the handle (0x1234) and takes the new key',
           tc_filter('replace', 'ip', 'dst_ip 11.0.0.0/8', handle='0x1234'),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8',
                            handle='0x1234')],
           verify=SHOW, exact=dump(('ip', 1, [
               one(0x1234, words='dst_ip 11.0.0.0/8')])))
    c.case(t, 'replace with the same key swaps the filter: handle, key '
           'kept, new action',
           tc_filter('replace', 'ip', 'dst_ip 10.0.0.0/8 action drop',
                     handle=3),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8 action ok',
                            handle=3)],
           verify=SHOW,
           match_json=[{'kind': 'flower'}, {'options': {
               'handle': 3, 'keys': {'dst_ip': '10.0.0.0/8'},
               'actions': [{'kind': 'gact',
                            'control_action': {'type': 'drop'}}]}}])
    c.case(t, 'replace of a handle that does not exist creates the filter',
           tc_filter('replace', 'ip', 'dst_ip 10.0.0.0/8', handle=8),
           verify=SHOW, exact=dump(('ip', 1, [one(8)])))
    c.case(t, 'replace without a handle creates a filter with handle 1',
           tc_filter('replace', 'ip', 'dst_ip 10.0.0.0/8'),
           verify=SHOW, exact=dump(('ip', 1, [one(1)])))
    c.case(t, 'change keeps the handle and takes the new key',
           tc_filter('change', 'ip', 'dst_ip 11.0.0.0/8', handle=6),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8', handle=6)],
           verify=SHOW, exact=dump(('ip', 1, [
               one(6, words='dst_ip 11.0.0.0/8')])))
    c.refused(t, 'change of a handle that does not exist is refused by tc '
              'core (no NLM_F_CREATE)',
              tc_filter('change', 'ip', 'dst_ip 11.0.0.0/8', handle=6), 2,
              'Need both RTM_NEWTFILTER and NLM_F_CREATE to create a new '
              'filter',
              setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8', handle=5)],
              left=1)
    c.refused(t, 'delete of a handle that does not exist: not found',
              '$TC filter del dev $DEV1 ingress protocol ip prio 1 handle 9 '
              'flower', 2, 'Specified filter handle not found',
              setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8', handle=5)],
              left=1)
    c.refused(t, 'get of a handle that does not exist: not found',
              '$TC filter get dev $DEV1 ingress protocol ip prio 1 handle 9 '
              'flower', 2, 'Specified filter handle not found',
              setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8', handle=5)],
              left=1)
    c.case(t, 'Get one filter out of three by handle',
           '$TC -j filter get dev $DEV1 ingress protocol ip prio 1 handle 2 '
           'flower',
           setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8', handle=1),
                  tc_filter('add', 'ip', 'dst_ip 11.0.0.0/8', handle=2),
                  tc_filter('add', 'ip', 'dst_ip 12.0.0.0/8', handle=3)],
           verify='$TC -j filter get dev $DEV1 ingress protocol ip prio 1 '
                  'handle 2 flower',
           match_json=[{'options': one(2, words='dst_ip 11.0.0.0/8')}])
    c.case(t, 'A deleted handle can be given again',
           tc_filter('add', 'ip', 'dst_ip 11.0.0.0/8', handle=4),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8', handle=4),
                  tc_filter('add', 'ip', 'dst_ip 12.0.0.0/8', handle=5),
                  '$TC filter del dev $DEV1 ingress protocol ip prio 1 '
                  'handle 4 flower'],
           verify=SHOW, exact=dump(('ip', 1, [
               one(4, words='dst_ip 11.0.0.0/8'),
               one(5, words='dst_ip 12.0.0.0/8')])))
    c.case(t, 'The same handle on two prios: two filters, one per instance',
           tc_filter('add', 'ip', 'src_ip 10.0.0.0/8', prio=2, handle=1),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8', handle=1)],
           **filters(2))


def delete_more_cases(c):
    t = 'delete'
    two = [tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24', handle=1),
           tc_filter('add', 'ip', 'dst_ip 10.2.0.0/24', handle=2)]
    c.case(t, 'Delete the last filter: the instance goes too, nothing is '
           'dumped',
           '$TC filter del dev $DEV1 ingress protocol ip prio 1 handle 1 '
           'flower',
           setup=[tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24', handle=1)],
           **filters(0))
    c.case(t, 'Delete a whole prio: all its filters go, the other prio '
           'stays',
           '$TC filter del dev $DEV1 ingress protocol ip prio 1',
           setup=two + [tc_filter('add', 'ip', 'src_ip 10.0.0.0/8', prio=2,
                                  handle=1)],
           verify=SHOW, exact=dump(('ip', 2, [
               {'handle': 1, 'keys': {'eth_type': 'ipv4',
                                      'src_ip': '10.0.0.0/8'},
                'not_in_hw': True}])))
    c.case(t, 'Flush: deleting every filter of the qdisc leaves nothing',
           '$TC filter del dev $DEV1 ingress',
           setup=two + [tc_filter('add', 'ipv6', 'dst_ip 2001:db8::/32',
                                  prio=2),
                        tc_filter('add', 'arp', 'arp_op request', prio=3)],
           **filters(0))
    c.case(t, 'Delete the ingress qdisc while filters are on it: the '
           'filters go with it', INGRESS_DEL, setup=two,
           verify='$TC qdisc show dev $DEV1 ingress', pattern=r'\A\s*\Z')
    c.case(t, 'After deleting the qdisc with filters a new qdisc starts '
           'empty and takes a new mask',
           tc_filter('add', 'ip', 'src_ip 10.0.0.0/8', handle=1),
           setup=two + [INGRESS_DEL, INGRESS], verify=SHOW,
           exact=dump(('ip', 1, [
               {'handle': 1, 'keys': {'eth_type': 'ipv4',
                                      'src_ip': '10.0.0.0/8'},
                'not_in_hw': True}])))
    c.case(t, 'Delete both filters one by one: nothing is left',
           '$TC filter del dev $DEV1 ingress protocol ip prio 1 handle 2 '
           'flower',
           setup=two + ['$TC filter del dev $DEV1 ingress protocol ip prio '
                        '1 handle 1 flower'],
           **filters(0))
    c.case(t, 'Delete the clsact qdisc with flower filters on ingress and '
           'egress', '$TC qdisc del dev $DEV1 clsact',
           setup=['$TC qdisc add dev $DEV1 clsact',
                  '$TC filter add dev $DEV1 ingress protocol ip prio 1 '
                  'flower dst_ip 10.0.0.0/8 action drop',
                  '$TC filter add dev $DEV1 egress protocol ip prio 1 '
                  'flower src_ip 10.0.0.0/8 action drop'],
           ingress=False,
           verify='$TC actions list action gact',
           pattern=r'\A\s*(total acts 0\s*)?\Z')
    c.case(t, 'Deleting a filter releases its action: gact index 1 goes',
           '$TC filter del dev $DEV1 ingress protocol ip prio 1 handle 1 '
           'flower',
           setup=[tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8 action drop '
                            'index 1', handle=1)],
           verify='$TC actions list action gact', pattern='index 1',
           count=0)
    c.case(t, 'A shared action survives the delete of one of its two '
           'filters (ref 1 after)',
           '$TC filter del dev $DEV1 ingress protocol ip prio 1 handle 1 '
           'flower',
           setup=['$TC actions add action gact drop index 9',
                  tc_filter('add', 'ip', 'dst_ip 10.0.0.0/8 action gact '
                            'index 9', handle=1),
                  tc_filter('add', 'ip', 'dst_ip 11.0.0.0/8 action gact '
                            'index 9', handle=2)],
           verify='$TC actions list action gact',
           pattern=r'index 9 ref 2 bind 1')


def flag_cases(c):
    t = 'add'
    c.case(t, 'skip_hw is accepted: the dump shows skip_hw and not_in_hw',
           tc_filter('add', 'ip', 'skip_hw dst_ip 10.0.0.0/8', handle=1),
           verify=SHOW, exact=dump(('ip', 1, [
               {'handle': 1, 'keys': {'eth_type': 'ipv4',
                                      'dst_ip': '10.0.0.0/8'},
                'skip_hw': True, 'not_in_hw': True}])))
    c.case(t, 'Without flags every filter is dumped not_in_hw (no '
           'offload)', tc_filter('add', 'ipv6', 'dst_ip 2001:db8::/32',
                                 handle=1),
           verify=SHOW, exact=dump(('ipv6', 1, [
               {'handle': 1, 'keys': {'eth_type': 'ipv6',
                                      'dst_ip': '2001:db8::/32'},
                'not_in_hw': True}])))
    c.case(t, 'verbose is accepted and not dumped as a key',
           tc_filter('add', 'ip', 'verbose dst_ip 10.0.0.0/8', handle=1),
           verify=SHOW, exact=dump(('ip', 1, [
               {'handle': 1, 'keys': {'eth_type': 'ipv4',
                                      'dst_ip': '10.0.0.0/8'},
                'not_in_hw': True}])))
    c.case(t, 'Netlink: TCA_FLOWER_FLAGS comes back as skip_hw|not_in_hw',
           tc_filter('add', 'ip', 'skip_hw dst_ip 10.0.0.0/8', handle=1),
           verify='$FLNL show --dev $DEV1',
           match_json=[{'handle': 0}, {'handle': 1, 'options': {
               'TCA_FLOWER_FLAGS': 9}}])
    c.case(t, 'skip_hw on the dummy device $DEV2 (no offload there '
           'either)',
           '$TC filter add dev $DEV2 ingress protocol ip prio 1 handle 1 '
           'flower skip_hw dst_ip 10.0.0.0/8 action drop',
           setup=['$TC qdisc add dev $DEV2 ingress'], ingress=False,
           verify='$TC -j filter show dev $DEV2 ingress',
           match_json=[{'kind': 'flower'}, {'options': {
               'handle': 1, 'skip_hw': True, 'not_in_hw': True}}])


TC_UNSUPPORTED = [
    # (protocol, tc words, the attribute the kernel names)
    ('ip', 'ip_proto tcp dst_port 10-20', 'KEY_PORT_DST_MIN'),
    ('ip', 'ip_proto udp src_port 1000-2000', 'KEY_PORT_SRC_MIN'),
    ('ipv6', 'ip_proto sctp dst_port 1-65535', 'KEY_PORT_DST_MIN'),
]


def tc_error_cases(c):
    """errors: what stock tc sends and the kernel refuses."""
    t = 'errors'
    for proto, words, attr in TC_UNSUPPORTED:
        c.refused(t, 'tc %s: refused with Unsupported flower attribute '
                  'TCA_FLOWER_%s' % (words, attr),
                  tc_filter('add', proto, words), 2,
                  'Unsupported flower attribute TCA_FLOWER_' + attr)
    c.refused(t, 'skip_sw is refused: this flower has no hardware offload',
              tc_filter('add', 'ip', 'skip_sw dst_ip 10.0.0.0/8'), 2,
              'skip_sw needs hardware offload, which this flower '
              'classifier does not provide')
    c.refused(t, 'skip_sw is refused also on $DEV2 and adds nothing',
              '$TC filter add dev $DEV2 ingress protocol ip prio 1 flower '
              'skip_sw dst_ip 10.0.0.0/8 action drop', 2,
              'skip_sw needs hardware offload, which this flower '
              'classifier does not provide', dev='$DEV2',
              setup=['$TC qdisc add dev $DEV2 ingress'])
    c.refused(t, 'skip_hw together with skip_sw: Invalid flower flags',
              tc_filter('add', 'ip', 'skip_hw skip_sw'), 2,
              'Invalid flower flags')
    c.refused(t, 'indev of a device that does not exist: Network device '
              'not found', tc_filter('add', 'ip', 'indev nosuchdev0'), 2,
              'Network device not found')
    c.refused(t, 'cvlan_id without a stacked tag (vlan_ethtype ip): '
              'refused naming what it needs',
              flnl('add', '802.1ad', ['vlan_id=3', 'vlan_eth_type=ip',
                                      'cvlan_id=4']), 22,
              'Key requires vlan_ethtype 802.1q or 802.1ad')
    c.refused(t, 'ip_flags with a bit tc does not name (raw 0x4): '
              'EOPNOTSUPP', flnl('add', 'ip', raw=['key_flags=00000004',
                                              'key_flags_mask=00000004']),
              95, 'Unsupported flower key flags: only frag and firstfrag')
    c.refused(t, 'ip_flags without its mask: Missing flags mask',
              flnl('add', 'ip', raw=['key_flags=00000001']), 22,
              'Missing flags mask')
    c.refused(t, 'mpls_label above 20 bits: refused with its range',
              flnl('add', 'mpls_uc', raw=['key_mpls_label=00001000']), 22,
              'Label must be between 0 and 1048575')
    c.refused(t, 'mpls_label on protocol ip: Key requires protocol mpls_uc '
              'or mpls_mc', flnl('add', 'ip', raw=['key_mpls_label=05000000']),
              22, 'Key requires protocol mpls_uc or mpls_mc')
    # tc 6.1 has no l2tpv3_sid: the filter goes in through $FLNL
    c.case('packets-l2tp', 'Packets: ip_proto 115 l2tpv3_sid 1234 ($FLNL) '
           'counts the matching frame and not sid 1235 or plain UDP',
           flnl('add', 'ip', ['ip_proto=115'],
                raw=['key_l2tpv3_sid=000004d2'], handle=1) +
           ' --action drop',
           scapy=[(l2tp(1234), 1), (l2tp(1235), 1), (ip4(), 1)],
           verify=SHOW_STATS,
           match_json=stats_json('ip', 1, ingress_bytes(l2tp(1234))))
    c.refused(t, 'TCA_FLOWER_KEY_ETH_TYPE other than the filter protocol',
              flnl('add', 'ip', ['eth_type=ipv6'], eth_type=False), 22,
              "Key eth_type differs from the filter's protocol")
    c.refused(t, 'An unsupported key is refused even next to supported '
              'ones, and adds nothing to an existing instance',
              tc_filter('add', 'ip', 'ip_proto tcp dst_port 1-2',
                        handle=2), 2,
              'Unsupported flower attribute TCA_FLOWER_KEY_PORT_DST_MIN',
              setup=[tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24',
                               handle=1)], left=1)
    c.refused(t, 'replace with an unsupported key is refused: the old '
              'filter stays',
              tc_filter('replace', 'ip',
                        'ip_proto udp src_port 1000-2000', handle=1), 2,
              'Unsupported flower attribute TCA_FLOWER_KEY_PORT_SRC_MIN',
              setup=[tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24',
                               handle=1)], left=1)
    c.refused(t, 'An unsupported key is refused on an empty instance and '
              'leaves no instance behind',
              tc_filter('add', 'ip', 'ip_proto tcp dst_port 1-2'), 2,
              'Unsupported flower attribute TCA_FLOWER_KEY_PORT_DST_MIN')


# Attribute -> a payload of the length the kernel's policy would expect,
# for the unsupported-attribute cases (the check is on the type first); 8
# bytes for a nested one.
def _payload(name):
    length = flower_attrs.BY_NAME[name].length
    return '00' * (8 if length is None else length)


def wrong_length_error(name):
    """(errno, extack) of the kernel's netlink policy for a payload of the
    wrong length: byte strings (MACs, IPv6 addresses) have a length
    range, integers an exact length."""
    if flower_attrs.BY_NAME[name].length in (6, 16):
        return 34, 'binary attribute size out of range'
    return 22, 'invalid attribute length'


UNSUPPORTED = [
    'IN_HW_COUNT', 'KEY_PORT_SRC_MIN', 'KEY_PORT_SRC_MAX',
    'KEY_PORT_DST_MIN', 'KEY_PORT_DST_MAX', 'KEY_HASH', 'KEY_HASH_MASK',
]

# mask attribute -> (protocol, attributes that satisfy its need, if any)
MASK_ONLY = [
    ('KEY_ETH_DST_MASK', 'all', []),
    ('KEY_ETH_SRC_MASK', 'all', []),
    ('KEY_IPV4_SRC_MASK', 'ip', []),
    ('KEY_IPV4_DST_MASK', 'ip', []),
    ('KEY_IPV6_SRC_MASK', 'ipv6', []),
    ('KEY_IPV6_DST_MASK', 'ipv6', []),
    ('KEY_TCP_SRC_MASK', 'ip', ['ip_proto=6']),
    ('KEY_TCP_DST_MASK', 'ip', ['ip_proto=6']),
    ('KEY_UDP_SRC_MASK', 'ip', ['ip_proto=17']),
    ('KEY_UDP_DST_MASK', 'ipv6', ['ip_proto=17']),
    ('KEY_SCTP_SRC_MASK', 'ip', ['ip_proto=132']),
    ('KEY_SCTP_DST_MASK', 'ip', ['ip_proto=132']),
    ('KEY_TCP_FLAGS_MASK', 'ip', ['ip_proto=6']),
    ('KEY_ICMPV4_TYPE_MASK', 'ip', ['ip_proto=1']),
    ('KEY_ICMPV4_CODE_MASK', 'ip', ['ip_proto=1']),
    ('KEY_ICMPV6_TYPE_MASK', 'ipv6', ['ip_proto=58']),
    ('KEY_ICMPV6_CODE_MASK', 'ipv6', ['ip_proto=58']),
    ('KEY_ARP_SIP_MASK', 'arp', []),
    ('KEY_ARP_TIP_MASK', 'arp', []),
    ('KEY_ARP_OP_MASK', 'arp', []),
    ('KEY_ARP_SHA_MASK', 'arp', []),
    ('KEY_ARP_THA_MASK', 'arp', []),
    ('KEY_IP_TOS_MASK', 'ip', []),
    ('KEY_IP_TTL_MASK', 'ipv6', []),
]
MASK_VALUE = {'l2addr': 'ff:ff:ff:00:00:00', 'ip4addr': '255.255.255.0',
              'ip6addr': 'ffff:ffff::'}
MASK_TYPE = {'ETH': 'l2addr', 'SHA': 'l2addr', 'THA': 'l2addr',
             'IPV4': 'ip4addr', 'SIP': 'ip4addr', 'TIP': 'ip4addr',
             'IPV6': 'ip6addr'}


def _mask_value(name):
    for word, kind in MASK_TYPE.items():
        if word in name:
            return MASK_VALUE[kind]
    return '0xf0'


# (attribute, wrong payload in hex, protocol, attributes before it)
WRONG_LENGTH = [
    ('KEY_ETH_DST', '0200000000', 'all', []),
    ('KEY_ETH_SRC_MASK', 'ffffffffffffff', 'all',
     ['eth_src=02:00:00:00:00:01']),
    ('KEY_ETH_TYPE', '00000800', 'ip', []),
    ('KEY_IP_PROTO', '0006', 'ip', []),
    ('KEY_IPV4_DST', '0a0000', 'ip', []),
    ('KEY_IPV4_SRC_MASK', 'ffffff00ff', 'ip', ['ipv4_src=10.0.0.0']),
    ('KEY_IPV6_SRC', '20010db8' + '00' * 11, 'ipv6', []),
    ('KEY_IPV6_DST_MASK', 'ff' * 17, 'ipv6', ['ipv6_dst=2001:db8::']),
    ('KEY_TCP_DST', '50', 'ip', ['ip_proto=6']),
    ('KEY_UDP_SRC_MASK', 'ffffff', 'ip', ['ip_proto=17', 'udp_src=53']),
    ('KEY_SCTP_DST', '', 'ip', ['ip_proto=132']),
    ('KEY_TCP_FLAGS', '02', 'ip', ['ip_proto=6']),
    ('KEY_ICMPV4_TYPE', '0800', 'ip', ['ip_proto=1']),
    ('KEY_ICMPV6_CODE', '', 'ipv6', ['ip_proto=58']),
    ('KEY_ARP_OP', '0001', 'arp', []),
    ('KEY_ARP_TIP', '0a00', 'arp', []),
    ('KEY_ARP_THA', '02000000000100', 'arp', []),
    ('KEY_IP_TOS', '1000', 'ip', []),
    ('KEY_IP_TTL_MASK', '', 'ip', ['ip_ttl=64']),
    ('KEY_VLAN_ID', '0a', '802.1q', []),
    ('KEY_VLAN_PRIO', '0300', '802.1q', []),
    ('KEY_VLAN_ETH_TYPE', '08', '802.1q', []),
    ('CLASSID', '0100', 'ip', []),
    ('FLAGS', '01', 'ip', []),
]

# (protocol, attributes, message, label, eth_type attribute sent)
NEEDS = [
    ('arp', ['ip_proto=6'], 'Key requires protocol ip or ipv6',
     'ip_proto on protocol arp'),
    ('all', ['ip_proto=17'], 'Key requires protocol ip or ipv6',
     'ip_proto without an ethertype'),
    ('802.1q', ['ip_tos=16'], 'Key requires protocol ip or ipv6',
     'ip_tos on protocol 802.1q'),
    ('arp', ['ip_ttl=64'], 'Key requires protocol ip or ipv6',
     'ip_ttl on protocol arp'),
    ('ipv6', ['ipv4_dst=10.0.0.1'], 'Key requires protocol ip',
     'an IPv4 address on protocol ipv6'),
    ('all', ['ipv4_src=10.0.0.1'], 'Key requires protocol ip',
     'an IPv4 address without an ethertype'),
    ('ip', ['ipv6_src=2001:db8::1'], 'Key requires protocol ipv6',
     'an IPv6 address on protocol ip'),
    ('arp', ['ipv6_dst=2001:db8::1'], 'Key requires protocol ipv6',
     'an IPv6 address on protocol arp'),
    ('ip', ['ip_proto=17', 'tcp_dst=80'], 'Key requires ip_proto tcp',
     'a tcp port with ip_proto udp'),
    ('ip', ['tcp_src=80'], 'Key requires ip_proto tcp',
     'a tcp port without ip_proto'),
    ('ipv6', ['ip_proto=17', 'tcp_flags=2'], 'Key requires ip_proto tcp',
     'tcp_flags with ip_proto udp'),
    ('ip', ['ip_proto=6', 'udp_dst=53'], 'Key requires ip_proto udp',
     'a udp port with ip_proto tcp'),
    ('ipv6', ['ip_proto=6', 'sctp_src=9'], 'Key requires ip_proto sctp',
     'an sctp port with ip_proto tcp'),
    ('ipv6', ['ip_proto=1', 'icmpv4_type=8'],
     'Key requires protocol ip and ip_proto icmp',
     'an ICMPv4 type on protocol ipv6'),
    ('ip', ['ip_proto=6', 'icmpv4_code=0'],
     'Key requires protocol ip and ip_proto icmp',
     'an ICMPv4 code with ip_proto tcp'),
    ('ip', ['ip_proto=58', 'icmpv6_type=128'],
     'Key requires protocol ipv6 and ip_proto icmpv6',
     'an ICMPv6 type on protocol ip'),
    ('ipv6', ['ip_proto=1', 'icmpv6_code=0'],
     'Key requires protocol ipv6 and ip_proto icmpv6',
     'an ICMPv6 code with ip_proto icmp'),
    ('ip', ['arp_op=1'], 'Key requires protocol arp or rarp',
     'arp_op on protocol ip'),
    ('ipv6', ['arp_sip=10.0.0.1'], 'Key requires protocol arp or rarp',
     'arp_sip on protocol ipv6'),
    ('all', ['arp_sha=02:00:00:00:00:01'],
     'Key requires protocol arp or rarp', 'arp_sha without an ethertype'),
    ('ip', ['vlan_id=10'], 'Key requires protocol 802.1q or 802.1ad',
     'vlan_id on protocol ip'),
    ('all', ['vlan_prio=1'], 'Key requires protocol 802.1q or 802.1ad',
     'vlan_prio without an ethertype'),
    ('ipv6', ['vlan_eth_type=ip'],
     'Key requires protocol 802.1q or 802.1ad',
     'vlan_ethtype on protocol ipv6'),
]


STRERROR = {17: 'File exists', 19: 'No such device', 22: 'Invalid argument',
            95: 'Operation not supported'}


def refused_many(c, theme, name, requests, setup=(), left=0, dev='$DEV1',
                 **kw):
    """requests: [($FLNL command, errno, extack message)], sent from one
    python process by `$FLNL batch` (importing pyroute2 takes ~10 s in the
    emulated guest), which checks each one's exit status and message and
    names, by number and arguments, every request that was not refused as
    expected; the verify step counts the filters left."""
    words = ' '.join('--expect %d %s %s' % (code, quote(msg),
                                            quote(r[len('$FLNL '):]))
                     for r, code, msg in requests)
    return c.case(theme, name, '$FLNL batch ' + words, setup=setup,
                  **filters(left, dev), **kw)


def netlink_error_cases(c):
    """errors: raw requests through $FLNL that tc would not build, the
    lists of them in three cases (each $FLNL start costs ~10 s in the
    guest; the requests then go out from one process)."""
    t = 'errors'
    unsupported = 'Unsupported flower attribute TCA_FLOWER_'
    refused_many(c, t, 'Netlink: each of the %d TCA_FLOWER_* attributes '
                 'this flower does not implement is refused naming it, and '
                 'types 0, MAX + 1, 0x7fff, nested MAX + 1 as unknown '
                 '(EOPNOTSUPP)' % len(UNSUPPORTED),
                 [(flnl('add', raw=['%s=%s' % (n.lower(), _payload(n))]),
                   95, unsupported + n) for n in UNSUPPORTED] +
                 [(flnl('add', raw=['%d=00000000' % n]), 95,
                   'Unknown flower attribute type')
                  for n in (0, TCA_FLOWER_MAX + 1, 0x7fff,
                            0x8000 | (TCA_FLOWER_MAX + 1))])
    refused_many(c, t, 'Netlink: each of the %d key masks without its key, '
                 'and %d attributes with a payload of the wrong length, are '
                 'refused (EINVAL)' % (len(MASK_ONLY), len(WRONG_LENGTH)),
                 [(flnl('add', proto, before + [
                     '%s=%s' % (name.lower(), _mask_value(name))]), 22,
                   'Mask given without its key')
                  for name, proto, before in MASK_ONLY] +
                 [(flnl('add', proto, before,
                        raw=['%s=%s' % (name.lower(), data)]),)
                  + wrong_length_error(name)
                  for name, data, proto, before in WRONG_LENGTH])
    refused_many(c, t, 'Netlink: %d keys that do not apply to the protocol '
                 'or ip_proto given, out-of-range VLAN fields, stacked VLAN '
                 'tags, bad flags and indev names are each refused'
                 % len(NEEDS),
                 [(flnl('add', proto, attrs), 22, message)
                  for proto, attrs, message, _ in NEEDS] +
                 [(flnl('add', '802.1q', ['vlan_id=%d' % v]), 22,
                   'VLAN id must be below 4096') for v in (4096, 65535)] +
                 [(flnl('add', '802.1ad', ['vlan_prio=%d' % p]), 22,
                   'VLAN priority must be below 8') for p in (8, 255)] +
                 [(flnl('add', 'ip', ['flags=%d' % f]), 22,
                   'Invalid flower flags')
                  for f in (8, 4, 3, 0x20, 0x80000000)] +
                 [(flnl('add', 'ip', ['flags=2']), 22,
                   'skip_sw needs hardware offload, which this flower '
                   'classifier does not provide'),
                  (flnl('add', 'ip', ['indev=nosuchdev0']), 19,
                   'Network device not found'),
                  (flnl('add', 'ip', ['indev=' + 'x' * 20]), 22,
                   'Interface name too long'),
                  # the first bad attribute decides
                  (flnl('add', 'ip', ['ipv4_dst_mask=255.0.0.0'],
                        raw=['%d=00' % (TCA_FLOWER_MAX + 1)]), 95,
                   'Unknown flower attribute type'),
                  (flnl('add', 'ipv6', ['ipv4_dst=10.0.0.1'],
                        raw=['key_hash=00000001']), 95,
                   unsupported + 'KEY_HASH')])
    c.case(t, 'Netlink: a non-contiguous IPv4 mask (tc takes prefixes '
           'only) is accepted and dumped as given',
           flnl('add', 'ip', ['ipv4_dst=10.0.0.1',
                              'ipv4_dst_mask=255.0.255.0'], handle=1),
           verify=SHOW, match_json=[{'kind': 'flower'}, {'options': {
               'handle': 1, 'keys': {'eth_type': 'ipv4',
                                     'dst_ip': '10.0.0.1/255.0.255.0'}}}])


def action_cases(c):
    t = 'actions'
    hit = ip4(dst='10.1.0.1')
    miss = ip4(dst='10.9.0.1')
    hb = ingress_bytes(hit)
    base = tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24', handle=1)
    counter = '$TC filter add dev $DEV1 ingress protocol ip prio 9 ' \
              'handle 1 flower action ok'

    def later(packets):
        """The prio 9 catch-all saw `packets` frames."""
        return [{'kind': 'flower'}, {'options': {'handle': 1, 'actions': [
            {'stats': {'packets': packets}}]}}]
    for act, kind, ctl, drops in (('drop', 'gact', 'drop', 1),
                                  ('pass', 'gact', 'pass', 0),
                                  ('ok', 'gact', 'pass', 0),
                                  ('continue', 'gact', 'continue', 0),
                                  ('pipe', 'gact', 'pipe', 0)):
        c.case(t, 'action %s: the matching frame is counted by the action '
               '(%d drop(s))' % (act, drops),
               base + ' action ' + act, scapy=[(hit, 1), (miss, 1)],
               verify=SHOW_STATS + ' prio 1',
               match_json=[{'kind': 'flower'}, {'options': {
                   'handle': 1, 'actions': [{
                       'kind': kind, 'control_action': {'type': ctl},
                       'stats': {'packets': 1, 'bytes': hb,
                                 'drops': drops}}]}}])
        # continue goes on with the next prio; pipe as the last action
        # ends classification like ok (TC_ACT_PIPE is a verdict >= 0)
        seen = 2 if act == 'continue' else 1
        c.case(t, 'action %s: the next prio sees %d of the 2 frames'
               % (act, seen), base + ' action ' + act,
               setup=[counter], scapy=[(hit, 1), (miss, 1)],
               verify=SHOW_STATS + ' prio 9', match_json=later(seen))
    c.case(t, 'Action stats count packets and bytes exactly (5 frames of '
           'different sizes)', base + ' action ok',
           scapy=[(ip4(dst='10.1.0.%d' % i, l4=udp() + '/Raw(load=b%r)'
                       % ('z' * (10 * i))), 1) for i in range(1, 6)],
           verify=SHOW_STATS,
           match_json=stats_json('ip', 5, sum(
               ingress_bytes(ip4(dst='10.1.0.%d' % i, l4=udp() +
                                 '/Raw(load=b%r)' % ('z' * (10 * i))))
               for i in range(1, 6))))
    c.case(t, 'A frame sent 7 times is counted 7 times', base + ' action ok',
           scapy=[(hit, 7), (miss, 3)], verify=SHOW_STATS,
           match_json=stats_json('ip', 7, 7 * hb))
    c.case(t, 'Two actions (skbedit mark, then gact ok) both count the '
           'frame', base + ' action skbedit mark 0x10 pipe action ok',
           setup=[counter], scapy=[(hit, 1), (miss, 1)],
           verify=SHOW_STATS + ' prio 1',
           match_json=[{'kind': 'flower'}, {'options': {
               'handle': 1, 'actions': [
                   {'order': 1, 'kind': 'skbedit', 'mark': 16,
                    'stats': {'packets': 1, 'bytes': hb}},
                   {'order': 2, 'kind': 'gact', 'stats': {'packets': 1}}]}}])
    c.case(t, 'skbedit mark as the last action (pipe) ends the '
           'classification: the next prio does not see the frame',
           base + ' action skbedit mark 0x10', setup=[counter],
           scapy=[(hit, 1)], verify=SHOW_STATS + ' prio 9',
           match_json=later(0))
    c.case(t, 'A shared gact (index 5) on two filters counts the frames of '
           'both',
           tc_filter('add', 'ip', 'dst_ip 10.2.0.0/24 action gact index 5',
                     handle=2),
           setup=['$TC actions add action gact drop index 5',
                  tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24 action gact '
                            'index 5', handle=1)],
           scapy=[(hit, 1), (ip4(dst='10.2.0.1'), 2), (miss, 1)],
           verify='$TC -s -j actions list action gact',
           match_json=[{'total acts': 1},
                       {'actions': [{'index': 5, 'ref': 3, 'bind': 2,
                                     'stats': {'packets': 3}}]}])
    # mirred: fla/flb, a veth pair inside the namespace with no IPv6
    # address (so that it sends nothing of its own)
    pair = ['$IP link add fla type veth peer name flb',
            '$IP link set fla addrgenmode none',
            '$IP link set flb addrgenmode none',
            '$IP link set fla up', '$IP link set flb up',
            '$TC qdisc add dev flb ingress',
            '$TC filter add dev flb ingress protocol ip prio 1 handle 1 '
            'flower dst_ip 10.1.0.0/24 action ok']
    on_flb = '$TC -s -j filter show dev flb ingress'
    c.case(t, 'mirred egress redirect to another veth: flb receives the '
           'matching frames only',
           base + ' action mirred egress redirect dev fla', setup=pair,
           scapy=[(hit, 2), (miss, 1)], verify=on_flb,
           match_json=stats_json('ip', 2, 2 * hb))
    c.case(t, 'mirred egress redirect steals the frame: the next prio on '
           'DEV1 does not see it',
           base + ' action mirred egress redirect dev fla',
           setup=pair + [counter], scapy=[(hit, 2), (miss, 1)],
           verify=SHOW_STATS + ' prio 9', match_json=later(1))
    c.case(t, 'mirred egress mirror: flb gets a copy of the matching frame',
           base + ' action mirred egress mirror dev fla', setup=pair,
           scapy=[(hit, 1), (miss, 1)], verify=on_flb,
           match_json=stats_json('ip', 1, hb))
    c.case(t, 'mirred egress mirror counts the frame in its own stats',
           base + ' action mirred egress mirror dev fla', setup=pair,
           scapy=[(hit, 3), (miss, 1)], verify=SHOW_STATS + ' prio 1',
           match_json=[{'kind': 'flower'}, {'options': {'actions': [
               {'kind': 'mirred', 'mirred_action': 'mirror',
                'to_dev': 'fla', 'stats': {'packets': 3}}]}}])
    c.case(t, 'mirred ingress redirect to flb: its ingress filter counts '
           'the frame',
           base + ' action mirred ingress redirect dev flb', setup=pair,
           scapy=[(hit, 1), (miss, 1)], verify=on_flb,
           match_json=stats_json('ip', 1, hb))
    c.case(t, 'police: frames within the burst pass, the rest are dropped '
           '(3 of 5 conform)',
           base + ' action police rate 8bit burst 100 conform-exceed '
           'drop/ok', scapy=[(hit, 5)], verify=SHOW_STATS + ' prio 1',
           match_json=[{'kind': 'flower'}, {'options': {'actions': [
               {'kind': 'police', 'stats': {'packets': 5, 'drops': 2,
                                            'overlimits': 2}}]}}])
    c.case(t, 'police drop: the dropped frames never reach the next prio, '
           'the conforming ones continue there',
           base + ' action police rate 8bit burst 100 conform-exceed '
           'drop/continue', setup=[counter], scapy=[(hit, 5)],
           verify=SHOW_STATS + ' prio 9', match_json=later(3))
    c.case(t, 'pedit sets the TTL and the redirected frame matches an '
           'ip_ttl filter on flb',
           base + ' action pedit ex munge ip ttl set 10 pipe action mirred '
           'egress redirect dev fla',
           setup=pair[:5] + [
               '$TC qdisc add dev flb ingress',
               '$TC filter add dev flb ingress protocol ip prio 1 handle 1 '
               'flower ip_ttl 10 action ok'],
           scapy=[(ip4(dst='10.1.0.1', ttl=64), 1)], verify=on_flb,
           match_json=stats_json('ip', 1, hb))
    c.case(t, 'vlan push then redirect: flb sees the frame with vlan_id 7',
           base + ' action vlan push id 7 pipe action mirred egress '
           'redirect dev fla',
           setup=pair[:5] + [
               '$TC qdisc add dev flb ingress',
               '$TC filter add dev flb ingress protocol 802.1q prio 1 '
               'handle 1 flower vlan_id 7 vlan_ethtype ip action ok'],
           scapy=[(hit, 1), (miss, 1)],
           verify='$TC -s -j filter show dev flb ingress',
           match_json=stats_json('802.1q', 1, hb))
    c.case(t, 'The action list is dumped: kind, control action, index',
           base + ' action skbedit mark 7 pipe action drop',
           verify=SHOW,
           match_json=[{'kind': 'flower'}, {'options': {'actions': [
               {'order': 1, 'kind': 'skbedit', 'mark': 7,
                'control_action': {'type': 'pipe'}},
               {'order': 2, 'kind': 'gact',
                'control_action': {'type': 'drop'}}]}}])
    c.case(t, 'replace swaps the action: frames after the replace are '
           'counted by the new one only',
           tc_filter('replace', 'ip', 'dst_ip 10.1.0.0/24 action drop',
                     handle=1),
           setup=[base + ' action ok'], scapy=[(hit, 2)], verify=SHOW_STATS,
           match_json=[{'kind': 'flower'}, {'options': {'actions': [
               {'control_action': {'type': 'drop'},
                'stats': {'packets': 2, 'drops': 2}}]}}])


def classid_cases(c):
    """classid: flower on the egress of a classful qdisc of fla puts the
    frames into classes; frames come in on $DEV1 and are redirected to
    fla by a matchall."""
    t = 'classid'
    fwd = ['$IP link add fla type veth peer name flb',
           '$IP link set fla addrgenmode none',
           '$IP link set flb addrgenmode none',
           '$IP link set fla up', '$IP link set flb up',
           INGRESS,
           '$TC filter add dev $DEV1 ingress protocol all prio 9 matchall '
           'action mirred egress redirect dev fla']
    prio = ['$TC qdisc add dev fla root handle 1: prio']
    htb = ['$TC qdisc add dev fla root handle 1: htb default 30',
           '$TC class add dev fla parent 1: classid 1:10 htb rate 100mbit',
           '$TC class add dev fla parent 1: classid 1:20 htb rate 100mbit',
           '$TC class add dev fla parent 1: classid 1:30 htb rate 100mbit']
    a, b, other = ip4(dst='10.3.0.1'), ip4(dst='10.3.0.2'), ip4(
        dst='10.3.0.3')
    size = frame_bytes(a)

    def on_fla(proto, words, handle, classid):
        return '$TC filter add dev fla parent 1: protocol %s prio 1 ' \
               'handle %d flower %s classid %s' % (proto, handle, words,
                                                   classid)

    def klass(kind, classid, nbytes, packets):
        # the class's own line, then its Sent line right after it: the
        # counts are that class's, never a later class's (a lazy .*? under
        # DOTALL would run on into the next block)
        return r'^class %s %s [^\n]*\n Sent %d bytes %d pkt ' % (
            kind, rx(classid), nbytes, packets)
    show = '$TC -s class show dev fla'
    c.case(t, 'prio qdisc: frames matching the classid 1:3 filter land '
           'in class 1:3 (2 frames)',
           on_fla('ip', 'dst_ip 10.3.0.1', 1, '1:3'), ingress=False,
           setup=fwd + prio,
           scapy=[(a, 2), (other, 1)], verify=show,
           pattern=klass('prio', '1:3', 2 * size, 2))
    c.case(t, 'prio qdisc: two filters, two classes, each counts its own '
           'frames (1:1)',
           on_fla('ip', 'dst_ip 10.3.0.2', 2, '1:1'), ingress=False,
           setup=fwd + prio + [on_fla('ip', 'dst_ip 10.3.0.1', 1, '1:3')],
           scapy=[(a, 2), (b, 1), (other, 1)],
           verify=show, pattern=klass('prio', '1:1', size, 1))
    c.case(t, 'prio qdisc: two filters, two classes, each counts its own '
           'frames (1:3)',
           on_fla('ip', 'dst_ip 10.3.0.2', 2, '1:1'), ingress=False,
           setup=fwd + prio + [on_fla('ip', 'dst_ip 10.3.0.1', 1, '1:3')],
           scapy=[(a, 2), (b, 1), (other, 1)],
           verify=show, pattern=klass('prio', '1:3', 2 * size, 2))
    c.case(t, 'htb: frames matching the classid 1:10 filter land in class '
           '1:10, others not',
           on_fla('ip', 'dst_ip 10.3.0.1', 1, '1:10'), ingress=False,
           setup=fwd + htb,
           scapy=[(a, 3), (other, 2)], verify=show,
           pattern=klass('htb', '1:10', 3 * size, 3))
    c.case(t, 'htb: non-matching frames go to the default class 1:30, not '
           'to 1:20',
           on_fla('ip', 'dst_ip 10.3.0.1', 1, '1:20'), ingress=False,
           setup=fwd + htb,
           scapy=[(other, 2)], verify=show,
           pattern=klass('htb', '1:20', 0, 0))
    c.case(t, 'htb: an IPv6 filter with a masked dst_ip classifies into '
           '1:20',
           on_fla('ipv6', 'dst_ip 2001:db8:1::/48', 1, '1:20'),
           ingress=False, setup=fwd + htb,
           scapy=[(ip6(dst='2001:db8:1:2::3'), 2),
                  (ip6(dst='2001:db8:2::3'), 1)], verify=show,
           pattern=klass('htb', '1:20',
                         2 * frame_bytes(ip6(dst='2001:db8:1:2::3')), 2))
    c.case(t, 'htb: a tcp dst_port filter classifies into 1:10',
           on_fla('ip', 'ip_proto tcp dst_port 443', 1, '1:10'),
           ingress=False, setup=fwd + htb,
           scapy=[(ip4(l4=layer('TCP', dport=443)), 1),
                  (ip4(l4=layer('TCP', dport=80)), 1)], verify=show,
           pattern=klass('htb', '1:10',
                         frame_bytes(ip4(l4=layer('TCP', dport=443))), 1))
    c.case(t, 'classid with an action: the action runs and the frame '
           'still lands in the class',
           on_fla('ip', 'dst_ip 10.3.0.1', 1, '1:10') + ' action ok',
           ingress=False, setup=fwd + htb,
           scapy=[(a, 2)], verify=show,
           pattern=klass('htb', '1:10', 2 * size, 2))
    c.case(t, 'skbedit priority 1:3 on DEV1 ingress: the prio qdisc of '
           'fla puts the redirected frame into class 1:3',
           '$TC filter add dev $DEV1 ingress protocol ip prio 1 handle 1 '
           'flower dst_ip 10.3.0.1 action skbedit priority 1:3 pipe action '
           'mirred egress redirect dev fla', ingress=False,
           setup=fwd[:6] + prio, scapy=[(a, 2), (other, 1)], verify=show,
           pattern=klass('prio', '1:3', 2 * size, 2))
    c.case(t, 'classid is dumped as given on the classful qdisc',
           on_fla('ip', 'dst_ip 10.3.0.1', 1, '1:10'), ingress=False,
           setup=fwd[:5] + htb,
           verify='$TC -j filter show dev fla parent 1:',
           match_json=[{'kind': 'flower'}, {'options': {
               'handle': 1, 'classid': '1:10'}}])
    c.case(t, 'Deleting the classid filter: later frames go to the default '
           'class',
           '$TC filter del dev fla parent 1: protocol ip prio 1 handle 1 '
           'flower', ingress=False,
           setup=fwd + htb + [on_fla('ip', 'dst_ip 10.3.0.1', 1, '1:10')],
           scapy=[(a, 2)], verify=show,
           pattern=klass('htb', '1:10', 0, 0))


def packet_more_cases(c):
    """packets-*: classification beyond one key."""
    counter = '$TC filter add dev $DEV1 ingress protocol ip prio 9 ' \
              'handle 1 flower action ok'

    def at_prio(prio, packets, handle=1):
        return [{'kind': 'flower'}, {'options': {'handle': handle,
                                                 'actions': [{'stats': {
                                                     'packets': packets}}]}}]
    c.case('packets-ipv4', 'Packets: ten filters on one instance, each '
           'frame counted by its own filter (filter 3)',
           '$TC -b $BATCH_FILE',
           setup=["awk 'BEGIN { for (i = 1; i <= 10; i++) printf \"filter "
                  "add dev $DEV1 ingress protocol ip prio 1 handle %d flower "
                  "dst_ip 10.5.0.%d action ok\\n\", i, i }' > $BATCH_FILE"],
           teardown=['rm -f $BATCH_FILE'],
           scapy=[(ip4(dst='10.5.0.3'), 2), (ip4(dst='10.5.0.7'), 1),
                  (ip4(dst='10.5.0.11'), 1)],
           verify='$TC -s -j filter get dev $DEV1 ingress prio 1 handle 3 '
                  'protocol ip flower',
           match_json=[{'options': {'handle': 3, 'actions': [
               {'stats': {'packets': 2}}]}}])
    c.case('packets-ipv4', 'Packets: ten filters on one instance, a filter '
           'whose frame was not sent counts nothing (filter 4)',
           '$TC -b $BATCH_FILE',
           setup=["awk 'BEGIN { for (i = 1; i <= 10; i++) printf \"filter "
                  "add dev $DEV1 ingress protocol ip prio 1 handle %d flower "
                  "dst_ip 10.5.0.%d action ok\\n\", i, i }' > $BATCH_FILE"],
           teardown=['rm -f $BATCH_FILE'],
           scapy=[(ip4(dst='10.5.0.3'), 2), (ip4(dst='10.5.0.7'), 1)],
           verify='$TC -s -j filter get dev $DEV1 ingress prio 1 handle 4 '
                  'protocol ip flower',
           match_json=[{'options': {'handle': 4, 'actions': [
               {'stats': {'packets': 0}}]}}])
    c.case('packets-ipv4', 'Packets: prio 1 (/24) is tried before prio 2 '
           '(/16); the /16 filter sees only what /24 missed',
           tc_filter('add', 'ip', 'dst_ip 10.1.0.0/16 action ok', prio=2,
                     handle=1),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24 action ok',
                            handle=1)],
           scapy=[(ip4(dst='10.1.0.1'), 2), (ip4(dst='10.1.9.1'), 1)],
           verify=SHOW_STATS + ' prio 2', match_json=at_prio(2, 1))
    c.case('packets-ipv4', 'Packets: prio 1 (/24) counts its frames even '
           'though prio 2 (/16) would match them too',
           tc_filter('add', 'ip', 'dst_ip 10.1.0.0/16 action ok', prio=2,
                     handle=1),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24 action ok',
                            handle=1)],
           scapy=[(ip4(dst='10.1.0.1'), 2), (ip4(dst='10.1.9.1'), 1)],
           verify=SHOW_STATS + ' prio 1', match_json=at_prio(1, 2))
    c.case('packets-ipv4', 'Packets: after a delete the filter no longer '
           'matches; the next prio counts the frame',
           '$TC filter del dev $DEV1 ingress protocol ip prio 1 handle 1 '
           'flower',
           setup=[tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24 action ok',
                            handle=1),
                  tc_filter('add', 'ip', 'dst_ip 10.2.0.0/24 action ok',
                            handle=2), counter],
           scapy=[(ip4(dst='10.1.0.1'), 1)], verify=SHOW_STATS + ' prio 9',
           match_json=at_prio(9, 1))
    c.case('packets-ipv4', 'Packets: after a replace to another key the new '
           'key matches',
           tc_filter('replace', 'ip', 'dst_ip 10.7.0.0/24 action ok',
                     handle=1),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24 action ok',
                            handle=1)],
           scapy=[(ip4(dst='10.7.0.1'), 2), (ip4(dst='10.1.0.1'), 1)],
           verify=SHOW_STATS + ' prio 1', match_json=at_prio(1, 2))
    c.case('packets-ipv4', 'Packets: after a replace to another key the old '
           'key no longer matches',
           tc_filter('replace', 'ip', 'dst_ip 10.7.0.0/24 action ok',
                     handle=1),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.1.0.0/24 action ok',
                            handle=1), counter],
           scapy=[(ip4(dst='10.7.0.1'), 2), (ip4(dst='10.1.0.1'), 1)],
           verify=SHOW_STATS + ' prio 9', match_json=at_prio(9, 1))
    c.case('packets-ipv4', 'Packets: IPv4 fragments, first or not, carry '
           'no ports for flower: dst_port 80 counts the whole datagram only',
           tc_filter('add', 'ip', 'ip_proto udp dst_port 80 action ok',
                     handle=1),
           scapy=[(ip4(l4=udp(dport=80)), 1),
                  (ip4(l4=udp(dport=80), flags=1), 1),
                  (ip4(l4=udp(dport=80), frag=100), 1)],
           verify=SHOW_STATS, match_json=stats_json(
               'ip', 1, ingress_bytes(ip4(l4=udp(dport=80)))))
    ipip = ip4(dst='10.1.0.1', l4=layer('IP', src='10.8.0.1',
                                        dst='10.9.0.1') + '/' + udp())
    c.case('packets-ipv4', 'Packets: an IPIP frame is matched on its outer '
           'dst_ip, not on the encapsulated one',
           tc_filter('add', 'ip', 'dst_ip 10.1.0.1 action ok', handle=1),
           setup=[tc_filter('add', 'ip', 'dst_ip 10.9.0.1 action ok',
                            handle=2)],
           scapy=[(ipip, 1)], verify=SHOW_STATS,
           match_json=[{'kind': 'flower'},
                       {'options': {'handle': 1, 'actions': [
                           {'stats': {'packets': 1,
                                      'bytes': ingress_bytes(ipip)}}]}},
                       {'options': {'handle': 2, 'actions': [
                           {'stats': {'packets': 0}}]}}])
    c.case('packets-ipv4', 'Packets: protocol ip with no key counts IPv4 '
           'frames and no IPv6 or ARP', tc_filter('add', 'ip', 'action ok',
                                                 handle=1),
           scapy=[(ip4(), 2), (ip6(), 1), (arp_pkt(), 1)],
           verify=SHOW_STATS, match_json=stats_json('ip', 2,
                                                    2 * ingress_bytes(ip4())))
    c.case('packets-ipv4', 'Packets: dst_ip 0.0.0.0/0 matches every IPv4 '
           'frame', tc_filter('add', 'ip', 'dst_ip 0.0.0.0/0 action ok',
                              handle=1),
           scapy=[(ip4(dst='1.2.3.4'), 1), (ip4(dst='200.1.1.1'), 1)],
           verify=SHOW_STATS,
           match_json=stats_json('ip', 2, 2 * ingress_bytes(ip4())))
    c.case('packets-ipv6', 'Packets: an IPv4 filter does not see IPv6 '
           'frames with the same-looking address bits',
           tc_filter('add', 'ip', 'dst_ip 32.1.13.184/32 action ok',
                     handle=1),
           scapy=[(ip6(dst='2001:db8::1'), 2), (ip4(dst='32.1.13.184'), 1)],
           verify=SHOW_STATS,
           match_json=stats_json('ip', 1, ingress_bytes(ip4())))
    c.case('packets-vlan', 'Packets: a VLAN filter does not see untagged '
           'frames, an untagged filter does not see tagged ones',
           tc_filter('add', 'ip', 'dst_ip 10.1.0.1 action ok', prio=2,
                     handle=1),
           setup=[tc_filter('add', '802.1q', 'vlan_id 10 action ok',
                            handle=1)],
           scapy=[(dot1q(vlan=10), 2), (ip4(), 1)],
           verify=SHOW_STATS + ' prio 1',
           match_json=[{'kind': 'flower'}, {'options': {'actions': [
               {'stats': {'packets': 2,
                          'bytes': 2 * ingress_bytes(dot1q(vlan=10))}}]}}])
    c.case('packets-vlan', 'Packets: a QinQ frame matches the outer 802.1ad '
           'vlan_id',
           tc_filter('add', '802.1ad', 'vlan_id 30 action ok', handle=1),
           scapy=[(ether() + '/Dot1AD(vlan=30)/Dot1Q(vlan=5)/' + layer(
               'IP', src='10.2.0.1', dst='10.1.0.1') + '/' + udp(), 1),
                  (ether() + '/Dot1AD(vlan=31)/Dot1Q(vlan=30)/' + layer(
                      'IP', src='10.2.0.1', dst='10.1.0.1') + '/' + udp(),
                   1)],
           verify=SHOW_STATS, match_json=stats_json('802.1ad', 1, ingress_bytes(
               ether() + '/Dot1AD(vlan=30)/Dot1Q(vlan=5)/' + layer(
                   'IP', src='10.2.0.1', dst='10.1.0.1') + '/' + udp())))
    c.case('packets-eth', 'Packets: indev $DEV1 matches frames received on '
           '$DEV1; the same key with indev flin0 does not',
           tc_filter('add', 'all', 'indev $DEV1 src_mac 02:00:00:00:cc:01 '
                     'action ok', handle=1),
           setup=['$IP link add flin0 type dummy',
                  tc_filter('add', 'all', 'indev flin0 src_mac '
                            '02:00:00:00:cc:01 action ok', handle=2)],
           scapy=[(raw_frame(0x88b5).replace(repr(SRC_MAC),
                                             "'02:00:00:00:cc:01'"), 2)],
           verify=SHOW_STATS,
           match_json=[{'kind': 'flower'},
                       {'options': {'handle': 1, 'actions': [
                           {'stats': {'packets': 2}}]}},
                       {'options': {'handle': 2, 'actions': [
                           {'stats': {'packets': 0}}]}}])
    c.case('packets-ipv6', 'Packets: IPv6 dst_ip /64 and src_ip /64 '
           'together, only frames matching both are counted',
           tc_filter('add', 'ipv6', 'dst_ip 2001:db8:1:1::/64 src_ip '
                     '2001:db8:2:2::/64 action ok', handle=1),
           scapy=[(ip6(src='2001:db8:2:2::9', dst='2001:db8:1:1::9'), 1),
                  (ip6(src='2001:db8:2:3::9', dst='2001:db8:1:1::9'), 1),
                  (ip6(src='2001:db8:2:2::9', dst='2001:db8:1:2::9'), 1)],
           verify=SHOW_STATS, match_json=stats_json('ipv6', 1, ingress_bytes(
               ip6(src='2001:db8:2:2::9', dst='2001:db8:1:1::9'))))
    c.case('packets-ports', 'Packets: tcp and udp filters with the same '
           'port on one instance tell the protocols apart (tcp)',
           tc_filter('add', 'ip', 'ip_proto udp dst_port 53 action ok',
                     handle=2),
           setup=[tc_filter('add', 'ip', 'ip_proto tcp dst_port 53 action '
                            'ok', handle=1)],
           scapy=[(ip4(l4=layer('TCP', dport=53)), 2),
                  (ip4(l4=udp(dport=53)), 1)],
           verify=SHOW_STATS,
           match_json=[{'kind': 'flower'},
                       {'options': {'handle': 1, 'actions': [
                           {'stats': {'packets': 2}}]}},
                       {'options': {'handle': 2, 'actions': [
                           {'stats': {'packets': 1}}]}}])
    every = ('dst_mac 02:00:00:00:00:01 src_mac 02:00:00:00:00:02/24 '
             'ip_proto tcp ip_tos 0x10/0xf0 ip_ttl 64 '
             'dst_ip 10.1.0.0/24 src_ip 10.2.0.0/16 '
             'dst_port 80 src_port 0x4000/0xf000 tcp_flags 0x2/0x12')
    good = ip4(tos=0x14, ttl=64, l4=layer('TCP', sport=0x4123, dport=80,
                                           flags='S'))
    c.case('packets-ports', 'Packets: every IPv4/TCP key at once; one '
           'field off in each of the other frames',
           tc_filter('add', 'ip', every + ' action ok', handle=1),
           scapy=[(good, 1),
                  (good.replace('ttl=64', 'ttl=63'), 1),
                  (good.replace('tos=20', 'tos=36'), 1),
                  (good.replace('dport=80', 'dport=81'), 1),
                  (good.replace("flags='S'", "flags='SA'"), 1),
                  (good.replace("dst='10.1.0.1'", "dst='10.1.1.1'"), 1),
                  (good.replace('sport=16675', 'sport=20771'), 1)],
           verify=SHOW_STATS, match_json=stats_json('ip', 1,
                                                    ingress_bytes(good)))


def scale_cases(c):
    t = 'scale'
    gen = ("awk 'BEGIN { for (i = 0; i < %d; i++) printf \"filter add dev "
           "$DEV1 ingress protocol ip prio 1 handle %%d flower dst_ip "
           "10.%%d.%%d.%%d%s\\n\", i + 1, int(i / 65536), int(i / 256) %% 256, "
           "i %% 256 }' > $BATCH_FILE")
    dels = ("awk 'BEGIN { for (i = 1; i <= %d; i++) printf \"filter del dev "
            "$DEV1 ingress protocol ip prio 1 handle %%d flower\\n\", i }' "
            "> $BATCH_FILE.del")
    count = "$TC filter show dev $DEV1 ingress | grep -c 'handle 0x'"
    tear = ['rm -f $BATCH_FILE $BATCH_FILE.del']
    c.case(t, 'Scale: 1,000 filters on one instance through tc -b, all '
           'dumped', '$TC -b $BATCH_FILE', setup=[gen % (1000, '')],
           teardown=tear, verify=count, pattern=r'\A1000\n\Z')
    c.case(t, 'Scale: 1,000 filters, then all deleted one by one: nothing '
           'left', '$TC -b $BATCH_FILE.del',
           setup=[gen % (1000, ''), '$TC -b $BATCH_FILE', dels % 1000],
           teardown=tear, **filters(0))
    c.case('packets-scale', 'Scale: among 1,000 filters a frame is '
           'counted by the one filter it matches (handle 778)',
           '$TC -b $BATCH_FILE', setup=[gen % (1000, ' action ok')],
           teardown=tear,
           scapy=[(ip4(dst='10.0.3.9'), 3), (ip4(dst='10.0.3.10'), 1),
                  (ip4(dst='10.9.9.9'), 1)],
           verify='$TC -s -j filter get dev $DEV1 ingress protocol ip prio 1 '
                  'handle 778 flower',
           match_json=[{'options': {'handle': 778, 'keys': {
               'dst_ip': '10.0.3.9'}, 'actions': [
                   {'stats': {'packets': 3}}]}}])
    c.case(t, 'Scale: 1,000 filters with a shared action: ref and bind '
           'count 1,000',
           '$TC -b $BATCH_FILE',
           setup=['$TC actions add action gact drop index 1',
                  gen % (1000, ' action gact index 1')],
           teardown=tear,
           verify='$TC actions list action gact',
           pattern=r'index 1 ref 1001 bind 1000')
    c.case(t, 'Scale: 1,000 filters on 1,000 prios, each its own instance '
           'with its own mask',
           '$TC -b $BATCH_FILE',
           setup=["awk 'BEGIN { for (i = 0; i < 1000; i++) printf \"filter "
                  "add dev $DEV1 ingress protocol ip prio %d handle 1 flower "
                  "dst_ip 10.0.0.0/%d\\n\", i + 1, i % 32 + 1 }' "
                  "> $BATCH_FILE"],
           teardown=tear, verify=count, pattern=r'\A1000\n\Z')
    c.case(t, 'Scale: 100,000 filters on one instance through tc -b: all '
           'dumped and counted', '$TC -b $BATCH_FILE',
           setup=[gen % (100000, '')], teardown=tear, verify=count,
           pattern=r'\A100000\n\Z', timeout=600)
    c.case(t, 'Scale: 100,000 filters on one instance, then their prio '
           'deleted at once: none left',
           '$TC filter del dev $DEV1 ingress protocol ip prio 1',
           setup=[gen % (100000, ''), '$TC -b $BATCH_FILE'], teardown=tear,
           timeout=600, **filters(0))


# --- writing ------------------------------------------------------------------
# The files this program wrote, with their sha256 (`sha256sum -c` reads
# it): it rewrites or deletes a file only if it is listed there and still
# has the listed content.  Any other file in filters/flower/ belongs to
# someone else: basic.json, regressions.json (hand-written regression
# cases), a file that merely looks like ours, and a generated file with a
# case added by hand.  The case files themselves stay plain upstream tdc
# JSON.
MANIFEST = 'generated.sha256'


def sha256(text):
    return hashlib.sha256(text.encode()).hexdigest()


def read_manifest(out_dir=OUT_DIR):
    """{file name: sha256} of what generate.py last wrote in out_dir."""
    try:
        with open(os.path.join(out_dir, MANIFEST)) as f:
            lines = f.read().splitlines()
    except OSError:
        return {}
    return {name: digest for digest, name in
            (line.split('  ', 1) for line in lines if line.strip())}


def manifest_text(files):
    return ''.join('%s  %s\n' % (sha256(text), name)
                   for name, text in sorted(files.items()))


def current_text(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def leftovers(files, out_dir=OUT_DIR):
    """Files generate.py wrote (its manifest says) and no longer writes."""
    return sorted(n for n in read_manifest(out_dir) if n not in files and
                  os.path.exists(os.path.join(out_dir, n)))


def not_ours(files, out_dir=OUT_DIR):
    """Why writing `files` (and deleting the leftovers) would overwrite or
    delete what generate.py did not write: one line per such file."""
    manifest = read_manifest(out_dir)
    problems = []
    for name in sorted(set(files) | set(leftovers(files, out_dir))):
        text = current_text(os.path.join(out_dir, name))
        if text is None or text == files.get(name):
            continue                    # nothing there, or no change
        if name not in manifest:
            problems.append('%s: not written by generate.py (not in %s): '
                            'rename it, or the theme' % (name, MANIFEST))
        elif sha256(text) != manifest[name]:
            problems.append('%s: changed since generate.py wrote it (a case '
                            'added by hand? those go to regressions.json); '
                            'undo the change, then run this again'
                            % name)
    return problems


def write(files, out_dir=OUT_DIR):
    """Write the generated files and the manifest, delete leftovers;
    nothing at all if not_ours() finds a problem.  -> problems."""
    problems = not_ours(files, out_dir)
    if problems:
        return problems
    os.makedirs(out_dir, exist_ok=True)
    for name in leftovers(files, out_dir):
        os.remove(os.path.join(out_dir, name))
    for name, text in sorted(files.items()):
        if current_text(os.path.join(out_dir, name)) != text:
            with open(os.path.join(out_dir, name), 'w') as f:
                f.write(text)
    with open(os.path.join(out_dir, MANIFEST), 'w') as f:
        f.write(manifest_text(files))
    return []


# Ids of cases generate.py no longer writes: never given to another case
# (an id names one test; a case whose meaning changed gets a new name, so
# a new id).  The one-mask-per-prio refusals, now accepted (theme masks),
# and the others below.
RETIRED_IDS = frozenset((
    'c716', '408d', 'c3bd', '2b35', 'dbc5', '7e08', '0045', 'bcc5', '728b',
    '01d8', '5545', 'dcf5', 'cba1', '7a30', '0739', 'ba65', 'c48d', '5fb7',
    'bd84', '3c14', '9220', '23af', '0500', '4f46', '3ddd', '0346', '491c',
    '6df1', '0396', '9896', '1ef0',
    # a zero-mask address key not dumped (it is now)
    'e81a',
    # a replace across masks refused as stock refuses it (ours accepts it)
    '7583', 'a135', '2329', 'aa60'))


def build():
    """{file name: text} of the whole generated corpus."""
    c = Corpus()
    main_themes(c)
    keys_cases(c)
    get_cases(c)
    replace_cases(c)
    delete_cases(c)
    flush_cases(c)
    roundtrip_cases(c)
    terse_cases(c)
    packet_cases(c)
    # the files generate.py wrote last time are its own too (a theme
    # renamed: its old file goes, its ids stay with their names)
    c.assign_ids(foreign_ids(set('%s.json' % t for t in c.themes) |
                             set(read_manifest())) | RETIRED_IDS)
    files = {}
    for theme in sorted(c.themes):
        files[theme + '.json'] = json.dumps(c.themes[theme], indent=4) + '\n'
    return files


def foreign_ids(ours):
    """Ids of every case in tc-tests/ outside the files we write."""
    ids = set()
    for root, dirs, names in os.walk(HERE):
        for name in names:
            path = os.path.join(root, name)
            if not name.endswith('.json') or (
                    os.path.dirname(path) == OUT_DIR and name in ours):
                continue
            try:
                with open(path) as f:
                    ids |= {case.get('id') for case in json.load(f)}
            except (OSError, ValueError, AttributeError, TypeError):
                pass
    return ids


def main(argv):
    files = build()
    if argv[1:] == ['--check']:
        stale = [name for name, text in sorted(files.items())
                 if current_text(os.path.join(OUT_DIR, name)) != text]
        for name in stale:
            print('stale: ' + os.path.join(OUT_DIR, name))
        for name in leftovers(files):
            print('left over: ' + os.path.join(OUT_DIR, name))
        manifest = read_manifest() != {n: sha256(t) for n, t in files.items()}
        if manifest:
            print('stale: ' + os.path.join(OUT_DIR, MANIFEST))
        return 1 if stale or leftovers(files) or manifest else 0
    if argv[1:]:
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return 2
    problems = write(files)
    for line in problems:
        print('generate.py: refusing to write anything: ' + line,
              file=sys.stderr)
    if problems:
        return 1
    total = sum(len(json.loads(t)) for t in files.values())
    scapy = sum(1 for t in files.values() for case in json.loads(t)
                if 'scapy' in case)
    print('%d cases (%d with scapy) in %d files' % (total, scapy, len(files)))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
