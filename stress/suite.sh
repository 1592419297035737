#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# stress/suite.sh PART... -- runs in the test guest (see stress/README.md).
#
# PART: fuzz, churn, lifecycle, corpus (the flower tdc corpus, tdc.py -c
# flower, TAP in $STRESS_OUT/corpus.tap), race (stress/replace-race.sh:
# replaces across masks under traffic, no frame may go unmatched), cache
# (stress/flow_cache.py: the flow cache's verdicts between changes).  Each part's output goes to
# stdout and to $STRESS_OUT/<part>.out, its counts to
# $STRESS_OUT/<part>.json and <part>.result.json; the last line is the sum
# of the parts' "N passed, N failed" lines.  Exit status 0 when every part
# passed.
#
# A skip is a pass of nothing, so it counts as failed: the skipped cases
# of a part's "N passed, N failed, N skipped" line, and each line of a
# part that says a piece of it was skipped ("failslab: not available on
# this kernel, skipped").  A lifecycle piece left out on purpose
# (LIFE_SKIP) is not run and not counted; the "===" line of the part
# names it, so that the output says what did not run.  A part that ran
# nothing ("0 passed, 0 failed") counts as 1 failed.
#
# Environment (all optional):
#   STRESS_SEED        seed of every part (default 1)
#   FUZZ_COUNT         fuzz messages (default 2000)
#   FUZZ_TIME          fuzz time limit in seconds (default 0: none)
#   CHURN_CYCLES       churn cycles (default 1000)
#   CHURN_TIME         churn time limit in seconds (default 0: none)
#   LIFE_FILTERS       filters of the big qdisc delete (default 100000)
#   LIFE_SPACE_RUNS    failslab random-budget requests (default 30)
#   LIFE_SKIP          lifecycle parts to skip (e.g. "big failslab")
#   CORPUS_TIMEOUT     corpus: seconds per tc command (default 180)
#   RACE_TIME          race: seconds of replaces under traffic (default 20)
#   CACHE_STEPS        cache: changes, each followed by a burst (default 400)
#   STRESS_OUT         where outputs go (default $TDC_GUEST_OUT/stress)
#   STRESS_KMSG        a line written to /dev/kmsg first (self-test of the
#                      splat path: "WARNING: test" must fail the run)

# STRESS_PY: the python running the parts (the suite's tests use a fake)
PY=${STRESS_PY:-/usr/bin/python3}
HERE=$(dirname "$0")
# the parts are modules of the repository's packages (python3 -m)
cd "$HERE/.." || exit 2
SEED=${STRESS_SEED:-1}
OUT=${STRESS_OUT:-${TDC_GUEST_OUT:-/tmp}/stress}
mkdir -p "$OUT"

if [ -n "${STRESS_KMSG:-}" ]; then
	echo "$STRESS_KMSG" >/dev/kmsg
fi

total_p=0
total_f=0
rc=0
for part in "$@"; do
	cmd="$PY -m stress.$part"
	case $part in
	fuzz)
		set -- --seed "$SEED" --count "${FUZZ_COUNT:-2000}" \
			--time-limit "${FUZZ_TIME:-0}" ;;
	churn)
		set -- --seed "$SEED" --cycles "${CHURN_CYCLES:-1000}" \
			--time-limit "${CHURN_TIME:-0}" ;;
	lifecycle)
		set -- --seed "$SEED" --filters "${LIFE_FILTERS:-100000}" \
			--space-runs "${LIFE_SPACE_RUNS:-30}"
		for s in ${LIFE_SKIP:-}; do set -- "$@" --skip "$s"; done ;;
	corpus)
		cmd="$PY -m tdc.tdc"
		set -- -c flower --timeout "${CORPUS_TIMEOUT:-180}" \
			--tap "$OUT/corpus.tap" ;;
	cache)
		cmd="$PY -m stress.flow_cache"
		set -- --seed "$SEED" --steps "${CACHE_STEPS:-400}" ;;
	race)
		cmd="sh stress/replace-race.sh"
		set -- "${RACE_TIME:-20}" ;;
	*)
		echo "suite: unknown part $part" >&2
		exit 2 ;;
	esac
	echo "=== $part $*"
	start=$(date +%s)
	args="$*"
	if [ "$part" = corpus ] || [ "$part" = race ]; then
		$cmd "$@" >"$OUT/$part.out" 2>&1
	else
		$cmd "$@" --json "$OUT/$part.json" >"$OUT/$part.out" 2>&1
	fi
	prc=$?
	cat "$OUT/$part.out"
	end=$(date +%s)
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' \
		"$OUT/$part.out" | tail -1)
	skipped=0
	case $line in
	*skipped)
		skipped=${line##*failed, }
		skipped=${skipped%% skipped}
		line=${line%, [0-9]* skipped} ;;
	esac
	if [ -z "$line" ]; then
		echo "suite: $part ended without a result line (exit $prc)"
		line="0 passed, 1 failed"
	fi
	p=${line%% passed*}
	f=${line#*passed, }
	f=${f%% failed*}
	if [ "$prc" != 0 ] && [ "$f" = 0 ]; then
		f=1
	fi
	# pieces of the part that said they were skipped
	pieces=$(grep -cE '^[a-z_-]+: .*, skipped$' "$OUT/$part.out")
	skipped=$((skipped + pieces))
	if [ "$skipped" != 0 ]; then
		echo "suite: $part: $skipped skipped, counted as failed"
		f=$((f + skipped))
	fi
	# a part that ran nothing passed nothing (an empty corpus, a loop
	# with nothing to do): its "0 passed, 0 failed" is a failure
	if [ "$p" = 0 ] && [ "$f" = 0 ]; then
		echo "suite: $part: ran nothing (0 passed, 0 failed)," \
			"counted as failed"
		f=1
	fi
	notrun=
	if [ "$part" = lifecycle ] && [ -n "${LIFE_SKIP:-}" ]; then
		notrun=$(echo $LIFE_SKIP)
	fi
	total_p=$((total_p + p))
	total_f=$((total_f + f))
	[ "$f" = 0 ] || rc=1
	echo "=== $part: $p passed, $f failed ($skipped of them skipped), exit $prc, $((end - start)) s (guest clock)${notrun:+; not run (LIFE_SKIP): $notrun}"
	echo "{\"part\": \"$part\", \"args\": \"$args\", \"passed\": $p, \"failed\": $f, \"skipped\": $skipped, \"not_run\": \"$notrun\", \"exit\": $prc, \"guest_seconds\": $((end - start))}" >"$OUT/$part.result.json"
done
echo "$total_p passed, $total_f failed"
exit $rc
