# SPDX-License-Identifier: GPL-2.0
"""flower.nl - one rtnetlink socket, with deadlines and extack, and the
one netlink codec of the harness.

Standard library only: the guest's runners import it where pyroute2 (10 s
to import under TCG) would cost more than the test.  Messages are bytes,
built here:

  nlmsg()/tcmsg()/nla()/nest()   the headers and attributes
  encode(attr, value)            a TCA_FLOWER_* payload by its type in
                                 uapi.TABLE (its width and byte order);
                                 bytes go as given
  decode(attr, data)             the other way
  flower_attr(attr, value)       nla(number, encode(attr, value))
  gact(action, index, order)     one gact action of an action list
  tfilter(type, flags, ...)      a whole RTM_*TFILTER/RTM_NEWCHAIN request
  decode_filter(body)            a dumped filter: tcmsg fields, attributes,
                                 its actions as {kind, options: {parms}}

NLSock.request() sends one message and collects what comes back for it:
the data messages of a dump, then the ACK, the error (errno and the
extack message) or NLMSG_DONE.  Every request has a deadline: no answer
in time raises Timeout instead of blocking the run.

Parents are named as tc names them (tc/tc_filter.c): "ingress" and
"egress" are clsact's minor classes ffff:fff2 / ffff:fff3, which an
ingress qdisc also takes (its find() accepts any minor); "root" is
ffffffff; anything else is tc's MAJ:MIN (hex) or a number.
"""

import errno
import ipaddress
import os
import select
import socket
import struct
import time

from flower import uapi

SOL_NETLINK = 270
NETLINK_CAP_ACK = 10
NETLINK_EXT_ACK = 11
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLM_F_REQUEST, NLM_F_MULTI, NLM_F_ACK = 0x1, 0x2, 0x4
NLM_F_REPLACE, NLM_F_EXCL, NLM_F_CREATE = 0x100, 0x200, 0x400
NLM_F_DUMP = 0x300
NLM_F_CAPPED, NLM_F_ACK_TLVS = 0x100, 0x200      # in an NLMSG_ERROR's flags
NLMSGERR_ATTR_MSG = 1
NLA_F_NESTED = 0x8000
NLA_TYPE_MASK = 0x3FFF                  # ~(NLA_F_NESTED | NLA_F_NET_BYTEORDER)
SO_RCVBUFFORCE = 33

RTM_NEWTFILTER, RTM_DELTFILTER, RTM_GETTFILTER = 44, 45, 46
RTM_GETACTION = 50
RTM_NEWCHAIN = 100                      # a chain, with a template if TCA_KIND
TCA_KIND, TCA_OPTIONS, TCA_CHAIN = 1, 2, 11

# include/uapi/linux/pkt_cls.h, tc_act/tc_gact.h: an action list is
# attributes numbered by their order (1, 2, ...), each an action
TCA_ACT_KIND, TCA_ACT_OPTIONS, TCA_ACT_INDEX, TCA_ACT_STATS = 1, 2, 3, 4
TCA_GACT_PARMS = 2
TC_GEN = '=IIiii'               # tc_gen: index capab action refcnt bindcnt
TC_GEN_FIELDS = ('index', 'capab', 'action', 'refcnt', 'bindcnt')
# TC_ACT_* verdicts by the names tc takes
TC_ACT = {'unspec': -1, 'ok': 0, 'pass': 0, 'reclassify': 1, 'shot': 2,
          'drop': 2, 'pipe': 3, 'stolen': 4, 'queued': 5, 'repeat': 6,
          'redirect': 7, 'trap': 8, 'continue': -1}

# include/uapi/linux/pkt_sched.h
TC_H_ROOT = 0xFFFFFFFF
TC_H_INGRESS = 0xFFFFFFF1               # the ingress/clsact qdisc's handle
TC_H_MIN_INGRESS, TC_H_MIN_EGRESS = 0xFFF2, 0xFFF3
TC_H_CLSACT_INGRESS = (TC_H_INGRESS & 0xFFFF0000) | TC_H_MIN_INGRESS
TC_H_CLSACT_EGRESS = (TC_H_INGRESS & 0xFFFF0000) | TC_H_MIN_EGRESS
PARENTS = {'ingress': TC_H_CLSACT_INGRESS, 'egress': TC_H_CLSACT_EGRESS,
           'root': TC_H_ROOT}


