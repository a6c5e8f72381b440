// Package config reads forgectl's config.toml and turns it into what a launch
// or a resume needs: claude's flags, its environment, which binary to run, and
// the [[resume.on_update]] hooks.
//
// The caller finds the file (shared/paths: $FORGECTL_CONFIG_DIR, else
// os.UserConfigDir()/forgectl) and passes its path to [Load]. A file that does
// not exist is an empty config, not an error: forgectl works without one.
//
// # Schema
//
//	[launch.defaults]             # the profile every directory starts from
//	harness = "claude"            # only claude is launched today; not validated here
//	model = "opus"                # --model
//	effort = "high"               # --effort: low | medium | high | xhigh | max
//	permission_mode = "plan"      # --permission-mode (claude validates the value)
//	allow_danger = false          # --allow-dangerously-skip-permissions, only on a terminal
//	binary_path = "~/bin/claude"  # which claude; see "Binaries" below
//	add_dir = ["~/notes"]         # one --add-dir per entry
//	env = { KEY = "value" }       # added to claude's environment
//
//	[[launch.project]]            # any number; each overrides the defaults below match
//	match = "~/src/work"          # required: "~", "~/…" or an absolute path
//	model = "sonnet"              # any key of [launch.defaults]
//
//	[proxy]
//	launch_profile = "corp"       # inject this profile into every launch and resume
//	[proxy.profiles.corp]         # http_proxy, https_proxy, no_proxy, all_proxy
//	https_proxy = "http://proxy.corp:3128"
//
//	[[resume.on_update]]          # hooks run when the installed claude changes version
//	harness = "claude"            # only "claude"; "codex" and "pi" are "not supported yet"
//	action = "restart"            # exactly one of action = "restart" …
//	command = ["/usr/bin/say", "claude updated"]  # … or an argv, run without a shell
//	timeout_seconds = 60          # optional: 0 or absent is 300 (restart: 1800); at most 86400
//
// Keys this package does not read ([net] ttl_seconds and the other sections
// that belong to other forgectl commands, or an unknown key under [launch] or
// [proxy]) are accepted and listed in [Config.Ignored], so that a file written
// for the public forgectl loads unchanged. Two places are strict, because a
// silently ignored hook is a hook that never fires: an unknown key inside a
// [[resume.on_update]] entry is an error naming the key, and a top-level
// [[on_update]] or [on_update] (the spelling of the original design) is an
// error naming [[resume.on_update]].
//
// # Errors
//
// [Load] reports every problem it finds as an [ErrorList] of [*Error], each
// naming the file, the line where it is known, the table and the key. Callers
// that run a launch or a resume print each one and exit 2; doctor reports each
// as a row. A syntax error stops parsing, so it is reported alone.
//
// # Profile resolution
//
// [Resolve] is a pure function of the config, a directory and the home
// directory; it touches no file. The profile is [launch.defaults] merged with
// the one [[launch.project]] whose match, with "~" expanded and cleaned, is the
// longest prefix of the directory on path-segment boundaries: "/a/b" matches
// "/a/b" and "/a/b/c" but not "/a/bc", and "/" matches every absolute
// directory. When two projects have the same match, the first in the file
// wins. The directory is compared as given, so callers that want symlinks
// resolved resolve them first.
//
// Merging, field by field:
//   - strings (harness, model, effort, permission_mode, binary_path): the
//     project's value wins when it is not empty;
//   - allow_danger: the project's value wins whenever the project sets it, so a
//     project can turn off a default of true;
//   - add_dir: a project that sets add_dir replaces the defaults' list
//     entirely, and add_dir = [] clears it. Replacing rather than appending
//     keeps every directory's list readable in one place and lets a project
//     drop a default directory, which appending could not express; repeat a
//     default entry in the project to keep it;
//   - env: merged key by key, the project's value winning.
//
// add_dir entries and binary_path have "~" expanded; a relative add_dir entry
// is taken relative to the directory being resolved, which is the directory
// claude runs in. Only "~" and "~/…" are expanded ("~user" is refused by Load).
//
// # Environment
//
// [Config.ProxyEnv] turns [proxy] launch_profile into variables: the four
// proxy variables are always set, in lower and upper case, and a variable the
// profile leaves out is set to the empty string, so that a value inherited
// from the caller's shell cannot leak into the session. Only the four known
// keys are read from a profile; any other key in it is ignored (and listed in
// [Config.Ignored]), which keeps the set of injected variables fixed and the
// "sets no values" rule well defined. A launch_profile that names an undefined
// profile, or one that sets no values, is a [*ProxyError]: a refusal, exit 2.
//
// [Resolved.Environ] merges the profile's env over the proxy variables (the
// profile's env wins: it is the more specific, per-directory choice) and
// returns the additions, sorted.
//
// # Binaries
//
// [ClaudeBinary] looks for claude in $FORGECTL_CLAUDE_BIN, then in
// [launch.defaults] binary_path, then on PATH; a value that is set but not
// executable is an error rather than a reason to fall through, so an override
// never silently runs some other claude. [HerdrBinary] does the same with
// $FORGECTL_HERDR_BIN and PATH.
package config
