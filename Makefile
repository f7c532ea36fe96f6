# strataspec — the executable specification of the strata engine's plan.
GO ?= go
DARWIN := GOOS=darwin GOARCH=arm64 CGO_ENABLED=0

.PHONY: test audit golden fixtures vet bench bench-pagecache

# The test command (README, .ci/run): gofmt, vet, the CI workflow linted,
# every test: the packages that start goroutines or take locks (RACE_PKGS;
# spec/ci_test.go keeps the list whole) with the race detector, the others
# without it (under -race the spec package alone took 371 s against 93 s),
# and the Mac build vetted from Linux. The Mac vet (68 s cold: it compiles
# the standard library for darwin/arm64) runs beside the tests, which leave
# a core idle while the spec package's tests run one after another; its
# output is printed, and its exit code counts, after them. Each step prints
# its name and the time; gotestsum prints every test as it ends.
MODULE := github.com/strataspec/strataspec
RACE_PKGS := engine/analysis engine/audit engine/facts engine/live engine/metal engine/pagecache engine/rusage engine/snapfs
TESTFMT := --format testname --format-hide-empty-pkg
DARWIN_VET_LOG := $(CURDIR)/.darwin-vet.log
test:
	@echo "== $$(date -u +%T) gofmt"
	@test -z "$$(gofmt -l .)" || { echo "gofmt would change:"; gofmt -l .; exit 1; }
	@echo "== $$(date -u +%T) go vet ./..."
	$(GO) vet ./...
	@echo "== $$(date -u +%T) go vet for darwin/arm64 starts beside the tests (output after them)"
	@rm -f $(DARWIN_VET_LOG) $(DARWIN_VET_LOG).rc; \
	  ( $(DARWIN) $(GO) vet ./... >$(DARWIN_VET_LOG) 2>&1; echo $$? >$(DARWIN_VET_LOG).rc ) &
	@echo "== $$(date -u +%T) actionlint"
	$(GO) tool actionlint .github/workflows/ci.yml
	@echo "== $$(date -u +%T) tests with -race: $(RACE_PKGS)"
	$(GO) tool gotestsum $(TESTFMT) -- -race $(addprefix ./,$(RACE_PKGS))
	@echo "== $$(date -u +%T) the other tests"
	$(GO) tool gotestsum $(TESTFMT) -- $$($(GO) list ./... | grep -v -x $(foreach p,$(RACE_PKGS),-e '$(MODULE)/$(p)'))
	@echo "== $$(date -u +%T) go vet for darwin/arm64 (waiting for it)"
	@while [ ! -f $(DARWIN_VET_LOG).rc ]; do sleep 1; done; \
	  cat $(DARWIN_VET_LOG); rc=$$(cat $(DARWIN_VET_LOG).rc); rm -f $(DARWIN_VET_LOG) $(DARWIN_VET_LOG).rc; \
	  if [ "$$rc" != 0 ]; then echo "go vet for darwin/arm64 failed (exit $$rc)"; exit 1; fi
	@echo "== $$(date -u +%T) done"

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
