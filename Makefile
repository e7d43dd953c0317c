# aztenant: every target installs what it needs from the Go module proxy into bin/.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

include hack/tools/versions.env

BIN := $(CURDIR)/bin
export AZTENANT_BIN_DIR := $(BIN)
GO_TEST_FLAGS ?= -count=1
TEST_TIMEOUT ?= 20m
PKGS ?= ./...
# The packages make test runs without the race detector, longest first (go test starts
# them in this order). The race detector is for our code's concurrency where it is
# tested: the engine (reconcilers/...), internal/operator, internal/sharding,
# tenancy/..., identity, the emulator, e2e/lifecycle, the process manager and every
# package not named here (hack/testpkgs.sh fails on a name that is no package, so a
# moved one is not silently skipped). Named here: what runs side by side in them is
# third-party evaluators (Gatekeeper's Rego and CEL in policy, e2e/gatekeeper and the
# attack suite's constraints; the kinds' CEL exports; the API server's CEL in api and
# identity/reservation), processes built without -race (the operator of e2e/faults,
# charttest and the lab; helm, az, the workload-identity webhook), or sequential code
# (the CLI, import, convert, the CRD installer). Raced, the kinds' and the attack suite's
# stacks serving every kind ran past 30 minutes per package on 2 cores (CI, 2026-12-05)
# and reported no data race, only timing failures.
NORACE_PKGS ?= ./reconcilers/kinds ./cmd/aztenant-lab ./e2e/faults ./e2e/attacks ./e2e ./charts/charttest ./e2e/gatekeeper ./e2e/azcli ./cmd/aztenant ./e2e/tracing ./e2e/workloadidentity ./internal/azimport ./policy ./api ./e2e/federation ./identity/reservation ./internal/asoconvert ./internal/crdinstall ./policy/vap

.PHONY: help
help: ## Show the targets.
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-16s %s\n", $$1, $$2}'

.PHONY: tools
tools: ## Build the pinned tools into bin/ (about 20 minutes on 2 cores the first time: kube-apiserver, Gatekeeper; seconds after).
	@bash hack/tools/build.sh

