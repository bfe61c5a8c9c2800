#!/bin/bash
# poll.sh PID OUT [INTERVAL_S]: until PID is gone, once per INTERVAL_S (default 1) write to
# OUT its VmHWM (kB) and CPU time (utime+stime, in clock ticks) as "hwm_kb=N ticks=N".
# The last line written is the figure at exit (VmHWM only grows; CPU time misses at most
# the final interval). Bash builtins only: no fork per sample (the wait is a read with a
# timeout on a pipe nobody writes to), so the poller itself costs next to nothing.
pid=$1 out=$2 interval=${3:-1}
exec {never}<> <(:)
hwm=0 ticks=0
while [ -d "/proc/$pid" ]; do
	while read -r k v _; do
		[ "$k" = VmHWM: ] && hwm=$v
	done 2>/dev/null <"/proc/$pid/status"
	if read -r stat 2>/dev/null <"/proc/$pid/stat"; then
		rest=${stat##*) }          # fields after "pid (comm) "; utime/stime are 14/15
		read -r -a f <<<"$rest"
		ticks=$(( ${f[11]:-0} + ${f[12]:-0} ))
	fi
	echo "hwm_kb=$hwm ticks=$ticks" >"$out"
	read -r -t "$interval" -u "$never" _
done
exit 0
