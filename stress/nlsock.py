# SPDX-License-Identifier: GPL-2.0
"""nlsock.py - the netlink plumbing stress/*.py share.

Messages are built with tdc/flowernl.py (its FlowerTcMsg and nla classes,
raw_options_class for attributes sent as given bytes) and sent on a plain
NETLINK_ROUTE socket of our own, so that every request has a deadline: a
request that gets no ACK/error within `timeout` seconds is reported as
a timeout instead of blocking the run (pyroute2's IPRoute would wait
forever and also subscribes to multicast groups we do not want).
"""

import errno
import os
import select
import socket
import struct
import time

from pyroute2.netlink import (NLM_F_ACK, NLM_F_CREATE, NLM_F_DUMP,
                              NLM_F_EXCL, NLM_F_REPLACE, NLM_F_REQUEST)
from pyroute2.netlink.rtnl import (RTM_DELTFILTER, RTM_GETTFILTER,
                                   RTM_NEWTFILTER)

from tdc import flowernl

SOL_NETLINK = 270
NETLINK_CAP_ACK = 10
NETLINK_EXT_ACK = 11
NLMSG_ERROR = 2
NLMSG_DONE = 3
NLM_F_ACK_TLVS = 0x200
NLMSGERR_ATTR_MSG = 1

TC_H_INGRESS = 0xFFFFFFF1

__all__ = ['flowernl', 'NLSock', 'Reply', 'Timeout', 'walk_attrs',
           'RTM_NEWTFILTER', 'RTM_DELTFILTER', 'RTM_GETTFILTER',
           'NLM_F_ACK', 'NLM_F_CREATE', 'NLM_F_DUMP', 'NLM_F_EXCL',
           'NLM_F_REPLACE', 'NLM_F_REQUEST', 'TC_H_INGRESS', 'encode',
           'msg_class', 'tcmsg_fields']


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

    def __repr__(self):
        if self.lost:
            return '<lost reply: %s>' % errno.errorcode.get(self.err, self.err)
        if not self.err:
            return '<ack, %d msgs>' % len(self.msgs)
        return '<%s %r>' % (errno.errorcode.get(self.err, self.err), self.msg)


def walk_attrs(data, off=0, end=None):
    """Liberal netlink attribute walk, as nla_for_each_attr: a list of
    (type with flag bits, payload bytes) and the signed remainder the
    kernel's loop ends with (> 0: bytes that do not form an attribute;
    < 0: the last attribute's padding is missing)."""
    end = len(data) if end is None else end
    out = []
    while end - off >= 4:
        nla_len, nla_type = struct.unpack_from('<HH', data, off)
        if nla_len < 4 or nla_len > end - off:
            break
        out.append((nla_type, bytes(data[off + 4:off + nla_len])))
        off += (nla_len + 3) & ~3
    return out, end - off


_class_cache = {}


def msg_class(raw_numbers=()):
    """flowernl.FlowerTcMsg, or a subclass whose TCA_OPTIONS also takes
    RAW_<n> attributes (sent as given bytes) for these numbers."""
    key = frozenset(raw_numbers)
    cls = _class_cache.get(key)
    if cls is None:
        if key:
            cls = type('StressTcMsg', (flowernl.FlowerTcMsg,), {
                'options_class': flowernl.raw_options_class(sorted(key))})
        else:
            cls = flowernl.FlowerTcMsg
        _class_cache[key] = cls
    return cls


def encode(msg_type, flags, ifindex, handle, parent, prio, protocol,
           kind='flower', chain=None, options=None, raw_numbers=(),
           tail=b''):
    """Bytes of one RTM_*TFILTER request.  options: None (no TCA_OPTIONS)
    or a list of [name, value] for FlowerOptions (RAW_<n> names for raw
    bytes).  tail: bytes appended inside TCA_OPTIONS after its last
    attribute (TCA_OPTIONS is the message's last attribute), to send a
    malformed attribute stream."""
    msg = msg_class(raw_numbers)()
    msg['family'] = socket.AF_UNSPEC
    msg['index'] = ifindex
    msg['handle'] = handle & 0xFFFFFFFF
    msg['parent'] = parent & 0xFFFFFFFF
    msg['info'] = ((prio & 0xFFFF) << 16) | socket.htons(protocol & 0xFFFF)
    if kind is not None:
        msg['attrs'].append(['TCA_KIND', kind])
    if chain is not None:
        msg['attrs'].append(['TCA_CHAIN', chain & 0xFFFFFFFF])
    if options is not None:
        msg['attrs'].append(['TCA_OPTIONS', {'attrs': options}])
    msg['header']['type'] = msg_type
    msg['header']['flags'] = flags
    msg['header']['sequence_number'] = 0
    msg['header']['pid'] = 0
    msg.encode()
    data = bytearray(msg.data)
    if tail:
        if options is None:
            raise ValueError('tail needs options')
        # TCA_OPTIONS is last: grow it and the message by the tail.
        opts_off = _last_attr_offset(data)
        n = len(tail)
        olen = struct.unpack_from('<H', data, opts_off)[0]
        data = data[:opts_off + olen] + bytearray(tail)
        struct.pack_into('<H', data, opts_off, olen + n)
        struct.pack_into('<I', data, 0, len(data))
    return bytes(data)


