#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# stress/replace-race.sh [SECONDS] -- runs in the test guest.
#
# A replace that moves a filter to another mask must leave a packet that
# both the old and the new filter match matched at every instant (issue
# 31, series step 19).  Handle 1 of prio 1 flips between dst_ip
# 198.51.100.1 and src_ip 192.0.2.1 (two masks) in a loop while frames
# 192.0.2.1 -> 198.51.100.1 flow; a matchall at prio 2 counts the frames
# that prio 1 missed.  Ends with "N passed, N failed": passed when no
# frame was missed, and when enough frames met enough replaces for the
# run to mean something (a quiet run is a failure, not a pass).  The
# replaces go on for SECONDS at least and until 400 replaces met 10,000
# frames (how fast the guest sends depends on the host's load), but for
# five times SECONDS at most.
SECS=${1:-20}
MIN_REPLACES=400
MIN_FRAMES=10000
set -u
fail() { echo "replace-race: $*"; echo "0 passed, 1 failed"; exit 1; }

ip link add rr0 numtxqueues 1 type veth peer name rr1 numrxqueues 1 ||
	fail "no veth"
# no IPv6 chatter (router solicitations, MLD) for the matchall to count
for d in rr0 rr1; do
	echo 1 > /proc/sys/net/ipv6/conf/$d/disable_ipv6 || fail "IPv6 on $d"
done
ip link set rr0 up && ip link set rr1 up || fail "links down"
tc qdisc add dev rr1 clsact || fail "no clsact"
tc filter add dev rr1 ingress prio 1 handle 1 protocol ip flower \
	dst_ip 198.51.100.1 action drop || fail "first filter refused"
tc filter add dev rr1 ingress prio 2 protocol ip matchall action drop ||
	fail "matchall refused"

command -v mausezahn >/dev/null || fail "mausezahn (netsniff-ng) missing"
mausezahn rr0 -q -c 0 -a 02:00:00:00:00:01 -b 02:00:00:00:00:02 \
	-A 192.0.2.1 -B 198.51.100.1 -t udp "sp=1,dp=9" 2>/dev/null &
TRAFFIC=$!

count() {	# packets of prio $1's filter
	tc -s -j filter show dev rr1 ingress prio "$1" |
		/usr/bin/python3 -c 'import json, sys
print(sum(f["options"]["actions"][0]["stats"]["packets"]
          for f in json.load(sys.stdin) if "options" in f))'
}
enough() {	# replaces and frames enough for the run to mean something
	[ "$replaces" -ge $MIN_REPLACES ] &&
		[ $(( $(count 1) + $(count 2) )) -ge $MIN_FRAMES ]
}

# replaces in batches of 200, alternating the masks
batch=/tmp/replace-race.batch
: > $batch
i=0
while [ $i -lt 100 ]; do
	echo "filter replace dev rr1 ingress prio 1 handle 1 protocol ip flower src_ip 192.0.2.1 action drop" >> $batch
	echo "filter replace dev rr1 ingress prio 1 handle 1 protocol ip flower dst_ip 198.51.100.1 action drop" >> $batch
	i=$((i + 1))
done
replaces=0
start=$(date +%s)
while :; do
	took=$(( $(date +%s) - start ))
	[ $took -ge $((SECS * 5)) ] && break
	[ $took -ge "$SECS" ] && enough && break
	tc -b $batch || { kill $TRAFFIC; fail "a replace failed"; }
	replaces=$((replaces + 200))
done
kill $TRAFFIC; wait $TRAFFIC 2>/dev/null

hit=$(count 1); missed=$(count 2)
echo "replace-race: $replaces replaces in ${took}s, $hit frames matched, $missed missed"
[ "$replaces" -ge $MIN_REPLACES ] && [ $((hit + missed)) -ge $MIN_FRAMES ] ||
	fail "too few replaces or frames for the run to mean anything"
[ "$missed" -eq 0 ] || fail "$missed frames matched neither filter"
echo "1 passed, 0 failed"
