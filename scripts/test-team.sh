#!/usr/bin/env bash
# make test-team (issue 29): three replicas of `mcp-router serve` on one
# throwaway Postgres and one Redis behind HAProxy, checked with the go-sdk
# (2026-07-28) and the TypeScript SDK (2025-11-25 sessions). The cluster and
# the Go checks are test/team/*_test.go (build tag teamtest); they run the
# TypeScript checks, test/team/*.test.mjs, under Node 22 from test/peers.
# Everything started ends with the test (docs/testing.md, docs/team.md).
#
#   scripts/test-team.sh [go test flags, e.g. -run 'TestTeam/RateLimit']
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

scripts/install-system-deps.sh # postgresql, redis-server, haproxy

PEERS=$ROOT/test/peers
if [ ! -f "$PEERS/node_modules/.package-lock.json" ] || [ "$PEERS/package-lock.json" -nt "$PEERS/node_modules/.package-lock.json" ]; then
  (cd "$PEERS" && npm ci --no-audit --no-fund)
  touch "$PEERS/node_modules/.package-lock.json"
fi
if [ ! -x "$ROOT/.tools/bin/everything-server" ]; then
  echo "test-team: missing .tools/bin/everything-server — run: make test-deps" >&2
  exit 1
fi

mkdir -p "$ROOT/test-results/team"
export GOFLAGS=${GOFLAGS:--buildvcs=false}
go build -tags nogui -o "$ROOT/test-results/team/mcp-router" .
go vet -tags teamtest ./test/team/
start=$SECONDS
MCPR_TEAM_BIN=$ROOT/test-results/team/mcp-router MCPR_REQUIRE_PEERS=1 \
  go test -tags teamtest -count=1 -v -timeout 15m ./test/team/ -run TestTeam "$@"
echo "test-team: $((SECONDS - start)) s"
