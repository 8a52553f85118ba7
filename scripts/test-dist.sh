#!/usr/bin/env bash
# Checks what make dist builds, as a user gets it (docs/install.md):
#
#   scripts/test-dist.sh [OUTDIR]
#
# Builds, into OUTDIR/dist, only what the checks need: the .deb of this
# machine's WebKitGTK line, the Windows amd64 exe and installer (signed with
# a throwaway self-signed certificate) and the headless linux/amd64 archive.
# Then:
#   - installs the .deb with apt, checks the binary on PATH, the desktop entry
#     and the icons, starts the installed app under Xvfb (window, /mcp
#     answers), removes the package and checks the user's data dir is intact;
#   - installs the .rpm with rpm into an empty root, checks its files,
#     Requires and version, removes it with the data dir left alone;
#   - checks the exe and installer are PE files of the right machine and that
#     osslsigncode verifies their signatures;
#   - runs the headless binary from an empty directory, checks it links no
#     library at all (no GTK), and sends one tools/call through
#     `serve --no-auth` to a real upstream (server-everything).
# Needs root or sudo for apt. Exits non-zero with a reason on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${1:-$(mktemp -d -t mcp-router-test-dist.XXXXXX)}
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
export DIST=$OUT/dist
rm -rf "$DIST"
EVERYTHING=${EVERYTHING:-$ROOT/test/peers/node_modules/.bin/mcp-server-everything}
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi

log() { echo "test-dist: $*"; }
fail() {
  echo "test-dist: FAIL: $*" >&2
  exit 1
}
started=$EPOCHREALTIME
scratch=$(mktemp -d -t mcp-router-dist-scratch.XXXXXX)
pids=()
installed_here=""
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  if [[ -n $installed_here ]]; then $SUDO apt-get remove -y -q mcp-router >/dev/null 2>&1 || true; fi
  rm -rf "$scratch"
}
trap cleanup EXIT

# descendants PID: every process under PID (children, theirs, ...).
descendants() {
  local c
  for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do echo "$c"; descendants "$c"; done
}
# alive PID...: those of the PIDs still running (zombies count as gone).
alive() {
  local p out=()
  for p in "$@"; do
    st=$(ps -o stat= -p "$p" 2>/dev/null) || continue
    [[ $st == Z* ]] || out+=("$p")
  done
  echo "${out[*]}"
}

# free_port: a port nothing listens on now.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# mcp PORT BODY [SESSION]: POST one JSON-RPC message to /mcp, print the
# answer's JSON (the data line of an SSE answer); headers go to $scratch/h.
mcp() {
  curl -sS --max-time 20 -D "$scratch/h" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' ${3:+-H "Mcp-Session-Id: $3"} \
    --data "$2" "http://127.0.0.1:$1/mcp" | sed -n 's/^data: //; /^{/p'
}
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test-dist","version":"1"}}}'

# wait_mcp PORT: until /mcp answers initialize (30 s).
wait_mcp() {
  local deadline=$((SECONDS + 30))
  until mcp "$1" "$INIT" 2>/dev/null | grep -q '"serverInfo"'; do
    ((SECONDS < deadline)) || return 1
    sleep 0.3
  done
}

line=4.0
[[ -n $(scripts/webkit-tags.sh) ]] && line=4.1

# A throwaway code-signing certificate: dist.sh signs with it.
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=MCP Router test signing" \
  -addext "extendedKeyUsage=codeSigning" -keyout "$scratch/key.pem" -out "$scratch/cert.pem" 2>/dev/null ||
  fail "openssl could not make a test certificate"
# TRIMPATH empty: the Linux desktop build then reuses make build's compile cache.
TRIMPATH= MCPR_SIGN_CERT=$scratch/cert.pem MCPR_SIGN_KEY=$scratch/key.pem scripts/dist.sh "deb-$line" windows-amd64 headless-linux-amd64
built=$EPOCHREALTIME
(cd "$DIST" && sha256sum -c --quiet SHA256SUMS) || fail "SHA256SUMS does not match the files"

# ---- the .deb, installed with apt -------------------------------------------
deb=$(ls "$DIST"/mcp-router_*_webkit2gtk-${line}_amd64.deb)
rpm=$(ls "$DIST"/mcp-router_*_webkit2gtk-${line}_amd64.rpm)
[[ -s $rpm ]] || fail "no .rpm beside the .deb"
dpkg-query -W mcp-router >/dev/null 2>&1 && fail "a package mcp-router is already installed here; remove it first"
deps=$(dpkg-deb -f "$deb" Depends)
[[ $deps == *"libwebkit2gtk-$line"* && $deps == *libgtk-3-0* ]] || fail "the .deb's Depends ($deps) lacks WebKitGTK $line or GTK 3"
installed_here=1
$SUDO apt-get install -y -q "$deb" >"$OUT/apt-install.log" 2>&1 || { cat "$OUT/apt-install.log"; fail "apt-get install $deb"; }
log "installed $(basename "$deb") with apt (Depends: $deps)"
[[ $(command -v mcp-router) == /usr/bin/mcp-router ]] || fail "mcp-router is not on PATH at /usr/bin after install"
desktop-file-validate /usr/share/applications/mcp-router.desktop 2>/dev/null ||
  grep -q '^Exec=mcp-router$' /usr/share/applications/mcp-router.desktop || fail "no valid desktop entry"
