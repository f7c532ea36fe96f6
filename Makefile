# strataspec — the executable specification of the strata engine's plan.
GO ?= go
DARWIN := GOOS=darwin GOARCH=arm64 CGO_ENABLED=0

.PHONY: test test-linux test-race test-darwin-vet test-lint audit golden fixtures vet bench bench-pagecache

# The test command (README, .ci/run): gofmt, then four jobs at once (make
# -j4), so that the two cores stay busy while a job waits on a long compile
# or a test binary that runs its tests one after another:
#   test-linux      go vet ./... (every analyzer, tests included), then every
#                   test outside RACE_PKGS without the race detector (under
#                   -race the spec package alone took 371 s against 93 s);
#   test-race       the packages that start goroutines or take locks
#                   (RACE_PKGS; spec/ci_test.go keeps the list whole) with it;
#   test-darwin-vet the Mac build vetted from Linux, niced: it only compiles
#                   and vets, so it takes the cycles the others leave;
#   test-lint       actionlint on the CI workflow (and the action it uses).
# The tests run with -vet=off: go test's own vet pass (11 analyzers) would
# type-check every package and its dependencies again, once per build
# configuration, for a subset of what go vet ./... checks. Each step prints
# its name and the time, gotestsum every test as it ends; make waits for
# every job and fails if any does.
MODULE := github.com/strataspec/strataspec
# go test builds and runs packages in the order given, so the ones whose
# tests run longest come first, to run while the others compile and test
# (in its place, the spec package's tests ran alone for the last 47 s of the
# 119 s step, cold, -debug-actiongraph, a shared machine).
RACE_PKGS := engine/pagecache engine/audit engine/live engine/facts engine/analysis engine/metal engine/rusage engine/snapfs
FIRST_PKGS := ./spec ./tools/strataspec
TESTFMT := --format testname --format-hide-empty-pkg
test:
	@echo "== $$(date -u +%T) gofmt"
	@test -z "$$(gofmt -l .)" || { echo "gofmt would change:"; gofmt -l .; exit 1; }
	@echo "== $$(date -u +%T) four jobs at once: test-linux, test-race, test-darwin-vet, test-lint"
	@$(MAKE) --no-print-directory -j4 test-linux test-race test-darwin-vet test-lint
	@echo "== $$(date -u +%T) done"

test-linux:
	@echo "== $$(date -u +%T) [test-linux] go vet ./..."
	$(GO) vet ./...
	@echo "== $$(date -u +%T) [test-linux] the tests without -race"
	$(GO) tool gotestsum $(TESTFMT) -- -vet=off $$($(GO) list $(FIRST_PKGS) ./... | grep -v -x $(foreach p,$(RACE_PKGS),-e '$(MODULE)/$(p)'))
	@echo "== $$(date -u +%T) [test-linux] done"

test-race:
	@echo "== $$(date -u +%T) [test-race] tests with -race: $(RACE_PKGS)"
	$(GO) tool gotestsum $(TESTFMT) -- -vet=off -race $(addprefix ./,$(RACE_PKGS))
	@echo "== $$(date -u +%T) [test-race] done"

test-lint:
	@echo "== $$(date -u +%T) [test-lint] actionlint"
	$(GO) tool actionlint .github/workflows/ci.yml
	@echo "== $$(date -u +%T) [test-lint] done"

test-darwin-vet:
	@echo "== $$(date -u +%T) [test-darwin-vet] go vet ./... for darwin/arm64 (niced)"
	nice -n 10 env $(DARWIN) $(GO) vet ./...
	@echo "== $$(date -u +%T) [test-darwin-vet] done"

# The main job: audit the default snapshot (fixtures/m5).
audit:
	$(GO) run ./tools/strataspec

# Rewrite golden files after a deliberate change; read `git diff golden/` before committing.
golden:
	$(GO) test ./spec/... -update

# Regenerate the fixture snapshots from the audit's figures (tools/mkfixtures).
fixtures:
	$(GO) run ./tools/mkfixtures

vet:
	$(GO) vet ./...
	$(DARWIN) $(GO) vet ./...

# Go benchmarks (short); figures in README "Measured".
bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 3x ./...

# Side-by-side page-cache benchmark against vmtouch, fincore and dd (needs the
# Debian packages vmtouch and util-linux; see bench/).
bench-pagecache:
	bash bench/pagecache.sh -n 11
