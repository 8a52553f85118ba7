#!/usr/bin/env bash
# make test-deploy: the deployment examples read by real parsers.
#   - the Helm chart (deploy/helm/mcp-router) linted and rendered by helm,
#     every rendered manifest checked by kubeconform -strict against the
#     schemas of Kubernetes K8S_VERSION (made by internal/k8sschema from the
#     OpenAPI document in the k8s.io/kubernetes module: kubeconform's own
#     schemas are on GitHub, which is not reachable here);
#   - renders that must fail (missing URLs, a short cluster secret, a name
#     too long for a replica name, values the chart's schema refuses) and a
#     manifest with a misspelt or mistyped field that kubeconform must refuse;
#   - deploy/haproxy/haproxy.cfg checked by haproxy -c (the Go test in
#     ./deploy runs it against stand-in replicas).
#
#   HELM=... KUBECONFORM=... scripts/test-deploy.sh OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-test-results/deploy}
HELM=${HELM:-helm}
KUBECONFORM=${KUBECONFORM:-kubeconform}
K8S_VERSION=${K8S_VERSION:-v1.37.2}
CHART=deploy/helm/mcp-router
VALUES=deploy/helm/ci-values.yaml
rm -rf "$OUT" && mkdir -p "$OUT"

fail() { echo "test-deploy: $*" >&2; exit 1; }

