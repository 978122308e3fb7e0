#!/bin/bash
# SPDX-License-Identifier: MIT
# Helpers for fsagent's QEMU boot tests (util-linux ts_* style): fetch and
# unpack Debian's kernel without installing it, build a small initramfs with
# fsagent as /init and the modules it loads, make disks without root, boot
# under QEMU (TCG unless KVM really works) and read results back without root.
# Sourced by tests/vm/cases/*; each case prints "PASS name", "FAIL name: why"
# or "SKIP name: reason" lines and exits 0 / 1 / 77.

set -u

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=scripts/lib/accel.sh
. "$TOP/scripts/lib/accel.sh"
BUILD=$TOP/build
CACHE=$BUILD/cache
FSAGENT=${FSAGENT:-$BUILD/fsagent}
HOSTAGENT=${HOSTAGENT:-$BUILD/host/fsagent}
VM_TIMEOUT=${VM_TIMEOUT:-300}

ts_failed=0
ts_passed=0

ts_init() {
	TS_NAME=$1
	TS_DIR=$BUILD/vm/$TS_NAME
	rm -rf "$TS_DIR"
	mkdir -p "$TS_DIR"
}

ts_pass() { echo "PASS $TS_NAME: $*"; ts_passed=$((ts_passed + 1)); }
ts_fail() { echo "FAIL $TS_NAME: $*"; ts_failed=$((ts_failed + 1)); }
# ts_skip REASON: only what the project cannot provide may skip: the shared
# test kernel, a gcov kernel, root. Anything else (a package, the image, the
# Debian kernel) is the project's to install or build, so its absence fails.
ts_skip() {
	case $* in
	*"shared test kernel"* | *"gcov kernel"* | *"need root"* | *"needs root"* | *"Slurm cannot start here"*)
		echo "SKIP $TS_NAME: $*"
		exit 77
		;;
	esac
	echo "FAIL $TS_NAME: cannot run: $* (the project's own files install or build this)"
	echo "$TS_NAME: $ts_passed passed, $((ts_failed + 1)) failed"
	exit 1
}

# ts_check DESCRIPTION COMMAND...: one assertion
ts_check() {
	local what=$1
	shift
	if "$@" >/dev/null 2>&1; then ts_pass "$what"; else ts_fail "$what"; fi
}

ts_finalize() {
	echo "$TS_NAME: $ts_passed passed, $ts_failed failed"
	[ "$ts_failed" -eq 0 ]
}

# Debian's kernel image package, unpacked by scripts/debian-kernel under
# $CACHE/debian-kernel. Sets KDIR (that layout), KVER and VMLINUZ.
vm_debian_kernel() {
	KDIR=$CACHE/debian-kernel
	KVER=$("$TOP/scripts/debian-kernel" "$KDIR" 2>/dev/null | tail -n 1) || ts_skip "no Debian kernel package (scripts/debian-kernel failed)"
	[ -n "$KVER" ] || ts_skip "no Debian kernel package"
	# shellcheck disable=SC2034 # used by the cases that source this file
	VMLINUZ=$KDIR/vmlinuz
}

# vm_initramfs OUT MODULE...: fsagent as /init plus MODULEs and dependencies,
# plus the contents of $VM_EXTRA_TREE when set.
vm_initramfs() {
	local out=$1
	shift
	"$TOP/image/mkinitramfs" ${VM_EXTRA_TREE:+--extra "$VM_EXTRA_TREE"} "$KDIR" "$FSAGENT" "$out" "$@"
}

# The accelerator (scripts/lib/accel.sh): KVM only when a guest of this
# kernel really boots with it, probed once per host boot.
vm_accel() { # vm_accel KERNEL
	accel_pick "$1" "$TOP/build/vm"
}

# vm_boot CONSOLE_LOG QEMU_ARGS...: boot and wait for QEMU to exit by itself.
# A reboot ends QEMU too, unless VM_REBOOT=1: then the guest resets in the
# same QEMU, RAM (and what ramoops kept in it) intact. Returns QEMU's exit
# status (124 on timeout).
vm_boot() {
	local log=$1 accel noreboot=-no-reboot kernel="" prev="" a
	shift
	for a in "$@"; do
		[ "$prev" = -kernel ] && kernel=$a
		prev=$a
	done
	accel=$(vm_accel "$kernel")
	[ "${VM_REBOOT:-0}" = 1 ] && noreboot=
	timeout "$VM_TIMEOUT" qemu-system-x86_64 -accel "$accel" -cpu max -smp 2 \
		-display none $noreboot -no-user-config -nodefaults -serial "file:$log" \
		"$@" </dev/null >"$log.qemu" 2>&1
}

