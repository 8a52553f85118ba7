#!/usr/bin/env bash
# End-to-end test of the UI in a real browser: Debian's chromium (headless,
# no display needed) driven by playwright-core, against a real
# `mcp-router serve` with auth on and a real server-everything upstream.
# Screenshots of every page (light and dark) go to test-results/screenshots/.
# See docs/ui.md.
#
# Environment: MCPR_BIN=path/to/mcp-router skips building the frontend and the
# router (the binary must embed a current frontend/dist); CHROMIUM overrides
# /usr/bin/chromium; UI_E2E_HEADED=1 shows the browser.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

install() { # dir: npm ci when node_modules is missing or older than the lockfile
  if [ ! -f "$1/node_modules/.package-lock.json" ] || [ "$1/package-lock.json" -nt "$1/node_modules/.package-lock.json" ]; then
    (cd "$1" && npm ci --no-audit --no-fund)
    touch "$1/node_modules/.package-lock.json"
  fi
}
install "$ROOT/test/peers"
install "$ROOT/test/ui"

if [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
  echo "ui-e2e: missing ${CHROMIUM:-/usr/bin/chromium} — run scripts/install-system-deps.sh" >&2
  exit 1
fi

if [ -z "${MCPR_BIN:-}" ]; then
  install "$ROOT/frontend"
  (cd frontend && npm run build)
  mkdir -p "$ROOT/test-results/ui"
  tags=$("$ROOT/scripts/webkit-tags.sh") # webkit2_41 where only WebKitGTK 4.1 is installed
  GOFLAGS=${GOFLAGS:--buildvcs=false} go build ${tags:+-tags "$tags"} -o "$ROOT/test-results/ui/mcp-router" .
  export MCPR_BIN=$ROOT/test-results/ui/mcp-router
fi
# The sample weather server, for the chat panel's test (test/ui/chat.test.mjs).
if [ -z "${MCPR_WEATHER_BIN:-}" ]; then
  mkdir -p "$ROOT/test-results/ui"
  GOFLAGS=${GOFLAGS:--buildvcs=false} go build -o "$ROOT/test-results/ui/weather-mcp" ./mcp_servers/weather
  export MCPR_WEATHER_BIN=$ROOT/test-results/ui/weather-mcp
fi

# Every UI test file, or those given as arguments (scripts/ui-e2e.sh test/ui/clients.test.mjs).
files=(test/ui/ui.test.mjs test/ui/chat.test.mjs test/ui/approvals.test.mjs test/ui/profiles.test.mjs
  test/ui/bundles.test.mjs test/ui/catalog.test.mjs test/ui/clients.test.mjs test/ui/charts.test.mjs)
if [ $# -gt 0 ]; then files=("$@"); fi
exec node --test --test-concurrency=1 --test-reporter=spec "${files[@]}"
