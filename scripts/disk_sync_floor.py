#!/usr/bin/env python3
"""What the disk alone gives a server that syncs every write: the floor under any durable server's latency.

Appends a block to a file in DIR and syncs it (fdatasync), RATE times a second for SECONDS, and times each write from
when it was due, so a stall counts for the writes queued behind it too, as it does for notifications waiting on a
commit. Prints one line: p50, p99 and max. scripts/bench.sh runs it in the directory its databases go to, before and
after its runs, so a tail that is the disk's shows as the disk's.

    python3 scripts/disk_sync_floor.py [--dir DIR] [--rate 1000] [--seconds 10] [--bytes 16384]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time


def percentile(sorted_values: list[float], share: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(share * len(sorted_values)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default=tempfile.gettempdir(), help="where the file is written (default: the temporary directory)")
    parser.add_argument("--rate", type=int, default=1000, help="syncs a second (default 1000)")
    parser.add_argument("--seconds", type=float, default=10, help="how long (default 10)")
    parser.add_argument("--bytes", type=int, default=16384, help="bytes appended before each sync (default 16384)")
    arguments = parser.parse_args()
    if arguments.rate < 1 or arguments.seconds <= 0 or arguments.bytes < 1:
        print("The rate, the seconds and the bytes must be positive.", file=sys.stderr)
        return 1
    if not os.path.isdir(arguments.dir):
        print(f"There is no directory {arguments.dir} to write the test file in.", file=sys.stderr)
        return 1

    descriptor, path = tempfile.mkstemp(prefix="varsel-disk-sync-", dir=arguments.dir)
    block = b"\0" * arguments.bytes
    latencies = []
    try:
        count = int(arguments.rate * arguments.seconds)
        start = time.perf_counter()
        for index in range(count):
            due = start + index / arguments.rate
            wait = due - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            os.write(descriptor, block)
            os.fdatasync(descriptor)
            latencies.append((time.perf_counter() - due) * 1000)
    finally:
        os.close(descriptor)
        os.unlink(path)

    latencies.sort()
    print(f"the disk alone ({arguments.dir}), {arguments.bytes} bytes appended and synced {arguments.rate} times a second "
          f"for {arguments.seconds:g} s: p50 {percentile(latencies, 0.5):.2f} ms, p99 {percentile(latencies, 0.99):.2f} ms, "
          f"max {latencies[-1]:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
