package gencc

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"
)

// LineageSessions is how many sessions the lineage cast adds to a demo or
// default home (beyond Options.Sessions), when the home has a named,
// intact interactive session and another one to build it from. They come
// last in the manifest's sessions.
const LineageSessions = 7

// Lineage: sessions made out of other sessions, written after the plan's
// sessions as the real CLI (2.1.333, facts/claude-code.md §i) writes them:
//
//   - a fork (--fork-session) copies its source's conversation rows with
//     sessionId rewritten, and each copied assistant row gains
//     "requestSessionId": the session that made the request, kept when it is
//     already there, so a fork of a fork names the original on rows it got
//     from it and the fork on rows the fork added;
//   - a branch (/branch) copies them with "forkedFrom":{"sessionId":<source>,
//     "messageUuid":<the row's uuid>} appended, and is titled "<first
//     prompt> (Branch)";
//   - a /clear continuation shares no row with the old session: it opens
//     with a caveat row and the /clear command, its replies carry
//     "session_id": the id the process started as, and the history logs
//     /clear under the session it cleared a few milliseconds before.
//
// The cast: a fork F of a session P, a fork FF of F (nearest parent F), a
// branch BF of F, a fork whose copied rows are cut by a torn line, a fork
// of a session whose transcript was then deleted, and a /clear chain
// Q -> C2 -> C3 in one process.

// lineageAssistantRow is a reply of a derived session; session_id sits just before
// the envelope, as in the real rows.
type lineageAssistantRow struct {
	ParentUUID  string           `json:"parentUuid"`
	IsSidechain bool             `json:"isSidechain"`
	Message     lineageAssistMsg `json:"message"`
	Type        string           `json:"type"`
	UUID        string           `json:"uuid"`
	Timestamp   string           `json:"timestamp"`
	ProcessID   string           `json:"session_id"`
	envelope
}

type lineageAssistMsg struct {
	Role    string      `json:"role"`
	Content []textBlock `json:"content"`
}

// lineageSession is one derived transcript being written.
type lineageSession struct {
	id, cwd, branch, version string
	lines                    [][]byte
	clock                    time.Time
	lastUUID                 string
	prompts                  []string // typed, for the history
	promptAt                 []time.Time
	info                     SessionInfo
}

