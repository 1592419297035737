# The flower offload test driver (offload/README.md); included from the top
# Makefile, which defines REPO, BUILD, OURS, kernel_lock, JOBS, VARIANT and
# variant_guest.
#
#   make offload-drv        the driver for $(VARIANT)'s kernel: the sources
#                           of offload/drv copied to a directory under
#                           build/offload-drv and built there as an external
#                           module (kbuild M=), then installed into the
#                           module directory of every variant that boots
#                           that kernel (below).  A module loads only on the
#                           kernel it was built against (uname -v), so:
#                             VARIANT=ours, stock: ours' kernel (stock is
#                               the stock module on ours' bzImage, make
#                               stock-ext; stock-next likewise, make
#                               stock-next-ext): build/offload-drv/
#                               flower_offload_test.ko, installed into
#                               build/mod/ours, build/mod/stock and
#                               build/mod/stock-next
#                             VARIANT=debug: the debug kernel (build/obj/
#                               debug): build/offload-drv/debug/
#                               flower_offload_test.ko, installed into
#                               build/mod/debug
#                           Installed: <mod>/lib/modules/<release>/extra/
#                           flower_offload_test.ko and depmod, so that in
#                           the guest of each variant `modprobe
#                           flower_offload_test` loads the matching build
#                           and `ip link add NAME type fltest` loads it by
#                           its alias (the corpus's offload cases on the
#                           debug kernel: their `insmod build/offload-drv/
#                           flower_offload_test.ko` fails there, ENOEXEC,
#                           an allowed exit, and their `ip link add ...
#                           type fltest` loads the debug build).  A `make
#                           kernel` replaces build/mod/<variant> without
#                           it: the next make offload-drv installs it again
#   make offload-drv-smoke  VARIANT=ours|stock|debug: offload/drv/smoke.sh
#                           in the guest (load, take veth0, skip_sw/skip_hw,
#                           refusals, stats, shared block, template; then
#                           the driver's own fltest devices: skip_sw,
#                           refusals, stats, software path, playback,
#                           netns; rmmod); ends with `N passed, N
#                           failed`, exit != 0 on a failure or a kernel
#                           splat
#   make offload-drv-check  scripts/checkpatch.pl --strict on the source,
#                           run in the ours tree so that it knows the
#                           kernel's own names (--no-tree would flag
#                           struct Qdisc as CamelCase)

OFFLOAD_DRV_SRC := $(REPO)/offload/drv
# ours' kernel: the build the corpus's cases, the oracle and the gate load
OFFLOAD_DRV     := $(BUILD)/offload-drv
OFFLOAD_DRV_KO  := $(OFFLOAD_DRV)/flower_offload_test.ko
OFFLOAD_KOBJ    := $(BUILD)/obj/ours
# the debug kernel (KASAN, kmemleak) under TCG is slow, and guest/init's
# kmemleak scan after the smoke takes minutes more
OFFLOAD_SMOKE_TIMEOUT ?= $(if $(filter debug,$(VARIANT)),2400,600)

# Per kernel: $(call offload_drv_dir,VARIANT), $(call offload_kobj,VARIANT),
# $(call offload_mods,VARIANT) (the variants booting that kernel).
offload_drv_dir  = $(if $(filter debug,$(1)),$(OFFLOAD_DRV)/debug,$(OFFLOAD_DRV))
offload_kobj     = $(if $(filter debug,$(1)),$(BUILD)/obj/debug,$(OFFLOAD_KOBJ))
offload_mods     = $(if $(filter debug,$(1)),debug,ours stock stock-next)
OFFLOAD_DRV_V    := $(call offload_drv_dir,$(VARIANT))
OFFLOAD_DRV_V_KO := $(OFFLOAD_DRV_V)/flower_offload_test.ko
OFFLOAD_KOBJ_V   := $(call offload_kobj,$(VARIANT))
# the lock of the kernel build the driver is built against
OFFLOAD_LOCK     := $(call kernel_lock,$(notdir $(OFFLOAD_KOBJ_V)))

.PHONY: offload-drv offload-drv-locked offload-drv-smoke offload-drv-check

offload-drv:
	@mkdir -p $(BUILD)
	@flock -n $(OFFLOAD_LOCK) true || \
		echo "offload-drv: waiting for a kernel build ($(OFFLOAD_LOCK))"
	+@flock $(OFFLOAD_LOCK) $(MAKE) --no-print-directory offload-drv-locked

