package render

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"

	"forgectl.dev/forgectl/internal/harness"
)

// Conversation is the preview's view of a session's last turns (oldest
// first, as Harness.Tail gives them), newest at the bottom, in at most
// height lines of width columns: each prompt after "> ", the opening
// lines of each reply indented, a tool call as one line after "· ", and
// a run of tool calls folded into its count and its last call. Turns that
// do not fit are left out from the top, whole; the newest is cut at the
// bottom when it alone is too tall. It is plain text: marking it up is
// the caller's.
func Conversation(turns []harness.Turn, width, height int) string {
	if height <= 0 || len(turns) == 0 {
		return ""
	}
	var blocks [][]string
	for i := 0; i < len(turns); {
		x := turns[i]
		var lines []string
		switch x.Kind {
		case harness.TurnPrompt:
			lines = wrapHanging("> ", "  ", Clean(x.Text), width)
			i++
		case harness.TurnReply:
			for _, l := range strings.Split(x.Text, "\n") {
				lines = append(lines, wrapHanging("  ", "  ", Clean(l), width)...)
			}
			i++
		case harness.TurnTool:
			j := i
			for j < len(turns) && turns[j].Kind == harness.TurnTool {
				j++
			}
			text := x.Text
			if n := j - i; n > 1 {
				text = fmt.Sprintf("%d tool calls, the last %s", n, turns[j-1].Text)
			}
			lines = wrapHanging("  · ", "    ", Clean(text), width)
			i = j
		default:
			i++
			continue
		}
		blocks = append(blocks, lines)
	}
	first, used := len(blocks), 0
	for first > 0 && used+len(blocks[first-1]) <= height {
		first--
		used += len(blocks[first])
	}
	var out []string
	if first == len(blocks) {
		out = blocks[len(blocks)-1][:height] // the newest alone is too tall
	}
	for _, b := range blocks[first:] {
		out = append(out, b...)
	}
	return strings.Join(out, "\n")
}

// wrapHanging cuts s into lines of at most width display columns (a
// wide rune counts two, a combining mark none), the first after lead, the
// rest after indent, at the last space of a line when there is one in its
// second half, else where the room ends; a width under 20 cuts nothing.
func wrapHanging(lead, indent, s string, width int) []string {
	if width < 20 || Width(lead)+Width(s) <= width {
		return []string{lead + s}
	}
	var out []string
	line := []byte(lead)
	start := len(lead) // where the line's own text starts
	used := Width(lead)
	for _, r := range s {
		w := runewidth.RuneWidth(r)
		if used+w > width && len(line) > start && w > 0 {
			next := []byte(indent)
			if sp := bytes.LastIndexByte(line[start:], ' '); sp > 0 && Width(string(line[start+sp+1:])) < (width-used)+width/2 {
				next = append(next, line[start+sp+1:]...)
				line = line[:start+sp]
			}
			out = append(out, string(line))
			line, start = next, len(indent)
			used = Width(string(line))
		}
		line = utf8.AppendRune(line, r)
		used += w
	}
	return append(out, string(line))
}

// Prices gives the configured prices of a model, in USD per million
// tokens: a cache write and a cache read (0 when not configured); ok is
// false when none are.
type Prices func(model string) (write, read float64, ok bool)

// CostLine is what resuming s would cost, on one line: "182k tokens ·
// cache cold (3 h) · opus", with "· ≈ $1.14" when prices say (the
// context at the cache-write price when the cache is cold, at the
// cache-read price when warm); "" when the session has no response.
func CostLine(s *harness.Session, now time.Time, prices Prices) string {
	if s.ContextTokens == 0 && s.Model == "" {
		return ""
	}
	parts := []string{Tokens(s.ContextTokens) + " tokens", CacheState(s, now)}
	if s.Model != "" {
		parts = append(parts, ModelName(s.Model))
	}
	if usd, ok := Estimate(s, prices); ok {
		parts = append(parts, "≈ $"+strconv.FormatFloat(usd, 'f', 2, 64))
	}
	return strings.Join(parts, " · ")
}

// Estimate is the dollar cost of the context a resume of s sends again,
// by the configured prices: at the cache-write price when the cache is
// cold, at the cache-read price when warm. ok is false without a price
// for it.
func Estimate(s *harness.Session, prices Prices) (float64, bool) {
	if prices == nil || s.Model == "" {
		return 0, false
	}
	write, read, ok := prices(s.Model)
	price := write
	if !s.CacheExpired {
		price = read
	}
	if !ok || price <= 0 {
		return 0, false
	}
	return float64(s.ContextTokens) * price / 1e6, true
}

// CacheState is "cache cold (3 h)" or "cache warm (2 min)": whether the
// prompt cache has likely expired, and the time from the newest reply to
// now.
func CacheState(s *harness.Session, now time.Time) string {
	state := "cache warm"
	if s.CacheExpired {
		state = "cache cold"
	}
	if s.LastReplyAt.IsZero() {
		return state
	}
	return state + " (" + Span(now.Sub(s.LastReplyAt)) + ")"
}

// Span is a duration as a person says it: "40 s", "2 min", "3 h", "5 d".
func Span(d time.Duration) string {
	switch {
	case d < time.Minute:
		return strconv.Itoa(int(max(d, 0)/time.Second)) + " s"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + " min"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + " h"
	}
	return strconv.Itoa(int(d/(24*time.Hour))) + " d"
}

// Tokens is a token count in a few characters: 950, 182k, 1.2M.
func Tokens(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10)
	case n < 1_000_000:
		return strconv.FormatInt((n+500)/1000, 10) + "k"
	}
	return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + "M"
}

// ModelName is a model's family when its id names one ("opus" for
// claude-opus-4-5-20251101), else the id.
func ModelName(model string) string {
	for _, f := range []string{"opus", "sonnet", "haiku"} {
		if strings.Contains(model, f) {
			return f
		}
	}
	return model
}
