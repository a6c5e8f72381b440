package transcript

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

const (
	sid  = "1fc9d747-58cb-4e62-b7f1-a85d62252943"
	env  = `"cwd":"/home/alice/src/demo-repo","sessionId":"` + sid + `","version":"2.1.332","gitBranch":"feature/login"}`
	user = `{"parentUuid":null,"isSidechain":false,"promptId":"p1","type":"user","message":{"role":"user","content":"please say hello to the login module"},"uuid":"u1","timestamp":"2026-11-29T16:41:05.526Z","permissionMode":"auto","userType":"external","entrypoint":"cli",` + env
	asst = `{"parentUuid":"u1","isSidechain":false,"message":{"id":"m","type":"message","role":"assistant","content":[{"type":"text","text":"hello \"cwd\":\"/fake\""}]},"type":"assistant","uuid":"a1","timestamp":"2026-11-29T16:41:06Z","entrypoint":"cli",` + env
	tool = `{"parentUuid":"a1","type":"user","message":{"role":"user","content":[{"tool_use_id":"t","type":"tool_result","content":"Task #1 created"}]},"toolUseResult":{"task":{"id":"1"}},"cwd":"/home/alice/src/demo-repo","sessionId":"` + sid + `","version":"2.1.332","gitBranch":"feature/login"}`
)

func write(t testing.TB, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), sid+".jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func nl(s string) string { return s + "\n" }

var ignoreBook = cmpopts.IgnoreFields(Summary{}, "Offset", "LastUserOff", "LastUserLen")

func TestScan(t *testing.T) {
	branch2 := strings.Replace(user, "feature/login", "main", 1)
	branch2 = strings.Replace(branch2, "please say hello to the login module", "<command-name>/rename</command-name>\\n<command-args>Login work</command-args>", 1)
	big := `{"parentUuid":"a1","isSidechain":false,"type":"attachment","attachment":{"content":"` + strings.Repeat("é", 3<<20) + `"},` + strings.Replace(env, "feature/login", "feature/big", 1)
	p := write(t,
		nl(user), nl(asst), nl(tool),
		nl(`{"type":"custom-title","customTitle":"Login bugfix work","sessionId":"`+sid+`"}`),
		nl(`{"type":"agent-name","agentName":"Login bugfix work","sessionId":"`+sid+`"}`),
		"garbage line\n",
		nl(big),
		nl(branch2),
		nl(`{"type":"last-prompt","lastPrompt":"this   will\nbe slow","leafUuid":"x","sessionId":"`+sid+`"}`),
		`{"parentUuid":"cut mid-wr`,
	)
	got, err := Scan(p)
	if err != nil {
		t.Fatal(err)
	}
	want := Summary{
		SessionID: sid, Cwd: "/home/alice/src/demo-repo", LastCwd: "/home/alice/src/demo-repo",
		GitBranch: "main", Version: "2.1.332", Entrypoint: "cli",
		FirstPrompt: "please say hello to the login module", LastPrompt: "this will be slow",
		CustomTitle: "Login bugfix work", AgentName: "Login bugfix work",
		Messages: 5, BrokenLines: 1,
		// The reply's time: the prompt cache is timed from it.
		Usage: Usage{ReplyAtMs: 1795970466000},
	}
	if d := cmp.Diff(want, got, ignoreBook); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
	if n, src := got.Name(); n != "Login bugfix work" || src != "agent-name" {
		t.Fatalf("Name: %q %q", n, src)
	}
	st, _ := os.Stat(p)
	if got.Offset != st.Size()-int64(len(`{"parentUuid":"cut mid-wr`)) {
		t.Fatalf("offset %d stops before the cut line (size %d)", got.Offset, st.Size())
	}
}

func TestIncrementalEqualsFull(t *testing.T) {
	p := write(t, nl(user), nl(asst))
	var inc Summary
	if err := inc.Update(p); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(nl(tool) + nl(strings.Replace(user, "feature/login", "fix/2", 1)) + nl(`{"type":"ai-title","aiTitle":"Greeting the module","sessionId":"`+sid+`"}`))
	f.Close()
	if err := inc.Update(p); err != nil {
		t.Fatal(err)
	}
	full, _ := Scan(p)
	if d := cmp.Diff(full, inc); d != "" {
		t.Fatalf("incremental differs from full (-full +inc):\n%s", d)
	}
	if inc.GitBranch != "fix/2" || inc.AITitle != "Greeting the module" {
		t.Fatalf("%+v", inc)
	}
}

