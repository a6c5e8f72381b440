package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/term"
)

// session is one running interactive fakeclaude.
type session struct {
	a       *app
	model   string
	version string
	reg     registry
	regPath string

	draft      []rune
	history    []string
	note       string
	submitBusy bool
	manualBusy bool
	forced     string
	lastInt    time.Time
	pending    []byte
	lastLeaf   string

	tty     bool
	ttyFd   int
	restore *term.State
	cols    int
}

func (s *session) status() string {
	switch {
	case s.forced != "":
		return s.forced
	case s.submitBusy || s.manualBusy:
		return "busy"
	}
	return "idle"
}

func (s *session) loop(ctx context.Context) int {
	a := s.a
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT, syscall.SIGUSR1, syscall.SIGWINCH)
	defer signal.Stop(sigs)

	keys := make(chan []byte, 16)
	if f, ok := a.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if out, ok := a.stdout.(*os.File); ok && term.IsTerminal(int(out.Fd())) {
			s.tty, s.ttyFd = true, int(f.Fd())
			st, err := term.MakeRaw(s.ttyFd)
			if err != nil {
				fmt.Fprintf(a.stderr, "fakeclaude: raw mode: %v\n", err)
				return 1
			}
			s.restore = st
			s.cols, _, _ = term.GetSize(int(out.Fd()))
			go readKeys(f, keys)
		}
	}

	busyMS := 1500
	if v, err := strconv.Atoi(a.getenv("FAKECLAUDE_BUSY_MS")); err == nil && v >= 0 {
		busyMS = v
	}
	var busyEnd <-chan time.Time
	var poll <-chan time.Time
	statusFile := a.getenv("FAKECLAUDE_STATUS_FILE")
	if statusFile != "" {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		poll = t.C
		s.forced = readStatusFile(statusFile)
		s.sync()
	}
	s.draw()

	for {
		select {
		case <-ctx.Done():
			// main's context and sigs both hear SIGTERM/SIGHUP; prefer the
			// signal itself so the exit says which one it was.
			select {
			case sig := <-sigs:
				if ss, ok := sig.(syscall.Signal); ok && (ss == syscall.SIGTERM || ss == syscall.SIGHUP) {
					return s.exit(signalName(ss), signalExit(ss))
				}
			case <-time.After(100 * time.Millisecond):
			}
			return s.exit("context", 0)
		case sig := <-sigs:
			switch sig {
			case syscall.SIGTERM, syscall.SIGHUP:
				return s.exit(signalName(sig.(syscall.Signal)), signalExit(sig.(syscall.Signal)))
			case syscall.SIGINT:
				if s.interrupt() {
					return s.exit("interrupt", 0)
				}
			case syscall.SIGUSR1:
				s.manualBusy = !s.manualBusy
				s.sync()
			case syscall.SIGWINCH:
				if s.tty {
					s.cols, _, _ = term.GetSize(s.ttyFd)
				}
			}
		case b, ok := <-keys:
			if !ok {
				keys = nil
				continue
			}
			switch s.input(b) {
			case actSubmit:
				text := strings.TrimSpace(string(s.draft))
				s.draft = nil
				if text == "/exit" || text == "/quit" {
					return s.exit("/exit", 0)
				}
				if text != "" {
					s.submit(text)
					s.submitBusy = true
					busyEnd = time.After(time.Duration(busyMS) * time.Millisecond)
					s.sync()
				}
			case actQuit:
				return s.exit("interrupt", 0)
			case actEscape:
				if s.submitBusy {
					s.submitBusy, busyEnd = false, nil
					s.history = append(s.history, "  ⎿  Interrupted by user")
					s.sync()
				}
			}
		case <-busyEnd:
			busyEnd = nil
			s.submitBusy = false
			s.sync()
		case <-poll:
			if f := readStatusFile(statusFile); f != s.forced {
				s.forced = f
				s.sync()
			}
		}
		s.draw()
	}
}

type action int

const (
	actNone action = iota
	actSubmit
	actQuit
	actEscape
)

// input applies keystrokes to the draft. Bytes can split a UTF-8 rune or an
// escape sequence across reads, so an incomplete tail waits in s.pending.
func (s *session) input(b []byte) action {
	s.pending = append(s.pending, b...)
	act := actNone
	for len(s.pending) > 0 && act == actNone {
		p := s.pending
		c := p[0]
		switch {
		case c == '\r' || c == '\n':
			s.pending = p[1:]
			act = actSubmit
		case c == 0x7f || c == 0x08:
			s.pending = p[1:]
			if len(s.draft) > 0 {
				s.draft = s.draft[:len(s.draft)-1]
			}
		case c == 0x15: // Ctrl-U
			s.pending = p[1:]
			s.draft = nil
		case c == 0x03 || c == 0x04: // Ctrl-C, Ctrl-D
			s.pending = p[1:]
			if s.interrupt() {
				act = actQuit
			}
		case c == 0x1b:
			n, complete := escapeLen(p)
			if !complete {
				return act
			}
			s.pending = p[n:]
			if n == 1 {
				act = actEscape
			}
		case c < 0x20:
			s.pending = p[1:]
		default:
			if !utf8.FullRune(p) {
				return act
			}
			r, n := utf8.DecodeRune(p)
			s.pending = p[n:]
			if r != utf8.RuneError && unicode.IsPrint(r) {
				s.draft = append(s.draft, r)
			}
		}
	}
	if act != actNone {
		return act
	}
	if s.note != "" && len(b) > 0 && b[0] != 0x03 && b[0] != 0x04 {
		s.note = ""
	}
	return act
}

