# Classifier benchmark (bench/README.md); included from the top Makefile,
# which defines REPO, BUILD, PYTHON, VARIANT.
#
#   make bench                 full run in one guest (~10-30 min under TCG),
#                              then bench.report: table.md + plot.png
#   make bench VARIANT=stock   the same on the tree's own cls_flower
#                              (make stock-ext: the stock module on ours'
#                              kernel; results in build/guest-out/
#                              bench-stock; the report then compares both)
#   make bench-stock-next      the same on stock-next (make stock-next-ext:
#                              pristine + kernel/stock-series on ours'
#                              kernel; VARIANT stays ours, the top
#                              Makefile knows no other), results in
#                              build/guest-out/bench-stock-next, then
#                              make bench-stock-next-report: stock-next
#                              against the make bench VARIANT=stock run
#                              (bench/stock_next.py)
#   make bench-smoke           same code path, tiny counts (~1.5 min), checks
#                              (gate stage; fails if a kernel refuses
#                              several masks in one prio)
#   make bench-report          redo table.md + plot.png from the results
#   make bench-jobs            the flower corpus at tdc.py -J 1, 2, 3 in
#                              one run (~20 min): speed-up, host CPU, and
#                              the host's own parallel ceiling
#   make bench-insns           one packet's classify instructions by
#                              function, ours' fl_classify() and u32's,
#                              counted by gdb on QEMU's gdb stub (~15 s;
#                              bench/insns.py)
#   make bench-docs            copy the last real runs into docs/bench/
#   make bench-masks           10,000 masks in one prio added in one tc -b
#                              and deleted one by one, ours and stock in
#                              turn in one guest (bench/masks_build.sh)

DEB_PACKAGES   += python3-matplotlib

BENCH_OUT      := $(BUILD)/guest-out/bench
BENCH_STOCK    := $(BUILD)/guest-out/bench-stock
BENCH_STOCK_NEXT := $(BUILD)/guest-out/bench-stock-next
BENCH_SMOKE    := $(BUILD)/guest-out/bench-smoke
BENCH_DIR      := $(if $(filter stock,$(VARIANT)),$(BENCH_STOCK),$(BENCH_OUT))
BENCH_ARGS     ?=
BENCH_TIMEOUT  ?= 5400
BENCH_DOCS     := $(REPO)/docs/bench
# Time base. Default: QEMU -icount, every guest instruction advances the
# guest clock by 2^BENCH_ICOUNT ns, so rates count instructions and do not
# depend on host load (deterministic to <1%; needs TCG and one vCPU: the
# second CPU never comes up under -icount). The guest TSC then runs at
# 1 GHz of that virtual time. BENCH_ICOUNT= (empty) measures host wall
# time instead, with the guest TSC at the host's rate (without ACPI/HPET the
# guest cannot calibrate it and falls back to jiffies, which lose ticks
# when the host is busy); that is as noisy as the host is busy.
BENCH_ICOUNT   ?= 3
BENCH_TSC_KHZ  := $(if $(BENCH_ICOUNT),1000000,$(shell awk '/^cpu MHz/ { printf "%d", $$4 * 1000; exit }' /proc/cpuinfo))
# The commit measured, recorded in results.json (meta.commit); "+kernel"
# when kernel/ differs from it (the build then holds uncommitted source).
BENCH_COMMIT    = $(shell cd $(REPO) && git rev-parse --short HEAD 2>/dev/null)$(shell cd $(REPO) && git diff --quiet HEAD -- kernel 2>/dev/null || echo +kernel)
# the guest variant booted: VARIANT, stock-next for bench-stock-next
BENCH_VARIANT   = $(VARIANT)
BENCH_RUN       = $(if $(BENCH_ICOUNT),TDC_QEMU_EXTRA="$${TDC_QEMU_EXTRA:-} -icount shift=$(BENCH_ICOUNT)") \
                  $(REPO)/guest/run --variant $(BENCH_VARIANT) -e BENCH_COMMIT=$(BENCH_COMMIT) \
                  $(if $(BENCH_ICOUNT),--accel tcg --smp 1 -e BENCH_ICOUNT=$(BENCH_ICOUNT)) \
                  $(if $(BENCH_TSC_KHZ),--append "tsc_early_khz=$(BENCH_TSC_KHZ) tsc=reliable clocksource=tsc")

