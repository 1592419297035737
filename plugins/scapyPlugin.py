# SPDX-License-Identifier: GPL-2.0
"""scapyPlugin: send a case's packets after its command under test.

A case's "scapy" entry is one block or a list of blocks, sent in order:

  {"iface": "$DEV0", "count": 3, "packet": "Ether()/IP(dst='10.0.0.1')"}

iface gets the case's variables substituted; packet is a Python
expression evaluated with scapy.all's names.  The packet is sent (sendp)
from the namespace that holds iface: the runner's own, or else the case's
$NS, which this thread enters with setns(2) for the send only.  So scapy
is imported once per run, in the runner's process, not once per packet or
case.  A case with a scapy block skips when scapy cannot be imported.
"""

import os
import socket
import string
from plugins import netnslib
from plugins.TdcPlugin import SkipCase, TdcPlugin

_scapy = None            # the scapy.all module, once imported
_scapy_error = None      # why it could not be imported


def scapy_all():
    """Import scapy.all on first use (it costs seconds in an emulated
    guest); None if it cannot be imported."""
    global _scapy, _scapy_error
    if _scapy is None and _scapy_error is None:
        try:
            import scapy.all
            scapy.all.conf.verb = 0
            _scapy = scapy.all
        except Exception as exc:            # ImportError, or scapy's own
            _scapy_error = '{}: {}'.format(type(exc).__name__, exc)
    return _scapy


def blocks(case):
    block = case.get('scapy')
    if block is None:
        return []
    return block if isinstance(block, list) else [block]


def has_interface(name):
    try:
        socket.if_nametoindex(name)
        return True
    except OSError:
        return False


class SubPlugin(TdcPlugin):
    def pre_suite(self, cases):
        # once, here: with tdc.py -J the workers are forked after this
        if any(blocks(case) for case in cases):
            scapy_all()

    def pre_case(self, case, names):
        if blocks(case) and scapy_all() is None:
            raise SkipCase('scapy unavailable ({})'.format(_scapy_error))

    def post_execute(self, case, names):
        for block in blocks(case):
            missing = [k for k in ('iface', 'count', 'packet')
                       if k not in block]
            if missing:
                raise ValueError('scapy block lacks ' + ', '.join(missing))
            iface = string.Template(block['iface']).safe_substitute(names)
            packet = eval(block['packet'], vars(_scapy))
            count = int(block['count'])
            self.runner.log('scapy: {} x {} on {}'.format(
                count, packet.summary(), iface))
            self._send(packet, count, iface, names.get('NS'))

    def _send(self, packet, count, iface, ns):
        if has_interface(iface):
            _scapy.sendp(packet, iface=iface, count=count, verbose=False)
            return
        if ns and os.path.exists(netnslib.path(ns)):
            with netnslib.inside(ns):
                if has_interface(iface):
                    _scapy.sendp(packet, iface=iface, count=count,
                                 verbose=False)
                    return
        raise ValueError('interface {} is neither in the runner\'s namespace '
                         'nor in {}'.format(iface, ns or '(no $NS)'))
