#!/bin/sh
# offload/drv/smoke.sh [KO]: the flower offload test driver's smoke test,
# run in the QEMU guest (make offload-drv-smoke VARIANT=ours|stock, or
# guest/run --variant V -- sh offload/drv/smoke.sh) from the repository's
# top directory.  KO defaults to build/offload-drv/flower_offload_test.ko.
#
# Loads the driver, has it take veth0, veth2, veth4, veth6 and veth8, and
# checks what tc gives it: filters with and without skip_sw/skip_hw,
# refusals (all, by key), stats, matchall, actions' parameters, a shared
# block (bind, leave, join with playback), chain templates, the log's
# format and bound, and rmmod.  Then the driver's own devices (fltest0,
# fltest1 from the load, fltest8 and fltest9 from `ip link add type
# fltest`), bound
# through ndo_setup_tc: skip_sw accepted (in_hw_count 1) and refused (by
# the device's sysfs refuse, by debugfs's, by hw-tc-offload off: the
# add fails with the driver's extack, no filter; without skip_sw it is
# added not_in_hw), their own stats, a skip_sw filter unused by software
# (ping out of fltest1, the next prio counts), a shared block joined with
# playback, a move to a netns.  The expectations are those of the 6.1
# tree's stock cls_flower; two of them pin 6.1 cls_api behaviour on a
# block bound only indirectly (offload/README.md, "Stock 6.1"):
#   - skip_sw fails with EOPNOTSUPP before any driver is asked;
#   - a device joining a shared block that holds offloaded rules gets the
#     playback, and then the qdisc add fails with EOPNOTSUPP, leaving the
#     driver's callback on the block: so block 22 (veth2) and veth6 stay
#     until rmmod here.
# Prints `ok N - ...` / `not ok N - ...` (with the evidence as `#` lines)
# and a final `N passed, N failed`; exits 1 if any check failed.

KO=${1:-build/offload-drv/flower_offload_test.ko}
D=/sys/kernel/debug/flower_offload_test
LOG=$D/log
passed=0
failed=0
n=0

pass() {
	n=$((n + 1)); passed=$((passed + 1)); echo "ok $n - $1"
}

fail() {
	n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"
}

# check NAME CMD...: one result; CMD's output is shown when it fails
check() {
	name=$1
	shift
	if out=$("$@" 2>&1); then
		pass "$name"
	else
		fail "$name"
		printf '%s\n' "$out" | sed 's/^/#   /'
	fi
}

# has N FILTER [FILE]: exactly N lines of the log (or of FILE, a device's
# log) match the jq condition FILTER
has() {
	f=${3:-$LOG}
	got=$(jq -c "select($2)" "$f" | wc -l)
	[ "$got" -eq "$1" ] && return 0
	echo "expected $1 line(s) of $f with $2, got $got; the log:"
	cat "$f"
	return 1
}

# dlog DEV: the log of a device of kind fltest
dlog() {
	echo "/sys/class/net/$1/fltest/log"
}

# field FILTER FIELD: FIELD of the log lines matching FILTER
field() {
	jq -c "select($1) | .$2" "$LOG"
}

# shows PATTERN CMD...: CMD succeeds and its output has PATTERN
shows() {
	pat=$1
	shift
	o=$("$@" 2>&1) || { echo "failed: $*"; echo "$o"; return 1; }
	printf '%s\n' "$o" | grep -q -- "$pat" && return 0
	echo "no '$pat' in the output of: $*"
	echo "$o"
	return 1
}

# said PATTERN TEXT: TEXT has PATTERN
said() {
	printf '%s\n' "$2" | grep -q -- "$1" && return 0
	echo "no '$1' in: $2"
	return 1
}

# fails CMD...: CMD fails
fails() {
	if o=$("$@" 2>&1); then
		echo "succeeded: $*"
		echo "$o"
		return 1
	fi
	echo "$o"
}

clear_log() {
	echo > "$LOG"
}

fshow() {
	tc filter show dev veth0 ingress prio "$1"
}

