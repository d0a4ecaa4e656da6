#!/usr/bin/env bash
# A longer schemathesis run against the served OpenAPI document, as a mentor and as a coordinator
# (FUZZ_SECONDS per role, default 600). ./scripts/test.sh runs a short one.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --disable-pip-version-check -r tests/requirements.txt
swift build --product varsel
FUZZ_SECONDS="${FUZZ_SECONDS:-600}" python3 tests/fuzz/run_schemathesis.py
