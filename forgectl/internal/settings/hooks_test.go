package settings

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"
)

// stopCommands is what Claude Code would run on Stop for data.
func stopCommands(t *testing.T, data []byte) []string {
	t.Helper()
	h, err := ReadHooks(data)
	if err != nil {
		t.Fatalf("ReadHooks: %v\n%s", err, data)
	}
	var out []string
	for _, hk := range h.List {
		if hk.Event == "Stop" {
			out = append(out, hk.Command)
		}
	}
	return out
}

// Claude Code keeps the last of duplicate keys (JSON.parse; observed on
// 2.1.332 with two "hooks" keys): the edit goes where it reads, and
// removal never uncovers an earlier key it was not reading.
func TestDuplicateKeys(t *testing.T) {
	for _, c := range []struct {
		name, doc string
		before    []string // Stop commands as read before the edit
	}{
		{"two hooks, the last empty", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "old"}]}]}, "hooks": {}}`, nil},
		{"two hooks, the last with another event", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "old"}]}]}, "hooks": {"PreToolUse": []}}`, nil},
		{"two Stop keys", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "old"}]}], "Stop": []}}`, nil},
		{"two Stop keys, the last with a hook", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "old"}]}], "Stop": [{"hooks": [{"type": "command", "command": "say hi"}]}]}}`, []string{"say hi"}},
		{"multi-line, two hooks", "{\n  \"hooks\": {\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"old\"}]}]\n  },\n  \"hooks\": {}\n}\n", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := stopCommands(t, []byte(c.doc)); !cmp.Equal(got, c.before) {
				t.Fatalf("read before: %q, want %q", got, c.before)
			}
			res, err := AddStopHook([]byte(c.doc), cmdLine, runsSnapshot)
			if err != nil || !res.Changed {
				t.Fatalf("%v %v", res.Changed, err)
			}
			if got, want := stopCommands(t, res.Out), append(c.before, cmdLine); !cmp.Equal(got, want) {
				t.Fatalf("after the edit Claude Code would run %q, want %q:\n%s", got, want, res.Out)
			}
			back, removed, err := RemoveStopHook(res.Out, ours)
			if err != nil || len(removed) != 1 {
				t.Fatalf("remove: %v %v", removed, err)
			}
			if got := stopCommands(t, back); !cmp.Equal(got, c.before) {
				t.Fatalf("after removal Claude Code would run %q, want %q:\n%s", got, c.before, back)
			}
			if string(back) != c.doc {
				t.Errorf("add then remove is not the original:\n%s", back)
			}
		})
	}
	// The last "hooks" is the one refused, and the message says so.
	_, err := AddStopHook([]byte(`{"hooks": {}, "hooks": []}`), cmdLine, runsSnapshot)
	var se *ShapeError
	if !errors.As(err, &se) || !strings.Contains(se.Msg, `the last of the 2 "hooks" keys (the one Claude Code reads) is not an object`) {
		t.Fatalf("%v", err)
	}
}

func utf16le(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

// Claude Code reads a leading UTF-8 BOM and UTF-16LE (observed): so does
// ReadHooks; an edit keeps the BOM and refuses UTF-16 by name.
func TestEncodings(t *testing.T) {
	doc := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say hi"}]}]}}`
	withBOM := "\ufeff" + doc + "\n"
	if got := stopCommands(t, []byte(withBOM)); !cmp.Equal(got, []string{"say hi"}) {
		t.Fatalf("BOM: %q", got)
	}
	res, err := AddStopHook([]byte(withBOM), cmdLine, runsSnapshot)
	if err != nil || !strings.HasPrefix(string(res.Out), "\ufeff{") {
		t.Fatalf("the edit lost the BOM: %v %q", err, res.Out)
	}
	if got := stopCommands(t, res.Out); !cmp.Equal(got, []string{"say hi", cmdLine}) {
		t.Fatalf("after the edit: %q", got)
	}
	back, _, err := RemoveStopHook(res.Out, ours)
	if err != nil || string(back) != withBOM {
		t.Fatalf("add then remove: %v %q", err, back)
	}
	if res, err := AddStopHook([]byte("\ufeff\n"), cmdLine, runsSnapshot); err != nil || !strings.HasPrefix(string(res.Out), "\ufeff{") {
		t.Fatalf("a BOM-only file: %v %q", err, res.Out)
	}

	for name, data := range map[string][]byte{
		"with its BOM":             utf16le("\ufeff" + doc),
		"without a BOM":            utf16le(doc),
		"big-endian without a BOM": append([]byte{0}, utf16le(doc)...),
	} {
		if got := stopCommands(t, data); !cmp.Equal(got, []string{"say hi"}) {
			t.Errorf("UTF-16 %s: %q", name, got)
		}
		_, err := AddStopHook(data, cmdLine, func(Hook) bool { return false })
		var ee *EncodingError
		if !errors.As(err, &ee) || !strings.Contains(ee.Msg, "UTF-16") || CheckEditable(data) == nil {
			t.Errorf("UTF-16 %s: %v", name, err)
		}
		if _, _, err := RemoveStopHook(data, ours); !errors.As(err, &ee) {
			t.Errorf("UTF-16 %s, remove: %v", name, err)
		}
		// Already wired is not an edit.
		if res, err := AddStopHook(data, cmdLine, func(h Hook) bool { return h.Command == "say hi" }); err != nil || res.Changed || string(res.Out) != string(data) || res.Existing.Command != "say hi" {
			t.Errorf("UTF-16 %s, already wired: %+v %v", name, res, err)
		}
	}

	// A BOM anywhere but first is an error Claude Code makes too (observed),
	// named as what it is.
	for _, bad := range []string{" \ufeff{}", "{}\ufeff", "{\"a\":\n\ufeff1}"} {
		_, err := AddStopHook([]byte(bad), cmdLine, runsSnapshot)
		var se *SyntaxError
		if !errors.As(err, &se) || !strings.Contains(se.Msg, "byte-order mark (U+FEFF)") {
			t.Errorf("%q: %v", bad, err)
		}
		if _, err := ReadHooks([]byte(bad)); !errors.As(err, &se) {
			t.Errorf("ReadHooks(%q): %v", bad, err)
		}
	}
}

func TestReadHooks(t *testing.T) {
	h, err := ReadHooks([]byte(`{
		"disableAllHooks": false,
		"hooks": {
			"Stop": [{"hooks": [{"type": "command", "command": "a"}, {"type": "prompt", "prompt": "x"}, {"type": "command", "command": "b", "args": ["c", "d"]}]}, "junk", {"hooks": "junk"}],
			"SessionStart": "junk",
			"SessionEnd": [{"hooks": [{"command": "e"}]}],
			"Stop ": [{"hooks": [{"type": "command", "command": "not Stop"}]}]
		},
		"Hooks": {"Stop": [{"hooks": [{"type": "command", "command": "capital"}]}]}
	}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Hooks{List: []Hook{
		{Event: "Stop", Command: "a"},
		{Event: "Stop", Command: "b", Exec: true, Args: []string{"c", "d"}},
		{Event: "SessionEnd", Command: "e"},
		{Event: "Stop ", Command: "not Stop"},
	}}
	if d := cmp.Diff(want, h); d != "" {
		t.Fatal(d)
	}
	if h, _ := ReadHooks([]byte(`{"disableAllHooks": false, "disableAllHooks": true}`)); !h.Disabled {
		t.Fatal("the last disableAllHooks is true")
	}
	if h, err := ReadHooks(nil); err != nil || h.Disabled || len(h.List) != 0 {
		t.Fatal("an empty file has no hooks")
	}
}