# Only changed sources are copied, so that kbuild rebuilds only when needed;
# the install copies (and runs depmod) only when the module changed or the
# module directory was made anew.  build/mod/stock (build/mod/stock-next)
# gets ours' build only while it is make stock-ext's (make
# stock-next-ext's) with ours' current bzImage: a full `make kernel
# VARIANT=stock` has a kernel of its own, for which nothing is built.
offload-drv-locked:
	@[ -e $(OFFLOAD_KOBJ_V)/Module.symvers ] || { \
		echo "offload-drv: build the kernel in $(OFFLOAD_KOBJ_V) first (make kernel$(if $(filter debug,$(VARIANT)), VARIANT=debug))"; exit 1; }
	@mkdir -p $(OFFLOAD_DRV_V)
	@for f in flower_offload_test.c Kbuild; do \
		cmp -s $(OFFLOAD_DRV_SRC)/$$f $(OFFLOAD_DRV_V)/$$f || \
			cp $(OFFLOAD_DRV_SRC)/$$f $(OFFLOAD_DRV_V)/$$f; done
	+@$(MAKE) -s -C $(OURS) O=$(OFFLOAD_KOBJ_V) M=$(OFFLOAD_DRV_V) \
		-j$(JOBS) modules
	@echo "  OFFLOAD $(OFFLOAD_DRV_V_KO)"
	@krel=$$(cat $(OFFLOAD_KOBJ_V)/include/config/kernel.release); \
	for v in $(call offload_mods,$(VARIANT)); do \
		d=$(BUILD)/mod/$$v/lib/modules/$$krel; \
		[ -d $$d ] || { [ $$v = stock-next ] || \
			echo "  OFFLOAD not installed for $$v: no $$d"; continue; }; \
		if [ $$v != ours ] && [ $$v != debug ] && ! { [ -e $(BUILD)/obj/$$v/.stock-ext ] && \
			[ "$$(md5sum < $(BUILD)/obj/$$v/arch/x86/boot/bzImage)" = \
			  "$$(cat $(BUILD)/obj/$$v/.stock-ext)" ] && \
			cmp -s $(BUILD)/obj/$$v/arch/x86/boot/bzImage \
				$(OFFLOAD_KOBJ)/arch/x86/boot/bzImage; }; then \
			echo "  OFFLOAD not installed for $$v: its kernel is not ours' (a full $$v build, or make $$v-ext not run since ours' last build)"; \
			continue; fi; \
		cmp -s $(OFFLOAD_DRV_V_KO) $$d/extra/flower_offload_test.ko && \
			grep -q 'rtnl.link.fltest' $$d/modules.alias && continue; \
		mkdir -p $$d/extra; \
		cp $(OFFLOAD_DRV_V_KO) $$d/extra/flower_offload_test.ko.new; \
		mv $$d/extra/flower_offload_test.ko.new $$d/extra/flower_offload_test.ko; \
		depmod -b $(BUILD)/mod/$$v $$krel; \
		echo "  OFFLOAD installed: build/mod/$$v/lib/modules/$$krel/extra"; \
	done

offload-drv-smoke:
	$(variant_guest)
	@$(MAKE) --no-print-directory offload-drv
	$(REPO)/guest/run --variant $(VARIANT) \
		--timeout $(OFFLOAD_SMOKE_TIMEOUT) -- \
		sh offload/drv/smoke.sh $(OFFLOAD_DRV_V_KO)

offload-drv-check:
	cd $(OURS) && scripts/checkpatch.pl --strict -f \
		$(OFFLOAD_DRV_SRC)/flower_offload_test.c

# ---------------------------------------------------------------------------
# The differential offload oracle (offload/*.py): two variants must give
# drivers the same rules, but for the differences declared for that pair
# (offload/known.py).  Each target boots OFL_A (default ours), then OFL_B
# (default stock), with the test driver loaded (insmod $(OFFLOAD_DRV_KO)),
# replays the same request file (offload/sources.py, offload/replay.py)
# and compares the two runs (offload/compare.py --a-name $(OFL_A)
# --b-name $(OFL_B)).  The variants are guest variants booting ours'
# kernel (ours, stock, stock-next: the driver loads only there); each
# pair compared needs a declaration table in offload/known.py (PAIRS).
#
#   make offload         every flower filter the corpus adds (as given,
#                        with skip_sw, with skip_hw), difftest's generated
#                        filters (seed OFL_SEED, OFL_DT_FILTERS of them plus
#                        --cover's), the corpus' chain templates, all on a
#                        device of the driver's own (direct binding, as a
#                        NIC); OFL_INDIRECT of the corpus lines again on a
#                        veth the driver takes indirectly (as a tunnel
#                        device); every scenario (offload/scenarios.py) on
#                        both; docs/offload.md.  About 5 minutes of guest
#                        time per kernel (TCG)
#   make offload-smoke   the same on a sample (OFL_SMOKE_SAMPLE corpus
#                        lines, OFL_SMOKE_DT_FILTERS generated filters,
#                        OFL_SMOKE_INDIRECT lines indirectly, every template
#                        and scenario), no docs; about a minute of guest
#                        time per kernel: the gate's stage
#   make offload-stock-next
#   make offload-stock-next-smoke
#                        the same two runs (full, smoke) with OFL_A=stock-
#                        next (the pristine cls_flower with kernel/stock-
#                        series, make stock-next-ext) against OFL_B=stock,
#                        plus the stock series' scenarios (one per patch,
#                        offload.sources --stock-series): drivers must get
#                        from stock-next what they get from stock, but for
#                        what known.py's stock-next table declares, each
#                        entry naming the patch behind it; strict: a
#                        message stock-next adds fails unless declared.
#                        The full run writes docs/offload-stock-next.md
# All end with `N passed, N failed` (one item per filter request with its
# flag, template or scenario) and exit non-zero on a failure.  The request
# file and both runs stay in $(OFL_OUT) (<name>-requests.json,
# <name>-$(OFL_A).json, <name>-$(OFL_B).json; the stock-next pair's names
# start with stock-next-).

