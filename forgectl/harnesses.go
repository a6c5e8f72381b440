package main

import (
	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/harness/claude"
	"forgectl.dev/forgectl/internal/harness/codex"
	"forgectl.dev/shared/snapstore"
)

// harnessEntry is one agent forgectl knows: its name (in --harness,
// [resume] harnesses and ls --json) and how this invocation makes it.
// Everything else the app needs of it, it asks the harness (harness.About,
// Present, HomeProblem, NoneFound, Busy, and the optional Renamer and
// Binary).
type harnessEntry struct {
	name string
	make func(a *app) harness.Harness
}

// harnessRoster is every agent forgectl knows, in the order messages and
// completion take them. A new harness is its package under
// internal/harness and one line here; harness_import_test.go keeps the
// harness packages out of every other file.
//
// The first is the primary harness, Claude Code: listed whether or not
// its tree exists, and the one forgectl's archive, snapshots, launch
// profile and retention check serve.
func harnessRoster() []harnessEntry {
	return []harnessEntry{
		// Claude Code's rows are joined with forgectl's snapshots.
		{claude.Name, func(a *app) harness.Harness {
			return claude.New(a.claudePaths(), snapstore.Store{Dir: a.forgectlPaths().Snapshots()})
		}},
		{codex.Name, func(a *app) harness.Harness { return codex.New(codex.PathsFrom(a.getenv, a.home)) }},
	}
}
