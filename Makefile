# Flower classifier for linux-source-6.1 + tdc harness in a QEMU guest.
#
#   make run            everything for the main job: packages, kernel,
#                       initramfs, then tdc's flower suite in the guest
#   make test           packages, kernel, initramfs, then gate/gate.py
#                       (python3 -m gate.gate)
#   make kernel         build bzImage + modules   (VARIANT=ours|stock|debug)
#   make initramfs      build/initramfs.cpio.gz
#   make guest          kernel + initramfs
#   make stock-ext      the cheap stock variant: the pristine tree's
#                       net/sched/cls_flower.c built as an external
#                       module (kbuild M=) against build/obj/ours, put
#                       in build/mod/stock, with ours' bzImage copied to
#                       build/obj/stock (guest/run --variant stock).
#                       A full `make kernel VARIANT=stock` build there
#                       is left alone and used.
#   make compare        the flower corpus on the stock 6.1 cls_flower and on
#                       ours, then docs/stock-comparison.md (tdc/compare.py)
#   make leniency-report  docs/leniency.md from the last make compare
#                       (tdc/leniency.py)
#   make upstream-fixes-report  docs/upstream-fixes.md from the last
#                       make compare (tdc/upstream_fixes.py)
#   make series         git format-patch series against the pristine tree
#   make series-check   apply that series to a fresh tree, build cls_flower.o
#   make clean          remove objects and initramfs (keep extracted trees)
#   make distclean      remove build/ entirely
#   make help           every make target the makefiles describe
#
# Build products live under build/ (gitignored); see README.md.

SHELL          := /bin/bash
.SHELLFLAGS    := -eu -o pipefail -c
.DEFAULT_GOAL  := guest

REPO           := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
BUILD          := $(REPO)/build
PYTHON         := /usr/bin/python3
KERNEL_TARBALL ?= /usr/src/linux-source-6.1.tar.xz
VARIANT        ?= ours
JOBS           ?= $(shell nproc)

# Debian packages the build and the guest need (make deps installs the
# missing ones, without their recommends: scapy alone would otherwise
# pull in ffmpeg, GTK and speech tools; and with a policy-rc.d that keeps
# their services, Open vSwitch's above all, from starting on this host:
# they run only in the guest).  Why each is here:
#   linux-source-6.1 .. libssl-dev, bc bison flex   the kernel tree, built
#   qemu-system-x86 busybox-static cpio kmod        the guest and its modules
#   python3-pyroute2 python3-scapy                  tdc, flowernl, packets
#   iproute2                                        tc and ip (host = guest)
#   netsniff-ng (mausezahn) jq ncat                 the tree's forwarding
#                                                   selftests (make selftests)
#   git patch xz-utils build-essential              series, extraction
#   make gcc binutils rsync                         what kbuild runs (rsync:
#                                                   headers_install, walk32)
#   python3-minimal                                 /usr/bin/python3
#   openvswitch-common                              ovs-ofctl, ovs-appctl,
#                                                   ovsdb-* (ovs/ovs.mk)
# The *.mk files add their own.  Every program the makefiles and scripts
# run must come from a package here or from one every Debian system has
# (Priority required/important): lint/tests/test_deps.py checks that.
DEB_PACKAGES   := linux-source-6.1 qemu-system-x86 busybox-static \
                  python3-pyroute2 python3-scapy iproute2 bc bison flex \
                  libelf-dev libssl-dev cpio kmod \
                  build-essential xz-utils patch git \
                  make gcc binutils rsync python3-minimal \
                  openvswitch-common netsniff-ng jq ncat

PRISTINE       := $(BUILD)/src/pristine
OURS           := $(BUILD)/src/ours
FLOWER_CONFIG  := $(REPO)/kernel/flower.config
DEBUG_CONFIG   := $(REPO)/kernel/debug.config
INITRAMFS      := $(BUILD)/initramfs.cpio.gz

ifeq ($(VARIANT),ours)
  KSRC         := $(OURS)
  FRAGMENTS    := $(FLOWER_CONFIG)
