#!/usr/bin/env bash
# Every static check and test suite, with its set-up, ending in one plain total line
# "N passed, N failed, N skipped" (the todo count on the line before it).
set -uo pipefail
cd "$(dirname "$0")/.."
export NO_COLOR=1 NEXT_TELEMETRY_DISABLED=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
mkdir -p test-results
rm -f test-results/static-checks.json test-results/vitest.json test-results/vitest-load.json \
  test-results/vitest-cluster.json test-results/playwright.json test-results/perf.json

# Format, lint, dependency rules, types and unused code first: each counts as one test in the total.
node scripts/static-checks.mjs --report test-results/static-checks.json
static_rc=$?

# Postgres and Redis come from Debian: the database and cluster tests start their own servers on
# loopback (tests/support/services.ts), never the system-wide services.
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 ||
  ! command -v redis-server >/dev/null; then
  echo "installing postgresql and redis-server from apt..."
  { apt-get update -qq && apt-get install -y -qq postgresql redis-server; } >test-results/apt-services.log 2>&1 ||
    echo "could not install postgresql/redis-server (see test-results/apt-services.log)" >&2
fi

npx vitest run --exclude 'tests/load/**' --exclude 'tests/cluster/**' --reporter=default --reporter=json --outputFile=test-results/vitest.json
vitest_rc=$?
# The load test saturates both cores: it runs on its own so timing-sensitive suites are not starved.
npx vitest run tests/load --reporter=default --reporter=json --outputFile=test-results/vitest-load.json
load_rc=$?
# The cluster suites (three node processes on one Postgres and one Redis, faults and load across them)
# saturate the cores too: their own pass, one file at a time.
npx vitest run tests/cluster --no-file-parallelism --reporter=default --reporter=json --outputFile=test-results/vitest-cluster.json
cluster_rc=$?

# Browser tests: Chromium comes from Debian (Playwright never downloads one here), and the dashboard
# is built from this checkout so the pages under test are the pages in the source.
if [ ! -x /usr/bin/chromium ]; then
  echo "installing chromium from apt..."
  { apt-get update -qq && apt-get install -y -qq chromium; } >test-results/apt-chromium.log 2>&1 ||
    echo "could not install chromium (see test-results/apt-chromium.log)" >&2
fi
playwright_rc=1
if npx next build >test-results/next-build.log 2>&1; then
  PLAYWRIGHT_JSON=test-results/playwright.json npx playwright test
  playwright_rc=$?
else
  echo "next build failed; the browser tests cannot run (test-results/next-build.log):" >&2
  tail -n 30 test-results/next-build.log >&2
fi

node scripts/test-summary.mjs test-results/static-checks.json test-results/vitest.json \
  test-results/vitest-load.json test-results/vitest-cluster.json test-results/playwright.json \
  --exit-code "$static_rc" --exit-code "$vitest_rc" --exit-code "$load_rc" --exit-code "$cluster_rc" \
  --exit-code "$playwright_rc"
