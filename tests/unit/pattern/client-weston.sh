#!/bin/sh
# Run wbc-pattern-client against a real compositor: weston's headless
# backend.  Usage: client-weston.sh PATH/TO/wbc-pattern-client
#
# Checks:
#   1. --frames 30 --print-frames exits 0 and prints "frame 0".."frame 29"
#   2. --static --duration 1 --print-frames exits 0 after exactly one frame
#   3. --fps-log --duration 2.5 prints two "fps N total M" lines, exits 0
#   4. no compositor: exits non-zero with one "wbc-pattern-client: ..." line
#   5. compositor killed while the client runs: same
#   6. --margin out of range: exits non-zero with one line naming the option
# Every step is bounded by timeout(1); weston is always killed at the end.
# If weston cannot run here the test FAILS, saying why.
# (Not tested under --shell=kiosk-shell.so: weston 10's kiosk-shell on the
# headless backend sends no frame callbacks at all, not even to
# weston-simple-shm, so a frame-paced client cannot get past frame 0 there.)
set -u

client=${1:?usage: client-weston.sh PATH/TO/wbc-pattern-client}
fails=0
passes=0
weston_pid=

die() {
	echo "FAIL: $*" >&2
	exit 1
}

command -v weston >/dev/null 2>&1 ||
	die "weston is not installed (apt-get install weston): cannot run the client test"
command -v timeout >/dev/null 2>&1 || die "timeout(1) not found"
[ -x "$client" ] || die "client '$client' is not executable"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/wbc-pattern-test.XXXXXX") || die "mktemp failed"
chmod 0700 "$tmp"
XDG_RUNTIME_DIR=$tmp
export XDG_RUNTIME_DIR
unset WAYLAND_SOCKET DISPLAY

stop_weston() {
	if [ -n "$weston_pid" ]; then
		kill "$weston_pid" 2>/dev/null
		i=0
		while kill -0 "$weston_pid" 2>/dev/null && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		kill -9 "$weston_pid" 2>/dev/null
		wait "$weston_pid" 2>/dev/null
		weston_pid=
	fi
}

cleanup() {
	stop_weston
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start_weston SOCKET [extra weston args...]
start_weston() {
	sock=$1
	shift
	log=$tmp/$sock.log
	timeout -k 5 120 weston --backend=headless-backend.so --socket="$sock" \
		--width=640 --height=480 --idle-time=0 "$@" >"$log" 2>&1 &
	weston_pid=$!
	i=0
	while [ ! -S "$tmp/$sock" ]; do
		if ! kill -0 "$weston_pid" 2>/dev/null; then
			weston_pid=
			echo "--- weston log ---" >&2
			tail -n 30 "$log" >&2
			die "weston headless could not start here (see log above)"
		fi
		i=$((i + 1))
		[ $i -le 100 ] || die "weston headless did not create its socket within 10 s"
		sleep 0.1
	done
	WAYLAND_DISPLAY=$sock
	export WAYLAND_DISPLAY
}

ok() {
	echo "ok - $*"
	passes=$((passes + 1))
}

not_ok() {
	echo "not ok - $*"
	fails=$((fails + 1))
}

expect_frames() { # FILE N: FILE holds exactly "frame 0".."frame N-1"
	i=0
	while [ $i -lt "$2" ]; do
		echo "frame $i"
		i=$((i + 1))
	done >"$tmp/expected"
	cmp -s "$1" "$tmp/expected"
}

# ---- 1. --frames 30 -------------------------------------------------------
start_weston "wbc-test-$$"
timeout -k 2 30 "$client" --frames 30 --print-frames --duration 20 \
	>"$tmp/out1" 2>"$tmp/err1"
rc=$?
if [ $rc -eq 0 ] && expect_frames "$tmp/out1" 30; then
	ok "--frames 30 exits 0 and prints frame 0..29 in order"
else
	not_ok "--frames 30: rc=$rc, $(wc -l <"$tmp/out1") stdout lines"
	head -n 5 "$tmp/out1" "$tmp/err1" >&2
fi

# ---- 2. --static ----------------------------------------------------------
timeout -k 2 10 "$client" --static --duration 1 --print-frames \
	>"$tmp/out2" 2>"$tmp/err2"
rc=$?
if [ $rc -eq 0 ] && expect_frames "$tmp/out2" 1; then
	ok "--static --duration 1 exits 0 after exactly one frame"
else
	not_ok "--static: rc=$rc, stdout: $(tr '\n' ' ' <"$tmp/out2")"
	cat "$tmp/err2" >&2
fi

# ---- 3. --fps-log -----------------------------------------------------------
timeout -k 2 10 "$client" --fps-log --duration 2.5 >"$tmp/out6" 2>"$tmp/err6"
rc=$?
nfps=$(grep -c '^fps [1-9][0-9]* total [1-9][0-9]*$' "$tmp/out6")
if [ $rc -eq 0 ] && [ "$nfps" -eq 2 ] && [ "$(wc -l <"$tmp/out6")" -eq 2 ]; then
	ok "--fps-log --duration 2.5: $(tr '\n' ';' <"$tmp/out6")"
else
	not_ok "--fps-log: rc=$rc, stdout: $(tr '\n' ';' <"$tmp/out6")"
	cat "$tmp/err6" >&2
fi

# ---- 5. compositor dies under the client ----------------------------------
timeout -k 2 20 "$client" --static >"$tmp/out5" 2>"$tmp/err5" &
cpid=$!
sleep 1
stop_weston
wait "$cpid"
rc=$?
if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$(wc -l <"$tmp/err5")" -eq 1 ] &&
	grep -q '^wbc-pattern-client: ' "$tmp/err5"; then
	ok "lost connection: rc=$rc, '$(cat "$tmp/err5")'"
else
	not_ok "lost connection: rc=$rc, stderr: $(cat "$tmp/err5")"
fi

# ---- 4. no compositor -----------------------------------------------------
WAYLAND_DISPLAY=wbc-test-nonexistent-$$ timeout -k 2 10 "$client" --frames 1 \
	>"$tmp/out4" 2>"$tmp/err4"
rc=$?
if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$(wc -l <"$tmp/err4")" -eq 1 ] &&
	grep -q '^wbc-pattern-client: ' "$tmp/err4"; then
	ok "no compositor: rc=$rc, '$(cat "$tmp/err4")'"
else
	not_ok "no compositor: rc=$rc, stderr: $(cat "$tmp/err4")"
fi

# ---- 6. bad --margin --------------------------------------------------------
for m in 257 -1 x ''; do
	"$client" --margin "$m" >"$tmp/out7" 2>"$tmp/err7"
	rc=$?
	if [ $rc -ne 0 ] && [ "$(wc -l <"$tmp/err7")" -eq 1 ] &&
		grep -q "^wbc-pattern-client: --margin needs 0 to 256 pixels, got '$m'$" "$tmp/err7"; then
		ok "--margin '$m' refused: '$(cat "$tmp/err7")'"
	else
		not_ok "--margin '$m': rc=$rc, stderr: $(cat "$tmp/err7")"
	fi
done

echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
