# MCP Router. Two commands for a fresh machine:
#   make run    install what is missing, build, start the app
#   make test   install what is missing, run every test
SHELL := /bin/bash
.DEFAULT_GOAL := run

TOOLS := $(CURDIR)/.tools/bin
export PATH := $(TOOLS):/usr/local/go/bin:$(PATH)
export GOFLAGS ?= -buildvcs=false

WAILS_VERSION := v2.15.0
GOSDK_VERSION := v1.8.0
WAILS := $(TOOLS)/wails
APP := build/bin/mcp-router
RESULTS := $(CURDIR)/test-results

.PHONY: run test build deps system-deps wails frontend-deps test-deps \
        test-go test-frontend test-desktop test-tray vet clean

run: build
	$(APP)

build: deps
	$(WAILS) build -m -ldflags "-X github.com/mcp-router/mcp-router/backend/core.Version=$$(git describe --tags --always 2>/dev/null || echo dev)"

test: deps test-deps
	$(MAKE) vet test-go test-frontend test-desktop test-tray test-e2e test-ui

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

# Real MCP peers the integration tests talk to.
test-deps: test/peers/node_modules/.package-lock.json $(TOOLS)/everything-server
test/peers/node_modules/.package-lock.json: test/peers/package-lock.json
	cd test/peers && npm ci --no-audit --no-fund
	@touch $@
$(TOOLS)/everything-server:
	GOBIN=$(TOOLS) go install github.com/modelcontextprotocol/go-sdk/conformance/everything-server@$(GOSDK_VERSION)

vet:
	go vet ./...

# MCPR_REQUIRE_PEERS turns a missing peer into a failure instead of a skip.
test-go:
	MCPR_REQUIRE_PEERS=1 go test -race -count=1 ./...
	# Without -race too: under it package hotpath reads and writes through
	# package syscall (race_linux.go), so only this run covers its raw calls.
	MCPR_REQUIRE_PEERS=1 go test -count=1 ./backend/hotpath/ ./backend/upstream/ ./backend/gateway/
	MCPR_REQUIRE_PEERS=1 go test -tags nogui -count=1 -run TestDocker .

test-frontend: frontend-deps
	cd frontend && npm test

test-desktop: build test-deps
	SMOKE_UPSTREAM=test/peers/node_modules/.bin/mcp-server-everything scripts/desktop-smoke.sh $(APP) $(RESULTS)/desktop

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

# ---- ui (owned by test/ui/; see docs/ui.md) -----------------------------------
# The pages in headless chromium (playwright-core, Debian's /usr/bin/chromium)
# against a real `mcp-router serve`; screenshots in test-results/screenshots/.
.PHONY: test-ui
test-ui: frontend-deps test/peers/node_modules/.package-lock.json
	scripts/ui-e2e.sh
# ---- end ui -------------------------------------------------------------------
