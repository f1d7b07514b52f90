#!/usr/bin/env bash
# Every test suite, with its set-up, ending in one plain total line "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
export NO_COLOR=1 NEXT_TELEMETRY_DISABLED=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
mkdir -p test-results
rm -f test-results/vitest.json

npx vitest run --reporter=default --reporter=json --outputFile=test-results/vitest.json
vitest_rc=$?

node scripts/test-summary.mjs test-results/vitest.json --exit-code "$vitest_rc"