# vm_boot_kill LOG PATTERN COUNT QEMU_ARGS...: vm_boot in the background, and
# QEMU killed (a reset as the guest sees it) once its console shows PATTERN
# (grep -E) COUNT times: a kill keyed to what the run reached, not to a
# time. VM_TIMEOUT still bounds the boot. Returns 0 when it was killed so, 1
# when QEMU ended first.
vm_boot_kill() {
	local log=$1 pattern=$2 count=$3 pid
	shift 3
	: >"$log"
	vm_boot "$log" "$@" 2>/dev/null &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		if [ "$(grep -cE "$pattern" "$log" 2>/dev/null)" -ge "$count" ]; then
			pkill -KILL -P "$pid" 2>/dev/null # timeout's child, QEMU
			pkill -KILL -f "serial file:$log" 2>/dev/null
			wait "$pid" 2>/dev/null
			return 0
		fi
		sleep 0.2
	done
	wait "$pid" 2>/dev/null
	return 1
}

# vm_disk_file FILE SIZE: a sparse file
vm_disk_file() { rm -f "$1"; truncate -s "$2" "$1"; }

# vm_results_disk FILE [DIR]: the results disk, made without root
vm_results_disk() {
	local dir=${2:-}
	rm -f "$1"
	if [ -n "$dir" ]; then
		mkfs.ext4 -q -F -L fsagent-results -d "$dir" "$1" 64M
	else
		mkfs.ext4 -q -F -L fsagent-results "$1" 64M
	fi
}

# vm_results_replay FILE: replay the results disk's journal. After a crash
# or reset the newest metadata (a rename that made bundle.json current) may
# be in the journal only, and debugfs reads the disk without replaying it.
vm_results_replay() { e2fsck -E journal_only -y "$1" >/dev/null 2>&1 || true; }

# vm_results_get FILE PATH OUT: read one file back without root
vm_results_get() {
	vm_results_replay "$1"
	debugfs -R "dump $2 $3" "$1" >/dev/null 2>&1 && [ -s "$3" ]
}

# bundle_json BUNDLE: the whole bundle, each iteration's journal folded in as "tests"
bundle_json() { "$HOSTAGENT" report --json - "$1"; }

# vm_results_rdump FILE PATH DIR: read a directory back without root
vm_results_rdump() {
	vm_results_replay "$1"
	debugfs -R "rdump $2 $3" "$1" >/dev/null 2>&1
}

# vm_add_program TREE BINARY...: copy binaries and the shared libraries they
# need (as this host resolves them) into TREE at the same paths.
vm_add_program() {
	local tree=$1 b lib
	shift
	for b in "$@"; do
		mkdir -p "$tree$(dirname "$b")"
		cp -L "$b" "$tree$b"
		for lib in $(ldd "$b" 2>/dev/null | awk '/=> \//{print $3} /^\t\//{print $1}'); do
			mkdir -p "$tree$(dirname "$lib")"
			cp -L "$lib" "$tree$lib"
		done
	done
}

# vm_partitioned_disk FILE: 64 MiB, GPT with two partitions, ext4 (label
# "part-one") on the first, made without root
vm_partitioned_disk() {
	rm -f "$1"
	truncate -s 64M "$1"
	printf 'label: gpt\nstart=2048, size=40960, name=one\nstart=43008, size=40960, name=two\n' |
		sfdisk -q "$1" >/dev/null
	mkfs.ext4 -q -F -L part-one -E offset=$((2048 * 512)) "$1" 20M
}

