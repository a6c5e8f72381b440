package claude

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"forgectl.dev/forgectl/internal/harness"
	"forgectl.dev/shared/cchome"
	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/paths"
	"forgectl.dev/shared/snapstore"
	"forgectl.dev/shared/transcript"
)

// The picker's preview of a 100 MB transcript, warm (the file in the page
// cache, as after the listing read it), against reading the file whole:
// tools/benchpreview runs both for `make bench` and reports the figures.
// Never a timed assertion.

// previewLines is about what a preview pane of a 40-line terminal leaves
// for the conversation under the header.
const previewLines = 28

// bigTranscript writes a transcript of at least 100 MB in the shapes
// Claude Code writes: exchanges of a prompt, thinking, a reply and tool
// calls whose outputs run from a line to hundreds of kilobytes, with a
// megabyte-long output every so often.
func bigTranscript(b *testing.B) string {
	p := filepath.Join(b.TempDir(), cchome.RowSession+".jsonl")
	f, err := fsutil.OpenAppend(p, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	out := strings.Repeat("ok  \tforgectl.dev/x/pkg\t0.012s  \"quoted\" path/to/file.go:12\n", 4000) // ~260 KB
	var n int64
	for k := 0; n < 100<<20; k++ {
		rows := []string{
			cchome.PromptRow(fmt.Sprintf("step %d: make the rounding exact and run the tests", k), 1),
			cchome.ThinkingRow(strings.Repeat("thinking about it ", 60), 2),
			cchome.ReplyRow(fmt.Sprintf("Step %d.\nThe rounding lives in billing/round.go.\n%s", k, strings.Repeat("More words of the reply. ", 40)), 3),
			cchome.ToolUseOrderedRow("Read", cchome.Object{"file_path", "billing/round.go"}, 4),
			cchome.ToolResultRow(out[:(k%7+1)*9000], 5),
			cchome.ToolUseOrderedRow("Edit", cchome.Object{"file_path", "billing/round.go", "old_string", "float64", "new_string", "decimal.Decimal"}, 6),
			cchome.ToolResultRow("The file billing/round.go has been updated.", 7),
			cchome.ToolUseOrderedRow("Bash", cchome.Object{"command", "go test ./...", "description", "run the tests"}, 8),
			cchome.ToolResultRow(out[:len(out)/(k%5+1)], 9),
		}
		if k%40 == 39 {
			rows = append(rows, cchome.ToolResultRow(strings.Repeat(out, 4), 10)) // a megabyte of output
		}
		for _, r := range rows {
			m, _ := io.WriteString(w, r+"\n")
			n += int64(m)
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return p
}

func BenchmarkTail100MB(b *testing.B) {
	p := bigTranscript(b)
	h := New(paths.Claude{}, snapstore.Store{})
	s := &harness.Session{Transcript: p}
	turns, err := h.Tail(s, previewLines) // warm, and a check that it finds turns
	if err != nil || len(turns) < 10 {
		b.Fatalf("%d turns, %v", len(turns), err)
	}
	// How much of the file one preview reads.
	f, err := fsutil.OpenRegular(p)
	if err != nil {
		b.Fatal(err)
	}
	st, _ := f.Stat()
	c := &countingReader{r: f}
	if _, err := tailTurns(c, st.Size(), previewLines, harness.TailBytes); err != nil {
		b.Fatal(err)
	}
	f.Close()
	b.ResetTimer()
	for b.Loop() {
		if _, err := h.Tail(s, previewLines); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(st.Size())/(1<<20), "file-MB")
	b.ReportMetric(float64(c.n)/(1<<20), "read-MB")
}

// BenchmarkScanWhole100MB summarises the same file whole, as a first
// listing does: what a preview that parsed the transcript would cost.
func BenchmarkScanWhole100MB(b *testing.B) {
	p := bigTranscript(b)
	for b.Loop() {
		if _, err := transcript.Scan(p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadWhole100MB reads the same file whole, what a preview that
// parsed the transcript would cost at least: the baseline.
func BenchmarkReadWhole100MB(b *testing.B) {
	p := bigTranscript(b)
	buf := make([]byte, 1<<20)
	for b.Loop() {
		f, err := fsutil.OpenRegular(p)
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := f.Read(buf); err != nil {
				break
			}
		}
		f.Close()
	}
}