OFL_OUT              := $(BUILD)/guest-out/offload
OFL_DOC              := $(REPO)/docs/offload.md
OFL_SEED             ?= 1
OFL_DT_FILTERS       ?= 150
OFL_INDIRECT         ?= 60
OFL_TIMEOUT          ?= 3600
OFL_SMOKE_SAMPLE     ?= 100
OFL_SMOKE_DT_FILTERS ?= 20
OFL_SMOKE_INDIRECT   ?= 10
OFL_SMOKE_TIMEOUT    ?= 900
# the two variants compared: A against B (offload-run, offload-prereqs)
OFL_A                ?= ours
OFL_B                ?= stock
OFL_VARIANTS         := ours stock stock-next
ifneq ($(words $(OFL_A) $(OFL_B))$(filter-out $(OFL_VARIANTS),$(OFL_A) $(OFL_B)),2)
  $(error OFL_A and OFL_B must each be one of $(OFL_VARIANTS) (got '$(OFL_A)' '$(OFL_B)'))
endif
OFL_SN_DOC           := $(REPO)/docs/offload-stock-next.md
# make offload / offload-smoke with another pair: its own files and page
# (<A>-vs-<B>-full-*.json, docs/offload-<A>-vs-<B>.md), never ours/stock's
OFL_PAIR             := $(if $(filter ours/stock,$(OFL_A)/$(OFL_B)),,$(OFL_A)-vs-$(OFL_B))

.PHONY: offload offload-smoke offload-run offload-prereqs \
	offload-stock-next offload-stock-next-smoke

# ours' kernel, the module of each of OFL_A and OFL_B that is not ours'
# (make stock-ext, make stock-next-ext: each replaces its module
# directory whole), then the driver, installed into them all
offload-prereqs:
	@$(MAKE) --no-print-directory guest
	@for v in $(sort $(filter-out ours,$(OFL_A) $(OFL_B))); do \
		$(MAKE) --no-print-directory $$v-ext || exit 1; done
	@$(MAKE) --no-print-directory offload-drv

# One run: OFL_NAME, OFL_SRCARGS (offload.sources' options), OFL_GTIMEOUT,
# OFL_DOCARG.
offload-run:
	@mkdir -p $(OFL_OUT)
	@start=$$(date +%s); \
	cd $(REPO) && $(PYTHON) -m offload.sources $(OFL_SRCARGS) \
		--out $(OFL_OUT)/$(OFL_NAME)-requests.json || { \
		echo "0 passed, 1 failed"; exit 1; }; \
	for v in $(OFL_A) $(OFL_B); do \
		rm -f $(OFL_OUT)/$(OFL_NAME)-$$v.json; \
		t0=$$(date +%s); \
		$(REPO)/guest/run --variant $$v --timeout $(OFL_GTIMEOUT) -- \
			sh -c 'insmod $(OFFLOAD_DRV_KO) && exec $(PYTHON) -m offload.replay $(OFL_OUT)/$(OFL_NAME)-requests.json $(OFL_OUT)/$(OFL_NAME)-'$$v'.json' || { \
			echo "offload: $$v guest failed"; echo "0 passed, 1 failed"; \
			exit 1; }; \
		echo "offload: $$v: $$(( $$(date +%s) - t0 )) s wall (boot included)"; \
	done; \
	$(PYTHON) -m offload.compare --requests $(OFL_OUT)/$(OFL_NAME)-requests.json \
		--a $(OFL_OUT)/$(OFL_NAME)-$(OFL_A).json --a-name $(OFL_A) \
		--b $(OFL_OUT)/$(OFL_NAME)-$(OFL_B).json --b-name $(OFL_B) \
		--wall $$(( $$(date +%s) - start )) $(OFL_DOCARG)

