#!/usr/bin/env python3
"""help-in-man.py PROGRAM PAGE.scd: every option PROGRAM --help prints has an entry in its
man page, so the two cannot drift apart. For wbcctl, also its commands. An entry is a
bold term at the start of a line of the scdoc source (*--fps* _N_, *-v*, *--verbose*):
a mention in running text or an example does not count."""
import re
import subprocess
import sys

prog, page = sys.argv[1], sys.argv[2]
helptext = subprocess.run([prog, '--help'], capture_output=True, text=True, check=True).stdout
with open(page, encoding='utf-8') as f:
    man = f.read()
# An option: a dash or two after a space, "[", "(" or ",", then a letter (not "FNV-1a").
options = sorted(set(re.findall(r'(?:^|(?<=[\s\[(,]))(--?[a-z][a-z0-9-]*)', helptext)))
if not options:
    sys.exit(f'{prog} --help printed no options')
words = options + (['record start', 'record stop', 'status'] if page.endswith('wbcctl.1.scd') else [])
terms = set()
for line in man.splitlines():
    if re.match(r'\s*\*', line):
        terms.update(re.findall(r'\*([^*]+)\*', line))
missing = [w for w in words if w not in terms]
if missing:
    sys.exit(f'{page} does not document: {" ".join(missing)} (from {prog} --help)')
print(f'{page}: all {len(words)} of {" ".join(words)}')
