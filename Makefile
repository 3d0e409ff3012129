# Partner Swap Service. Two commands do everything on a fresh machine with Node >= 20.19 and make:
#   make run    install, generate, migrate and start the server (sandbox, embedded PGlite in .data/)
#   make test   install and run every test suite (PGlite by default; real Postgres when DATABASE_URL is set)
SHELL := /bin/bash
.DEFAULT_GOAL := help
NPM_STAMP := node_modules/.package-lock.json
GENERATED := generated/openapi.json generated/api.d.ts sdk/src/generated/api.ts sdk/src/generated/version.ts
MOCK_PORT ?= 4010

.PHONY: help install generate check-generated lint test test-unit run migrate mock contract bench sdk demo demo-route

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-16s %s\n", $$1, $$2}'

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

lint: install ## Spectral (spec), ESLint and tsc
	npx spectral lint spec/openapi.yaml --ruleset spec/.spectral.yaml --fail-severity error
	npx eslint .
	npx prettier --check .
	npx tsc --noEmit -p tsconfig.json

sdk: install $(GENERATED) ## build the SDK package (sdk/dist)
	npm run build --workspace sdk

test: install $(GENERATED) sdk ## run every test suite (unit, integration, SDK, mock)
	npx mocha

run: install $(GENERATED) ## start the server in sandbox mode on embedded PGlite (or DATABASE_URL)
	node --import tsx server/main.ts

migrate: install ## apply database migrations and exit
	npx tsx scripts/migrate.ts

mock: install ## serve the spec's examples with Prism on port $(MOCK_PORT)
	npx prism mock --port $(MOCK_PORT) --host 127.0.0.1 spec/openapi.yaml

contract: install $(GENERATED) ## Dredd through a Prism validation proxy against the real server
	npx tsx scripts/contract.ts

bench: install $(GENERATED) ## GET /assets, POST /quotes, GET /swaps/{id} vs the Prism mock; 200 identical POST /swaps; 10,000 streams; webhook deliveries/s
	npx tsx test/bench/assets.bench.ts
	npx tsx test/bench/swaps.bench.ts
	npx tsx test/bench/streams.bench.ts
	npx tsx test/bench/webhooks.bench.ts

demo: install $(GENERATED) ## a whole sandbox swap through the SDK against a running `make run` (PSS_SECRET=<demo secret>)
	npx tsx scripts/demo.ts

demo-route: install $(GENERATED) ## a permanent route: verified wallet, three deposits that accumulate and convert, earnings (PSS_SECRET=<demo secret>)
	npx tsx scripts/demo-route.ts
