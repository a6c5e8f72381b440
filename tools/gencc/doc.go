// Package gencc writes synthetic but realistic Claude Code homes: the demo
// behind `make demo`, the fixtures of end-to-end tests, and the 10,000-session
// home of the benchmarks.
//
// Generate writes, under Options.Home:
//
//	.claude/projects/<encoded cwd>/<sessionId>.jsonl   transcripts (0600)
//	.claude/projects/<encoded cwd>/<sessionId>/        custom-title.json, subagents/agent-*.jsonl
//	.claude/history.jsonl                              one line per typed prompt and /rename
//	.claude/tasks/<sessionId>/                         N.json, .lock, .highwatermark
//	.claude/sessions/<pid>.json                        a stale registry record (demo only)
//	.claude/settings.json                              cleanupPeriodDays 3650, if absent
//	.claude.json                                       onboarding done, projects[cwd].lastSessionId
//	src/<repo>/                                        working copies with a minimal real .git
//	gencc-manifest.json                                the ground truth (see Manifest)
//
// Rows follow facts/claude-code.md: conversation rows (user, assistant,
// tool results, system stop_hook_summary / turn_duration / local_command /
// compact_boundary, big attachment rows) carry the envelope in Claude Code's
// order, ending in cwd, sessionId, version, gitBranch; metadata rows
// (custom-title, agent-name, ai-title, last-prompt, summary, tag, pr-link,
// worktree-state, permission-mode, file-history-snapshot) are re-appended
// near the tail at every launch and exit, except in sessions whose rename is
// deliberately buried mid-file (SessionInfo.TitlePosition "middle").
//
// Each session is written from its own PCG stream seeded by (Seed, index),
// so the output does not depend on how many workers ran. The same Seed,
// Options and Now give byte-identical files.
//
// Demo and default homes also hold the lineage cast (see LineageSessions):
// forks, branches and a /clear chain made from two of the plan's sessions
// as Claude Code 2.1.333 makes them, each with its parent in the manifest.
//
// Append grows an existing home the way resumed sessions do, for the
// "after appending to 1% of the files" benchmark. WriteRegistry writes a
// live-process registry record for a real pid, with its real procStart, for
// tests that need a live (or, with a wrong ProcStart, a reused-pid) session.
//
// The manifest's JSON (snake_case, RFC 3339 UTC times, empty lists as []) is
// the Manifest type; its per-session entries are SessionInfo, whose field
// comments define each value. Name follows forgectl's precedence (custom
// title, agent name, AI title, legacy summary) and NameSource says which won.
package gencc
