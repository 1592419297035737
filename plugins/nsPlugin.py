# SPDX-License-Identifier: GPL-2.0
"""nsPlugin: every case runs in a fresh network namespace of its own.

Layout per case (tag = the case id), as upstream tdc lays it out:

  runner's namespace            namespace $NS = tcut-<tag>
    $DEV0 v0p0id<tag>  <-veth->   $DEV1 v0p1id<tag>
                                  $DUMMY dummy1id<tag>  (dummy)
                                  $DEV2 dummy2id<tag>   (dummy)
                                  lo

All devices are up.  $DEV2 is upstream's "physical NIC" (tdc -d): its
6.1 flower cases add an ingress qdisc and skip_hw filters on it, which a
dummy device takes.  With tdc.py -d DEV, $DEV2 is DEV instead: it is
moved into $NS for the case and back to the runner's namespace after it
(upstream only moves it in; deleting $NS would destroy a virtual DEV).  Every command of the case runs inside $NS, as
upstream's `ip netns exec $NS ...` would run it (its own mount namespace
with a sysfs of $NS), but entered in the command's child process, so the
whole command line, pipes included, is in $NS and no `ip` is exec'ed.
Packets sent on $DEV0 from the runner's namespace arrive on $DEV1's
ingress.  post_case deletes $DEV0 (and so its peer) and the namespace
(and so the dummies).

The namespace and devices are made over netlink (pyroute2) from the
runner's process: no exec per case.
"""

import functools
import os
import re

from pyroute2 import IPRoute

from plugins import netnslib
from plugins.TdcPlugin import TdcPlugin

WRAPPED_STAGES = ('depends', 'setup', 'execute', 'verify', 'teardown')


class SubPlugin(TdcPlugin):
    def __init__(self, runner):
        super().__init__(runner)
        self.ns = None

    def pre_case(self, case, names):
        # interface names have at most 15 characters: 8 + a 6-char tag
        tag = re.sub(r'[^0-9A-Za-z]', '', str(case['id']))[:6] or 'x'
        device = getattr(self.runner, 'device', None)
        names.update(NS='tcut-' + tag, DEV0='v0p0id' + tag,
                     DEV1='v0p1id' + tag, DUMMY='dummy1id' + tag,
                     DEV2=device or 'dummy2id' + tag)
        self._remove(names)                  # leftovers of an earlier run
        self.runner.log('nsPlugin: netns {NS}: {DEV0} <-> {DEV1}, {DUMMY}, '
                        '{DEV2}'.format(**names))
        netnslib.create(names['NS'])
        self.ns = names['NS']
        with IPRoute() as ipr:
            ipr.link('add', ifname=names['DEV0'], kind='veth',
                     peer=names['DEV1'])
            ipr.link('set', index=_index(ipr, names['DEV1']),
                     net_ns_fd=netnslib.path(names['NS']))
            ipr.link('set', index=_index(ipr, names['DEV0']), state='up')
            if device:
                ipr.link('set', index=_index(ipr, device),
                         net_ns_fd=netnslib.path(names['NS']))
        with netnslib.inside(names['NS']):
            ipr = IPRoute()                  # this socket stays in $NS
        with ipr:
            for dummy in (names['DUMMY'], names['DEV2']):
                if dummy != device:
                    ipr.link('add', ifname=dummy, kind='dummy')
            for dev in ('lo', names['DEV1'], names['DUMMY'], names['DEV2']):
                ipr.link('set', index=_index(ipr, dev), state='up')

    def preexec(self, stage):
        if self.ns is None or stage not in WRAPPED_STAGES:
            return None
        return functools.partial(netnslib.enter_for_exec, self.ns)

    def post_case(self, case, names):
        self.ns = None
        self._remove(names)

    def _remove(self, names):
        """Delete $DEV0 (its peer goes with it: the namespace's devices do
        not outlive it in a cleanup that runs later) and the namespace."""
        with IPRoute() as ipr:
            for index in ipr.link_lookup(ifname=names['DEV0']):
                ipr.link('del', index=index)
        if not os.path.exists(netnslib.path(names['NS'])):
            return
        device = getattr(self.runner, 'device', None)
        if device:                           # -d DEV: back home
            with netnslib.inside(names['NS']):
                ipr = IPRoute()
            with ipr:
                for index in ipr.link_lookup(ifname=device):
                    ipr.link('set', index=index, net_ns_pid=os.getpid())
        netnslib.remove(names['NS'])


def _index(ipr, ifname):
    found = ipr.link_lookup(ifname=ifname)
    if not found:
        raise RuntimeError('no device {} after creating it'.format(ifname))
    return found[0]
