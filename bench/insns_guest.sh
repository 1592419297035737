#!/bin/sh
# Guest side of `make bench-insns` (bench/insns.py): one flower filter and
# one u32 filter, each on the ingress of its own veth, and a ping through
# each, forever; the host's gdb stops the guest in fl_classify() and
# u32_classify() and counts instructions.  Writes where the modules' text
# is and "ready" into OUT.
set -e
out=$1
mkdir -p "$out"
rm -f "$out"/*
for n in 1 2; do
	ip netns add ns$n
	ip link add a$n type veth peer name b$n
	ip link set b$n netns ns$n
	ip addr add 10.0.$n.1/24 dev a$n
	ip link set a$n up
	ip -n ns$n addr add 10.0.$n.2/24 dev b$n
	ip -n ns$n link set b$n up
	ip netns exec ns$n tc qdisc add dev b$n clsact
done
ip netns exec ns1 tc filter add dev b1 ingress prio 1 protocol ip \
	flower dst_ip 10.0.1.2 action pass
ip netns exec ns2 tc filter add dev b2 ingress prio 1 protocol ip \
	u32 match ip dst 10.0.2.2/32 action pass
ping -c 1 10.0.1.2 > /dev/null
ping -c 1 10.0.2.2 > /dev/null
cat /sys/module/cls_flower/sections/.text > "$out/cls_flower.text"
echo ready > "$out/ready"
ping -i 0.2 10.0.1.2 > /dev/null &
exec ping -i 0.2 10.0.2.2 > /dev/null
