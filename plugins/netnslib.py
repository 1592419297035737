# SPDX-License-Identifier: GPL-2.0
"""Network namespace helpers for nsPlugin and scapyPlugin (not a plugin).

Everything is done in the runner's process with setns(2) and netlink
(pyroute2), not with `ip` commands: each exec costs tenths of a second in
an emulated guest, and the suite runs a thousand cases.
"""

import ctypes
import os
from contextlib import contextmanager

NETNS_DIR = '/run/netns'
CLONE_NEWNS = 0x00020000
CLONE_NEWNET = 0x40000000
MS_REC = 0x4000
MS_SLAVE = 1 << 19
MNT_DETACH = 2

_libc = ctypes.CDLL(None, use_errno=True)


def path(name):
    return os.path.join(NETNS_DIR, name)


def _setns(fd):
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, 'setns: ' + os.strerror(err))


def _setns_path(ns_path):
    fd = os.open(ns_path, os.O_RDONLY)
    try:
        _setns(fd)
    finally:
        os.close(fd)


@contextmanager
def inside(name):
    """Run the body with this thread in namespace `name`; sockets opened
    there stay in it afterwards."""
    home = os.open('/proc/thread-self/ns/net', os.O_RDONLY)
    try:
        _setns_path(path(name))
        yield
    finally:
        _setns(home)
        os.close(home)


def enter_for_exec(name):
    """What `ip netns exec NAME` does before it execs, for a child process:
    join the namespace, and in a mount namespace of its own mount a sysfs
    that shows this namespace's devices (best effort, as that is only for
    tools reading /sys)."""
    _setns_path(path(name))
    if _libc.unshare(CLONE_NEWNS) == 0:
        _libc.mount(b'none', b'/', None, MS_SLAVE | MS_REC, None)
        _libc.umount2(b'/sys', MNT_DETACH)
        _libc.mount(name.encode(), b'/sys', b'sysfs', 0, None)


def create(name):
    from pyroute2 import netns
    netns.create(path(name))


def remove(name):
    from pyroute2 import netns
    netns.remove(path(name))
