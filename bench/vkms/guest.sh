#!/bin/bash
# guest.sh RAW_DIR: the VKMS bench, run inside ONE guest boot (bench/run-vkms.sh boots it
# with tests/vm/vkms-run). For each mode, run and configuration it runs one session and
# leaves its raw figures in RAW_DIR/<mode>/<config>/run<N>/ (on the project share); the
# host side (bench/vkms/report.py) turns them into tables. Settings come from the
# environment (bench/run-vkms.sh passes them):
#   BENCH_MODES     "640x480 1280x720"
#   BENCH_CONFIGS   "wbc-writeback wbc-readback cage-wf-recorder" (also: wbc-display,
#                   cage-display: the same sessions without recording;
#                   wbc-writeback-skip, wbc-writeback-deadline: with
#                   --writeback-pacing skip, deadline)
#   BENCH_SECONDS   recorded seconds per session        BENCH_RUNS  sessions per config
#   BENCH_EXTRA_CONFIGS, BENCH_EXTRA_RUNS  more configs, with their own (smaller) run count
#   BENCH_FPS       frame-rate cap for wbc (--fps; 0: none, like wf-recorder 0.3, which
#                   has no such option)                  BENCH_WARMUP 1: a short unscored
#                                                        session of each config first
# Everything a session writes while it runs goes to the guest's tmpfs (the project share is
# 9p: writing there during a run would cost guest CPU); it is copied over afterwards.
set -u
raw=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BENCH_BUILD:-$root/build-bench}
wbc=$build/compositor/wbc
client=$build/examples/pattern/wbc-pattern-client
shim=$build/bench-vkms/cage-mode.so
modes=${BENCH_MODES:-640x480 1280x720}
configs=${BENCH_CONFIGS:-wbc-writeback wbc-readback cage-wf-recorder}
extra=${BENCH_EXTRA_CONFIGS:-} extra_runs=${BENCH_EXTRA_RUNS:-1}
secs=${BENCH_SECONDS:-30} runs=${BENCH_RUNS:-3} fps=${BENCH_FPS:-0}
# The same encoder settings on both sides (see bench/vkms/README.md for what differs).
codec_opts=(preset=ultrafast tune=zerolatency crf=23)
wbc_rec_args=(--codec libx264)
for o in "${codec_opts[@]}"; do wbc_rec_args+=(--codec-opt "$o"); done
# wf-recorder 0.3 has no frame-rate option: by default neither side is capped (0).
[ "$fps" != 0 ] && wbc_rec_args+=(--fps "$fps")
wbc_rec_args+=(--stats)
wfr_args="-c libx264 -t"   # -t: yuv420p (wf-recorder 0.3 ignores -x for the encoder)
for o in "${codec_opts[@]}"; do wfr_args+=" -p $o"; done
export BENCH_WFR_ARGS=$wfr_args

now() { printf '%s' "$EPOCHREALTIME"; }
cpu() { local l; read -r l </proc/stat; printf '%s' "$l"; }
say() { echo "bench-vkms: $*" >&2; }

# The unprivileged user cage runs as: cage 0.1.4 refuses to start as root ("Unable to drop
# root"). No seatd or logind in the guest: libseat's builtin backend opens the DRM node
# itself, so the node is made accessible; SEATD_VTBOUND=0 keeps it off the VTs.
bench_uid=${BENCH_UID:-1000}
chmod 666 /dev/dri/card0
user_home=/tmp/bench-home user_run=/tmp/bench-run
mkdir -p "$user_home" "$user_run"
chown "$bench_uid:$bench_uid" "$user_home" "$user_run"
chmod 700 "$user_run"
# The X11 socket directory as a Debian system makes it (systemd-tmpfiles: 1777). Without it
# wbc (root, Xwayland offered since stop 29) makes it itself, 0755 as wlroots does, and
# cage 0.1.4 (the bench user) then cannot bind an X socket: "Cannot create XWayland
# server", and its session hung until the watchdog killed it (rc 137, 2026-12-06).
mkdir -p /tmp/.X11-unix
chmod 1777 /tmp/.X11-unix
as_user() { # run in the background: the subshell becomes setpriv, env, then the command
	exec setpriv --reuid="$bench_uid" --regid="$bench_uid" --clear-groups \
		env -u XDG_RUNTIME_DIR HOME="$user_home" XDG_RUNTIME_DIR="$user_run" "$@"
}

