# make walk32: our fl_walk on a 32-bit kernel, where unsigned long is 32
# bits and a filter with handle 0xffffffff must still end the walk (the
# issue: a handle++ wraps to 0 and the walk starts over, with RTNL held).
# Included from the top Makefile (REPO, BUILD, OURS, JOBS, kernel_lock).
#
#   make walk32   i386 kernel from build/src/ours: tinyconfig + walk32.config,
#                 cls_flower built in, no modules (build/obj/i386); /init is
#                 walk32.c built with the tree's nolibc; one boot under
#                 qemu-system-i386 (TCG).  Ends with "N passed, N failed".
#
# W32_SRC=TREE W32_OBJ=DIR builds and boots another tree (a scratch copy
# with a broken fl_walk, say) in its own object directory; W32_APPEND is
# the kernel command line (rdinit=/none shows a boot that never gets to
# walk32).

W32_SRC     ?= $(OURS)
W32_OBJ     ?= $(BUILD)/obj/i386
W32_TIMEOUT ?= 120
W32_APPEND  ?= console=ttyS0 panic=-1
W32_DIR     := $(REPO)/guest/i386
W32_KMAKE   := $(MAKE) -C $(W32_SRC) O=$(W32_OBJ) ARCH=i386
W32_BZ      := $(W32_OBJ)/arch/x86/boot/bzImage
W32_CPIO    := $(W32_OBJ)/walk32.cpio
W32_LOG     := $(W32_OBJ)/console.log
W32_LOCK    := $(call kernel_lock,$(notdir $(W32_OBJ)))

.PHONY: walk32 walk32-kernel walk32-locked

# The kbuild under the kernel lock (as `make kernel`), the boot outside it.
# walk32-verdict judges the console: walk32's PASS, and no kernel splat.
walk32:
	@$(MAKE) --no-print-directory deps
	@mkdir -p $(BUILD)
	@$(MAKE) --no-print-directory walk32-kernel
	@echo "  QEMU    qemu-system-i386 (TCG), $(W32_TIMEOUT) s at most; console: $(W32_LOG)"
	@rc=0; timeout -k 5 $(W32_TIMEOUT) qemu-system-i386 -accel tcg -m 64 \
		-nographic -no-reboot -kernel $(W32_BZ) -initrd $(W32_CPIO) \
		-append "$(W32_APPEND)" </dev/null 2>&1 | \
		tr -d '\r' >$(W32_LOG) || rc=$$?; \
	$(W32_DIR)/walk32-verdict $(W32_LOG) $$rc $(W32_TIMEOUT)

# tree/kconfig takes ARCH from the environment; every fragment line must
# survive olddefconfig.
$(W32_OBJ)/.walk32-config: $(W32_DIR)/walk32.config $(REPO)/tree/kconfig
	@rm -f $@
	@ARCH=i386 $(REPO)/tree/kconfig $(W32_SRC) $(W32_OBJ) $(W32_DIR)/walk32.config
	@touch $@

# The kernel and /init only.
walk32-kernel:
	@mkdir -p $(BUILD)
	@flock -n $(W32_LOCK) true || echo "walk32: waiting for another i386 kernel build ($(W32_LOCK))"
	+@flock $(W32_LOCK) $(MAKE) --no-print-directory walk32-locked

walk32-locked: $(if $(filter $(OURS),$(W32_SRC)),tree-ours) $(W32_OBJ)/.walk32-config
	@grep -qx 'CONFIG_NET_CLS_FLOWER=y' $(W32_OBJ)/.config || \
		{ echo "walk32: CONFIG_NET_CLS_FLOWER=y missing from $(W32_OBJ)/.config" >&2; exit 1; }
	@! grep -q '^CONFIG_64BIT=y' $(W32_OBJ)/.config || \
		{ echo "walk32: CONFIG_64BIT=y in $(W32_OBJ)/.config: not a 32-bit kernel" >&2; exit 1; }
	+$(W32_KMAKE) -j$(JOBS) bzImage
	+@$(W32_KMAKE) -s headers_install INSTALL_HDR_PATH=$(W32_OBJ)/hdr
	gcc -m32 -static -nostdlib -Os -Wall -Werror -fno-pie \
		-fno-asynchronous-unwind-tables -fno-stack-protector \
		-I $(W32_OBJ)/hdr/include -include $(W32_SRC)/tools/include/nolibc/nolibc.h \
		-o $(W32_OBJ)/walk32 $(W32_DIR)/walk32.c
	@printf '%s\n' 'dir /dev 0755 0 0' 'nod /dev/console 0600 0 0 c 5 1' \
		'file /init $(W32_OBJ)/walk32 0755 0 0' >$(W32_OBJ)/walk32.list
	@$(W32_OBJ)/usr/gen_init_cpio $(W32_OBJ)/walk32.list >$(W32_CPIO)
