#!/usr/bin/env python3
"""lsan-triage.py LOG: fail (exit 1) on a LeakSanitizer leak that is wbc's.

With full stacks (ASAN_OPTIONS=fast_unwind_on_malloc=0), every allocation of the
compositor side passes through the integration module or the server libraries. A leak
whose stack has none of them was made by wlcs' own test code (wlcs 1.5.0 leaks a
client proxy or two a process): printed as a note, not a failure.
"""
import re
import sys

OURS = ("wbc-wlcs.so", "libwlroots", "libwayland-server", "compositor/", "tests/wlcs/")


def leaks(text):
    """Each leak block of a LeakSanitizer report: (its first line, its frames)."""
    for block in re.split(r"\n(?=(?:Direct|Indirect) leak of )", text):
        if not re.match(r"(Direct|Indirect) leak of ", block):
            continue
        head, _, rest = block.partition("\n")
        frames = re.findall(r"^\s+#\d+ .*$", rest.split("\n\n")[0], re.M)
        yield head, frames


def main():
    text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
    if "ERROR: LeakSanitizer" not in text:
        return 0
    bad = 0
    for head, frames in leaks(text):
        if any(any(mark in f for mark in OURS) for f in frames):
            print(f"wlcs: LEAK (wbc's) in {sys.argv[1]}: {head}")
            print("\n".join(frames[:20]))
            bad += 1
        else:
            print(f"wlcs: note: a leak of wlcs' own test code, not wbc's: {head}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
