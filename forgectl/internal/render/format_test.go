package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/tasks"
)

// The hand-written encoder must produce exactly what encoding/json would.
func TestAppendSessionMatchesEncodingJSON(t *testing.T) {
	nasty := []string{"", "plain", `quote " and \ backslash`, "ctl \x00\x01\x08\x0c\n\r\t\x1f\x7f", "html <a href='x'>&</a>",
		"bad utf8 \xff\xfe end", "line sep \u2028 para \u2029", "emoji 🙏 and é", strings.Repeat("long ", 100)}
	for _, s := range nasty {
		sess := harness.Session{ID: s, Name: s, NameSource: s, Repo: s, Branch: s, Cwd: s, FirstPrompt: s, LastPrompt: s,
			Status: s, Tmux: s, Entrypoint: s, Version: s, HiddenReason: s, Transcript: s, Live: s == "plain", Pid: 42,
			CwdExists: true, Size: 12345, Messages: 7, Tasks: tasks.Counts{Pending: 1, InProgress: 2, Completed: 3, Total: 6},
			LastActivity: time.Date(2026, 11, 29, 16, 41, 5, 0, time.UTC), LastPromptAt: time.UnixMilli(1795970465615), TasksSource: "live", Hidden: s == "",
			ParentID: s, Relation: s, ParentExists: s == "plain"}
		j := ToJSON(&sess)
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.Encode(j)
		got := appendRecord(nil, j)
		if string(got)+"\n" != want.String() {
			t.Fatalf("for %q:\n got %s\nwant %s", s, got, want.String())
		}
	}
}

func TestWriteJSONArray(t *testing.T) {
	list := []harness.Session{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	var b bytes.Buffer
	j := NewJSONArray(&b)
	j.Add(&list[2], nil)
	j.Add(&list[0], nil)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	var got []SessionJSON
	if err := json.Unmarshal(b.Bytes(), &got); err != nil || len(got) != 2 || got[0].SessionID != "c" || got[1].SessionID != "a" {
		t.Fatalf("%v %+v\n%s", err, got, b.String())
	}
	b.Reset()
	NewJSONArray(&b).Close()
	if b.String() != "[]\n" {
		t.Fatalf("%q", b.String())
	}
}

func TestCutCleanPad(t *testing.T) {
	for in, want := range map[string]string{"plain é": "plain é", "a\tb\nc": "a b c", "esc\x1b[31m": "esc [31m", "c1\u0085x": "c1 x", "del\x7f": "del "} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
	if got := string(Pad(nil, "é", 3)); got != "é  " {
		t.Errorf("pad: %q", got)
	}
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	s := harness.Session{Repo: "api-server", Branch: "feature/login", Name: "Login bugfix work", LastActivity: now.Add(-time.Hour), Live: true}
	if got := PickRow(now, &s); got != "1h ago    api-server            feature/login         Login bugfix work  ● live" {
		t.Errorf("pickRow: %q", got)
	}
}
