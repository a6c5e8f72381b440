package transcript

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"forgectl.dev/shared/fsutil"
	"github.com/google/go-cmp/cmp"
)

// reply is an assistant row as 2.1.333 writes it: the response's id,
// model and usage in message, one row per content block.
func reply(id, model string, in, cr, cc, out, m5, h1 int64, at string) string {
	return fmt.Sprintf(`{"parentUuid":"u1","isSidechain":false,"message":{"model":%q,"id":%q,"type":"message","role":"assistant","content":[{"type":"text","text":"done: \"usage\":{\"input_tokens\":999}"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"cache_creation":{"ephemeral_5m_input_tokens":%d,"ephemeral_1h_input_tokens":%d},"output_tokens":%d,"service_tier":"standard"}},"requestId":"req_1","type":"assistant","uuid":"a-%s","timestamp":%q,"entrypoint":"cli",`,
		model, id, in, cc, cr, m5, h1, out, id, at) + env
}

func TestUsageSumsResponsesOnce(t *testing.T) {
	p := write(t,
		nl(user),
		// One response written as two rows (a text block, then a tool
		// call): counted once, with its last row's usage.
		nl(reply("msg_1", "claude-opus-4-5", 10, 1000, 200, 5, 0, 200, "2026-12-01T10:00:00Z")),
		nl(reply("msg_1", "claude-opus-4-5", 10, 1000, 200, 40, 0, 200, "2026-12-01T10:00:01Z")),
		nl(tool),
		nl(reply("msg_2", "claude-opus-4-5", 3, 1200, 50, 7, 50, 0, "2026-12-01T10:00:05.250Z")),
		// A synthetic reply (an interruption's notice) is no response.
		nl(`{"parentUuid":"a","isSidechain":false,"message":{"model":"<synthetic>","id":"x","type":"message","role":"assistant","content":[{"type":"text","text":"No response requested."}],"usage":{"input_tokens":0,"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}},"type":"assistant","uuid":"s","timestamp":"2026-12-01T11:00:00Z",`+env),
	)
	got, err := Scan(p)
	if err != nil {
		t.Fatal(err)
	}
	want := Usage{
		Context: 3 + 1200 + 50, Output: 7, Model: "claude-opus-4-5",
		ReplyAtMs: time.Date(2026, 12, 1, 10, 0, 5, 250e6, time.UTC).UnixMilli(), TTL: "5m",
		Used: 10 + 1000 + 200 + 40, MsgID: "msg_2", MsgTokens: 3 + 1200 + 50 + 7,
	}
	if d := cmp.Diff(want, got.Usage); d != "" {
		t.Fatalf("usage (-want +got):\n%s", d)
	}
	if n := got.Usage.TokensUsed(); n != 1250+1260 {
		t.Errorf("TokensUsed = %d, want %d", n, 1250+1260)
	}
}

func TestUsageAppendedEqualsWhole(t *testing.T) {
	first := []string{nl(user), nl(reply("msg_1", "claude-sonnet-4-6", 10, 1000, 200, 5, 200, 0, "2026-12-01T10:00:00Z"))}
	rest := []string{
		nl(reply("msg_1", "claude-sonnet-4-6", 10, 1000, 200, 40, 200, 0, "2026-12-01T10:00:01Z")),
		nl(reply("msg_2", "claude-sonnet-4-6", 1, 2000, 0, 9, 0, 0, "2026-12-01T10:00:09Z")),
	}
	p := write(t, first...)
	var inc Summary
	if err := inc.Update(p); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rest {
		f.WriteString(r)
	}
	f.Close()
	if err := inc.Update(p); err != nil {
		t.Fatal(err)
	}
	whole, err := Scan(p)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(whole.Usage, inc.Usage); d != "" {
		t.Fatalf("appended (-whole +appended):\n%s", d)
	}
	if inc.Usage.TokensUsed() != 1250+2010 || inc.Usage.TTL != "" || inc.Usage.Context != 2001 {
		t.Fatalf("usage %+v", inc.Usage)
	}
}

func TestUsageAfterCompaction(t *testing.T) {
	boundary := `{"parentUuid":null,"logicalParentUuid":"a","isSidechain":false,"type":"system","subtype":"compact_boundary","content":"Conversation compacted","isMeta":false,"timestamp":"2026-12-01T10:01:00Z","uuid":"c","level":"info","compactMetadata":{"trigger":"manual","preTokens":1250,"postTokens":4321},` + env
	p := write(t, nl(user), nl(reply("msg_1", "claude-opus-4-5", 10, 1000, 200, 5, 0, 200, "2026-12-01T10:00:00Z")), nl(boundary))
	got, err := Scan(p)
	if err != nil {
		t.Fatal(err)
	}
	if u := got.Usage; !u.Compacted || u.Context != 4321 || u.TokensUsed() != 1215 {
		t.Fatalf("after a compaction: %+v", u)
	}
	p = write(t, nl(user), nl(boundary), nl(reply("msg_2", "claude-opus-4-5", 1, 0, 4000, 5, 4000, 0, "2026-12-01T10:02:00Z")))
	if got, err = Scan(p); err != nil {
		t.Fatal(err)
	}
	if u := got.Usage; u.Compacted || u.Context != 4001 {
		t.Fatalf("a metered reply after the compaction: %+v", u)
	}
}