def parse_parent(text):
    """tc's parent notation -> the tcm_parent tc sends: 'ingress',
    'egress', 'root', 'ffff:', 'ffff:fff2', or a plain number."""
    if text in PARENTS:
        return PARENTS[text]
    if ':' in text:
        major, minor = text.split(':', 1)
        return (int(major or '0', 16) << 16) | int(minor or '0', 16)
    return int(text, 0)


# --- packing ----------------------------------------------------------------
def nla(typ, data):
    """One attribute, padded to 4 bytes."""
    ln = 4 + len(data)
    return struct.pack('=HH', ln, typ) + data + b'\0' * (-ln % 4)


def nest(typ, *parts):
    return nla(typ | NLA_F_NESTED, b''.join(parts))


def tcmsg(ifindex, handle, parent, prio=0, protocol=0):
    """struct tcmsg; info is prio << 16 | the protocol in network order."""
    info = ((prio & 0xFFFF) << 16) | socket.htons(protocol & 0xFFFF)
    return struct.pack('=BxxxiIII', socket.AF_UNSPEC, ifindex,
                       handle & 0xFFFFFFFF, parent & 0xFFFFFFFF, info)


def nlmsg(msg_type, flags, payload, seq=0):
    return struct.pack('=IHHII', 16 + len(payload), msg_type, flags, seq,
                       0) + payload


# --- flower attributes, by uapi.TABLE ----------------------------------------
# the struct format of each integer type of the table (host order, or
# network order for be16/be32), as fl_policy and fl_dump_key() take them
INT_FORMAT = {'uint8': '=B', 'uint16': '=H', 'uint32': '=I', 'be16': '>H',
              'be32': '>I'}


def flower_attr_row(attr):
    """uapi.TABLE's row of 'KEY_ETH_DST', 'TCA_FLOWER_KEY_ETH_DST' or 4."""
    if isinstance(attr, int):
        return uapi.BY_NUMBER[attr & NLA_TYPE_MASK]
    return uapi.BY_NAME[attr[len('TCA_FLOWER_'):]
                        if attr.startswith('TCA_FLOWER_') else attr]


def encode(attr, value):
    """A TCA_FLOWER_* attribute's payload: value by the attribute's type
    (an int packed in its width and byte order; a MAC, IPv4 or IPv6
    address as text; a string, NUL-terminated).  Bytes are sent as
    given, whatever the type: the way to send what the type forbids."""
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    typ = flower_attr_row(attr).nla_type
    if typ in INT_FORMAT:
        fmt = INT_FORMAT[typ]
        return struct.pack(fmt, value & ((1 << 8 * struct.calcsize(fmt)) - 1))
    if typ == 'l2addr':
        return bytes.fromhex(value.replace(':', '').replace('-', ''))
    if typ in ('ip4addr', 'ip6addr'):
        return ipaddress.ip_address(value).packed
    if typ == 'asciiz':
        return value.encode() + b'\0'
    if typ == 'none':
        return b''
    raise TypeError('%s (%s) takes bytes, not %r' % (
        flower_attr_row(attr).name, typ, value))


def decode(attr, data):
    """The value of a TCA_FLOWER_* attribute's payload, by its type (the
    inverse of encode(); bytes of another length than the type's, and
    the types without a value (hex, nested), come back as bytes)."""
    typ = flower_attr_row(attr).nla_type
    data = bytes(data)
    if typ in INT_FORMAT and len(data) == struct.calcsize(INT_FORMAT[typ]):
        return struct.unpack(INT_FORMAT[typ], data)[0]
    if typ == 'l2addr' and len(data) == 6:
        return ':'.join('%02x' % b for b in data)
    if typ == 'ip4addr' and len(data) == 4 or \
            typ == 'ip6addr' and len(data) == 16:
        return str(ipaddress.ip_address(data))
    if typ == 'asciiz':
        return data.split(b'\0', 1)[0].decode(errors='replace')
    return data