def _last_attr_offset(data):
    off, last = 16 + 20, None
    while off + 4 <= len(data):
        ln = struct.unpack_from('<H', data, off)[0]
        last = off
        off += (ln + 3) & ~3
    return last


def tcmsg_fields(payload):
    """(ifindex, handle, parent, prio, protocol) of an RTM_*TFILTER
    payload (nlmsghdr stripped)."""
    _fam, ifindex, handle, parent, info = struct.unpack_from('<BxxxiIII',
                                                             payload, 0)
    return ifindex, handle, parent, info >> 16, socket.ntohs(info & 0xFFFF)


class NLSock:
    def __init__(self, timeout=30.0):
        self.timeout = timeout
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  socket.NETLINK_ROUTE)
        for opt in (NETLINK_EXT_ACK, NETLINK_CAP_ACK):
            self.sock.setsockopt(SOL_NETLINK, opt, 1)
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, 33, 8 << 20)  # RCVBUFFORCE
        except OSError:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        self.sock.bind((0, 0))
        self.seq = int(time.time()) & 0xFFFFFF
        self.requests = 0

    def close(self):
        self.sock.close()

    def request(self, data, timeout=None):
        """Send one request (bytes from encode()); return its Reply.
        Raises Timeout when no answer arrives in time."""
        self.seq = (self.seq + 1) & 0xFFFFFFFF or 1
        seq = self.seq
        buf = bytearray(data)
        struct.pack_into('<I', buf, 8, seq)
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
                ln, typ, flags, mseq, _pid = struct.unpack_from('<IHHII',
                                                                data, off)
                if ln < 16:
                    break
                body = data[off + 16:off + ln]
                off += (ln + 3) & ~3
                if mseq != seq:
                    continue        # a late answer to an earlier request
                if typ == NLMSG_ERROR:
                    code = -struct.unpack_from('<i', body, 0)[0]
                    text = None
                    if flags & NLM_F_ACK_TLVS:
                        # CAP_ACK: only the request's header is echoed
                        olen = 16 + 4
                        if not (flags & 0x100):     # NLM_F_CAPPED
                            olen = 4 + struct.unpack_from('<I', body, 4)[0]
                        attrs, _ = walk_attrs(body, (olen + 3) & ~3)
                        for t, v in attrs:
                            if t == NLMSGERR_ATTR_MSG:
                                text = v.rstrip(b'\0').decode(
                                    errors='replace')
                    return Reply(err=code, msg=text, msgs=msgs)
                if typ == NLMSG_DONE:
                    return Reply(err=0, msgs=msgs)
                msgs.append((typ, flags, body))

    def dump_filters(self, ifindex, parent=TC_H_INGRESS, chain=None,
                     timeout=None):
        """All RTM_NEWTFILTER messages of a dump of this block (all
        chains unless `chain`), raw payloads.  Raises Timeout."""
        data = encode(RTM_GETTFILTER, NLM_F_REQUEST | NLM_F_DUMP, ifindex,
                      0, parent, 0, 0, kind=None, chain=chain)
        rep = self.request(data, timeout)
        if rep.err:
            raise OSError(rep.err, 'filter dump failed: %s' % rep.msg)
        return [body for typ, _f, body in rep.msgs if typ == RTM_NEWTFILTER]


def decode_filter(body):
    """A dumped filter payload -> (fields, tca, opts_attrs, json) where
    fields = tcmsg_fields(), tca = {type: bytes} of the top-level
    attributes, opts_attrs = [(type, bytes)] inside TCA_OPTIONS (raw, for
    byte-exact comparison) and json = flowernl.filter_json() of the
    pyroute2 decoding (actions as a list of objects)."""
    fields = tcmsg_fields(body)
    top, _ = walk_attrs(body, 20)
    tca = {t & 0x3FFF: v for t, v in top}
    opts = None
    if 2 in tca:
        opts, _ = walk_attrs(tca[2])
    hdr = struct.pack('<IHHII', 16 + len(body), RTM_NEWTFILTER, 0, 0, 0)
    msg = flowernl.FlowerTcMsg(hdr + bytes(body))
    msg.decode()
    return fields, tca, opts, flowernl.filter_json(msg)
