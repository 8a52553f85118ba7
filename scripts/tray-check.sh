#!/usr/bin/env bash
# Tray and close-to-tray check of the built app, in a real window under
# Xvfb with a private D-Bus session bus and a stand-in StatusNotifierWatcher
# (test/traycheck/watcher.go). Three runs:
#   1. closeToTray on: closing the window (WM_DELETE_WINDOW, as a window
#      manager's close button sends) hides it and the endpoint keeps
#      answering; the tray menu shows the status line, Open window shows the
#      window again, Quit exits 0.
#   2. closeToTray on, SIGTERM while the tray is up: exits 0.
#   3. closeToTray off: closing the window exits 0.
#   4. approval: with the window closed to the tray, a tool call that a
#      policy rule says needs a person's approval (the UI's tool runner,
#      over /ui/api with auth off) brings the window back: it is mapped and
#      viewable, and not iconified (_NET_WM_STATE has no _NET_WM_STATE_HIDDEN;
#      Xvfb runs no window manager, so this only catches an app that
#      iconifies the window itself); the pending call is listed, and denying
#      it ends the call as denied by the UI.
#
#   scripts/tray-check.sh [BINARY] [OUTDIR]
#   TRAY_CHECK_MODES="sigterm sigterm" scripts/tray-check.sh …   (some runs only)
#
# Needs xvfb, xdotool, x11-utils (xwininfo), dbus-daemon, libglib2.0-bin
# (gdbus), gcc and libx11-dev. Exits non-zero with a reason on any failure.
set -euo pipefail
BIN=$(realpath "${1:-build/bin/mcp-router}")
OUT=$(realpath -m "${2:-$(mktemp -d)}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"

fail() { echo "tray-check: FAIL: $*" >&2; exit 1; }

if [[ ${1:-} == --inside ]]; then :; fi

# approval_inside OUT: run 4 (see the top). The policy asks for approval of
# state_gate's get_state, the built-in server's tool (no external server).
approval_inside() {
  local out=$1 data wid api=http://127.0.0.1:39413/ui/api/call cpid pending id res state
  data=$(mktemp -d)
  "$out/watcher" >"$out/watcher.log" 2>&1 &
  wpid=$!
  trap 'kill "${wpid:-}" 2>/dev/null || true; [[ -n ${apid:-} ]] && kill -KILL "$apid" 2>/dev/null || true; [[ -n ${cpid:-} ]] && kill "$cpid" 2>/dev/null || true' EXIT
  MCP_ROUTER_DATA_DIR=$data "$BIN" settings set closeToTray on >/dev/null
  MCP_ROUTER_DATA_DIR=$data "$BIN" settings set port 39413 >/dev/null
  MCP_ROUTER_DATA_DIR=$data "$BIN" settings set auth off >/dev/null
  MCP_ROUTER_DATA_DIR=$data "$BIN" servers add state_gate --builtin >/dev/null || fail "approval: cannot add state_gate"
  cat >"$data/policy.yaml" <<'YAML'
policies:
  - name: ask-a-person
    match: {tools: ["get_state"]}
    require: {human_approval: true, approval_timeout_seconds: 60}
YAML
  MCP_ROUTER_DATA_DIR=$data "$BIN" >"$out/app.log" 2>&1 &
  apid=$!
  for _ in $(seq 1 200); do grep -q "frontend ready" "$out/app.log" && break; sleep 0.2; done
  grep -q "frontend ready" "$out/app.log" || fail "approval: the app did not render (log: $out/app.log)"
  wid=$(timeout 10 xdotool search --sync --name '^MCP Router$' | head -1)
  for _ in $(seq 1 50); do [[ -n $(awk '{print $1}' "$out/watcher.log") ]] && break; sleep 0.2; done
  [[ -n $(awk '{print $1}' "$out/watcher.log") ]] || fail "approval: no tray item registered with the watcher"
  for _ in $(seq 1 100); do
    curl -fs -X POST -H "Content-Type: application/json" "$api/ListTools" -d '[]' | grep -q '"state_gate__get_state"' && break
    sleep 0.2
  done
  curl -fs -X POST -H "Content-Type: application/json" "$api/ListTools" -d '[]' | grep -q '"state_gate__get_state"' || fail "approval: state_gate__get_state is not published"
  "$out/wmdelete" "$wid"
  for _ in $(seq 1 50); do xwininfo -id "$wid" | grep -q IsUnMapped && break; sleep 0.2; done
  xwininfo -id "$wid" | grep -q IsUnMapped || fail "approval: the window did not close to the tray"
  kill -0 "$apid" 2>/dev/null || fail "approval: closing the window quit the app"
  # The call waits for a person: in the background, its answer to a file.
  curl -s -X POST -H "Content-Type: application/json" "$api/CallTool" -d '["state_gate__get_state", "{}"]' >"$out/call.json" &
  cpid=$!
  for _ in $(seq 1 75); do xwininfo -id "$wid" | grep -q IsViewable && break; sleep 0.2; done
  xwininfo -id "$wid" | grep -q IsViewable || fail "approval: the window stayed hidden while a call waits for approval ($(xwininfo -id "$wid" | grep 'Map State'))"
  state=$(xprop -id "$wid" _NET_WM_STATE 2>&1 || true)
  [[ $state != *_NET_WM_STATE_HIDDEN* ]] || fail "approval: the window is iconified: $state"
  pending=$(curl -fs -X POST -H "Content-Type: application/json" "$api/PendingApprovals" -d '[]') || fail "approval: PendingApprovals failed"
  [[ $pending == *'"rule":"ask-a-person"'* && $pending == *'"tool":"get_state"'* ]] || fail "approval: pending approvals: $pending"
  kill -0 "$cpid" 2>/dev/null || fail "approval: the call ended before anyone answered: $(cat "$out/call.json")"
  id=$(grep -o '"id":"[^"]*"' <<<"$pending" | head -1 | cut -d'"' -f4)
  curl -fs -X POST -H "Content-Type: application/json" "$api/DecideApproval" -d "[\"$id\", \"deny\"]" >/dev/null || fail "approval: DecideApproval failed"
  wait "$cpid" || true
  cpid=""
  res=$(cat "$out/call.json")
  [[ $res == *"'state_gate__get_state' was denied by the UI"* ]] || fail "approval: the denied call answered: $res"
  kill -TERM "$apid"
  for _ in $(seq 1 75); do kill -0 "$apid" 2>/dev/null || break; sleep 0.2; done
  kill -0 "$apid" 2>/dev/null && fail "approval: the app did not exit after SIGTERM"
  wait "$apid" || fail "approval: exit status $?"
  echo "tray-check: approval: a call waiting for approval brought the window back from the tray (viewable, not iconified; ${state}); denied in the UI, the call answered: was denied by the UI"
}

inside() {
  local mode=$1 out=$2 data wid sender layout quit_id open_id
  if [[ $mode == approval ]]; then
    approval_inside "$out"
    return
  fi
  data=$(mktemp -d)
  "$out/watcher" >"$out/watcher.log" 2>&1 &
  wpid=$!
  trap 'kill "${wpid:-}" 2>/dev/null || true; [[ -n ${apid:-} ]] && kill -KILL "$apid" 2>/dev/null || true' EXIT
  local tray=on
  [[ $mode == off ]] && tray=off
  MCP_ROUTER_DATA_DIR=$data "$BIN" settings set closeToTray "$tray" >/dev/null
  MCP_ROUTER_DATA_DIR=$data "$BIN" settings set port 39412 >/dev/null
  MCP_ROUTER_DATA_DIR=$data "$BIN" >"$out/app.log" 2>&1 &
  apid=$!
  for _ in $(seq 1 200); do grep -q "frontend ready" "$out/app.log" && break; sleep 0.2; done
  grep -q "frontend ready" "$out/app.log" || fail "$mode: the app did not render (log: $out/app.log)"
  wid=$(timeout 10 xdotool search --sync --name '^MCP Router$' | head -1)
  sender=$(awk '{print $1}' "$out/watcher.log" | tail -1)
  [[ -n $sender ]] || fail "$mode: no tray item registered with the watcher"
  "$out/wmdelete" "$wid"
  if [[ $mode == off ]]; then
    for _ in $(seq 1 50); do kill -0 "$apid" 2>/dev/null || break; sleep 0.2; done
    kill -0 "$apid" 2>/dev/null && fail "off: closing the window did not quit"
    wait "$apid" || fail "off: exit status $?"
    echo "tray-check: closeToTray off: closing the window quit the app (status 0)"
    return
  fi
  sleep 2
  kill -0 "$apid" 2>/dev/null || fail "$mode: closing the window quit the app"
  xwininfo -id "$wid" | grep -q IsUnMapped || fail "$mode: the window is still shown after closing"
  curl -fs http://127.0.0.1:39412/ui/api/session >/dev/null || fail "$mode: the endpoint stopped answering"
  layout=$(gdbus call --session --dest "$sender" --object-path /StatusNotifierItem/menu \
    --method com.canonical.dbusmenu.GetLayout -- 0 -1 '@as []')
  grep -q "Router on http://127.0.0.1:39412/mcp" <<<"$layout" || fail "$mode: no status line in the tray menu: $layout"
  open_id=$(grep -o "([0-9]*, {[^}]*'label': <'Open window'>" <<<"$layout" | grep -o '^([0-9]*' | tr -d '(')
  quit_id=$(grep -o "([0-9]*, {[^}]*'label': <'Quit'>" <<<"$layout" | grep -o '^([0-9]*' | tr -d '(')
  [[ -n $open_id && -n $quit_id ]] || fail "$mode: no Open window / Quit in the menu: $layout"
  gdbus call --session --dest "$sender" --object-path /StatusNotifierItem/menu \
    --method com.canonical.dbusmenu.Event -- "$open_id" clicked '<"">' 0 >/dev/null
  sleep 1
  xwininfo -id "$wid" | grep -q IsViewable || fail "$mode: Open window did not show the window"
  if [[ $mode == sigterm ]]; then
    kill -TERM "$apid"
  else
    gdbus call --session --dest "$sender" --object-path /StatusNotifierItem/menu \
      --method com.canonical.dbusmenu.Event -- "$quit_id" clicked '<"">' 0 >/dev/null
  fi
  for _ in $(seq 1 75); do kill -0 "$apid" 2>/dev/null || break; sleep 0.2; done
  if kill -0 "$apid" 2>/dev/null; then
    # Where it hangs: the Go runtime prints every goroutine on SIGQUIT.
    kill -QUIT "$apid" 2>/dev/null || true
    sleep 2
    tail -n 400 "$out/app.log" >&2 || true
    fail "$mode: the app did not exit (goroutines in $out/app.log)"
  fi
  wait "$apid" || fail "$mode: exit status $?"
  echo "tray-check: closeToTray on ($mode): closed to the tray, endpoint up, menu ok, Open window shows it, $([[ $mode == sigterm ]] && echo SIGTERM || echo Quit) exits 0"
}

if [[ ${TRAY_CHECK_INSIDE:-} != "" ]]; then
  inside "$TRAY_CHECK_INSIDE" "$OUT/$TRAY_CHECK_INSIDE"
  exit 0
fi

for tool in xvfb-run dbus-run-session xdotool xwininfo xprop gdbus gcc curl; do
  command -v "$tool" >/dev/null || fail "$tool is missing (make system-deps)"
done
gcc -o "$OUT/wmdelete" "$ROOT/test/traycheck/wmdelete.c" -lX11 || fail "cannot build wmdelete (libx11-dev)"
(cd "$ROOT" && go build -o "$OUT/watcher" test/traycheck/watcher.go) || fail "cannot build the watcher"
for mode in ${TRAY_CHECK_MODES:-quit sigterm off approval}; do
  mkdir -p "$OUT/$mode"
  cp "$OUT/wmdelete" "$OUT/watcher" "$OUT/$mode/"
  TRAY_CHECK_INSIDE=$mode timeout 120 xvfb-run -a dbus-run-session -- "$0" "$BIN" "$OUT" 2>"$OUT/$mode/stderr.log" ||
    { cat "$OUT/$mode/stderr.log" >&2; fail "$mode run failed"; }
done
echo "tray-check: PASS ($OUT)"
