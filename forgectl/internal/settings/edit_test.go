package settings

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const cmdLine = "/opt/forge tools/forgectl resume snapshot --quiet"

func runsSnapshot(h Hook) bool { return strings.Contains(h.Command, "resume snapshot") }
func ours(c string) bool       { return c == cmdLine }

// A user's settings with everything a real one holds, 2-space indented.
const twoSpace = `{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {
    "allow": ["Bash(git status)", "Read(~/notes/**)"],
    "deny": []
  },
  "env": {
    "CLAUDE_CODE_ENABLE_TELEMETRY": "0",
    "GREETING": "grüß dich — 你好 🎉",
    "ESCAPED": "a\u00e9b\"q\\"
  },
  "statusLine": {
    "type": "command",
    "command": "~/.claude/statusline.sh"
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          { "type": "command", "command": "~/bin/guard && echo <ok>" }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "say done"
          }
        ]
      }
    ]
  },
  "model": "opus"
}
`

// The same kind of file with 4-space indents, no hooks at all, and no
// final newline.
const fourSpaceNoHooks = `{
    "permissions": {
        "allow": [
            "WebFetch(domain:go.dev)"
        ]
    },
    "env": {"A": "1"},
    "includeCoAuthoredBy": false
}`

const tabsHooksNoStop = "{\n\t\"hooks\": {\n\t\t\"SessionStart\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"x\"}]}]\n\t},\n\t\"n\": 1\n}\n"

const oneLine = `{"env":{"A":"1"},"hooks":{"Stop":[{"hooks":[{"type":"command","command":"say hi"}]}]}}`

func decode(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not valid JSON: %v\n%s", err, b)
	}
	return v
}

// withHook is the decoded original with forgectl's group appended to
// hooks.Stop, creating what is missing: what the edit must equal.
func withHook(t *testing.T, orig string) any {
	v := decode(t, []byte(orig)).(map[string]any)
	g := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmdLine}}}
	hooks, _ := v["hooks"].(map[string]any)
	if hooks == nil {
		hooks = map[string]any{}
		v["hooks"] = hooks
	}
	stop, _ := hooks["Stop"].([]any)
	hooks["Stop"] = append(stop, g)
	return v
}

// insertedOnly checks that out is orig with one run of bytes inserted: every
// byte of the original is still there, in place around the insertion.
func insertedOnly(t *testing.T, orig, out string) string {
	t.Helper()
	p := 0
	for p < len(orig) && orig[p] == out[p] {
		p++
	}
	s := 0
	for s < len(orig)-p && orig[len(orig)-1-s] == out[len(out)-1-s] {
		s++
	}
	if p+s != len(orig) {
		t.Fatalf("the original bytes changed, not only an insertion:\n%s", out)
	}
	return out[p : len(out)-s]
}