flower() {	# flower PRIO ARGS...: a flower filter on veth0's ingress
	p=$1
	shift
	tc filter add dev veth0 ingress protocol ip prio "$p" flower "$@"
}

# ---- load and configure -------------------------------------------------
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug

t_load() {
	insmod "$KO" && for f in devices log stats refuse; do
		[ -e "$D/$f" ] || { echo "no $D/$f"; return 1; }
	done
}
check "insmod; debugfs has devices, log, stats, refuse" t_load
[ -d "$D" ] || { echo "$passed passed, $((failed + 1)) failed"; exit 1; }

for i in 0 2 4 6 8; do
	ip link add veth$i type veth peer name veth$((i + 1))
done

t_devices() {
	echo "veth0 veth2  veth4 veth6 veth8" > $D/devices &&
		[ "$(cat $D/devices)" = "veth0 veth2 veth4 veth6 veth8" ]
}
check "devices reads back the names written" t_devices

t_bind() {
	clear_log
	tc qdisc add dev veth0 ingress && tc qdisc add dev veth1 ingress &&
		has 1 '.type == "block" and .cmd == "bind" and .dev == "veth0"
		       and .binder == "ingress" and .shared == false' &&
		has 0 '.dev == "veth1"'
}
check "a taken device's block bind is logged, an untaken one's not" t_bind

# ---- filters ------------------------------------------------------------
t_plain() {
	clear_log
	flower 1 dst_ip 10.0.0.1 action drop &&
		shows "in_hw in_hw_count 1" fshow 1 &&
		has 1 '.type == "flower" and .cmd == "replace"
		       and .dev == "veth0"
		       and .prio == 1 and .proto == 2048 and .chain == 0
		       and .used_keys == ["control", "basic", "ipv4_addrs",
					  "ipv6_addrs"]
		       and .keys.ipv4_addrs.key == "000000000a000001"
		       and .keys.ipv4_addrs.mask == "00000000ffffffff"
		       and .keys.basic.key == "08000000"
		       and .actions == [{"id": "drop", "hw_stats": 3,
					 "index": .actions[0].index}]
		       and .has_extack == false and .result == 0'
}
check "no flag: in_hw in_hw_count 1, replace with keys and action" t_plain
C1=$(field '.cmd == "replace" and .prio == 1' cookie)

t_untaken() {
	clear_log
	tc filter add dev veth1 ingress protocol ip prio 1 flower \
		dst_ip 10.0.0.1 action drop &&
		shows "not_in_hw" tc filter show dev veth1 ingress &&
		has 0 'true'
}
check "a device not taken: not_in_hw, the driver is not called" t_untaken

t_skip_hw() {
	clear_log
	flower 3 skip_hw dst_ip 10.0.0.3 action drop &&
		shows "not_in_hw" fshow 3 && has 0 'true'
}
check "skip_hw: not_in_hw, the driver is not called" t_skip_hw

t_skip_sw() {
	clear_log
	fails flower 2 skip_sw dst_ip 10.0.0.2 action drop &&
		has 0 '.cmd == "replace"' && [ -z "$(fshow 2)" ]
}
check "skip_sw on an indirectly bound block: EOPNOTSUPP (6.1), no replace" \
	t_skip_sw

# ---- refusals -----------------------------------------------------------
t_refuse_verbose() {
	clear_log
	echo all > $D/refuse && [ "$(cat $D/refuse)" = all ] &&
		shows "flower_offload_test: refused" \
			flower 4 verbose dst_ip 10.0.0.4 action drop &&
		shows "not_in_hw" fshow 4 &&
		has 1 '.cmd == "replace" and .prio == 4 and .result == -95
		       and .has_extack == true
		       and .extack == "flower_offload_test: refused"'
}
check "refuse all, verbose: added not_in_hw, tc prints the extack" \
	t_refuse_verbose

t_refuse_quiet() {
	clear_log
	flower 5 dst_ip 10.0.0.5 action drop && shows "not_in_hw" fshow 5 &&
		has 1 '.cmd == "replace" and .prio == 5 and .result == -95
		       and .has_extack == false'
}
check "refuse all, no flag: added not_in_hw" t_refuse_quiet

