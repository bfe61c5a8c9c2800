#!/bin/bash
# wlr-output-management (--allow-output-config) with wlr-randr as the client, while wbc runs
# the pattern client on 640x480 and records it (qtrle in .mov, lossless):
#  1. wlr-randr lists the output: its modes, the current one, position, transform, scale.
#  2. --transform 90: wlr-randr succeeds, the client is configured 480x640, the recording
#     ends there with one line and a complete file (its frames exact 640x480 client
#     frames); once the client drew at its new size, grim (screencopy of the writeback
#     frame, turned by grim itself by wl_output's transform) gets exactly a 480x640
#     client frame; wlr-randr lists transform 90.
#  3. --mode 800x600, then --scale 2: configured 600x800, then 300x400; grim's picture is
#     then 600x800 (300x400 at scale 2) and shows the client.
#  4. Refused, each with one wbc line and wlr-randr failing (scale 0: wlroots' protocol
#     error, which wlr-randr prints), nothing lost: a mode the connector lacks (--custom-mode 1234x567),
#     scale 100, scale 0, --off. wlr-randr still lists 800x600, 90, 2; wbc exits 0.
#  5. Without --allow-output-config there is no output manager: wlr-randr fails.
. "$(dirname "$0")/lib.sh"
cat >"$out/app.sh" <<APP
log=$out/steps
: >\$log
# step WHAT CMD...: run CMD, its output and status into the steps log.
step() { local what=\$1; shift; echo "== \$what" >>\$log; "\$@" >>\$log 2>&1; echo "rc \$?" >>\$log; }
# drawn CONFIGURE: until the client drew two frames after that configure line.
drawn() {
	for i in \$(seq 240); do
		awk -v p="\$1" 'f && /^frame/ { n++ } \$0 == p { f = 1 } END { exit !(n >= 2) }' \
			"$out/client" && return 0
		sleep 0.5
	done
	echo "the client never drew after '\$1'" >>\$log
	return 1
}
"$client" --print-configure --print-frames >"$out/client" & c=\$!
sleep $(secs 3)
wlr-randr >"$out/list1" 2>&1
name=\$(head -1 "$out/list1" | cut -d' ' -f1)
step transform wlr-randr --output "\$name" --transform 90
wlr-randr >"$out/list2" 2>&1
drawn "configure 480 640" && grim -t ppm "$out/shot1.ppm"
step mode wlr-randr --output "\$name" --mode 800x600
sleep 1
step scale wlr-randr --output "\$name" --scale 2
drawn "configure 300 400" && grim -t ppm "$out/shot2.ppm"
step bad-mode wlr-randr --output "\$name" --custom-mode 1234x567
step bad-scale wlr-randr --output "\$name" --scale 100
step zero-scale wlr-randr --output "\$name" --scale 0
step off wlr-randr --output "\$name" --off
wlr-randr >"$out/list3" 2>&1
kill \$c
wait \$c
exit 0
APP
rm -f "$out"/shot*.ppm
wbc --mode 640x480 --allow-output-config --allow-capture --codec qtrle \
	--record "$out/oc.mov" -- bash "$out/app.sh" >"$out/log" 2>&1
rc=$?
grep -av '^\[\|^00:' "$out/log" | grep -a 'wbc: '
check_log "$out/log"
[ $rc = 0 ] || { tail -30 "$out/log"; fail "wbc exited $rc"; }
echo "--- wlr-randr at the start"; cat "$out/list1"
echo "--- steps"; cat "$out/steps"
echo "--- the client's configures"; grep '^configure' "$out/client" | grep -v '^configure 0 0'

# 1. the listing
grep -q '640x480 px, [0-9.]* Hz (preferred, current)\|640x480 px, [0-9.]* Hz (current' \
	"$out/list1" || fail "wlr-randr does not list 640x480 as the current mode"
grep -q '800x600 px' "$out/list1" || fail "wlr-randr does not list the other modes"
grep -q 'Transform: normal' "$out/list1" || fail "wlr-randr lists no transform normal"
grep -q 'Scale: 1.0' "$out/list1" || fail "wlr-randr lists no scale 1"
grep -q 'Position: 0,0' "$out/list1" || fail "wlr-randr lists no position 0,0"
grep -q 'Enabled: yes' "$out/list1" || fail "wlr-randr does not list the output enabled"

# step_rc WHAT: wlr-randr's status in that step.
step_rc() { sed -n "/^== $1\$/,/^rc /p" "$out/steps" | sed -n 's/^rc //p'; }