func TestAddKeepsEverythingElse(t *testing.T) {
	for _, c := range []struct {
		name, doc string
		want      string // the document after the edit, where it is worth pinning
	}{
		{"two spaces, another Stop hook", twoSpace, ""},
		{"four spaces, no hooks, no final newline", fourSpaceNoHooks, `{
    "permissions": {
        "allow": [
            "WebFetch(domain:go.dev)"
        ]
    },
    "env": {"A": "1"},
    "includeCoAuthoredBy": false,
    "hooks": {
        "Stop": [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": "/opt/forge tools/forgectl resume snapshot --quiet"
                    }
                ]
            }
        ]
    }
}`},
		{"tabs, hooks without Stop", tabsHooksNoStop, ""},
		{"one line", oneLine, `{"env":{"A":"1"},"hooks":{"Stop":[{"hooks":[{"type":"command","command":"say hi"}]},{"hooks":[{"type":"command","command":"/opt/forge tools/forgectl resume snapshot --quiet"}]}]}}`},
		{"empty object", "{}\n", "{\"hooks\":{\"Stop\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"/opt/forge tools/forgectl resume snapshot --quiet\"}]}]}}\n"},
		{"empty hooks on its own lines", "{\n  \"hooks\": {\n  }\n}\n", "{\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"/opt/forge tools/forgectl resume snapshot --quiet\"\n          }\n        ]\n      }\n    ]\n  }\n}\n"},
		{"empty Stop", "{\n  \"hooks\": {\n    \"Stop\": []\n  }\n}\n", ""},
		{"CRLF line ends", strings.ReplaceAll(twoSpace, "\n", "\r\n"), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := AddStopHook([]byte(c.doc), cmdLine, runsSnapshot)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Changed {
				t.Fatal("not changed")
			}
			out := string(res.Out)
			if strings.Contains(c.doc, "\r\n") && strings.Count(out, "\n") != strings.Count(out, "\r\n") {
				t.Errorf("a CRLF file got bare LF line ends:\n%q", out)
			}
			if c.want != "" && out != c.want {
				t.Errorf("got:\n%s\nwant:\n%s", out, c.want)
			}
			if diff := cmp.Diff(withHook(t, c.doc), decode(t, res.Out)); diff != "" {
				t.Errorf("JSON differs from the original plus the hook (-want +got):\n%s", diff)
			}
			if !strings.Contains(c.doc, "{\n  }") && !strings.Contains(c.doc, "[]") && c.doc != "{}\n" {
				insertedOnly(t, c.doc, out)
			}
			// Idempotent: a second run changes no byte and names the hook.
			again, err := AddStopHook(res.Out, cmdLine, runsSnapshot)
			if err != nil || again.Changed || string(again.Out) != out || again.Existing.Command != cmdLine {
				t.Errorf("second run: changed=%v existing=%q err=%v", again.Changed, again.Existing.Command, err)
			}
			// Removal takes back exactly what was added.
			back, removed, err := RemoveStopHook(res.Out, ours)
			if err != nil || len(removed) != 1 {
				t.Fatalf("remove: %v %v", removed, err)
			}
			if wantBack := c.doc; !strings.Contains(c.doc, "{\n  }") && !strings.Contains(c.doc, "\"Stop\": []") {
				if string(back) != wantBack {
					t.Errorf("add then remove is not the original:\n%s", back)
				}
			} else if diff := cmp.Diff(decode(t, []byte(`{}`)), decode(t, back)); diff != "" && !strings.Contains(c.doc, "\"Stop\": []") {
				t.Errorf("remove: %s", diff)
			}
		})
	}
}

func TestTwoSpaceInsertionIsIndentedLikeItsNeighbours(t *testing.T) {
	res, err := AddStopHook([]byte(twoSpace), cmdLine, runsSnapshot)
	if err != nil {
		t.Fatal(err)
	}
	got := insertedOnly(t, twoSpace, string(res.Out))
	want := `,
      {
        "hooks": [
          {
            "type": "command",
            "command": "/opt/forge tools/forgectl resume snapshot --quiet"
          }
        ]
      }`
	if got != want {
		t.Errorf("inserted:\n%s\nwant:\n%s", got, want)
	}
}

func TestAlreadyWiredChangesNothing(t *testing.T) {
	doc := strings.Replace(twoSpace, `"say done"`, `"forgectl resume snapshot --quiet"`, 1)
	res, err := AddStopHook([]byte(doc), cmdLine, runsSnapshot)
	if err != nil || res.Changed || string(res.Out) != doc || res.Existing.Command != "forgectl resume snapshot --quiet" {
		t.Fatalf("%+v %v", res, err)
	}
	// Removal leaves a hook it did not write.
	out, removed, err := RemoveStopHook([]byte(doc), func(c string) bool { return c == cmdLine })
	if err != nil || removed != nil || string(out) != doc {
		t.Fatalf("removed %v, %v", removed, err)
	}
}

