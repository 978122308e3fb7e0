# SPDX-License-Identifier: MIT
# shellcheck shell=bash disable=SC2154,SC2034 # the launcher's variables, set where it sources this
# scripts/fsagent-qemu's soak over boots: one boot after another, each for at
# most --check-every, each random order seeded from the first, every run
# added to one aggregate (a clean run's bundle then goes), until the
# deadline, the stop file, or a new tag in the watched git repository.
# Sourced by the launcher; uses its results, order, t_end, check_every,
# stop_file, watch_git, work, agent, prog, keep_work, write_plan, make_disks,
# remove_disks, boot_once and die.

soak_tags() { git -C "$watch_git" tag --list | sort; }

# soak_run: returns the worst boot's exit status
soak_run() {
	local soak base_seed k worst why now seg rc new overrides nothing ran
	soak=$results/soak-$(date -u +%Y%m%dT%H%M%SZ)
	mkdir -p "$soak"
	[ -z "$watch_git" ] || soak_tags >"$soak/tags-at-start"
	base_seed=${order#random=}
	[[ $base_seed =~ ^[0-9]+$ ]] || base_seed=$(((RANDOM << 15 | RANDOM) + 1))
	k=0 worst=0 why="" dest="" nothing=0 ran=0
	while :; do
		now=$(date +%s)
		if [ -n "$t_end" ] && [ "$now" -ge "$t_end" ]; then why="deadline"; break; fi
		seg=$check_every
		[ -z "$t_end" ] || [ $((t_end - now)) -ge "$seg" ] || seg=$((t_end - now))
		k=$((k + 1))
		dest=""
		overrides=("soak.duration=$seg")
		# each boot draws its own orders: seeds derived from the first
		case $order in random*) overrides+=("order=random=$((base_seed + k - 1))") ;; esac
		write_plan "${overrides[@]}"
		make_disks
		echo "$prog: soak boot $k for up to ${seg} s"
		boot_once
		rc=$?
		# a boot where nothing ran (4) is no failure; the soak is, when no boot ran anything
		if [ "$rc" = 4 ]; then nothing=$((nothing + 1)); else ran=1; fi
		[ "$rc" = 4 ] || [ "$rc" -le "$worst" ] || worst=$rc
		echo "$k ${dest:+${dest##*/}} rc=$rc" >>"$soak/boots"
		if [ -n "$dest" ] && [ "$rc" != 3 ]; then
			"$agent" aggregate --into "$soak/aggregate.json" "$dest" || die "aggregate of $dest failed"
			# bounded: a clean run lives on in the aggregate only
			[ "$rc" != 0 ] || rm -rf "$dest"
		fi
		if [ -n "$interrupted" ]; then why="SIG$interrupted"; break; fi
		if [ -n "$stop_file" ] && [ -e "$stop_file" ]; then why="stop file"; break; fi
		if [ -n "$watch_git" ] && new=$(soak_tags | comm -13 "$soak/tags-at-start" - | head -n 3 | paste -sd' ') && [ -n "$new" ]; then
			why="new tag in $watch_git: $new"
			break
		fi
	done
	remove_disks
	keep_work=0
	echo "soak: $k boots, stopped by $why; aggregate: $soak/aggregate.json"
	echo "stopped by $why after $k boots" >"$soak/stopped"
	[ "$ran" = 1 ] || [ "$nothing" = 0 ] || worst=4
	return "$worst"
}
