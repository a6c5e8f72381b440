package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"unicode/utf8"
)

func completionCommand() *command {
	return &command{
		name: "completion", desc: "print a shell completion script",
		usage: []usageLine{{"forgectl completion SHELL", "print the bash, zsh or fish completion script"}},
		words: completeShell,
		help:  func() string { return completionHelp },
		flags: completionFlags,
	}
}

// completeShell completes the SHELL word.
func completeShell(_ *app, cur string) []candidate {
	return prefixed(cur, []candidate{{value: "bash"}, {value: "zsh"}, {value: "fish"}})
}

func completionFlags(a *app, fs *flag.FlagSet) func(context.Context, []string) error {
	return func(ctx context.Context, args []string) error {
		if len(args) != 1 {
			return a.badUsage("completion", "name one shell: bash, zsh or fish")
		}
		script, ok := completionScripts[args[0]]
		if !ok {
			return a.badUsage("completion", "no completion for %q: bash, zsh or fish", args[0])
		}
		fmt.Fprint(a.stdout, script)
		return nil
	}
}

// The scripts hand what was typed so far to `forgectl __complete --shell
// SHELL`, which knows the roster and the sessions, and reads the word
// under the cursor by that shell's quoting (see completeCommand). They run
// the forgectl that was typed (bash's $1, $words[1], the first token), so
// a ./bin/forgectl completes with its own roster.
//
// bash: readline replaces only its own word ($2); the entries come back
// quoted for it, read line by line (a value never holds a newline) into
// COMPREPLY without word splitting or globbing.
// zsh: the earlier words unquoted by ${(Q)…}; compadd quotes each value
// as the word stands (backslashes, or inside the open quote, which it
// closes). A "-- " or " " kind goes in with -P, unquoted and unmatched;
// an "id" kind replaces the word (-U).
// fish: the earlier tokens come unquoted from commandline -opc; the one
// under the cursor is passed even when empty; fish quotes the values.
var completionScripts = map[string]string{
	"bash": `# bash completion for forgectl: source <(forgectl completion bash)
_forgectl() {
	local line
	COMPREPLY=()
	while IFS= read -r line; do
		[[ -n $line ]] && COMPREPLY+=("$line")
	done < <("$1" __complete --shell bash "${COMP_LINE:0:COMP_POINT}" "$2" 2>/dev/null)
	return 0
}
complete -F _forgectl forgectl
`,
	"zsh": `#compdef forgectl
# zsh completion for forgectl: put it on $fpath as _forgectl, or
# source <(forgectl completion zsh) after compinit.
_forgectl() {
	local -a lines f plain plaind dash dashd space spaced byid byidd
	local line ret=1
	lines=("${(@f)$("${words[1]}" __complete --shell zsh "${(@Q)words[2,CURRENT-1]}" "$words[CURRENT]" 2>/dev/null)}")
	for line in "${lines[@]}"; do
		f=("${(@ps:\t:)line}")
		(( ${#f} == 3 )) || continue
		case $f[1] in
		'') plain+=("$f[2]"); plaind+=("$f[3]") ;;
		--) dash+=("$f[2]"); dashd+=("$f[3]") ;;
		' ') space+=("$f[2]"); spaced+=("$f[3]") ;;
		id) byid+=("$f[2]"); byidd+=("$f[3]") ;;
		esac
	done
	(( ${#plain} )) && compadd -l -d plaind -a plain && ret=0
	(( ${#dash} )) && compadd -l -P '-- ' -d dashd -a dash && ret=0
	(( ${#space} )) && compadd -l -P ' ' -d spaced -a space && ret=0
	if (( ${#byid} )) && compadd -U -l -d byidd -a byid; then
		ret=0
		# Several: list them, names and all, rather than cut the word to
		# the ids' common start.
		(( ${#byid} > 1 )) && compstate[insert]='' && compstate[list]='list force'
	fi
	return ret
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
	$tokens[1] __complete --shell fish $tokens[2..-1] "$(commandline -ct)" 2>/dev/null
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

// quoteState is the quoting open at a point of a word being typed: none,
// or inside '…', "…" or $'…' (bash and zsh; fish has no $'…').
type quoteState byte

const (
	unquoted quoteState = iota
	inSingle
	inDouble
	inDollar
)

// shellWords reads s the way shell sh parses words ("bash", "zsh" and
// "fish"; anything else is read as bash): quotes and backslashes are
// removed, and with split, unquoted blanks separate words. The last word
// is the one being typed, "" when s ends in a blank, and state is the
// quoting still open at the end: an open quote is normal while typing,
// and so is a backslash with nothing after it yet, which stands for
// nothing. Expansions ($VAR, ~, globs) stay as typed.
func shellWords(sh, s string, split bool) (words []string, state quoteState) {
	var b strings.Builder
	fish := sh == "fish"
	inWord := false
	for i := 0; i < len(s); {
		c := s[i]
		switch state {
		case unquoted:
			switch {
			case split && (c == ' ' || c == '\t' || c == '\n'):
				if inWord {
					words = append(words, b.String())
					b.Reset()
					inWord = false
				}
				i++
				continue
			case c == '\\':
				if i+1 == len(s) {
					i++
				} else if fish {
					r, n := fishEscape(s[i+1:])
					b.WriteString(r)
					i += 1 + n
				} else if s[i+1] == '\n' {
					i += 2 // a continued line
				} else {
					_, n := utf8.DecodeRuneInString(s[i+1:])
					b.WriteString(s[i+1 : i+1+n])
					i += 1 + n
				}
			case c == '\'':
				state = inSingle
				i++
			case c == '"':
				state = inDouble
				i++
			case !fish && c == '$' && i+1 < len(s) && s[i+1] == '\'':
				state = inDollar
				i += 2
			case !fish && c == '$' && i+1 < len(s) && s[i+1] == '"':
				state = inDouble // $"…": a translated string, read as "…"
				i += 2
			default:
				b.WriteByte(c)
				i++
			}
		case inSingle:
			switch {
			case c == '\'':
				state = unquoted
				i++
			case fish && c == '\\' && i+1 < len(s) && (s[i+1] == '\'' || s[i+1] == '\\'):
				b.WriteByte(s[i+1])
				i += 2
			case fish && c == '\\' && i+1 == len(s):
				i++
			default:
				b.WriteByte(c)
				i++
			}
		case inDouble:
			switch {
			case c == '"':
				state = unquoted
				i++
			case c == '\\' && i+1 == len(s):
				i++
			case c == '\\' && (s[i+1] == '"' || s[i+1] == '\\' || s[i+1] == '$' || s[i+1] == '\n' || !fish && s[i+1] == '`'):
				if s[i+1] != '\n' {
					b.WriteByte(s[i+1])
				}
				i += 2
			default:
				b.WriteByte(c)
				i++
			}
		case inDollar:
			switch {
			case c == '\'':
				state = unquoted
				i++
			case c == '\\' && i+1 == len(s):
				i++
			case c == '\\':
				r, n := ansiEscape(s[i+1:], sh == "zsh")
				b.WriteString(r)
				i += 1 + n
			default:
				b.WriteByte(c)
				i++
			}
		}
		inWord = true
	}
	return append(words, b.String()), state
}

