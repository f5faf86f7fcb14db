# mcpctl needs cgo (SQLite) and the FTS5 build tag everywhere.
GO      ?= go
TAGS    := sqlite_fts5
PKGS    := ./...
BENCH   ?= .
FUZZTIME ?= 20s

.PHONY: build run test bench bench-sdk eval eval-llm lint fuzz clean

build:
	CGO_ENABLED=1 $(GO) build -tags $(TAGS) -o bin/mcpctl ./cmd/mcpctl

run: build
	./bin/mcpctl demo

test:
	CGO_ENABLED=1 $(GO) test -race -tags $(TAGS) $(PKGS)

bench:
	CGO_ENABLED=1 $(GO) test -tags $(TAGS) -run '^$$' -bench '$(BENCH)' -benchmem $(PKGS)

# The tools timed through the official TypeScript SDK client (needs node and npm), on generated
# libraries of SIZES prompts, made once in $(TMPDIR).
SIZES ?= 1000 10000
bench-sdk: build
	cd testdata/sdkbench && npm install --no-audit --no-fund --silent
	@for n in $(SIZES); do \
	  lib=$${TMPDIR:-/tmp}/mcpctl-sdkbench-library-$$n; \
	  [ -d $$lib ] || { rm -rf $$lib.new && ./bin/mcpctl library init --sample $$n $$lib.new >/dev/null && mv $$lib.new $$lib; } || exit 1; \
	  echo "== $$n prompts"; node testdata/sdkbench/bench.mjs ./bin/mcpctl $$lib || exit 1; \
	done

# The gate's labelled benchmark (testdata/gate): recall, precision, wanted prompts at least named
# (+named), priority-10 rate and bytes.
eval:
	CGO_ENABLED=1 $(GO) test -tags $(TAGS) -count=1 -run '^TestGateEval$$' -v ./gate/ | grep -v '^=== RUN'

# The same, with rows for the LLM re-ranking by the model of config.yaml's llm (DESIGN §9):
# MCPCTL_EVAL_LLM_CONFIG names another config file, MCPCTL_EVAL_RERANK_TIMEOUT (a Go duration)
# another time box than serve's 2 s.
eval-llm:
	MCPCTL_EVAL_LLM_CONFIG="$${MCPCTL_EVAL_LLM_CONFIG:-$${XDG_CONFIG_HOME:-$$HOME/.config}/mcpctl/config.yaml}" \
	  CGO_ENABLED=1 $(GO) test -tags $(TAGS) -count=1 -timeout 2h -run '^TestGateEval$$' -v ./gate/ | grep -v '^=== RUN'

lint:
	@test -z "$$(gofmt -l .)" || (gofmt -l .; exit 1)
	$(GO) vet -tags $(TAGS) $(PKGS)
	@if command -v golangci-lint >/dev/null; then golangci-lint run; else echo "golangci-lint not installed; skipped"; fi

fuzz:
	@for t in $$(grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u); do \
	  for f in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$t/*_test.go | cut -d' ' -f2); do \
	    echo "== $$t $$f"; CGO_ENABLED=1 $(GO) test -tags $(TAGS) -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$t || exit 1; \
	  done; done

clean:
	rm -rf bin
