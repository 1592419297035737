#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the guest: `tc -b` of N range filters (disjoint dst_port ranges,
# one mask) with ours' range_index parameter on and off, alternating, R
# rounds; the time each took and the MemAvailable it cost.  Under icount
# the times count instructions (docs/bench/README.md, the range index):
#   TDC_QEMU_EXTRA="-icount shift=3" guest/run --accel tcg --smp 1 \
#     --append "tsc_early_khz=1000000 tsc=reliable clocksource=tsc" -- \
#     sh bench/range_insert.sh 10000 3
n=${1:-10000}; rounds=${2:-3}
awk -v n=$n 'BEGIN { for (i = 0; i < n; i++) printf "filter add dev d0 ingress protocol ip prio 1 handle %d flower ip_proto udp dst_port %d-%d action drop\n", i + 1, 1 + 6 * i, 5 + 6 * i }' > /tmp/b
for r in $(seq $rounds); do
	for v in Y N; do
		echo $v > /sys/module/cls_flower/parameters/range_index
		ip link add d0 type dummy; tc qdisc add dev d0 ingress
		before=$(awk '/MemAvailable/ {print $2}' /proc/meminfo)
		s=$(date +%s%N); tc -b /tmp/b; e=$(date +%s%N)
		sleep 0.5
		after=$(awk '/MemAvailable/ {print $2}' /proc/meminfo)
		echo "range_index=$v round $r: $(( (e - s) / 1000000 )) ms, $(( before - after )) kB"
		ip link del d0; sleep 0.3
	done
done