else ifeq ($(VARIANT),stock)
  KSRC         := $(PRISTINE)
  FRAGMENTS    := $(FLOWER_CONFIG)
else ifeq ($(VARIANT),debug)
  KSRC         := $(OURS)
  FRAGMENTS    := $(FLOWER_CONFIG) $(DEBUG_CONFIG)
else
  $(error VARIANT must be ours, stock or debug (got '$(VARIANT)'))
endif

OBJ            := $(BUILD)/obj/$(VARIANT)
MOD            := $(BUILD)/mod/$(VARIANT)
KMAKE          := $(MAKE) -C $(KSRC) O=$(OBJ) -j$(JOBS)

# the cheap stock variant (make stock-ext)
STOCK_EXT      := $(BUILD)/ext/stock
STOCK_OBJ      := $(BUILD)/obj/stock
STOCK_MOD      := $(BUILD)/mod/stock
OURS_OBJ       := $(BUILD)/obj/ours

SERIES_DIR     := $(BUILD)/series
SCHECK_SRC     := $(BUILD)/src/series-check
SCHECK_OBJ     := $(BUILD)/obj/series-check

# Kernel builds are serialized per object directory: kbuild must not run
# twice in one O=, and a module built against build/obj/X (the stock one,
# the offload driver, mutants) takes X's lock.  Builds in different
# directories (ours, debug, i386) may run side by side.  The sync of
# build/src/ours, which builds of ours, debug and i386 all start with,
# takes TREE_LOCK for itself (always inside an object directory's lock,
# never around one).
kernel_lock    = $(BUILD)/.kernel-$(1).lock
KERNEL_LOCK    := $(call kernel_lock,$(VARIANT))
TREE_LOCK      := $(BUILD)/.tree.lock

.PHONY: help deps kernel kernel-locked stock-ext stock-ext-locked initramfs guest run test upstream upstream-report upstream-fixes-report compare compare-commit leniency-report series \
        series-locked series-check clean distclean trees tree-pristine tree-ours

