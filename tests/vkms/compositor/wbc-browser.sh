#!/bin/bash
# wbc-browser.sh chromium|firefox: the kiosk people deploy most, with Debian's browsers as
# witnesses (issue 19). wbc -v records (ffv1, lossless) and serves screencopy; APP starts
# the browser in kiosk mode on a local page written here (page.html: #1e90ff over the top
# three quarters of the viewport, #ff8c00 over the bottom quarter, a title) and takes grim
# screencopies every 2 s until the page is seen: at least 60 % of the frame within 6 of
# #1e90ff and 15 % within 6 of #ff8c00, with the blue above the orange. Neither wbc's
# background nor a blank or half-drawn page passes. With the page up APP stops wbc
# (SIGTERM), so the recording ends on it: its last frame must show the page too. Both
# browsers must be Wayland clients (wbc never starts Xwayland) and wbc must disconnect
# neither.
#   chromium: chromium --ozone-platform=wayland --kiosk --no-first-run --disable-gpu, as
#             root in the guest: --no-sandbox (--test-type keeps its warning bar away), a
#             fresh --user-data-dir, no background networking (the guest has no network).
#   firefox:  firefox-esr --kiosk with MOZ_ENABLE_WAYLAND=1 and a fresh --profile whose
#             user.js turns off first-run pages, default-browser and data-reporting bars.
# A browser in the TCG guest takes minutes to start (~20x slower than the host): the wait
# is $patience s. Suite long (tests/run.sh --long), not in CI; skipped (77) when the
# browser is not installed (tests/deps.sh: wbc_long_packages).
. "$(dirname "$0")/lib.sh"
browser=${1:-}
case $browser in
chromium) bin=chromium ;;
firefox) bin=firefox-esr ;;
*) fail "usage: wbc-browser.sh chromium|firefox" ;;
esac
command -v "$bin" >/dev/null ||
	{ echo "SKIP: $bin is not installed (tests/run.sh --long installs it)"; exit 77; }
export WBC_TEST_DEADLINE=${WBC_TEST_DEADLINE:-1100}
patience=$(secs 900)                 # the longest the page may take to show (< 1100 s)
blue=1e90ff orange=ff8c00 tol=6

cat >"$out/page.html" <<'HTML'
<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>wbc kiosk witness</title>
<style>
html, body { margin: 0; height: 100%; overflow: hidden; background: #1e90ff; }
h1 { margin: 0; padding: 8px; font: bold 24px sans-serif; color: #ffffff; }
#foot { position: fixed; left: 0; bottom: 0; width: 100%; height: 25%; background: #ff8c00; }
</style></head>
<body><h1>wbc kiosk witness</h1><div id="foot"></div></body></html>
HTML

mkdir -p "$out/profile"
case $browser in
chromium)
	# shellcheck disable=SC2054  # the commas are --disable-features' own
	cmd=(chromium --ozone-platform=wayland --kiosk --no-first-run --disable-gpu
		--no-sandbox --test-type --user-data-dir="$out/profile" --no-default-browser-check
		--disable-background-networking --disable-component-update --disable-sync
		--disable-features=Translate,MediaRouter --password-store=basic --noerrdialogs
		--disable-session-crashed-bubble "file://$out/page.html") ;;
firefox)
	cat >"$out/profile/user.js" <<'JS'
user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("browser.aboutwelcome.enabled", false);
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("datareporting.healthreport.uploadEnabled", false);
user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
user_pref("app.update.auto", false);
user_pref("browser.sessionstore.resume_from_crash", false);
user_pref("network.captive-portal-service.enabled", false);
user_pref("network.connectivity-service.enabled", false);
user_pref("browser.safebrowsing.update.enabled", false);
user_pref("extensions.update.enabled", false);
user_pref("browser.translations.automaticallyPopup", false);
JS
	export MOZ_ENABLE_WAYLAND=1
	cmd=(firefox-esr --kiosk --no-remote --profile "$out/profile" "file://$out/page.html") ;;
esac

