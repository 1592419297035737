# SPDX-License-Identifier: GPL-2.0
"""Open vSwitch's tc offload on our flower (ovs/README.md).

A package only so that `python3 -m unittest discover` (run from the
repository root) finds ovs/tests.  scenarios.py and report.py run as
files.  From the repository root this package hides python3-openvswitch's
own `ovs` module; nothing here imports that one.
"""
