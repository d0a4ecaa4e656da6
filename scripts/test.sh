#!/usr/bin/env bash
# Runs Varsel's tests on a fresh machine: installs what is missing (Debian packages, PyPI packages), builds once,
# then runs each stage asked for, in this order (all of them when none is named):
#
#   format          `swift format lint --strict` with the checked-in .swift-format
#   swift           the Swift tests, with the store contract on SQLite and on a throwaway PostgreSQL
#   e2e             the end-to-end tests against a real `varsel serve`, in Chromium too
#   faults          PostgreSQL restarting, hanging and failing over, a cut-off instance, a full disk (tests/faults)
#   alerts          the Prometheus alert rules, checked and unit-tested with promtool
#   screen-readers  Orca reading Chromium, Firefox and WebKit
#   fuzz            schemathesis against the served OpenAPI document
#   package         the release package, built and installed into a Debian without Swift
#
# For example `scripts/test.sh e2e faults`. docs/development.md says how to run one file or one test.
set -euo pipefail
cd "$(dirname "$0")/.."

all_stages=(format swift e2e faults alerts screen-readers fuzz package)
stages=("$@")
((${#stages[@]})) || stages=("${all_stages[@]}")
for stage in "${stages[@]}"; do
  if [[ " ${all_stages[*]} " != *" $stage "* ]]; then
    echo "Error: there is no test stage called ${stage}; the stages are ${all_stages[*]}." >&2
    exit 1
  fi
done
wants() { [[ " ${stages[*]} " == *" $1 "* ]]; }

# How long each stage took, and how busy the machine's cores were meanwhile (from /proc/stat: the share of the time
# they were not idle), said at the end (and when a stage fails, up to it). A stage far below 100% left cores idle
# that a build or another stage could have used.
declare -a stage_times=()
stage_started=$SECONDS
cpu_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8 }' /proc/stat; }
read -r stage_busy stage_all < <(cpu_ticks)
stage_done() {
  local busy all
  read -r busy all < <(cpu_ticks)
  stage_times+=("$1 $((SECONDS - stage_started)) s ($(( (busy - stage_busy) * 100 / (all - stage_all > 0 ? all - stage_all : 1) ))% busy)")
  stage_started=$SECONDS
  stage_busy=$busy
  stage_all=$all
}
report_stage_times() { ((${#stage_times[@]})) && echo "Stage times: $(IFS=,; echo "${stage_times[*]}" | sed 's/,/, /g'); total ${SECONDS} s"; }
trap report_stage_times EXIT

# The member system, a package of its own (tests/member-system) with a client swift-openapi-generator made from the
# served OpenAPI document (checked in; the end-to-end test checks it is the served one), builds beside the installs and
# Varsel's own build, and is waited for before the end-to-end tests that run it. Neither it nor Varsel's test build
# carries debug information (see below).
member_system_log="$(mktemp)"
member_system_pid=""
if wants e2e; then
  nice -n 10 swift build --package-path tests/member-system -debug-info-format none --disable-index-store >"$member_system_log" 2>&1 &
  member_system_pid=$!
fi

# Debian packages. The build needs only SQLite's headers, installed first. Chromium for the browser tests (its
# headless shell for all but those that show notifications or receive pushes, at about half the CPU); Orca, Xvfb,
# the AT-SPI bus, D-Bus, openbox and xdotool for the screen-reader suite, which also reads Firefox ESR and WebKitGTK
# (its MiniBrowser), and what they report through AT-SPI (python3-pyatspi); gdb, to show where a hung Swift test
# waits. PostgreSQL and nginx for the several-instances store and its high-availability test; HAProxy for the
# failover test; Prometheus for promtool, which checks and unit-tests the alert rules. debootstrap makes the Debian without Swift that the release package is
# installed into. These, then the PyPI packages, install in the background while Swift builds (on a fresh machine
# that is minutes of downloading and unpacking); the tests wait for them.
build_packages=(libsqlite3-dev)
test_packages=(chromium chromium-headless-shell fonts-dejavu-core orca at-spi2-core dbus-x11 xvfb openbox xdotool postgresql nginx firefox-esr
               libwebkit2gtk-4.1-0 python3-pyatspi debootstrap haproxy prometheus gdb)
missing_packages() {
  local package
  for package in "$@"; do
    dpkg -s "$package" >/dev/null 2>&1 || echo "$package"
  done
}
apt_install() {
  echo "Installing Debian packages: $*"
  # Without an fsync per file: an install cut short by a power loss is simply run again.
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o Dpkg::Options::=--force-unsafe-io "$@"
}
missing_for_build=($(missing_packages "${build_packages[@]}"))
missing_for_tests=($(missing_packages "${test_packages[@]}"))
if ((${#missing_for_build[@]} + ${#missing_for_tests[@]})); then
  apt-get update -qq
fi
if ((${#missing_for_build[@]})); then
  apt_install "${missing_for_build[@]}"
fi
installs_log="$(mktemp)"
(
  if ((${#missing_for_tests[@]})); then
    apt_install "${missing_for_tests[@]}"
  fi
  python3 -m pip install --quiet --disable-pip-version-check -r tests/requirements.txt
) >"$installs_log" 2>&1 &
installs_pid=$!

# What still runs in the background when the script ends early (a stage failed before waiting for it) is stopped:
# the builds and the Debian being made. An install is let finish, since a package manager stopped halfway leaves the
# machine's packages half installed.
stop_background() {
  local pid
  [[ -n "$installs_pid" ]] && { wait "$installs_pid" 2>/dev/null || true; }
  for pid in $(jobs -p); do
    pkill -TERM -P "$pid" 2>/dev/null || true
    kill "$pid" 2>/dev/null || true
  done
}
trap 'stop_background; report_stage_times' EXIT

# The release package (a release build with the Swift standard library inside the binary) is built from here on,
# beside everything else, in a build directory of its own (.build holds the tests' build). It runs under the idle
# scheduling class: it gets only the time the builds and tests leave (the debug build's links, the end-to-end and
# screen-reader suites' waits), so they are not slowed. It is about 1,000 CPU-seconds, a third of a full run's work;
# the last minute or two of it is done after the tests. It is installed into a Debian without Swift at the end.
# The dependencies are resolved once first, so both builds use the same versions (Package.resolved).
swift package resolve
package_log="$(mktemp)"
package_pid=""
if wants package; then
  PACKAGE_SCRATCH_PATH=.build-package chrt --idle 0 ./scripts/package.sh >"$package_log" 2>&1 &
  package_pid=$!
fi

# Build once (with tests), then run without rebuilding. The member system is finished first, so the Swift tests (some
# of which time real streams) and the end-to-end tests that run it share the machine with nothing but the package's
# idle build. Without debug information the build does an eighth less work (690 CPU-seconds instead of 788 on a 2-core
# machine); a failing test still names its line, and a crash's backtrace names its functions. SwiftPM still compiles C
# with -g then (BoringSSL's two copies, a third of the build), so -g0 is given to clang too. (Its index stays: the
# tests are found through it.)
swift build --build-tests -debug-info-format none -Xcc -g0
if [[ -n "$member_system_pid" ]] && ! wait "$member_system_pid"; then
  cat "$member_system_log"
  exit 1
fi
pid=$installs_pid
installs_pid=""
if ! wait "$pid"; then
  cat "$installs_log"
  echo "Installing the tests' Debian or PyPI packages failed." >&2
  exit 1
fi
grep -v "Running pip as the 'root' user" "$installs_log" || true

# The minimal Debian the release package is installed into, made now in the background under the idle scheduling
# class (it mostly waits for the network), so that the package stage only installs into it.
debian_log="$(mktemp)"
debian_pid=""
if wants package && [[ $EUID == 0 ]]; then
  export VARSEL_TEST_DEBIAN="$(mktemp -d)/root"
  chrt --idle 0 debootstrap --variant=minbase bookworm "$VARSEL_TEST_DEBIAN" http://deb.debian.org/debian >"$debian_log" 2>&1 &
  debian_pid=$!
fi

# A throwaway PostgreSQL server: the store contract runs on it too (VARSEL_TEST_POSTGRES_URL), and so does the
# end-to-end test of several instances behind nginx. It is stopped on exit.
source scripts/postgres-for-tests.sh
start_test_postgres
trap 'stop_background; stop_test_postgres; report_stage_times' EXIT
stage_done "installs and build"

# The code's form: Swift's own formatter, configured in .swift-format, finds nothing to change.
if wants format; then
  swift format lint --strict --recursive --parallel Package.swift Sources Tests
  stage_done format
fi
# The Swift tests take under a minute; a run still going after ten is stopped, and the tests it had started and not
# finished are named, so a hang fails with its name instead of using up the CI's time. Just before the stop, where
# each thread of the test process waits is written down (gdb), and printed with the names.
swift_log="$(mktemp)"
swift_stacks="$(mktemp)"
if wants swift; then
  (
    sleep 590
    for pid in $(pgrep -f 'PackageTests\.xctest'); do python3 scripts/hung_stacks.py "$pid"; done >"$swift_stacks" 2>&1
  ) &
  stacks_pid=$!
  # Line-buffered (stdbuf): the test process writes into a pipe, which would otherwise hold back its last few
  # kilobytes, the very lines that tell which tests a hung run had finished.
  if ! timeout 600 stdbuf -oL -eL swift test --skip-build 2>&1 | tee "$swift_log"; then
    echo "The Swift tests failed or did not finish; started and not finished:"
    python3 scripts/unfinished_tests.py "$swift_log"
    if [[ -s "$swift_stacks" ]]; then
      echo "Where the test process's threads waited, 10 seconds before it was stopped:"
      cat "$swift_stacks"
    fi
    exit 1
  fi
  pkill -P "$stacks_pid" 2>/dev/null || true
  kill "$stacks_pid" 2>/dev/null || true
  stage_done swift
fi

# End-to-end: a real server on a temporary SQLite file, driven over sockets and by Debian's Chromium. Each test has
# a server of its own, so two workers run them (pytest-xdist); most of a test's time is spent waiting for a browser
# or a server, which the other worker uses. The eight slowest are named at the end.
if wants e2e; then
  python3 -m pytest -q -n 2 --durations=8 tests/e2e
  stage_done e2e
fi

# What Varsel stands on, failing for real: each test starts PostgreSQL servers (and a standby, HAProxy, nginx) of its
# own, or mounts a small tmpfs. They run alone, since they measure how long requests take while the fault lasts.
if wants faults; then
  python3 -m pytest -q -s tests/faults
  stage_done faults
fi

# The alert rules shipped with the package: well-formed, and each firing when it should and not before.
if wants alerts; then
  promtool check rules packaging/prometheus/varsel-alerts.yml
  (cd packaging/prometheus && promtool test rules varsel-alerts.test.yml)
  stage_done alerts
fi

# What a real screen reader says: Orca reading Chromium, Firefox and WebKit on a headless desktop, speech from Orca's
# own log. The three files run at once, in six processes, each on desktops of its own (its own display, buses, Orca
# and server), since most of their time is spent waiting for speech: Chromium's main file in two parts, the engines'
# file in three (Firefox, Firefox then WebKit, WebKit: Firefox's tests are the slowest), and Chromium's tokens and
# channels (the short one). Each desktop costs the release build, which fills the cores the tests leave, a little
# CPU, so there are no more parts than the longest one needs. An entry is a file or a part of one (FILE:K/N, its Kth
# run of neighbouring tests); each keeps its own record of what failed, and its output is shown when all are done.
# Orca reacts to keys asynchronously and can lag on a loaded machine; a test that failed is run once more, on its own,
# and must pass then (a real regression fails both times).
if wants screen-readers; then
  screen_reader_file() {
    local file="tests/screenreader/${1%%:*}.py" cache=".pytest_cache/${1//[:\/]/-}" part=()
    [[ "$1" == *:* ]] && part=(--part "${1#*:}")
    python3 -m pytest -q -o cache_dir="$cache" "${part[@]}" "$file" || python3 -m pytest -q -o cache_dir="$cache" --last-failed "$file"
  }
  screen_reader_files=(test_orca_speech:1/2 test_orca_speech:2/2 test_orca_engines:1/3 test_orca_engines:2/3 test_orca_engines:3/3
                      test_orca_tokens_and_channels)
  declare -A screen_reader_pids screen_reader_logs
  for file in "${screen_reader_files[@]}"; do
    screen_reader_logs[$file]="$(mktemp)"
    screen_reader_file "$file" >"${screen_reader_logs[$file]}" 2>&1 &
    screen_reader_pids[$file]=$!
  done
  screen_readers_failed=0
  for file in "${screen_reader_files[@]}"; do
    wait "${screen_reader_pids[$file]}" || screen_readers_failed=1
    echo "$file:"
    cat "${screen_reader_logs[$file]}"
  done
  if ((screen_readers_failed)); then
    exit 1
  fi
  stage_done screen-readers
fi

# Fuzzing, while the package may still be building: schemathesis against the served OpenAPI document, as a mentor and
# as a coordinator, on a small budget (scripts/fuzz.sh runs longer): no 5xx, responses match the schema, errors are
# problem+json.
if wants fuzz; then
  FUZZ_SECONDS="${FUZZ_SECONDS:-30}" python3 tests/fuzz/run_schemathesis.py
  stage_done fuzz
fi

# The release: installed with apt into a minimal Debian made by debootstrap, where `varsel serve --demo` must run.
if wants package; then
  if ! wait "$package_pid"; then
    cat "$package_log"
    exit 1
  fi
  grep "^The release build took" "$package_log" || true
  tail -1 "$package_log"
  stage_done package-build
  if [[ -n "$debian_pid" ]] && ! wait "$debian_pid"; then
    cat "$debian_log"
    exit 1
  fi
  python3 -m pytest -q tests/package
  stage_done package
fi
