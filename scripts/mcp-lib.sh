# Helpers for the scripts that run a built router as a client would
# (scripts/test-arm64.sh, scripts/test-image.sh). Source it after setting
# LOG_PREFIX and SCRATCH (a directory of the caller's, removed by it).
# Needs curl, python3 (a free port) and bash 5 (coproc, EPOCHREALTIME).

log() { echo "$LOG_PREFIX: $*"; }
fail() {
  echo "$LOG_PREFIX: FAIL: $*" >&2
  exit 1
}

# free_port: a loopback port nothing listens on now.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcpr-platform-check","version":"1"}}}'
INITIALIZED='{"jsonrpc":"2.0","method":"notifications/initialized"}'

# mcp PORT BODY [SESSION]: POST one JSON-RPC message to /mcp, print the
# answer's JSON (the data line of an SSE answer); headers go to $SCRATCH/h.
mcp() {
  curl -sS --max-time 20 -D "$SCRATCH/h" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' ${3:+-H "Mcp-Session-Id: $3"} \
    --data "$2" "http://127.0.0.1:$1/mcp" | sed -n 's/^data: //; /^{/p'
}

# wait_mcp PORT [SECONDS]: until /mcp answers initialize (default 30 s).
wait_mcp() {
  local deadline=$((SECONDS + ${2:-30}))
  until mcp "$1" "$INIT" 2>/dev/null | grep -q '"serverInfo"'; do
    ((SECONDS < deadline)) || return 1
    sleep 0.3
  done
}

# http_call PORT TOOL ARGS_JSON [SECONDS]: initialize a session on
# 127.0.0.1:PORT/mcp, wait until tools/list names TOOL, call it and print the
# answer to the call (id 2). Fails after SECONDS (default 60).
http_call() {
  local port=$1 tool=$2 args=$3 deadline=$((SECONDS + ${4:-60})) session answer
  wait_mcp "$port" "${4:-60}" || return 1
  session=$(sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: *\([^\r]*\).*/\1/p' "$SCRATCH/h")
  mcp "$port" "$INITIALIZED" "$session" >/dev/null
  until mcp "$port" '{"jsonrpc":"2.0","id":3,"method":"tools/list"}' "$session" | grep -qF "\"$tool\""; do
    ((SECONDS < deadline)) || { echo "no tool $tool listed" >&2; return 1; }
    sleep 0.3
  done
  answer=$(mcp "$port" "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"$tool\",\"arguments\":$args}}" "$session")
  grep '"id":2,' <<<"$answer"
}

# stdio_call TOOL ARGS_JSON LOG CMD...: runs CMD as an MCP client runs a
# stdio server: writes initialize and initialized to its stdin, asks
# tools/list until TOOL is listed, calls TOOL and prints the answer to the
# call. Then closes CMD's stdin, which must end it within 15 s with status 0
# (a client hanging up ends the server). CMD's stderr goes to LOG. Fails
# (non-zero) when a step takes longer than 60 s.
stdio_call() {
  local tool=$1 args=$2 errlog=$3
  shift 3
  local deadline=$((SECONDS + 60)) line id=100 answer="" listed=""
  coproc STDIO_SERVER { exec "$@" 2>"$errlog"; }
  local pid=$STDIO_SERVER_PID in=${STDIO_SERVER[1]} out=${STDIO_SERVER[0]}
  # read_answer ID: the next line answering ID (notifications are skipped).
  read_answer() {
    while ((SECONDS < deadline)); do
      IFS= read -r -t $((deadline - SECONDS)) line <&"$out" || return 1
      [[ $line == *"\"id\":$1,"* || $line == *"\"id\":$1}"* ]] && return 0
    done
    return 1
  }
  printf '%s\n' "$INIT" >&"$in"
  read_answer 1 || { echo "stdio: no answer to initialize" >&2; kill -KILL "$pid" 2>/dev/null; return 1; }
  printf '%s\n' "$INITIALIZED" >&"$in"
  while [[ -z $listed ]]; do
    id=$((id + 1))
    printf '{"jsonrpc":"2.0","id":%d,"method":"tools/list"}\n' "$id" >&"$in"
    read_answer "$id" || { echo "stdio: no answer to tools/list" >&2; kill -KILL "$pid" 2>/dev/null; return 1; }
    if [[ $line == *"\"$tool\""* ]]; then listed=1; else sleep 0.3; fi
  done
  printf '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"%s","arguments":%s}}\n' "$tool" "$args" >&"$in"
  read_answer 2 || { echo "stdio: no answer to tools/call" >&2; kill -KILL "$pid" 2>/dev/null; return 1; }
  answer=$line
  exec {in}>&-
  local stop=$((SECONDS + 15))
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < stop)); do sleep 0.2; done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null
    echo "stdio: still running 15 s after its stdin closed" >&2
    return 1
  fi
  wait "$pid" || { echo "stdio: exited with status $? after its stdin closed" >&2; return 1; }
  echo "$answer"
}

# descendants PID: every process under PID (children, theirs, ...).
descendants() {
  local c
  for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do
    echo "$c"
    descendants "$c"
  done
}

# alive PID...: those of the PIDs still running (zombies count as gone).
alive() {
  local p st out=()
  for p in "$@"; do
    st=$(ps -o stat= -p "$p" 2>/dev/null) || continue
    [[ $st == Z* ]] || out+=("$p")
  done
  echo "${out[*]}"
}

# stop_tree PID WHAT: SIGTERM to PID, then waits up to 15 s for it and every
# process under it (taken before the signal) to be gone; fails naming those
# left.
stop_tree() {
  local pid=$1 what=$2 tree left deadline
  tree=$(descendants "$pid")
  kill -TERM "$pid"
  deadline=$((SECONDS + 15))
  while left=$(alive "$pid" $tree) && [[ -n $left ]]; do
    ((SECONDS < deadline)) || {
      ps -o pid,ppid,args -p "${left// /,}" >&2 || true
      fail "$what: still running 15 s after SIGTERM: $left"
    }
    sleep 0.2
  done
  log "$what stopped on SIGTERM with what it started ($(wc -w <<<"$pid $tree") processes, none left)"
}
