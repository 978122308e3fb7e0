# SPDX-License-Identifier: MIT
# fsagent: plain GNU make, one file. The same sources build twice:
#   build/agent/  static objects -> build/fsagent (the VM's init)
#   build/host/   dynamic objects (SANITIZE= applies) -> unit tests, host tools
#
#   make packages GOAL  install the Debian packages missing (as root), then GOAL
#   make                build/fsagent (builds static deps; names missing packages and stops)
#   make check          unit tests, lint, VM boot tests; ends "N passed, N failed"
#   make unit           unit tests only        make vmtest   VM tests only
#   make lint           cppcheck + shellcheck  make bench    benchmarks (on demand)
#   make fuzz           libFuzzer targets, FUZZ_TIME s each (600)   make fuzz-smoke  8 s each
#   make image FSTESTS=SRC [KERNELS="DIR..."]   the VM image in build/image (fstests built from SRC)
#   make run FSTESTS=SRC [RUN="fsagent-qemu options"]   the image when stale, a run, its report
#   V=1                 show commands          SANITIZE=     (default address,undefined)

-include config.mak

CC ?= gcc
CFLAGS ?= -O2 -g
SANITIZE ?= address,undefined
BUILD := build
DEPS := $(BUILD)/deps
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)

WARN := -Wall -Wextra -Werror -Wformat=2 -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wvla -Wwrite-strings -Wundef -Wlogical-op -fno-common \
	-Wno-missing-field-initializers -Wno-format-truncation
ALL_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) -D_GNU_SOURCE -Iagent/src -MMD -MP