// A row laid out otherwise than Claude Code writes it (the usage far from
// the end, the model after the content) reads the same, member by member.
func TestUsageOfAnyLayout(t *testing.T) {
	usual := reply("msg_1", "claude-opus-4-5", 10, 1000, 200, 5, 0, 200, "2026-12-01T10:00:00Z")
	late := `{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("long reply ", 4000) + `"}],"usage":{"output_tokens":5,"input_tokens":10,"cache_read_input_tokens":1000,"cache_creation_input_tokens":200,"cache_creation":{"ephemeral_1h_input_tokens":200}},"model":"claude-opus-4-5"},"timestamp":"2026-12-01T10:00:00Z","extra":"` + strings.Repeat("x", 20<<10) + `",` + env
	var a, b Summary
	if err := a.ReadFrom(nil, open(t, write(t, nl(user), nl(usual)))); err != nil {
		t.Fatal(err)
	}
	if err := b.ReadFrom(nil, open(t, write(t, nl(user), nl(late)))); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(a.Usage, b.Usage); d != "" || a.Usage.Context != 1210 || a.Usage.TTL != "1h" {
		t.Fatalf("usual %+v; (-usual +late):\n%s", a.Usage, d)
	}
}

func open(t *testing.T, p string) *os.File {
	t.Helper()
	f, err := fsutil.OpenRegular(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// The reply's time is the row's envelope timestamp wherever the envelope
// scan's window finds it: before the message too, as the member-by-member
// walk reads it.
func TestUsageTimeFromTheEnvelope(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	early := `{"type":"assistant","timestamp":"2026-12-01T10:00:00Z","message":{"id":"msg_1","model":"claude-opus-4-5","type":"message","role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("reply ", 500) + `"}],"usage":{"output_tokens":5,"input_tokens":10}},` + env
	var s Summary
	if err := s.ReadFrom(nil, open(t, write(t, nl(user), nl(early)))); err != nil {
		t.Fatal(err)
	}
	if s.Usage.ReplyAtMs != at.UnixMilli() {
		t.Fatalf("reply at %d, want %d (the row's timestamp)", s.Usage.ReplyAtMs, at.UnixMilli())
	}
	var walked Usage
	walked.assistantWalk([]byte(early))
	if walked.ReplyAtMs != s.Usage.ReplyAtMs {
		t.Fatalf("the walk reads %d, the fast read %d", walked.ReplyAtMs, s.Usage.ReplyAtMs)
	}
	// Further in than the window: the timestamp, then a 6 KB message, the
	// usage, and 2.5 KB of envelope without one. The last 16 KB hold it.
	far := `{"type":"assistant","timestamp":"2026-12-01T10:00:00Z","message":{"id":"msg_1","model":"claude-opus-4-5","type":"message","role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("reply ", 1000) + `"}],"usage":{"output_tokens":5,"input_tokens":10}},"note":"` + strings.Repeat("n", 2500) + `",` + env
	var f Summary
	if err := f.ReadFrom(nil, open(t, write(t, nl(user), nl(far)))); err != nil {
		t.Fatal(err)
	}
	if f.Usage.ReplyAtMs != at.UnixMilli() {
		t.Fatalf("a timestamp 8 KB from the end: reply at %d, want %d", f.Usage.ReplyAtMs, at.UnixMilli())
	}
}

// FuzzUsageIsTheTailsLast holds the usage the fast read takes (from the
// envelope scan's window, else from the last 16 KB) to its definition:
// the last usage object of the row's last 2 KB, else of its last 16 KB.
// For a row that is JSON: in bytes that are not, the scan, which looks
// from every quote, and the search, which looks past each match, can read
// a stray quote differently.
func FuzzUsageIsTheTailsLast(f *testing.F) {
	usage := `"usage":{"input_tokens":1}`
	f.Add(`{"message":{`, 0, usage+`},"timestamp":"t"}`)
	f.Add(`{"message":{"content":"`, 1800, `\"usage\":{\"k\":1}"`+`,`+usage+`}}`)
	f.Add(`{"message":{`+usage+`,"x":"`, 3000, `"},"y":1}`)
	f.Add(`{"message":{`+usage+`,"x":"`, 5000, `"},"y":1}`)
	f.Add(`{"message":{`+usage+`,"x":"`, 20000, `"}}`)
	f.Add(`{"a":`+usage+`,"x":"`, 2040, `",`+usage+`}`)
	f.Add(`{"usage":"no","x":"`, 4090, `","usage" : {"k":2}}`)
	f.Add(`{"u":`+`{`+usage+`},"x":"`, 1000, `","v":{`+usage+`}}`)
	f.Fuzz(func(t *testing.T, pre string, pad int, post string) {
		if pad < 0 || pad > 40000 {
			return
		}
		line := []byte(pre + strings.Repeat("x", pad) + post)
		if !json.Valid(line) {
			return
		}
		in := func(tail []byte, at int) int {
			if at < 0 {
				return -1
			}
			return len(line) - len(tail) + at
		}
		want := -1
		for _, n := range [...]int{2 << 10, usageTail} {
			tail := line[max(0, len(line)-n):]
			if want = in(tail, lastUsage(tail)); want >= 0 || len(tail) == len(line) {
				break
			}
		}
		window := line[max(0, len(line)-envelopeWindow):]
		var env envelope
		env.scan(window)
		got := in(window, env.at[keyUsage])
		if got < 0 && len(line) > len(window) {
			tail := line[max(0, len(line)-usageTail):]
			got = in(tail, lastUsage(tail))
		}
		if got != want {
			t.Fatalf("usage at %d, want %d (line of %d bytes)", got, want, len(line))
		}
	})
}