// addLineage writes the lineage cast next to the plan's sessions and
// returns their manifest entries and history lines. It needs two
// interactive, intact sessions that ended at least three hours before Now;
// a home without them gets none.
func addLineage(o *Options, m *Manifest) ([]SessionInfo, []historyLine, error) {
	r := rand.New(rand.NewPCG(o.Seed, 1<<61))
	// P, the session forked and branched, is a named one when there is
	// one: its forks copy the name, which is what makes them hard to tell
	// apart. Q is the process that clears.
	var p, q *SessionInfo
	for i := range m.Sessions {
		s := &m.Sessions[i]
		if s.Hidden || s.Broken != "" || s.Entrypoint != "cli" || s.ForkedFrom != "" || !s.CwdExists ||
			s.PromptCount < 2 || s.Worktree || parseRFC3339(s.Mtime).After(o.Now.Add(-3*time.Hour)) {
			continue
		}
		switch {
		case p == nil && s.CustomTitle != "":
			p = s
		case q == nil:
			q = s
		}
	}
	if p == nil || q == nil {
		return nil, nil, nil
	}
	at := func(minutesAgo int) time.Time {
		return o.Now.Add(-time.Duration(minutesAgo) * time.Minute).Truncate(time.Millisecond)
	}
	var out []SessionInfo
	var hist []historyLine
	done := func(ls *lineageSession, parent, relation string, exists bool) error {
		info, h, err := ls.write(o, parent, relation, exists)
		if err != nil {
			return err
		}
		out = append(out, info)
		hist = append(hist, h...)
		return nil
	}

	pRows, err := readLines(p.TranscriptPath)
	if err != nil {
		return nil, nil, err
	}
	f := newLineageSession(r, p, at(150))
	f.copyRows(pRows, p.SessionID, "fork")
	f.copyTitle(p)
	f.turn(r, "continue the work in a fork", f.id)
	if err := done(f, p.SessionID, "fork", true); err != nil {
		return nil, nil, err
	}

	ff := newLineageSession(r, p, at(140))
	ff.copyRows(f.lines, f.id, "fork")
	ff.copyTitle(p)
	ff.turn(r, "carry on in a fork of the fork", ff.id)
	if err := done(ff, f.id, "fork", true); err != nil {
		return nil, nil, err
	}

	bf := newLineageSession(r, p, at(130))
	bf.copyRows(f.lines, f.id, "branch")
	bf.setTitle(p.FirstPrompt + " (Branch)")
	bf.turn(r, "try another way in a branch of the fork", f.id)
	if err := done(bf, f.id, "branch", true); err != nil {
		return nil, nil, err
	}

	cut := newLineageSession(r, p, at(125))
	cut.copyRows(pRows, p.SessionID, "fork")
	// A copied row torn mid-write: the reader skips it, the rows around it
	// still name the parent.
	mid := len(cut.lines) / 2
	torn := cut.lines[mid]
	cut.lines[mid] = append(append([]byte(nil), torn[:len(torn)/2]...), '\n')
	cut.turn(r, "a fork whose copy was cut", cut.id)
	if err := done(cut, p.SessionID, "fork", true); err != nil {
		return nil, nil, err
	}

	// The deleted parent: its rows exist only as the fork's copies (its
	// own transcript is not written, as if the user removed it).
	gone := newLineageSession(r, q, at(200))
	gone.turn(r, "work in a session later deleted", gone.id)
	orphan := newLineageSession(r, q, at(190))
	orphan.copyRows(gone.lines, gone.id, "fork")
	orphan.turn(r, "work in a fork of a deleted session", orphan.id)
	if err := done(orphan, gone.id, "fork", false); err != nil {
		return nil, nil, err
	}

	// The /clear chain: Q's process clears twice.
	prev := q.SessionID
	for k, prompt := range []string{"second of the chain", "third of the chain"} {
		c := newLineageSession(r, q, at(100-10*k))
		clearedAt := c.clock
		hist = append(hist, historyLine{Display: "/clear", PastedContents: map[string]any{}, Timestamp: clearedAt.UnixMilli() - int64(25-20*k), Project: c.cwd, SessionID: prev})
		c.clearOpening()
		c.turn(r, prompt, q.SessionID)
		if err := done(c, prev, "clear", true); err != nil {
			return nil, nil, err
		}
		prev = c.id
	}
	return out, hist, nil
}

func newLineageSession(r *rand.Rand, like *SessionInfo, start time.Time) *lineageSession {
	ls := &lineageSession{id: newUUID(r), cwd: like.Cwd, branch: like.Branch, version: like.Version, clock: start}
	ls.info = SessionInfo{
		Cwd: like.Cwd, CwdExists: like.CwdExists, Repo: like.Repo, RepoPath: like.RepoPath, GitToplevel: like.GitToplevel,
		Version: like.Version, Entrypoint: "cli", StartedAt: rfc3339(start), BadLines: []int{},
	}
	return ls
}

func (ls *lineageSession) env() envelope {
	return envelope{UserType: "external", Entrypoint: "cli", Cwd: ls.cwd, SessionID: ls.id, Version: ls.version, GitBranch: ls.branch}
}

// emit appends a row as Claude Code writes it: "<" and ">" literal, not
// HTML-escaped (readers look for "<command-name>").
func (ls *lineageSession) emit(v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // the row types are plain structs
	}
	ls.lines = append(ls.lines, b.Bytes())
}