def flower_attr(attr, value, flags=0):
    """One TCA_FLOWER_* attribute (a name or a number, which may carry
    NLA_F_* bits; flags are or-ed into its type)."""
    number = attr if isinstance(attr, int) else flower_attr_row(attr).number
    return nla(number | flags, encode(attr, value))


def verdict(action):
    """A TC_ACT_* number: an int, or a name tc takes ('drop', 'pass')."""
    return TC_ACT[action] if isinstance(action, str) else action


def gact(action, index=0, order=1, nested=True):
    """One gact action of an action list: attribute `order` (with
    NLA_F_NESTED if nested, as tc sets it; pyroute2 did not) holding
    TCA_ACT_KIND "gact" and TCA_ACT_OPTIONS (always NLA_F_NESTED) with
    TCA_GACT_PARMS, a tc_gen of this index (0: a new action) and
    verdict."""
    parms = struct.pack(TC_GEN, index, 0, verdict(action), 0, 0)
    return nla(order | (NLA_F_NESTED if nested else 0),
               nla(TCA_ACT_KIND, b'gact\0') +
               nest(TCA_ACT_OPTIONS, nla(TCA_GACT_PARMS, parms)))


def gact_list(acts, nested=True):
    """The payload of an action list attribute (TCA_FLOWER_ACT): gact
    actions in order from 1, for [(verdict, index)]."""
    return b''.join(gact(v, idx, order, nested)
                    for order, (v, idx) in enumerate(acts, start=1))


def tfilter(msg_type, flags, ifindex, handle, parent, prio=0, protocol=0,
            kind='flower', chain=None, options=None, tail=b'', nested=False):
    """Bytes of one RTM_*TFILTER (or RTM_NEWCHAIN) request, sequence
    number 0: tcmsg, then TCA_KIND (None: none), TCA_CHAIN (None: none)
    and TCA_OPTIONS (None: none; else bytes, or a list of attributes:
    bytes each, or (attr, value) pairs for flower_attr()).  nested sets
    NLA_F_NESTED on TCA_OPTIONS.  tail: bytes appended inside
    TCA_OPTIONS after its last attribute, unpadded (TCA_OPTIONS is the
    message's last attribute), to send a malformed attribute stream."""
    payload = tcmsg(ifindex, handle, parent, prio, protocol)
    if kind is not None:
        payload += nla(TCA_KIND, kind.encode() + b'\0')
    if chain is not None:
        payload += nla(TCA_CHAIN, struct.pack('=I', chain & 0xFFFFFFFF))
    if options is not None:
        if not isinstance(options, (bytes, bytearray)):
            options = b''.join(o if isinstance(o, (bytes, bytearray))
                               else flower_attr(*o) for o in options)
        typ = TCA_OPTIONS | (NLA_F_NESTED if nested else 0)
        if tail:
            body = bytes(options) + bytes(tail)
            payload += struct.pack('=HH', 4 + len(body), typ) + body
        else:
            payload += nla(typ, bytes(options))
    elif tail:
        raise ValueError('tail needs options')
    return nlmsg(msg_type, flags, payload)


def tcmsg_fields(payload):
    """(ifindex, handle, parent, prio, protocol) of an RTM_*TFILTER
    payload (nlmsghdr stripped)."""
    _fam, ifindex, handle, parent, info = struct.unpack_from('=BxxxiIII',
                                                             payload, 0)
    return ifindex, handle, parent, info >> 16, socket.ntohs(info & 0xFFFF)


def decode_acts(data):
    """An action list attribute's payload -> [{'order', 'kind',
    'options': {'parms': {index, capab, action, refcnt, bindcnt}}}]
    (parms for gact; the other kinds' options left out), by order."""
    out = []
    for order, body in walk_attrs(data)[0]:
        at = attrs_by_type(body)
        act = {'order': order & NLA_TYPE_MASK}
        if TCA_ACT_KIND in at:
            act['kind'] = at[TCA_ACT_KIND][0].split(b'\0', 1)[0].decode(
                errors='replace')
        if TCA_ACT_INDEX in at and len(at[TCA_ACT_INDEX][0]) >= 4:
            act['index'] = struct.unpack_from('=I', at[TCA_ACT_INDEX][0])[0]
        if TCA_ACT_OPTIONS in at:
            opts = attrs_by_type(at[TCA_ACT_OPTIONS][0])
            act['options'] = {}
            parms = opts.get(TCA_GACT_PARMS, [b''])[0]
            if act.get('kind') == 'gact' and len(parms) >= 20:
                act['options']['parms'] = dict(zip(
                    TC_GEN_FIELDS, struct.unpack_from(TC_GEN, parms)))
        out.append(act)
    return out


