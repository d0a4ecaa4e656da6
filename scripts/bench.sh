#!/usr/bin/env bash
# The event-stream benchmark, in release mode: 1 000 and 10 000 subscribers, each a different mentor, while a
# coordinator creates 1 000 notifications per second. Prints create→delivered latency, delivered and duplicates,
# memory per idle stream, server CPU per notification and the machine's load — on SQLite, then on PostgreSQL with
# two instances (a throwaway server, or BENCH_POSTGRES_URL; BENCH_POSTGRES=0 skips it).
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

if [[ "${BENCH_POSTGRES:-1}" == 1 ]]; then
  server_url="${BENCH_POSTGRES_URL:-}"
  if [[ -z "$server_url" ]]; then
    source scripts/postgres-for-tests.sh
    start_test_postgres
    server_url="$VARSEL_TEST_POSTGRES_URL"
  fi
  for subscribers in ${BENCH_SUBSCRIBERS:-1000 10000}; do
    name="varsel_bench_$(date +%s)_$subscribers"
    psql "$server_url" -q -c "CREATE DATABASE $name"
    "$bin/varsel-bench" --subscribers "$subscribers" --rate "${BENCH_RATE:-1000}" --duration "${BENCH_DURATION:-10}" \
      --creators "${BENCH_CREATORS:-32}" --postgres "${server_url%/*}/$name" --instances "${BENCH_INSTANCES:-2}"
  done
fi
