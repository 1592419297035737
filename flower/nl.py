# SPDX-License-Identifier: GPL-2.0
"""flower.nl - one rtnetlink socket, with deadlines and extack.

Standard library only: the guest's runners import it where pyroute2 (10 s
to import under TCG) would cost more than the test.  Messages are bytes:
build them with nlmsg()/tcmsg()/nla()/nest() here, or with pyroute2
(stress/nlsock.py encode()).

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
import os
import select
import socket
import struct
import time

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
