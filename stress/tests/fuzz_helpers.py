# SPDX-License-Identifier: GPL-2.0
"""What the tests of stress/fuzz.py's model share: the devices, attribute
builders and a Base test case with a fresh Model (no tests of its own)."""

import struct
import unittest

from flower import model_keys
from stress.flowerfuzz import attrs
from stress.flowerfuzz.attrs import A, Err, nla
from stress.flowerfuzz.model import Model


DEVS = {'fz0': 4, 'fz1': 5, 'lo': 1}
IP, IPV6, VLAN = 0x0800, 0x86DD, 0x8100


def attr(name, data):
    return (A[name], data, None)


def geneve(cls, typ, data, nested=False):
    return attrs.geneve_opt(struct.pack('>H', cls), bytes([typ]), data,
                           nested)


# Geneve options (class 0x0102, type 0x80, 4 bytes) and an all-ones mask
GENEVE_OPT = geneve(0x0102, 0x80, b'\x00\x88\x00\x22', nested=True)
GENEVE_ONES = geneve(0xFFFF, 0xFF, b'\xff' * 4, nested=True)


class Base(unittest.TestCase):
    """parse(), refused(), warned() and dump() send ETH_TYPE = the
    filter's protocol (not all) when the attributes have none, as tc
    does; raw=True sends the attributes as they are."""

    def setUp(self):
        self.model = Model(DEVS)

    def parse(self, *attrs, proto=IP, raw=False):
        attrs = list(attrs)
        if not raw and proto != 0x0003 and \
                not any(a[0] == A['KEY_ETH_TYPE'] for a in attrs):
            attrs.insert(0, (A['KEY_ETH_TYPE'], struct.pack('>H', proto),
                             None))
        return self.model.fl_parse(attrs, False, proto)

    def refused(self, code, msg, *attrs, proto=IP, raw=False):
        with self.assertRaises(Err) as cm:
            self.parse(*attrs, proto=proto, raw=raw)
        self.assertIn(code, cm.exception.codes)
        self.assertEqual(cm.exception.msg, msg)

    def warned(self, msg, *attrs, proto=IP, raw=False):
        """The filter the request makes; msg: the warning of its ack
        (None: none)."""
        f = self.parse(*attrs, proto=proto, raw=raw)
        self.assertEqual(f.warning, msg)
        return f

    def dump(self, *attrs, proto=IP, raw=False):
        """[(type, hex)] fl_dump() puts for a filter alone in its prio."""
        f = self.parse(*attrs, proto=proto, raw=raw)
        f.handle = 1
        tp = model_keys.Tp(0, 1, proto, None)
        tp.put(f)
        return [(t, v.hex()) for t, v in self.model.expected_opts(tp, f)]



def u16(v):
    return struct.pack('<H', v)


def be16(v):
    return struct.pack('>H', v)


def be32(v):
    return struct.pack('>I', v)


MPLS_UC, PPP_SES, QINQ = 0x8847, 0x8864, 0x88A8
LSE = attrs.LSE_ATTR
F = attrs.NLA_F_NESTED


def lse(*attrs, nested=True):
    """One MPLS_OPTS_LSE of (name, bytes) attributes."""
    return nla(1 | (F if nested else 0),
               b''.join(nla(LSE[n], v) for n, v in attrs))


