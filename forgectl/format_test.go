package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"forgectl.dev/shared/sessions"
	"forgectl.dev/shared/tasks"
)

// The hand-written encoder must produce exactly what encoding/json would.
func TestAppendSessionMatchesEncodingJSON(t *testing.T) {
	nasty := []string{"", "plain", `quote " and \ backslash`, "ctl \x00\x01\x08\x0c\n\r\t\x1f\x7f", "html <a href='x'>&</a>",
		"bad utf8 \xff\xfe end", "line sep \u2028 para \u2029", "emoji 🙏 and é", strings.Repeat("long ", 100)}
	for _, s := range nasty {
		sess := sessions.Session{ID: s, Name: s, NameSource: s, Repo: s, Branch: s, Cwd: s, FirstPrompt: s, LastPrompt: s,
			Status: s, Tmux: s, Entrypoint: s, Version: s, HiddenReason: s, Transcript: s, Live: s == "plain", Pid: 42,
			CwdExists: true, Size: 12345, Messages: 7, Tasks: tasks.Counts{Pending: 1, InProgress: 2, Completed: 3, Total: 6},
			LastActivity: time.Date(2026, 11, 29, 16, 41, 5, 0, time.UTC), LastPromptAt: time.UnixMilli(1795970465615), TasksSource: "live", Hidden: s == ""}
		j := toJSON(&sess)
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.Encode(j)
		got := appendSession(nil, j)
		if string(got)+"\n" != want.String() {
			t.Fatalf("for %q:\n got %s\nwant %s", s, got, want.String())
		}
	}
}

func TestWriteJSONArray(t *testing.T) {
	list := []sessions.Session{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	var b bytes.Buffer
	if err := writeJSON(&b, list, []int{2, 0}); err != nil {
		t.Fatal(err)
	}
	var got []sessionJSON
	if err := json.Unmarshal(b.Bytes(), &got); err != nil || len(got) != 2 || got[0].SessionID != "c" || got[1].SessionID != "a" {
		t.Fatalf("%v %+v\n%s", err, got, b.String())
	}
	b.Reset()
	writeJSON(&b, list, nil)
	if b.String() != "[]\n" {
		t.Fatalf("%q", b.String())
	}
}