# layers, dependencies one way (tests/lint-layers): util <- model <- machine <- run <- boot,
# model <- analysis <- engine, cmd on top
LAYERS := util model machine run boot analysis engine cmd
SRCS := $(foreach l,$(LAYERS),$(wildcard agent/src/$(l)/*.c))
LIB_SRCS := $(filter-out agent/src/cmd/%,$(SRCS))
AGENT_OBJS := $(SRCS:agent/src/%.c=$(BUILD)/agent/%.o)
HOST_OBJS := $(SRCS:agent/src/%.c=$(BUILD)/host/%.o)
HOST_LIB_OBJS := $(LIB_SRCS:agent/src/%.c=$(BUILD)/host/%.o)

STATIC_LIBS := $(DEPS)/lib/libmount.a $(DEPS)/lib/libblkid.a $(DEPS)/lib/libkmod.a \
	-l:libext2fs.a -l:libcom_err.a -l:libjansson.a -l:libzstd.a -l:liblzma.a -l:libz.a -lm
HOST_LIBS := -lmount -lblkid -lkmod -lext2fs -lcom_err -ljansson -lz -lm
SAN_FLAGS := $(if $(SANITIZE),-fsanitize=$(SANITIZE) -fno-omit-frame-pointer)

FUZZ_SRCS := $(wildcard tests/fuzz/fuzz-*.c)
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/fuzz/%)
FUZZ_OBJS := $(LIB_SRCS:agent/src/%.c=$(BUILD)/fuzz/obj/%.o)
FUZZ_CC ?= clang
FUZZ_FLAGS := -std=gnu11 -g -O1 -Wall -D_GNU_SOURCE -Iagent/src \
	-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_TIME ?= 600

UNIT_SRCS := $(wildcard tests/unit/test-*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/host/tests/%)

ifneq ($(V),1)
Q := @
QUIET_CC = @echo '   CC      $@';
QUIET_LINK = @echo '   LINK    $@';
endif

.DELETE_ON_ERROR:
.SECONDARY:
.PHONY: FORCE all check fuzz fuzz-smoke fuzz-targets host-tools unit vmtest lint bench image run clean distclean deps packages test-packages

all: $(BUILD)/fsagent

# the version lives in one object, rebuilt when `git describe` changes
VERSION_OBJS := $(BUILD)/agent/util/version.o $(BUILD)/host/util/version.o $(BUILD)/fuzz/obj/util/version.o
$(VERSION_OBJS): $(BUILD)/VERSION
$(VERSION_OBJS): ALL_CFLAGS += -DFSAGENT_VERSION='"$(VERSION)"'
$(VERSION_OBJS): FUZZ_FLAGS += -DFSAGENT_VERSION='"$(VERSION)"'
$(BUILD)/VERSION: FORCE
	@mkdir -p $(@D); [ "$$(cat $@ 2>/dev/null)" = '$(VERSION)' ] || echo '$(VERSION)' >$@

# Missing Debian packages stop the build with their names; `make packages
# GOAL...` (as root) installs them first: build, test and image packages.
PKG_INSTALL := $(if $(filter packages,$(MAKECMDGOALS)),--install)

$(BUILD)/.packages-build: scripts/install-packages
	$(Q)scripts/install-packages $(PKG_INSTALL) build
	$(Q)mkdir -p $(@D) && touch $@

$(BUILD)/.packages-test: scripts/install-packages $(BUILD)/.packages-build
	$(Q)scripts/install-packages $(PKG_INSTALL) test
	$(Q)touch $@

packages: $(BUILD)/.packages-test
test-packages: $(BUILD)/.packages-test

$(DEPS)/.done: scripts/build-deps | $(BUILD)/.packages-build
	@echo '   DEPS    static libkmod, libmount, libblkid from Debian sources'
	$(Q)rm -f $@ && scripts/build-deps $(DEPS)

deps: $(DEPS)/.done

$(BUILD)/agent/%.o: agent/src/%.c $(DEPS)/.done
	@mkdir -p $(@D)
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) -I$(DEPS)/include -c -o $@ $<

# libmount references getpwnam_r & co. for uid=/gid= options, which fsagent
# never passes; ld's warning about NSS in static binaries is expected.
$(BUILD)/fsagent.debug: $(AGENT_OBJS)
	$(QUIET_LINK)$(CC) -static $(CFLAGS) -o $@ $^ $(STATIC_LIBS) 2>&1 | \
		grep -v -e 'statically linked applications requires' -e 'in function .mnt_get_' >&2 || true
	@test -x $@

$(BUILD)/fsagent: $(BUILD)/fsagent.debug
	$(Q)strip -o $@ $<

$(BUILD)/host/%.o: agent/src/%.c | $(BUILD)/.packages-build
	@mkdir -p $(@D)
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -c -o $@ $<

$(BUILD)/host/fsagent: $(HOST_OBJS)
	$(QUIET_LINK)$(CC) $(CFLAGS) $(SAN_FLAGS) -o $@ $^ $(HOST_LIBS)

$(BUILD)/host/tests/%.o: tests/unit/%.c | $(BUILD)/.packages-test
	@mkdir -p $(@D)
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -Itests/unit -DFIXTURE_DIR='"$(CURDIR)/tests/fixtures"' -c -o $@ $<

# Each layer is an archive; a unit test links only the layers its includes
# name and the layers those may use, so an include against the layers (or a
# call into a layer above) fails the link.
LAYER_LINK_ORDER := boot run machine engine analysis model util
deps_util := util
deps_model := model util
deps_machine := machine model util
deps_run := run machine model util
deps_boot := boot run machine model util
deps_analysis := analysis model util
deps_engine := engine analysis model util
test_layers = $(sort $(shell sed -n 's|^\#include "\([a-z]*\)/.*|\1|p' tests/unit/$(1).c))
test_libs = $(foreach l,$(LAYER_LINK_ORDER),$(if $(filter $(l),$(foreach x,$(call test_layers,$(1)),$(deps_$(x)))),$(BUILD)/host/lib$(l).a))

define layer_archive
$(BUILD)/host/lib$(1).a: $(filter $(BUILD)/host/$(1)/%,$(HOST_LIB_OBJS))
	$$(Q)rm -f $$@ && ar rcs $$@ $$^
endef
$(foreach l,$(filter-out cmd,$(LAYERS)),$(eval $(call layer_archive,$(l))))

define unit_test
$(BUILD)/host/tests/$(1): $(BUILD)/host/tests/$(1).o $(call test_libs,$(1))
	$$(QUIET_LINK)$$(CC) $$(CFLAGS) $$(SAN_FLAGS) -o $$@ $$^ $$(HOST_LIBS) -lcmocka
endef
$(foreach t,$(UNIT_SRCS:tests/unit/%.c=%),$(eval $(call unit_test,$(t))))

# libFuzzer targets (clang): the parsers of what a guest or a user writes
$(BUILD)/fuzz/obj/%.o: agent/src/%.c | $(BUILD)/.packages-test
	@mkdir -p $(@D)
	$(QUIET_CC)$(FUZZ_CC) $(FUZZ_FLAGS) -MMD -MP -fsanitize=fuzzer-no-link -c -o $@ $<

$(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz.h $(FUZZ_OBJS)
	@mkdir -p $(@D)
	$(QUIET_LINK)$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJS) $(HOST_LIBS)

fuzz-targets: $(FUZZ_BINS)

fuzz: $(FUZZ_BINS)
	$(Q)tests/fuzz/run $(FUZZ_TIME) $(FUZZ_BINS)

fuzz-smoke: $(FUZZ_BINS)
	$(Q)tests/fuzz/run smoke $(FUZZ_BINS)

# test tools that are not unit tests
$(BUILD)/host/tools/%: tests/host/%.c | $(BUILD)/.packages-build
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) -std=gnu11 $(WARN) $(CFLAGS) $(SAN_FLAGS) -o $@ $< -lext2fs -lcom_err

host-tools: $(BUILD)/host/tools/mkhostile $(BUILD)/plain/host/fsagent $(BUILD)/plain/host/replay/fuzz-patch
# the host binary without sanitizers, for valgrind: what happens inside libjansson is invisible to ASan
$(BUILD)/plain/host/fsagent: FORCE
	$(Q)$(MAKE) -s SANITIZE= BUILD=$(BUILD)/plain CFLAGS='$(CFLAGS)' $@
# a fuzz target's harness with a main that replays its inputs (tests/fuzz/replay.c), plain for valgrind too
$(BUILD)/host/replay/%: tests/fuzz/%.c tests/fuzz/replay.c tests/fuzz/fuzz.h $(HOST_LIB_OBJS)
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -o $@ $< tests/fuzz/replay.c $(HOST_LIB_OBJS) $(HOST_LIBS)
$(BUILD)/plain/host/replay/%: FORCE
	$(Q)$(MAKE) -s SANITIZE= BUILD=$(BUILD)/plain CFLAGS='$(CFLAGS)' $@
# the bisection simulation links the analysis layer, optimised, without sanitizers: it runs 20,000 bisections
$(BUILD)/host/tools/bisect-sim: tests/host/bisect-sim.c agent/src/analysis/bisect.c agent/src/analysis/bisect.h | $(BUILD)/.packages-build
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) -std=gnu11 $(WARN) -O2 -g -D_GNU_SOURCE -Iagent/src -o $@ tests/host/bisect-sim.c \
		agent/src/analysis/bisect.c -lm

$(BUILD)/host/tools/schedule-sim: tests/host/schedule-sim.c agent/src/model/schedule.c agent/src/model/schedule.h | $(BUILD)/.packages-build
	@mkdir -p $(@D)
	$(QUIET_LINK)$(CC) -std=gnu11 $(WARN) -O2 -g -D_GNU_SOURCE -Iagent/src -o $@ tests/host/schedule-sim.c \
		agent/src/model/schedule.c

unit: $(UNIT_BINS) $(BUILD)/host/fsagent
	$(Q)tests/run-unit $(UNIT_BINS)

vmtest: $(BUILD)/fsagent $(BUILD)/host/fsagent | $(BUILD)/.packages-test
	$(Q)tests/vm/run

lint: | $(BUILD)/.packages-test
	$(Q)tests/lint-layers
	$(Q)tests/lint-format
	$(Q)cppcheck --quiet --enable=warning,performance,portability --error-exitcode=1 \
		--inline-suppr -D_GNU_SOURCE -Iagent/src \
		--library=tests/cppcheck-jansson.cfg agent/src tests/unit tests/host/mkhostile.c tests/host/bisect-sim.c tests/host/schedule-sim.c tests/fuzz
	$(Q)shellcheck scripts/install-packages scripts/build-deps scripts/build-kernel scripts/debian-kernel \
		scripts/debian-mirror scripts/fsagent-qemu scripts/fsagent-qualify scripts/fsagent-bisect scripts/lib/*.sh image/build image/build-fstests image/customize image/cloud-disk image/mkinitramfs \
		tests/run-unit tests/vm/*.sh tests/check tests/vm/run tests/vm/cases/* tests/host/run tests/host/lib.sh \
		tests/host/cases/* tests/kconfig/run tests/fixtures/*.sh tests/fixtures/capture tests/fixtures/capture-kmsg \
		tests/bench/* tests/fuzz/run tests/lint-layers tests/lint-format .ci/run
	$(Q)shellcheck -s sh tests/fake-fstests/check tests/fake-fstests/common/preamble tests/fake-fstests/common/rate tests/fake-fstests/configure

check: $(BUILD)/.packages-test
	$(Q)tests/check

FSTESTS_HINT = set FSTESTS= to fstests' source, a checkout or a git URL (git clone https://git.kernel.org/pub/scm/fs/xfs/xfstests-dev.git)
IMAGE_ARGS = $(if $(XFSPROGS),--xfsprogs $(XFSPROGS)) $(if $(E2FSPROGS),--e2fsprogs $(E2FSPROGS)) \
	$(if $(BTRFS_PROGS),--btrfs-progs $(BTRFS_PROGS)) $(foreach k,$(KERNELS),--kernel $(k)) $(FSTESTS)

image: $(BUILD)/fsagent
	$(Q)test -n "$(FSTESTS)" || { echo "make image: $(FSTESTS_HINT)" >&2; exit 2; }
	$(Q)scripts/install-packages $(PKG_INSTALL) image
	$(Q)image/build $(IMAGE_ARGS)

# the main job: the image when missing or stale, then a run under QEMU and its report
RUN ?= -c xfs/4k -g quick
run: $(BUILD)/fsagent
	$(Q)test -n "$(FSTESTS)" || { echo "make run: $(FSTESTS_HINT)" >&2; exit 2; }
	$(Q)scripts/install-packages $(PKG_INSTALL) image
	$(Q)image/build --if-stale $(IMAGE_ARGS)
	$(Q)scripts/fsagent-qemu $(RUN)

bench: $(BUILD)/fsagent $(BUILD)/host/fsagent $(BUILD)/host/tools/bisect-sim $(BUILD)/host/tools/schedule-sim | $(BUILD)/.packages-test
	$(Q)tests/bench/run
	$(Q)tests/bench/run-overhead
	$(Q)tests/bench/run-memory
	$(Q)tests/bench/image
	$(Q)tests/bench/eta
	$(Q)tests/bench/compare
	$(Q)tests/bench/qualify
	$(Q)tests/bench/bisect
	$(Q)tests/bench/watch
	$(Q)tests/bench/coverage
	$(Q)tests/bench/extract
	$(Q)tests/bench/parallel

clean:
	rm -rf $(BUILD)/agent $(BUILD)/host $(BUILD)/fsagent $(BUILD)/fsagent.debug $(BUILD)/vm

distclean:
	rm -rf $(BUILD)

-include $(AGENT_OBJS:.o=.d) $(HOST_OBJS:.o=.d) $(UNIT_BINS:=.d) $(FUZZ_OBJS:.o=.d)