# The OpenAPI document of Kubernetes, from the Go module proxy (outside
# this module: it is not a dependency of the router).
dir=$(cd "$OUT" && env -u GOFLAGS GO111MODULE=on go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
swagger="$dir/api/openapi-spec/swagger.json"
[ -f "$swagger" ] || fail "no $swagger in k8s.io/kubernetes@$K8S_VERSION"
schemas="$OUT/schemas-$K8S_VERSION"
go run ./internal/k8sschema/cmd/k8s-schemas -swagger "$swagger" -out "$schemas"

kubeconform() {
  "$KUBECONFORM" -strict -summary -schema-location "$schemas/{{ .ResourceKind }}{{ .KindSuffix }}.json" "$@"
}

# render NAME ARGS...: helm template into $OUT/NAME.yaml, then kubeconform.
render() {
  local name=$1; shift
  "$HELM" template mcpr "$CHART" "$@" > "$OUT/$name.yaml"
  kubeconform "$OUT/$name.yaml" | tee "$OUT/$name.kubeconform"
}

# kinds FILE: the kinds rendered, sorted, one line.
kinds() { grep '^kind: ' "$1" | sed 's/^kind: //' | sort | tr '\n' ' '; }

"$HELM" lint --strict "$CHART" -f "$VALUES" | tee "$OUT/lint.txt"
! grep -q 'Fail:' "$OUT/lint.txt" || fail "helm lint reported a failed render"

render default -f "$VALUES"
[ "$(kinds "$OUT/default.yaml")" = "ConfigMap Deployment PodDisruptionBudget Secret Service " ] ||
  fail "default render has kinds $(kinds "$OUT/default.yaml")"
grep -q 'Valid: 5, Invalid: 0, Errors: 0, Skipped: 0' "$OUT/default.kubeconform" || fail "kubeconform did not pass all 5 manifests"
# What the chart promises (docs/team.md): probes, the replica's name and
# address, non-root with a read-only root, the data dir on an emptyDir.
for want in 'path: /healthz' 'path: /livez' 'fieldPath: metadata.name' 'fieldPath: status.podIP' \
  'value: "http://$(POD_IP):3282"' 'readOnlyRootFilesystem: true' 'runAsNonRoot: true' \
  'allowPrivilegeEscalation: false' 'name: MCP_ROUTER_CLUSTER_SECRET' 'name: MCP_ROUTER_DATABASE' \
  'name: MCP_ROUTER_REDIS' 'name: MCP_ROUTER_REPLICA' 'name: MCP_ROUTER_ADVERTISE' '- "0.0.0.0:3282"' \
  'MCP_ROUTER_DATA_DIR: /data/router' 'mountPath: /data' 'emptyDir:' 'replicas: 3' 'maxUnavailable: 1'; do
  grep -qF -- "$want" "$OUT/default.yaml" || fail "the default render lacks: $want"
done
# No URL or secret on the command line: they are in the Secret only.
if sed -n '/^kind: Deployment/,$p' "$OUT/default.yaml" | grep -q 'not-a-real-password\|test-only-cluster-secret'; then
  fail "a password or the cluster secret is in the Deployment"
fi

# An existing Secret, one replica: no Secret of the chart's, no PDB.
render existing --set existingSecret=router-secrets --set replicaCount=1
[ "$(kinds "$OUT/existing.yaml")" = "ConfigMap Deployment Service " ] ||
  fail "existingSecret render has kinds $(kinds "$OUT/existing.yaml")"
grep -q 'name: router-secrets' "$OUT/existing.yaml" || fail "existingSecret is not used"

# Renders that must fail, each with its own message.
refuse() {
  local want=$1; shift
  if "$HELM" template mcpr "$CHART" "$@" > "$OUT/refused.yaml" 2> "$OUT/refused.err"; then
    fail "helm template $* rendered; want an error with: $want"
  fi
  grep -q -- "$want" "$OUT/refused.err" || { cat "$OUT/refused.err" >&2; fail "helm template $*: the error does not say: $want"; }
}
refuse 'database.url is required' --set redis.url=redis://r:6379/0 --set clusterSecret=0123456789abcdef0123456789abcdef
refuse 'redis.url is required' --set database.url=postgres://p/db --set clusterSecret=0123456789abcdef0123456789abcdef
refuse 'clusterSecret must be at least 32 bytes' -f "$VALUES" --set clusterSecret=short
refuse 'does not match pattern' -f "$VALUES" --set fullnameOverride=a-very-long-router-name
if "$HELM" template a-long-release-name "$CHART" -f "$VALUES" > /dev/null 2> "$OUT/refused.err"; then fail "a 19-character release name rendered"; fi
grep -q 'not 1-15 characters' "$OUT/refused.err" || fail "a long release name: the error does not say why"
refuse 'fullnameOverride' -f "$VALUES" --set fullnameOverride=Router.1
refuse 'replicaCount' -f "$VALUES" --set replicaCount=0
refuse 'database' -f "$VALUES" --set database.url=mysql://x/y
refuse 'additional properties' -f "$VALUES" --set replicas=3

# Manifests kubeconform must refuse: a misspelt field, a wrong type, an
# unknown apiVersion.
bad() {
  local what=$1 expr=$2
  sed "$expr" "$OUT/default.yaml" > "$OUT/bad.yaml"
  cmp -s "$OUT/default.yaml" "$OUT/bad.yaml" && fail "negative case '$what': the edit changed nothing"
  if kubeconform "$OUT/bad.yaml" > "$OUT/bad.kubeconform" 2>&1; then
    fail "kubeconform accepted a manifest with $what"
  fi
  echo "test-deploy: kubeconform refused $what: $(grep -m1 -E 'invalid|could not find|failed' "$OUT/bad.kubeconform")"
}
bad 'a misspelt field' 's/readOnlyRootFilesystem:/readOnlyRootFileSystem:/'
bad 'a string for an integer' 's/^  replicas: 3$/  replicas: "three"/'
bad 'an unknown apiVersion' 's#^apiVersion: policy/v1$#apiVersion: policy/v2#'

haproxy -c -f deploy/haproxy/haproxy.cfg
sed 's/balance roundrobin/balance round-robin-typo/' deploy/haproxy/haproxy.cfg > "$OUT/haproxy-bad.cfg"
if haproxy -c -f "$OUT/haproxy-bad.cfg" > /dev/null 2>&1; then fail "haproxy -c accepted a broken config"; fi
MCPR_REQUIRE_PEERS=1 go test -count=1 ./deploy/
echo "test-deploy: ok"
