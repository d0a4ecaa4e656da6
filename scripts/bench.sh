#!/usr/bin/env bash
# The event-stream benchmark, in release mode: 1 000 and 10 000 subscribers, each a different mentor, while a
# coordinator creates 1 000 notifications per second. Prints create→delivered latency, throughput and memory.
set -euo pipefail
cd "$(dirname "$0")/.."
ulimit -n "$(ulimit -Hn)" || true
swift build -c release --product varsel
swift build -c release --product varsel-bench
bin="$(swift build -c release --show-bin-path)"
for subscribers in ${BENCH_SUBSCRIBERS:-1000 10000}; do
  "$bin/varsel-bench" --subscribers "$subscribers" --rate "${BENCH_RATE:-1000}" --duration "${BENCH_DURATION:-10}" --creators "${BENCH_CREATORS:-32}" \
    --durability "${BENCH_DURABILITY:-full}"
done
