package codex

import (
	"slices"
	"strings"
	"testing"
)

// Screens captured from the real 0.171.0 and 0.142.3 (trimmed).
const (
	idle171 = `  >_ OpenAI Codex (v0.171.0)
     ~/src/app

› fix the login bug

• Hello from the fake model. You said: fix the login bug

  Worked for <1s • 00:51

› Ask Codex to do anything

  gpt-fake default · ~/src/app · Title fix the login bug
  ← for agents · ? for shortcuts                                   ⚠ 2 warnings · f2 to view
`
	rename171 = `› fix the login bug

• Hello from the fake model. You said: fix the login bug

  Rename thread
  Suggested from this conversation
› login work renamed
  enter submit · esc back
`
	// The /rename box just opened, then with its suggestion in.
	renameOpening171 = `  Worked for <1s • 01:53

  Rename thread
  Generating a title suggestion…
› Title fix the login bug
  enter submit · esc back
`
	renameSuggested171 = `  Worked for <1s • 01:53

  Rename thread
  Suggested from this conversation
› Title Generate a concise, single-lin
  enter submit · esc back
`
	lock171 = `  >_ OpenAI Codex (v0.171.0)
     ~/src/batch

› a slow exec turn

■ This conversation is read-only or unavailable; no operation was sent.

  🔒  This conversation is open in another app                                 r to retry
      Close it there and press R to continue here.
   r retry   f fork   ←/esc command center   ^c/q exit   ^t transcript
`
	trust171 = `  Folder access
  /tmp/cxm/home/src/app
  Trust this folder? Codex can read, edit, and run files here.
› 1. Trust and continue
  2. Back to Agent Command Center
  enter continue · esc back
`
	dirQuestion171 = `Working directory · resume
  Session = latest cwd recorded in the resumed session
  Current = your current working directory
› 1. Use session directory (/h/src/app)
  2. Use current directory (/h)
  enter continue · esc use session · ^c quit
`
	idle142 = `╭────────────────────────────────────────╮
│ >_ OpenAI Codex (v0.142.3)             │
│ model:     gpt-fake   /model to change │
│ directory: ~/src/legacy                │
╰────────────────────────────────────────╯

› hello

⚠ Model metadata for ` + "`gpt-fake`" + ` not found. Defaulting to fallback metadata.

• Hello from the fake model. You said: hello

› Write tests for @filename

  gpt-fake default · ~/src/legacy
`
	slash142 = `│ model:     gpt-fake   /model to change │
╰────────────────────────────────────────╯

› legacy prompt zeta

⚠ Model metadata for ` + "`gpt-fake`" + ` not found.

• Hello from the fake model. You said: legacy prompt zeta

› /quit

  /quit  exit Codex
`
)

func TestComposerOnlyWhereTypingIsSafe(t *testing.T) {
	for _, c := range []struct {
		name, screen, text string
		ok                 bool
	}{
		{"0.171.0 idle", idle171, "Ask Codex to do anything", true},
		{"0.142.3 idle", idle142, "Write tests for @filename", true},
		// The header's "model: gpt-fake" and a warning naming the model
		// are not the footer: a slash menu hides the composer's footer.
		{"0.142.3 slash menu", slash142, "", false},
		{"the rename dialog", rename171, "", false},
		{"the lock screen (letters are commands)", lock171, "", false},
		{"the trust prompt", trust171, "", false},
		{"the directory question", dirQuestion171, "", false},
		{"nothing", "", "", false},
	} {
		text, ok := composer(c.screen)
		if ok != c.ok || text != c.text {
			t.Errorf("%s: composer = %q, %v; want %q, %v", c.name, text, ok, c.text, c.ok)
		}
	}
	typed := strings.Replace(idle171, "› Ask Codex to do anything", "› a prompt being typed", 1)
	if text, ok := composer(typed); !ok || text != "a prompt being typed" {
		t.Errorf("typed text: %q, %v", text, ok)
	}
}

func TestWriteHoldersByDeviceAndInode(t *testing.T) {
	// st_dev 0xfe00 is major 0xfe, minor 0; a large minor spills into the
	// high bits.
	if k := lockKey(0xfe00, 10119866); k != "fe:00:10119866" {
		t.Errorf("lockKey = %s", k)
	}
	if k := lockKey(0x00100103, 7); k != "01:103:7" {
		t.Errorf("lockKey with a wide minor = %s", k)
	}
	locks := `1: FLOCK  ADVISORY  WRITE 24480 fe:00:10119866 0 EOF
1: -> FLOCK  ADVISORY  WRITE 25000 fe:00:10119866 0 EOF
2: POSIX  ADVISORY  READ 24299 fe:00:10018914 128 128
3: FLOCK  ADVISORY  READ 24481 fe:00:10119866 0 EOF
4: FLOCK  ADVISORY  WRITE 24482 fe:00:101198660 0 EOF
5: FLOCK  ADVISORY  WRITE 24483 fe:01:10119866 0 EOF
`
	if got := writeHolders(locks, "fe:00:10119866"); !slices.Equal(got, []int{24480}) {
		t.Errorf("holders %v, want only the WRITE holder 24480 (not the waiter, the reader, another inode or device)", got)
	}
	if got := writeHolders("", "fe:00:1"); got != nil {
		t.Errorf("no locks: %v", got)
	}
}

func TestRenameBoxReadyOnlyWithItsSuggestion(t *testing.T) {
	for _, c := range []struct {
		name, screen, field string
		ready, ok           bool
	}{
		{"opening: the suggestion still to come", renameOpening171, "Title fix the login bug", false, true},
		{"the suggestion in", renameSuggested171, "Title Generate a concise, single-lin", true, true},
		{"a name typed", rename171, "login work renamed", true, true},
		{"closed: the composer back", idle171, "", false, false},
		{"the slash menu naming /rename", "› /rename  rename the current thread\n› /rename\n  gpt-fake default · ~/src/app\n", "", false, false},
		{"half drawn", "  Rename thread\n", "", false, false},
	} {
		field, ready, ok := renameBox(c.screen)
		if field != c.field || ready != c.ready || ok != c.ok {
			t.Errorf("%s: renameBox = %q, %v, %v; want %q, %v, %v", c.name, field, ready, ok, c.field, c.ready, c.ok)
		}
	}
	if f := footer(idle171); f != "gpt-fake default · ~/src/app · Title fix the login bug" {
		t.Errorf("footer = %q", f)
	}
	if f := footer(rename171); f != "" {
		t.Errorf("the rename box has no footer: %q", f)
	}
}
