#!/bin/bash
# cage-app.sh DIR SECONDS RECORD(0|1) -- CLIENT [ARGS...]: cage's APP in the bench (runs as
# the unprivileged bench user, like everything cage starts).
# Starts the client, waits until it has drawn frames (mapped, fullscreen), then marks the
# measured window and, with RECORD=1, runs wf-recorder on the output for SECONDS (SIGINT to
# stop, as a user would); without it just waits SECONDS. The window ends when wf-recorder
# has exited (its file is complete). The settings passed to wf-recorder are in
# $BENCH_WFR_ARGS (bench/vkms/guest.sh sets them).
dir=$1 secs=$2 record=$3; shift 3; [ "$1" = -- ] && shift
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
unset LD_PRELOAD   # bench/vkms/cage-mode.so is for cage only
now() { printf '%s' "$EPOCHREALTIME"; }
cpu() { local l; read -r l </proc/stat; printf '%s' "$l"; }
frames() { local n=0; while read -r _; do n=$((n + 1)); done <"$dir/client.out"; echo $n; }
exec {never}<> <(:)
nap() { read -r -t "$1" -u "$never" _; }

"$@" >"$dir/client.out" &
client=$!
bash "$here/poll.sh" $client "$dir/client.poll" &
# Mapped and drawing: at least 5 frames, or give up after 60 s (the run reports it).
for _ in $(seq 600); do
	[ "$(frames)" -ge 5 ] && break
	kill -0 $client 2>/dev/null || break
	nap 0.1
done
printf 't=%s cpu="%s" frames=%s\n' "$(now)" "$(cpu)" "$(frames)" >"$dir/app-start"
if [ "$record" = 1 ]; then
	# shellcheck disable=SC2086
	if [ "${BENCH_WFR_DEBUG:-0}" = 1 ]; then export WAYLAND_DEBUG=1; fi
	wf-recorder $BENCH_WFR_ARGS -f "$dir/out.mkv" >"$dir/wf-recorder.log" 2>&1 &
	unset WAYLAND_DEBUG
	wfr=$!
	bash "$here/poll.sh" $wfr "$dir/recorder.poll" &
	nap "$secs"
	printf 't=%s frames=%s\n' "$(now)" "$(frames)" >"$dir/rec-stop"
	kill -INT $wfr 2>/dev/null
	# wf-recorder 0.3 can hang after SIGINT: when its 16-buffer ring is full (encoder
	# slower than capture) its main thread waits for a free buffer without looking at the
	# exit flag, while the writer thread finishes the file and ends. So: wait for the
	# process to end, or for it to be down to its main thread (file written), then kill.
	how=exited
	for _ in $(seq 600); do
		kill -0 $wfr 2>/dev/null || break
		n=0; for _t in /proc/$wfr/task/*; do n=$((n + 1)); done
		if [ $n -le 1 ]; then how=killed-after-writer-finished; kill -KILL $wfr; break; fi
		nap 0.1
	done
	if kill -0 $wfr 2>/dev/null; then how=killed-timeout; kill -KILL $wfr; fi
	wait $wfr; rc=$?
	printf 't=%s cpu="%s" frames=%s how=%s rc=%s\n' "$(now)" "$(cpu)" "$(frames)" "$how" "$rc" \
		>"$dir/app-end"
else
	nap "$secs"
	printf 't=%s cpu="%s" frames=%s how=display-only rc=0\n' "$(now)" "$(cpu)" "$(frames)" \
		>"$dir/app-end"
fi
kill -TERM $client 2>/dev/null
wait $client
exit 0