# ---------------------------------------------------------------------------
deps:
	@missing=$$(for p in $(DEB_PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
			grep -q '^install ok installed$$' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "deps: installing" $$missing; \
		sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
		$$sudo apt-get update -q; \
		norc=; if [ ! -e /usr/sbin/policy-rc.d ]; then norc=1; \
			printf '#!/bin/sh\nexit 101\n' | $$sudo tee /usr/sbin/policy-rc.d >/dev/null; \
			$$sudo chmod +x /usr/sbin/policy-rc.d; fi; \
		rc=0; DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -q \
			--no-install-recommends $$missing || rc=$$?; \
		if [ -n "$$norc" ]; then $$sudo rm -f /usr/sbin/policy-rc.d; fi; \
		exit $$rc; \
	fi

# ---------------------------------------------------------------------------
# Source trees: pristine extraction, and ours = pristine + patches + kernel/.
tree-pristine:
	@mkdir -p $(BUILD)
	@flock $(TREE_LOCK) $(REPO)/tree/extract-tree $(KERNEL_TARBALL) $(PRISTINE)

tree-ours: tree-pristine
	@flock $(TREE_LOCK) $(REPO)/tree/sync-tree $(REPO) $(PRISTINE) $(OURS)

trees: tree-ours

# .config is regenerated only when a fragment (or the script) changed.
$(OBJ)/.tdc-config: $(FRAGMENTS) $(REPO)/tree/kconfig | $(if $(filter stock,$(VARIANT)),tree-pristine,tree-ours)
	@rm -f $@
	@$(REPO)/tree/kconfig $(KSRC) $(OBJ) $(FRAGMENTS)
	@touch $@

# Kernel builds (tree sync, config, kbuild, install) of one variant are
# serialized by its lock: several people share build/.
kernel:
	@mkdir -p $(BUILD)
	@flock -n $(KERNEL_LOCK) true || echo "kernel: waiting for another $(VARIANT) kernel build ($(KERNEL_LOCK))"
	+@flock $(KERNEL_LOCK) $(MAKE) --no-print-directory kernel-locked

# kbuild runs only when a file of the source tree (sync-tree gives a file
# a fresh mtime only when its content changed; .tdc-manifest, and so the
# tree's top directory, it rewrites every time) or the .config is newer than the start of the last kbuild
# that succeeded ($(OBJ)/.tdc-kbuild), or the bzImage is missing: the
# same mtimes kbuild compares, in 0.4 s where its own no-op takes 4.6 s
# (16 s for debug); the gate's stages each make their guest first.
# The modules are installed again only when the kernel or a module is
# newer than the last install: the install swaps $(MOD) whole, under a
# guest of the variant that may be running (the gate runs guest stages
# side by side, each of which makes its guest first).
kernel-locked: $(if $(filter stock,$(VARIANT)),tree-pristine,tree-ours) $(OBJ)/.tdc-config
	+@stamp=$(OBJ)/.tdc-kbuild; \
	if [ -f $$stamp ] && [ -f $(OBJ)/arch/x86/boot/bzImage ] && \
	   [ -z "$$(find $(KSRC) $(OBJ)/.config -newer $$stamp ! -type d \
	            ! -name .tdc-manifest -print -quit)" ]; then \
		echo "  KBUILD  $(VARIANT): no source or .config newer than the last build: not run"; \
	else \
		touch $$stamp.new && echo "$(KMAKE) bzImage modules" && \
		$(KMAKE) bzImage modules && mv $$stamp.new $$stamp; \
	fi
	+@krel=$$(cat $(OBJ)/include/config/kernel.release); \
	stamp=$(MOD)/.installed; \
	if [ -f $$stamp ] && [ ! $(OBJ)/arch/x86/boot/bzImage -nt $$stamp ] && \
	   [ -z "$$(find $(OBJ) -name '*.ko' -newer $$stamp -print -quit)" ]; then \
		echo "  KERNEL  $(VARIANT) $$krel: $(OBJ)/arch/x86/boot/bzImage, modules in $(MOD) (unchanged)"; \
		exit 0; \
	fi; \
	rm -rf $(MOD).new && \
	$(KMAKE) -s modules_install INSTALL_MOD_PATH=$(MOD).new && \
	depmod -b $(MOD).new $$krel && touch $(MOD).new/.installed && \
	rm -rf $(MOD) && mv $(MOD).new $(MOD) && \
	echo "  KERNEL  $(VARIANT) $$krel: $(OBJ)/arch/x86/boot/bzImage, modules in $(MOD)"

# The cheap stock variant (make stock-ext, head comment): under ours'
# kernel lock, then stock's, as every build against build/obj/ours.
stock-ext:
	@mkdir -p $(BUILD)
	@flock -n $(call kernel_lock,ours) true || echo "stock-ext: waiting for a kernel build ($(call kernel_lock,ours))"
	+@flock $(call kernel_lock,ours) flock $(call kernel_lock,stock) \
		$(MAKE) --no-print-directory stock-ext-locked

# A cheap variant's install, shared with make stock-next-ext
# (kernel/stock-series.mk): shell text for a recipe that has set
# krel=<ours' kernel release>.
#   $(call ext_current,OBJ,MOD,FILES): true when OBJ's marker (.stock-ext:
#     the md5 of the bzImage copied there) is newer than ours' bzImage and
#     each of FILES, and MOD holds a cls_flower.ko for $krel
#   $(call ext_install,KO,OBJ,MOD): KO alone (with ours' modules.builtin*
#     and modules.order) in MOD with depmod, replacing MOD whole; ours'
#     bzImage and kernel.release copied to OBJ, the marker written last
ext_current = [ -e $(1)/.stock-ext ] && \
	[ $(1)/.stock-ext -nt $(OURS_OBJ)/arch/x86/boot/bzImage ] && \
	$(foreach f,$(3),[ $(1)/.stock-ext -nt $(f) ] && )\
	[ -e $(2)/lib/modules/$$krel/kernel/net/sched/cls_flower.ko ]
ext_install = rm -rf $(3).new; \
	d=$(3).new/lib/modules/$$krel; mkdir -p $$d/kernel/net/sched; \
	cp $(1) $$d/kernel/net/sched/; \
	for f in modules.builtin modules.builtin.modinfo modules.order; do \
		[ -e $(OURS_OBJ)/$$f ] && cp $(OURS_OBJ)/$$f $$d/ || true; done; \
	depmod -b $(3).new $$krel; \
	rm -rf $(3); mv $(3).new $(3); \
	mkdir -p $(2)/arch/x86/boot $(2)/include/config; \
	cp $(OURS_OBJ)/arch/x86/boot/bzImage $(2)/arch/x86/boot/bzImage; \
	cp $(OURS_OBJ)/include/config/kernel.release $(2)/include/config/; \
	md5sum < $(2)/arch/x86/boot/bzImage > $(2)/.stock-ext

# Up to date when the marker (md5 of the bzImage copied) is newer than
# ours' bzImage and the pristine source; a full stock build (vmlinux in
# build/obj/stock whose bzImage is not the one we copied) is used as it
# is.  Nothing of a (partial) full build is deleted: `make kernel
# VARIANT=stock` overwrites the copy and the mod dir when it runs.
stock-ext-locked: tree-pristine
	@set -e; \
	if [ -e $(STOCK_OBJ)/vmlinux ] && [ -e $(STOCK_MOD) ] && { [ ! -e $(STOCK_OBJ)/.stock-ext ] || \
	   [ "$$(md5sum < $(STOCK_OBJ)/arch/x86/boot/bzImage)" != "$$(cat $(STOCK_OBJ)/.stock-ext)" ]; }; then \
		echo "  STOCK   full VARIANT=stock build in $(STOCK_OBJ): used as is"; exit 0; fi; \
	[ -e $(OURS_OBJ)/arch/x86/boot/bzImage ] || { \
		echo "stock-ext: build ours first (make kernel)"; exit 1; }; \
	krel=$$(cat $(OURS_OBJ)/include/config/kernel.release); \
	if $(call ext_current,$(STOCK_OBJ),$(STOCK_MOD),$(PRISTINE)/net/sched/cls_flower.c); then \
		echo "  STOCK   $(STOCK_MOD) up to date"; exit 0; fi; \
	rm -rf $(STOCK_EXT); mkdir -p $(STOCK_EXT); \
	cp $(PRISTINE)/net/sched/cls_flower.c $(STOCK_EXT)/; \
	echo 'obj-m := cls_flower.o' > $(STOCK_EXT)/Kbuild; \
	$(MAKE) -s -C $(OURS) O=$(OURS_OBJ) M=$(STOCK_EXT) -j$(JOBS) modules; \
	$(call ext_install,$(STOCK_EXT)/cls_flower.ko,$(STOCK_OBJ),$(STOCK_MOD)); \
	echo "  STOCK   $$krel: pristine cls_flower.ko (M=) in $(STOCK_MOD), ours' bzImage in $(STOCK_OBJ)"

# ---------------------------------------------------------------------------
$(INITRAMFS): $(REPO)/guest/init $(REPO)/guest/modprobe $(REPO)/guest/mkinitramfs \
              $(REPO)/guest/newc.py /bin/busybox
	@$(PYTHON) $(REPO)/guest/mkinitramfs $@

initramfs: $(INITRAMFS)

guest: kernel initramfs

# For recipes: $(1), a file, gets the commit a run measures, and whether
# the repository paths $(2) differed from it (uncommitted changes)
define measured_commit
	@mkdir -p $(dir $(1))
	@cd $(REPO) && echo "$$(git rev-parse --short HEAD)$$(git status \
		--porcelain -- $(2) | grep -q . && \
		echo ' with uncommitted changes to $(addsuffix /,$(2))')" >$(1)
endef

# For recipes: the guest of $(VARIANT) without a full stock kernel build.
# VARIANT=stock boots the stock cls_flower module on ours' kernel (make
# stock-ext: about 30 s; a full `make kernel VARIANT=stock` build in
# build/obj/stock is used as it is).
define variant_guest
	@$(MAKE) --no-print-directory guest $(if $(filter stock,$(VARIANT)),VARIANT=ours)
	$(if $(filter stock,$(VARIANT)),@$(MAKE) --no-print-directory stock-ext VARIANT=ours)
endef

# ---------------------------------------------------------------------------
run:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory guest
	$(if $(filter debug,$(VARIANT)),,@$(MAKE) --no-print-directory offload-drv)
	$(REPO)/guest/run --variant $(VARIANT) -- $(PYTHON) -m tdc.tdc -c flower -J 3

test:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory guest
	@$(MAKE) --no-print-directory offload-drv
	cd $(REPO) && $(PYTHON) -m gate.gate

# The 6.1 tree's own flower cases, by path (never copied into the repo);
# results in build/guest-out/upstream-<variant>.tap.  Like upstream's
# tdc.py, ours runs the flower category only with -d DEV: a dummy here.
# 12G: concurrency.json's `tc -b` of 1M lines grows tc itself to 3.5 GB,
# and the kernel holds 1M filters (~2.5 KB each) besides; 6G ran out.
UPSTREAM_CASES := $(PRISTINE)/tools/testing/selftests/tc-testing/tc-tests/filters
upstream:
	@$(MAKE) --no-print-directory deps
	$(variant_guest)
	$(REPO)/guest/run --variant $(VARIANT) --timeout 7200 --mem 12G -- \
		sh -c 'ip link add updev0 type dummy && exec $(PYTHON) -m tdc.tdc \
		-d updev0 --plugin nsPlugin --timeout 1800 \
		--tap build/guest-out/upstream-$(VARIANT).tap \
		-f $(UPSTREAM_CASES)/tests.json -f $(UPSTREAM_CASES)/concurrency.json' \
		| tee $(BUILD)/guest-out/upstream-$(VARIANT).out

# docs/upstream.md from the last `make upstream` on each kernel (its
# printed TAP, kept even when the run was cut short).
upstream-report:
	$(PYTHON) -m tdc.compare --corpus $(UPSTREAM_CASES) --out $(REPO)/docs/upstream.md \
		--ours $(BUILD)/guest-out/upstream-ours.out \
		--stock $(BUILD)/guest-out/upstream-stock.out

# docs/upstream-fixes.md from the last `make compare` (its TAPs and
# .commit files of ours and stock): the upstream fixes to cls_flower.c
# since 6.1, found by hand (tdc/upstream_fixes_data.py), with their cases'
# results on each kernel.  A case missing from a TAP shows as not run and
# fails the target (the page is written all the same).
upstream-fixes-report:
	cd $(REPO) && $(PYTHON) -m tdc.upstream_fixes --out $(REPO)/docs/upstream-fixes.md \
		--ours $(COMPARE_OUT)/ours.tap --stock $(COMPARE_OUT)/stock.tap

# The same corpus on the tree's own cls_flower (the stock module on ours'
# kernel, as variant_guest boots it) and on ours, one guest after the
# other; TAP in build/guest-out/compare/, the report in
# docs/stock-comparison.md.  COMPARE_STOCK=stock-next compares with the
# stock flower with kernel/stock-series instead (docs/
# stock-next-comparison.md); COMPARE_RUNS=stock-next runs that kernel
# only and takes ours' run of the last make compare.  A failing case is
# data here, not an error: only a guest that never reported (no TAP)
# fails the target.
COMPARE_OUT    := $(BUILD)/guest-out/compare
COMPARE_STOCK  ?= stock
COMPARE_RUNS   ?= $(COMPARE_STOCK) ours
COMPARE_REPORT := $(REPO)/docs/$(if $(filter stock-next,$(COMPARE_STOCK)),stock-next-comparison,stock-comparison).md
compare:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory guest VARIANT=ours
	@$(MAKE) --no-print-directory $(if $(filter stock-next,$(COMPARE_STOCK)),stock-next-ext,stock-ext) VARIANT=ours
	@$(MAKE) --no-print-directory offload-drv
	@mkdir -p $(COMPARE_OUT)
	@for v in $(COMPARE_RUNS); do \
		rm -f $(COMPARE_OUT)/$$v.*; \
		$(MAKE) --no-print-directory -s compare-commit COMPARE_FILE=$(COMPARE_OUT)/$$v.commit; \
		start=$$(date +%s); rc=0; \
		$(REPO)/guest/run --variant $$v --timeout 7200 \
			--console-log $(BUILD)/logs/console-compare-$$v.log -- \
			$(PYTHON) -m tdc.tdc -c flower -J 3 \
			--tap $(COMPARE_OUT)/$$v.tap >$(COMPARE_OUT)/$$v.out 2>&1 || rc=$$?; \
		took=$$(( $$(date +%s) - start )); \
		echo "$$v=$$took" >$(COMPARE_OUT)/$$v.seconds; \
		echo "compare: $$v: guest exit $$rc, $$took s," \
			"$$(tail -n 1 $(COMPARE_OUT)/$$v.out)"; \
	done
	cd $(REPO) && $(PYTHON) -m tdc.compare --ours $(COMPARE_OUT)/ours.tap \
		--stock $(COMPARE_OUT)/$(COMPARE_STOCK).tap --out $(COMPARE_REPORT) \
		--stock-name $(COMPARE_STOCK) \
		--commit "ours $$(cat $(COMPARE_OUT)/ours.commit), $(COMPARE_STOCK) $$(cat $(COMPARE_OUT)/$(COMPARE_STOCK).commit)" \
		$$(sed 's/^/--seconds /' $(COMPARE_OUT)/ours.seconds $(COMPARE_OUT)/$(COMPARE_STOCK).seconds)

# the commit a compare run measures, into COMPARE_FILE
compare-commit:
	$(call measured_commit,$(COMPARE_FILE),tc-tests tdc tcgen kernel)

# docs/leniency.md from the last `make compare`'s TAPs of ours and stock
# (build/guest-out/compare/ours.tap, stock.tap, with the .commit and
# .seconds files beside them): the requests the stock flower accepts,
# written by hand in tdc/leniency_data.py with the cases that exercise
# each, and their cases' results on both kernels.  A row without a case,
# or a case not run, fails the target after the page is written.
leniency-report:
	cd $(REPO) && $(PYTHON) -m tdc.leniency --ours $(COMPARE_OUT)/ours.tap \
		--stock $(COMPARE_OUT)/stock.tap --out $(REPO)/docs/leniency.md

# ---------------------------------------------------------------------------
series:
	@mkdir -p $(BUILD)
	+@flock $(call kernel_lock,ours) $(MAKE) --no-print-directory series-locked

series-locked: tree-ours
	@$(REPO)/tree/make-series $(REPO) $(PRISTINE) $(OURS) $(SERIES_DIR)

series-check:
	@$(REPO)/tree/series-check $(REPO) $(KERNEL_TARBALL) $(SERIES_DIR) \
		$(SCHECK_SRC) $(SCHECK_OBJ) $(JOBS) $(FLOWER_CONFIG)

# ---------------------------------------------------------------------------
# Every `make X` the makefiles' head comments describe, with the first line
# of its description (the comment in each file says more).
help:
	@for f in $(MAKEFILE_LIST); do \
		lines=$$(grep -h -E '^#   make [a-z0-9-]+( [A-Z0-9_]+=[^ ]+)*( {2,}.*)?$$' $$f) || continue; \
		echo "$${f#$(REPO)/}:"; echo "$$lines" | sed 's/^#  //'; done

clean:
	rm -rf $(BUILD)/obj $(BUILD)/mod $(INITRAMFS)

distclean:
	rm -rf $(BUILD)

# Benchmark and reliability runs live beside their code.
include $(REPO)/bench/bench.mk
include $(REPO)/stress/stress.mk
include $(REPO)/selftests/selftests.mk
include $(REPO)/difftest/difftest.mk
include $(REPO)/ovs/ovs.mk
include $(REPO)/guest/i386/walk32.mk
include $(REPO)/kernel/series.mk
include $(REPO)/kernel/stock-series.mk
include $(REPO)/mutate/mutate.mk
include $(REPO)/tdc/tdc61.mk
include $(REPO)/offload/offload.mk
