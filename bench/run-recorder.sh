#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Issue 7 part 1: recorder/ against the bare encoder, on the host.
#
# Builds a release build (no sanitizers), generates 60 distinct synthetic
# XRGB8888 frames per resolution on tmpfs, then runs ROUNDS times, per
# resolution, in a rotating order:
#   recorder    bench/recorder/recorder-bench: wbc_recorder_create -> submit
#               -> worker -> libyuv -> libx264 -> matroska file on tmpfs
#   bare        bench/recorder/bare-loop: libyuv + send/receive + same
#               muxer to the same tmpfs, one loop thread, no queue
#   ffmpeg      the ffmpeg CLI on the raw frames file (via child-rusage,
#               wait4 rusage); -stream_loop cycles the 60 frames, and
#               -pix_fmt yuv420p is added: without it ffmpeg picks yuv444p
#               for bgr0 input, i.e. encodes twice the chroma
#   ffmpeg-601  the same, with recorder/'s matrix, range and tags: BT.601,
#               limited range, bilinear, tagged smpte170m / bt709 primaries /
#               sRGB / centred chroma (the CLI's default also converts with
#               BT.601, bicubic, but tags nothing, which players take for
#               BT.709 at these sizes: a colour shift). The CLI converts with
#               libswscale, recorder/ with libyuv (2026-12-06; until then
#               recorder/ used libswscale with BT.709, as ffmpeg-709 did)
# Optional extra rows (EXTRA_VARIANTS="bare-nomux ffmpeg-444"):
#   bare-nomux  bare-loop --no-mux: packets discarded, no muxer
#   ffmpeg-444  the ffmpeg command without -pix_fmt yuv420p (yuv444p)
# All with libx264 preset=ultrafast tune=zerolatency threads=$THREADS and
# $COUNT frames. Prints a markdown table and writes
# bench/results/recorder-<date>.json.
#
# Exits non-zero only if the build or a run is broken, never because of a
# figure. Environment: ROUNDS (5), COUNT (600), THREADS (2),
# SIZES ("1280x720 1920x1080"), EXTRA_VARIANTS (""), BENCH_BUILD (build-bench),
# BENCH_TMP (/dev/shm).
set -u -o pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${ROUNDS:-5}
COUNT=${COUNT:-600}
THREADS=${THREADS:-2}
SIZES=${SIZES:-"1280x720 1920x1080"}
POOL=60
TMPBASE=${BENCH_TMP:-/dev/shm}
RESULTS=$ROOT/bench/results
STAMP=$(date +%Y%m%d-%H%M%S)

die() { echo "run-recorder: $*" >&2; exit 1; }
log() { echo "run-recorder: $*" >&2; }

for p in meson ninja ffmpeg ffprobe python3; do
	command -v "$p" >/dev/null || die "$p not found"
done
ENCODERS=$(ffmpeg -hide_banner -encoders 2>/dev/null)
grep -q ' libx264 ' <<<"$ENCODERS" ||
	die "ffmpeg has no libx264 encoder"

# ---- build ---------------------------------------------------------------

setup_build() { # SRC BUILD
	if [ -d "$2/meson-private" ]; then
		meson configure "$2" -Dbuildtype=release -Db_sanitize=none >&2
	else
		meson setup "$2" "$1" -Dbuildtype=release -Db_sanitize=none >&2
	fi
}

TARGETS="bench/recorder/recorder-bench bench/recorder/bare-loop bench/recorder/gen-frames bench/recorder/child-rusage bench/recorder/sws-bench"
BUILD=${BENCH_BUILD:-$ROOT/build-bench}
setup_build "$ROOT" "$BUILD" && ninja -C "$BUILD" $TARGETS >&2 || die "the build failed ($BUILD)"
B=$BUILD/bench/recorder
BUILDTYPE=$(meson introspect --buildoptions "$BUILD" 2>/dev/null | python3 -c \
	'import json,sys; o={x["name"]:x["value"] for x in json.load(sys.stdin)}; print(o.get("buildtype","?"), o.get("b_sanitize","?"))' 2>/dev/null || echo "? ?")
log "build: $BUILD (buildtype/b_sanitize: $BUILDTYPE)"

# ---- frames ----------------------------------------------------------------