t_refuse_skip_sw() {
	clear_log
	fails flower 6 skip_sw dst_ip 10.0.0.6 action drop &&
		has 0 '.cmd == "replace"' && [ -z "$(fshow 6)" ]
}
check "refuse all, skip_sw: the add fails" t_refuse_skip_sw

t_refuse_keys() {
	clear_log
	echo "ct  ports" > $D/refuse || return 1
	got=$(cat $D/refuse)
	o7=$(flower 7 verbose ip_proto tcp dst_port 80 action drop 2>&1)
	flower 8 dst_ip 10.0.0.8 action drop
	echo none > $D/refuse
	[ "$got" = "ports ct" ] || { echo "refuse reads '$got'"; return 1; }
	said "flower_offload_test: key ports not supported" "$o7" &&
		shows "not_in_hw" fshow 7 &&
		shows "in_hw in_hw_count 1" fshow 8 &&
		has 1 '.cmd == "replace" and .prio == 7 and .result == -95
		       and .used_keys == ["control", "basic", "ports"]
		       and .keys.ports.key == "00000050"
		       and .extack ==
			   "flower_offload_test: key ports not supported"' &&
		has 1 '.cmd == "replace" and .prio == 8 and .result == 0' &&
		[ "$(cat $D/refuse)" = none ] &&
		fails sh -c "echo nosuchkey > $D/refuse"
}
check "refuse 'ports ct': dst_port refused with the key's extack, dst_ip not" \
	t_refuse_keys

# ---- stats --------------------------------------------------------------
t_stats() {
	clear_log
	echo "7 700 2" > $D/stats || return 1
	got=$(cat $D/stats)
	o=$(tc -s filter show dev veth0 ingress prio 1 2>&1)
	echo "0 0 0" > $D/stats
	[ "$got" = "7 700 2" ] || { echo "stats reads '$got'"; return 1; }
	said "Sent hardware 700 bytes 7 pkt" "$o" &&
		has 1 '.cmd == "stats" and .prio == 1 and .pkts == 7
		       and .bytes == 700 and .drops == 2 and .hw_stats == 2
		       and .result == 0' &&
		clear_log && fshow 4 >/dev/null &&
		has 1 '.cmd == "stats" and .prio == 4 and .pkts == 0
		       and .result == -2'
}
check "stats: counters set in debugfs are tc -s's hardware counters" t_stats

# ---- matchall and actions -----------------------------------------------
t_matchall() {
	clear_log
	tc filter add dev veth0 ingress prio 9 matchall \
		action mirred egress redirect dev veth2 &&
		shows "in_hw" tc filter show dev veth0 ingress prio 9 &&
		has 1 '.type == "matchall" and .cmd == "replace" and .prio == 9
		       and .proto == 3 and .actions[0].id == "redirect"
		       and .actions[0].dev == "veth2" and .result == 0'
}
check "matchall: in_hw, replace with the redirect's device" t_matchall

t_actions() {
	clear_log
	tc filter add dev veth0 ingress protocol 802.1q prio 10 flower \
		vlan_id 5 vlan_ethtype ip dst_ip 10.1.2.3 \
		action vlan modify id 6 priority 2 pipe \
		action pedit ex munge ip ttl set 7 pipe \
		action csum ip pipe action skbedit mark 9 pipe \
		action police rate 1mbit burst 10k conform-exceed drop/pipe \
		action goto chain 3 &&
		has 1 '.cmd == "replace" and .prio == 10 and .proto == 33024
		       and .keys.vlan.key == "0500810008000000"
		       and ([.actions[].id] == ["vlan_mangle", "mangle", "csum",
						"mark", "police", "goto"])
		       and .actions[0].vid == 6 and .actions[0].prio == 2
		       and .actions[1].htype == 2 and .actions[1].offset == 8
		       and .actions[1].val == 7 and .actions[2].csum_flags == 1
		       and .actions[3].mark == 9 and .actions[4].rate == 125000
		       and .actions[4].burst == 10240
		       and .actions[4].exceed == "drop"
		       and .actions[5].chain_index == 3 and .result == 0'
}
check "actions: vlan, pedit, csum, mark, police, goto with parameters" \
	t_actions

