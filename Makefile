# forgectl resume — build, test and benchmark every module of the workspace.
# `./...` does not cross module boundaries, so each target loops over MODULES.

ALL_MODULES := shared forgectl resume-snapshot resume-restart resume-hooks tools
# A module holding no Go files yet is skipped (go vet/test fail on "no packages").
MODULES := $(foreach m,$(ALL_MODULES),$(if $(shell find $(m) -name '*.go' -print -quit),$(m)))
BINARIES := forgectl resume-snapshot resume-restart resume-hooks
BIN := $(CURDIR)/bin
DEMO := $(CURDIR)/.demo
GOFLAGS_TEST ?= -race -count=1
DIST ?= $(CURDIR)/dist
PREFIX ?= $(HOME)/.local
PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64

.PHONY: all build demo test test-deps vet fmt-check gowork-off darwin unit fuzz-brief fuzz bench bench-100k samecheck contract contract-claude contract-codex dist install clean

all: build

# Each binary is stamped with its own module's version (tools/relver: the
# module's tag on HEAD, forgectl/v0.2.0 -> v0.2.0, else a Go pseudo-version,
# -dirty for a modified tree) through shared/version's -X variable. Outside
# a git checkout the stamp is empty and the build info speaks instead;
# make dist refuses to run there.
RELVER := $(BIN)/.relver
STAMP = -X forgectl.dev/shared/version.stamp=$$($(RELVER) -C $(CURDIR) $$m 2>/dev/null)

$(RELVER): $(wildcard tools/relver/*.go)
	@mkdir -p $(BIN)
	@cd tools && go build -o $(RELVER) ./relver

build: $(RELVER)
	@mkdir -p $(BIN)
	@for m in $(filter $(MODULES),$(BINARIES)); do \
		(cd $$m && go build -trimpath -ldflags "$(STAMP)" -o $(BIN)/$$m .) || exit 1; \
	done
	@(cd tools && go build -o $(BIN)/gencc ./gencc/cmd/gencc && go build -o $(BIN)/gencodex ./gencodex/cmd/gencodex)
	@echo "built $(BINARIES) into $(BIN)"

# One archive per binary, OS and architecture, each holding the binary, its
# man page, the README and (forgectl's) the completion scripts, plus
# SHA256SUMS. The host build writes the completion scripts. Archives are
# reproducible: fixed owner, order and the commit's time.
dist: build
	@rm -rf $(DIST) && mkdir -p $(DIST)/.stage
	@when=$$(git log -1 --format=%ct); \
	for m in $(BINARIES); do \
		v=$$($(RELVER) -C $(CURDIR) $$m) || exit 1; \
		for p in $(PLATFORMS); do \
			os=$${p%/*}; arch=$${p#*/}; name=$${m}_$${v}_$${os}_$${arch}; d=$(DIST)/.stage/$$name; \
			mkdir -p $$d; \
			(cd $$m && CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch go build -trimpath -ldflags "-s -w $(STAMP)" -o $$d/$$m .) || exit 1; \
			cp $$m/$$m.1 README.md $$d/; \
			if [ $$m = forgectl ]; then \
				mkdir -p $$d/completions; \
				$(BIN)/forgectl completion bash > $$d/completions/forgectl.bash; \
				$(BIN)/forgectl completion zsh > $$d/completions/_forgectl; \
				$(BIN)/forgectl completion fish > $$d/completions/forgectl.fish; \
			fi; \
			tar -C $(DIST)/.stage --sort=name --owner=0 --group=0 --numeric-owner --mtime=@$$when -cf - $$name | gzip -n > $(DIST)/$$name.tar.gz || exit 1; \
		done; \
	done
	@rm -rf $(DIST)/.stage
	@cd $(DIST) && sha256sum *.tar.gz > SHA256SUMS
	@echo "$$(ls $(DIST)/*.tar.gz | wc -l) archives and SHA256SUMS in $(DIST)"

# make install PREFIX=~/.local (DESTDIR is honoured for packagers).
install: build
	@root=$(DESTDIR)$(PREFIX); \
	install -d $$root/bin $$root/share/man/man1 $$root/share/bash-completion/completions \
		$$root/share/zsh/site-functions $$root/share/fish/vendor_completions.d && \
	for m in $(BINARIES); do \
		install -m 0755 $(BIN)/$$m $$root/bin/$$m && install -m 0644 $$m/$$m.1 $$root/share/man/man1/$$m.1 || exit 1; \
	done && \
	$(BIN)/forgectl completion bash > $$root/share/bash-completion/completions/forgectl && \
	$(BIN)/forgectl completion zsh > $$root/share/zsh/site-functions/_forgectl && \
	$(BIN)/forgectl completion fish > $$root/share/fish/vendor_completions.d/forgectl.fish && \
	echo "installed $(BINARIES), their man pages and forgectl's completions under $$root"

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
# every module built on its own (GOWORK=off) as a release would be. The
# programs the tests drive (tmux, the shells, groff, patch, jq) come first:
# installed when we are root, else named in one line before any test runs.
test: test-deps
	@$(MAKE) --no-print-directory fmt-check vet gowork-off darwin unit fuzz-brief

