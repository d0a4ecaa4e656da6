"""Names the Swift tests a `swift test` log shows started and never ended: what a run that hung was doing."""
import re
import sys

started, ended = [], set()
for line in open(sys.argv[1], errors="replace"):
    line = line.strip()
    if match := re.match(r'◇ Test (".*?"|\S+\(\)) started\.', line):
        started.append(match.group(1))
    elif match := re.match(r'[✔✘] Test (".*?"|\S+\(\)) .*(passed|failed)', line):
        ended.add(match.group(1))
for name in dict.fromkeys(started):
    if name not in ended:
        print(f"  still running: {name}")