# 2. transform 90
[ "$(step_rc transform)" = 0 ] || fail "wlr-randr --transform 90 failed"
grep -q 'Transform: 90' "$out/list2" || fail "wlr-randr does not list transform 90 after it"
configs=$(grep -v '^configure 0 0' "$out/client" | grep '^configure' | uniq | tr '\n' ' ')
note "configures: $configs"
[ "$configs" = "configure 640 480 configure 480 640 configure 600 800 configure 300 400 " ] ||
	fail "the client was not configured 640x480, 480x640, 600x800, 300x400 in turn"
grep -aq 'wbc: recording Virtual-1 ended: the output changed from 640x480 transform normal to 640x480 transform 90' \
	"$out/log" || fail "the recording did not end with one line at the transform change"
check_final "$out/log"
decode "$out/oc.mov" bgr0 | "$tool" exact 640 480 >"$out/oc.exact" || fail "decoding failed"
check_exact "$out/oc.exact" 1
[ -s "$out/shot1.ppm" ] || fail "grim took no picture after --transform 90"
n=$("$tool" ppm-exact "$out/shot1.ppm")
note "grim after --transform 90 ($(ppm size "$out/shot1.ppm")): frame-tool says '$n'"
[[ "$n" =~ ^[0-9]+$ ]] || fail "the picture after --transform 90 is not the client's"

# 3. mode and scale
[ "$(step_rc mode)" = 0 ] || fail "wlr-randr --mode 800x600 failed"
[ "$(step_rc scale)" = 0 ] || fail "wlr-randr --scale 2 failed"
[ -s "$out/shot2.ppm" ] || fail "grim took no picture after --scale 2"
nb=$(ppm nonblack "$out/shot2.ppm")
note "grim after --mode 800x600 --scale 2: $(ppm size "$out/shot2.ppm"), non-black $nb"
[ "$(ppm size "$out/shot2.ppm")" = 600x800 ] ||
	fail "grim's picture after --mode 800x600 and --scale 2 is not 600x800"
awk -v v="$nb" 'BEGIN { exit !(v >= 0.8) }' || fail "the client does not fill the screen"
grep -aq 'wbc: Virtual-1: now 800x600@[0-9.]* Hz, transform 90, scale 2: 300x400 logical' \
	"$out/log" || fail "wbc did not say the new configuration"

# 4. refusals
# Scale 0 never reaches wbc: wlroots answers it with the protocol's invalid_scale error
# (wlr-randr 0.2.0 prints it but exits 0).
sed -n '/^== zero-scale$/,/^rc /p' "$out/steps" | grep -q 'error 5: invalid scale' ||
	fail "scale 0 was not refused as an invalid scale"
for s in bad-mode bad-scale off; do
	r=$(step_rc $s)
	note "$s: wlr-randr status $r"
	[ -n "$r" ] && [ "$r" != 0 ] || fail "wlr-randr's $s request did not fail"
done
grep -aq 'wbc: output configuration refused: Virtual-1 has no mode 1234x567 (it has: ' \
	"$out/log" || fail "no line refusing the mode 1234x567"
grep -aq 'wbc: output configuration refused: scale 100 for Virtual-1 is refused' \
	"$out/log" || fail "no line refusing scale 100"
grep -aq "wbc: output configuration refused: disabling Virtual-1 is refused" \
	"$out/log" || fail "no line refusing to disable the output"
[ "$(grep -ac 'wbc: output configuration refused: ' "$out/log")" = 3 ] ||
	fail "not exactly one line for each of the 3 refusals wbc sees"
echo "--- wlr-randr at the end"; cat "$out/list3"
grep -q '800x600 px, [0-9.]* Hz.*current' "$out/list3" &&
	grep -q 'Transform: 90' "$out/list3" && grep -q 'Scale: 2.0' "$out/list3" ||
	fail "the configuration changed after the refused requests"

# 5. off by default
cat >"$out/app-off.sh" <<APP
wlr-randr >"$out/list-off" 2>&1
echo "rc \$?" >>"$out/list-off"
APP
wbc --mode 640x480 -- bash "$out/app-off.sh" >"$out/log-off" 2>&1
check_log "$out/log-off"
note "without --allow-output-config: $(tr '\n' ' ' <"$out/list-off")"
grep -q '^rc 0$' "$out/list-off" && fail "wlr-randr worked without --allow-output-config"
echo PASS