.PHONY: generate
generate: ## Regenerate deepcopy code and CRDs from the API types.
	@bash hack/tools/build.sh controller-gen >/dev/null
	go -C hack/kindgen run . generate
	$(BIN)/controller-gen object paths=./api/...
	rm -f api/crds/*.yaml # controller-gen writes every CRD; a kind that left the wave leaves none behind
	$(BIN)/controller-gen crd:crdVersions=v1 paths=./api/... output:crd:artifacts:config=api/crds
	go run ./hack/crdindex charts/aztenant/files/crds.yaml # the chart's index; the operator applies the CRDs
	cp identity/reservation/policies.yaml charts/aztenant/files/reservation-policies.yaml
	go test ./policy -run '^(TestPublicNetworkAccessFieldsMatchTheCRDs|TestExampleConstraintsMatchTheCRDs)$$' -count=1 -update >/dev/null # the template's and the example constraints' kinds, from the CRDs
	$(BIN)/controller-gen rbac:roleName=aztenant-operator paths=./identity/... paths=./tenancy/... paths=./reconcilers/... output:rbac:artifacts:config=charts/aztenant/files
	go test ./cmd/operator -run '^TestOperatorFlagsPage$$' -count=1 -update >/dev/null # docs/operator-flags.md's table, from the flag set
	go test ./reconcilers -run '^TestConditionsPageReasonTable$$' -count=1 -update >/dev/null # docs/conditions.md's Ready reason table, from readyReasons and docs/conditions-reasons.yaml
	go test ./emulator -run '^TestAnswersTable$$' -count=1 -update >/dev/null # emulator/answers/README.md, the table of what Azure's examples say per kind
	go test ./internal/lab/bench -run '^TestBenchmarksPage$$' -count=1 -update >/dev/null # docs/benchmarks.md, whole, from the committed bench-results.json (aztenant-lab bench --from bench-results.json --markdown docs/benchmarks.md)

# What make generate writes (kindgen also writes adapters, emulator facts, samples and the answers of Azure's examples; the docs pages' sections between GENERATED markers; docs/benchmarks.md whole, from bench-results.json).
GENERATED := api charts examples/generated examples/policy/constraints.yaml policy/library/publicnetworkaccess ':(glob)reconcilers/kinds/zz_generated_*' ':(glob)emulator/zz_generated_*' emulator/answers docs/operator-flags.md docs/conditions.md docs/benchmarks.md

.PHONY: verify-generate
verify-generate: generate ## Fail if generated files differ from what is committed.
	@git diff --exit-code -- $(GENERATED) || { echo "generated files are stale: run 'make generate' and commit"; exit 1; }
	@test -z "$$(git status --porcelain -- $(GENERATED))" || { echo "untracked generated files: run 'make generate' and commit"; git status --porcelain -- $(GENERATED); exit 1; }

.PHONY: build
build: ## Build the binaries into bin/: the CLI (aztenant), the operator, azure-emulator and aztenant-lab (demo, bench).
	go build -o $(BIN)/ ./cmd/...

.PHONY: lint
lint: ## gofmt, go vet and staticcheck.
	@bash hack/tools/build.sh staticcheck >/dev/null
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	go vet ./...
	go -C hack/kindgen vet ./...
	go -C hack/image vet ./...
	$(BIN)/staticcheck ./...

.PHONY: test
test: tools build test-go ## Unit and integration tests on a real kube-apiserver + etcd (race detector on, but for NORACE_PKGS), and the tools' modules'.

# make test's go test runs, without its prerequisites (hack/test-under-load.sh runs it):
# the no-race and the raced packages side by side, then the tools' modules (hack/test.sh says why).
.PHONY: test-go
test-go:
	@GO_TEST_FLAGS='$(GO_TEST_FLAGS)' TEST_TIMEOUT='$(TEST_TIMEOUT)' PKGS='$(PKGS)' NORACE_PKGS='$(NORACE_PKGS)' bash hack/test.sh

# The lab's two quick bench runs (every scenario, and shards, at a small size, each a
# whole bench of processes): CI runs this after make test.
.PHONY: test-bench
test-bench: tools build ## The bench's quick runs as tests (aztenant-lab bench --quick, and its shards scenario); CI runs it too.
	AZTENANT_BENCH_RUNS=1 go test $(GO_TEST_FLAGS) -timeout $(TEST_TIMEOUT) -run '^TestBench(Shards)?Quick$$' ./cmd/aztenant-lab

.PHONY: test-under-load
test-under-load: tools build ## make test 3 times (RUNS) while 2 busy processes (BUSY) hold the CPUs; prints each run's time.
	@bash hack/test-under-load.sh

.PHONY: bench
bench: tools build ## The operator as a process against the emulator: six scenarios and the CRD footprint, a table, bench-results.json and docs/benchmarks.md (about 13 min; commit both).
	$(BIN)/aztenant-lab bench --out bench-results.json --markdown docs/benchmarks.md

.PHONY: bench-micro
bench-micro: tools ## In-process Go benchmarks (emulator, broker, tenancy, converge 1,000 resource groups).
	go test -run XXX -bench . -benchtime 1x ./reconcilers/kinds/
	go test -run XXX -bench . ./identity/ ./tenancy/... ./emulator/

# A count of inputs, not a duration: with a duration, Go 1.26's fuzz coordinator may fail a
# target with a bare "context deadline exceeded" when a worker is mid-input at the deadline
# on a busy machine (golang/go#75804, fixed in Go 1.27; seen here in CI's FuzzFindARMIDs,
# 2026-12-07). A count has no deadline to race.
FUZZTIME ?= 5000x

.PHONY: fuzz
fuzz: tools ## Run each fuzz target for FUZZTIME inputs (default 5000x; a duration such as 30s works too), one at a time.
	go test -run '^$$' -fuzz '^FuzzParseARMID$$' -fuzztime $(FUZZTIME) ./tenancy
	go test -run '^$$' -fuzz '^FuzzFindARMIDs$$' -fuzztime $(FUZZTIME) ./tenancy
	go test -run '^$$' -fuzz '^FuzzCompileEval$$' -fuzztime $(FUZZTIME) ./reconcilers/expressions
	go test -run '^$$' -fuzz '^FuzzDesired$$' -fuzztime $(FUZZTIME) ./reconcilers/kinds
	go test -run '^$$' -fuzz '^FuzzARMRequest$$' -fuzztime $(FUZZTIME) ./emulator
	go test -run '^$$' -fuzz '^FuzzImportSpecOf$$' -fuzztime $(FUZZTIME) ./internal/azimport
	go test -run '^$$' -fuzz '^FuzzCompareAnswers$$' -fuzztime $(FUZZTIME) ./reconcilers/comparison
	go test -run '^$$' -fuzz '^FuzzListedAnswer$$' -fuzztime $(FUZZTIME) ./reconcilers

.PHONY: demo
demo: tools build ## The whole story on local processes: onboarding, two teams, refusals, drift (see README); leaves it running.
	$(BIN)/aztenant-lab demo up

.PHONY: demo-down
demo-down: ## Stop what `make demo` left running.
	$(BIN)/aztenant-lab demo down

.PHONY: clean
clean: ## Remove built binaries (keeps the tool builds) and demo state.
	rm -rf .aztenant dist
	find $(BIN) -maxdepth 1 -type f \( -name aztenant -o -name aztenant-lab -o -name operator -o -name azure-emulator \) -delete 2>/dev/null || true

# Release artifacts, built by hack/image (its own Go module) with no container
# daemon and no network beyond the Go module proxy. RELEASE_VERSION empty: HEAD's
# tag, else a pseudo-version of the commit.
IMAGE_REPO ?= ghcr.io/aztenant/aztenant-operator
IMAGE_ARCH ?= $(shell go env GOARCH)
RELEASE_VERSION ?=

.PHONY: image
image: ## The operator's OCI image, reproducible: dist/image/oci (layout, crane push) and dist/image/aztenant-operator.tar (docker load, kind load image-archive).
	go -C hack/image run . image -root $(CURDIR) -out $(CURDIR)/dist/image -repository $(IMAGE_REPO) -arch $(IMAGE_ARCH) -version "$(RELEASE_VERSION)"

.PHONY: dist
dist: ## The CLI for linux and darwin on amd64 and arm64: dist/aztenant_<version>_<os>_<arch>.tar.gz and dist/SHA256SUMS.
	go -C hack/image run . dist -root $(CURDIR) -out $(CURDIR)/dist -version "$(RELEASE_VERSION)"
