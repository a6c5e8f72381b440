package transcript

import (
	"os"
	"strings"
	"testing"
)

// BenchmarkScan reads a transcript shaped as Claude Code writes them (a
// prompt, replies, tool calls and results with long outputs), the cold
// listing's work per file: the envelope scan of every row's tail is most
// of it. Compare runs with benchstat; never a timed assertion.
func BenchmarkScan(b *testing.B) {
	out := strings.Repeat(`line of tool output with \"quotes\" and paths /home/alice/src/x.go:12 `, 200)
	rows := []string{nl(user), nl(asst)}
	for i := 0; i < 200; i++ {
		rows = append(rows,
			nl(strings.Replace(asst, `hello \"cwd\":\"/fake\"`, "working on it, step "+strings.Repeat("x", i%50), 1)),
			nl(strings.Replace(tool, "Task #1 created", out[:len(out)-i*7], 1)))
	}
	p := write(b, rows...)
	st, err := os.Stat(p)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ResetTimer()
	for b.Loop() {
		if _, err := Scan(p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEnvelope is the envelope scan alone, over the tail windows of
// rows shaped as Claude Code writes them.
func BenchmarkEnvelope(b *testing.B) {
	out := strings.Repeat(`line of tool output with \"quotes\" and paths /home/alice/src/x.go:12 `, 200)
	var tails [][]byte
	var n int64
	for _, r := range []string{user, asst, tool, strings.Replace(tool, "Task #1 created", out, 1), userRow(bid, "u1", "text", forked(pid, "u1"))} {
		t := []byte(r)
		if len(t) > envelopeWindow {
			t = t[len(t)-envelopeWindow:]
		}
		tails = append(tails, t)
		n += int64(len(t))
	}
	b.SetBytes(n)
	for b.Loop() {
		for _, t := range tails {
			var e envelope
			e.scan(t)
		}
	}
}

// BenchmarkScanReplies is BenchmarkScan with replies as Claude Code writes
// them: each with its model, id and usage, some with a long text or a
// tool call whose input is a file written whole, which the usage read
// must not walk.
func BenchmarkScanReplies(b *testing.B) {
	out := strings.Repeat(`line of tool output with \"quotes\" and paths /home/alice/src/x.go:12 `, 200)
	rows := []string{nl(user)}
	for i := 0; i < 200; i++ {
		r := reply("msg_"+strings.Repeat("x", i%7), "claude-opus-4-5", 3, 40000, 200, 90, 200, 0, "2026-12-01T10:00:00Z")
		if i%4 == 0 {
			r = strings.Replace(r, `done: \"usage\":{\"input_tokens\":999}`, out, 1)
		}
		rows = append(rows, nl(r), nl(strings.Replace(tool, "Task #1 created", out[:len(out)-i*7], 1)))
	}
	p := write(b, rows...)
	st, err := os.Stat(p)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ResetTimer()
	for b.Loop() {
		if _, err := Scan(p); err != nil {
			b.Fatal(err)
		}
	}
}
