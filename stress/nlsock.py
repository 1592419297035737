# SPDX-License-Identifier: GPL-2.0
"""nlsock.py - the netlink plumbing stress/*.py share.

Messages are built with tdc/flowernl.py (its FlowerTcMsg and nla classes,
raw_options_class for attributes sent as given bytes) and sent on
flower.nl's socket, so that every request has a deadline: a request that
gets no ACK/error within `timeout` seconds is reported as a timeout
instead of blocking the run (pyroute2's IPRoute would wait forever and
also subscribes to multicast groups we do not want).
"""

import socket
import struct

from pyroute2.netlink import (NLM_F_ACK, NLM_F_CREATE, NLM_F_DUMP,
                              NLM_F_EXCL, NLM_F_REPLACE, NLM_F_REQUEST)
from pyroute2.netlink.rtnl import (RTM_DELTFILTER, RTM_GETTFILTER,
                                   RTM_NEWTFILTER)

from flower import nl
from flower.nl import TC_H_INGRESS, Reply, Timeout, walk_attrs
from tdc import flowernl

__all__ = ['flowernl', 'NLSock', 'Reply', 'Timeout', 'walk_attrs',
           'RTM_NEWTFILTER', 'RTM_DELTFILTER', 'RTM_GETTFILTER',
           'NLM_F_ACK', 'NLM_F_CREATE', 'NLM_F_DUMP', 'NLM_F_EXCL',
           'NLM_F_REPLACE', 'NLM_F_REQUEST', 'TC_H_INGRESS', 'encode',
           'msg_class', 'tcmsg_fields']


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


class NLSock(nl.NLSock):
    """flower.nl's socket, with a dump of a block's filters."""

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