func TestLastPromptFallbackAndKinds(t *testing.T) {
	second := strings.Replace(user, "please say hello to the login module", "second prompt", 1)
	sdk := strings.Replace(user, `"entrypoint":"cli"`, `"entrypoint":"sdk-cli"`, 1)
	side := strings.Replace(user, `"isSidechain":false`, `"isSidechain":true`, 1)
	bash := strings.Replace(user, `"please say hello to the login module"`, `[{"type":"text","text":"<bash-input>ls -la</bash-input>"}]`, 1)
	for _, tc := range []struct {
		name  string
		lines []string
		check func(Summary) bool
	}{
		{"last prompt from last human row", []string{nl(user), nl(tool), nl(second), nl(tool)}, func(s Summary) bool { return s.Latest() == "second prompt" && s.LastPrompt == "" }},
		{"print mode", []string{nl(sdk)}, func(s Summary) bool { return s.Entrypoint == "sdk-cli" }},
		{"print mode after queue rows", []string{
			nl(`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-11-29T10:00:00Z","sessionId":"` + sid + `","content":"hi"}`),
			nl(`{"type":"queue-operation","operation":"dequeue","timestamp":"2026-11-29T10:00:00Z","sessionId":"` + sid + `"}`),
			nl(sdk),
		}, func(s Summary) bool { return s.Entrypoint == "sdk-cli" && s.Messages == 1 }},
		{"entrypoint from the first row that has one", []string{
			nl(`{"parentUuid":null,"type":"system","subtype":"x","uuid":"s1","cwd":"/a","sessionId":"` + sid + `"}`),
			nl(sdk),
		}, func(s Summary) bool { return s.Entrypoint == "sdk-cli" && s.Cwd == "/a" }},
		{"sidechain", []string{nl(side)}, func(s Summary) bool { return s.Sidechain }},
		{"bash input", []string{nl(bash)}, func(s Summary) bool { return s.FirstPrompt == "! ls -la" }},
		{"reordered metadata", []string{nl(`{"sessionId":"x","customTitle":"Odd order","type":"custom-title"}`)}, func(s Summary) bool { return s.CustomTitle == "Odd order" && s.Messages == 0 }},
		{"long prompt cut", []string{nl(strings.Replace(user, "please say hello to the login module", strings.Repeat("ab ", 200), 1))}, func(s Summary) bool {
			return len([]rune(s.FirstPrompt)) == 201 && strings.HasSuffix(s.FirstPrompt, "…")
		}},
		{"empty file", nil, func(s Summary) bool { return s.Messages == 0 && s.Offset == 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Scan(write(t, tc.lines...))
			if err != nil || !tc.check(s) {
				t.Fatalf("%+v %v", s, err)
			}
		})
	}
}

// The envelope scan finds each key at its last place in a row's tail,
// past decoys that share a key's first letters or sit inside a string.
func TestEnvelopeFindsEveryKey(t *testing.T) {
	var tail strings.Builder
	tail.WriteString(`{"text":"say \"cwd\":\"/fake\"","cwdx":"no","sessio":"no","gitBranchy":1,`)
	want := map[int]string{}
	for k, key := range envelopeKeys {
		v := "value-" + strings.Repeat("v", k)
		if k == keyUsage {
			// An object, the last of two; a string "usage" after it is not one.
			tail.WriteString(`"usage":{"first":1},"usage":{"input_tokens":` + strconv.Itoa(k) + `},"usage":"not an object",`)
			continue
		}
		written := `"` + key + `":"`
		if k == keyForkedFrom {
			written = `"forkedFrom":{"sessionId":"`
		}
		tail.WriteString(`"cwd":"/earlier",` + written + v + `"`)
		if k == keyForkedFrom {
			tail.WriteString(`}`) // forkedFrom's sessionId is not the row's
		}
		tail.WriteString(",")
		want[k] = v
	}
	want[keyCwd] = "/earlier" // the last cwd stands after the first key
	tail.WriteString(`"t":"eamName"}`)
	b := []byte(tail.String())
	var e envelope
	e.scan(b)
	for k := range envelopeKeys {
		if k == keyUsage {
			if at := e.at[k]; at < 0 || !strings.HasPrefix(string(b[at:]), `{"input_tokens":`) {
				t.Errorf("usage at %d, want the last object", at)
			}
			continue
		}
		if got, ok := e.value(b, k); !ok || got != want[k] {
			t.Errorf("%s: %q, %v; want %q", envelopeKeys[k], got, ok, want[k])
		}
	}
}