t_tunnel() {
	clear_log
	flower 11 enc_key_id 5 action tunnel_key set src_ip 1.1.1.1 \
		dst_ip 2.2.2.2 id 7 dst_port 4789 action ct zone 3 &&
		has 1 '.cmd == "replace" and .prio == 11
		       and .keys.enc_keyid.key == "00000005"
		       and .actions[0].id == "tunnel_encap"
		       and .actions[0].tun_id == 7
		       and .actions[0].dst == "2.2.2.2"
		       and .actions[0].src == "1.1.1.1"
		       and .actions[0].tp_dst == 4789
		       and .actions[1].id == "ct" and .actions[1].zone == 3'
}
check "tunnel_key set and ct: tunnel_encap (id, dst, src, port), ct zone" \
	t_tunnel

t_format() {
	jq -e -s 'length > 0 and all(.[];
		(keys_unsorted[0:4] == ["seq", "dev", "type", "cmd"])
		and (keys_unsorted[-1] == "result"
		     or keys_unsorted[-2:] == ["result", "extack"]))
		and ([.[].seq] == [range(1; length + 1)])' "$LOG" >/dev/null ||
		{ cat "$LOG"; return 1; }
}
check "log: JSON lines, keys seq dev type cmd first, result last" t_format

t_delete() {
	clear_log
	tc filter del dev veth0 ingress prio 1 &&
		has 1 ".cmd == \"destroy\" and .prio == 1 and .cookie == $C1
		       and .result == 0"
}
check "delete: destroy with the replace's cookie, result 0" t_delete

# ---- shared block -------------------------------------------------------
t_shared() {
	clear_log
	tc qdisc add dev veth2 ingress_block 22 ingress &&
		tc qdisc add dev veth4 ingress_block 22 ingress &&
		tc filter add block 22 protocol ip prio 1 flower \
			dst_ip 10.0.0.1 action drop &&
		shows "in_hw in_hw_count 2" tc filter show block 22 &&
		has 2 '.cmd == "bind" and .shared == true' &&
		has 1 '.cmd == "replace" and .dev == "veth2"
		       and .result == 0' &&
		has 1 '.cmd == "replace" and .dev == "veth4"
		       and .result == 0' &&
		[ "$(field '.cmd == "replace"' cookie | uniq | wc -l)" -eq 1 ]
}
check "shared block, two devices: a replace for each, in_hw_count 2" t_shared
C22=$(field '.cmd == "replace" and .dev == "veth2"' cookie)

t_leave() {
	clear_log
	tc qdisc del dev veth4 ingress &&
		shows "in_hw in_hw_count 1" tc filter show block 22 &&
		[ "$(jq -r 'select(.dev == "veth4") | .cmd' "$LOG" |
		     tr '\n' ,)" = "unbind,destroy,release," ] &&
		has 1 ".cmd == \"destroy\" and .cookie == $C22 and .result == 0"
}
check "shared block, a device leaves: unbind, playback destroy, release" \
	t_leave

t_join() {
	clear_log
	fails tc qdisc add dev veth6 ingress_block 22 ingress &&
		has 1 '.cmd == "bind" and .dev == "veth6"' &&
		has 1 ".cmd == \"replace\" and .dev == \"veth6\"
		       and .cookie == $C22 and .result == 0" &&
		shows "in_hw in_hw_count 2" tc filter show block 22
}
check "shared block, a device joins: playback, in_hw_count 2 (add fails: 6.1)" \
	t_join