// copyRows copies src's conversation rows (its metadata rows stay behind)
// as a fork or a branch does, from session from.
func (ls *lineageSession) copyRows(src [][]byte, from, how string) {
	for _, l := range src {
		if !bytes.HasPrefix(l, []byte(`{"parentUuid"`)) {
			continue
		}
		l = bytes.TrimRight(l, "\n")
		if !json.Valid(l) {
			continue // a torn line is not copied
		}
		var row struct {
			SessionID string `json:"sessionId"`
			UUID      string `json:"uuid"`
			Type      string `json:"type"`
		}
		json.Unmarshal(l, &row)
		// The envelope's sessionId is the last one in the row, except that
		// a row copied by a branch ends in forkedFrom's.
		body := l[:len(l)-1]
		if i := bytes.Index(body, []byte(`,"forkedFrom":`)); i >= 0 {
			body = body[:i]
		}
		key := []byte(`"sessionId":"` + row.SessionID + `"`)
		i := bytes.LastIndex(body, key)
		if i < 0 {
			continue
		}
		var b bytes.Buffer
		b.Write(body[:i])
		b.WriteString(`"sessionId":"` + ls.id + `"`)
		b.Write(body[i+len(key):])
		req := bytes.Contains(body, []byte(`"requestSessionId":"`))
		if row.Type == "assistant" && !req {
			b.WriteString(`,"requestSessionId":"` + from + `"`)
		}
		if how == "branch" {
			b.WriteString(`,"forkedFrom":{"sessionId":"` + from + `","messageUuid":"` + row.UUID + `"}`)
		}
		b.WriteString("}\n")
		ls.lines = append(ls.lines, b.Bytes())
		ls.lastUUID = row.UUID
	}
}

// copyTitle copies the parent's name rows, as a fork does (two sessions
// then carry one name).
func (ls *lineageSession) copyTitle(p *SessionInfo) {
	if p.CustomTitle != "" {
		ls.emit(customTitleRow{Type: "custom-title", CustomTitle: p.CustomTitle, SessionID: ls.id})
	}
	if p.AgentName != "" {
		ls.emit(agentNameRow{Type: "agent-name", AgentName: p.AgentName, SessionID: ls.id})
	}
}

func (ls *lineageSession) setTitle(t string) {
	ls.emit(customTitleRow{Type: "custom-title", CustomTitle: t, SessionID: ls.id})
	ls.emit(agentNameRow{Type: "agent-name", AgentName: t, SessionID: ls.id})
}

// clearOpening is how a /clear continuation begins.
func (ls *lineageSession) clearOpening() {
	caveat := "m" + ls.id[:7]
	ls.emit(userRow{IsSidechain: false, Type: "user",
		Message: userMessage{Role: "user", Content: "<local-command-caveat>The command below was run directly in Claude Code, not sent to you as a request, and its output goes straight to the user. It's recorded here as context for later messages.</local-command-caveat>"},
		IsMeta:  true, UUID: caveat, Timestamp: rfc3339(ls.clock), envelope: ls.env()})
	ls.clock = ls.clock.Add(time.Millisecond)
	ls.lastUUID = "c" + ls.id[:7]
	ls.emit(userRow{ParentUUID: &caveat, Type: "user",
		Message: userMessage{Role: "user", Content: "<command-name>/clear</command-name>\n            <command-message>clear</command-message>\n            <command-args></command-args>"},
		UUID:    ls.lastUUID, Timestamp: rfc3339(ls.clock), envelope: ls.env()})
}

// turn appends a typed prompt and its reply; processID is the session the
// writing process started as.
func (ls *lineageSession) turn(r *rand.Rand, prompt, processID string) {
	ls.clock = ls.clock.Add(time.Duration(1+r.IntN(30)) * time.Second)
	u := newUUID(r)
	var parent *string
	if ls.lastUUID != "" {
		p := ls.lastUUID
		parent = &p
	}
	ls.emit(userRow{ParentUUID: parent, Type: "user", Message: userMessage{Role: "user", Content: prompt}, UUID: u,
		Timestamp: rfc3339(ls.clock), PermissionMode: "default", Origin: &origin{Kind: "human"}, PromptSource: "typed", envelope: ls.env()})
	ls.prompts = append(ls.prompts, prompt)
	ls.promptAt = append(ls.promptAt, ls.clock)
	ls.clock = ls.clock.Add(time.Duration(2+r.IntN(20)) * time.Second)
	a := newUUID(r)
	ls.emit(lineageAssistantRow{ParentUUID: u, Message: lineageAssistMsg{Role: "assistant", Content: []textBlock{{Type: "text", Text: "Done: " + prompt + "."}}},
		Type: "assistant", UUID: a, Timestamp: rfc3339(ls.clock), ProcessID: processID, envelope: ls.env()})
	ls.lastUUID = a
	ls.emit(lastPromptRow{Type: "last-prompt", LastPrompt: prompt, LeafUUID: a, SessionID: ls.id})
}

