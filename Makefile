# MCP Router. Two commands for a fresh machine:
#   make run    install what is missing, build, start the app
#   make test   install what is missing, run every test
SHELL := /bin/bash
.DEFAULT_GOAL := run

TOOLS := $(CURDIR)/.tools/bin
export PATH := $(TOOLS):/usr/local/go/bin:$(PATH)
# WebKitGTK 4.0 (Debian 12) or 4.1 (Ubuntu 24.04, Debian 13: 4.1 only): the
# Wails tag webkit2_41 when only 4.1 is installed (scripts/webkit-tags.sh).
# Recursive, so it is read after system-deps has installed WebKit.
WEBKIT_TAGS = $(shell scripts/webkit-tags.sh)
BASE_GOFLAGS := $(filter-out -tags=webkit2_41,$(if $(GOFLAGS),$(GOFLAGS),-buildvcs=false))
export GOFLAGS = $(BASE_GOFLAGS)$(if $(WEBKIT_TAGS), -tags=$(WEBKIT_TAGS))

WAILS_VERSION := v2.15.0
GOSDK_VERSION := v1.8.0
WAILS := $(TOOLS)/wails
NFPM_VERSION := v2.45.2
NFPM := $(TOOLS)/nfpm
ACTIONLINT_VERSION := v1.7.12
ACTIONLINT := $(TOOLS)/actionlint
HELM_VERSION := v3.22.0
HELM := $(TOOLS)/helm
KUBECONFORM_VERSION := v0.8.0
KUBECONFORM := $(TOOLS)/kubeconform
APP := build/bin/mcp-router
RESULTS := $(CURDIR)/test-results

.PHONY: run test build deps system-deps wails frontend-deps test-deps \
        test-go test-fuzz test-frontend test-desktop test-desktop-41 test-tray vet check-files print-goflags clean

run: build
	$(APP)

LDFLAGS_VERSION = -X github.com/mcp-router/mcp-router/backend/core.Version=$$(git describe --tags --always 2>/dev/null || echo dev)

# Wails writes the generated bindings executable (0755); git keeps them
# 0644, so a build or a regeneration leaves the work tree clean.
BINDING_MODES = find frontend/src/api/wailsjs -type f -exec chmod 644 {} +

build: deps
	$(WAILS) build -m $(if $(WEBKIT_TAGS),-tags $(WEBKIT_TAGS)) -ldflags "$(LDFLAGS_VERSION)"
	$(BINDING_MODES)
	$(MAKE) weather

# Regenerates frontend/src/api/wailsjs after a change to backend/appapi.
.PHONY: bindings
bindings: wails
	$(WAILS) generate module
	$(BINDING_MODES)

print-goflags:
	@echo GOFLAGS=$(GOFLAGS)

# The sample MCP server of mcp_servers/weather (seed 003), beside the app.
.PHONY: weather
weather:
	go build -o build/bin/weather-mcp ./mcp_servers/weather

# Every stage runs with one mark in its environment; scripts/leftovers.sh
# then fails if a process carrying it is still running.
test: deps test-deps
	mark=mcpr-test-$$$$-$$(date +%s%N); \
	MCPR_TEST_RUN=$$mark $(MAKE) check-files vet test-go test-fuzz test-frontend test-desktop test-desktop-41 test-tray test-e2e test-ui test-team test-dist test-workflows test-deploy && \
	MCPR_TEST_RUN=$$mark scripts/leftovers.sh

deps: system-deps wails frontend-deps

system-deps:
	@scripts/install-system-deps.sh

# The Wails CLI, pinned to the version in go.mod.
wails: $(WAILS)
$(WAILS):
	GOBIN=$(TOOLS) go install github.com/wailsapp/wails/v2/cmd/wails@$(WAILS_VERSION)

frontend-deps: frontend/node_modules/.package-lock.json
frontend/node_modules/.package-lock.json: frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund
	@touch $@

# nfpm builds the .deb and .rpm of make dist (docs/install.md).
$(NFPM):
	GOBIN=$(TOOLS) go install github.com/goreleaser/nfpm/v2/cmd/nfpm@$(NFPM_VERSION)

# ---- dist (owned by scripts/dist.sh; see docs/install.md) --------------------
# Everything a user downloads, into dist/ with SHA256SUMS. Sign the Windows
# files with MCPR_SIGN_CERT=cert.pem MCPR_SIGN_KEY=key.pem [MCPR_SIGN_PASS=...].
.PHONY: dist test-dist
dist: deps $(NFPM)
	WAILS=$(WAILS) NFPM=$(NFPM) scripts/dist.sh

# Builds one .deb, one Windows exe + installer and one headless archive into
# a scratch dist dir, installs the .deb with apt and checks them all
# (scripts/test-dist.sh); then the platforms this machine can only emulate
# or read (docs/install.md): arm64 under QEMU, the Docker image under
# podman, the darwin archives as Mach-O files.
test-dist: deps $(NFPM) test-deps
	WAILS=$(WAILS) NFPM=$(NFPM) scripts/test-dist.sh $(RESULTS)/dist
	$(MAKE) test-arm64 test-image test-darwin