// ansiEscape decodes the escape after a backslash inside bash's and zsh's
// $'…', returning the text and how many bytes of s it used. Zsh has no
// \cX and drops the backslash of an escape it does not know; bash keeps
// it.
func ansiEscape(s string, zsh bool) (string, int) {
	switch c := s[0]; c {
	case 'a':
		return "\a", 1
	case 'b':
		return "\b", 1
	case 'e', 'E':
		return "\x1b", 1
	case 'f':
		return "\f", 1
	case 'n':
		return "\n", 1
	case 'r':
		return "\r", 1
	case 't':
		return "\t", 1
	case 'v':
		return "\v", 1
	case '\\', '\'', '"', '?':
		return string(c), 1
	case 'x':
		return numericEscape(s, 1, 2, 16, true)
	case 'u':
		return numericEscape(s, 1, 4, 16, false)
	case 'U':
		return numericEscape(s, 1, 8, 16, false)
	case 'c':
		if zsh {
			return "c", 1
		}
		if len(s) > 1 {
			return string(rune(s[1] & 0x1f)), 2
		}
		return "\\c", 1
	default:
		if c >= '0' && c <= '7' {
			return numericEscape(s, 0, 3, 8, true)
		}
		if zsh {
			_, n := utf8.DecodeRuneInString(s)
			return s[:n], n
		}
		return "\\" + string(c), 1 // an unknown escape stays as typed
	}
}