// escapeLen measures an escape sequence at the start of p: ESC [ … final,
// ESC O x, ESC x, or a lone ESC (the Escape key) when nothing follows.
func escapeLen(p []byte) (int, bool) {
	if len(p) == 1 {
		return 1, true
	}
	switch p[1] {
	case '[':
		for i := 2; i < len(p); i++ {
			if p[i] >= 0x40 && p[i] <= 0x7e {
				return i + 1, true
			}
		}
		return 0, len(p) > 64
	case 'O':
		if len(p) < 3 {
			return 0, false
		}
		return 3, true
	}
	return 2, true
}

// interrupt is Ctrl-C: it clears a draft; at an empty prompt it asks for a
// second press within two seconds, which quits.
func (s *session) interrupt() (quit bool) {
	now := s.a.now()
	if len(s.draft) > 0 {
		s.draft = nil
		s.lastInt = time.Time{}
		return false
	}
	if !s.lastInt.IsZero() && now.Sub(s.lastInt) < 2*time.Second {
		return true
	}
	s.lastInt = now
	s.note = "Press Ctrl-C again to exit"
	return false
}

// sync rewrites the registry when the status changed.
func (s *session) sync() {
	st := s.status()
	if st == s.reg.Status {
		return
	}
	now := s.a.now().UnixMilli()
	s.reg.Status, s.reg.UpdatedAt, s.reg.StatusUpdatedAt = st, now, now
	s.a.record(map[string]any{"event": "status", "pid": s.a.pid, "session_id": s.reg.SessionID, "status": st})
	if s.regPath != "" {
		if err := writeRegistry(s.regPath, s.reg); err != nil {
			fmt.Fprintf(s.a.stderr, "fakeclaude: registry: %v\r\n", err)
		}
	}
}

// submit records a prompt where Claude Code would: the record file for
// tests, and (unless FAKECLAUDE_NO_TRANSCRIPT=1) a minimal transcript and
// history.jsonl, so the session can be found and resumed afterwards.
func (s *session) submit(text string) {
	a := s.a
	a.record(map[string]any{"event": "submit", "pid": a.pid, "session_id": s.reg.SessionID, "text": text})
	s.history = append(s.history, "> "+text, "● (fakeclaude) ok")
	if a.getenv("FAKECLAUDE_NO_TRANSCRIPT") == "1" {
		return
	}
	now := a.now().UTC()
	ts := now.Format("2006-01-02T15:04:05.000Z")
	base := func(typ string, parent any) map[string]any {
		return map[string]any{
			"parentUuid": parent, "isSidechain": false, "type": typ, "uuid": newUUID(), "timestamp": ts,
			"userType": "external", "entrypoint": "cli", "cwd": a.cwd, "sessionId": s.reg.SessionID,
			"version": s.version, "gitBranch": "HEAD",
		}
	}
	var parent any
	if s.lastLeaf != "" {
		parent = s.lastLeaf
	}
	user := base("user", parent)
	user["message"] = map[string]any{"role": "user", "content": text}
	reply := base("assistant", user["uuid"])
	reply["message"] = map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "(fakeclaude) ok"}}}
	s.lastLeaf = reply["uuid"].(string)
	path := filepath.Join(a.configDir(), "projects", projectDirName(a.cwd), s.reg.SessionID+".jsonl")
	for _, row := range []map[string]any{user, reply, {"type": "last-prompt", "lastPrompt": text, "leafUuid": s.lastLeaf, "sessionId": s.reg.SessionID}} {
		appendJSONL(path, row)
	}
	appendJSONL(filepath.Join(a.configDir(), "history.jsonl"), map[string]any{
		"display": text, "pastedContents": map[string]any{}, "timestamp": now.UnixMilli(),
		"project": a.cwd, "sessionId": s.reg.SessionID,
	})
}

func (s *session) draw() {
	if !s.tty {
		return
	}
	lines, row, col := render(view{
		version: s.version, model: s.model, cwd: s.a.cwd, sessionID: s.reg.SessionID,
		draft: s.draft, busy: s.status() == "busy", history: s.history, note: s.note,
		hint: s.a.getenv("FAKECLAUDE_HINT"), suggestion: s.a.getenv("FAKECLAUDE_SUGGESTION"),
		cols: s.cols,
	})
	// Overwrite in place and clear only below the content: clearing the
	// whole screen would make tmux push every frame into the scrollback.
	// Each line is erased before it is written (erasing after it would eat
	// the last cell of a full-width rule).
	fmt.Fprintf(s.a.stdout, "\x1b[H\x1b[2K%s\r\n\x1b[J\x1b[%d;%dH", strings.Join(lines, "\r\n\x1b[2K"), row, col)
}

// exit leaves the terminal as it found it, removes the registry file as
// Claude Code's exit handler does, and prints its resume hint.
func (s *session) exit(reason string, code int) int {
	a := s.a
	if s.restore != nil {
		term.Restore(s.ttyFd, s.restore)
		// Clear without touching the scrollback: below row 1, then row 1.
		fmt.Fprintf(a.stdout, "\x1b[2;1H\x1b[J\x1b[H\x1b[2K")
	}
	if s.regPath != "" {
		os.Remove(s.regPath)
	}
	a.record(map[string]any{"event": "exit", "pid": a.pid, "reason": reason, "session_id": s.reg.SessionID})
	if s.tty {
		fmt.Fprintf(a.stdout, "Resume this session with:\nclaude --resume %s\n", s.reg.SessionID)
	}
	return code
}

func readStatusFile(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func readKeys(f *os.File, out chan<- []byte) {
	buf := make([]byte, 4096)
	for {
		n, err := f.Read(buf)
		if n > 0 {
			out <- append([]byte(nil), buf[:n]...)
		}
		if err != nil {
			close(out)
			return
		}
	}
}
