#!/bin/bash
# Layer shell (wlr-layer-shell-unstable-v1) with real clients:
#  1. wvkbd-mobintl, the on-screen keyboard (Debian's wvkbd), started by APP under
#     --allow-osk: it is shown at the bottom of the 640x480 output, 640x240 (its -H),
#     and its exclusive zone shrinks APP (key-client) to 640x240: key-client's last
#     configure says so, and a grim screenshot has key-client's colour in rows 0..239
#     only (its 640x480 buffer is covered below by wvkbd). A finger (uinput touchscreen)
#     on wvkbd's "t" key types "t" into key-client, which has the keyboard (wvkbd asks for
#     none): the virtual keyboard's keys reach the app, not wvkbd.
#  2. A panel of our own (layer-client) on the top layer, anchored top, left and right,
#     40 high with an exclusive zone of 40: configured 640x40, shown in rows 0..39 with
#     key-client below it in rows 40..479 (640x440); once the panel's client goes,
#     key-client is configured 640x480 again.
#  3. A bad request: a width of 0 without the left and right anchors gets the protocol
#     error (zwlr_layer_surface_v1 invalid_size, 1; wbc sends it, wlroots 0.15.1 does
#     not) with wlroots' later words, wbc says it in one line and goes on.
# Where the "t" key is: wvkbd 0.12's "full" layout (forced with -l and --landscape-layers,
# as wvkbd takes the landscape layout when the output's physical size is wider than high)
# has 6 rows over its 240 pixels, 40 each; "t" is in the third row (y 80..119), which
# is 10.5 key widths long (a half-key pad, then q..p), each 640/10.5 = 60.95 wide: "t",
# the fifth, spans x 275..335 (wvkbd's kbd_init_layout rounding). The middle of it,
# (305, 100) on wvkbd, is (305, 340) on the output.
# Needs systemd-udevd in the guest (with-udev.sh) for libinput to see the touchscreen.
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=detect_leaks=0   # see wbc-input.sh
command -v wvkbd-mobintl >/dev/null || fail "wvkbd-mobintl is not installed (tests/deps.sh)"

# Device units of an output pixel (uinput-script's screen: 16 units a pixel at 640x480).
dx() { echo $((1000 + 16 * $1)); }
dy() { echo $((500 + 16 * $1)); }

