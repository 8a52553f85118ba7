#!/usr/bin/env bash
# Builds the Dockerfile with podman and runs the image as docs/docker.md
# says a user does (seed 000's deployment):
#
#   scripts/test-image.sh [OUTDIR]
#
# No container registry is reachable from this machine, so the Dockerfile's
# base images (golang:1.26-bookworm, debian:bookworm-slim) cannot be pulled.
# The script makes stand-ins once and keeps them in podman's storage:
#   - a Debian 12 minbase root made by mmdebstrap from Debian's mirror,
#     imported as localhost/mcpr-stand-in-debian:bookworm;
#   - that root plus this machine's Go toolchain at /usr/local/go, as
#     localhost/mcpr-stand-in-golang:<go version>.
# Then it builds the Dockerfile itself (GO_IMAGE and BASE_IMAGE set to the
# stand-ins, the host's Go module and build caches mounted so `go mod
# download` needs no network, apt reaching Debian's mirror over the host
# network), and checks:
#   - the image's user (1000:1000), entrypoint, command, data dir variable,
#     /data (0700, the image user's) and /init, and that node and npm run;
#   - stdio mode, `podman run -i --rm` with this script as the client on its
#     stdin, as a non-root uid with the data dir mounted and /init mounted
#     read-only: initialize, tools/list, one tools/call through a stdio
#     upstream (the go-sdk everything-server, mounted read-only), and the
#     container ends when stdin closes;
#   - HTTP mode: `serve` on a loopback port (host network, as
#     docker-compose.yml runs it), one tools/call, `podman stop` ends it;
#   - as the Helm chart runs it (deploy/helm/mcp-router): read-only root,
#     no capabilities, /data and /tmp root-owned 0777 dirs (an emptyDir),
#     the ConfigMap's environment, `serve` on all interfaces: /healthz and
#     /livez answer at a non-loopback address, /mcp wants a token;
#   - no container of this run is left.
# podman runs with runc and explicit ulimits: in this sandbox crun refuses
# the cgroup v1/v2 hybrid and raising RLIMIT_NOFILE/NPROC is not permitted.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-$(mktemp -d -t mcp-router-test-image.XXXXXX)}
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
LOG_PREFIX=test-image
SCRATCH=$(mktemp -d -t mcp-router-image-scratch.XXXXXX)
# shellcheck source=scripts/mcp-lib.sh
. scripts/mcp-lib.sh
started=$EPOCHREALTIME
RUN_LABEL=mcpr.test-image=$$-${EPOCHSECONDS}

for tool in podman runc mmdebstrap; do
  command -v $tool >/dev/null || fail "$tool is missing (scripts/install-system-deps.sh installs podman, runc and mmdebstrap)"
done

nofile=$(ulimit -Hn)
[[ $nofile == unlimited ]] && nofile=1048576
PODMAN=(podman --runtime "$(command -v runc)")
LIMITS=(--ulimit "nofile=$nofile:$nofile" --ulimit nproc=4096:4096)

cleanup() {
  local left
  left=$("${PODMAN[@]}" ps -aq --filter "label=$RUN_LABEL" 2>/dev/null || true)
  [[ -z $left ]] || "${PODMAN[@]}" rm -f $left >/dev/null 2>&1 || true
  rm -rf "$SCRATCH"
}
trap cleanup EXIT

# The stdio upstream in the container: the go-sdk everything-server at the
# version go.mod requires, static (the image has no Go), mounted read-only.
EVERYTHING=$SCRATCH/everything-server
CGO_ENABLED=0 go build -trimpath -o "$EVERYTHING" github.com/modelcontextprotocol/go-sdk/conformance/everything-server ||
  fail "go build the everything-server"

