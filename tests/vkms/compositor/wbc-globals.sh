#!/bin/bash
# Must show 2: the globals a client sees, and wbc's exit status is APP's.
. "$(dirname "$0")/lib.sh"
wbc --mode 640x480 -- wayland-info >"$out/info" 2>"$out/log"
rc=$?
cat "$out/log"
check_log "$out/log"
[ $rc = 0 ] || fail "wbc -- wayland-info exited $rc"
missing=
for g in wl_compositor wl_subcompositor wl_shm wl_seat wl_output xdg_wm_base \
		zxdg_output_manager_v1 wp_presentation wp_viewporter zxdg_decoration_manager_v1 \
		org_kde_kwin_server_decoration_manager wl_data_device_manager zwp_linux_dmabuf_v1; do
	if grep -q "interface: '$g'" "$out/info"; then
		note "global $g: present"
	else
		note "global $g: MISSING"
		missing="$missing $g"
	fi
done
grep "interface: '" "$out/info" | sed "s/.*interface: '\([^']*\)'.*/\1/" | sort | tr '\n' ' '
echo
[ -z "$missing" ] || fail "missing globals:$missing"
wbc --mode 640x480 -- sh -c 'exit 3' >"$out/log3" 2>&1
rc=$?
check_log "$out/log3"
[ $rc = 3 ] || { cat "$out/log3"; fail "wbc -- sh -c 'exit 3' exited $rc"; }
note "exit status of APP passed through: 3"
echo PASS