BENCH_JOBS     := $(BUILD)/guest-out/jobs
JOBS_ARGS      ?=

.PHONY: bench bench-smoke bench-report bench-docs bench-jobs bench-insert \
        bench-masks bench-stock-next bench-stock-next-report bench-insns

bench:
	@$(MAKE) --no-print-directory deps
	$(variant_guest)
	@rm -rf $(BENCH_DIR)
	@start=$$(date +%s); \
	$(BENCH_RUN) --timeout $(BENCH_TIMEOUT) \
		--console-log $(BUILD)/logs/console-bench-$(VARIANT).log -- \
		$(PYTHON) bench/classify.py --out $(BENCH_DIR) $(BENCH_ARGS); \
	echo "bench: guest run took $$(( $$(date +%s) - start )) s"
	@$(MAKE) --no-print-directory bench-report

bench-report:
	@if [ -f $(BENCH_OUT)/results.json ]; then \
		cd $(REPO) && $(PYTHON) -m bench.report $(BENCH_OUT) \
		  $(if $(wildcard $(BENCH_STOCK)/results.json),--stock $(BENCH_STOCK)); \
	else \
		cd $(REPO) && $(PYTHON) -m bench.report $(BENCH_DIR); \
	fi

bench-stock-next: BENCH_VARIANT = stock-next
bench-stock-next:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory stock-next-ext
	@rm -rf $(BENCH_STOCK_NEXT)
	@start=$$(date +%s); \
	$(BENCH_RUN) --timeout $(BENCH_TIMEOUT) \
		--console-log $(BUILD)/logs/console-bench-stock-next.log -- \
		$(PYTHON) bench/classify.py --out $(BENCH_STOCK_NEXT) $(BENCH_ARGS); \
	echo "bench: guest run took $$(( $$(date +%s) - start )) s"
	@$(MAKE) --no-print-directory bench-stock-next-report

# Table and targets on stdout and in build/guest-out/bench-stock-next/
# vs-stock.md.  BENCH_NEXT_BASE: the stock run compared with (another
# directory of a VARIANT=stock run, e.g. one made with the same
# BENCH_ARGS)
BENCH_NEXT_BASE ?= $(BENCH_STOCK)
bench-stock-next-report:
	@cd $(REPO) && $(PYTHON) -m bench.stock_next $(BENCH_NEXT_BASE) \
		$(BENCH_STOCK_NEXT) --out $(BENCH_STOCK_NEXT)/vs-stock.md

# Ends with `N passed, N failed` (guest checks + the host-side report).
bench-smoke:
	@$(MAKE) --no-print-directory deps
	$(variant_guest)
	@rm -rf $(BENCH_SMOKE)
	@rc=0; \
	$(BENCH_RUN) --timeout 600 \
		--console-log $(BUILD)/logs/console-bench-smoke-$(VARIANT).log -- \
		$(PYTHON) bench/classify.py --smoke --out $(BENCH_SMOKE) || rc=$$?; \
	cd $(REPO) && $(PYTHON) -m bench.report --summary --guest-rc $$rc $(BENCH_SMOKE)

bench-jobs:
	@$(MAKE) --no-print-directory deps
	$(variant_guest)
	$(PYTHON) $(REPO)/bench/jobs.py --variant $(VARIANT) --out $(BENCH_JOBS) $(JOBS_ARGS)

MASKS_ARGS     ?= 2 1000,10000
bench-masks:
	@$(MAKE) --no-print-directory guest
	@$(MAKE) --no-print-directory stock-ext
	$(REPO)/guest/run --no-load-flower --timeout 3600 \
		--console-log $(BUILD)/logs/console-bench-masks.log -- \
		sh bench/masks_build.sh $(MASKS_ARGS) \
		ours=$(call KO_PATH,ours) stock=$(call KO_PATH,stock)

