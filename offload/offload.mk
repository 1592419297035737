# The flower offload test driver (offload/README.md); included from the top
# Makefile, which defines REPO, BUILD, OURS, KERNEL_LOCK, JOBS, VARIANT and
# variant_guest.
#
#   make offload-drv        build/offload-drv/flower_offload_test.ko: the
#                           sources of offload/drv copied to
#                           build/offload-drv and built there as an
#                           external module (kbuild M=) against the ours
#                           tree; the same .ko loads in the guest of
#                           --variant ours and of --variant stock (which
#                           boots ours' kernel)
#   make offload-drv-smoke  VARIANT=ours|stock: offload/drv/smoke.sh in
#                           the guest (load, take veth0, skip_sw/skip_hw,
#                           refusals, stats, shared block, template,
#                           rmmod); ends with `N passed, N failed`, exit
#                           != 0 on a failure or a kernel splat
#   make offload-drv-check  scripts/checkpatch.pl --strict on the source,
#                           run in the ours tree so that it knows the
#                           kernel's own names (--no-tree would flag
#                           struct Qdisc as CamelCase)

OFFLOAD_DRV_SRC := $(REPO)/offload/drv
OFFLOAD_DRV     := $(BUILD)/offload-drv
OFFLOAD_DRV_KO  := $(OFFLOAD_DRV)/flower_offload_test.ko
OFFLOAD_KOBJ    := $(BUILD)/obj/ours
OFFLOAD_SMOKE_TIMEOUT ?= 600

.PHONY: offload-drv offload-drv-locked offload-drv-smoke offload-drv-check

offload-drv:
	@mkdir -p $(BUILD)
	@flock -n $(KERNEL_LOCK) true || \
		echo "offload-drv: waiting for a kernel build ($(KERNEL_LOCK))"
	+@flock $(KERNEL_LOCK) $(MAKE) --no-print-directory offload-drv-locked

# Only changed sources are copied, so that kbuild rebuilds only when needed.
offload-drv-locked:
	@[ -e $(OFFLOAD_KOBJ)/Module.symvers ] || { \
		echo "offload-drv: build ours first (make kernel)"; exit 1; }
	@mkdir -p $(OFFLOAD_DRV)
	@for f in flower_offload_test.c Kbuild; do \
		cmp -s $(OFFLOAD_DRV_SRC)/$$f $(OFFLOAD_DRV)/$$f || \
			cp $(OFFLOAD_DRV_SRC)/$$f $(OFFLOAD_DRV)/$$f; done
	+@$(MAKE) -s -C $(OURS) O=$(OFFLOAD_KOBJ) M=$(OFFLOAD_DRV) \
		-j$(JOBS) modules
	@echo "  OFFLOAD $(OFFLOAD_DRV_KO)"

offload-drv-smoke:
	$(variant_guest)
	@$(MAKE) --no-print-directory offload-drv
	$(REPO)/guest/run --variant $(VARIANT) \
		--timeout $(OFFLOAD_SMOKE_TIMEOUT) -- \
		sh offload/drv/smoke.sh $(OFFLOAD_DRV_KO)

offload-drv-check:
	cd $(OURS) && scripts/checkpatch.pl --strict -f \
		$(OFFLOAD_DRV_SRC)/flower_offload_test.c
