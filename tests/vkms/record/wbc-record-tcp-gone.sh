#!/bin/bash
# Must show 5 (part 2): streaming MPEG-TS to tcp://127.0.0.1:PORT, the receiver (a python3
# listener) is killed in the middle: the recording stops with one clear line naming the
# output, wbc keeps displaying (stats lines with flips still rising, a later screenshot
# decodes) and exits with APP's status.
. "$(dirname "$0")/lib.sh"
port=5700
python3 - "$port" "$out/rx.count" <<'PY' &
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', int(sys.argv[1])))
s.listen(1)
open(sys.argv[2], 'w').write('listening\n')
c, _ = s.accept()
n = 0
while True:
    d = c.recv(65536)
    if not d:
        break
    n += len(d)
    with open(sys.argv[2], 'w') as f:
        f.write('%d\n' % n)
PY
rx=$!
for i in $(seq 100); do [ -s "$out/rx.count" ] && break; sleep 0.2; done
[ -s "$out/rx.count" ] || fail "the listener did not start"
wbc --mode 640x480 --fps 10 --record "tcp://127.0.0.1:$port" --stats \
	--screenshot-after 14 "$out/after.ppm" -- sh -c "\"$client\" --duration 18; exit 5" \
	>"$out/log" 2>&1 &
w=$!
# Kill the receiver once it got a good part of the stream (10 KB), mid-recording.
end=$((SECONDS + 120))
while [ $SECONDS -lt $end ] && kill -0 $w 2>/dev/null; do
	n=$(cat "$out/rx.count" 2>/dev/null)
	[ "$n" != listening ] && [ "${n:-0}" -gt 10000 ] 2>/dev/null && break
	sleep 0.2
done
note "killing the receiver after it got $n bytes"
kill -KILL $rx
wait $rx 2>/dev/null
wait $w
rc=$?
cat "$out/log"
check_log "$out/log"
[ "${n:-0}" -gt 10000 ] 2>/dev/null || fail "the receiver never got 10 KB"
[ $rc = 5 ] || fail "wbc exited $rc, not APP's 5"
check_stopped_displaying "$out/log" ".*tcp://127.0.0.1:$port" "name the output" \
	"$out/after.ppm" "14 s after APP started"
echo PASS