# Parallel inserts with several vCPUs, where locking shows: stock's module
# and ours alternate in one guest run, wall time (bench/insert_ab.py).
# INSERT_DEVICE=fltest: into a device of the offload test driver, so that
# every insert is offered to a driver (build/guest-out/insert-ab-fltest).
INSERT_DEVICE  ?= dummy
BENCH_INSERT   := $(BUILD)/guest-out/insert-ab$(if $(filter fltest,$(INSERT_DEVICE)),-fltest)
INSERT_ARGS    ?= --procs 10 --per 10000 --rounds 3
KO_PATH         = $(BUILD)/mod/$(1)/lib/modules/$$(cat $(BUILD)/obj/ours/include/config/kernel.release)/kernel/net/sched/cls_flower.ko
bench-insert:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory guest
	@$(MAKE) --no-print-directory stock-ext
	$(if $(filter fltest,$(INSERT_DEVICE)),@$(MAKE) --no-print-directory offload-drv)
	@rm -rf $(BENCH_INSERT)
	$(REPO)/guest/run --smp 2 --no-load-flower --timeout 3600 \
		--console-log $(BUILD)/logs/console-bench-insert.log -- \
		$(PYTHON) -m bench.insert_ab --out $(BENCH_INSERT) $(INSERT_ARGS) \
		--commit "$$(git -C $(REPO) rev-parse --short HEAD)$$(git -C $(REPO) status --porcelain -- kernel bench | grep -q . && echo ' with uncommitted changes to kernel/ or bench/')" \
		$(if $(filter fltest,$(INSERT_DEVICE)),--device fltest --driver $(OFFLOAD_DRV_V_KO)) \
		--module stock=$(call KO_PATH,stock) --module ours=$(call KO_PATH,ours)
	@cat $(BENCH_INSERT)/insert_ab.md

# Where one packet's classify instructions go, by function: ours' module
# and u32, counted by gdb on QEMU's gdb stub (bench/insns.py); writes
# build/guest-out/bench-insns/insns.md.  INSNS_PORT: the stub's TCP port.
INSNS_OUT      := $(BUILD)/guest-out/bench-insns
INSNS_PORT     ?= 12345
DEB_PACKAGES   += gdb
bench-insns:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory guest
	@cd $(REPO) && $(PYTHON) -m bench.insns run $(INSNS_OUT) $(call KO_PATH,ours) $(INSNS_PORT)

bench-docs:
	@if [ -f $(INSNS_OUT)/insns.md ]; then cp $(INSNS_OUT)/insns.md $(BENCH_DOCS)/; fi
	@if [ -f $(BENCH_JOBS)/table.md ]; then mkdir -p $(BENCH_DOCS)/jobs; \
		cp $(BENCH_JOBS)/table.md $(BENCH_JOBS)/results.json $(BENCH_DOCS)/jobs/; fi
	@if [ -f $(BENCH_INSERT)/insert_ab.md ]; then \
		cp $(BENCH_INSERT)/insert_ab.md $(BENCH_INSERT)/insert_ab.json $(BENCH_DOCS)/; fi
	@f=$(BUILD)/guest-out/insert-ab-fltest; if [ -f $$f/insert_ab.md ]; then \
		cp $$f/insert_ab.md $(BENCH_DOCS)/insert_ab_fltest.md; \
		cp $$f/insert_ab.json $(BENCH_DOCS)/insert_ab_fltest.json; fi
	@test -f $(BENCH_OUT)/table.md || { echo "bench-docs: run make bench first"; exit 1; }
	@mkdir -p $(BENCH_DOCS)
	cp $(addprefix $(BENCH_OUT)/,results.json results.csv control.csv table.md plot.png) $(BENCH_DOCS)/
	@if [ -f $(BENCH_OUT)/control-parallel.csv ]; then \
		cp $(BENCH_OUT)/control-parallel.csv $(BENCH_DOCS)/; fi
	@if [ -f $(BENCH_STOCK)/results.json ]; then \
		mkdir -p $(BENCH_DOCS)/stock; \
		cp $(addprefix $(BENCH_STOCK)/,results.json results.csv) $(BENCH_DOCS)/stock/; \
		rm -f $(BENCH_DOCS)/stock/control*.csv; \
		for f in control.csv control-parallel.csv; do \
			if [ -f $(BENCH_STOCK)/$$f ]; then \
				cp $(BENCH_STOCK)/$$f $(BENCH_DOCS)/stock/; fi; done; \
	fi
