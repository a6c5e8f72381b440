package main

import (
	"fmt"
	"strings"
)

// idAlphabet is herdr's public-number alphabet: digits first, then letters
// without I, L, O and U, then 0 last, used as bijective base 32.
const idAlphabet = "123456789ABCDEFGHJKMNPQRSTVWXYZ0"

// encodeNumber renders n (>= 1) the way herdr prints workspace, tab and pane
// numbers, so ids such as w1:pA look like the real ones.
func encodeNumber(n int) string {
	if n < 1 {
		return ""
	}
	var b []byte
	for n > 0 {
		n--
		b = append(b, idAlphabet[n%32])
		n /= 32
	}
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// decodeNumber is the inverse of encodeNumber; ok is false for text that is
// not a valid encoding.
func decodeNumber(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	n := 0
	for _, r := range s {
		i := strings.IndexRune(idAlphabet, r)
		if i < 0 {
			return 0, false
		}
		n = n*32 + i + 1
		if n > 1<<40 {
			return 0, false
		}
	}
	return n, true
}

// splitPaneID splits "w1:p3" into workspace "w1" and pane number 3.
func splitPaneID(id string) (workspace string, n int, err error) {
	ws, p, ok := strings.Cut(id, ":")
	if !ok || !strings.HasPrefix(ws, "w") || !strings.HasPrefix(p, "p") {
		return "", 0, fmt.Errorf("pane id %q is not of the form w<N>:p<N>", id)
	}
	if _, ok := decodeNumber(ws[1:]); !ok {
		return "", 0, fmt.Errorf("pane id %q has a bad workspace number", id)
	}
	n, ok = decodeNumber(p[1:])
	if !ok {
		return "", 0, fmt.Errorf("pane id %q has a bad pane number", id)
	}
	return ws, n, nil
}

func paneID(workspace string, n int) string { return workspace + ":p" + encodeNumber(n) }