# ---- templates ----------------------------------------------------------
t_tmplt() {
	clear_log
	tc qdisc add dev veth8 ingress &&
		tc chain add dev veth8 ingress chain 0 protocol ip \
			flower dst_ip 0.0.0.0/16 &&
		tc chain del dev veth8 ingress chain 0 &&
		has 1 '.cmd == "tmplt_create" and .chain == 0 and .used_keys ==
		       ["control", "basic", "ipv4_addrs", "ipv6_addrs"]
		       and .keys.ipv4_addrs.mask == "00000000ffff0000"
		       and .result == 0' &&
		has 1 '.cmd == "tmplt_destroy" and .chain == 0
		       and .result == 0' &&
		[ "$(field '.cmd | startswith("tmplt")' cookie | uniq |
		     wc -l)" -eq 1 ]
}
check "chain template: tmplt_create with its keys, tmplt_destroy" t_tmplt

t_tmplt_unbind() {
	clear_log
	tc chain add dev veth8 ingress chain 3 protocol ip \
		flower src_mac 00:00:00:00:00:00/ff:ff:ff:00:00:00 &&
		tc qdisc del dev veth8 ingress &&
		[ "$(jq -r '.cmd' "$LOG" | tr '\n' ,)" = \
		  "tmplt_create,unbind,tmplt_destroy,release," ]
}
check "a template's block unbound: tmplt_destroy in the playback" \
	t_tmplt_unbind

# ---- devices of the driver's own (kind fltest, ndo_setup_tc) ------------
# fltest0 and fltest1 come with the module (ndevs=2); tc binds their blocks
# through ndo_setup_tc, so cls_api counts them as offloading devices:
# skip_sw works on them, unlike on the veths above.
fltshow() {	# fltshow PRIO: fltest0's ingress filters of PRIO
	tc filter show dev fltest0 ingress prio "$1"
}

fltflower() {	# fltflower PRIO ARGS...: a flower filter on fltest0's ingress
	p=$1
	shift
	tc filter add dev fltest0 ingress protocol ip prio "$p" flower "$@"
}

t_flt_devices() {
	for d in fltest0 fltest1; do
		shows "fltest addrgenmode" ip -d link show "$d" &&
			shows "hw-tc-offload: on" ethtool -k "$d" &&
			shows "driver: flower_offload_test" ethtool -i "$d" ||
			return 1
		for f in log stats refuse; do
			[ -e "/sys/class/net/$d/fltest/$f" ] ||
				{ echo "no /sys/class/net/$d/fltest/$f"; return 1; }
		done
	done
	[ "$(cat /sys/class/net/fltest0/fltest/stats)" = "0 0 0" ] &&
		[ "$(cat /sys/class/net/fltest0/fltest/refuse)" = none ] &&
		[ ! -s "$(dlog fltest0)" ]
}
check "insmod made fltest0 and fltest1: kind fltest, hw-tc-offload on, sysfs" \
	t_flt_devices

t_flt_skip_sw() {
	clear_log
	tc qdisc add dev fltest0 ingress &&
		fltflower 1 skip_sw dst_ip 10.0.0.1 action drop &&
		shows "skip_sw" fltshow 1 &&
		shows "in_hw in_hw_count 1" fltshow 1 &&
		has 1 '.type == "block" and .cmd == "bind" and .dev == "fltest0"
		       and .binder == "ingress"' "$(dlog fltest0)" &&
		has 1 '.cmd == "replace" and .prio == 1 and .dev == "fltest0"
		       and .has_extack == true and .result == 0' \
			"$(dlog fltest0)" &&
		has 1 '.cmd == "replace" and .dev == "fltest0"' &&
		jq -e -s '[.[].seq] == [range(1; length + 1)]' \
			"$(dlog fltest0)" >/dev/null
}
check "fltest0: skip_sw accepted, in_hw in_hw_count 1, in both logs" \
	t_flt_skip_sw
CF1=$(jq 'select(.cmd == "replace") | .cookie' "$(dlog fltest0)")

t_flt_refuse_skip_sw() {
	clear_log
	echo all > /sys/class/net/fltest0/fltest/refuse || return 1
	o=$(fails fltflower 2 skip_sw dst_ip 10.0.0.2 action drop)
	rc=$?
	echo none > /sys/class/net/fltest0/fltest/refuse
	[ "$rc" -eq 0 ] &&
		said "Error: flower_offload_test: refused" "$o" &&
		[ -z "$(fltshow 2)" ] &&
		has 1 '.cmd == "replace" and .prio == 2 and .result == -95
		       and .has_extack == true
		       and .extack == "flower_offload_test: refused"'
}
check "fltest0 refuse all (sysfs), skip_sw: fails with the extack, no filter" \
	t_flt_refuse_skip_sw