test-deps:
	@tools/testdeps/testdeps.sh

fmt-check:
	@out=$$(gofmt -l $(MODULES)); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	@for m in $(MODULES); do (cd $$m && go vet ./...) || exit 1; done
	@# The contract tests sit behind a build tag; vet them too.
	@(cd tools && go vet -tags contract ./contract/...) && (cd resume-restart && go vet -tags contract ./internal/inputbox/)

gowork-off:
	@for m in $(MODULES); do (cd $$m && GOWORK=off go build -o /dev/null ./... && GOWORK=off go vet ./...) || exit 1; done
	@echo "every module builds with GOWORK=off"

# darwin is a release target: compile and vet its code paths (launchd, the
# sysctl process reads, the tty flush) from Linux, every module.
darwin:
# The code paths differ by OS, not by architecture: vet once, build both.
	@for m in $(MODULES); do \
		(cd $$m && CGO_ENABLED=0 GOOS=darwin GOARCH=arm64 go build -o /dev/null ./... && \
			CGO_ENABLED=0 GOOS=darwin GOARCH=amd64 go build -o /dev/null ./... && \
			CGO_ENABLED=0 GOOS=darwin GOARCH=amd64 go vet ./...) || exit 1; \
	done
	@echo "every module builds for darwin/amd64 and darwin/arm64 and vets for darwin"

unit:
	@fail=0; for m in $(MODULES); do \
		echo "== $$m"; (cd $$m && go test $(GOFLAGS_TEST) ./...) || fail=1; \
	done; exit $$fail

# Fuzz targets for every on-disk cache's decoder and for the row reader both
# the listing and search use, as module:package:Target.
# make test runs each briefly (their seed corpora also run in unit); make
# fuzz runs each for FUZZTIME.
FUZZ_TARGETS := forgectl:./internal/sessions/:FuzzIndex forgectl:./internal/harness/claude/:FuzzEntry \
	forgectl:./internal/search/:FuzzCatalog forgectl:./internal/search/:FuzzSegment shared:./jsonl/:FuzzStringLit shared:./jsonl/:FuzzAppendString \
	shared:./transcript/:FuzzClassify
FUZZTIME ?= 60s

fuzz-brief:
	@$(MAKE) --no-print-directory fuzz FUZZTIME=5s

