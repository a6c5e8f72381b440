#!/usr/bin/env bash
# What `make test` drives for real: gcc for -race, tmux for terminals, bash (with
# bash-completion), zsh and fish for Tab completion, groff for the man
# pages, diff and patch for init's dry-run diffs, git for the repo and
# release tests, jq for the tree's JSON. Missing ones are installed with
# apt-get when we are root; otherwise we stop before any test, naming them.
set -euo pipefail

need=()
have() { command -v "$1" >/dev/null 2>&1; }
have tmux || need+=(tmux)
# go test -race needs cgo, so a C compiler and the C library headers.
have gcc || need+=(gcc libc6-dev)
have git || need+=(git)
have zsh || need+=(zsh)
have fish || need+=(fish)
[ -e /usr/share/bash-completion/bash_completion ] || need+=(bash-completion)
have groff || need+=(groff)
have patch || need+=(patch)
have diff || need+=(diffutils)
have jq || need+=(jq)
((${#need[@]})) || exit 0

if [ "$(id -u)" -ne 0 ] || ! have apt-get; then
	echo "make test: the tests need these packages; install them first: sudo apt-get install ${need[*]}" >&2
	exit 1
fi
echo "make test: installing ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${need[@]}" >/dev/null