for s in 16 32 48 64 128 256 512; do
  identify -format '%wx%h' "/usr/share/icons/hicolor/${s}x${s}/apps/mcp-router.png" 2>/dev/null | grep -qx "${s}x${s}" ||
    fail "no ${s}x${s} hicolor icon"
done
v=$(mcp-router --version) || fail "mcp-router --version"
log "installed binary says: $v"
[[ $v == "mcp-router "*[0-9a-f]* ]] || fail "unexpected --version output: $v"

# The installed app under Xvfb, with a HOME of its own: its data dir is
# then the default one, ~/.config/mcp-router, as for a user.
home=$scratch/home
mkdir -p "$home"
port=$(free_port)
HOME=$home mcp-router settings set port "$port" >/dev/null || fail "settings set port"
token=$(HOME=$home mcp-router tokens create test-dist 2>/dev/null) || fail "tokens create"
data=$home/.config/mcp-router
[[ -f $data/mcp-router.db ]] || ls "$data"/*.db >/dev/null 2>&1 || fail "no database in the default data dir $data"
cat >"$scratch/inside-x.sh" <<'EOF'
set -euo pipefail
HOME=$1 mcp-router >"$2/app.log" 2>&1 &
pid=$!
trap 'kill -KILL $pid 2>/dev/null || true' EXIT
deadline=$((SECONDS + 60))
until grep -qF 'frontend ready: servers' "$2/app.log"; do
  kill -0 $pid 2>/dev/null || { echo "the installed app exited early"; exit 1; }
  ((SECONDS < deadline)) || { echo "the installed app did not render within 60 s"; exit 1; }
  sleep 0.1
done
xdotool search --sync --name '^MCP Router$' >/dev/null || { echo "no window named MCP Router"; exit 1; }
bash "$3" "$4" "$5" || { echo "/mcp of the installed app did not answer"; exit 1; }
kill -TERM $pid
wait $pid || true
EOF
cat >"$scratch/probe.sh" <<EOF
set -euo pipefail
for i in \$(seq 1 100); do
  curl -s --max-time 5 -H "Authorization: Bearer \$2" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    --data '$INIT' "http://127.0.0.1:\$1/mcp" | grep -q '"serverInfo"' && { echo "test-dist: the installed app's /mcp answered initialize"; exit 0; }
  sleep 0.3
done
exit 1
EOF
xvfb-run -a -s "-screen 0 1280x900x24" bash "$scratch/inside-x.sh" "$home" "$OUT" "$scratch/probe.sh" "$port" "$token" ||
  { cat "$OUT/app.log" >&2; fail "the installed app under Xvfb"; }
log "the installed app opened its window under Xvfb"
before=$(cd "$data" && find . -type f | sort)
$SUDO apt-get remove -y -q mcp-router >"$OUT/apt-remove.log" 2>&1 || { cat "$OUT/apt-remove.log"; fail "apt-get remove"; }
installed_here=""
[[ ! -e /usr/bin/mcp-router && ! -e /usr/share/applications/mcp-router.desktop ]] || fail "apt-get remove left the binary or desktop entry"
after=$(cd "$data" && find . -type f | sort)
[[ -n $before && $before == "$after" ]] || fail "the data dir changed on uninstall: before [$before] after [$after]"
log "removed the package; the data dir $data is still there: $(tr '\n' ' ' <<<"$after")"

# ---- the .rpm, installed with rpm into a root of its own ---------------------
# No rpm-based system here: Debian's rpm installs the package into an empty
# root (--nodeps: that root has no GTK; the host's libraries run the binary),
# which shows its files, its Requires and that `rpm -e` leaves data alone.
rpmroot=$scratch/rpmroot
mkdir -p "$rpmroot"
rpm --root "$rpmroot" --initdb
reqs=$(rpm -qpR "$rpm" 2>/dev/null | tr '\n' ' ')
[[ $reqs == *"webkit2gtk$line"* && $reqs == *gtk3* ]] || fail "the .rpm's Requires ($reqs) lacks webkit2gtk$line or gtk3"
rpm -i --root "$rpmroot" --nodeps "$rpm" 2>"$OUT/rpm-install.log" || { cat "$OUT/rpm-install.log"; fail "rpm -i $rpm"; }
for f in usr/bin/mcp-router usr/share/applications/mcp-router.desktop usr/share/icons/hicolor/512x512/apps/mcp-router.png; do
  [[ -s $rpmroot/$f ]] || fail "the .rpm did not install /$f"
done
[[ $("$rpmroot/usr/bin/mcp-router" --version) == "$v" ]] || fail "the .rpm's binary says another version than the .deb's"
mkdir -p "$rpmroot/home/user/.config/mcp-router" && echo keep >"$rpmroot/home/user/.config/mcp-router/mcp-router.db"
rpm -e --root "$rpmroot" mcp-router 2>"$OUT/rpm-remove.log" || { cat "$OUT/rpm-remove.log"; fail "rpm -e"; }
[[ ! -e $rpmroot/usr/bin/mcp-router && $(cat "$rpmroot/home/user/.config/mcp-router/mcp-router.db") == keep ]] ||
  fail "rpm -e left the binary or touched the data dir"
log "installed $(basename "$rpm") with rpm into $rpmroot (Requires: $reqs), ran --version, removed it; data left alone"

# ---- Windows exe and installer ----------------------------------------------
# pe_machine FILE: the COFF machine field, e.g. 8664 (x86-64), aa64 (arm64), 014c (i386).
pe_machine() {
  local off
  [[ $(head -c2 "$1") == MZ ]] || return 1
  off=$(od -An -tu4 -j60 -N4 "$1" | tr -d ' ')
  [[ $(dd if="$1" bs=1 skip="$off" count=4 2>/dev/null | od -An -tx1 | tr -d ' \n') == 50450000 ]] || return 1
  od -An -tx2 -j$((off + 4)) -N2 "$1" | tr -d ' '
}
exe=$(ls "$DIST"/mcp-router_*_windows_amd64.exe)
inst=$(ls "$DIST"/mcp-router_*_windows_amd64-setup.exe)
[[ $(pe_machine "$exe") == 8664 ]] || fail "$exe is not an x86-64 PE file (machine $(pe_machine "$exe" || echo none))"
# NSIS writes a 32-bit x86 installer stub for every target architecture.
[[ $(pe_machine "$inst") == 014c ]] || fail "$inst is not a PE file with NSIS's i386 stub (machine $(pe_machine "$inst" || echo none))"
for f in "$exe" "$inst"; do
  osslsigncode verify -CAfile "$scratch/cert.pem" -in "$f" >"$scratch/verify.log" 2>&1 ||
    { cat "$scratch/verify.log"; fail "osslsigncode verify $f"; }
done
log "Windows: $(basename "$exe") (PE x86-64) and $(basename "$inst") (PE, NSIS i386 stub) verify with osslsigncode"

# ---- the headless archive, in an empty directory ----------------------------
tgz=$(ls "$DIST"/mcp-router_*_linux_amd64.tar.gz)
run=$scratch/empty
mkdir -p "$run"
tar -C "$run" -xzf "$tgz"
bin=$(ls "$run"/*/mcp-router)
file -b "$bin" | grep -q 'statically linked' || fail "the headless binary is not static: $(file -b "$bin")"
hdata=$scratch/headless-data
env -i HOME="$scratch" PATH=/usr/bin:/bin "$bin" --data-dir "$hdata" servers add everything -- "$EVERYTHING" stdio >/dev/null ||
  fail "headless: servers add"
