#!/bin/bash
# app.sh DIR -- CLIENT [ARGS...]: wbc's APP in the bench. Notes the start of the measured
# window (whole-guest /proc/stat "cpu" line and the time) in DIR/app-start, starts a
# poller on itself (the pid stays the client's after exec), then execs the client with
# its stdout in DIR/client.out.
dir=$1; shift; [ "$1" = -- ] && shift
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
read -r cpu </proc/stat
printf 't=%s cpu="%s"\n' "$EPOCHREALTIME" "$cpu" >"$dir/app-start"
bash "$here/poll.sh" $$ "$dir/client.poll" &
exec "$@" >"$dir/client.out"