# ---- stand-ins for the base images ------------------------------------------
DEBIAN_IMAGE=localhost/mcpr-stand-in-debian:bookworm
GOVERSION=$(go env GOVERSION)
GO_IMAGE=localhost/mcpr-stand-in-golang:$GOVERSION-certs
if ! "${PODMAN[@]}" image exists "$DEBIAN_IMAGE"; then
  log "making $DEBIAN_IMAGE with mmdebstrap (Debian 12 minbase; once per machine)"
  mmdebstrap --quiet --variant=minbase bookworm "$SCRATCH/bookworm.tar" http://deb.debian.org/debian >"$OUT/mmdebstrap.log" 2>&1 ||
    { cat "$OUT/mmdebstrap.log" >&2; fail "mmdebstrap bookworm"; }
  "${PODMAN[@]}" import --quiet "$SCRATCH/bookworm.tar" "$DEBIAN_IMAGE" >/dev/null || fail "podman import"
  rm -f "$SCRATCH/bookworm.tar"
fi
if ! "${PODMAN[@]}" image exists "$GO_IMAGE"; then
  log "making $GO_IMAGE: $DEBIAN_IMAGE with $(go env GOROOT) at /usr/local/go (once per Go version)"
  # The golang images carry ca-certificates: this one the host's bundle,
  # which trusts what the host's Go trusts on the way to the module proxy.
  printf '%s\n' "FROM $DEBIAN_IMAGE" "COPY . /usr/local/go" \
    'RUN mkdir -p /etc/ssl/certs && cp /host-certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt' \
    'ENV GOPATH=/go PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    'WORKDIR /go' >"$SCRATCH/Containerfile.go"
  "${PODMAN[@]}" build --quiet --pull=never --network none "${LIMITS[@]}" -v /etc/ssl/certs:/host-certs:ro \
    -f "$SCRATCH/Containerfile.go" -t "$GO_IMAGE" "$(go env GOROOT)" >/dev/null || fail "podman build $GO_IMAGE"
fi

# ---- the Dockerfile ----------------------------------------------------------
# MCPR_TEST_IMAGE: another tag, so a run does not replace the image another
# run on the same machine is using.
IMAGE=${MCPR_TEST_IMAGE:-localhost/mcp-router:test-image}
version=$(git describe --tags --always 2>/dev/null || echo dev)
built_at=$EPOCHREALTIME
"${PODMAN[@]}" build --pull=never --network host "${LIMITS[@]}" \
  --build-arg "GO_IMAGE=$GO_IMAGE" --build-arg "BASE_IMAGE=$DEBIAN_IMAGE" --build-arg "VERSION=$version" \
  -v "$(go env GOMODCACHE):/go/pkg/mod" -v "$(go env GOCACHE):/root/.cache/go-build" \
  -t "$IMAGE" -f Dockerfile . >"$OUT/image-build.log" 2>&1 || { tail -40 "$OUT/image-build.log" >&2; fail "podman build of the Dockerfile"; }
bs=$(((${EPOCHREALTIME/./} - ${built_at/./}) / 1000000))
log "built the Dockerfile into $IMAGE in $bs s (log: $OUT/image-build.log)"

# What the image says about itself (podman image inspect).
conf=$("${PODMAN[@]}" image inspect --format '{{.Config.User}}|{{json .Config.Entrypoint}}|{{json .Config.Cmd}}|{{json .Config.Env}}|{{json .Config.Volumes}}' "$IMAGE")
IFS='|' read -r user entry cmd env volumes <<<"$conf"
[[ $user == 1000:1000 ]] || fail "the image's user is '$user', want 1000:1000"
[[ $entry == '["mcp-router"]' && $cmd == '["stdio"]' ]] || fail "entrypoint $entry command $cmd, want [\"mcp-router\"] [\"stdio\"]"
[[ $env == *'"MCP_ROUTER_DATA_DIR=/data"'* ]] || fail "no MCP_ROUTER_DATA_DIR=/data in $env"
[[ $volumes == *'"/data"'* ]] || fail "/data is not a volume: $volumes"
inside=$("${PODMAN[@]}" run --rm "${LIMITS[@]}" --network none --label "$RUN_LABEL" --entrypoint sh "$IMAGE" -c \
  'id -u; stat -c "%a %u" /data /init; mcp-router --version; node --version; npm --version' 2>&1) || fail "running sh in the image: $inside"