t_flt_refuse_global() {
	clear_log
	echo all > $D/refuse || return 1
	o=$(fails fltflower 2 skip_sw dst_ip 10.0.0.2 action drop)
	rc=$?
	fltflower 3 dst_ip 10.0.0.3 action drop
	rc3=$?
	echo none > $D/refuse
	[ "$rc" -eq 0 ] && [ "$rc3" -eq 0 ] &&
		said "Error: flower_offload_test: refused" "$o" &&
		[ -z "$(fltshow 2)" ] && shows "not_in_hw" fltshow 3 &&
		has 1 '.cmd == "replace" and .prio == 3 and .result == -95
		       and .has_extack == false'
}
check "debugfs refuse all: fltest0's skip_sw fails, a plain filter not_in_hw" \
	t_flt_refuse_global

t_flt_hw_tc_off() {
	clear_log
	ethtool -K fltest0 hw-tc-offload off || return 1
	o=$(fails fltflower 4 skip_sw dst_ip 10.0.0.4 action drop)
	rc=$?
	fltflower 5 dst_ip 10.0.0.5 action drop
	rc5=$?
	ethtool -K fltest0 hw-tc-offload on || return 1
	[ "$rc" -eq 0 ] && [ "$rc5" -eq 0 ] &&
		said "Error: TC offload is disabled on net device" "$o" &&
		[ -z "$(fltshow 4)" ] && shows "not_in_hw" fltshow 5 &&
		has 1 '.cmd == "replace" and .prio == 4 and .result == -95
		       and .extack == "TC offload is disabled on net device"'
}
check "hw-tc-offload off: skip_sw refused by the driver, a plain filter not_in_hw" \
	t_flt_hw_tc_off

t_flt_stats() {
	clear_log
	echo "7 700 2" > /sys/class/net/fltest0/fltest/stats || return 1
	got=$(cat /sys/class/net/fltest0/fltest/stats)
	o=$(tc -s filter show dev fltest0 ingress prio 1 2>&1)
	echo "0 0 0" > /sys/class/net/fltest0/fltest/stats
	[ "$got" = "7 700 2" ] || { echo "stats reads '$got'"; return 1; }
	[ "$(cat $D/stats)" = "0 0 0" ] &&
		said "Sent hardware 700 bytes 7 pkt" "$o" &&
		said "Sent software 0 bytes 0 pkt" "$o" &&
		has 1 '.cmd == "stats" and .prio == 1 and .pkts == 7
		       and .bytes == 700 and .drops == 2 and .result == 0'
}
check "fltest0 stats (sysfs, not debugfs's): tc -s shows them as hardware's" \
	t_flt_stats

# fltest1's egress: ping's frames go out of it (and are dropped there)
t_flt_sw_path() {
	ip addr add 10.9.9.1/24 dev fltest1 && ip link set fltest1 up &&
		tc qdisc add dev fltest1 clsact &&
		tc filter add dev fltest1 egress protocol ip prio 1 flower \
			skip_sw dst_ip 10.9.9.2 action drop &&
		tc filter add dev fltest1 egress protocol ip prio 2 flower \
			dst_ip 10.9.9.2 action pass || return 1
	ping -c 2 -i 0.2 -W 1 10.9.9.2 >/dev/null 2>&1
	o1=$(tc -s filter show dev fltest1 egress prio 1)
	o2=$(tc -s filter show dev fltest1 egress prio 2)
	said "in_hw in_hw_count 1" "$o1" && said "Sent 0 bytes 0 pkt" "$o1" &&
		said "Sent [0-9]* bytes 2 pkt" "$o2"
}
check "a skip_sw filter is not used by software: the next prio counts 2 pings" \
	t_flt_sw_path

