# strataspec — the executable specification of the strata engine's plan.
GO ?= go
DARWIN := GOOS=darwin GOARCH=arm64 CGO_ENABLED=0

.PHONY: test audit golden fixtures vet bench bench-pagecache

# The test command (README, .ci/run): every package with the race detector,
# the CI workflow linted, then the Mac build vetted from Linux. Unformatted
# Go files fail it first.
test:
	@test -z "$$(gofmt -l .)" || { echo "gofmt would change:"; gofmt -l .; exit 1; }
	$(GO) vet ./...
	$(GO) tool actionlint .github/workflows/ci.yml
	$(GO) tool gotestsum --format pkgname -- -race ./...
	$(DARWIN) $(GO) vet ./...

# The main job: audit the default snapshot (fixtures/m5).
audit:
	$(GO) run ./tools/audit

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