func TestRemoveLeavesAGroupSomeoneExtended(t *testing.T) {
	doc := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "` + cmdLine + `"}, {"type": "command", "command": "say hi"}]}]}}`
	out, removed, err := RemoveStopHook([]byte(doc), ours)
	if err != nil || removed != nil || string(out) != doc {
		t.Fatalf("%s %v %v", out, removed, err)
	}
}

func TestRemoveAmongOthers(t *testing.T) {
	first, _ := AddStopHook([]byte(fourSpaceNoHooks), cmdLine, runsSnapshot)
	// Another hook added after ours, by hand.
	doc := strings.Replace(string(first.Out), "            }\n        ]\n    }\n}", "            },\n            {\"hooks\": [{\"type\": \"command\", \"command\": \"say bye\"}]}\n        ]\n    }\n}", 1)
	out, removed, err := RemoveStopHook([]byte(doc), ours)
	if err != nil || len(removed) != 1 {
		t.Fatalf("%v %v\n%s", removed, err, doc)
	}
	want := decode(t, []byte(fourSpaceNoHooks)).(map[string]any)
	want["hooks"] = map[string]any{"Stop": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "say bye"}}}}}
	if diff := cmp.Diff(any(want), decode(t, out)); diff != "" {
		t.Errorf("%s\n%s", diff, out)
	}
}

func TestRefusals(t *testing.T) {
	for _, c := range []struct {
		name, doc string
		line, col int // 0 for a shape error
	}{
		{"trailing comma", "{\n  \"a\": 1,\n}\n", 3, 1},
		{"comment", "{\n  // mine\n  \"a\": 1\n}\n", 2, 3},
		{"unicode before the error", "{\n  \"名前\": x\n}", 2, 9},
		{"cut off", "{\n  \"a\": [1,", 2, 11},
		{"two documents", "{}\n{}\n", 2, 1},
		{"an array", "[]", 0, 0},
		{"hooks is a string", `{"hooks": "Stop"}`, 0, 0},
		{"Stop is an object", `{"hooks": {"Stop": {}}}`, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := AddStopHook([]byte(c.doc), cmdLine, runsSnapshot)
			var se *SyntaxError
			var sh *ShapeError
			switch {
			case c.line == 0 && !errors.As(err, &sh):
				t.Fatalf("want a shape error, got %v", err)
			case c.line > 0 && !errors.As(err, &se):
				t.Fatalf("want a syntax error, got %v", err)
			case c.line > 0 && (se.Line != c.line || se.Column != c.col):
				t.Errorf("at %d:%d (%v), want %d:%d", se.Line, se.Column, se, c.line, c.col)
			}
			if _, _, rerr := RemoveStopHook([]byte(c.doc), ours); c.name != "hooks is a string" && c.name != "Stop is an object" && rerr == nil {
				t.Errorf("remove accepted it")
			}
		})
	}
}

func TestMissingDocumentIsCreated(t *testing.T) {
	res, err := AddStopHook(nil, cmdLine, runsSnapshot)
	if err != nil || !res.Changed {
		t.Fatal(err)
	}
	if diff := cmp.Diff(withHook(t, "{}"), decode(t, res.Out)); diff != "" {
		t.Error(diff)
	}
	if !strings.HasPrefix(string(res.Out), "{\n  \"hooks\": {\n    \"Stop\": [") || !strings.HasSuffix(string(res.Out), "}\n") {
		t.Errorf("%s", res.Out)
	}
}

func TestWriteRefusesAFileChangedSinceRead(t *testing.T) {
	p := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(p, []byte("{}\n"), 0o600)
	d, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(p, []byte("{\"model\": \"opus\"}\n"), 0o600)
	if _, err := d.Write([]byte("{\"hooks\": {}}\n")); !errors.Is(err, ErrChanged) {
		t.Fatalf("%v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "{\"model\": \"opus\"}\n" {
		t.Fatalf("overwrote the other program's change: %s", b)
	}
}