// write puts the transcript in its project directory and describes it as
// the manifest does every session: from what was written.
func (ls *lineageSession) write(o *Options, parent, relation string, exists bool) (SessionInfo, []historyLine, error) {
	dir := filepath.Join(o.ConfigDir, "projects", EncodeProjectDir(ls.cwd))
	path := filepath.Join(dir, ls.id+".jsonl")
	data := bytes.Join(ls.lines, nil)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return SessionInfo{}, nil, err
	}
	mtime := ls.clock.Add(time.Second)
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		return SessionInfo{}, nil, err
	}
	info := ls.info
	info.SessionID, info.TranscriptPath, info.ProjectDir = ls.id, path, filepath.Base(dir)
	info.ParentSessionID, info.Relation, info.ParentExists = parent, relation, exists
	if relation != "clear" {
		info.ForkedFrom = parent
	}
	info.SizeBytes, info.Mtime, info.LastTimestamp = int64(len(data)), rfc3339(mtime), rfc3339(ls.clock)
	var typed []string
	titleOff, off := int64(-1), int64(0)
	for n, l := range ls.lines {
		lineOff := off
		off += int64(len(l))
		info.LineCount++
		info.MaxLineBytes = max(info.MaxLineBytes, int64(len(l)-1))
		var row struct {
			Type        string `json:"type"`
			UUID        string `json:"uuid"`
			GitBranch   string `json:"gitBranch"`
			IsMeta      bool   `json:"isMeta"`
			CustomTitle string `json:"customTitle"`
			AgentName   string `json:"agentName"`
			LastPrompt  string `json:"lastPrompt"`
			Message     struct {
				Content any `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(l, &row) != nil {
			info.BadLines = append(info.BadLines, n+1)
			info.Broken = "garbage"
			continue
		}
		switch row.Type {
		case "user", "assistant", "system", "attachment":
			if len(info.Branches) == 0 || info.Branches[len(info.Branches)-1] != row.GitBranch {
				info.Branches = append(info.Branches, row.GitBranch)
			}
			info.Branch, info.LeafUUID = row.GitBranch, row.UUID
		case "custom-title":
			info.CustomTitle, titleOff = row.CustomTitle, lineOff
		case "agent-name":
			info.AgentName = row.AgentName
		case "last-prompt":
			info.LastPrompt = row.LastPrompt
		}
		if text, ok := row.Message.Content.(string); ok && row.Type == "user" && !row.IsMeta {
			typed = append(typed, text)
		}
	}
	info.PromptCount = len(typed)
	if len(typed) > 0 {
		info.FirstPrompt = typed[0]
	}
	switch {
	case info.CustomTitle != "":
		info.Name, info.NameSource = info.CustomTitle, "custom_title"
	case info.AgentName != "":
		info.Name, info.NameSource = info.AgentName, "agent_name"
	}
	switch {
	case titleOff < 0:
	case titleOff >= info.SizeBytes-64<<10:
		info.TitlePosition = "tail"
	case titleOff < 64<<10:
		info.TitlePosition = "head"
	default:
		info.TitlePosition = "middle"
	}
	if info.Branches == nil {
		info.Branches = []string{}
	}
	var hist []historyLine
	for k, p := range ls.prompts {
		info.InHistory = true
		hist = append(hist, historyLine{Display: p, PastedContents: map[string]any{}, Timestamp: ls.promptAt[k].UnixMilli(), Project: ls.cwd, SessionID: ls.id})
	}
	return info, hist, nil
}

func readLines(path string) ([][]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		if len(l) > 0 {
			out = append(out, l)
		}
	}
	return out, nil
}
