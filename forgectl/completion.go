package main

import (
	"context"
	"fmt"

	"github.com/peterbourgon/ff/v3/ffcli"
)

func (a *app) completionCommand() *ffcli.Command {
	fs := newFlagSet("completion", &a.flagOut)
	return &ffcli.Command{
		Name:      "completion",
		FlagSet:   fs,
		UsageFunc: helpFunc(completionHelp),
		Exec: func(ctx context.Context, args []string) error {
			if len(args) != 1 {
				return a.badUsage("completion", "name one shell: bash, zsh or fish")
			}
			script, ok := completionScripts[args[0]]
			if !ok {
				return a.badUsage("completion", "no completion for %q: bash, zsh or fish", args[0])
			}
			fmt.Fprint(a.stdout, script)
			return nil
		},
	}
}

// The scripts hand the words typed so far, the one under the cursor last,
// to `forgectl __complete`, which knows the roster and the sessions. They
// run the forgectl that was typed (${COMP_WORDS[0]}, $words[1], the first
// token), so a ./bin/forgectl completes with its own roster.
var completionScripts = map[string]string{
	"bash": `# bash completion for forgectl: source <(forgectl completion bash)
_forgectl() {
	local IFS=$'\n' line out
	COMPREPLY=()
	out=$("${COMP_WORDS[0]}" __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null) || return 0
	for line in $out; do
		line=${line%%$'\t'*}
		# A name with spaces stays one word.
		COMPREPLY+=("$(printf '%q' "$line")")
	done
	return 0
}
complete -F _forgectl forgectl
`,
	"zsh": `#compdef forgectl
# zsh completion for forgectl: put it on $fpath as _forgectl, or
# source <(forgectl completion zsh) after compinit.
_forgectl() {
	local -a lines vals descs
	local line
	lines=("${(@f)$("${words[1]}" __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}")
	for line in "${lines[@]}"; do
		[[ -z $line ]] && continue
		vals+=("${line%%$'\t'*}")
		if [[ $line == *$'\t'* ]]; then descs+=("${line%%$'\t'*}  -- ${line#*$'\t'}"); else descs+=("${line}"); fi
	done
	(( ${#vals} )) || return 1
	compadd -l -d descs -a vals
}
if [[ $funcstack[1] == _forgectl ]]; then
	_forgectl "$@"
else
	compdef _forgectl forgectl
fi
`,
	"fish": `# fish completion for forgectl: forgectl completion fish | source
function __forgectl_complete
	set -l tokens (commandline -opc)
	$tokens[1] __complete $tokens[2..-1] (commandline -ct) 2>/dev/null
end
complete -c forgectl -f -a '(__forgectl_complete)'
`,
}

const completionHelp = `
forgectl completion — print a shell completion script

USAGE
  forgectl completion bash|zsh|fish

Completes the whole roster: subcommands and flags of forgectl and of the
commands it hands to its sibling binaries (resume ls --json, restart
--outdated --session, hooks run, ...). FILTER words complete to session
ids (a typed prefix becomes the full id), names and repos from the
listing's index; restart --session completes to the live sessions. The
script asks 'forgectl __complete WORDS...', a hidden command, for each
completion.

Load it for the current shell:
  bash   source <(forgectl completion bash)
  zsh    source <(forgectl completion zsh)     (after compinit)
  fish   forgectl completion fish | source

'make install' puts the scripts where each shell finds them itself:
  PREFIX/share/bash-completion/completions/forgectl
  PREFIX/share/zsh/site-functions/_forgectl
  PREFIX/share/fish/vendor_completions.d/forgectl.fish

EXIT STATUS
  0    printed
  2    no shell, or one not listed
`
