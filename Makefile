# fragprof: `make demo` runs the main job, `make test` runs every test. Both install
# what they need on a fresh Debian machine (clang via apt when missing).

GO      ?= go
BIN     := fragprof
DEMO    := demo-out

.PHONY: all build deps test test-unit test-large test-short test-slurm fuzz badinput demo bench clean

all: build

deps:
	@scripts/deps.sh

build:
	$(GO) build -o $(BIN) ./cmd/fragprof

# The tests come in two layers. The unit tests (no build tag) need Go alone: no
# clang, gcc, gcov, Graphviz, Chromium or Slurm; `go test ./...` runs them. The
# integration tests, in files marked //go:build integration, build and run real C
# programs, start those tools, a browser or a Slurm cluster; `-tags integration`
# adds them.

# The whole suite, as CI runs it: which stepping methods of the in-process sampler
# deliver on this host, vet, then every test of both layers (nothing skipped), then
# every fuzz target for a short fixed time.
test: deps build
	./$(BIN) sample --probe-host
	$(GO) vet -tags integration ./...
	$(GO) test -tags integration -timeout 25m ./...
	@$(MAKE) --no-print-directory fuzz

# The unit tests alone: Go only, nothing installed, no program built.
test-unit:
	$(GO) vet ./...
	$(GO) test ./...

# The fuzz targets of every reader of user files, FUZZTIME each, one worker (the
# machine is shared). A crasher the fuzzer finds is written to the package's
# testdata/fuzz/NAME/ and fails the run: commit it with the fix, so that 'go test'
# replays it from then on. Go 1.26's fuzzing coordinator may also fail a target with
# a bare "context deadline exceeded" when -fuzztime ends while a worker is busy
# (golang/go#75804, fixed in Go 1.27): such a run, which wrote no crasher, is
# reported as that race and does not fail the target.
FUZZTIME ?= 10s
FUZZ_TARGETS := \
	internal/dist:FuzzParse internal/dist:FuzzTemplate internal/dist:FuzzParseTOML internal/dist:FuzzGrammar \
	profile:FuzzParse internal/trace:FuzzParse internal/predict:FuzzParse \
	internal/report/html:FuzzDecode hotcfg:FuzzBatchReader hotcfg:FuzzReadJSON \
	internal/llvmir:FuzzParse internal/instrument:FuzzModule internal/instrument:FuzzDecode internal/dump:FuzzParse
fuzz:
	@out=$$(mktemp); trap 'rm -f "$$out"' EXIT; \
	for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; fn=$${t##*:}; echo "== fuzz ./$$pkg $$fn for $(FUZZTIME)"; \
		before=$$(ls ./$$pkg/testdata/fuzz/$$fn 2>/dev/null | wc -l); \
		if $(GO) test ./$$pkg -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) -parallel 1 >"$$out" 2>&1; then \
			cat "$$out"; continue; \
		fi; \
		cat "$$out"; \
		after=$$(ls ./$$pkg/testdata/fuzz/$$fn 2>/dev/null | wc -l); \
		if [ "$$after" = "$$before" ] && grep -q '^    context deadline exceeded$$' "$$out" && ! grep -q 'Failing input written' "$$out"; then \
			echo "== $$fn: the fuzzing coordinator's deadline race (golang/go#75804), no crasher: not a failure"; \
		else \
			exit 1; \
		fi; \
	done

# freq --engine slurm on a real single-node Slurm cluster (scripts/slurm-local.sh
# brings it up, installing Slurm when missing); `make test` runs these too.
test-slurm: build
	$(GO) test -tags integration -count=1 -run TestFreqSlurm ./cmd/fragprof

# The large tests: sqlite3.c (the SQLite amalgamation, fetched by scripts/sqlite.sh)
# with a SQL workload, counted by fragprof with clang 14 against gcov.
test-large: deps build
	FRAGPROF_SQLITE=$$(scripts/sqlite.sh) $(GO) test -tags 'integration large' -run TestSQLiteGcov -timeout 60m -v ./internal/oracle

# The quick suite for the edit-compile-test loop: both layers, the large corpora
# left out.
test-short: build
	$(GO) test -tags integration -short ./...

# More than 150 bad inputs (files, flags, distributions, profiles, programs that crash,
# hang or fork), each under a timeout: a table, and 0 hangs, panics, exit-0 failures
# and lost counts, or it fails. 'bench/badinput.sh -md docs/errors.md' rewrites the doc.
badinput: deps
	bench/badinput.sh

# The main job: count the blocks of Newton's square root, draw its CFG, then estimate
# every block's expected count under a distribution of its input, with the HTML page.
demo: deps build
	@mkdir -p $(DEMO)
	@echo "== fragprof cfg examples/newton.c --func nsqrt"
	./$(BIN) cfg examples/newton.c --func nsqrt
	@echo
	@echo "== echo 400 | fragprof count examples/newton.c"
	echo 400 | ./$(BIN) count examples/newton.c
	@echo
	@echo "== the same as JSON, and the CFG as SVG"
	echo 400 | ./$(BIN) count examples/newton.c --json -o $(DEMO)/newton.json > /dev/null
	./$(BIN) cfg examples/newton.c --format dot -o $(DEMO)/newton.dot
	dot -Tsvg $(DEMO)/newton.dot -o $(DEMO)/newton.svg
	@echo
	@echo "== the expected count of every block for ask ~ uniform(100, 800), to ±0.3 at 95%"
	./$(BIN) freq examples/newton.c --input 'ask = uniform(100, 800)' --stdin '{ask}\n' \
		--eps 0.3 --gamma 0.95 --report $(DEMO)/newton.html
	@echo "wrote $(DEMO)/newton.json, $(DEMO)/newton.svg and $(DEMO)/newton.html (open it in a browser)"

clean:
	rm -rf $(BIN) $(DEMO)
