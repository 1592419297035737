# SPDX-License-Identifier: GPL-2.0
"""flower - what the Python tools know about the flower classifier.

uapi     attribute numbers, nested enums, protocol names (pure data)
keys     one row per flower key, checked against cls_flower.c's fl_keys[]
needs    what each key needs of the filter, and the kernel's messages
model    the one model of fl_change() and fl_dump() (with model_attrs,
         its attribute table, and model_keys, the flow key): what ours
         answers to a request; difftest and the fuzzer generate for it
packets  one packet description: frame bytes (build) or scapy layers
         (scapy_layers) and their expression (scapy_expr), checked
         against scapy by a test; Layers, a frame as scapy layers
         (tcgen's frames), rendered (render) or built (scapy_frame)
results  the one reader of the tools' "N passed, N failed" summary line
         and of tdc.py's TAP

Nothing here imports scapy (but packets.scapy_frame(), when called) or
pyroute2: the guest loads these in every tool, and pyroute2 alone takes
~10 s to import under TCG.
"""