hport=$(free_port)
# exec: $! must be the server's own PID, not a subshell's (killing a
# subshell orphaned the server and its upstream, still listening an hour on).
(cd "$run" && exec env -i HOME="$scratch" PATH=/usr/bin:/bin "$bin" --data-dir "$hdata" serve --no-auth --listen "127.0.0.1:$hport" >"$OUT/headless.log" 2>&1) &
hpid=$!
pids+=($hpid)
wait_mcp "$hport" || { cat "$OUT/headless.log"; fail "headless serve did not answer initialize"; }
session=$(sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: *\([^\r]*\).*/\1/p' "$scratch/h")
mcp "$hport" '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$session" >/dev/null
# Until the upstream has started and its tools are listed (30 s at most).
deadline=$((SECONDS + 30))
until mcp "$hport" '{"jsonrpc":"2.0","id":3,"method":"tools/list"}' "$session" | grep -q '"everything__echo"'; do
  ((SECONDS < deadline)) || { cat "$OUT/headless.log"; fail "headless: everything__echo never listed"; }
  sleep 0.3
done
answer=$(mcp "$hport" '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"everything__echo","arguments":{"message":"mcpr-dist"}}}' "$session")
result=$(grep '"id":2,' <<<"$answer" || true)
grep -qF '"text":"Echo: mcpr-dist"' <<<"$result" || { cat "$OUT/headless.log"; fail "headless tools/call answered: $answer"; }
log "headless linux/amd64 (static, no GTK) served tools/call: $result"
# The server ends on SIGTERM and takes its upstream with it: nothing it
# started may be left.
tree=$(descendants "$hpid")
[[ -n $tree ]] || fail "headless: no upstream process under the server (pid $hpid)"
kill -TERM "$hpid"
deadline=$((SECONDS + 15))
while left=$(alive $hpid $tree) && [[ -n $left ]]; do
  ((SECONDS < deadline)) || { ps -o pid,ppid,args -p "${left// /,}" || true; fail "headless: still running 15 s after SIGTERM: $left"; }
  sleep 0.2
done
log "headless serve stopped on SIGTERM with its upstream ($(wc -w <<<"$hpid $tree") processes, none left)"

ms=$(((${EPOCHREALTIME/./} - ${started/./}) / 1000))
bms=$(((${built/./} - ${started/./}) / 1000))
log "PASS in $((ms / 1000)).$(printf %03d $((ms % 1000))) s (building: $((bms / 1000)) s)"
