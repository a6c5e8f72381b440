package gencc_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"forgectl.dev/tools/gencc"
)

// The verifier below re-derives every manifest fact from the files on disk,
// the way a reader of a real Claude Code home would, without using the
// generator's internals.

type derived struct {
	lines, bad        []int
	lineCount         int
	maxLine           int64
	cwd, sid          string
	entrypoint        string
	sidechain         bool
	branch, version   string
	branches          []string
	customTitle       string
	customTitleOff    int64
	agentName         string
	aiTitle, summary  string
	tag               string
	firstPrompt       string
	lastPrompt        string
	lastPromptLeaf    string
	lastUUID          string
	prompts           []string
	lastTimestamp     string
	endsWithNewline   bool
	badKeyOrder       []int
	wrongCwdOrSession []int
}

var convTypes = map[string]bool{"user": true, "assistant": true, "system": true, "attachment": true}

func deriveTranscript(t *testing.T, data []byte) derived {
	t.Helper()
	d := derived{customTitleOff: -1}
	d.endsWithNewline = len(data) > 0 && data[len(data)-1] == '\n'
	var off int64
	for n := 1; len(data) > 0; n++ {
		line := data
		i := bytes.IndexByte(data, '\n')
		if i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		lineOff := off
		off += int64(len(line)) + 1
		d.lineCount++
		d.maxLine = max(d.maxLine, int64(len(line)))
		var row map[string]any
		if err := json.Unmarshal(line, &row); err != nil {
			d.bad = append(d.bad, n)
			continue
		}
		typ, _ := row["type"].(string)
		str := func(k string) string { s, _ := row[k].(string); return s }
		if convTypes[typ] {
			if !bytes.HasSuffix(withoutLineage(line), envelopeTail(row)) {
				d.badKeyOrder = append(d.badKeyOrder, n)
			}
			if d.cwd == "" {
				d.cwd, d.sid, d.entrypoint = str("cwd"), str("sessionId"), str("entrypoint")
				d.sidechain, _ = row["isSidechain"].(bool)
			} else if str("cwd") != d.cwd || str("sessionId") != d.sid {
				d.wrongCwdOrSession = append(d.wrongCwdOrSession, n)
			}
			if b := str("gitBranch"); len(d.branches) == 0 || d.branches[len(d.branches)-1] != b {
				d.branches = append(d.branches, b)
			}
			d.branch, d.version, d.lastUUID, d.lastTimestamp = str("gitBranch"), str("version"), str("uuid"), str("timestamp")
		}
		switch typ {
		case "user":
			meta, _ := row["isMeta"].(bool)
			compact, _ := row["isCompactSummary"].(bool)
			msg, _ := row["message"].(map[string]any)
			if text, ok := msg["content"].(string); ok && !meta && !compact {
				d.prompts = append(d.prompts, text)
			}
		case "custom-title":
			d.customTitle, d.customTitleOff = str("customTitle"), lineOff
		case "agent-name":
			d.agentName = str("agentName")
		case "ai-title":
			d.aiTitle = str("aiTitle")
		case "summary":
			d.summary = str("summary")
		case "tag":
			d.tag = str("tag")
		case "last-prompt":
			d.lastPrompt, d.lastPromptLeaf = str("lastPrompt"), str("leafUuid")
		}
	}
	if len(d.prompts) > 0 {
		d.firstPrompt = d.prompts[0]
	}
	return d
}

// withoutLineage drops the keys that copied rows carry after the envelope:
// a fork's requestSessionId, a branch's forkedFrom (in that order).
func withoutLineage(line []byte) []byte {
	if i := bytes.Index(line, []byte(`,"forkedFrom":{`)); i >= 0 {
		line = append(line[:i:i], '}')
	}
	if i := bytes.LastIndex(line, []byte(`,"requestSessionId":"`)); i >= 0 && bytes.IndexByte(line[i+21:], ',') < 0 {
		line = append(line[:i:i], '}')
	}
	return line
}

// envelopeTail is how a conversation row must end: the envelope's last four
// keys in Claude Code's order.
func envelopeTail(row map[string]any) []byte {
	var b bytes.Buffer
	for i, k := range []string{"cwd", "sessionId", "version", "gitBranch"} {
		if i > 0 {
			b.WriteByte(',')
		}
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.Encode(k)
		b.Truncate(b.Len() - 1)
		b.WriteByte(':')
		enc.Encode(row[k])
		b.Truncate(b.Len() - 1)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func parseTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("bad time %q: %v", s, err)
	}
	return v
}

func readJSONLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		var v map[string]any
		if err := dec.Decode(&v); errors.Is(err, io.EOF) {
			return out
		} else if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
}

type problems struct {
	t    *testing.T
	list []string
}

