# agentk — every target works from a fresh clone with only Go (and, for the
# Docker targets, a Docker engine with docker-compose).
SHELL := /bin/bash
GO ?= go
MODULES := $(shell $(GO) list -m -f '{{.Dir}}')
BIN := $(CURDIR)/bin
SERVICES := ingester investigator sandbox reviewer gate bridge deployer
GOLANGCI_VERSION ?= v2.15.0
FUZZTIME ?= 20s

.PHONY: all build test test-cluster test-short lint vet images demo demo-live eval eval-update test-setup-doc mutants mutants-ci bench fuzz keys tidy clean

all: build

## build: every binary into bin/, the combined one as bin/agentk
build:
	@mkdir -p $(BIN)
	cd services/agentk && CGO_ENABLED=0 $(GO) build -o $(BIN)/agentk .
	@for s in $(SERVICES); do (cd services/$$s && CGO_ENABLED=0 $(GO) build -o $(BIN)/$$s ./cmd/$$s) || exit 1; done

## test: go vet and go test in every module of the workspace, then the heavy e2e packages one at a
## time (TEST_ALONE), then docs/setup.md followed literally
# TEST_ALONE are the packages heavy on CPU or on the Docker engine: the corpus replays (the e2e
# root package), the chaos soak and the Docker suites. go test runs a module's packages side by
# side (-p defaults to GOMAXPROCS), and e2e/compose beside the e2e root package took 6x its time
# alone (issue 36); so they run after every other package, each alone, the replays first.
# The light packages of every module run in one go test from the workspace root, so that a
# module's slowest package (mcpbackend, livedemo: minutes each) runs beside the other modules'
# packages rather than beside an idle core; TEST_FIRST, the slowest, are listed first so that
# they start first.
TEST_ALONE := agentk/e2e agentk/e2e/chaos agentk/e2e/compose agentk/e2e/faults agentk/e2e/operator
TEST_FIRST := agentk/services/sandbox/internal/mcpbackend agentk/cmd/agentk/internal/livedemo agentk/services/sandbox/internal/tools agentk/services/deployer
test:
	@failed=""; pkgs=""; for d in $(MODULES); do echo "== vet $$d"; \
	(cd $$d && $(GO) vet ./...) || failed="$$failed $$d"; \
	pkgs="$$pkgs $$(cd $$d && $(GO) list ./... | grep -vxF $(addprefix -e ,$(TEST_ALONE) $(TEST_FIRST)))"; done; \
	echo "== every module's light packages"; \
	$(GO) test -count=1 -timeout 45m $(TEST_FIRST) $$pkgs || failed="$$failed light-packages"; \
	for p in $(TEST_ALONE); do echo "== $$p (alone)"; (cd e2e && $(GO) test -count=1 -timeout 45m $$p) || failed="$$failed $$p"; done; \
	echo "== docs/setup.md"; bash scripts/test-setup-doc.sh || failed="$$failed docs/setup.md"; \
	if [ -n "$$failed" ]; then echo "FAILED:$$failed"; exit 1; fi

## test-setup-doc: run every sh block of docs/setup.md, in order, on embedded defaults
test-setup-doc:
	@bash scripts/test-setup-doc.sh

## test-short: the same with -short (skips the slow end-to-end evals)
test-short:
	@set -e; for d in $(MODULES); do (cd $$d && $(GO) test -short -count=1 ./...); done

vet:
	@set -e; for d in $(MODULES); do (cd $$d && $(GO) vet ./...); done

## lint: go vet, the function limits (80 lines, gocyclo 20: e2e/lint) and golangci-lint from the module proxy
lint: vet
	@cd e2e && $(GO) test -count=1 ./lint/
	@test -x $(BIN)/tools/golangci-lint || GOBIN=$(BIN)/tools $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_VERSION)
	@failed=""; for d in $(MODULES); do (cd $$d && $(BIN)/tools/golangci-lint run ./...) || failed="$$failed $$d"; done; \
	if [ -n "$$failed" ]; then echo "lint FAILED:$$failed"; exit 1; fi

## demo: replay one deployment-class and one runtime incident on embedded defaults.
## It says what it does before it compiles, and counts the packages while it does
## (a cold build compiles every service: minutes on a busy 2-core machine).
demo:
	@echo "make demo: building bin/agentk first (a fresh clone compiles every service and its dependencies; minutes on a cold build cache)"
	@mkdir -p $(BIN)
	@set -o pipefail; cd services/agentk && CGO_ENABLED=0 $(GO) build -v -o $(BIN)/agentk . 2>&1 | awk -f $(CURDIR)/scripts/build-progress.awk
	@$(BIN)/agentk demo

## demo-live: the demo target on compose, a bad release, a real rollback (docs/demo-live.md; DEMO_FLAGS="--interactive --keep")
demo-live:
	@AGENTK_IMAGES=demo bash scripts/images.sh
	@cd services/agentk && $(GO) run . demo --live $(DEMO_FLAGS)

## eval: score every investigator on the recorded corpus into build/eval/latest.md (gitignored);
## make eval UPDATE=1 (or make eval-update) rewrites the committed scoreboard docs/eval/latest.md
EVAL_OUT := $(if $(filter 1,$(UPDATE)),$(CURDIR)/docs/eval/latest.md,$(CURDIR)/build/eval/latest.md)
eval:
	@mkdir -p $(dir $(EVAL_OUT))
	@cd services/agentk && $(GO) run . eval --all --markdown $(EVAL_OUT) $(CURDIR)/e2e/incidents
	@echo "scoreboard: $(EVAL_OUT)"

eval-update:
	@$(MAKE) --no-print-directory eval UPDATE=1

## mutants: switch off each safety check in turn (services/platform/mutant) and show that its killer notices; writes docs/mutants/latest.md
mutants:
	@mkdir -p $(BIN) docs/mutants
	@cd e2e && $(GO) build -o $(BIN)/mutants ./cmd/mutants
	@$(BIN)/mutants -markdown $(CURDIR)/docs/mutants/latest.md $(MUTANTS_FLAGS)

## mutants-ci: a fixed subset of `make mutants` for every CI run (61 s measured with a warm build cache: the marker-ledger killer replays the false-marker worlds, about 30 s)
MUTANTS_CI := gate.marker_before_onset,reviewer.numbers,gate.freeze,gate.confidence,deployer.marker_restart,gate.marker_ledger_agrees,sandbox.mcp_first_block
mutants-ci:
	@mkdir -p $(BIN)
	@cd e2e && $(GO) build -o $(BIN)/mutants ./cmd/mutants
	@$(BIN)/mutants -only $(MUTANTS_CI) -investigators persona:marker,persona:numbers \
		-incidents dependency-outage-04-marker-after-onset

## images: every image FROM scratch from static binaries, no registry pulls
images:
	@bash scripts/images.sh

## bench: benchmarks with their baselines; writes docs/bench/latest.md
bench:
	@bash scripts/bench.sh

## test-cluster: the three-node NATS cluster on Docker (node killed, node partitioned)
test-cluster:
	@bash scripts/test-cluster.sh

## fuzz: run each fuzz target for FUZZTIME
fuzz:
	@bash scripts/fuzz.sh $(FUZZTIME)

## keys: per-service nkeys and the keyring, into $AGENTK_KEYS_DIR (default .data/keys)
keys:
	@bash scripts/keys.sh

tidy:
	@set -e; for d in $(MODULES); do (cd $$d && $(GO) mod tidy); done

clean:
	rm -rf $(BIN) .data build
