// Package shellword quotes words for, and splits command lines as, the POSIX
// shell Claude Code runs a hook's command with (/bin/sh -c, observed).
//
// It is the one place forgectl writes or reads shell quoting: init writes
// the Stop hook's command with Quote, and both init and doctor read any hook
// command back with Parse, so a path holding a quote, a space, a $ or a
// backslash means the same file to forgectl as to the shell.
package shellword

import (
	"errors"
	"fmt"
	"strings"
)

// Quote returns s as one shell word: as is when it holds only characters no
// shell treats specially, else in single quotes, where each quote inside
// becomes a closing quote, a backslash-escaped quote and an opening quote.
// Inside single quotes sh, bash and zsh take every byte literally,
// newlines and backslashes included.
func Quote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Join quotes each word and joins them with spaces.
func Join(words []string) string {
	q := make([]string, len(words))
	for i, s := range words {
		q[i] = Quote(s)
	}
	return strings.Join(q, " ")
}

// Word is one word of a command after quote removal.
type Word struct {
	Text string
	// Literal is false when the shell would still expand the word at run
	// time (a parameter, a command substitution, a glob, a leading ~), so
	// Text is only what was written, not what runs (see Expand).
	Literal bool
	// home is the word's text, quotes removed, cut where sh puts the home
	// directory, when those are its only expansions; nil otherwise.
	home []string
	// splitHome: a $HOME outside double quotes, whose value sh splits into
	// fields and matches as a pattern (a ~ it does not).
	splitHome bool
}

// Expand is what sh makes of the word when its only expansions are of
// the home directory: a leading ~ or ~/ (unquoted), and $HOME or ${HOME}
// (unquoted or in double quotes), each replaced by home; a Literal word
// is its Text. ok is false for a word that expands in any other way ($VAR,
// $(…), `…`, a glob, ~user), for an empty home, and for an unquoted $HOME
// when home holds a blank or a pattern character, which sh would split or
// match.
func (w Word) Expand(home string) (string, bool) {
	switch {
	case w.Literal:
		return w.Text, true
	case w.home == nil || home == "":
		return "", false
	case w.splitHome && strings.ContainsAny(home, " \t\n*?["):
		return "", false
	}
	return strings.Join(w.home, home), true
}

// wordBuf collects one word as it is read: the text as written (quotes
// removed, expansions as written), and what it resolves to if its only
// expansions are of the home directory.
type wordBuf struct {
	text strings.Builder
	// val is the resolved text since the last home expansion, pieces the
	// text before each.
	val       strings.Builder
	pieces    []string
	other     bool // an expansion that is not the home directory's
	splitHome bool
}

// lit is text that stands for itself.
func (w *wordBuf) lit(s string) { w.text.WriteString(s); w.val.WriteString(s) }

func (w *wordBuf) litByte(c byte) { w.text.WriteByte(c); w.val.WriteByte(c) }

// homeDir is an expansion of the home directory, written as written;
// split says sh splits and matches its value (an unquoted $HOME).
func (w *wordBuf) homeDir(written string, split bool) {
	w.text.WriteString(written)
	w.pieces = append(w.pieces, w.val.String())
	w.val.Reset()
	w.splitHome = w.splitHome || split
}

// expansion is any other expansion, written as written.
func (w *wordBuf) expansion(written string) {
	w.text.WriteString(written)
	w.other = true
}

func (w *wordBuf) word() Word {
	out := Word{Text: w.text.String(), Literal: !w.other && w.pieces == nil}
	if !w.other && w.pieces != nil {
		out.home = append(w.pieces, w.val.String())
		out.splitHome = w.splitHome
	}
	return out
}

// ErrUnsupported is shell syntax Parse does not follow (a here-document);
// the caller cannot tell what the command runs.
var ErrUnsupported = errors.New("unsupported shell syntax")

