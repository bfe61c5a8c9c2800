#!/bin/bash
# The vkms suite's wbc shell tests with wbc under valgrind memcheck (issue 8: zero definite
# leaks in wbc's own code). Not part of tests/run.sh: memcheck inside the TCG guest makes
# each test take many minutes.
#
#   tests/valgrind.sh [TEST...]   (default: every vkms test that runs $WBC, but wbc-soak)
#
# Builds wbc without sanitizers in $WBC_VALGRIND_BUILD_DIR (default build-valgrind/), runs
# the tests through meson with tests/valgrind/wrap-test (WBC -> tests/valgrind/wbc-memcheck,
# timeouts x $WBC_VALGRIND_SLOWDOWN, default 8), then prints, per test, its result and, per
# wbc process, memcheck's error count and definitely-lost bytes/blocks. Suppressions (third
# parties only, each explained): tests/valgrind/wbc.supp. Exit status: non-zero if a test
# failed or any wbc process has a memcheck error or a definite leak.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
build=${WBC_VALGRIND_BUILD_DIR:-build-valgrind}
command -v valgrind >/dev/null || { echo "wbc-valgrind: apt-get install valgrind" >&2; exit 1; }
if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" -Dbuildtype=debugoptimized -Db_sanitize=none || exit 1
fi
ninja -C "$build" || exit 1

if [ $# -eq 0 ]; then
	# Every guest test alone (suite vkms-one) whose environment has WBC (the wbc shell tests).
	mapfile -t tests < <(meson introspect --tests "$build" | python3 -c '
import json, sys
for t in json.load(sys.stdin):
    if any(s.split(":")[-1] == "vkms-one" for s in t["suite"]) and "WBC" in t["env"]:
        print(t["name"])')
else
	tests=("$@")
fi
logs=$(cd "$build" && pwd)/valgrind-logs
status=0
for t in "${tests[@]}"; do
	# Each test's logs in its own directory (inside the project tree: the guest writes it).
	rm -rf "${logs:?}/$t"
	mkdir -p "$logs/$t"
	start=$(date +%s)
	WBC_VALGRIND_LOG_DIR=$logs/$t meson test -C "$build" --no-rebuild --print-errorlogs \
		--timeout-multiplier 0 --wrapper "$PWD/tests/valgrind/wrap-test" "$t" \
		>"$logs/$t/meson.out" 2>&1
	rc=$?
	[ $rc = 0 ] || status=1
	result=$([ $rc = 0 ] && echo OK || echo FAIL)
	echo "$t: $result in $(( $(date +%s) - start )) s (meson output: $logs/$t/meson.out)"
	for f in "$logs/$t"/wbc.*.log; do
		[ -e "$f" ] || { echo "    no wbc process ran under valgrind"; status=1; break; }
		errs=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$f" | tail -1)
		supp=$(sed -n 's/.*ERROR SUMMARY: .*(suppressed: \([0-9]*\) from.*/\1/p' "$f" | tail -1)
		lost=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes in \([0-9,]*\) blocks.*/\1 bytes in \2 blocks/p' "$f" | tail -1)
		if grep -q 'Unrecognised instruction' "$f"; then
			echo "    $(basename "$f"): valgrind cannot run it: $(grep -m1 -A1 'Unrecognised instruction' "$f" | tail -1 | sed 's/^==[0-9]*== *//')"
			status=1
			continue
		fi
		if grep -q '^==[0-9]*== FATAL' "$f"; then
			echo "    $(basename "$f"): valgrind did not start: $(grep -m1 '^==[0-9]*== FATAL' "$f" | sed 's/^==[0-9]*== *//')"
			status=1
			continue
		fi
		if [ -z "$errs" ]; then
			# No summary: the test killed this wbc (SIGKILL) or it was still running.
			echo "    $(basename "$f"): no memcheck summary (killed)"
			continue
		fi
		echo "    $(basename "$f"): $errs errors (${supp:-0} suppressed), definitely lost: ${lost:-0 bytes}"
		if [ "$errs" != 0 ]; then
			status=1
			grep -E '^==[0-9]+== (Invalid|Conditional|Use of|Syscall param|[0-9,]+ bytes in .* definitely)' "$f" |
				head -5 | sed 's/^/      /'
		fi
	done
done
exit $status