# APP: 10 the browser exited before the page was seen, 11 the page not seen in time. With
# the page up it stops wbc (SIGTERM): the recording then ends on it.
cat >"$out/app.sh" <<'APP'
out=$1 patience=$2 ppm=$3 blue=$4 orange=$5 tol=$6; shift 6
"$@" >"$out/browser-log" 2>&1 & b=$!
start=$(date +%s)
# shown FILE: the page's two blocks fill their parts of the frame ($out/fracs: the
# fractions of blue and orange, also logged in $out/progress with the time).
shown() {
	python3 "$ppm" near "$1" "$tol" "$blue" "$orange" >"$out/fracs" || return 1
	echo "$(($(date +%s) - start)) s: blue, orange $(cat "$out/fracs")" >>"$out/progress"
	awk '{ exit !($1 >= 0.6 && $2 >= 0.15) }' "$out/fracs"
}
until grim -t ppm "$out/shot.ppm" 2>>"$out/grim-err" && shown "$out/shot.ppm"; do
	kill -0 $b 2>/dev/null || { wait $b; echo "$?" >"$out/browser-rc"; exit 10; }
	[ $(($(date +%s) - start)) -le "$patience" ] || { kill $b; exit 11; }
	sleep 2
done
echo $(($(date +%s) - start)) >"$out/seen-after"
sleep 2                              # a later frame of the same page
grim -t ppm "$out/shot2.ppm" 2>>"$out/grim-err"
kill -TERM $PPID
wait $b
APP
start=$(date +%s)
wbc -v --mode 640x480 --allow-capture --codec ffv1 --fps 10 --record "$out/page.mkv" \
	-- sh "$out/app.sh" "$out" "$patience" "$here/ppm.py" "$blue" "$orange" "$tol" "${cmd[@]}" \
	>"$out/log" 2>&1
rc=$?
note "wbc ran $(($(date +%s) - start)) s"
grep -a 'wbc: ' "$out/log" | grep -av '\[DEBUG\]' | grep -aiv 'input device'
note "$bin --version: $("$bin" --version 2>/dev/null | grep -v '^\[' | head -1)"
[ -s "$out/progress" ] && { note "screencopies taken: $(wc -l <"$out/progress"); the last (time since the browser started):"; tail -n 8 "$out/progress" | sed 's/^/#   /'; }
# Chromium's complaints about the missing D-Bus (none in the guest) left out.
note "the browser's stderr (last 25 lines of $(wc -l <"$out/browser-log"), D-Bus ones left out):"
grep -av 'ERROR:dbus/' "$out/browser-log" | tail -n 25 | cut -c1-300 | sed 's/^/#   /'
check_log "$out/log"
# wbc says when it disconnects a client that broke the protocol: a browser must not.
! grep -a 'wbc: ' "$out/log" | grep -av '\[DEBUG\]' | grep -aE 'disconnected: |protocol error' ||
	fail "wbc disconnected a client (the lines above)"
# Both browsers are Wayland clients here: an X11 fallback would start Xwayland.
! grep -aq 'wbc: Xwayland ready' "$out/log" || fail "$bin used X11 (wbc started Xwayland)"
case $rc in
0) ;;
10) fail "$bin exited $(cat "$out/browser-rc") before the page was seen" ;;
11) fail "the page was not seen within $patience s (last screencopy: blue, orange $(cat "$out/fracs" 2>/dev/null))" ;;
*) fail "wbc/APP exited $rc" ;;
esac
note "the page seen $(cat "$out/seen-after") s after $bin started: blue, orange $(cat "$out/fracs") of the screencopy"
# Where the blocks are: the blue above, the orange across the bottom quarter.
python3 "$here/ppm.py" box "$out/shot.ppm" "$orange" >"$out/orange-box"
note "orange block (x y w h n): $(cat "$out/orange-box")"
read -r ox oy ow oh _ <"$out/orange-box"
if ! { [ "$ox" = 0 ] && [ "$ow" = 640 ] && [ $((oy + oh)) = 480 ] && [ "$oy" -ge 340 ] &&
		[ "$oy" -le 380 ]; }; then
	fail "the orange block is not across the bottom quarter: $(cat "$out/orange-box")"
fi
[ -s "$out/shot2.ppm" ] || fail "no second screencopy"
python3 "$here/ppm.py" near "$out/shot2.ppm" "$tol" "$blue" "$orange" >"$out/fracs2"
awk '{ exit !($1 >= 0.6 && $2 >= 0.15) }' "$out/fracs2" ||
	fail "2 s later the page was gone: blue, orange $(cat "$out/fracs2")"
# The recording's last frame: the page, as wbc showed it when it stopped.
last_frame "$out/page.mkv" "$out/last.ppm" || fail "cannot decode the recording"
ppm near "$out/last.ppm" "$tol" "$blue" "$orange" >"$out/fracs-last"
note "the recording's last frame: $(ppm size "$out/last.ppm"), blue, orange $(cat "$out/fracs-last")"
awk '{ exit !($1 >= 0.6 && $2 >= 0.15) }' "$out/fracs-last" ||
	fail "the recording's last frame does not show the page: blue, orange $(cat "$out/fracs-last")"
echo PASS