func (p *problems) check(ok bool, format string, args ...any) {
	if !ok {
		p.list = append(p.list, fmt.Sprintf(format, args...))
	}
}

func (p *problems) eq(what string, got, want any) {
	if diff := cmp.Diff(want, got); diff != "" {
		p.list = append(p.list, fmt.Sprintf("%s (-manifest +files):\n%s", what, diff))
	}
}

// verifyHome checks that the manifest of home matches the files in it.
func verifyHome(t *testing.T, home string) *gencc.Manifest {
	t.Helper()
	m, err := gencc.ReadManifest(home)
	if err != nil {
		t.Fatal(err)
	}
	if m.Repos == nil || m.Sessions == nil || m.Registry == nil || m.Appends == nil {
		t.Errorf("manifest has a null list: %+v", m)
	}

	// Every transcript on disk is in the manifest and vice versa.
	onDisk, err := filepath.Glob(filepath.Join(m.ConfigDir, "projects", "*", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, s := range m.Sessions {
		listed = append(listed, s.TranscriptPath)
	}
	slices.Sort(onDisk)
	slices.Sort(listed)
	if !slices.Equal(onDisk, listed) {
		t.Errorf("transcripts on disk %d, in manifest %d", len(onDisk), len(listed))
	}

	var total int64
	for _, s := range m.Sessions {
		p := &problems{t: t}
		total += s.SizeBytes
		data, err := os.ReadFile(s.TranscriptPath)
		if err != nil {
			t.Errorf("%s: %v", s.SessionID, err)
			continue
		}
		st, err := os.Stat(s.TranscriptPath)
		if err != nil {
			t.Fatal(err)
		}
		d := deriveTranscript(t, data)

		p.eq("project dir", filepath.Base(filepath.Dir(s.TranscriptPath)), gencc.EncodeProjectDir(s.Cwd))
		p.eq("project dir name", s.ProjectDir, filepath.Base(filepath.Dir(s.TranscriptPath)))
		p.eq("file name", filepath.Base(s.TranscriptPath), s.SessionID+".jsonl")
		p.eq("size", st.Size(), s.SizeBytes)
		p.eq("mtime", st.ModTime().UTC().Truncate(time.Millisecond), parseTime(t, s.Mtime))
		p.check(st.Mode().Perm() == 0o600, "mode %v", st.Mode().Perm())
		p.eq("line count", d.lineCount, s.LineCount)
		p.eq("max line", d.maxLine, s.MaxLineBytes)
		bad := d.bad
		if bad == nil {
			bad = []int{}
		}
		p.eq("bad lines", bad, s.BadLines)
		switch s.Broken {
		case "":
			p.check(len(d.bad) == 0 && d.endsWithNewline, "intact transcript has bad lines %v", d.bad)
		case "truncated":
			p.check(!d.endsWithNewline && slices.Contains(d.bad, d.lineCount), "truncated transcript does not end mid-line")
		case "garbage":
			p.check(d.endsWithNewline && len(d.bad) > 0, "garbage transcript has no bad line")
		default:
			p.check(false, "unknown broken %q", s.Broken)
		}
		p.check(len(d.badKeyOrder) == 0, "rows whose envelope does not end in cwd,sessionId,version,gitBranch: %v", d.badKeyOrder)
		p.check(len(d.wrongCwdOrSession) == 0, "rows with another cwd or sessionId: %v", d.wrongCwdOrSession)

		p.eq("cwd", d.cwd, s.Cwd)
		p.eq("session id", d.sid, s.SessionID)
		p.eq("entrypoint", d.entrypoint, s.Entrypoint)
		p.eq("sidechain", d.sidechain, s.Sidechain)
		p.eq("branch", d.branch, s.Branch)
		p.eq("branches", d.branches, s.Branches)
		p.eq("version", d.version, s.Version)
		p.eq("custom title", d.customTitle, s.CustomTitle)
		p.eq("agent name", d.agentName, s.AgentName)
		p.eq("ai title", d.aiTitle, s.AITitle)
		p.eq("summary", d.summary, s.Summary)
		p.eq("tag", d.tag, s.Tag)
		p.eq("first prompt", d.firstPrompt, s.FirstPrompt)
		p.eq("last prompt", d.lastPrompt, s.LastPrompt)
		p.eq("prompt count", len(d.prompts), s.PromptCount)
		p.eq("leaf", d.lastUUID, s.LeafUUID)
		p.eq("last timestamp", d.lastTimestamp, s.LastTimestamp)
		if s.LastPrompt != "" {
			p.eq("last-prompt leafUuid", d.lastPromptLeaf, s.LeafUUID)
		}
		p.check(!parseTime(t, s.LastTimestamp).After(parseTime(t, s.Mtime)), "last row is newer than the mtime")

		wantHidden := ""
		switch {
		case d.sidechain:
			wantHidden = "sidechain"
		case d.entrypoint == "sdk-cli":
			wantHidden = "print"
		}
		p.eq("hidden reason", wantHidden, s.HiddenReason)
		p.eq("hidden", wantHidden != "", s.Hidden)

		name, source := "", ""
		switch {
		case d.customTitle != "":
			name, source = d.customTitle, "custom_title"
		case d.agentName != "":
			name, source = d.agentName, "agent_name"
		case d.aiTitle != "":
			name, source = d.aiTitle, "ai_title"
		case d.summary != "":
			name, source = d.summary, "summary"
		}
		p.eq("name", name, s.Name)
		p.eq("name source", source, s.NameSource)
		pos := ""
		switch {
		case d.customTitleOff < 0:
		case d.customTitleOff >= s.SizeBytes-64<<10:
			pos = "tail"
		case d.customTitleOff < 64<<10:
			pos = "head"
		default:
			pos = "middle"
		}
		p.eq("title position", pos, s.TitlePosition)

		sidecar := filepath.Join(filepath.Dir(s.TranscriptPath), s.SessionID, "custom-title.json")
		if b, err := os.ReadFile(sidecar); err == nil {
			var v struct{ CustomTitle, By, At string }
			p.check(json.Unmarshal(b, &v) == nil && v.CustomTitle == s.CustomTitle && v.By == "user", "sidecar %s = %s", sidecar, b)
			p.check(s.SidecarTitle, "sidecar title present but not in manifest")
		} else {
			p.check(!s.SidecarTitle, "manifest claims a sidecar title: %v", err)
		}
		agents, _ := filepath.Glob(filepath.Join(filepath.Dir(s.TranscriptPath), s.SessionID, "subagents", "agent-*.jsonl"))
		p.eq("subagents", len(agents), s.Subagents)
		for _, a := range agents {
			for _, row := range readJSONLines(t, a) {
				p.check(row["isSidechain"] == true && row["sessionId"] == s.SessionID, "subagent row %v", row)
			}
		}

		_, err = os.Stat(s.Cwd)
		p.eq("cwd exists", err == nil, s.CwdExists)
		if s.GitToplevel != "" && s.CwdExists {
			_, err := os.Stat(filepath.Join(s.GitToplevel, ".git"))
			p.check(err == nil, "no .git in %s", s.GitToplevel)
			p.check(s.Cwd == s.GitToplevel || strings.HasPrefix(s.Cwd, s.GitToplevel+string(filepath.Separator)), "cwd outside its toplevel")
		}
		if s.GitToplevel == "" {
			p.eq("branch outside git", s.Branch, "HEAD")
			p.eq("repo outside git", s.Repo, filepath.Base(s.Cwd))
		}

		// Tasks, counted from the files.
		var counts gencc.TaskCounts
		taskDir := filepath.Join(m.ConfigDir, "tasks", s.SessionID)
		files, _ := filepath.Glob(filepath.Join(taskDir, "*.json"))
		for _, f := range files {
			var tf struct {
				ID, Subject, Status string
				Blocks, BlockedBy   []string
			}
			b, err := os.ReadFile(f)
			p.check(err == nil && json.Unmarshal(b, &tf) == nil, "task file %s", f)
			p.check(bytes.HasPrefix(b, []byte("{\n  \"id\": ")), "task file %s is not 2-space pretty-printed", f)
			p.eq("task id", tf.ID+".json", filepath.Base(f))
			p.check(tf.Blocks != nil && tf.BlockedBy != nil, "task %s has null blocks", f)
			switch tf.Status {
			case "pending":
				counts.Pending++
			case "in_progress":
				counts.InProgress++
			case "completed":
				counts.Completed++
			}
			counts.Total++
		}
		p.eq("tasks", counts, s.Tasks)
		if _, err := os.Stat(taskDir); err == nil {
			p.eq("task dir", taskDir, s.TaskDir)
		} else {
			p.eq("task dir", "", s.TaskDir)
		}
		hw := 0
		if b, err := os.ReadFile(filepath.Join(taskDir, ".highwatermark")); err == nil {
			hw, _ = strconv.Atoi(string(b))
		}
		p.eq("high watermark", hw, s.HighWatermark)

		for _, msg := range p.list {
			t.Errorf("session %s (%q): %s", s.SessionID, s.FirstPrompt, msg)
		}
	}
	if total != m.TotalBytes {
		t.Errorf("total bytes: sessions add up to %d, manifest says %d", total, m.TotalBytes)
	}

	verifyHistory(t, m)
	verifyClaudeJSON(t, m)
	for _, r := range m.Registry {
		rows := readJSONLines(t, r.Path)
		if len(rows) != 1 || rows[0]["pid"] != float64(r.PID) || rows[0]["sessionId"] != r.SessionID || rows[0]["procStart"] != r.ProcStart {
			t.Errorf("registry %s = %v, manifest %+v", r.Path, rows, r)
		}
		if m.Session(r.SessionID) == nil {
			t.Errorf("registry %s names an unknown session", r.Path)
		}
	}
	for _, rp := range m.Repos {
		head, err := os.ReadFile(filepath.Join(rp.Path, ".git", "HEAD"))
		if err != nil || string(head) != "ref: refs/heads/"+rp.HeadBranch+"\n" {
			t.Errorf("repo %s HEAD = %q, %v; want branch %s", rp.Name, head, err, rp.HeadBranch)
		}
		// HEAD must resolve to a stored commit, not an unborn branch.
		ref, err := os.ReadFile(filepath.Join(rp.Path, ".git", "refs", "heads", filepath.FromSlash(rp.HeadBranch)))
		id := strings.TrimSpace(string(ref))
		if err != nil || len(id) != 40 {
			t.Errorf("repo %s: ref %s = %q, %v", rp.Name, rp.HeadBranch, ref, err)
		} else if _, err := os.Stat(filepath.Join(rp.Path, ".git", "objects", id[:2], id[2:])); err != nil {
			t.Errorf("repo %s: HEAD commit: %v", rp.Name, err)
		}
		for _, wt := range rp.Worktrees {
			b, err := os.ReadFile(filepath.Join(wt.Path, ".git"))
			if wt.Exists != (err == nil) {
				t.Errorf("worktree %s exists=%v but .git: %v", wt.Path, wt.Exists, err)
			}
			if err == nil && !strings.HasPrefix(string(b), "gitdir: "+filepath.Join(rp.Path, ".git", "worktrees")) {
				t.Errorf("worktree %s .git = %q", wt.Path, b)
			}
		}
	}
	return m
}

func verifyHistory(t *testing.T, m *gencc.Manifest) {
	t.Helper()
	rows := readJSONLines(t, m.HistoryPath)
	bySession := map[string][]string{}
	var last float64
	for _, r := range rows {
		ts, _ := r["timestamp"].(float64)
		if ts < last {
			t.Errorf("history.jsonl is not in time order at %v", r)
		}
		last = ts
		id, _ := r["sessionId"].(string)
		s := m.Session(id)
		if s == nil {
			t.Errorf("history line for unknown session %v", r)
			continue
		}
		if r["project"] != s.Cwd {
			t.Errorf("history project %v, session cwd %s", r["project"], s.Cwd)
		}
		if _, ok := r["pastedContents"].(map[string]any); !ok {
			t.Errorf("history line without pastedContents: %v", r)
		}
		// /clear makes a new session: it is not a prompt of the one it is
		// logged under.
		if d, _ := r["display"].(string); !strings.HasPrefix(d, "/rename ") && d != "/clear" {
			bySession[id] = append(bySession[id], d)
		}
	}
	for _, s := range m.Sessions {
		got := bySession[s.SessionID]
		if s.InHistory != (len(got) > 0) {
			t.Errorf("session %s: in_history %v, history has %d prompts", s.SessionID, s.InHistory, len(got))
		}
		if s.Hidden && len(got) > 0 {
			t.Errorf("hidden session %s is in history.jsonl", s.SessionID)
		}
		if len(got) > 0 && s.ForkedFrom == "" && s.Relation == "" && got[0] != s.FirstPrompt {
			t.Errorf("session %s: first history prompt %q, first prompt %q", s.SessionID, got[0], s.FirstPrompt)
		}
		if len(got) > 0 && got[len(got)-1] != s.LastPrompt && s.ForkedFrom == "" {
			t.Errorf("session %s: last history prompt %q, last prompt %q", s.SessionID, got[len(got)-1], s.LastPrompt)
		}
	}
}

func verifyClaudeJSON(t *testing.T, m *gencc.Manifest) {
	t.Helper()
	b, err := os.ReadFile(m.ClaudeJSON)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		HasCompletedOnboarding bool `json:"hasCompletedOnboarding"`
		Projects               map[string]struct {
			LastSessionID string `json:"lastSessionId"`
		} `json:"projects"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if !doc.HasCompletedOnboarding {
		t.Error(".claude.json does not mark onboarding done")
	}
	for _, s := range m.Sessions {
		got := doc.Projects[s.Cwd].LastSessionID == s.SessionID
		if got != s.LastSessionForCwd {
			t.Errorf("session %s: lastSessionId of %s is %q; manifest last_session_for_cwd=%v", s.SessionID, s.Cwd, doc.Projects[s.Cwd].LastSessionID, s.LastSessionForCwd)
		}
		if s.LastSessionForCwd && (s.Hidden || s.Worktree) {
			t.Errorf("session %s is hidden or in a worktree but is its cwd's lastSessionId", s.SessionID)
		}
	}
}
