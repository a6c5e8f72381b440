# forgectl resume — build, test and benchmark every module of the workspace.
# `./...` does not cross module boundaries, so each target loops over MODULES.

ALL_MODULES := shared forgectl resume-snapshot resume-restart resume-hooks tools
# A module holding no Go files yet is skipped (go vet/test fail on "no packages").
MODULES := $(foreach m,$(ALL_MODULES),$(if $(shell find $(m) -name '*.go' -print -quit),$(m)))
BINARIES := forgectl resume-snapshot resume-restart resume-hooks
BIN := $(CURDIR)/bin
DEMO := $(CURDIR)/.demo
GOFLAGS_TEST ?= -race -count=1

.PHONY: all build demo test vet fmt-check gowork-off unit fuzz bench contract clean

all: build

build:
	@mkdir -p $(BIN)
	@for m in $(filter $(MODULES),$(BINARIES)); do \
		(cd $$m && go build -trimpath -o $(BIN)/$$m .) || exit 1; \
	done
	@(cd tools && go build -o $(BIN)/gencc ./gencc/cmd/gencc)
	@echo "built $(BINARIES) into $(BIN)"

# The main job on a fresh machine: build everything, generate a small but
# realistic Claude Code home, and list its sessions with forgectl.
# The demo home gets a stand-in claude (it prints its arguments), so that
# the dry run resolves and the picker's Enter has something to exec.
DEMO_ENV := HOME=$(DEMO) CLAUDE_CONFIG_DIR= FORGECTL_CONFIG_DIR=$(DEMO)/.config/forgectl PATH=$(DEMO)/bin:$$PATH

demo: build
	@rm -rf $(DEMO)
	@$(BIN)/gencc -home $(DEMO) -demo
	@mkdir -p $(DEMO)/bin
	@printf '#!/bin/sh\necho "claude (a stand-in) in $$(pwd): $$*"\n' > $(DEMO)/bin/claude && chmod +x $(DEMO)/bin/claude
	@echo
	@echo "$$ forgectl resume ls"
	@$(DEMO_ENV) $(BIN)/forgectl resume ls
	@echo
	@echo "$$ forgectl resume --dry-run login"
	@$(DEMO_ENV) $(BIN)/forgectl resume --dry-run login
	@echo
	@echo "Try the picker (Enter runs the stand-in claude):"
	@echo "  HOME=$(DEMO) CLAUDE_CONFIG_DIR= FORGECTL_CONFIG_DIR=$(DEMO)/.config/forgectl PATH=$(DEMO)/bin:\$$PATH $(BIN)/forgectl resume"

# Every test: formatting, vet, the race-enabled suites of every module, and
# every module built on its own (GOWORK=off) as a release would be.
test: fmt-check vet gowork-off unit fuzz

fmt-check:
	@out=$$(gofmt -l $(MODULES)); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	@for m in $(MODULES); do (cd $$m && go vet ./...) || exit 1; done
	@# The contract tests sit behind a build tag; vet them too.
	@(cd tools && go vet -tags contract ./contract/) && (cd resume-restart && go vet -tags contract ./internal/inputbox/)

gowork-off:
	@for m in $(MODULES); do (cd $$m && GOWORK=off go build -o /dev/null ./... && GOWORK=off go vet ./...) || exit 1; done
	@echo "every module builds with GOWORK=off"

unit:
	@fail=0; for m in $(MODULES); do \
		echo "== $$m"; (cd $$m && go test $(GOFLAGS_TEST) ./...) || fail=1; \
	done; exit $$fail

# The search index's decoders meet damaged files by design: fuzz them for a
# few seconds each on every run (go test takes one fuzz target at a time).
FUZZ_SEARCH := FuzzCatalog FuzzSegment FuzzStringLit
fuzz:
	@for f in $(FUZZ_SEARCH); do \
		(cd forgectl && go test -run '^$$' -fuzz "^$$f\$$" -fuzztime 4s ./internal/search/) || exit 1; \
	done

# Speed and memory targets, as ratios against baselines measured in the same
# run (never timed assertions in tests). The 10,000-session home is generated
# once into .bench/ (about 1.5 GB) and reused.
bench: build
	@mkdir -p .bench
	@# resume search is measured against ripgrep, as people search today.
	@command -v rg >/dev/null || { echo "installing ripgrep (the search benchmark's baseline)"; \
		DEBIAN_FRONTEND=noninteractive apt-get update -qq && apt-get install -y -qq ripgrep >/dev/null; }
	@echo "== resume ls and the picker (tools/benchls)"
	@(cd tools && go run ./benchls -bin $(BIN) -work $(CURDIR)/.bench)
	@echo
	@echo "== the Stop-hook snapshot (tools/benchsnap)"
	@(cd tools && go run ./benchsnap -n 200 -forgectl $(BIN)/forgectl)
	@echo
	@echo "== resume search (tools/benchsearch)"
	@(cd tools && go run ./benchsearch -bin $(BIN) -work $(CURDIR)/.bench)

# Contract tests against the real Claude Code: pinned CLIs from the npm
# registry into ~/.cache/forgectl-contract (outside the repo), run offline in
# tmux against tools/fakeapi, a loopback stand-in for the Messages API.
# Without the registry it prints SKIPPED and succeeds.
contract:
	@out=$$(cd tools && go run ./contract/cmd/install-claude) || exit 1; echo "$$out"; \
	case "$$out" in *SKIPPED:*) exit 0;; esac; \
	rc=0; \
	(cd tools && go test -tags contract -race -count=1 -v -timeout 12m ./contract/) || rc=1; \
	(cd resume-restart && go test -tags contract -race -count=1 -v -timeout 8m -run Contract ./internal/inputbox/) || rc=1; \
	exit $$rc

clean:
	rm -rf $(BIN) $(DEMO) .bench
