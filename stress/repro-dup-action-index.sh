#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Reproducer (tc core, not cls_flower): a filter with two actions of the
# same explicit index livelocks tc_new_tfilter() on this 6.1 tree.
#   guest/run --timeout 240 -- sh stress/repro-dup-action-index.sh
# The second `tc filter add` never returns (guest/run: exit 124; on a
# longer run the console shows an RCU stall in tc_new_tfilter).
ip link add d0 type dummy
ip link set d0 up
tc qdisc add dev d0 ingress
echo "two actions, different explicit indexes:"
tc filter add dev d0 ingress prio 1 matchall \
	action gact drop index 7 action gact drop index 8
echo "rc=$?"
echo "two actions, the same explicit index (hangs):"
tc filter add dev d0 ingress prio 2 matchall \
	action gact drop index 9 action gact drop index 9
echo "rc=$?"
