#!/bin/sh
# The control plane of many masks (issue 31): N filters in one prio, each
# with a mask of its own (dst_mac under N different masks), added in one
# `tc -b`, then deleted one by one in another, on each module in turn.
# Runs in the guest without a cls_flower loaded (guest/run
# --no-load-flower); wall time of the guest, so only the ratio of the
# modules within one run means something.
#
# usage: bench/masks_build.sh ROUNDS N[,N...] NAME=KO [NAME=KO...]
set -eu
rounds=$1 counts=$2
shift 2
ip link add mb0 type dummy
ip link set mb0 up
tc qdisc add dev mb0 ingress
batch=/tmp/masks-add.$$ dels=/tmp/masks-del.$$

now() { date +%s.%N; }

echo "| module | round | masks | add (s) | delete one by one (s) |"
echo "|---|---|---|---|---|"
for r in $(seq "$rounds"); do
	for mod in "$@"; do
		name=${mod%%=*} ko=${mod#*=}
		insmod "$ko"
		for n in $(echo "$counts" | tr , ' '); do
			awk -v n="$n" 'BEGIN { for (i = 1; i <= n; i++)
				printf "filter add dev mb0 ingress protocol ip prio 1 handle %d flower dst_mac 02:00:00:00:00:00/ff:ff:ff:ff:%02x:%02x action drop\n", i, int(i / 256), i % 256 }' >"$batch"
			sed 's/filter add/filter del/; s/ flower.*/ flower/' "$batch" >"$dels"
			s=$(now); tc -b "$batch"; a=$(now)
			tc -b "$dels"; d=$(now)
			left=$(tc filter show dev mb0 ingress | grep -c handle || true)
			[ "$left" = 0 ] || { echo "$name: $left filters left" >&2; exit 1; }
			echo "| $name | $r | $n | $(echo "$a - $s" | bc) | $(echo "$d - $a" | bc) |"
		done
		tc qdisc del dev mb0 ingress
		tc qdisc add dev mb0 ingress
		rmmod cls_flower
	done
done
rm -f "$batch" "$dels"
