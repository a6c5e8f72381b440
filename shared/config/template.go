package config

// Template returns the config file that `forgectl init` writes. Everything in
// it is commented out, so writing it changes nothing; prose comments start
// with "# " and examples with "#" alone, so that a user (or a test) can
// enable an example by deleting one character.
func Template() string {
	return `# forgectl configuration.
#
# Every example below is commented out: delete the leading "#" of a line to
# turn it on. Sections this version does not know about are left alone.

# [launch]: how claude is started by "forgectl launch" and "forgectl resume".
#
# A directory's profile is [launch.defaults] merged with the one
# [[launch.project]] whose match is the longest path prefix of the directory
# (whole path segments: ~/src/work covers ~/src/work/api, not ~/src/workshop).
# A project's values win; add_dir in a project replaces the defaults' list;
# env is merged key by key.

#[launch.defaults]
#harness = "claude"            # only claude is launched today
#model = "opus"                # --model
#effort = "high"               # --effort: low, medium, high, xhigh or max
#permission_mode = "plan"      # --permission-mode
#allow_danger = false          # --allow-dangerously-skip-permissions (only when stdout is a terminal)
#binary_path = "~/.local/bin/claude"   # which claude; FORGECTL_CLAUDE_BIN wins over it
#add_dir = ["~/notes"]         # one --add-dir per entry
#env = { CLAUDE_CODE_ENABLE_TODO_TOOLS = "1" }

#[[launch.project]]
#match = "~/src/work"          # this directory and everything below it
#model = "sonnet"
#add_dir = ["~/notes", "~/src/work/shared-lib"]

# [proxy]: proxy variables for every launch and resume.
#
# The named profile's variables are set in lower and upper case; those it
# leaves out are set empty, so a value from your shell cannot leak through.
# Naming a profile that is not defined, or that sets nothing, stops forgectl
# with exit status 2.

#[proxy]
#launch_profile = "corp"

#[proxy.profiles.corp]
#http_proxy = "http://proxy.corp.example:3128"
#https_proxy = "http://proxy.corp.example:3128"
#no_proxy = "localhost,127.0.0.1"

# [resume]: which agents "forgectl resume" lists, searches and resumes, and
# what a resume would cost. The picker's preview, "resume ls --json" and
# "resume --dry-run" show the context a resume sends again and whether the
# prompt cache has likely expired (Claude Code's own rule). A resume of a
# session whose context is above warn_context_tokens asks first in the
# picker, and --dry-run names the figure (0, the default: off).
#[resume]
#harnesses = ["claude", "codex"]   # default: every one whose home exists; --harness wins
#codex_binary_path = "~/.local/bin/codex"   # which codex; FORGECTL_CODEX_BIN wins over it
#warn_context_tokens = 150000

# Prices, in USD per million tokens, by model: the entry named exactly so,
# else the longest name that begins the model's id. With none, no dollar
# figure is shown: forgectl has no prices of its own, which would go stale.
# The estimate is the context at the cache-write price when the cache has
# likely expired, at the cache-read price when it is warm.
#[resume.prices]
#"claude-opus-4-5" = { cache_write = 6.25, cache_read = 0.5 }
#"claude-sonnet-4" = { cache_write = 3.75, cache_read = 0.3 }

# [[resume.on_update]]: hooks run by "forgectl resume hooks run" when the
# installed claude changes version. Each entry names the harness (only
# "claude") and exactly one of action = "restart" or command.

# Restart outdated sessions in their herdr panes once each is idle, as
# "forgectl resume restart --outdated" does.
#[[resume.on_update]]
#harness = "claude"
#action = "restart"
#timeout_seconds = 1800        # how long to wait for sessions to go idle (default 1800)

# Run a program: an argv, with no shell. It receives FORGECTL_HARNESS,
# FORGECTL_OLD_VERSION and FORGECTL_NEW_VERSION in its environment.
#[[resume.on_update]]
#harness = "claude"
#command = ["/usr/bin/say", "claude updated"]
#timeout_seconds = 60          # default 300, at most 86400
`
}