// Parse splits a command line into its simple commands (separated by ;, &,
// |, &&, ||, newlines and parentheses), each a list of words with quotes
// removed as sh removes them. Redirections and comments are dropped. A
// line sh would reject (an unterminated quote) is an error.
func Parse(line string) ([][]Word, error) {
	p := parser{s: line}
	return p.parse()
}

type parser struct {
	s   string
	i   int
	cmd []Word
	out [][]Word
	// dropNext marks the next word as a redirection's target.
	dropNext bool
}

func (p *parser) endCommand() {
	if len(p.cmd) > 0 {
		p.out = append(p.out, p.cmd)
	}
	p.cmd = nil
}

func (p *parser) parse() ([][]Word, error) {
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == ' ' || c == '\t':
			p.i++
		case c == '\\' && p.i+1 < len(p.s) && p.s[p.i+1] == '\n':
			p.i += 2 // a line continuation between words
		case c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')':
			if p.dropNext {
				return nil, fmt.Errorf("a redirection at offset %d has no target", p.i)
			}
			p.i++
			p.endCommand()
		case c == '#':
			for p.i < len(p.s) && p.s[p.i] != '\n' {
				p.i++
			}
		case c == '<' || c == '>':
			if err := p.redirection(); err != nil {
				return nil, err
			}
		default:
			w, err := p.word()
			if err != nil {
				return nil, err
			}
			if p.dropNext {
				p.dropNext = false
				continue
			}
			if isIONumber(w) && p.i < len(p.s) && (p.s[p.i] == '<' || p.s[p.i] == '>') {
				continue // the 2 of 2>&1: the redirection follows
			}
			p.cmd = append(p.cmd, w)
		}
	}
	if p.dropNext {
		return nil, errors.New("a redirection at the end has no target")
	}
	p.endCommand()
	return p.out, nil
}

func isIONumber(w Word) bool {
	if !w.Literal || w.Text == "" {
		return false
	}
	for _, r := range w.Text {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// redirection consumes a redirection operator; its target is the next word.
func (p *parser) redirection() error {
	if p.dropNext {
		return fmt.Errorf("a redirection at offset %d has no target", p.i)
	}
	op := p.s[p.i]
	p.i++
	if p.i < len(p.s) {
		switch n := p.s[p.i]; {
		case op == '<' && n == '<':
			return fmt.Errorf("%w: a here-document", ErrUnsupported)
		case n == '&' || (op == '>' && (n == '>' || n == '|')) || (op == '<' && n == '>'):
			p.i++
		}
	}
	p.dropNext = true
	return nil
}

// word reads one word from p.i, removing quotes.
func (p *parser) word() (Word, error) {
	var w wordBuf
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch c {
		case ' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>':
			return w.word(), nil
		case '\\':
			if p.i+1 >= len(p.s) {
				w.litByte('\\') // sh keeps a backslash that ends the text
				p.i++
				continue
			}
			if p.s[p.i+1] != '\n' {
				w.litByte(p.s[p.i+1])
			}
			p.i += 2
		case '\'':
			end := strings.IndexByte(p.s[p.i+1:], '\'')
			if end < 0 {
				return Word{}, fmt.Errorf("unterminated ' at offset %d", p.i)
			}
			w.lit(p.s[p.i+1 : p.i+1+end])
			p.i += end + 2
		case '"':
			if err := p.doubleQuoted(&w); err != nil {
				return Word{}, err
			}
		case '$':
			if err := p.dollar(&w, false); err != nil {
				return Word{}, err
			}
		case '`':
			if err := p.backquoted(&w); err != nil {
				return Word{}, err
			}
		case '*', '?', '[':
			w.expansion(string(c))
			p.i++
		case '~':
			p.i++
			switch {
			case p.i-1 != start:
				w.litByte(c)
			case p.i == len(p.s) || strings.IndexByte("/ \t\n;&|()<>", p.s[p.i]) >= 0:
				// A tilde-prefix with no user name: the home directory,
				// whose value sh neither splits nor matches.
				w.homeDir("~", false)
			default:
				w.expansion("~") // ~user, or a prefix with quotes in it
			}
		default:
			w.litByte(c)
			p.i++
		}
	}
	return w.word(), nil
}

// doubleQuoted reads "...": a backslash escapes only $ ` " \ and a newline,
// and $ and ` still expand.
func (p *parser) doubleQuoted(w *wordBuf) error {
	open := p.i
	p.i++
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch c {
		case '"':
			p.i++
			return nil
		case '\\':
			if p.i+1 < len(p.s) && strings.IndexByte("$`\"\\\n", p.s[p.i+1]) >= 0 {
				if p.s[p.i+1] != '\n' {
					w.litByte(p.s[p.i+1])
				}
				p.i += 2
				continue
			}
			w.litByte('\\')
			p.i++
		case '$':
			if err := p.dollar(w, true); err != nil {
				return err
			}
		case '`':
			if err := p.backquoted(w); err != nil {
				return err
			}
		default:
			w.litByte(c)
			p.i++
		}
	}
	return fmt.Errorf("unterminated \" at offset %d", open)
}