fuzz:
	@for t in $(FUZZ_TARGETS); do \
		m=$${t%%:*}; rest=$${t#*:}; pkg=$${rest%%:*}; name=$${rest#*:}; \
		echo "== fuzz $$m $$pkg $$name ($(FUZZTIME))"; \
		(cd $$m && go test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg) || exit 1; \
	done

# Speed and memory targets, as ratios against baselines measured in the same
# run (never timed assertions in tests). The 10,000-session home is generated
# once into .bench/ (about 1.5 GB) and reused; bench-100k generates the
# 100,000-session one (about 8 GB), measures it, and deletes it.
bench: build
	@mkdir -p .bench
	@# resume search is measured against ripgrep, as people search today.
	@command -v rg >/dev/null || { echo "installing ripgrep (the search benchmark's baseline)"; \
		DEBIAN_FRONTEND=noninteractive apt-get update -qq && apt-get install -y -qq ripgrep >/dev/null; }
	@echo "== resume ls, shell completion and the picker (tools/benchls), then with 5,000 Codex threads beside"
	@(cd tools && go run ./benchls -bin $(BIN) -work $(CURDIR)/.bench -codex-threads 5000)
	@echo
	@echo "== the Stop-hook snapshot (tools/benchsnap)"
	@(cd tools && go run ./benchsnap -n 200 -forgectl $(BIN)/forgectl)
	@echo
	@echo "== resume search (tools/benchsearch)"
	@(cd tools && go run ./benchsearch -bin $(BIN) -work $(CURDIR)/.bench)
	@echo
	@echo "== the first search, complete, on a text-heavy home (tools/benchsearch -text-heavy)"
	@(cd tools && go run ./benchsearch -bin $(BIN) -work $(CURDIR)/.bench -text-heavy)
	@echo
	@echo "== the picker's preview of a 100 MB transcript and a 100 MB Codex rollout (tools/benchpreview)"
	@(cd tools && go run ./benchpreview -src $(CURDIR)/forgectl)
	@echo "== resume archive and unarchive (tools/bencharchive)"
	@(cd tools && go run ./bencharchive -bin $(BIN) -work $(CURDIR)/.bench)

bench-100k: build
	@mkdir -p .bench
	@(cd tools && go run ./benchls -bin $(BIN) -work $(CURDIR)/.bench -sessions 100000 -runs 3 -remove-home)

# Nothing a user sees changed: build OLD (a commit) beside this tree and
# compare what both print on the demo, lineage and 10,000-session homes
# (tools/samecheck; SCALE=0 skips the big one). OLD defaults to HEAD~1.
OLD ?= HEAD~1
SCALE ?= 10000
samecheck: build
	@rm -rf .bench/old-src .bench/old-bin && mkdir -p .bench
	@git worktree add -q --detach .bench/old-src $(OLD)
	@$(MAKE) --no-print-directory -C .bench/old-src build BIN=$(CURDIR)/.bench/old-bin >/dev/null; rc=$$?; \
		git worktree remove --force .bench/old-src; [ $$rc -eq 0 ] || exit $$rc
	@(cd tools && go run ./samecheck -old $(CURDIR)/.bench/old-bin -new $(BIN) -work $(CURDIR)/.bench -scale $(SCALE))

# Contract tests against the real Claude Code and the real Codex CLI:
# pinned CLIs from the npm registry into ~/.cache/forgectl-contract (outside
# the repo), run offline in tmux against tools/fakeapi, a loopback stand-in
# for the Messages API and the Responses API. Without the registry a part
# prints SKIPPED and succeeds. Each part then asks the registry which
# release is "latest" and, when that is not the pinned one, runs its suite
# again against it, so a new release is noticed the day it ships.
# Both parts run even when the first fails.
contract:
	@rc=0; $(MAKE) --no-print-directory contract-claude || rc=1; \
	$(MAKE) --no-print-directory contract-codex || rc=1; exit $$rc

contract-claude:
	@out=$$(cd tools && go run ./contract/cmd/install-claude) || exit 1; echo "$$out"; \
	case "$$out" in *SKIPPED:*) exit 0;; esac; \
	rc=0; \
	(cd tools && go test -tags contract -race -count=1 -v -timeout 12m ./contract/) || rc=1; \
	(cd resume-restart && go test -tags contract -race -count=1 -v -timeout 8m -run Contract ./internal/inputbox/) || rc=1; \
	pinned=$${out%% *}; \
	latest=$$(cd tools && go run ./contract/cmd/install-claude -latest) || rc=1; echo "$$latest"; \
	case "$$latest" in \
	"") ;; \
	SKIPPED:*) ;; \
	"$$pinned "*) echo "contract: the registry's latest is the pinned $$pinned: proven above";; \
	*) v=$${latest%% *}; echo "== contract against the registry's latest, claude $$v"; \
	   (cd tools && FORGECTL_CONTRACT_CURRENT=$$v go test -tags contract -race -count=1 -v -timeout 12m ./contract/) || rc=1; \
	   (cd resume-restart && FORGECTL_CONTRACT_CURRENT=$$v go test -tags contract -race -count=1 -v -timeout 8m -run Contract ./internal/inputbox/) || rc=1;; \
	esac; \
	exit $$rc

# Codex: 0.171.0 and the legacy 0.142.3 (tools/contract/codex, docs/contract.md).
# The checks through forgectl run only when the built forgectl lists Codex
# threads; the run says which ran.
contract-codex:
	@out=$$(cd tools && go run ./contract/cmd/install-codex) || exit 1; echo "$$out"; \
	case "$$out" in *SKIPPED:*) exit 0;; esac; \
	rc=0; \
	(cd tools && go test -tags contract -race -count=1 -v -timeout 10m ./contract/codex/) || rc=1; \
	pinned=$${out%% *}; \
	latest=$$(cd tools && go run ./contract/cmd/install-codex -latest) || rc=1; echo "$$latest"; \
	case "$$latest" in \
	"") ;; \
	SKIPPED:*) ;; \
	"$$pinned "*) echo "contract: the registry's latest codex is the pinned $$pinned: proven above";; \
	*) v=$${latest%% *}; echo "== contract against the registry's latest, codex $$v"; \
	   (cd tools && FORGECTL_CONTRACT_CODEX=$$v go test -tags contract -race -count=1 -v -timeout 10m ./contract/codex/) || rc=1;; \
	esac; \
	exit $$rc

clean:
	rm -rf $(BIN) $(DEMO) .bench $(DIST)
