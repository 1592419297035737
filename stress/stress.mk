# Reliability runs (stress/README.md).  Included from the top Makefile:
#
#   make stress         long run on the debug kernel (KASAN, kmemleak,
#                       lockdep, failslab): fuzz, churn, lifecycle and the
#                       flower corpus, one guest boot each; then
#                       stress/report.py writes docs/reliability.md
#   make stress-smoke   bounded run (a few minutes) for `make test`, on
#                       the normal kernel, all parts in one boot
#   make stress-debug-smoke
#                       bounded run for `make test` on the debug kernel
#                       (built or brought up to date first): the same
#                       parts with small counts, failslab and kmemleak
#                       included, one boot
#   make stress-parallel
#                       gate stage: unlocked adds, replaces, deletes and
#                       dumps racing on one prio (stress/parallel.py),
#                       then the flow cache with a sender on each CPU
#                       while filters change, on the debug kernel with
#                       two vCPUs
#
# All end with "N passed, N failed" and fail (exit status != 0) on any
# failed check, kernel splat, panic or timeout.  Counts are variables:
#   make stress STRESS_FUZZ_COUNT=50000 STRESS_SEED=7
# Results: build/guest-out/stress/<name>/*.out|*.json, console logs
# build/logs/stress-<name>-*.log.

STRESS_REPO    := $(or $(REPO),$(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..))
STRESS_PY      := $(or $(PYTHON),/usr/bin/python3)
STRESS_STEP    := cd $(STRESS_REPO) && $(STRESS_PY) -m stress.step

STRESS_VARIANT      ?= debug
STRESS_SEED         ?= 1
STRESS_FUZZ_COUNT   ?= 8000
STRESS_CHURN_CYCLES ?= 3000
STRESS_FILTERS      ?= 100000
STRESS_SPACE_RUNS   ?= 60
STRESS_CACHE_STEPS  ?= 2000
STRESS_PARTS        ?= fuzz churn lifecycle race cache corpus
STRESS_TIMEOUT      ?= 14400
# failslab only in slab caches other than kmemleak's (lifecycle.py)
STRESS_LIFE_APPEND  ?= slub_debug=A;-,kmemleak_object,kmemleak_scan_area

SMOKE_VARIANT       ?= ours
SMOKE_SEED          ?= 1
SMOKE_FUZZ_COUNT    ?= 600
SMOKE_CHURN_CYCLES  ?= 600
SMOKE_FILTERS       ?= 10000
SMOKE_SPACE_RUNS    ?= 10
SMOKE_CACHE_STEPS   ?= 60
SMOKE_TIMEOUT       ?= 900

DSMOKE_SEED         ?= $(SMOKE_SEED)
DSMOKE_FUZZ_COUNT   ?= 400
DSMOKE_CHURN_CYCLES ?= 300
DSMOKE_FILTERS      ?= 2000
DSMOKE_SPACE_RUNS   ?= 10
DSMOKE_CACHE_STEPS  ?= 10
DSMOKE_TIMEOUT      ?= 1200

# suite.sh's environment from the PREFIX_* variables above
stress_env = -e STRESS_SEED=$($(1)_SEED) \
	-e FUZZ_COUNT=$($(1)_FUZZ_COUNT) \
	-e CHURN_CYCLES=$($(1)_CHURN_CYCLES) \
	-e LIFE_FILTERS=$($(1)_FILTERS) \
	-e LIFE_SPACE_RUNS=$($(1)_SPACE_RUNS) \
	-e CACHE_STEPS=$($(1)_CACHE_STEPS)

.PHONY: stress stress-smoke stress-debug-smoke stress-parallel stress-guest-%

# Build the variant's kernel and the initramfs only when missing (make
# guest / make kernel VARIANT=... rebuild them on purpose).
stress-guest-%:
	@test -f $(STRESS_REPO)/build/obj/$*/arch/x86/boot/bzImage || \
		$(MAKE) --no-print-directory -C $(STRESS_REPO) kernel VARIANT=$*
	@test -f $(STRESS_REPO)/build/initramfs.cpio.gz || \
		$(MAKE) --no-print-directory -C $(STRESS_REPO) initramfs

# The report is written whatever the outcome; the target fails as step.py.
# The corpus part's offload cases need the offload test driver built for
# the kernel (make offload-drv VARIANT=...: installed into
# build/mod/<variant>, where their `ip link add ... type fltest` finds it).
stress: stress-guest-$(STRESS_VARIANT)
	$(if $(filter corpus,$(STRESS_PARTS)),@$(MAKE) --no-print-directory -C $(STRESS_REPO) offload-drv VARIANT=$(STRESS_VARIANT))
	@rc=0; $(STRESS_STEP) --name stress --each --variant $(STRESS_VARIANT) \
		--timeout $(STRESS_TIMEOUT) \
		--part-append 'lifecycle=$(STRESS_LIFE_APPEND)' \
		$(call stress_env,STRESS) \
		$(STRESS_PARTS) || rc=$$?; \
	cd $(STRESS_REPO) && $(STRESS_PY) -m stress.report --name stress; \
	exit $$rc

# failslab and kmemleak exist on the debug kernel only: stress-debug-smoke
# runs them, and this run names them as not run instead of skipping them
stress-smoke: stress-guest-$(SMOKE_VARIANT)
	$(STRESS_STEP) --name smoke --variant $(SMOKE_VARIANT) \
		--timeout $(SMOKE_TIMEOUT) \
		$(call stress_env,SMOKE) -e 'LIFE_SKIP=failslab kmemleak' \
		fuzz churn lifecycle race cache

stress-debug-smoke:
	@$(MAKE) --no-print-directory -C $(STRESS_REPO) kernel VARIANT=debug
	@$(MAKE) --no-print-directory -C $(STRESS_REPO) initramfs
	$(STRESS_STEP) --name debug-smoke --variant debug \
		--timeout $(DSMOKE_TIMEOUT) \
		--append '$(STRESS_LIFE_APPEND)' \
		$(call stress_env,DSMOKE) \
		fuzz churn lifecycle cache

# Unlocked requests racing on one instance (stress/parallel.py): the debug
# kernel (lockdep, KASAN, PROVE_RCU) on two vCPUs, so the races are real
PAR_TIMEOUT         ?= 1800
PAR_ARGS            ?= --filters 2000 --ops 200 --cache-steps 6
stress-parallel:
	@$(MAKE) --no-print-directory -C $(STRESS_REPO) kernel VARIANT=debug
	@$(MAKE) --no-print-directory -C $(STRESS_REPO) initramfs
	cd $(STRESS_REPO) && guest/run --variant debug --smp 2 \
		--timeout $(PAR_TIMEOUT) \
		--console-log $(STRESS_REPO)/build/logs/stress-parallel.log -- \
		$(STRESS_PY) -m stress.parallel $(PAR_ARGS)