// dollar reads a $ and whatever it expands, writing the text as written
// (a lone $ is a literal $). $HOME and ${HOME} are the home directory;
// any other expansion, ${HOME:-x} included, is not told from the text.
func (p *parser) dollar(w *wordBuf, inDouble bool) error {
	start := p.i
	p.i++
	if p.i >= len(p.s) {
		w.litByte('$')
		return nil
	}
	switch c := p.s[p.i]; {
	case c == '{':
		if err := p.skipTo('{', '}'); err != nil {
			return err
		}
	case c == '(':
		if err := p.skipTo('(', ')'); err != nil {
			return err
		}
	case !inDouble && (c == '\'' || c == '"'):
		// $'…' and $"…" are bash's; dash reads a literal $ then a quote.
		// Either way the word is not what it looks like.
		w.expansion("$")
		return nil
	case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		for p.i < len(p.s) && (p.s[p.i] == '_' || p.s[p.i] >= 'a' && p.s[p.i] <= 'z' || p.s[p.i] >= 'A' && p.s[p.i] <= 'Z' || p.s[p.i] >= '0' && p.s[p.i] <= '9') {
			p.i++
		}
	case c >= '0' && c <= '9' || strings.IndexByte("@*#?-$!", c) >= 0:
		p.i++
	default:
		w.litByte('$')
		return nil
	}
	switch written := p.s[start:p.i]; written {
	case "$HOME", "${HOME}":
		w.homeDir(written, !inDouble)
	default:
		w.expansion(written)
	}
	return nil
}

// skipTo moves past a ${…} or $(…) whose opening bracket is at p.i,
// counting nested brackets and stepping over quoted text.
func (p *parser) skipTo(open, close byte) error {
	start := p.i
	depth := 0
	for p.i < len(p.s) {
		switch c := p.s[p.i]; c {
		case '\\':
			p.i += 2
			continue
		case '\'':
			end := strings.IndexByte(p.s[p.i+1:], '\'')
			if end < 0 {
				return fmt.Errorf("unterminated ' at offset %d", p.i)
			}
			p.i += end + 2
			continue
		case '"':
			var discard wordBuf
			if err := p.doubleQuoted(&discard); err != nil {
				return err
			}
			continue
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				p.i++
				return nil
			}
		}
		p.i++
	}
	return fmt.Errorf("unterminated %c at offset %d", open, start)
}

// backquoted moves past a `…` command substitution.
func (p *parser) backquoted(w *wordBuf) error {
	start := p.i
	p.i++
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case '\\':
			p.i += 2
			continue
		case '`':
			p.i++
			w.expansion(p.s[start:p.i])
			return nil
		}
		p.i++
	}
	return fmt.Errorf("unterminated ` at offset %d", start)
}