# vm_fake_fstests_initramfs OUT: fsagent as /init with a busybox userland, the
# fake fstests tree as /root/xfstests, the config catalog, mkfs.xfs,
# mkfs.ext4 and mkfs.btrfs with their libraries: what a run needs, for a kernel that has
# its drivers built in (the shared test kernel).
vm_fake_fstests_initramfs() {
	local t=$TS_DIR/fake-tree bb a e m
	bb=$(command -v busybox) || ts_skip "no busybox"
	command -v mkfs.xfs >/dev/null || ts_skip "no mkfs.xfs"
	rm -rf "$t"
	mkdir -p "$t/bin" "$t/root" "$t/etc/fsagent" "$t/mnt"
	cp "$FSAGENT" "$t/init"
	cp "$bb" "$t/bin/busybox"
	for a in $("$bb" --list); do [ -e "$t/bin/$a" ] || ln -s busybox "$t/bin/$a"; done
	cp -a "$TOP/tests/fake-fstests" "$t/root/xfstests"
	cp -a "$TOP/image/configs" "$t/etc/fsagent/configs"
	vm_add_program "$t" "$(command -v mkfs.xfs)" "$(command -v mke2fs)"
	for e in ext2 ext3 ext4; do ln -sf mke2fs "$t$(dirname "$(command -v mke2fs)")/mkfs.$e"; done
	# the other local filesystems' tools, where installed (scripts/install-packages test)
	for m in mkfs.vfat mkfs.f2fs mkfs.exfat mkfs.udf; do
		! command -v "$m" >/dev/null || vm_add_program "$t" "$(command -v "$m")"
	done
	# btrfs configs, where btrfs-progs is installed (scripts/install-packages test)
	! command -v mkfs.btrfs >/dev/null || vm_add_program "$t" "$(command -v mkfs.btrfs)"
	(cd "$t" && find . -print0 | cpio --null -o -H newc --owner=0:0 --quiet) >"$1"
}

# vm_testvm_kernel: the shared lockdep test kernel, or skip
vm_testvm_kernel() {
	TESTVM_KERNEL=${FSAGENT_TESTVM_KERNEL:-$TOP/../shared/kernels/bzImage-6.1-testvm}
	[ -f "$TESTVM_KERNEL" ] || ts_skip "no shared test kernel ($TESTVM_KERNEL)"
}

# vm_gcov_kernel: a gcov kernel (CONFIG_GCOV_KERNEL, .gcno files under obj/) in GCOV_KERNEL:
# FSAGENT_GCOV_KERNEL, else build/gcov-kernel (scripts/build-kernel -f base,gcov), else the shared
# one (../shared/kernels/gcov-6.1), or skip
vm_gcov_kernel() {
	local k
	for k in ${FSAGENT_GCOV_KERNEL:-"$BUILD/gcov-kernel" "$TOP/../shared/kernels/gcov-6.1"}; do
		if [ -f "$k/vmlinuz" ] && grep -qx 'CONFIG_GCOV_KERNEL=y' "$k/config" 2>/dev/null; then
			# shellcheck disable=SC2034 # the caller's
			GCOV_KERNEL=$k
			return 0
		fi
	done
	ts_skip "no gcov kernel in ${FSAGENT_GCOV_KERNEL:-$BUILD/gcov-kernel or ../shared/kernels/gcov-6.1} (scripts/build-kernel -f base,gcov --gcov-profile fs/xfs LINUX $BUILD/gcov-kernel)"
}

# browser_text PAGE: the text a real browser renders of an HTML page (headless Chromium prints
# it to PDF, pdftotext -layout reads it back, a table's rows as lines); fails without them
browser_text() {
	local pdf rc
	command -v chromium >/dev/null && command -v pdftotext >/dev/null || return 1
	pdf=$(mktemp --suffix=.pdf)
	timeout 120 chromium --headless --no-sandbox --disable-gpu --no-pdf-header-footer \
		--user-data-dir="$pdf.profile" --print-to-pdf="$pdf" "file://$(realpath "$1")" >/dev/null 2>&1 &&
		pdftotext -layout "$pdf" - | tr -d '\f'
	rc=${PIPESTATUS[0]}
	rm -rf "$pdf" "$pdf.profile"
	return "$rc"
}

# browser_row TEXT FIRST START: the lines of browser_text's table row whose first cell is FIRST, up
# to the next line whose first word matches the regular expression START (a row's first cell),
# whitespace folded
browser_row() {
	awk -v r="$2" -v start="$3" 'on && $1 ~ start { exit } $1 == r { on = 1 } on' "$1" | tr -s ' \n' '  '
}

# browser_row_has TEXT FIRST START TOKEN...: every TOKEN in that row (cells wrap, so each is
# looked for on its own)
browser_row_has() {
	local row t
	row=$(browser_row "$1" "$2" "$3")
	shift 3
	for t in "$@"; do [[ $row == *"$t"* ]] || return 1; done
}
