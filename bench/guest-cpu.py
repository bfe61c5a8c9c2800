#!/usr/bin/env python3
"""Where a guest's CPU goes, by program: run vkms cases in one guest with BSD process
accounting on, then print each program's CPU (user + system), runs and elapsed time.

    bench/guest-cpu.py BUILD CASE...     e.g. bench/guest-cpu.py build wbc-record-exact

BUILD is a configured build directory; each CASE a test of its `vkms-one` suite (meson
test -C BUILD --list), all of one guest (the same vkms-run options but --param, which go
with the case). The cases run in one boot (tests/vm/vkms-batch), after a first case that
turns accounting on (acct(2), through Python's ctypes: no package needed) into a file in
BUILD. Kernel threads (VKMS's composer work) never exit, so they are not in the table: its
total is the processes' CPU. The guest's whole CPU time (/proc/stat's first line, read
before the first case and after the last) follows it: user, system (the kernel's, its
threads' included), idle and the rest.
Run alone on the host: the guest's speed is the host's.
"""
import collections
import json
import os
import shlex
import struct
import subprocess
import sys

# struct acct_v3 (linux/acct.h): times in comp_t (3-bit base-8 exponent, 13-bit
# mantissa) of AHZ = 100 ticks a second; ac_etime a float of the same ticks.
ACCT_V3 = struct.Struct('<BBHIIIIIIf8H16s')
AHZ = 100.0


def comp_t(c):
    return (c & 0x1fff) << (3 * ((c >> 13) & 7))


def records(path):
    data = open(path, 'rb').read()
    for off in range(0, len(data) - ACCT_V3.size + 1, ACCT_V3.size):
        f = ACCT_V3.unpack_from(data, off)
        if f[1] != 3:
            sys.exit(f'guest-cpu: {path}: not acct version 3 at byte {off}')
        comm = f[18].split(b'\0')[0].decode(errors='replace')
        yield comm, (comp_t(f[10]) + comp_t(f[11])) / AHZ, f[9] / AHZ


def print_totals(before, after):
    """The guest's CPU time by kind between two copies of /proc/stat's first line, in
    seconds (USER_HZ = 100) summed over its vCPUs."""
    kinds = ['user', 'nice', 'system', 'idle', 'iowait', 'irq', 'softirq', 'steal']
    try:
        a, b = ([int(v) for v in open(p).read().split()[1:9]] for p in (before, after))
    except (OSError, ValueError):
        print('guest-cpu: no /proc/stat totals (a case before them failed)')
        return
    d = [(y - x) / AHZ for x, y in zip(a, b)]
    print('guest CPU, all vCPUs: ' + ', '.join(f'{k} {v:.1f} s' for k, v in zip(kinds, d)
                                              if v) + f' (of {sum(d):.1f} s)')


def batch_command(build, names):
    tests = {t['name']: t for t in json.loads(subprocess.check_output(
        ['meson', 'introspect', build, '--tests'])) if 'wbc:vkms-one' in t['suite']}
    env, guest, args, run = {}, None, [], None
    for name in names:
        if name not in tests:
            sys.exit(f"guest-cpu: no vkms-one test '{name}' in {build}")
        cmd = tests[name]['cmd']
        sep = cmd.index('--')
        opts = cmd[1:sep]
        t = opts.index('--timeout')
        secs = opts[t + 1]
        opts = opts[:t] + opts[t + 2:]
        # vkms's --param values go with the case (guest-batch loads vkms with them).
        params, this_guest = [], []
        words = iter(opts)
        for w in words:
            if w == '--param':
                params += [w, next(words)]
            else:
                this_guest.append(w)
        if guest is None:
            guest = this_guest
            run = os.path.join(os.path.dirname(cmd[0]), 'vkms-batch')
        elif this_guest != guest:
            sys.exit(f'guest-cpu: {name} needs another guest ({this_guest} against {guest})')
        env.update(tests[name]['env'])
        args += ['--case', name, secs] + params + cmd[sep + 1:]
    return env, [run] + guest + ['--'], args


def main():
    if len(sys.argv) < 3 or sys.argv[1].startswith('-'):
        sys.exit('usage: bench/guest-cpu.py BUILD CASE... (see the top of the file)')
    build = os.path.abspath(sys.argv[1])
    env, head, args = batch_command(build, sys.argv[2:])
    acct = os.path.join(build, 'guest-cpu.acct')
    open(acct, 'wb').close()
    stat = [os.path.join(build, f'guest-cpu.stat{i}') for i in (0, 1)]
    for path in stat:
        open(path, 'w').close()
    on = ['sh', '-c', 'head -n1 /proc/stat >"$0" && exec "$@"', stat[0],
          'python3', '-c', 'import ctypes, sys; lib = ctypes.CDLL(None, use_errno=True); '
          'sys.exit(lib.acct(sys.argv[1].encode()) and "acct: errno %d" % ctypes.get_errno())',
          acct]
    off = ['sh', '-c', 'head -n1 /proc/stat >"$0"', stat[1]]
    cmd = head + ['--case', 'accounting-on', '30'] + on + args + ['--case', 'cpu-totals', '30'] + off
    print('guest-cpu:', shlex.join(cmd), flush=True)
    done = subprocess.run(cmd, env={**os.environ, **env}, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, errors='replace')
    for line in done.stdout.splitlines():
        if '## ' in line and ': status ' in line:
            print(line.lstrip('# '))
    if done.returncode != 0:
        print(f'guest-cpu: the batch exited {done.returncode} (its cases above)')
    by = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for comm, cpu, elapsed in records(acct):
        a = by[comm]
        a[0] += 1
        a[1] += cpu
        a[2] += elapsed
    total = sum(a[1] for a in by.values())
    print(f'{"program":16} {"runs":>5} {"CPU s":>8} {"share":>6} {"CPU s/run":>9} '
          f'{"elapsed s":>9}')
    for comm, (n, cpu, elapsed) in sorted(by.items(), key=lambda kv: -kv[1][1]):
        if cpu < 0.005 * total:
            continue
        print(f'{comm:16} {n:5d} {cpu:8.1f} {100 * cpu / total:5.1f}% {cpu / n:9.2f} '
              f'{elapsed:9.1f}')
    print(f'{"all processes":16} {sum(a[0] for a in by.values()):5d} {total:8.1f}')
    print_totals(*stat)
    return done.returncode


if __name__ == '__main__':
    sys.exit(main())
