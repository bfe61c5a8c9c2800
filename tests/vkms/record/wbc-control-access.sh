#!/bin/bash
# Who may use the recording control (issue 8 privacy, issue 9; README "Recording control"),
# with wayland-info (Debian's wayland-utils) listing the globals each client is offered:
#   1. --control-socket on a regular file is refused in one line and the file is kept;
#      a stale socket there (its wbc gone) is replaced.
#   2. wbc --control-socket /tmp/...: the socket is mode 0600 owned by root (wbc's user) in
#      world-writable /tmp; user nobody cannot connect (wbcctl: status 3, Permission
#      denied); a client of the ordinary WAYLAND_DISPLAY socket that is not the APP is
#      not offered wbc_capture_control_manager_v1; a client of the control socket is offered
#      only that; refusals are one line with status 1 (cannot open, unknown codec).
#   3. --allow-control: APP's child (not APP) does not see the global, APP itself does.
#   4. without --allow-control: no global for APP, no control socket, wbcctl status 3.
. "$(dirname "$0")/lib.sh"
: "${WBCCTL:?WBCCTL must point at wbcctl}"
global=wbc_capture_control_manager_v1
sock=/tmp/wbc-ctl.sock
# interfaces FILE: the interfaces a wayland-info output lists, sorted, on one line.
interfaces() {
	sed -n "s/.*interface: '\([^']*\)'.*/\1/p" "$1" | sort -u | tr '\n' ' '
}

# 1. Not a socket: refused, kept. A stale socket: replaced.
echo keep >"$sock"
wbc --mode 640x480 --control-socket "$sock" -- true >"$out/log0" 2>&1
rc=$?
cat "$out/log0"
check_log "$out/log0"
[ $rc = 1 ] || fail "--control-socket on a regular file: status $rc"
[ "$(grep -c . "$out/log0")" = 1 ] &&
	grep -qx "wbc: control: $sock exists and is not a socket" "$out/log0" ||
	fail "not one clear line for a --control-socket that is a regular file"
[ "$(cat "$sock")" = keep ] || fail "the regular file at $sock was changed"
rm -f "$sock"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$sock"
[ -S "$sock" ] || fail "could not make a stale socket"

# 2. The control socket and who sees what.
wbc_start --mode 640x480 --control-socket "$sock" -- \
	sh -c 'echo "$WAYLAND_DISPLAY" >"$0"; exec "$1"' "$out/wl" "$client" >"$out/log" 2>&1
wait_for 150 "$WBCCTL" --socket "$sock" status >/dev/null 2>&1 ||
	{ cat "$out/log"; fail "wbcctl status never answered on $sock"; }
note "control socket: $(command stat -c '%A %U %a' "$sock")"
[ "$(command stat -c '%a %u' "$sock")" = "600 0" ] || fail "$sock is not 0600 owned by uid 0"
msg=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$WBCCTL" --socket "$sock" status 2>&1)
rc=$?
note "as nobody: status $rc: $msg"
[ $rc = 3 ] && [ "$msg" = "wbcctl: cannot connect to $sock: Permission denied" ] ||
	fail "user nobody: status $rc: $msg"

wl=$(cat "$out/wl")
note "APP's WAYLAND_DISPLAY=$wl"
WAYLAND_DISPLAY=$wl wayland-info >"$out/other.info" 2>&1 || fail "wayland-info on $wl failed"
note "another client of $wl is offered: $(interfaces "$out/other.info")"
grep -q "interface: 'wl_compositor'" "$out/other.info" || fail "wayland-info saw no wl_compositor"
! grep -q "$global" "$out/other.info" || fail "a client that is not APP is offered $global"
WAYLAND_DISPLAY=$sock wayland-info >"$out/ctl.info" 2>&1 || fail "wayland-info on $sock failed"
note "a client of the control socket is offered: $(interfaces "$out/ctl.info")"
[ "$(interfaces "$out/ctl.info")" = "$global " ] ||
	fail "the control socket offers more or less than $global"

msg=$("$WBCCTL" --socket "$sock" record start /nonexistent/a.mkv 2>&1)
rc=$?
note "into a missing directory: status $rc: $msg"
[ $rc = 1 ] && [ "$msg" = "wbcctl: record start: cannot record to /nonexistent/a.mkv: cannot open /nonexistent/a.mkv: No such file or directory" ] ||
	fail "record start into a missing directory: $rc $msg"
msg=$("$WBCCTL" --socket "$sock" record start "$out/x.mkv" --codec nosuch 2>&1)
rc=$?
note "unknown codec: status $rc: ${msg:0:160}... (${#msg} bytes)"
[ $rc = 1 ] && [[ $msg == "wbcctl: record start: cannot record to $out/x.mkv: unknown video encoder 'nosuch'"* ]] &&
	[ "$(grep -c . <<<"$msg")" = 1 ] || fail "record start with an unknown codec: $rc $msg"
[ "$("$WBCCTL" --socket "$sock" status)" = "state=idle" ] || fail "not idle after refusals"

wbc_stop
rc=$?
cat "$out/log"
check_log "$out/log"
[ $rc = 0 ] || fail "wbc exited $rc"
[ ! -e "$sock" ] && [ ! -e "$sock.lock" ] || fail "$sock or its lock left behind"

# 3. APP itself is offered the global, its child is not.
wbc --mode 640x480 --allow-control -- \
	sh -c 'wayland-info >"$0.child"; exec wayland-info >"$0.app"' "$out/info" \
	>"$out/log3" 2>&1
rc=$?
cat "$out/log3"
check_log "$out/log3"
[ $rc = 0 ] || fail "wbc -- sh -c 'wayland-info; exec wayland-info' exited $rc"
note "APP's child is offered: $(interfaces "$out/info.child")"
note "APP is offered: $(interfaces "$out/info.app")"
grep -q "interface: 'wl_compositor'" "$out/info.child" || fail "APP's child saw no wl_compositor"
! grep -q "$global" "$out/info.child" || fail "APP's child is offered $global"
grep -q "interface: '$global'" "$out/info.app" || fail "APP is not offered $global"

# 4. Without --allow-control: no global, no socket.
wbc --mode 640x480 -- wayland-info >"$out/info.none" 2>"$out/log4"
rc=$?
cat "$out/log4"
check_log "$out/log4"
[ $rc = 0 ] || fail "wbc -- wayland-info exited $rc"
! grep -q "$global" "$out/info.none" || fail "$global offered without --allow-control"
[ ! -e "$XDG_RUNTIME_DIR/wbc-control-0" ] || fail "a control socket without --allow-control"
msg=$("$WBCCTL" status 2>&1)
rc=$?
note "wbcctl with no wbc: status $rc: $msg"
[ $rc = 3 ] || fail "wbcctl status with no wbc: status $rc"
echo PASS