mapfile -t got <<<"$inside"
[[ ${got[0]} == 1000 ]] || fail "the image runs as uid ${got[0]}, want 1000"
[[ ${got[1]} == "700 1000" && ${got[2]} == "755 1000" ]] || fail "/data is '${got[1]}', /init '${got[2]}' (mode uid); want '700 1000' and '755 1000'"
[[ ${got[3]} == "mcp-router $version" ]] || fail "mcp-router --version in the image says '${got[3]}', want 'mcp-router $version'"
[[ ${got[4]} == v* && -n ${got[5]} ]] || fail "node or npm does not run in the image: $inside"
log "image: user 1000:1000, entrypoint mcp-router, command stdio, /data 0700 and /init of uid 1000, ${got[3]}, node ${got[4]}, npm ${got[5]}"

# ---- the image run as a user runs it -----------------------------------------
# The data dir and init dir are the host user's (uid 1000 here; compose
# passes ${UID}:${GID}); the data dir starts 0755, as a dir made by hand may.
data=$SCRATCH/data initdir=$SCRATCH/init
mkdir -p "$data" "$initdir"
echo 'globalThis.initialised = true' >"$initdir/init.js"
chown -R 1000:1000 "$data" "$initdir"
chmod 0755 "$data"
RUN=("${PODMAN[@]}" run --rm "${LIMITS[@]}" --label "$RUN_LABEL" --network host --user 1000:1000
  -v "$data:/data" -v "$initdir:/init:ro" -v "$EVERYTHING:/opt/peers/everything-server:ro")

"${RUN[@]}" "$IMAGE" servers add everything -- /opt/peers/everything-server >"$OUT/image-add.log" 2>&1 ||
  { cat "$OUT/image-add.log" >&2; fail "servers add in the image"; }
[[ $(stat -c '%a %u' "$data") == "700 1000" ]] || fail "after servers add in the container the data dir is $(stat -c '%a %u' "$data") (mode uid), want 700 1000"
# A data dir left open (0755) is made private again by the next command,
# which says so.
chmod 0755 "$data"
"${RUN[@]}" "$IMAGE" servers list >"$OUT/image-list.log" 2>&1 || { cat "$OUT/image-list.log" >&2; fail "servers list in the container"; }
grep -q "was mode 0755: made it 0700" "$OUT/image-list.log" || fail "the router did not make the mounted data dir private again: $(cat "$OUT/image-list.log")"
ro=$("${RUN[@]}" --entrypoint sh "$IMAGE" -c 'cat /init/init.js; touch /init/x 2>&1 && echo WROTE' 2>&1 || true)
[[ $ro == *"globalThis.initialised"* && $ro != *WROTE* ]] || fail "/init is not readable and read-only in the container: $ro"

result=$(stdio_call everything__test_simple_text '{}' "$OUT/image-stdio.log" "${RUN[@]}" -i "$IMAGE") ||
  { cat "$OUT/image-stdio.log" >&2; fail "stdio mode in the container"; }
grep -qF 'This is a simple text response for testing.' <<<"$result" || fail "stdio in the container: tools/call answered $result"
log "podman run -i --rm (uid 1000, /init read-only): stdio answered tools/call and ended when stdin closed: $result"
st=$(stat -c '%a %u' "$data" "$data/mcp-router.db" | tr '\n' ' ')
[[ $st == "700 1000 600 1000 " ]] || fail "data dir and database after the run are '$st' (mode uid), want 700 and 600 of uid 1000"

port=$(free_port)
name=mcpr-test-image-$$
"${RUN[@]}" -d --name "$name" "$IMAGE" serve --no-auth --listen "127.0.0.1:$port" >/dev/null || fail "podman run -d serve"
result=$(http_call "$port" everything__test_simple_text '{}' 60) || { "${PODMAN[@]}" logs "$name" >&2 || true; fail "serve in the container: tools/call"; }
grep -qF 'This is a simple text response for testing.' <<<"$result" || fail "serve in the container: tools/call answered $result"
log "serve in the container on 127.0.0.1:$port (host network) answered tools/call: $result"
"${PODMAN[@]}" stop --time 15 "$name" >/dev/null || fail "podman stop $name"
left=$("${PODMAN[@]}" ps -aq --filter "label=$RUN_LABEL")
[[ -z $left ]] || fail "containers of this run still exist after stop: $left"
curl -s --max-time 2 "http://127.0.0.1:$port/mcp" >/dev/null && fail "127.0.0.1:$port still answers after podman stop"
log "podman stop ended serve (the container is gone, the port closed)"

