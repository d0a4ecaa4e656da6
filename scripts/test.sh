#!/usr/bin/env bash
# Runs every Varsel test on a fresh machine: installs what is missing (Debian packages, PyPI packages),
# builds once, runs the Swift tests, then the end-to-end tests against a real `varsel serve`.
set -euo pipefail
cd "$(dirname "$0")/.."

# Chromium for the browser tests; Orca, Xvfb, the AT-SPI bus, D-Bus, openbox and xdotool for the screen-reader suite,
# which also reads Firefox ESR and WebKitGTK (its MiniBrowser), and what they report through AT-SPI (python3-pyatspi).
# PostgreSQL and nginx for the several-instances store and its high-availability test.
# debootstrap makes the Debian without Swift that the release package is installed into.
apt_packages=(libsqlite3-dev chromium fonts-dejavu-core orca at-spi2-core dbus-x11 xvfb openbox xdotool postgresql nginx
              firefox-esr libwebkit2gtk-4.1-0 python3-pyatspi debootstrap)
missing=()
for package in "${apt_packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if ((${#missing[@]})); then
  echo "Installing Debian packages: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi

python3 -m pip install --quiet --disable-pip-version-check -r tests/requirements.txt

# A throwaway PostgreSQL server: the store contract runs on it too (VARSEL_TEST_POSTGRES_URL), and so does the
# end-to-end test of several instances behind nginx.
source scripts/postgres-for-tests.sh
start_test_postgres

# Build once (with tests), then run without rebuilding.
swift build --build-tests
# The Swift tests take under a minute; a run still going after ten is stopped, and the tests it had started and not
# finished are named, so a hang fails with its name instead of using up the CI's time.
swift_log="$(mktemp)"
if ! timeout 600 swift test --skip-build 2>&1 | tee "$swift_log"; then
  echo "The Swift tests failed or did not finish; started and not finished:"
  python3 scripts/unfinished_tests.py "$swift_log"
  exit 1
fi

# End-to-end: a real server on a temporary SQLite file, driven over sockets and by Debian's Chromium.
python3 -m pytest -q tests/e2e

# The release package (a release build with the Swift standard library inside the binary) is built while the
# screen-reader suite runs, which mostly waits for speech: one compile job at the lowest priority, so the suite keeps a
# core of its own. It is installed into a Debian without Swift at the end.
package_log="$(mktemp)"
PACKAGE_JOBS=1 nice -n 19 ./scripts/package.sh >"$package_log" 2>&1 &
package_pid=$!

# What a real screen reader says: Orca reading Chromium, Firefox and WebKit on a headless desktop, speech from Orca's
# own log.
# Orca reacts to keys asynchronously and can lag on a loaded machine; a test that failed is run once more, on its
# own, and must pass then (a real regression fails both times).
python3 -m pytest -q tests/screenreader || python3 -m pytest -q --last-failed tests/screenreader

# The release: installed with apt into a minimal Debian made by debootstrap, where `varsel serve --demo` must run.
if ! wait "$package_pid"; then
  cat "$package_log"
  exit 1
fi
tail -1 "$package_log"
python3 -m pytest -q tests/package

# Fuzzing: schemathesis against the served OpenAPI document, as a mentor and as a coordinator, on a small
# budget (scripts/fuzz.sh runs longer): no 5xx, responses match the schema, errors are problem+json.
FUZZ_SECONDS="${FUZZ_SECONDS:-30}" python3 tests/fuzz/run_schemathesis.py
