#!/usr/bin/env bash
# Builds the MCP Registry service (github.com/modelcontextprotocol/registry,
# cmd/registry) into OUT, for the tests that run the real registry against a
# throwaway PostgreSQL cluster (docs/registry.md, "Tests").
#
#   scripts/build-mcp-registry.sh OUT
#
# The registry's go.mod asks for huma v2.40.0, which the Go module proxy this
# project builds with does not serve; v2.37.2 builds the same API. The build
# happens in a throwaway module holding that replace, so nothing of the
# registry enters this project's go.mod.
set -euo pipefail
out=$(realpath -m "${1:?usage: build-mcp-registry.sh OUT}") # absolute: the build runs elsewhere
version=${MCP_REGISTRY_VERSION:-v1.8.9}
huma=${MCP_REGISTRY_HUMA:-v2.37.2}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/go.mod" <<MOD
module mcprouter.invalid/registrybuild

go 1.24

require github.com/modelcontextprotocol/registry $version

replace github.com/danielgtaylor/huma/v2 => github.com/danielgtaylor/huma/v2 $huma
MOD
cd "$dir"
export GOFLAGS=-mod=mod
go get github.com/modelcontextprotocol/registry/cmd/registry@"$version"
go build -o "$out" github.com/modelcontextprotocol/registry/cmd/registry