# watch_over PID: a session that outlives 4x its length + 2 min is stopped (TERM, then
# KILL) and reported with the status it got; sets $watchdog.
watch_over() {
	local pid=$1 limit=$((secs * 4 + 120))
	( exec {n}<> <(:); read -r -t $limit -u $n _
	  kill -TERM "$pid" 2>/dev/null && echo "watchdog: TERM after ${limit}s" >&2
	  read -r -t 10 -u $n _; kill -KILL "$pid" 2>/dev/null ) &
	watchdog=$!
}

# session MODE CONFIG DIR: one bench session; raw files in DIR (tmpfs).
session() {
	local mode=$1 cfg=$2 d=$3 rc pid
	local w=${mode%x*} h=${mode#*x}
	mkdir -p "$d"; chmod 777 "$d"
	printf 'mode=%s config=%s seconds=%s fps_cap=%s\n' "$mode" "$cfg" "$secs" "$fps" >"$d/meta"
	printf 'wbc_rec_args="%s"\nwfr_args="%s"\n' "${wbc_rec_args[*]}" "$wfr_args" >>"$d/meta"
	idle_check "$d"
	printf 't=%s cpu="%s"\n' "$(now)" "$(cpu)" >"$d/session-start"
	case $cfg in
	wbc-writeback|wbc-writeback-skip|wbc-writeback-deadline|wbc-readback|wbc-display)
		local rec=()
		case $cfg in
		wbc-writeback) rec=(--capture writeback --record "$d/out.mkv" "${wbc_rec_args[@]}") ;;
		wbc-writeback-skip) rec=(--capture writeback --writeback-pacing skip
			--record "$d/out.mkv" "${wbc_rec_args[@]}") ;;
		wbc-writeback-deadline) rec=(--capture writeback --writeback-pacing deadline
			--record "$d/out.mkv" "${wbc_rec_args[@]}") ;;
		wbc-readback) rec=(--capture readback --record "$d/out.mkv" "${wbc_rec_args[@]}") ;;
		esac
		echo "$wbc --mode $mode ${rec[*]} --duration $secs -- ..." >"$d/cmd"
		"$wbc" --mode "$mode" "${rec[@]}" \
			--duration "$secs" -- bash "$here/app.sh" "$d" -- "$client" --print-frames \
			>"$d/compositor.log" 2>&1 &
		pid=$!
		watch_over $pid
		bash "$here/poll.sh" $pid "$d/compositor.poll" &
		wait $pid; rc=$?
		printf 't=%s cpu="%s" rc=%s\n' "$(now)" "$(cpu)" "$rc" >"$d/app-end"
		;;
	cage-wf-recorder|cage-display)
		local record=0
		[ "$cfg" = cage-wf-recorder ] && record=1
		echo "cage -- cage-app.sh (wf-recorder $wfr_args -f out.mkv: $record)" >"$d/cmd"
		as_user LIBSEAT_BACKEND=builtin SEATD_VTBOUND=0 WLR_BACKENDS=drm \
			WLR_RENDERER=pixman WLR_LIBINPUT_NO_DEVICES=1 WLR_XWAYLAND=/bin/true \
			BENCH_CAGE_MODE="$w"x"$h"@60 LD_PRELOAD="$shim" BENCH_WFR_ARGS="$wfr_args" BENCH_WFR_DEBUG="${BENCH_WFR_DEBUG:-0}" \
			cage -- \
			bash "$here/cage-app.sh" "$d" "$secs" "$record" -- "$client" --print-frames \
			>"$d/compositor.log" 2>&1 &
		pid=$!   # setpriv and env exec: this is cage's pid
		watch_over $pid
		bash "$here/poll.sh" $pid "$d/compositor.poll" &
		wait $pid; rc=$?
		;;
	esac
	printf 't=%s cpu="%s" rc=%s\n' "$(now)" "$(cpu)" "$rc" >"$d/session-end"
	kill "$watchdog" 2>/dev/null
	wait   # the pollers and the watchdog
	return 0
}

