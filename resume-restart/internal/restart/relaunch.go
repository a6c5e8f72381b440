package restart

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// RelaunchLine renders the line typed into a pane after the stop:
// `<abs forgectl> resume <id>`, each part quoted for the pane's shell.
//
// The quoting is single quotes, each inner quote closed, escaped with a
// backslash and reopened, which reads the same in sh, bash, zsh and fish.
// A backslash is refused because fish treats it as an escape inside single
// quotes and the others do not. Control
// characters are refused because one (a newline) would submit a partial
// line. Everything is decided here, before any signal, so that nothing
// that could fail the relaunch is left for after the stop.
func RelaunchLine(forgectl, sessionID string) (string, error) {
	if !filepath.IsAbs(forgectl) {
		return "", fmt.Errorf("forgectl path %q is not absolute", forgectl)
	}
	if sessionID == "" {
		return "", errors.New("empty session id")
	}
	parts := []string{forgectl, "resume", sessionID}
	quoted := make([]string, len(parts))
	for i, p := range parts {
		q, err := shellQuote(p)
		if err != nil {
			return "", err
		}
		quoted[i] = q
	}
	return strings.Join(quoted, " "), nil
}

func shellQuote(s string) (string, error) {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return "", fmt.Errorf("%q holds a control character and cannot be typed safely", s)
		}
		if r == '\\' {
			return "", fmt.Errorf("%q holds a backslash, which shells quote differently", s)
		}
	}
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+,:@%=", r))
	}) < 0 {
		return s, nil
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'", nil
}

// handCommand is what a person types to resume a session the run left alone.
func handCommand(line, sessionID string) string {
	if line != "" {
		return line
	}
	if q, err := shellQuote(sessionID); err == nil {
		return "forgectl resume " + q
	}
	return "forgectl resume " + sessionID
}
