package claude

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/cchome"
	"forgectl.dev/shared/paths"
	"forgectl.dev/shared/snapstore"
	"github.com/google/go-cmp/cmp"
)

// conversation is a transcript's rows in the shapes Claude Code writes.
func conversation() []string {
	return []string{
		cchome.PromptRow("look at the invoice rounding code", 1),
		cchome.ThinkingRow("the user wants rounding", 2),
		cchome.ReplyRow("The rounding lives in billing/round.go.\n\nIt uses float64.\nThat loses cents.\nA fifth line.\nA sixth.", 3),
		cchome.ToolUseOrderedRow("Bash", cchome.Object{"command", "go test ./...", "description", "run the tests"}, 4),
		cchome.ToolResultRow(strings.Repeat("ok  \tbilling\t0.01s\n", 50), 5),
		cchome.ToolUseRow("Edit", map[string]any{"file_path": "internal/auth/login.go", "old_string": "a", "new_string": "b"}, 6),
		cchome.ToolResultRow("edited", 7),
		cchome.ToolUseRow("Read", map[string]any{"file_path": "billing/round.go"}, 8),
		cchome.ToolResultRow("package billing", 9),
		cchome.MetaRow("<system-reminder>ignore</system-reminder>", 10),
		cchome.PromptRow("now fix it with decimal", 11),
		cchome.ReplyRow("Done: round.go now uses decimal.", 12),
	}
}

func writeRows(t *testing.T, rows []string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), cchome.RowSession+".jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(rows, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func tailOf(t *testing.T, path string, max int) []harness.Turn {
	t.Helper()
	h := New(paths.Claude{}, snapstore.Store{})
	turns, err := h.Tail(&harness.Session{Transcript: path}, max)
	if err != nil {
		t.Fatal(err)
	}
	return turns
}

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

func TestTailTurns(t *testing.T) {
	p := writeRows(t, conversation())
	all := []shown{
		{harness.TurnPrompt, "look at the invoice rounding code"},
		{harness.TurnReply, "The rounding lives in billing/round.go.\nIt uses float64.\nThat loses cents.\nA fifth line."},
		{harness.TurnTool, "Bash: go test ./..."},
		{harness.TurnTool, "Edit: internal/auth/login.go"},
		{harness.TurnTool, "Read: billing/round.go"},
		{harness.TurnPrompt, "now fix it with decimal"},
		{harness.TurnReply, "Done: round.go now uses decimal."},
	}
	if d := cmp.Diff(all, texts(tailOf(t, p, 20))); d != "" {
		t.Errorf("every turn (-want +got):\n%s", d)
	}
	// Three preview lines: the reply, the prompt, and the run of tool
	// calls before them, which counts as one line.
	if d := cmp.Diff(all[2:], texts(tailOf(t, p, 3))); d != "" {
		t.Errorf("three lines' worth (-want +got):\n%s", d)
	}
}

// A tool output of megabytes between two turns is passed over in blocks,
// and a line over the decode cap is never kept whole.
func TestTailPassesHugeLines(t *testing.T) {
	rows := []string{
		cchome.PromptRow("before the huge output", 1),
		cchome.ToolUseRow("Bash", map[string]any{"command": "cat big.log"}, 2),
		cchome.ToolResultRow(strings.Repeat("x", 6<<20), 3),
		cchome.ToolResultRow(strings.Repeat("y", 300<<10), 4),
		cchome.ReplyRow("the log is big", 5),
	}
	p := writeRows(t, rows)
	want := []shown{
		{harness.TurnPrompt, "before the huge output"},
		{harness.TurnTool, "Bash: cat big.log"},
		{harness.TurnReply, "the log is big"},
	}
	if d := cmp.Diff(want, texts(tailOf(t, p, 10))); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.ReaderAt
	n int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	c.n += int64(len(p))
	return c.r.ReadAt(p, off)
}

// A preview reads the tail, not the file: a transcript of 40 MB of older
// turns is read for its last block or two.
func TestTailReadsOnlyTheTail(t *testing.T) {
	var b strings.Builder
	old := strings.Join(conversation(), "\n") + "\n"
	for b.Len() < 40<<20 {
		b.WriteString(old)
	}
	b.WriteString(strings.Join(conversation(), "\n") + "\n")
	data := []byte(b.String())
	c := &countingReader{r: bytes.NewReader(data)}
	turns, err := tailTurns(c, int64(len(data)), 5, harness.TailBytes)
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) == 0 || turns[len(turns)-1].Text != "Done: round.go now uses decimal." {
		t.Fatalf("turns %v", texts(turns))
	}
	if c.n > 2*harness.TailBlock {
		t.Errorf("read %d bytes of %d for 5 lines of preview, want at most %d", c.n, len(data), 2*harness.TailBlock)
	}
	// The bound holds when nothing in the tail is a turn.
	var noise strings.Builder
	noise.WriteString(cchome.PromptRow("far back", 1) + "\n")
	for noise.Len() < 40<<20 {
		noise.WriteString(cchome.ToolResultRow(strings.Repeat("z", 100<<10), 2) + "\n")
	}
	data = []byte(noise.String())
	c = &countingReader{r: bytes.NewReader(data)}
	if _, err := tailTurns(c, int64(len(data)), 5, harness.TailBytes); err != nil {
		t.Fatal(err)
	}
	if c.n > harness.TailBytes {
		t.Errorf("read %d bytes, over the bound of %d", c.n, harness.TailBytes)
	}
}
