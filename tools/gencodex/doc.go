// Package gencodex writes synthetic but realistic OpenAI Codex CLI homes
// ($CODEX_HOME), for tests and for the benchmarks' mixed Claude Code and
// Codex home. The shapes follow shared/facts/codex.md and what the contract
// suite (tools/contract/codex) sees the real 0.171.0 and 0.142.3 write:
//
//	sessions/YYYY/MM/DD/rollout-<local time>-<thread>.jsonl          a thread's first segment
//	sessions/…/rollout-<local time>-<thread>_<uuid>.jsonl             a later segment (a rewind)
//	sessions/…/rollout-….jsonl.zst                                   a zstd-compressed segment
//	archived_sessions/rollout-….jsonl                                 archived threads, flat
//	session_index.jsonl                                              titles, renames; forks inherit names
//	history.jsonl                                                    prompts typed in the TUI
//	src/<repo>/                                                      the threads' working directories
//	gencodex-manifest.json                                           the ground truth (Manifest)
//
// Every rollout starts with a session_meta line of about 22 KB (it embeds a
// system prompt, as Codex's does). Paginated threads (0.171.0) carry an
// ordinal per line and their prompts as event_msg item_completed
// UserMessage items; legacy ones (0.142.3) carry event_msg user_message and
// no history_mode. Turns hold tool calls, their output, reasoning and the
// injected <environment_context> block, which are not prompts.
//
// Kinds (Thread.Kind): tui, exec, subagent, fork, rewind, legacy,
// legacy-fork, archived, zst. With 9 threads or more every kind appears at
// least once. Each thread is drawn from its own PCG stream seeded by (Seed,
// index): the same Options give byte-identical files (paths aside, which
// embed Home) and the same mtimes.
package gencodex
