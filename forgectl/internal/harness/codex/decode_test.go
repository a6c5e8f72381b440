package codex

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"forgectl.dev/forgectl/internal/harness/codex/codextest"
	"forgectl.dev/shared/jsonl"
)

// The oracle: the line decoded by encoding/json into the types the
// listing decoded it into before it walked lines (decode.go), converted
// to decode.go's types for comparing.

type jsonPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func jsonParts(ps []jsonPart) []part {
	if ps == nil {
		return nil
	}
	out := []part{}
	for _, p := range ps {
		out = append(out, part(p))
	}
	return out
}

func oracleEvent(line []byte) (eventPayload, bool) {
	var e struct {
		Payload struct {
			Type    string `json:"type"`
			Message string `json:"message"`
			Name    string `json:"thread_name"`
			Item    *struct {
				Type    string     `json:"type"`
				Content []jsonPart `json:"content"`
			} `json:"item"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &e) != nil {
		return eventPayload{}, false
	}
	p := eventPayload{Type: e.Payload.Type, Message: e.Payload.Message, Name: e.Payload.Name}
	if it := e.Payload.Item; it != nil {
		p.Item = &eventItem{Type: it.Type, Content: jsonParts(it.Content)}
	}
	return p, true
}

type jsonTokens struct {
	Input int64 `json:"input_tokens"`
	Total int64 `json:"total_tokens"`
}

func oracleUsage(line []byte) (usagePayload, bool) {
	var e struct {
		Payload struct {
			Type string `json:"type"`
			Info *struct {
				Total *jsonTokens `json:"total_token_usage"`
				Last  *jsonTokens `json:"last_token_usage"`
			} `json:"info"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &e) != nil {
		return usagePayload{}, false
	}
	p := usagePayload{Type: e.Payload.Type}
	if in := e.Payload.Info; in != nil {
		p.Info = &tokenInfo{}
		if in.Total != nil {
			p.Info.Total = &tokenUsage{in.Total.Input, in.Total.Total}
		}
		if in.Last != nil {
			p.Info.Last = &tokenUsage{in.Last.Input, in.Last.Total}
		}
	}
	return p, true
}

func oracleModel(line []byte) (string, bool) {
	var e struct {
		Payload struct {
			Model string `json:"model"`
		} `json:"payload"`
	}
	err := json.Unmarshal(line, &e)
	return e.Payload.Model, err == nil
}

func oracleContent(line []byte) ([]part, bool) {
	var e struct {
		Payload struct {
			Content []jsonPart `json:"content"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &e) != nil {
		return nil, false
	}
	return jsonParts(e.Payload.Content), true
}

func oracleMeta(line []byte) (metaPayload, bool) {
	var e struct {
		Payload struct {
			ID           string          `json:"id"`
			Timestamp    string          `json:"timestamp"`
			Cwd          string          `json:"cwd"`
			Originator   string          `json:"originator"`
			CLIVersion   string          `json:"cli_version"`
			Source       json.RawMessage `json:"source"`
			ThreadSource string          `json:"thread_source"`
			ForkedFromID string          `json:"forked_from_id"`
			ParentThread string          `json:"parent_thread_id"`
			HistoryMode  string          `json:"history_mode"`
			HistoryBase  *struct {
				ThreadID string `json:"thread_id"`
			} `json:"history_base"`
			Git *struct {
				Branch string `json:"branch"`
			} `json:"git"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &e) != nil {
		return metaPayload{}, false
	}
	p := &e.Payload
	m := metaPayload{ID: p.ID, Timestamp: p.Timestamp, Cwd: p.Cwd, Originator: p.Originator, CLIVersion: p.CLIVersion,
		Source: p.Source, ThreadSource: p.ThreadSource, ForkedFromID: p.ForkedFromID, ParentThread: p.ParentThread,
		HistoryMode: p.HistoryMode}
	if p.HistoryBase != nil {
		m.HistoryBase = &threadRef{p.HistoryBase.ThreadID}
	}
	if p.Git != nil {
		m.Git = &gitInfo{p.Git.Branch}
	}
	return m, true
}

func oracleHistory(line []byte) (string, int64, bool) {
	var e struct {
		ID string `json:"session_id"`
		Ts int64  `json:"ts"`
	}
	err := json.Unmarshal(line, &e)
	return e.ID, e.Ts, err == nil
}

func oracleName(line []byte) (string, string, bool) {
	var e struct {
		ID   string `json:"id"`
		Name string `json:"thread_name"`
	}
	err := json.Unmarshal(line, &e)
	return e.ID, e.Name, err == nil
}

// sameDecoding checks each walk against its oracle on one line.
func sameDecoding(t *testing.T, line []byte) {
	t.Helper()
	check := func(what string, got any, ok bool, want any, wok bool) {
		t.Helper()
		if ok != wok || ok && !reflect.DeepEqual(got, want) {
			t.Errorf("%s(%.300q):\nwalk     %v %#v\nencoding/json %v %#v", what, line, ok, got, wok, want)
		}
	}
	{
		got, ok := decodeEvent(line)
		want, wok := oracleEvent(line)
		check("event", got, ok, want, wok)
	}
	{
		got, ok := decodeUsage(line)
		want, wok := oracleUsage(line)
		check("usage", got, ok, want, wok)
	}
	{
		got, ok := decodeModel(line)
		want, wok := oracleModel(line)
		check("model", got, ok, want, wok)
	}
	{
		got, ok := decodeContent(line)
		want, wok := oracleContent(line)
		check("content", got, ok, want, wok)
	}
	{
		got, ok := decodeMeta(line)
		want, wok := oracleMeta(line)
		if len(got.Source) == 0 && len(want.Source) == 0 {
			got.Source, want.Source = nil, nil
		}
		check("meta", got, ok, want, wok)
	}
	{
		id, ts, ok := decodeHistory(line)
		wid, wts, wok := oracleHistory(line)
		check("history", [2]any{id, ts}, ok, [2]any{wid, wts}, wok)
	}
	{
		id, name, ok := decodeName(line)
		wid, wname, wok := oracleName(line)
		check("name", [2]string{id, name}, ok, [2]string{wid, wname}, wok)
	}
	if got, want := jsonl.Valid(line), json.Valid(line); got != want {
		t.Errorf("Valid(%.300q) = %v, json.Valid %v", line, got, want)
	}
}

// edgeLines are the shapes a rollout line could take that the walk must
// decode as encoding/json does: keys in other cases, members given
// twice, nulls, values of the wrong type, numbers an int64 does not take.
var edgeLines = []string{
	`{"type":"event_msg","payload":{"type":"user_message","message":"hi"}}`,
	`{"type":"event_msg","payload":{"TYPE":"user_message","Message":"hi","THREAD_NAME":"n"}}`,
	`{"type":"event_msg","payload":{"type":"user_message","meſſage":"long s","\u0074ype":"escaped key"}}`,
	`{"type":"event_msg","payload":{"type":"user_message","message":null}}`,
	`{"type":"event_msg","payload":{"type":"user_message","message":"a","message":null}}`,
	`{"type":"event_msg","payload":{"type":"user_message","message":"a","message":"b"}}`,
	`{"type":"event_msg","payload":{"type":"user_message","message":5}}`,
	`{"type":"event_msg","payload":{"type":"user_message","message":["x"]}}`,
	`{"type":"event_msg","payload":{"type":"user_message","other":5,"message":"x"}}`,
	`{"type":"event_msg","payload":null}`,
	`{"type":"event_msg","payload":"x"}`,
	`{"type":"event_msg","payload":[1]}`,
	`{"type":"event_msg","payload":{"type":"a"},"payload":{"message":"m"}}`,
	`["type","payload"]`,
	`null`,
	`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}}`,
	`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","content":[{"type":"text","text":"a"},{"type":"x","text":"b"}],"content":[{"type":"y"}]}}}`,
	`{"type":"event_msg","payload":{"type":"item_completed","item":{"content":[{"text":"a"},{"text":"b"}],"content":[{"type":"y"}],"content":[null,{"type":"z"}]}}}`,
	`{"type":"event_msg","payload":{"type":"item_completed","item":{"content":[{"text":"a"}],"content":[]}}}`,
	`{"type":"event_msg","payload":{"type":"item_completed","item":{"content":[{"text":"a"}],"content":null}}}`,
	`{"type":"event_msg","payload":{"type":"item_completed","item":{"content":[{"text":"a"}]},"item":{"type":"T"}}}`,
	`{"type":"event_msg","payload":{"type":"item_completed","item":{"content":[{"text":"a"}]},"item":null}}`,
	`{"type":"event_msg","payload":{"type":"item_completed","item":{"content":["a"]}}}`,
	`{"type":"event_msg","payload":{"type":"item_completed","item":{"content":{"a":1}}}}`,
	`{"type":"event_msg","payload":{"type":"item_completed","item":"x"}}`,
	`{"type":"event_msg","payload":{"type":"item_completed","item":{"content":[{"text":"a\ud800\u00e9 \ud83d\ude00"}]}}}`,
	"{\"type\":\"event_msg\",\"payload\":{\"type\":\"user_message\",\"message\":\"bad \xff utf-8\"}}",
	"{\"type\":\"event_msg\",\"payload\":{\"type\":\"user_message\",\"message\":\"ctl \x01\"}}",
	`{"type":"event_msg","payload":{"type":"user_message","message":"x"}`,
	`{"type":"event_msg","payload":{"type":"user_message","message":"x"}}}`,
	` {"type" : "event_msg" , "payload" : { "type" : "agent_message" , "message" : "x" } } `,
	`{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":5,"total_tokens":9},"last_token_usage":{"input_tokens":3}}}}`,
	`{"type":"event_msg","payload":{"type":"token_count","info":null}}`,
	`{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":1.5}}}}`,
	`{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":1e3}}}}`,
	`{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":-0}}}}`,
	`{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":99999999999999999999}}}}`,
	`{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":"5"}}}}`,
	`{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":5,"input_tokens":null}}}}`,
	`{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":5},"last_token_usage":{"total_tokens":7}}}}`,
	`{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":5},"last_token_usage":null}}}`,
	`{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":true}}}`,
	`{"type":"event_msg","payload":{"type":"token_count","info":[]}}`,
	`{"type":"turn_context","payload":{"model":"gpt-5","Model":"gpt-6"}}`,
	`{"type":"turn_context","payload":{"model":false}}`,
	`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"},{"type":5}]}}`,
	`{"type":"session_meta","payload":{"id":"t1","source":"cli","git":{"branch":"main"},"history_base":{"thread_id":"t0"}}}`,
	`{"type":"session_meta","payload":{"id":"t1","source":null,"git":null,"history_base":null}}`,
	`{"type":"session_meta","payload":{"id":"t1","source":{"subagent":{"thread_spawn":{"parent_thread_id":"p"}}},"SOURCE":7}}`,
	`{"type":"session_meta","payload":{"id":"t1","git":{"branch":"a"},"git":{"commit":"c"},"history_base":{"thread_id":"x"},"history_base":{}}}`,
	`{"type":"session_meta","payload":{"id":"t1","git":"main"}}`,
	`{"type":"session_meta","payload":{"id":7}}`,
	`{"type":"session_meta","payload":{"id":"t1","cwd":"/w","base_instructions":{"text":"You are \"Codex\".\n"}}}`,
}

// fixtureLines are the lines of the real rollouts in testdata and of the
// ones codextest writes.
func fixtureLines(t testing.TB) [][]byte {
	var lines [][]byte
	files, _ := filepath.Glob("testdata/*/*.jsonl")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, bytes.Split(b, []byte("\n"))...)
	}
	if len(files) == 0 {
		t.Fatal("no rollouts in testdata")
	}
	sub := pmeta(idTUI, t0)
	sub.Source = map[string]any{"subagent": map[string]any{"thread_spawn": map[string]any{"parent_thread_id": "p", "depth": 1}}}
	sub.BaseThread, sub.Branch, sub.ThreadSource = idTUI, "main", "subagent"
	generated := bytes.Join([][]byte{
		codextest.MetaLine(pmeta(idTUI, t0)), codextest.MetaLine(sub),
		codextest.User(t0, 1, "hello \"there\"\n\u00e9"), codextest.User(t0, -1, "legacy"),
		codextest.Agent(t0, 2, "reply"), codextest.Agent(t0, -1, "legacy reply"),
		codextest.Tool(t0, 3, "ls", "out", "thinking"), codextest.TurnContext(t0, 4, "/w"),
		codextest.ThreadNameEvent(t0, 5, "name"), codextest.TokenCount(t0, 6, 100, 50, 10, 1000),
		codextest.TokenCountNull(t0, 7), codextest.ResponseUser(t0, 8, "typed"),
		codextest.IndexLine(idTUI, "a name", t0), codextest.HistoryLine(idTUI, t0, "typed"),
		[]byte(`{"session_id":"s","ts":1.5}` + "\n" + `{"session_id":"s","ts":null,"SESSION_ID":"t","Ts":-9223372036854775808}` + "\n"),
		[]byte(`{"id":"s","thread_name":7}` + "\n" + `{"ID":"s","Thread_Name":"n","id":null}` + "\n"),
	}, nil)
	lines = append(lines, bytes.Split(generated, []byte("\n"))...)
	for _, l := range edgeLines {
		lines = append(lines, []byte(l))
	}
	return lines
}

// TestDecodeMatchesEncodingJSON checks the walks against encoding/json on
// the fixtures, on the edge cases, and on each line cut short.
func TestDecodeMatchesEncodingJSON(t *testing.T) {
	n := 0
	for _, line := range fixtureLines(t) {
		sameDecoding(t, line)
		for _, cut := range []int{len(line) / 2, len(line) - 1, len(line) - 2} {
			if cut > 0 {
				sameDecoding(t, line[:cut])
			}
		}
		n++
	}
	if n < 50 {
		t.Errorf("only %d lines", n)
	}
}

func FuzzDecode(f *testing.F) {
	for _, line := range fixtureLines(f) {
		if len(line) > 4<<10 {
			// The 22 KB session_meta lines as the fuzzer's seeds would
			// slow every run: the same shape, with a short prompt.
			line = []byte(strings.Replace(string(line), strings.Repeat("You are Codex. ", 100), "", -1))
		}
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		sameDecoding(t, line)
	})
}
