#!/usr/bin/env bash
# The event-stream benchmark, in release mode: 1 000 and 10 000 subscribers, each a different mentor, while a
# coordinator creates 1 000 notifications per second. Prints create→delivered latency, delivered and duplicates,
# memory per idle stream, server CPU per notification and the machine's load — on SQLite, alternating with the durable
# peer (nginx + nchan on Redis syncing every write, the same client, streams and rate), BENCH_RUNS times each (3),
# then both side by side as ranges with their ratios; then on PostgreSQL with two instances (a throwaway server, or
# BENCH_POSTGRES_URL; BENCH_POSTGRES=0 skips it). BENCH_PEER=0 skips the peer.
set -euo pipefail
cd "$(dirname "$0")/.."
ulimit -n "$(ulimit -Hn)" || true

# The durable peer's Debian packages, installed when missing.
if [[ "${BENCH_PEER:-1}" == 1 ]]; then
  missing=()
  for package in nginx libnginx-mod-nchan redis-server; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
  done
  if ((${#missing[@]})); then
    if [[ $EUID != 0 ]]; then
      echo "The durable peer needs ${missing[*]}: install them, or run with BENCH_PEER=0." >&2
      exit 1
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
  fi
fi

swift build -c release --product varsel
swift build -c release --product varsel-bench
bin="$(swift build -c release --show-bin-path)"
summaries="$(mktemp -d)"
trap 'rm -rf "$summaries"' EXIT
common=(--rate "${BENCH_RATE:-1000}" --duration "${BENCH_DURATION:-10}" --creators "${BENCH_CREATORS:-32}")
# The floor the disk sets under both servers' latency (a sync per write at the same rate), before and after the runs.
disk_floor=("$(python3 scripts/disk_sync_floor.py --rate "${BENCH_RATE:-1000}" --seconds "${BENCH_DURATION:-10}")")
for subscribers in ${BENCH_SUBSCRIBERS:-1000 10000}; do
  for run in $(seq "${BENCH_RUNS:-3}"); do
    "$bin/varsel-bench" --subscribers "$subscribers" "${common[@]}" --durability "${BENCH_DURABILITY:-full}" \
      --summary "$summaries/varsel-$subscribers-$run.json"
    if [[ "${BENCH_PEER:-1}" == 1 ]]; then
      "$bin/varsel-bench" --peer nchan --subscribers "$subscribers" "${common[@]}" --summary "$summaries/nchan-$subscribers-$run.json"
    fi
  done
done
python3 scripts/bench_compare.py "$summaries"
disk_floor+=("$(python3 scripts/disk_sync_floor.py --rate "${BENCH_RATE:-1000}" --seconds "${BENCH_DURATION:-10}")")
echo "Before the runs, ${disk_floor[0]}"
echo "After the runs, ${disk_floor[1]}"

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