.PHONY: test-arm64 test-image test-darwin
# The linux/arm64 headless archive under qemu-aarch64-static: --version,
# serve with an arm64 stdio upstream and one tools/call, stdio mode.
test-arm64: system-deps
	scripts/test-arm64.sh $(RESULTS)/arm64
# The Dockerfile built and run with podman (stdio and serve, non-root, /init
# read-only), from stand-in base images: no registry is reachable here.
test-image: system-deps
	scripts/test-image.sh $(RESULTS)/image
# The darwin headless archives: Mach-O of the right CPU, no cgo, nogui,
# system libraries only (internal/distcheck). Nothing runs them.
test-darwin:
	rm -rf $(RESULTS)/darwin
	DIST=$(RESULTS)/darwin/dist scripts/dist.sh headless-darwin-amd64 headless-darwin-arm64
	go run ./internal/distcheck/cmd/check-darwin $(RESULTS)/darwin/dist/*_darwin_*.tar.gz

# The Helm chart and the HAProxy example (docs/team.md, "Deploying"): helm
# lint and template, every manifest checked by kubeconform against schemas
# made from Kubernetes' OpenAPI document, renders and manifests that must
# fail, haproxy -c and a run of the HAProxy config (scripts/test-deploy.sh).
.PHONY: test-deploy
test-deploy: system-deps $(HELM) $(KUBECONFORM)
	HELM=$(HELM) KUBECONFORM=$(KUBECONFORM) scripts/test-deploy.sh $(RESULTS)/deploy
$(HELM):
	GOBIN=$(TOOLS) go install helm.sh/helm/v3/cmd/helm@$(HELM_VERSION)
$(KUBECONFORM):
	GOBIN=$(TOOLS) go install github.com/yannh/kubeconform/cmd/kubeconform@$(KUBECONFORM_VERSION)

# The release workflow cannot run here: actionlint (a real parser of GitHub
# Actions workflows, from the Go module proxy) checks its syntax and expressions.
.PHONY: test-workflows
test-workflows: $(ACTIONLINT)
	$(ACTIONLINT) .github/workflows/*.yml
$(ACTIONLINT):
	GOBIN=$(TOOLS) go install github.com/rhysd/actionlint/cmd/actionlint@$(ACTIONLINT_VERSION)
# ---- end dist -----------------------------------------------------------------

# Real MCP peers the integration tests talk to.
test-deps: test/peers/node_modules/.package-lock.json $(TOOLS)/everything-server $(TOOLS)/mcp-registry
test/peers/node_modules/.package-lock.json: test/peers/package-lock.json
	cd test/peers && npm ci --no-audit --no-fund
	@touch $@
$(TOOLS)/everything-server:
	GOBIN=$(TOOLS) go install github.com/modelcontextprotocol/go-sdk/conformance/everything-server@$(GOSDK_VERSION)
# The MCP Registry service, run against a throwaway PostgreSQL cluster by the
# registry tests (docs/registry.md).
$(TOOLS)/mcp-registry: scripts/build-mcp-registry.sh
	scripts/build-mcp-registry.sh $@

# Windows (docs/install.md): everything but the Linux-only bench vets there
# too, and the upstream tests, with their Windows-only ones, compile; they
# run in the Windows job of .github/workflows/windows.yml.
vet:
	go vet ./...
	GOOS=windows go vet ./backend/... ./internal/... .
	GOOS=windows go test -c -o /dev/null ./backend/upstream/

# No tracked file over 1 MiB unless allowed in the script (scripts/largefiles_test.go tests it).
check-files:
	scripts/check-large-files.sh

# MCPR_REQUIRE_PEERS turns a missing peer into a failure instead of a skip.
test-go:
	MCPR_REQUIRE_PEERS=1 go test -race -count=1 ./...
	# Without -race too: under it package hotpath reads and writes through
	# package syscall (race_linux.go), so only this run covers its raw calls.
	MCPR_REQUIRE_PEERS=1 go test -count=1 ./backend/hotpath/ ./backend/upstream/ ./backend/gateway/
	MCPR_REQUIRE_PEERS=1 go test -tags nogui -count=1 -run TestDocker .

# Every Go fuzz target (found by scripts/fuzz.sh, not listed here) for
# FUZZTIME each (default 10s), two at a time; their seeds also run in test-go.
test-fuzz:
	scripts/fuzz.sh

test-frontend: frontend-deps
	cd frontend && npm test

test-desktop: build test-deps
	SMOKE_UPSTREAM=test/peers/node_modules/.bin/mcp-server-everything scripts/desktop-smoke.sh $(APP) $(RESULTS)/desktop

# The other WebKitGTK line: where the build uses 4.0 and 4.1 is installed too
# (Debian 12, by system-deps), build with the tag webkit2_41, check the binary
# links webkit2gtk-4.1 and smoke-test it. Where 4.1 is the build's own line,
# test-desktop already covers it.
APP_41 := build/bin/mcp-router-webkit41
test-desktop-41: build test-deps
	@if [ -n "$(WEBKIT_TAGS)" ] || ! pkg-config --exists webkit2gtk-4.1; then \
	  echo "test-desktop-41: the build's own line is $$(pkg-config --exists webkit2gtk-4.0 && [ -z "$(WEBKIT_TAGS)" ] && echo 4.0 || echo 4.1); no second line to test"; \
	else \
	  set -e; \
	  MCPR_WEBKIT=4.1 $(WAILS) build -m -s -skipbindings -tags webkit2_41 -o $(notdir $(APP_41)) -ldflags "$(LDFLAGS_VERSION)"; \
	  ldd $(APP_41) | grep -q 'libwebkit2gtk-4\.1' || { echo "test-desktop-41: $(APP_41) does not link libwebkit2gtk-4.1"; ldd $(APP_41) | grep -i webkit; exit 1; }; \
	  ! ldd $(APP_41) | grep -q 'libwebkit2gtk-4\.0' || { echo "test-desktop-41: $(APP_41) links libwebkit2gtk-4.0 too"; exit 1; }; \
	  SMOKE_UPSTREAM=test/peers/node_modules/.bin/mcp-server-everything scripts/desktop-smoke.sh $(APP_41) $(RESULTS)/desktop-webkit41; \
	fi

# The tray and close-to-tray in a real window, with a stand-in desktop tray.
test-tray: build
	scripts/tray-check.sh $(APP) $(RESULTS)/tray

clean:
	rm -rf build/bin .tools test-results frontend/node_modules test/peers/node_modules

# ---- bench (owned by bench/; see docs/benchmarks.md) -------------------------
# Figures, never a pass/fail on a number. Extra flags: make bench BENCH_ARGS="-n 5000 -cpuprofile /tmp/router.prof"
.PHONY: bench
bench: test-deps
	go run ./bench $(BENCH_ARGS)
# ---- end bench ----------------------------------------------------------------

# ---- soak (owned by soak/; see docs/benchmarks.md) ----------------------------
# 100 sessions against one router for SOAK_DURATION: calls, lists, notifications,
# session churn, the stdio upstream killed every 45 s. Fails on an unanswered
# call, an error answer outside a restart, or RSS/goroutines not flat. Not in make test
# (TestSoakOneMinute in soak/ is its one-minute form there).
SOAK_DURATION ?= 10m
.PHONY: soak
soak: $(TOOLS)/everything-server
	go run ./soak -duration $(SOAK_DURATION) $(SOAK_ARGS)
# ---- end soak -----------------------------------------------------------------

# ---- profiles (owned by backend/toolsearch; see docs/profiles.md) -------------
# search_tools' ranking over 10,000 tools: p50/p99 of one query, and the build.
.PHONY: bench-profiles
bench-profiles:
	go test -run '^$$' -bench Search10k -benchtime 300x ./backend/toolsearch/
# ---- end profiles -------------------------------------------------------------

# ---- state_gate (owned by backend/stategate; see docs/state-gate.md) ---------
# emit_event through the router's HTTP endpoint and the engine alone: p50/p99.
.PHONY: bench-stategate
bench-stategate:
	go test -run '^$$' -bench StateGateEmit -benchtime 2000x ./backend/core/
# ---- end state_gate -------------------------------------------------------------

# ---- e2e (owned by test/e2e/; see docs/testing.md) ----------------------------
# Real JS clients (MCP Inspector CLI, TypeScript SDK) and the official
# conformance suite against the built router, on Node 22 from test/peers.
.PHONY: test-e2e
test-e2e: test/peers/node_modules/.package-lock.json $(TOOLS)/everything-server
	MCPR_E2E_REQUIRE_CONNECT=1 scripts/e2e.sh
# ---- end e2e ------------------------------------------------------------------

# ---- team (owned by test/team/; see docs/team.md) ---------------------------
# Three replicas on one Postgres and one Redis behind HAProxy (issue 29).
.PHONY: test-team
test-team: test/peers/node_modules/.package-lock.json $(TOOLS)/everything-server
	scripts/test-team.sh
# ---- end team -----------------------------------------------------------------

# ---- ui (owned by test/ui/; see docs/ui.md) -----------------------------------
# The pages in headless chromium (playwright-core, Debian's /usr/bin/chromium)
# against a real `mcp-router serve`; screenshots in test-results/screenshots/.
.PHONY: test-ui
test-ui: frontend-deps test/peers/node_modules/.package-lock.json $(TOOLS)/everything-server
	scripts/ui-e2e.sh
# ---- end ui -------------------------------------------------------------------