WORK=$(mktemp -d "$TMPBASE/wbc-bench.XXXXXX") || die "cannot create a directory in $TMPBASE"
trap 'rm -rf "$WORK"' EXIT
RUNS=$WORK/runs.jsonl
: >"$RUNS"
for s in $SIZES; do
	"$B/gen-frames" "$s" "$POOL" "$WORK/frames-$s.raw" || die "gen-frames $s failed"
done
LOOPS=$(( (COUNT + POOL - 1) / POOL - 1 ))

# ---- one run -----------------------------------------------------------------

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
# "busy total" jiffies of all CPUs (busy = total - idle - iowait)
cpustat() { awk '/^cpu /{t=0; for(i=2;i<=NF;i++) t+=$i; print t-$5-$6, t}' /proc/stat; }

cmd_for() { # VARIANT SIZE OUT
	local f=$WORK/frames-$2.raw
	local FFIN="-nostdin -hide_banner -loglevel error -y -f rawvideo -pix_fmt bgr0 -s $2 -r 60 -stream_loop $LOOPS"
	case $1 in
	recorder) echo "$B/recorder-bench --frames $f --size $2 --count $COUNT --threads $THREADS --output $3" ;;
	bare) echo "$B/bare-loop --frames $f --size $2 --count $COUNT --threads $THREADS --output $3" ;;
	bare-nomux) echo "$B/bare-loop --frames $f --size $2 --count $COUNT --threads $THREADS --no-mux" ;;
	ffmpeg) echo "$B/child-rusage -- ffmpeg $FFIN -i $f -c:v libx264 -preset ultrafast -tune zerolatency -threads $THREADS -pix_fmt yuv420p -frames:v $COUNT -f matroska $3" ;;
	ffmpeg-601) echo "$B/child-rusage -- ffmpeg $FFIN -i $f -vf scale=out_color_matrix=bt601:out_range=tv:flags=bilinear,format=yuv420p -colorspace smpte170m -color_primaries bt709 -color_trc iec61966-2-1 -chroma_sample_location center -c:v libx264 -preset ultrafast -tune zerolatency -threads $THREADS -frames:v $COUNT -f matroska $3" ;;
	ffmpeg-444) echo "$B/child-rusage -- ffmpeg $FFIN -i $f -c:v libx264 -preset ultrafast -tune zerolatency -threads $THREADS -frames:v $COUNT -f matroska $3" ;;
	esac
}

FAILED=0
run_one() { # VARIANT SIZE ROUND CHECK(0/1)
	local v=$1 s=$2 r=$3 check=$4 out=$WORK/out-$1.mkv line rc lb la cb ca probe="null" sei=""
	rm -f "$out"
	lb=$(loadavg); cb=$(cpustat)
	line=$($(cmd_for "$v" "$s" "$out") 2>"$WORK/stderr-$v-$s-$r.log")
	rc=$?
	ca=$(cpustat); la=$(loadavg)
	case $line in \{*\}) ;; *) line=null ;; esac
	if [ "$rc" != 0 ] || [ "$line" = null ]; then
		log "FAILED: $v $s round $r (exit $rc):"
		tail -5 "$WORK/stderr-$v-$s-$r.log" >&2
		FAILED=1
	fi
	if [ "$check" = 1 ] && [ -s "$out" ]; then
		probe=$(ffprobe -v error -count_packets -select_streams v:0 -show_entries \
			stream=codec_name,width,height,pix_fmt,nb_read_packets,color_space,color_range \
			-of json=compact=1 "$out" 2>/dev/null | tr -d '\n') || probe=null
		[ -n "$probe" ] || probe=null
		sei=$(LC_ALL=C grep -a -o -m1 'x264 - core[ -~]*' "$out" | head -1)
	fi
	[ -z "$line" ] && line=null
	python3 -c 'import json,sys; print(json.dumps(dict(variant=sys.argv[1], size=sys.argv[2],
round=int(sys.argv[3]), exit=int(sys.argv[4]), load_before=sys.argv[5], load_after=sys.argv[6],
cpustat_before=sys.argv[7], cpustat_after=sys.argv[8], result=json.loads(sys.argv[9]),
ffprobe=json.loads(sys.argv[10]), x264_sei=sys.argv[11], output_bytes=int(sys.argv[12]))))' \
		"$v" "$s" "$r" "$rc" "$lb" "$la" "$cb" "$ca" "$line" "$probe" "$sei" \
		"$(stat -c %s "$out" 2>/dev/null || echo 0)" >>"$RUNS" ||
		{ log "cannot record $v $s round $r"; FAILED=1; }
	printf '  %-10s %-9s round %s: %s\n' "$v" "$s" "$r" \
		"$(python3 "$ROOT/bench/recorder/summarize.py" --line "$COUNT" "$line")" >&2
	rm -f "$out"
}

