#!/usr/bin/env python3
"""Compare wlcs' Google Test JSON results with the list of expected failures.

compare.py EXPECTED FILTER RESULT.json...

EXPECTED: one test a line, "Suite.test  # why"; blank lines and lines starting with '#'
are comments. Exit 1 on a failure not listed, a listed test that passed, or a test that
did not report; the last line is "N passed, N failed, N skipped".
"""
import fnmatch
import json
import sys


def read_expected(path):
    expected = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            name, _, why = text.partition("#")
            name = name.strip()
            if not why.strip():
                sys.exit(f"{path}:{n}: {name}: no reason given (NAME  # why)")
            expected[name] = why.strip()
    return expected


def read_results(paths):
    results = {}
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError) as e:
            sys.exit(f"wlcs: {path}: no result ({e}): did the runner crash? see its .log")
        for suite in data.get("testsuites", []):
            for test in suite.get("testsuite", []):
                name = f"{suite['name']}.{test['name']}"
                if test.get("status") == "NOTRUN":
                    continue
                # wlcs skips a test needing a protocol the descriptor does not list by
                # failing it with this property (its xfail listener prints SKIP).
                if "wlcs-skip-test" in test or test.get("result") == "SKIPPED":
                    results[name] = "skipped"
                elif test.get("failures"):
                    results[name] = "failed"
                else:
                    results[name] = "passed"
    return results


def matches(name, filt):
    positive, _, negative = filt.partition("-")
    ok = any(fnmatch.fnmatchcase(name, p) for p in positive.split(":") if p)
    return ok and not any(fnmatch.fnmatchcase(name, p) for p in negative.split(":") if p)


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: compare.py EXPECTED FILTER RESULT.json...")
    expected = read_expected(sys.argv[1])
    filt = sys.argv[2]
    results = read_results(sys.argv[3:])
    bad = 0
    for name, result in sorted(results.items()):
        if result == "failed" and name not in expected:
            print(f"NEW FAILURE: {name}")
            bad += 1
        elif result == "passed" and name in expected:
            print(f"NOW PASSES (take it off {sys.argv[1]}): {name}")
            bad += 1
    for name in sorted(expected):
        if name not in results and matches(name, filt):
            print(f"NOT RUN (listed, not reported by wlcs; renamed?): {name}")
            bad += 1
    counts = {k: sum(1 for r in results.values() if r == k)
              for k in ("passed", "failed", "skipped")}
    print(f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