def filter_entry(fields, tca, opts):
    """The JSON object of a dumped filter: handle, prio, protocol, chain,
    kind and options ({TCA_FLOWER_<name>: decode()d value}, the actions
    a decode_acts() list)."""
    _ifi, handle, _parent, prio, protocol = fields
    entry = {'handle': handle, 'prio': prio, 'protocol': protocol,
             'chain': struct.unpack('=I', tca[TCA_CHAIN][:4])[0]
             if len(tca.get(TCA_CHAIN, b'')) >= 4 else 0,
             'kind': tca[TCA_KIND].split(b'\0', 1)[0].decode(
                 errors='replace') if TCA_KIND in tca else None}
    if opts is not None:
        options = {}
        for typ, value in opts:
            row = uapi.BY_NUMBER.get(typ & NLA_TYPE_MASK)
            if row is None:
                continue
            options[uapi.full_name(row)] = decode_acts(value) \
                if row.name == 'ACT' else decode(row.number, value)
        entry['options'] = options
    return entry


def decode_filter(body):
    """A dumped filter payload -> (fields, tca, opts_attrs, entry) where
    fields = tcmsg_fields(), tca = {type: bytes} of the top-level
    attributes, opts_attrs = [(type, bytes)] inside TCA_OPTIONS (raw, for
    byte-exact comparison; None without TCA_OPTIONS) and entry =
    filter_entry()."""
    fields = tcmsg_fields(body)
    top, _ = walk_attrs(body, 20)
    tca = {t & NLA_TYPE_MASK: v for t, v in top}
    opts = None
    if TCA_OPTIONS in tca:
        opts, _ = walk_attrs(tca[TCA_OPTIONS])
    return fields, tca, opts, filter_entry(fields, tca, opts)


def walk_attrs(data, off=0, end=None):
    """Liberal netlink attribute walk, as nla_for_each_attr: a list of
    (type with flag bits, payload bytes) and the signed remainder the
    kernel's loop ends with (> 0: bytes that do not form an attribute;
    < 0: the last attribute's padding is missing)."""
    end = len(data) if end is None else end
    out = []
    while end - off >= 4:
        nla_len, nla_type = struct.unpack_from('=HH', data, off)
        if nla_len < 4 or nla_len > end - off:
            break
        out.append((nla_type, bytes(data[off + 4:off + nla_len])))
        off += (nla_len + 3) & ~3
    return out, end - off


def attrs_by_type(data):
    """{type without flag bits: [payload, ...]} of an attribute stream."""
    out = {}
    for typ, value in walk_attrs(data)[0]:
        out.setdefault(typ & NLA_TYPE_MASK, []).append(value)
    return out


def parse_error(body, flags):
    """An NLMSG_ERROR's payload -> (positive errno or 0, extack message or
    None).  With NLM_F_CAPPED only the request's header is echoed."""
    code = -struct.unpack_from('=i', body, 0)[0]
    text = None
    if flags & NLM_F_ACK_TLVS:
        olen = 16
        if not flags & NLM_F_CAPPED:
            olen = struct.unpack_from('=I', body, 4)[0]
        for typ, value in walk_attrs(body, (4 + olen + 3) & ~3)[0]:
            if typ == NLMSGERR_ATTR_MSG:
                text = value.rstrip(b'\0').decode(errors='replace')
    return code, text


# --- the socket -------------------------------------------------------------
class Timeout(Exception):
    pass