// fishEscape decodes the escape after an unquoted backslash in fish.
func fishEscape(s string) (string, int) {
	switch c := s[0]; c {
	case 'a', 'b', 'e', 'f', 'n', 'r', 't', 'v':
		return ansiEscape(s, false)
	case 'x', 'X':
		return numericEscape(s, 1, 2, 16, true)
	case 'u', 'U', 'c':
		return ansiEscape(s, false)
	case '\n':
		return "", 1 // a continued line
	default:
		if c >= '0' && c <= '7' {
			return numericEscape(s, 0, 3, 8, true)
		}
		_, n := utf8.DecodeRuneInString(s)
		return s[:n], n
	}
}

// numericEscape reads up to max digits in base after skip bytes of s: a
// byte when asByte (\xHH, \ooo), else a code point (\uHHHH).
func numericEscape(s string, skip, max int, base uint64, asByte bool) (string, int) {
	n := skip
	var v uint64
	for n < len(s) && n-skip < max {
		d, ok := digitValue(s[n])
		if !ok || d >= base {
			break
		}
		v = v*base + d
		n++
	}
	if n == skip {
		return "\\" + s[:skip], skip // no digits: stays as typed
	}
	if asByte {
		return string([]byte{byte(v)}), n
	}
	return string(rune(v)), n
}

func digitValue(c byte) (uint64, bool) {
	switch {
	case c >= '0' && c <= '9':
		return uint64(c - '0'), true
	case c >= 'a' && c <= 'f':
		return uint64(c-'a') + 10, true
	case c >= 'A' && c <= 'F':
		return uint64(c-'A') + 10, true
	}
	return 0, false
}

// bashQuote writes s for bash so that it reads back as s when it
// continues a word whose quoting at that point is state: backslashes
// outside quotes; inside '…' a quote closes it, is escaped and reopens
// it; inside "…" a "!" is put between a closed and a reopened quote
// (interactive bash expands history there); control characters (which
// completion never offers) become $'\xHH'. It leaves the quote open, as
// it found it: readline closes the quote itself when it inserts a sole
// match.
func bashQuote(s string, state quoteState) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		ctl := c < 0x20 || c == 0x7f
		switch state {
		case unquoted:
			switch {
			case ctl:
				fmt.Fprintf(&b, "$'\\x%02x'", c)
			case c >= 0x80 || bashPlain(c):
				b.WriteByte(c)
			default:
				b.WriteByte('\\')
				b.WriteByte(c)
			}
		case inSingle:
			switch {
			case ctl:
				fmt.Fprintf(&b, "'$'\\x%02x''", c)
			case c == '\'':
				b.WriteString(`'\''`)
			default:
				b.WriteByte(c)
			}
		case inDouble:
			switch {
			case ctl:
				fmt.Fprintf(&b, "\"$'\\x%02x'\"", c)
			case c == '!':
				b.WriteString(`"\!"`)
			case c == '"' || c == '\\' || c == '$' || c == '`':
				b.WriteByte('\\')
				b.WriteByte(c)
			default:
				b.WriteByte(c)
			}
		case inDollar:
			switch {
			case ctl:
				fmt.Fprintf(&b, "\\x%02x", c)
			case c == '\'' || c == '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			default:
				b.WriteByte(c)
			}
		}
	}
	return b.String()
}

// bashPlain: the ASCII bytes bash reads as themselves anywhere in a word.
func bashPlain(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_-.,/:@%+=", c) >= 0
}

// quoteClose is what closes the quoting open in state.
func quoteClose(state quoteState) string {
	return [...]string{unquoted: "", inSingle: "'", inDouble: `"`, inDollar: "'"}[state]
}