offload:
	@$(MAKE) --no-print-directory offload-prereqs
	@$(MAKE) --no-print-directory offload-run OFL_NAME=$(OFL_PAIR:%=%-)full \
		OFL_SRCARGS="--seed $(OFL_SEED) --dt-filters $(OFL_DT_FILTERS) --indirect $(OFL_INDIRECT)" \
		OFL_GTIMEOUT=$(OFL_TIMEOUT) \
		OFL_DOCARG="--doc $(if $(OFL_PAIR),$(REPO)/docs/offload-$(OFL_PAIR).md,$(OFL_DOC))"

offload-smoke:
	@$(MAKE) --no-print-directory offload-prereqs
	@$(MAKE) --no-print-directory offload-run OFL_NAME=$(OFL_PAIR:%=%-)smoke \
		OFL_SRCARGS="--seed $(OFL_SEED) --sample $(OFL_SMOKE_SAMPLE) --dt-filters $(OFL_SMOKE_DT_FILTERS) --indirect $(OFL_SMOKE_INDIRECT)" \
		OFL_GTIMEOUT=$(OFL_SMOKE_TIMEOUT) OFL_DOCARG=

# stock-next against stock (issue 32 item 2): the files are named
# stock-next-full-* and stock-next-smoke-*
offload-stock-next:
	@$(MAKE) --no-print-directory offload-prereqs OFL_A=stock-next OFL_B=stock
	@$(MAKE) --no-print-directory offload-run OFL_A=stock-next OFL_B=stock \
		OFL_NAME=stock-next-full \
		OFL_SRCARGS="--seed $(OFL_SEED) --dt-filters $(OFL_DT_FILTERS) --indirect $(OFL_INDIRECT) --stock-series" \
		OFL_GTIMEOUT=$(OFL_TIMEOUT) OFL_DOCARG="--doc $(OFL_SN_DOC)"

offload-stock-next-smoke:
	@$(MAKE) --no-print-directory offload-prereqs OFL_A=stock-next OFL_B=stock
	@$(MAKE) --no-print-directory offload-run OFL_A=stock-next OFL_B=stock \
		OFL_NAME=stock-next-smoke \
		OFL_SRCARGS="--seed $(OFL_SEED) --sample $(OFL_SMOKE_SAMPLE) --dt-filters $(OFL_SMOKE_DT_FILTERS) --indirect $(OFL_SMOKE_INDIRECT) --stock-series" \
		OFL_GTIMEOUT=$(OFL_SMOKE_TIMEOUT) OFL_DOCARG=

# The oracle's canaries (offload/canary.py): two broken modules, each
# replayed on the smoke's requests in place of ours; each passes when
# the comparison with stock's replay fails.  Needs `make offload-smoke`
# first (its requests and stock's replay).
OFL_CANARY           := $(BUILD)/offload-canary
.PHONY: offload-canary
offload-canary:
	@test -f $(OFL_OUT)/smoke-stock.json || { echo "offload-canary: run make offload-smoke first"; echo "0 passed, 1 failed"; exit 1; }
	@pass=0; fail=0; \
	canaries=$$(cd $(REPO) && $(PYTHON) -m offload.canary write $(OFL_CANARY)) || { \
		echo "0 passed, 1 failed"; exit 1; }; \
	for c in $$canaries; do \
		$(MAKE) -s -C $(OURS) O=$(OFFLOAD_KOBJ) M=$(OFL_CANARY)/$$c modules >$(OFL_CANARY)/$$c.build 2>&1 || { \
			echo "not ok - canary $$c: build failed"; fail=$$((fail + 1)); continue; }; \
		$(REPO)/guest/run --variant ours --timeout $(OFL_SMOKE_TIMEOUT) -- \
			sh -c 'rmmod cls_flower; insmod $(OFL_CANARY)/'$$c'/cls_flower.ko && insmod $(OFFLOAD_DRV_KO) && exec $(PYTHON) -m offload.replay $(OFL_OUT)/smoke-requests.json $(OFL_OUT)/canary-'$$c'.json' \
			>$(OFL_CANARY)/$$c.replay 2>&1 || true; \
		(cd $(REPO) && $(PYTHON) -m offload.compare --requests $(OFL_OUT)/smoke-requests.json \
			--ours $(OFL_OUT)/canary-$$c.json --stock $(OFL_OUT)/smoke-stock.json \
			>$(OFL_CANARY)/$$c.compare 2>&1) || true; \
		if (cd $(REPO) && $(PYTHON) -m offload.canary judge $$c $(OFL_CANARY)/$$c.compare); then \
			pass=$$((pass + 1)); else fail=$$((fail + 1)); fi; \
	done; \
	echo "$$pass passed, $$fail failed"; [ $$fail -eq 0 ]
