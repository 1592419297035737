# The stock series (kernel/stock-series/, docs/stock-series.md): fixes for
# the pristine tree's net/sched/cls_flower.c, each with its tdc cases in
# tc-tests/filters/flower/stock-fixes.json.  Included from the top
# Makefile, which defines REPO, BUILD, PYTHON, JOBS.
#
#   make stock-series-gate   every patch of kernel/stock-series/series in
#                            order on a copy of the pristine file: it
#                            applies, has a Fixes: tag (or is an RFC,
#                            "[RFC PATCH ...]", without one), checkpatch
#                            --strict at 80 columns, and cls_flower.ko
#                            builds with W=1 and sparse as an external
#                            module against build/obj/ours (as make
#                            stock-ext), into
#                            build/stock-next/step-N/ (step-0: pristine),
#                            and cls_flower.o with W=1 for i386 (against
#                            make walk32's kernel, built first) into
#                            step-N/i386/;
#                            build/stock-next/cls_flower.ko is stock-next.
#                            "ok N/M subject" a patch, "N passed, N failed"
#   make stock-series-guest  the gate, then one guest boot (ours' kernel,
#                            cls_flower not loaded at boot) that runs the
#                            case file on each step's module and on ours':
#                            patch N's cases fail before step N and pass
#                            from it on, and all pass on ours.  TAP files
#                            in build/guest-out/stock-series/
#   make stock-next-ext      the stock-next variant, as make stock-ext
#                            (the top Makefile) makes stock's:
#                            build/stock-next/cls_flower.ko (the gate runs
#                            first, without the i386 builds, when it is
#                            missing or older than a patch, the series
#                            file, the pristine file or ours' bzImage)
#                            alone in build/mod/stock-next
#                            with depmod, ours' bzImage copied to
#                            build/obj/stock-next: guest/run --variant
#                            stock-next boots ours' kernel with it.  What
#                            difftest compares ours with under DT_STOCK=
#                            stock-next (difftest/README.md)
#
# The gate and the guest run touch no build/obj/<variant> nor
# build/mod/<variant>: the modules are built M= against build/obj/ours
# under its kernel lock (stock_series.py takes it).  make stock-next-ext
# runs the gate first, outside any lock, then installs under ours' lock
# and stock-next's (kernel_lock: ours first, as make stock-ext takes ours'
# and stock's), into build/obj/stock-next and build/mod/stock-next only,
# with stock-ext's install (the Makefile's ext_current, ext_install).  No
# full `make kernel` build of stock-next exists (VARIANT is ours, stock or
# debug).

SS_PY         := $(REPO)/kernel/stock-series/stock_series.py
SS_OUT        := $(BUILD)/guest-out/stock-series
SS_KREL        = $(shell cat $(BUILD)/obj/ours/include/config/kernel.release)
SS_OURS_KO     = $(BUILD)/mod/ours/lib/modules/$(SS_KREL)/kernel/net/sched/cls_flower.ko
SS_TIMEOUT    ?= 1800
STOCK_NEXT_KO  := $(BUILD)/stock-next/cls_flower.ko
STOCK_NEXT_OBJ := $(BUILD)/obj/stock-next
STOCK_NEXT_MOD := $(BUILD)/mod/stock-next
# what stock-next's module is made of (the ones that exist: the gate says
# what is missing)
SS_INPUTS      := $(REPO)/kernel/stock-series/series \
                  $(wildcard $(REPO)/kernel/stock-series/*.patch) \
                  $(wildcard $(PRISTINE)/net/sched/cls_flower.c \
                             $(BUILD)/obj/ours/arch/x86/boot/bzImage)

.PHONY: stock-series-gate stock-series-guest stock-next-ext stock-next-ext-locked

stock-series-gate: tree-pristine walk32-kernel
	@JOBS=$(JOBS) $(PYTHON) $(SS_PY) gate --i386

stock-series-guest: stock-series-gate
	@n=$$(grep -c . $(REPO)/kernel/stock-series/series); \
	labels=; pairs=; for k in $$(seq 0 $$n); do labels="$$labels step-$$k"; \
		pairs="$$pairs step-$$k=$(BUILD)/stock-next/step-$$k/cls_flower.ko"; done; \
	mkdir -p $(SS_OUT); rc=0; $(REPO)/guest/run --variant ours --no-load-flower --timeout $(SS_TIMEOUT) \
		--console-log $(BUILD)/logs/console-stock-series.log -- \
		$(PYTHON) $(SS_PY) guest $(SS_OUT) $$pairs ours=$(SS_OURS_KO) \
		> $(SS_OUT).log 2>&1 || rc=$$?; \
	grep -E '^(stock-series|guest/run):' $(SS_OUT).log || true; \
	[ $$rc -eq 0 ] || { echo "stock-series-guest: guest/run exited $$rc (see $(SS_OUT).log)"; \
		echo "0 passed, 1 failed"; exit 1; }; \
	$(PYTHON) $(SS_PY) report $(SS_OUT) $$labels ours

# stock-next's module, when it is missing or older than what it is made
# of: the gate (which deletes it first and writes it only when every
# patch passed), x86-64 only: this is the gate's prebuild, which should
# not wait for an i386 kernel to get a module for ours' kernel
$(STOCK_NEXT_KO): $(SS_INPUTS)
	@$(MAKE) --no-print-directory tree-pristine
	@JOBS=$(JOBS) $(PYTHON) $(SS_PY) gate

stock-next-ext: $(STOCK_NEXT_KO)
	@mkdir -p $(BUILD)
	@flock -n $(call kernel_lock,ours) true || echo "stock-next-ext: waiting for a kernel build ($(call kernel_lock,ours))"
	+@flock $(call kernel_lock,ours) flock $(call kernel_lock,stock-next) \
		$(MAKE) --no-print-directory stock-next-ext-locked

# Up to date when the marker is newer than ours' bzImage and the module
# (stock-ext-locked's test, the Makefile's ext_current).  No $(MAKE) here:
# make -n prints this recipe without running it.
stock-next-ext-locked:
	@set -e; \
	[ -e $(OURS_OBJ)/arch/x86/boot/bzImage ] || { \
		echo "stock-next-ext: build ours first (make kernel)"; exit 1; }; \
	[ -e $(STOCK_NEXT_KO) ] || { \
		echo "stock-next-ext: no $(STOCK_NEXT_KO) (make stock-series-gate)"; exit 1; }; \
	krel=$$(cat $(OURS_OBJ)/include/config/kernel.release); \
	if $(call ext_current,$(STOCK_NEXT_OBJ),$(STOCK_NEXT_MOD),$(STOCK_NEXT_KO)); then \
		echo "  STOCK-NEXT $(STOCK_NEXT_MOD) up to date"; exit 0; fi; \
	$(call ext_install,$(STOCK_NEXT_KO),$(STOCK_NEXT_OBJ),$(STOCK_NEXT_MOD)); \
	echo "  STOCK-NEXT $$krel: stock-next cls_flower.ko (pristine + kernel/stock-series) in $(STOCK_NEXT_MOD), ours' bzImage in $(STOCK_NEXT_OBJ)"
