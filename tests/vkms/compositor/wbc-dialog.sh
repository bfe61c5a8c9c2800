#!/bin/bash
# Dialogs: a toplevel with a parent (dialog-client: a window, then a 200x100 dialog with
# xdg_toplevel.set_parent) keeps its own size, centred over its parent, while the parent
# is the fullscreen application. The client takes whatever size it is configured to, as
# toolkits do, so a dialog made fullscreen would cover the screen. Checked: the first
# configures (the window fullscreen at 640x480, the dialog windowed with 0x0, its own
# choice), and the recording's last writeback frame: the dialog's colour exactly in
# 200x100 at (220,190), the window's everywhere else.
. "$(dirname "$0")/lib.sh"
# APP: the client until both windows were drawn, then it stops wbc (SIGTERM) with both
# still up, so that the recording's last frame shows them.
cat >"$out/app.sh" <<'APP'
"$1/dialog-client" >"$2" & c=$!
trap 'kill $c; exit 0' TERM
until grep -q '^shown$' "$2"; do sleep 0.5; done
kill -TERM $PPID
wait $c
APP
rm -f "$out/dialog"
wbc -v --mode 640x480 --fps 5 --codec ffv1 --record "$out/dialog.mkv" \
	-- sh "$out/app.sh" "$WBC_TEST_BIN" "$out/dialog" >"$out/log" 2>&1
rc=$?
cat "$out/dialog"
check_log "$out/log"
[ $rc = 0 ] || { grep -av 'DEBUG\]' "$out/log" | tail -20; fail "wbc/dialog-client exited $rc"; }
grep -qx 'configure parent 640 480 fullscreen' "$out/dialog" ||
	fail "the window was not configured fullscreen at 640x480"
grep -qx 'configure dialog 0 0 windowed' "$out/dialog" ||
	fail "the dialog was not left its own size, windowed"
last_frame "$out/dialog.mkv" "$out/last.ppm" || fail "decoding the recording failed"
{ read -r dialog; read -r window; } < <(ppm box "$out/last.ppm" ff8000 3060c0)
note "last frame: dialog colour (x y w h pixels) $dialog; window colour $window"
[ "$dialog" = "220 190 200 100 20000" ] ||
	fail "the dialog is not its 200x100 centred over the window (at 220,190)"
[ "$window" = "0 0 640 480 $((640 * 480 - 20000))" ] ||
	fail "the window's colour is not everywhere around the dialog"
echo PASS
