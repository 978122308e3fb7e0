# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# The QEMU accelerator, one probe for scripts/fsagent-qemu and tests/vm:
# KVM only when a guest really boots with it (nested KVM can hang at boot
# while /dev/kvm looks fine), else TCG. Sourced; defines functions only.

# accel_kvm_boots KERNEL LOG: whether a guest of KERNEL gets to its kernel's
# panic (no init given) under KVM within 30 s; its console goes to LOG
accel_kvm_boots() {
	[ -w /dev/kvm ] || return 1
	rm -f "$2"
	# where KVM is broken QEMU may abort, and bash would say so: not to the user
	{ (timeout 30 qemu-system-x86_64 -accel kvm -cpu host -m 256 -nodefaults -display none -no-reboot \
		-kernel "$1" -append "console=ttyS0 panic=-1 rdinit=/fsagent-probe-no-init" \
		-serial "file:$2" </dev/null >/dev/null 2>&1; true); } 2>/dev/null
	# the kernel's own words, not fsagent's: the probe runs no fsagent
	grep -q 'Kernel panic' "$2" 2>/dev/null
}

# accel_pick KERNEL CACHE_DIR: "kvm" or "tcg" for this machine, probed once
# per host boot (the answer is kept in CACHE_DIR, keyed by the boot id);
# FSAGENT_ACCEL overrides
accel_pick() {
	local id cache a
	if [ -n "${FSAGENT_ACCEL:-}" ]; then
		echo "$FSAGENT_ACCEL"
		return
	fi
	id=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo unknown)
	cache=$2/accel-$id
	if [ -f "$cache" ]; then
		cat "$cache"
		return
	fi
	mkdir -p "$2"
	a=tcg
	accel_kvm_boots "$1" "$2/kvm-probe.log" && a=kvm
	echo "$a" >"$cache"
	echo "$a"
}
