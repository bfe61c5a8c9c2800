#!/bin/bash
# bench/run-vkms.sh: wbc against cage + wf-recorder on the same VKMS device (issue 7, part 2).
#
#   bench/run-vkms.sh            # the full matrix, one guest boot, ~15-17 min on 2 cores
#
# Builds build-bench (release, no sanitizers) and bench/vkms/cage-mode.so, boots ONE VKMS
# guest (tests/vm/vkms-run, TCG) that runs every session (bench/vkms/guest.sh), then prints
# markdown tables and writes bench/results/vkms-<UTC YYYYMMDD-HHMMSS>.json (bench/vkms/report.py).
# Method, settings and their differences: bench/vkms/README.md.
#
# Environment (defaults = the documented matrix):
#   BENCH_MODES="640x480 1280x720"  BENCH_SECONDS=30  BENCH_RUNS=3
#   BENCH_CONFIGS="wbc-writeback wbc-readback cage-wf-recorder"
#   BENCH_EXTRA_CONFIGS="wbc-display cage-display" BENCH_EXTRA_RUNS=1   (display only)
#   BENCH_FPS=0 (no cap: wf-recorder 0.3 has none)  BENCH_WARMUP=1
#   BENCH_GUEST_TIMEOUT=1500 (s, the whole guest)
# Exit status: 0 with tables (even when some numbers are n/a); 1 when the build is broken
# or no session produced any output; the reason is printed.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=$root/build-bench
die() { echo "run-vkms: $*" >&2; exit 1; }
t_start=$(date +%s)

export BENCH_MODES=${BENCH_MODES:-640x480 1280x720}
export BENCH_SECONDS=${BENCH_SECONDS:-30}
export BENCH_RUNS=${BENCH_RUNS:-3}
export BENCH_CONFIGS=${BENCH_CONFIGS:-wbc-writeback wbc-readback cage-wf-recorder}
export BENCH_EXTRA_CONFIGS=${BENCH_EXTRA_CONFIGS-wbc-display cage-display}
export BENCH_EXTRA_RUNS=${BENCH_EXTRA_RUNS:-1}
export BENCH_FPS=${BENCH_FPS:-0}
export BENCH_WARMUP=${BENCH_WARMUP:-1}
export BENCH_BUILD=$build

# ---- tools ----
missing=()
for t in cage wf-recorder ffprobe qemu-system-x86_64 setpriv python3 meson ninja cc; do
	command -v "$t" >/dev/null || missing+=("$t")