class Reply:
    """The kernel's answer to one request: err 0 (ACK) or a positive
    errno, the extack message if any, the data messages before it (raw
    (type, flags, bytes) tuples), and lost=True when the socket reported
    an error instead of an answer (e.g. ENOBUFS: the kernel could not
    allocate the ACK)."""

    def __init__(self, err=0, msg=None, msgs=(), lost=False):
        self.err = err
        self.msg = msg
        self.msgs = list(msgs)
        self.lost = lost

    def bodies(self, msg_type):
        """The payloads of the data messages of one type."""
        return [body for typ, _f, body in self.msgs if typ == msg_type]

    def __repr__(self):
        if self.lost:
            return '<lost reply: %s>' % errno.errorcode.get(self.err, self.err)
        if not self.err:
            return '<ack, %d msgs>' % len(self.msgs)
        return '<%s %r>' % (errno.errorcode.get(self.err, self.err), self.msg)


class NLSock:
    """A NETLINK_ROUTE socket with extended ACKs, capped ACKs (the request
    is not echoed back) and a large receive buffer."""

    def __init__(self, timeout=30.0, rcvbuf=8 << 20):
        self.timeout = timeout
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  socket.NETLINK_ROUTE)
        for opt in (NETLINK_EXT_ACK, NETLINK_CAP_ACK):
            self.sock.setsockopt(SOL_NETLINK, opt, 1)
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, rcvbuf)
        except OSError:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.bind((0, 0))
        self.seq = int(time.time()) & 0xFFFFFF
        self.requests = 0

    def close(self):
        self.sock.close()

    def call(self, msg_type, flags, payload, timeout=None):
        """Build, send and answer one message (NLM_F_REQUEST is added;
        NLM_F_ACK too unless it is a dump)."""
        flags |= NLM_F_REQUEST
        if flags & NLM_F_DUMP != NLM_F_DUMP:
            flags |= NLM_F_ACK
        return self.request(nlmsg(msg_type, flags, payload), timeout)

    def request(self, data, timeout=None):
        """Send one request (bytes with a netlink header; its sequence
        number is set here); return its Reply.  Raises Timeout when no
        answer arrives in time."""
        self.seq = (self.seq + 1) & 0xFFFFFFFF or 1
        seq = self.seq
        buf = bytearray(data)
        struct.pack_into('=I', buf, 8, seq)
        self.requests += 1
        try:
            self.sock.send(bytes(buf))
        except OSError as e:
            # sendmsg itself failed (e.g. fault injection in its skb):
            # nothing reached rtnetlink.
            return Reply(err=e.errno, msg='sendmsg: ' + os.strerror(e.errno),
                         lost=True)
        return self._collect(seq, timeout if timeout is not None
                             else self.timeout)

    def dump_filters(self, ifindex, parent=TC_H_INGRESS, chain=None,
                     timeout=None):
        """The payloads of all RTM_NEWTFILTER messages of a dump of this
        block (all chains unless `chain`).  Raises Timeout, or OSError
        when the kernel refuses the dump."""
        rep = self.request(tfilter(RTM_GETTFILTER, NLM_F_REQUEST | NLM_F_DUMP,
                                   ifindex, 0, parent, kind=None,
                                   chain=chain), timeout)
        if rep.err:
            raise OSError(rep.err, 'filter dump failed: %s' % rep.msg)
        return rep.bodies(RTM_NEWTFILTER)

    def _collect(self, seq, timeout):
        deadline = time.monotonic() + timeout
        msgs = []
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Timeout('no answer to seq %d within %gs' % (seq, timeout))
            r, _, _ = select.select([self.sock], [], [], left)
            if not r:
                continue
            try:
                data = self.sock.recv(1 << 20)
            except OSError as e:
                return Reply(err=e.errno, msg='recv: ' + os.strerror(e.errno),
                             msgs=msgs, lost=True)
            off = 0
            while off + 16 <= len(data):
                ln, typ, flags, mseq, _pid = struct.unpack_from('=IHHII',
                                                                data, off)
                if ln < 16:
                    break
                body = data[off + 16:off + ln]
                off += (ln + 3) & ~3
                if mseq != seq:
                    continue        # a late answer to an earlier request
                if typ == NLMSG_ERROR:
                    code, text = parse_error(body, flags)
                    return Reply(err=code, msg=text, msgs=msgs)
                if typ == NLMSG_DONE:
                    return Reply(err=0, msgs=msgs)
                msgs.append((typ, flags, body))