t_flt_shared() {
	clear_log
	ip link add fltest8 type fltest && ip link add fltest9 type fltest &&
		tc qdisc add dev fltest8 ingress_block 30 ingress &&
		tc filter add block 30 protocol ip prio 1 flower skip_sw \
			dst_ip 10.0.0.1 action drop &&
		shows "in_hw in_hw_count 1" tc filter show block 30 &&
		tc qdisc add dev fltest9 ingress_block 30 ingress &&
		shows "in_hw in_hw_count 2" tc filter show block 30 &&
		[ "$(jq -r '.cmd' "$(dlog fltest9)" | head -2 | tr '\n' ,)" = \
		  "bind,replace," ] &&
		has 1 '.cmd == "replace"
		       and .result == 0' "$(dlog fltest9)"
}
check "ip link add type fltest; joins a shared block: playback, the add works" \
	t_flt_shared

t_flt_leave() {
	clear_log
	tc qdisc del dev fltest9 ingress &&
		shows "in_hw in_hw_count 1" tc filter show block 30 &&
		[ "$(jq -r 'select(.dev == "fltest9") | .cmd' "$LOG" |
		     tr '\n' ,)" = "unbind,destroy,release," ]
}
check "a fltest device leaves the block: unbind, destroy, release" t_flt_leave

t_flt_netns() {
	ip netns add fotns && ip link set fltest9 netns fotns &&
		ip -n fotns link show fltest9 >/dev/null &&
		ip netns exec fotns tc qdisc add dev fltest9 ingress &&
		ip netns exec fotns tc filter add dev fltest9 ingress \
			protocol ip prio 1 flower skip_sw dst_ip 10.0.0.1 \
			action drop &&
		shows "in_hw in_hw_count 1" ip netns exec fotns \
			tc filter show dev fltest9 ingress &&
		ip netns exec fotns cat "$(dlog fltest9)" >/dev/null &&
		ip netns del fotns &&
		for i in 1 2 3 4 5 6 7 8 9 10; do
			ip link show fltest9 >/dev/null 2>&1 || break
			sleep 0.5
		done &&
		! ip link show fltest9 >/dev/null 2>&1
}
check "a fltest device moves to a netns, offloads there, goes with it" \
	t_flt_netns

t_flt_delete() {
	clear_log
	tc filter del dev fltest0 ingress prio 1 &&
		has 1 ".cmd == \"destroy\" and .prio == 1 and .cookie == $CF1
		       and .dev == \"fltest0\" and .result == 0"
}
check "fltest0: delete, destroy with the replace's cookie" t_flt_delete

# ---- log ----------------------------------------------------------------
t_clear() {
	echo x > "$LOG" && [ ! -s "$LOG" ]
}
check "log: a write clears it" t_clear

# ---- unload -------------------------------------------------------------
t_rmmod() {
	rmmod flower_offload_test && [ ! -e "$D" ] &&
		! tc filter show dev veth0 ingress | grep in_hw_count &&
		! tc filter show block 22 | grep in_hw_count &&
		! tc filter show block 30 | grep in_hw_count &&
		! ip link show fltest0 >/dev/null 2>&1 &&
		! ip link show fltest1 >/dev/null 2>&1 &&
		! ip link show fltest8 >/dev/null 2>&1
}
check "rmmod: unbinds everything, no filter left in hardware, fltest gone" \
	t_rmmod

t_truncate() {
	insmod "$KO" log_max=3 || return 1
	echo veth0 > $D/devices &&
		tc qdisc del dev veth0 ingress &&
		tc qdisc add dev veth0 ingress &&
		for p in 1 2 3 4; do flower $p dst_ip 10.0.0.$p action drop ||
			break; done
	last=$(tail -n 1 "$LOG")
	lines=$(wc -l < "$LOG")
	rmmod flower_offload_test || return 1
	[ "$last" = '{"truncated": 2}' ] && [ "$lines" -eq 4 ] && return 0
	echo "$lines lines, the last: $last"
	return 1
}
check "log_max=3: three lines, then {\"truncated\": 2}; reload and rmmod" \
	t_truncate

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
