# SPDX-License-Identifier: GPL-2.0
"""What the offload oracle's host and guest sides share: the devices the
guest makes, the test driver's files, the request file's form.

The test driver (offload/drv/, flower_offload_test.ko, offload/README.md)
takes tc blocks two ways, and the guest (offload/replay.py) makes a pair
of devices for each:

  direct    ofd0, ofd1: devices of the driver's own kind fltest (`ip link
            add NAME type fltest`); their ndo_setup_tc binds every block
            bound to them, as a NIC driver's does.  cls_api counts them as
            devices that offload: skip_sw rules reach the driver, a device
            joins a shared block holding offloaded rules
  indirect  ofa, ofb: a veth pair, taken by the driver through
            flow_indr_dev_register() (its debugfs `devices`), as drivers
            take tunnel devices.  cls_api counts them as devices that do
            not offload: stock refuses every skip_sw rule there before
            asking a driver

and a dummy ofc that no driver takes.  A binding's A takes every filter
request; B joins shared blocks (playback) and is mirred's target; C is the
device nothing offloads.

A request file (offload/sources.py writes it) is JSON:
  {"items": [ITEM, ...], "meta": {...}}
  ITEM = {"id": str, "source": "corpus"|"difftest"|"template"|"scenario",
          "binding": "direct"|"indirect", "what": str (tc-like, for the
          report), "origin": [str, ...], "flags": ""|"skip_sw"|"skip_hw",
          "steps": [STEP, ...]}
  STEP = {"op": "tc", "args": "filter add dev ofd0 ...", "json": bool}
       | {"op": "show", "args": "dev ofd0 ingress"}  tc -s -j filter show
       | {"op": "flush", "args": "dev ofd0 ingress"} each shown filter
                                                      deleted by handle
       | {"op": "nl_add", "dev", "hook", "proto", "prio", "handle",
          "chain", "attrs": [[type, hex], ...], "flags": int,
          "act": "drop"|"pass"|None}                  RTM_NEWTFILTER
       | {"op": "drv", "file": "stats"|"refuse", "value": str}
                                    debugfs's file; `stats` also each
                                    fltest device's (which answers STATS
                                    from its own)
       | {"op": "ethtool", "args": "-K ofd1 hw-tc-offload off"}
After the last step the runner tears down on its own (qdiscs of every
device deleted, the driver's refuse and stats reset) and records that as a
last step "teardown", so a destroy that is missing shows there.
"""

DIRECT = ('ofd0', 'ofd1')       # kind fltest (the driver's own devices)
INDIRECT = ('ofa', 'ofb')       # a veth pair, taken through debugfs
DEV_C = 'ofc'                   # a dummy no driver takes
BINDINGS = {'direct': DIRECT, 'indirect': INDIRECT}
# an item of the indirect binding: its id ends with this
INDIRECT_SUFFIX = '@veth'
FLTEST_KIND = 'fltest'
DEBUGFS = '/sys/kernel/debug'
DRV_DIR = DEBUGFS + '/flower_offload_test'
FLTEST_SYSFS = '/sys/class/net/%s/fltest'   # a fltest device's own files
FLAGS = ('', 'skip_sw', 'skip_hw')
ALL_DEVS = DIRECT + INDIRECT + (DEV_C,)