done
if [ ${#missing[@]} -gt 0 ]; then
	pkgs=()
	for t in "${missing[@]}"; do
		case $t in
		cage|wf-recorder) pkgs+=("$t") ;;
		ffprobe) pkgs+=(ffmpeg) ;;
		qemu-system-x86_64) pkgs+=(qemu-system-x86) ;;
		esac
	done
	if [ ${#pkgs[@]} -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "run-vkms: installing ${pkgs[*]}" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y "${pkgs[@]}" >/dev/null ||
			die "apt-get install ${pkgs[*]} failed"
	else
		die "missing: ${missing[*]} (Debian: apt-get install cage wf-recorder ffmpeg qemu-system-x86)"
	fi
fi

# ---- build ----
if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" --buildtype=release >"$root/build-bench.setup.log" 2>&1 ||
		{ tail -20 "$root/build-bench.setup.log" >&2; die "meson setup build-bench failed"; }
	rm -f "$root/build-bench.setup.log"
fi
ninja -C "$build" >"$build/bench-vkms-ninja.log" 2>&1 ||
	{ tail -30 "$build/bench-vkms-ninja.log" >&2; die "the build is broken (ninja -C build-bench)"; }
[ -x "$build/compositor/wbc" ] && [ -x "$build/examples/pattern/wbc-pattern-client" ] ||
	die "build-bench has no compositor/wbc or examples/pattern/wbc-pattern-client"
mkdir -p "$build/bench-vkms"
cc -O2 -Wall -Wextra -shared -fPIC $(pkg-config --cflags wlroots wayland-server) \
	-o "$build/bench-vkms/cage-mode.so" bench/vkms/cage-mode.c -ldl ||
	die "cannot build bench/vkms/cage-mode.c (needs libwlroots-dev)"
# The help first, then grep: under pipefail, grep -q quitting early SIGPIPEs wbc's --help
# (longer than a pipe's first write), which read as "no --record" (2026-12-06).
help=$("$build/compositor/wbc" --help 2>&1)
if ! grep -q -- '--record' <<<"$help"; then
	echo "run-vkms: this wbc has no --record yet: running the display-only sessions" >&2
	BENCH_CONFIGS="wbc-display cage-display cage-wf-recorder" BENCH_EXTRA_CONFIGS=""
	export BENCH_CONFIGS BENCH_EXTRA_CONFIGS
fi

# ---- the guest ----
stamp=$(date -u +%Y%m%d-%H%M%S)
raw=$build/bench-vkms/runs-$stamp
mkdir -p "$raw"
read -r load0 _ </proc/loadavg
echo "run-vkms: one guest boot for everything: modes [$BENCH_MODES], ${BENCH_SECONDS}s x" \
	"$BENCH_RUNS runs of [$BENCH_CONFIGS]${BENCH_EXTRA_CONFIGS:+, $BENCH_EXTRA_RUNS run of [$BENCH_EXTRA_CONFIGS]}" >&2
t_guest=$(date +%s)
# The guest's console (its progress lines) goes to stderr here, and to $raw/guest.log.
tests/vm/vkms-run --timeout "${BENCH_GUEST_TIMEOUT:-1500}" -- bash "$root/bench/vkms/guest.sh" "$raw" \
	2>&1 | tee "$raw/guest.log" >&2
guest_rc=${PIPESTATUS[0]}
t_end_guest=$(date +%s)
read -r load1 _ </proc/loadavg
[ $guest_rc = 0 ] || echo "run-vkms: the guest ended with status $guest_rc (see $raw/guest.log);" \
	"reporting the sessions that completed" >&2

# ---- report ----
# What ran, from the guest's own words: its kernel, and how wbc captured.
kernel_name=$(tests/vm/guest-kernel --list | head -n1)
guest_kernel=$(grep -m1 -ao 'kernel [^;]*' "$raw/guest.log" | cut -d' ' -f2)
wb_how=$(cat "$raw"/*/wbc-writeback/*/compositor.log 2>/dev/null |
	grep -a -m1 -o 'capture: writeback ([^)]*)' || true)
notes=(
	"Command: bench/run-vkms.sh (BENCH_MODES='$BENCH_MODES' BENCH_SECONDS=$BENCH_SECONDS BENCH_RUNS=$BENCH_RUNS BENCH_CONFIGS='$BENCH_CONFIGS' BENCH_EXTRA_CONFIGS='$BENCH_EXTRA_CONFIGS' BENCH_EXTRA_RUNS=$BENCH_EXTRA_RUNS BENCH_FPS=$BENCH_FPS), $(date -u +%Y-%m-%d), one guest boot; guest $((t_end_guest - t_guest)) s wall; host load average ${load0} before, ${load1} after."
	"Guest: Linux $guest_kernel ($kernel_name in tests/vm/guest-kernel) under QEMU TCG (about 20x slower than the host), 2 vCPUs. Whole-guest CPU = user+nice+system+irq+softirq of /proc/stat over the measured window (wbc: APP start to wbc exit; cage: wf-recorder start to its exit, the client already running)."
	"wbc-writeback's capture, as wbc said it: '${wb_how:-no writeback session ran}'; wbc-readback and cage drive Virtual-1. All are one CRTC composing the same client (wbc-pattern-client, fullscreen)."
	"Encoder on both sides: libx264 preset=ultrafast tune=zerolatency crf=23, yuv420p, matroska, no frame-rate cap (wf-recorder 0.3 has no -r). Differences: see bench/vkms/README.md."
	"Capture latency, wbc only (wf-recorder reports nothing comparable): from each recorded frame's vblank time to its pixels being complete (writeback: the out-fence's signal time from the kernel's sync_file; readback: the end of the copy) and to its packet going to the muxer; p50/p99 over the frames of a run (recorder/ histograms, within 3.2 %), medians over runs. The encoder is far slower than real time in the TCG guest, so 'written' is dominated by queueing."
)
[ "$BENCH_SECONDS" != 30 ] || [ "$BENCH_RUNS" != 3 ] &&
	notes+=("Reduced from the issue's 30 s x 3 runs to ${BENCH_SECONDS} s x ${BENCH_RUNS} runs.")
[ -n "$BENCH_EXTRA_CONFIGS" ] && [ "$BENCH_EXTRA_RUNS" != "$BENCH_RUNS" ] &&
	notes+=("The display-only baselines ($BENCH_EXTRA_CONFIGS) ran $BENCH_EXTRA_RUNS time(s) per mode, to stay under 20 minutes.")
json=$root/bench/results/vkms-$stamp.json
note_args=()
for n in "${notes[@]}"; do note_args+=(--note "$n"); done
python3 bench/vkms/report.py "$raw" --json "$json" "${note_args[@]}" \
	--setting "modes=$BENCH_MODES" --setting "seconds=$BENCH_SECONDS" --setting "runs=$BENCH_RUNS" \
	--setting "configs=$BENCH_CONFIGS" --setting "extra_configs=$BENCH_EXTRA_CONFIGS" \
	--setting "extra_runs=$BENCH_EXTRA_RUNS" --setting "fps_cap=$BENCH_FPS" \
	--setting "guest_status=$guest_rc" --setting "guest_wall_s=$((t_end_guest - t_guest))" \
	--setting "wall_s_before_report=$(( $(date +%s) - t_start ))" \
	--setting "host_loadavg_before=$load0" --setting "host_loadavg_after=$load1" \
	--setting "wbc_version=$("$build/compositor/wbc" --version 2>&1 | head -1)" \
	--setting "wbc_sha256=$(sha256sum "$build/compositor/wbc" | cut -c1-16)" \
	--setting "git_head=$(git rev-parse --short HEAD 2>/dev/null) (working tree: $(git status --short -- compositor backend recorder 2>/dev/null | wc -l) files changed under compositor/ backend/ recorder/)" \
	--setting "cage=$(dpkg-query -W -f='${Version}' cage 2>/dev/null)" \
	--setting "wf_recorder=$(dpkg-query -W -f='${Version}' wf-recorder 2>/dev/null)" \
	--setting "wlroots=$(dpkg-query -W -f='${Version}' libwlroots10 2>/dev/null)"
rc=$?
echo "run-vkms: total $(( $(date +%s) - t_start )) s; raw files in $raw" >&2
[ $rc = 0 ] || die "no session produced output (guest status $guest_rc; see $raw/guest.log)"
exit 0