# ---- the image as the Helm chart runs it (deploy/helm/mcp-router) -------------
# Read-only root, uid 1000, no capabilities, no privilege escalation; /data
# and /tmp empty, root's, mode 0777, as Kubernetes makes an emptyDir; the
# environment of the chart's ConfigMap; serve on all interfaces with
# tokens on, the probes asked at a non-loopback address as a kubelet does.
chart_env=()
while IFS= read -r kv; do chart_env+=(-e "$kv"); done < <(sed -n 's/^  \([A-Za-z_][A-Za-z_0-9]*\): \(.*\)$/\1=\2/p' deploy/helm/mcp-router/templates/configmap.yaml)
((${#chart_env[@]} >= 6)) || fail "no environment read from deploy/helm/mcp-router/templates/configmap.yaml"
ip=$(hostname -I 2>/dev/null | awk '{print $1}')
[[ -n $ip ]] || fail "this machine has no non-loopback address to probe the chart's container at"
emptydir=$SCRATCH/emptydir emptytmp=$SCRATCH/emptytmp
mkdir -p "$emptydir" "$emptytmp"
chmod 0777 "$emptydir" "$emptytmp"
port=$(free_port)
name=mcpr-test-image-chart-$$
"${PODMAN[@]}" run -d "${LIMITS[@]}" --label "$RUN_LABEL" --network host --name "$name" --user 1000:1000 \
  --read-only --read-only-tmpfs=false --cap-drop ALL --security-opt no-new-privileges \
  -v "$emptydir:/data" -v "$emptytmp:/tmp" "${chart_env[@]}" "$IMAGE" serve --listen "0.0.0.0:$port" >/dev/null ||
  fail "podman run -d serve as the chart runs it"
ready=""
for _ in $(seq 1 60); do
  ready=$(curl -s --max-time 3 "http://$ip:$port/healthz" || true)
  [[ $ready == ok ]] && break
  sleep 0.5
done
[[ $ready == ok ]] || { "${PODMAN[@]}" logs "$name" >&2 || true; fail "/healthz of the chart's container at $ip:$port answered '$ready', want ok"; }
live=$(curl -s --max-time 3 "http://$ip:$port/livez" || true)
[[ $live == ok ]] || fail "/livez of the chart's container answered '$live'"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 -X POST -H 'Content-Type: application/json' -d '{}' "http://$ip:$port/mcp" || true)
[[ $code == 401 ]] || fail "/mcp of the chart's container without a token answered $code, want 401"
st=$(stat -c '%a %u' "$emptydir/router" "$emptydir/router/mcp-router.db" 2>&1 | tr '\n' ' ' || true)
[[ $st == "700 1000 600 1000 " ]] || fail "the chart's data dir and database are '$st' (mode uid), want 700 and 600 of uid 1000"
# The router warns when it cannot make its data dir private (an emptyDir's
# root is root's): the chart's data dir is one the router makes itself.
logs=$("${PODMAN[@]}" logs "$name" 2>&1 || true)
! grep -q 'cannot change the mode' <<<"$logs" || fail "the chart's container could not make a file private: $(grep 'cannot change the mode' <<<"$logs")"
"${PODMAN[@]}" stop --time 15 "$name" >/dev/null || fail "podman stop $name"
"${PODMAN[@]}" rm "$name" >/dev/null || fail "podman rm $name"
log "as the Helm chart runs it (read-only root, uid 1000, no capabilities, /data/router in a root-owned 0777 dir): /healthz and /livez ok at $ip:$port, /mcp 401 without a token"

ms=$(((${EPOCHREALTIME/./} - ${started/./}) / 1000))
log "PASS in $((ms / 1000)).$(printf %03d $((ms % 1000))) s"
