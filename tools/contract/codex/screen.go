// Package codex holds the contract tests against the real OpenAI Codex CLI
// (behind the "contract" build tag): each scene drives the real binary
// offline in tmux, against the Responses mode of tools/fakeapi, in a
// throwaway HOME and CODEX_HOME, and asserts what the files it wrote show,
// so that a Codex release that changes them fails here. The checks through
// forgectl (ls --json, search, ls --tree, a real resume) run only when the
// built forgectl lists Codex threads.
//
// This file holds what the scenes read off a screen and /proc/locks, kept
// outside the tag so that the ordinary suite tests it on captured screens.
package codex

import (
	"fmt"
	"strconv"
	"strings"
)

// composer is the text of Codex's input line ("› …" just above the footer
// "gpt-fake default · <dir>", in 0.171.0 and 0.142.3 alike) and whether it
// shows at all. Only while it shows may keys be typed: on the lock screen
// or a selection, letters are commands. An empty composer shows a
// placeholder, which counts as text.
func composer(screen string) (string, bool) {
	lines := strings.Split(screen, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if !strings.Contains(lines[i], "gpt-fake default") {
			continue
		}
		for j := i - 1; j >= 0 && j >= i-6; j-- {
			l := strings.TrimSpace(lines[j])
			if rest, ok := strings.CutPrefix(l, "›"); ok {
				return strings.TrimSpace(rest), true
			}
		}
		return "", false
	}
	return "", false
}

// footer is the composer's footer line ("gpt-fake default · <dir> · <name>"),
// which names the thread once it has a name; "" when it does not show.
func footer(screen string) string {
	lines := strings.Split(screen, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], "gpt-fake default") {
			return strings.TrimSpace(lines[i])
		}
	}
	return ""
}

// renameBox reads 0.171.0's /rename box: whether it shows, the text in
// its field, and whether it is ready to be typed into. The box opens with
// the thread's current name in the field under "Generating a title
// suggestion…" and, when the suggestion call returns, puts the suggestion
// in the field, over whatever was typed meanwhile; an Enter before then
// saves nothing. So the field is typed into only once the suggestion is in.
func renameBox(screen string) (field string, ready, ok bool) {
	lines := strings.Split(screen, "\n")
	top := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == "Rename thread" {
			top = i
		}
	}
	if top < 0 {
		return "", false, false
	}
	ready = true
	for _, l := range lines[top+1:] {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "Generating a title suggestion"):
			ready = false
		case strings.HasPrefix(t, "›"):
			field = strings.TrimSpace(strings.TrimPrefix(t, "›"))
		case strings.HasPrefix(t, "enter submit"):
			return field, ready, true
		}
	}
	return "", false, false // no hint line: not the box, or half drawn
}

// lockKey is how /proc/locks names a file: <major>:<minor>:<inode>, the
// device numbers in hex (Linux's encoding of st_dev).
func lockKey(dev, ino uint64) string {
	major := (dev>>8)&0xfff | (dev>>32)&^0xfff
	minor := dev&0xff | (dev>>12)&^0xff
	return fmt.Sprintf("%02x:%02x:%d", major, minor, ino)
}

// writeHolders are the pids holding a WRITE flock on the file key names,
// from the text of /proc/locks. A waiter ("1: -> FLOCK …") holds nothing.
func writeHolders(procLocks, key string) []int {
	var pids []int
	for _, l := range strings.Split(procLocks, "\n") {
		f := strings.Fields(l)
		// "1: FLOCK  ADVISORY  WRITE 24480 fe:00:10119866 0 EOF"
		if len(f) >= 6 && f[1] == "FLOCK" && f[3] == "WRITE" && f[5] == key {
			if pid, err := strconv.Atoi(f[4]); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}