VARIANTS=(recorder bare ffmpeg ffmpeg-601 ${EXTRA_VARIANTS:-})
START_LOAD=$(loadavg); START_UPTIME=$(uptime)
log "load average at start: $START_LOAD; $COUNT frames, $ROUNDS rounds, x264 threads=$THREADS"

# Warm-up (not recorded): page cache, dynamic linking, CPU frequency.
for s in $SIZES; do
	for v in "${VARIANTS[@]}"; do
		c=$(cmd_for "$v" "$s" "$WORK/warm.mkv")
		c=${c//--count $COUNT/--count $POOL}
		c=${c//-frames:v $COUNT/-frames:v $POOL}
		$c >/dev/null 2>"$WORK/warmup.log" || { cat "$WORK/warmup.log" >&2; die "warm-up $v $s failed"; }
	done
done
rm -f "$WORK/warm.mkv"

T0=$(date +%s)
for r in $(seq 1 "$ROUNDS"); do
	for s in $SIZES; do
		n=${#VARIANTS[@]}
		for k in $(seq 0 $((n - 1))); do
			run_one "${VARIANTS[$(( (k + r - 1) % n ))]}" "$s" "$r" $([ "$r" = 1 ] && echo 1 || echo 0)
		done
	done
done
T1=$(date +%s)

# Diagnostics (not in the table): the conversion step alone, recorder's
# settings and alternatives, SWS_COUNT frames per variant.
SWS=$WORK/sws.jsonl
: >"$SWS"
for s in $SIZES; do
	lb=$(loadavg)
	"$B/sws-bench" --frames "$WORK/frames-$s.raw" --size "$s" --count "${SWS_COUNT:-120}" \
		--threads "$THREADS" >>"$SWS" 2>"$WORK/sws-$s.log" ||
		{ log "sws-bench $s failed:"; tail -3 "$WORK/sws-$s.log" >&2; FAILED=1; }
	log "sws-bench $s done (load before: $lb, after: $(loadavg))"
done
END_LOAD=$(loadavg); END_UPTIME=$(uptime)

# ---- summary ---------------------------------------------------------------

mkdir -p "$RESULTS" || die "cannot create $RESULTS"
OUT=$RESULTS/recorder-$STAMP.json
META=$(python3 -c 'import json,sys; print(json.dumps(dict(zip(sys.argv[1::2], sys.argv[2::2]))))' \
	date "$(date -Iseconds)" host "$(uname -n)" kernel "$(uname -r)" \
	cpu "$(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo)" nproc "$(nproc)" \
	ffmpeg "$(ffmpeg -version 2>/dev/null | head -1)" \
	libs "$(pkg-config --modversion libavcodec libavformat libswscale libavutil 2>/dev/null | tr '\n' ' ')" \
	build_dir "$BUILD" buildtype_sanitize "$BUILDTYPE" \
	git_head "$(git -C "$ROOT" rev-parse HEAD 2>/dev/null)" \
	recorder_dirty "$(git -C "$ROOT" status --short -- recorder include 2>/dev/null | tr '\n' ';')" \
	count "$COUNT" pool_frames "$POOL" rounds "$ROUNDS" threads "$THREADS" sizes "$SIZES" \
	load_start "$START_LOAD" load_end "$END_LOAD" uptime_start "$START_UPTIME" uptime_end "$END_UPTIME" \
	measure_seconds "$((T1 - T0))" \
	ffmpeg_cmd "$(cmd_for ffmpeg WxH /dev/shm/out.mkv | sed "s|$WORK|\$WORK|g")" \
	recorder_cmd "$(cmd_for recorder WxH /dev/shm/out.mkv | sed "s|$WORK|\$WORK|g")" \
	bare_cmd "$(cmd_for bare WxH /dev/shm/out.mkv | sed "s|$WORK|\$WORK|g")")
python3 "$ROOT/bench/recorder/summarize.py" "$RUNS" "$OUT" "$META" "$SWS" ||
	{ log "summarize.py failed"; cp "$RUNS" "$RESULTS/recorder-$STAMP.runs.jsonl"; FAILED=1; }
log "results: $OUT"
[ "$FAILED" = 0 ] || die "some runs failed (see above)"
