package codex

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/forgectl/internal/harness/codex/codextest"
	"github.com/google/go-cmp/cmp"
)

type shown struct {
	Kind harness.TurnKind
	Text string
}

func texts(turns []harness.Turn) []shown {
	out := make([]shown, len(turns))
	for i, x := range turns {
		out[i] = shown{x.Kind, x.Text}
	}
	return out
}

func tailOf(t *testing.T, path string, max int) []harness.Turn {
	t.Helper()
	turns, err := New(Paths{}).Tail(&harness.Session{Transcript: path}, max)
	if err != nil {
		t.Fatal(err)
	}
	return turns
}

func writeRollout(t *testing.T, name string, lines ...[]byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, bytes.Join(lines, nil), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// rawLine is a rollout line as Codex writes it: timestamp, ordinal (when
// >= 0), type, payload.
func rawLine(t *testing.T, at time.Time, ordinal int, typ string, payload map[string]any) []byte {
	t.Helper()
	p, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	ord := ""
	if ordinal >= 0 {
		ord = `"ordinal":` + strings.TrimSpace(string(must(json.Marshal(ordinal)))) + ","
	}
	return []byte(`{"timestamp":"` + at.UTC().Format("2006-01-02T15:04:05.000Z") + `",` + ord + `"type":"` + typ + `","payload":` + string(p) + "}\n")
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// The tool calls real rollouts hold (facts/codex.md §2; the contract
// scenes): exec_command with cmd, shell with an argv, apply_patch as a
// custom tool, a local_shell_call.
func toolCalls(t *testing.T, at time.Time, ord func() int) [][]byte {
	patch := "*** Begin Patch\n*** Update File: billing/round.go\n@@\n-float64\n+decimal\n*** Add File: billing/round_test.go\n+package billing\n*** End Patch\n"
	return [][]byte{
		rawLine(t, at, ord(), "response_item", map[string]any{"type": "function_call", "name": "exec_command", "arguments": `{"cmd":"go test ./billing/","workdir":"/x","yield_time_ms":10000}`, "call_id": "c1"}),
		rawLine(t, at, ord(), "response_item", map[string]any{"type": "function_call_output", "call_id": "c1", "output": "TOOL-OUTPUT ok billing"}),
		rawLine(t, at, ord(), "response_item", map[string]any{"type": "custom_tool_call", "status": "completed", "call_id": "c2", "name": "apply_patch", "input": patch}),
		rawLine(t, at, ord(), "response_item", map[string]any{"type": "custom_tool_call_output", "call_id": "c2", "output": "TOOL-OUTPUT Success"}),
		rawLine(t, at, ord(), "response_item", map[string]any{"type": "local_shell_call", "call_id": "c3", "status": "completed", "action": map[string]any{"type": "exec", "command": []string{"bash", "-lc", "git status --short"}}}),
		rawLine(t, at, ord(), "response_item", map[string]any{"type": "function_call", "name": "view_image", "arguments": `{"path":"shot.png"}`, "call_id": "c4"}),
	}
}

var wantTools = []shown{
	{harness.TurnTool, "exec_command: go test ./billing/"},
	{harness.TurnTool, "apply_patch: billing/round.go billing/round_test.go"},
	{harness.TurnTool, "shell: git status --short"},
	{harness.TurnTool, "view_image: shot.png"},
}

// A conversation in both formats: prompts as typed, replies once (a
// paginated rollout repeats its item_completed as agent_message), tool
// calls as one line; never injected blocks, reasoning or tool output.
func TestTailBothFormats(t *testing.T) {
	at := t0
	for _, pg := range []bool{true, false} {
		n := 0
		ord := func() int {
			if !pg {
				return -1
			}
			n++
			return n
		}
		m := codextest.Meta{ID: idTUI, Cwd: "/x", Paginated: pg, At: at}
		lines := [][]byte{codextest.MetaLine(m),
			codextest.User(at, ord(), "look at the invoice rounding"),
			codextest.TurnContext(at, ord(), "/x"),
			codextest.Tool(at, ord(), "grep -rn round src", "TOOL-OUTPUT-SECRET", "REASONING-SECRET"),
			codextest.Agent(at, ord(), "The rounding lives in billing/round.go.\n\nIt uses float64.\nThat loses cents.\nA fifth line.\nA sixth."),
			codextest.User(at.Add(time.Minute), ord(), "now fix it\nwith decimal"),
		}
		lines = append(lines, toolCalls(t, at.Add(time.Minute), ord)...)
		lines = append(lines, codextest.Agent(at.Add(2*time.Minute), ord(), "Done: round.go now uses decimal."))
		p := writeRollout(t, "r.jsonl", lines...)
		want := append([]shown{
			{harness.TurnPrompt, "look at the invoice rounding"},
			{harness.TurnTool, "shell: grep -rn round src"},
			{harness.TurnReply, "The rounding lives in billing/round.go.\nIt uses float64.\nThat loses cents.\nA fifth line."},
			{harness.TurnPrompt, "now fix it with decimal"},
		}, append(append([]shown{}, wantTools...), shown{harness.TurnReply, "Done: round.go now uses decimal."})...)
		got := tailOf(t, p, 20)
		if d := cmp.Diff(want, texts(got)); d != "" {
			t.Errorf("paginated %v (-want +got):\n%s", pg, d)
		}
		if len(got) > 0 && !got[len(got)-1].At.Equal(at.Add(2*time.Minute)) {
			t.Errorf("paginated %v: the reply's time %v", pg, got[len(got)-1].At)
		}
		// Three lines' worth: the reply, the run of tool calls (one line)
		// and the prompt before them.
		if d := cmp.Diff(want[3:], texts(tailOf(t, p, 3))); d != "" {
			t.Errorf("paginated %v, three lines (-want +got):\n%s", pg, d)
		}
	}
}

// A paginated rollout whose lines carry no ordinal still reads its
// replies once: session_meta's history_mode says it is paginated.
func TestTailPaginatedWithoutOrdinals(t *testing.T) {
	m := codextest.Meta{ID: idTUI, Cwd: "/x", Paginated: true, At: t0}
	p := writeRollout(t, "r.jsonl", codextest.MetaLine(m),
		rawLine(t, t0, -1, "event_msg", map[string]any{"type": "item_completed", "item": map[string]any{"type": "AgentMessage", "content": []any{map[string]any{"type": "Text", "text": "once"}}}}),
		rawLine(t, t0, -1, "event_msg", map[string]any{"type": "agent_message", "message": "once"}))
	if d := cmp.Diff([]shown{{harness.TurnReply, "once"}}, texts(tailOf(t, p, 10))); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// Megabytes of tool output and reasoning between two turns are passed
// over; a line over the decode cap is never kept; a last line cut
// mid-write is dropped.
func TestTailHugeAndCutLines(t *testing.T) {
	m := codextest.Meta{ID: idTUI, Cwd: "/x", Paginated: true, At: t0}
	cut := codextest.Agent(t0, 9, "a reply still being written")
	cut = cut[:len(cut)/3]
	p := writeRollout(t, "r.jsonl", codextest.MetaLine(m),
		codextest.User(t0, 1, "before the huge output"),
		rawLine(t, t0, 2, "response_item", map[string]any{"type": "function_call", "name": "exec_command", "arguments": `{"cmd":"cat big.log"}`, "call_id": "c"}),
		rawLine(t, t0, 3, "response_item", map[string]any{"type": "function_call_output", "call_id": "c", "output": strings.Repeat("x", 6<<20)}),
		rawLine(t, t0, 4, "response_item", map[string]any{"type": "reasoning", "summary": []any{}, "encrypted_content": strings.Repeat("y", 300<<10)}),
		codextest.Agent(t0, 5, "the log is big"),
		cut)
	want := []shown{
		{harness.TurnPrompt, "before the huge output"},
		{harness.TurnTool, "exec_command: cat big.log"},
		{harness.TurnReply, "the log is big"},
	}
	if d := cmp.Diff(want, texts(tailOf(t, p, 10))); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// passOver judges a long line by its head: output and reasoning are
// passed over, a reply or a tool call is read, and a head that does not
// show its payload's type is read whole.
func TestTailPassOver(t *testing.T) {
	for _, c := range []struct {
		head string
		want bool
	}{
		{`{"timestamp":"x","ordinal":3,"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":"xxx`, true},
		{`{"timestamp":"x","type":"response_item","payload":{"type":"reasoning","summary":[`, true},
		{`{"timestamp":"x","type":"response_item","payload":{"type":"message","role":"user","content":[`, true},
		{`{"timestamp":"x","type":"session_meta","payload":{"id":"t","base_instructions":{"text":"You are`, true},
		{`{"timestamp":"x","type":"event_msg","payload":{"type":"token_count","info":`, true},
		{`{"timestamp":"x","type":"event_msg","payload":{"type":"item_completed","item":{"type":"AgentMessage","content":[{"type":"Text","text":"long`, false},
		{`{"timestamp":"x","type":"event_msg","payload":{"type":"agent_message","message":"long`, false},
		{`{"timestamp":"x","type":"response_item","payload":{"type":"custom_tool_call","input":"*** Begin Patch`, false},
		{`{"timestamp":"x","type":"response_item","payload":{"call_id":"c","type":"function_call_output"`, false},
		{`{"timestamp":"x","type":"response_item"`, false},
	} {
		if got := passOver([]byte(c.head)); got != c.want {
			t.Errorf("passOver(%.60s…) = %v, want %v", c.head, got, c.want)
		}
	}
}

// A compressed segment is read from its start.
func TestTailCompressed(t *testing.T) {
	m := codextest.Meta{ID: idZst, Cwd: "/x", Paginated: true, At: t0}
	b := bytes.Join([][]byte{codextest.MetaLine(m), codextest.User(t0, 1, "compressed prompt"), codextest.Agent(t0, 2, "compressed reply")}, nil)
	p := writeRollout(t, "r.jsonl.zst", zstdOf(t, b))
	want := []shown{{harness.TurnPrompt, "compressed prompt"}, {harness.TurnReply, "compressed reply"}}
	if d := cmp.Diff(want, texts(tailOf(t, p, 10))); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if d := cmp.Diff(want[1:], texts(tailOf(t, p, 1))); d != "" {
		t.Errorf("one line (-want +got):\n%s", d)
	}
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r *bytes.Reader
	n int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	c.n += int64(len(p))
	return c.r.ReadAt(p, off)
}

// A preview reads the tail, not the rollout: 40 MB of older turns are
// never read for a few lines.
func TestTailReadsOnlyTheTail(t *testing.T) {
	var b bytes.Buffer
	b.Write(codextest.MetaLine(codextest.Meta{ID: idTUI, Cwd: "/x", Paginated: true, At: t0}))
	for k := 1; b.Len() < 40<<20; k += 4 {
		b.Write(codextest.User(t0, k, "an older prompt"))
		b.Write(codextest.Tool(t0, k+1, "go test ./...", strings.Repeat("ok\n", 2000), "thinking"))
		b.Write(codextest.Agent(t0, k+2, "an older reply"))
	}
	b.Write(codextest.User(t0, 1, "the newest prompt"))
	b.Write(codextest.Agent(t0, 1, "the newest reply"))
	c := &countingReader{r: bytes.NewReader(b.Bytes())}
	ts := harness.NewTurns(3)
	if err := tailTurns(c, int64(b.Len()), true, ts, harness.TailBytes); err != nil {
		t.Fatal(err)
	}
	got := ts.Oldest()
	if len(got) == 0 || got[len(got)-1].Text != "the newest reply" {
		t.Fatalf("turns %v", texts(got))
	}
	if c.n > 2*harness.TailBlock {
		t.Errorf("read %d bytes of %d, want at most %d", c.n, b.Len(), 2*harness.TailBlock)
	}
}

// Every thread of a generated home (tools/gencodex: both formats, forks,
// rewinds, compressed segments) previews its last prompt as the listing
// shows it, ends on a reply, and shows nothing Codex injected or a tool
// printed; and its cost comes from its token_count events.
func TestTailGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("builds tools/gencodex")
	}
	bin := filepath.Join(t.TempDir(), "gencodex")
	build := exec.Command("go", "build", "-o", bin, "./gencodex/cmd/gencodex")
	build.Dir = filepath.Join("..", "..", "..", "..", "tools")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build gencodex: %v\n%s", err, out)
	}
	home := t.TempDir()
	if out, err := exec.Command(bin, "-home", home, "-threads", "40", "-seed", "3", "-now", "2026-12-01T12:00:00Z").CombinedOutput(); err != nil {
		t.Fatalf("gencodex: %v\n%s", err, out)
	}
	var manifest struct {
		Threads []struct {
			ID        string   `json:"id"`
			Kind      string   `json:"kind"`
			Prompts   []string `json:"prompts"`
			Abandoned []string `json:"abandoned"`
		} `json:"threads"`
	}
	if b, err := os.ReadFile(filepath.Join(home, "gencodex-manifest.json")); err != nil || json.Unmarshal(b, &manifest) != nil {
		t.Fatalf("manifest: %v", err)
	}
	abandoned, kept := map[string]map[string]bool{}, map[string][]string{}
	for _, th := range manifest.Threads {
		abandoned[th.ID] = map[string]bool{}
		for _, p := range th.Abandoned {
			abandoned[th.ID][clip(p)] = true
		}
		if th.Kind == "rewind" && len(th.Abandoned) > 0 {
			kept[th.ID] = th.Prompts
		}
	}
	if len(kept) == 0 {
		t.Fatal("the generated home has no rewound thread")
	}
	h := New(Paths{Root: filepath.Join(home, ".codex")})
	ss, _ := list(t, h, filepath.Join(t.TempDir(), "idx"))
	if len(ss) < 30 {
		t.Fatalf("listed %d threads", len(ss))
	}
	formats := map[bool]int{}
	for _, s := range ss {
		turns, err := h.Tail(s, 40)
		if err != nil {
			t.Fatalf("%s: %v", s.ID, err)
		}
		var lastPrompt string
		var prompts []string
		for _, x := range turns {
			if x.Kind == harness.TurnPrompt {
				lastPrompt = x.Text
				prompts = append(prompts, x.Text)
				if abandoned[s.ID][x.Text] {
					t.Errorf("%s: the preview shows the abandoned prompt %q", s.ID, x.Text)
				}
			}
			for _, bad := range []string{"<environment_context>", "AGENTS.md", "<permissions", "**Inspecting", "gAAAA"} {
				if strings.Contains(x.Text, bad) {
					t.Errorf("%s: a turn shows %q: %q", s.ID, bad, x.Text)
				}
			}
			if x.Kind == harness.TurnTool && !strings.HasPrefix(x.Text, "exec_command: ") {
				t.Errorf("%s: tool call %q", s.ID, x.Text)
			}
		}
		if lastPrompt != s.LastPrompt {
			t.Errorf("%s (%s): the preview's last prompt %q, the listing's %q", s.ID, filepath.Base(s.Transcript), lastPrompt, s.LastPrompt)
		}
		if n := len(turns); n > 0 && s.Messages > 1 && turns[n-1].Kind != harness.TurnReply {
			t.Errorf("%s: the preview ends on %v %q", s.ID, turns[n-1].Kind, turns[n-1].Text)
		}
		// A rewound thread's preview runs on into the turns it kept, in
		// the segment it was rewound from.
		if want, ok := kept[s.ID]; ok {
			var clipped []string
			for _, p := range want {
				clipped = append(clipped, clip(p))
			}
			if d := cmp.Diff(clipped, prompts); d != "" {
				t.Errorf("%s: a rewound thread's prompts (-want +got):\n%s", s.ID, d)
			}
		}
		// Every generated turn ends with a token_count event.
		if s.Messages > 0 && (s.ContextTokens <= 0 || s.TokensUsed < s.ContextTokens || s.Model != "gpt-5.5") {
			t.Errorf("%s: context %d, used %d, model %q", s.ID, s.ContextTokens, s.TokensUsed, s.Model)
		}
		formats[strings.HasPrefix(s.Version, "0.142")]++
	}
	if formats[true] == 0 || formats[false] == 0 {
		t.Errorf("both formats wanted, got %v", formats)
	}
}

// After a rewind the preview runs on from the new segment into the turns
// the thread kept, in the segment it was rewound from, up to
// history_base's end_byte_offset: never the abandoned turns after it.
func TestTailRewind(t *testing.T) {
	m := codextest.Meta{ID: idRewind, Cwd: "/x", Paginated: true, At: t0}
	kept := bytes.Join([][]byte{codextest.MetaLine(m), codextest.User(t0, 1, "kept prompt"), codextest.Agent(t0, 2, "kept reply")}, nil)
	old := writeRollout(t, "old.jsonl", kept, codextest.User(t0, 3, "abandoned prompt"), codextest.Agent(t0, 4, "abandoned reply"))
	m2 := m
	m2.At, m2.BaseThread = t0.Add(time.Hour), idRewind
	meta := bytes.Replace(codextest.MetaLine(m2), []byte(`"end_byte_offset":30000`), []byte(`"end_byte_offset":`+string(must(json.Marshal(len(kept))))), 1)
	if bytes.Equal(meta, codextest.MetaLine(m2)) {
		t.Fatal("no end_byte_offset to set")
	}
	live := writeRollout(t, "new.jsonl", meta, codextest.User(m2.At, 1, "after the rewind"), codextest.Agent(m2.At, 2, "new reply"))
	s := &harness.Session{ID: idRewind, Transcript: live, Segments: []string{live, old}}
	turns, err := New(Paths{}).Tail(s, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []shown{
		{harness.TurnPrompt, "kept prompt"}, {harness.TurnReply, "kept reply"},
		{harness.TurnPrompt, "after the rewind"}, {harness.TurnReply, "new reply"},
	}
	if d := cmp.Diff(want, texts(turns)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	// A full preview reads no further than the new segment.
	if turns, _ = New(Paths{}).Tail(s, 2); len(turns) != 2 || turns[0].Text != "after the rewind" {
		t.Errorf("two lines: %v", texts(turns))
	}
	// A fork's history_base names its parent: its own turns only.
	s.ID = idFork
	if turns, _ = New(Paths{}).Tail(s, 10); len(turns) != 2 {
		t.Errorf("another thread's base: %v", texts(turns))
	}
}
