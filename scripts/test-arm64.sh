#!/usr/bin/env bash
# Runs the linux/arm64 headless archive of make dist (docs/install.md):
#
#   scripts/test-arm64.sh [OUTDIR]
#
# On an amd64 machine every arm64 program runs under QEMU's user-mode
# emulator, qemu-aarch64-static (Debian's qemu-user-static, installed by
# scripts/install-system-deps.sh); on an arm64 machine (the release
# workflow's arm64 job) they run natively. It builds the archive with
# scripts/dist.sh and the go-sdk everything-server for arm64 as the upstream,
# then checks:
#   - the binary is a static aarch64 ELF and `--version` answers;
#   - `serve --no-auth` on a loopback port forwards one tools/call to the
#     arm64 upstream (a stdio server), and SIGTERM ends both;
#   - `stdio` mode, with this script as the client on its stdin, answers the
#     same call and exits when its stdin closes.
# The upstream is started as `qemu-aarch64-static <server>`: a process the
# emulated router starts is a host exec, and this machine registers no
# binfmt_misc handler for arm64 (none is needed then).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-$(mktemp -d -t mcp-router-test-arm64.XXXXXX)}
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
LOG_PREFIX=test-arm64
SCRATCH=$(mktemp -d -t mcp-router-arm64-scratch.XXXXXX)
# shellcheck source=scripts/mcp-lib.sh
. scripts/mcp-lib.sh
started=$EPOCHREALTIME
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  rm -rf "$SCRATCH"
}
trap cleanup EXIT

case $(uname -m) in
  aarch64 | arm64) QEMU=() how=natively ;;
  *)
    command -v qemu-aarch64-static >/dev/null ||
      fail "qemu-aarch64-static is missing: apt-get install qemu-user-static (scripts/install-system-deps.sh does)"
    QEMU=(qemu-aarch64-static) how="under $(qemu-aarch64-static --version | head -1)"
    ;;
esac

export DIST=$OUT/dist
rm -rf "$DIST"
scripts/dist.sh headless-linux-arm64 >/dev/null
tgz=$(ls "$DIST"/mcp-router_*_linux_arm64.tar.gz)
tar -C "$SCRATCH" -xzf "$tgz"
bin=$(ls "$SCRATCH"/mcp-router_*_linux_arm64/mcp-router)
desc=$(file -b "$bin")
[[ $desc == *"ARM aarch64"* && $desc == *"statically linked"* ]] || fail "$bin is not a static aarch64 ELF: $desc"

# The upstream: the go-sdk everything-server at the version go.mod requires.
upstream=$SCRATCH/everything-server-arm64
CGO_ENABLED=0 GOOS=linux GOARCH=arm64 go build -trimpath -o "$upstream" \
  github.com/modelcontextprotocol/go-sdk/conformance/everything-server || fail "go build the arm64 everything-server"
[[ $(file -b "$upstream") == *"ARM aarch64"* ]] || fail "the upstream is not aarch64: $(file -b "$upstream")"

v=$("${QEMU[@]}" "$bin" --version) || fail "--version"
[[ $v == "mcp-router "* ]] || fail "unexpected --version output: $v"
log "$(basename "$tgz"): $v ($how)"

data=$SCRATCH/data
"${QEMU[@]}" "$bin" --data-dir "$data" servers add everything -- "${QEMU[@]}" "$upstream" >/dev/null || fail "servers add"

port=$(free_port)
"${QEMU[@]}" "$bin" --data-dir "$data" serve --no-auth --listen "127.0.0.1:$port" >"$OUT/arm64-serve.log" 2>&1 &
spid=$!
pids+=("$spid")
result=$(http_call "$port" everything__test_simple_text '{}' 90) || { cat "$OUT/arm64-serve.log" >&2; fail "serve: tools/call through the arm64 router"; }
grep -qF 'This is a simple text response for testing.' <<<"$result" || fail "serve: tools/call answered $result"
log "serve (arm64, $how) forwarded tools/call to the arm64 upstream: $result"
[[ -n $(descendants "$spid") ]] || fail "serve: no upstream process under the router (pid $spid)"
stop_tree "$spid" "arm64 serve"

result=$(stdio_call everything__test_simple_text '{}' "$OUT/arm64-stdio.log" "${QEMU[@]}" "$bin" --data-dir "$data" stdio) ||
  { cat "$OUT/arm64-stdio.log" >&2; fail "stdio mode"; }
grep -qF 'This is a simple text response for testing.' <<<"$result" || fail "stdio: tools/call answered $result"
log "stdio (arm64, $how) answered tools/call on stdout and exited when stdin closed: $result"

ms=$(((${EPOCHREALTIME/./} - ${started/./}) / 1000))
log "PASS in $((ms / 1000)).$(printf %03d $((ms % 1000))) s"