# idle_check DIR: before a session, how busy the guest is doing nothing (1 s of /proc/stat)
# and what is running: a session must not inherit load from the one before.
idle_check() {
	local a b
	read -r a </proc/stat
	read -r -t 1 -u "$never" _
	read -r b </proc/stat
	printf 'before="%s"\nafter="%s"\n' "$a" "$b" >"$1/idle-check"
	ps -eo pid,ppid,user,stat,time,comm >"$1/ps-before" 2>/dev/null
}
exec {never}<> <(:)

keep() { # DIR DEST: copy a session's files to the share, without the noisy bits
	local d=$1 dest=$2
	mkdir -p "$dest"
	# wlroots logs one "Basic output test failed" per frame while screencopy locks direct
	# scan-out in cage: keep the count, not the lines.
	if [ -f "$d/compositor.log" ]; then
		grep -c 'Basic output test failed' "$d/compositor.log" >"$d/basic-test-failed.count"
		# How wbc captured, from the whole log before it is cut: the method it started
		# with, writeback frames lost, and whether it fell back to readback.
		printf 'method=%s lost=%s stalled=%s\n' \
			"$(grep -a -m1 -o '^wbc: capture: [a-z]*' "$d/compositor.log" | awk '{ print $3 }')" \
			"$(grep -ac 'capture: writeback frame lost' "$d/compositor.log")" \
			"$(grep -ac 'capture: writeback stalled' "$d/compositor.log")" >"$d/capture"
		grep -v 'Basic output test failed' "$d/compositor.log" | tail -300 >"$d/compositor.log.kept"
		mv "$d/compositor.log.kept" "$d/compositor.log"
	fi
	[ -f "$d/client.out" ] && { wc -l <"$d/client.out" >"$d/client.frames"; rm -f "$d/client.out"; }
	cp -r "$d/." "$dest/"
}

say "guest: $(nproc) cpus, kernel $(uname -r); modes: $modes; configs: $configs;" \
	"${secs}s x $runs runs; wbc: $("$wbc" --version 2>&1 | head -1)"
start=$(now)
mkdir -p "$raw"
if [ "${BENCH_WARMUP:-1}" = 1 ]; then
	# Unscored: loads every binary and library once (the first exec of each over 9p
	# under TCG is slow) so the scored sessions all start from a warm page cache.
	for cfg in $configs $extra; do
		t0=$(now)
		secs_saved=$secs; secs=3
		session "${modes%% *}" "$cfg" "/tmp/bench/warmup/$cfg"
		secs=$secs_saved
		keep "/tmp/bench/warmup/$cfg" "$raw/warmup/$cfg"
		say "warm-up $cfg: $(awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.0f", b-a}') s"
	done
fi
for mode in $modes; do
	maxr=$runs; [ -n "$extra" ] && [ "$extra_runs" -gt "$maxr" ] && maxr=$extra_runs
	for r in $(seq "$maxr"); do
		list=""
		[ "$r" -le "$runs" ] && list=$configs
		[ "$r" -le "$extra_runs" ] && list="$list $extra"
		for cfg in $list; do
			t0=$(now)
			d=/tmp/bench/$mode/$cfg/run$r
			session "$mode" "$cfg" "$d"
			keep "$d" "$raw/$mode/$cfg/run$r"
			rm -rf "$d"
			say "$mode $cfg run $r: $(awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.0f", b-a}') s wall" \
				"(guest total $(awk -v a="$start" -v b="$(now)" 'BEGIN{printf "%.0f", b-a}') s)"
		done
	done
done
printf 'guest_seconds=%s\n' "$(awk -v a="$start" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}')" \
	>"$raw/guest-done"
exit 0
