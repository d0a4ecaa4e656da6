"""Prints where each thread of a hung test process waits: its stacks from gdb, demangled, alike ones counted once.

Threads whose stacks run no job of the task pool and pass through none of Varsel's code or its tests (idle workers of
the task pool, of Dispatch or of NIO waiting for work) are only counted. Usage: hung_stacks.py PID
"""
import collections
import re
import subprocess
import sys

pid = sys.argv[1]
try:
    raw = subprocess.run(
        ["gdb", "-p", pid, "-batch", "-ex", "set print frame-arguments none", "-ex", "thread apply all bt 40"],
        capture_output=True, text=True, timeout=120).stdout
except (OSError, subprocess.TimeoutExpired) as error:
    sys.exit(f"gdb could not read the stacks of {pid}: {error}")
try:
    raw = subprocess.run(["swift", "demangle", "--simplified"], input=raw, capture_output=True, text=True, timeout=60).stdout
except (OSError, subprocess.TimeoutExpired):
    pass

stacks = collections.Counter()
for block in re.split(r"\n(?=Thread \d+ )", raw):
    if not block.startswith("Thread "):
        continue
    frames = []
    for line in block.splitlines()[1:]:
        match = re.match(r"#\d+\s+(?:0x[0-9a-f]+ in )?(.*?)(?: \(.*)?(?: from .*| at .*)?$", line)
        if match:
            frames.append(match.group(1)[:150])
    stacks[tuple(frames)] += 1

ours = re.compile(r"swift_job_run|Varsel|Tests|waitUntilExit")
idle = 0
busy = 0
for frames, count in stacks.most_common():
    if not any(ours.search(frame) for frame in frames):
        idle += count
        continue
    busy += count
    print(f"{count} thread(s):")
    for frame in frames[:25]:
        print(f"    {frame}")
print(f"{idle} more thread(s) in no code of Varsel's or its tests' (idle workers)")
if not busy:
    print("No thread runs or blocks in a test: the unfinished tests await something that never comes "
          "(a continuation not resumed, a stream not finished, an answer the database never sends).")