# wait_line FILE REGEX SECONDS: until a line of FILE matches (1 if never).
wait_line() {
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		grep -aqE "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# ---- 1. wvkbd ---------------------------------------------------------------------------
rm -f "$out/keys" "$out/osk.ppm" "$out/wvkbd" "$out/shot-taken"
# The player waits for key-client's focus and its 640x240 configure (wvkbd is shown and
# took its zone), then for the screenshot, and only then touches "t".
{
	echo "wait $out/keys focused $(secs 60)"
	wait_line "$out/keys" '^size 640 240$' "$(secs 90)" || echo "say no-640x240-configure"
	wait_line "$out/shot-taken" '^done$' "$(secs 60)" || echo "say no-screenshot"
	echo "down 0 $(dx 305) $(dy 340)"
	echo "sync"
	echo "sleep 200"
	echo "up 0"
	echo "sync"
} | "$WBC_TEST_BIN/uinput-script" touch >"$out/player" 2>&1 &
player=$!
sleep 1
udevadm settle --timeout=10
cat >"$out/osk-app.sh" <<EOF
#!/bin/sh
wvkbd-mobintl -D -l full --landscape-layers full -H 240 -L 240 >"$out/wvkbd" 2>&1 &
osk=\$!
"$WBC_TEST_BIN/key-client" 1 >"$out/keys" &
app=\$!
# The screenshot once wvkbd took its zone (grim: the screen as shown, by screencopy).
i=0
until grep -q '^size 640 240\$' "$out/keys" || [ \$i -ge $(secs 900) ]; do sleep 0.1; i=\$((i+1)); done
grim -t ppm "$out/osk.ppm" 2>"$out/grim-err"
echo done >"$out/shot-taken"
wait \$app
rc=\$?
kill \$osk
exit \$rc
EOF
chmod +x "$out/osk-app.sh"
WBC_TEST_DEADLINE=$(secs 200) wbc -v --mode 640x480 --allow-osk --allow-capture -- \
	"$out/osk-app.sh" >"$out/log" 2>&1
rc=$?
wait $player
player_rc=$?
grep -a 'wbc: ' "$out/log" | grep -av 'DEBUG\]' | grep -a 'layer\|input device\|touch\|toplevels'
cat "$out/player" "$out/keys"
grep -a 'get key\|Resize' "$out/wvkbd" | head -5
check_log "$out/log"
[ $player_rc = 0 ] || fail "uinput-script exited $player_rc"
grep -q '^say' "$out/player" && fail "the player gave up: $(grep '^say' "$out/player")"
[ $rc = 0 ] || { grep -av 'DEBUG\]' "$out/log" | tail -30; cat "$out/wvkbd"
	fail "wbc/key-client exited $rc"; }
grep -aq "wbc: layer surface 'wlroots' mapped on $shown: top layer, 640x240 at 0,240, exclusive zone 240" \
	"$out/log" || fail "wvkbd was not mapped at the bottom of $shown, 640x240"
last=$(grep '^size ' "$out/keys" | tail -1)
[ "$last" = "size 640 240" ] || fail "key-client's last configure: '$last', not 640x240 (480 - wvkbd's 240)"
app_box=$(ppm box "$out/osk.ppm" 3060c0)
note "key-client's colour on screen (x y w h pixels): $app_box"
[ "$app_box" = "0 0 640 240 153600" ] ||
	fail "key-client is not exactly rows 0..239 of the screenshot: wvkbd does not cover the rest"
grep -q '^typed: t$' "$out/keys" || fail "wvkbd's 't' did not reach key-client"

# ---- 2. and 3. a panel of our own, and a bad request ------------------------------------
rm -f "$out/keys2" "$out/panel" "$out/bad" "$out/panel.ppm"
cat >"$out/panel-app.sh" <<EOF
#!/bin/sh
"$WBC_TEST_BIN/layer-client" top tlr 0 40 40 $(secs 120) >"$out/panel" 2>&1 &
panel=\$!
"$WBC_TEST_BIN/key-client" 1 >"$out/keys2" &
app=\$!
# until FILE REGEX: a line of FILE matches (gives up with the others' deadline).
until_line() { i=0; until grep -q "\$2" "\$1" || [ \$i -ge $(secs 900) ]; do sleep 0.1; i=\$((i+1)); done; }
until_line "$out/keys2" '^size 640 440\$'
grim -t ppm "$out/panel.ppm" 2>"$out/grim-err"
kill \$panel
until_line "$out/keys2" '^size 640 480\$'
"$WBC_TEST_BIN/layer-client" top t 0 40 0 $(secs 30) >"$out/bad" 2>&1
echo "status \$?" >>"$out/bad"
kill \$app
exit 0
EOF
chmod +x "$out/panel-app.sh"
WBC_TEST_DEADLINE=$(secs 200) wbc -v --mode 640x480 --allow-capture -- "$out/panel-app.sh" \
	>"$out/log2" 2>&1
rc=$?
grep -a 'wbc: ' "$out/log2" | grep -av 'DEBUG\]' | grep -a 'layer'
cat "$out/panel" "$out/keys2" "$out/bad"
check_log "$out/log2"
[ $rc = 0 ] || { grep -av 'DEBUG\]' "$out/log2" | tail -30; fail "wbc/panel-app exited $rc"; }
grep -q '^configure 640 40$' "$out/panel" || fail "the panel was not configured 640x40"
sizes=$(grep '^size ' "$out/keys2" | uniq | tr '\n' ' ')
note "key-client's configures: $sizes"
# 640x480 first only if key-client's initial configure came before the panel mapped.
case "$sizes" in
"size 640 440 size 640 480 " | "size 640 480 size 640 440 size 640 480 ") ;;
*) fail "key-client was not configured 640x440 with the panel, then 640x480 without" ;;
esac
{ read -r panel_box; read -r app_box; } < <(ppm box "$out/panel.ppm" c03030 3060c0)
note "panel (x y w h pixels): $panel_box; key-client: $app_box"
[ "$panel_box" = "0 0 640 40 25600" ] || fail "the panel is not rows 0..39"
[ "$app_box" = "0 40 640 440 281600" ] || fail "key-client is not rows 40..479, below the panel"
grep -q '^protocol error: zwlr_layer_surface_v1 1$' "$out/bad" ||
	fail "no invalid_size protocol error for a width of 0 without left and right anchors"
grep -q 'width 0 requested without setting left and right anchors' "$out/bad" ||
	fail "the protocol error lacks wlroots' message"
grep -q '^status 3$' "$out/bad" || fail "layer-client did not stop on the protocol error"
grep -aq "wbc: layer surface 'layer-client': width 0 requested without setting left and right anchors: protocol error" \
	"$out/log2" || fail "wbc did not say the protocol error in one line"
echo PASS
