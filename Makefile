# fragprof: `make demo` runs the main job, `make test` runs every test. Both install
# what they need on a fresh Debian machine (clang via apt when missing).

GO      ?= go
BIN     := fragprof
DEMO    := demo-out

.PHONY: all build deps test test-large test-short demo bench clean

all: build

deps:
	@scripts/deps.sh

build:
	$(GO) build -o $(BIN) ./cmd/fragprof

# The whole suite, as CI runs it: vet, then every test (nothing skipped).
test: deps build
	$(GO) vet ./...
	$(GO) test -timeout 25m ./...

# The large tests: sqlite3.c (the SQLite amalgamation, fetched by scripts/sqlite.sh)
# with a SQL workload, counted by fragprof with clang 14 against gcov.
test-large: deps build
	FRAGPROF_SQLITE=$$(scripts/sqlite.sh) $(GO) test -tags large -run TestSQLiteGcov -timeout 60m -v ./internal/oracle

# The quick suite for the edit-compile-test loop: the large corpora are left out.
test-short: build
	$(GO) test -short ./...

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
