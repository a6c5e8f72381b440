package gencc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// tailWindow is how much of a transcript's end Claude Code's picker reads.
const tailWindow = 64 << 10

// perTurnOverhead estimates the bytes of a turn that are not payload: the
// envelopes of its dozen rows, usage blocks and metadata.
const perTurnOverhead = 7 << 10

type sessionResult struct {
	info    SessionInfo
	history []historyLine
}

// tw writes one transcript.
type tw struct {
	s  *sessionSpec
	r  *rand.Rand
	c  *corpus
	bw *bufio.Writer
	// copiedFrom names the session a fork copied the current turn from.
	copiedFrom string

	buf bytes.Buffer
	enc *json.Encoder

	off     int64
	lines   int
	maxLine int64
	bad     []int

	env   envelope
	leaf  string
	clock time.Time
	limit time.Time

	prompts     int
	lastPrompt  string
	customTitle string
	agentName   string
	aiTitle     string
	titleOff    int64
	branchesSet []string
	history     []historyLine
	sidecar     bool
	agentID     string
	// replyBytes is Options.ReplyBytes (0 outside a first write).
	replyBytes int
}

func ts(t time.Time) string { return rfc3339(t) }

func (w *tw) emit(v any) {
	w.buf.Reset()
	if err := w.enc.Encode(v); err != nil {
		// Every row type is a plain struct of strings, numbers and maps:
		// an encoding failure is a programming error.
		panic(err)
	}
	w.raw(w.buf.Bytes())
}

// raw writes one line (which must end in '\n' unless it is the cut-off last
// line) and keeps the counters. A write error sticks in the bufio.Writer and
// surfaces at Flush.
func (w *tw) raw(b []byte) {
	w.off += int64(len(b))
	w.lines++
	w.maxLine = max(w.maxLine, int64(len(bytes.TrimSuffix(b, []byte{'\n'}))))
	w.bw.Write(b)
}

func (w *tw) tick() time.Time {
	step := time.Duration(80+w.r.IntN(2500)) * time.Millisecond
	if next := w.clock.Add(step); next.Before(w.limit) {
		w.clock = next
	}
	return w.clock
}

func (w *tw) parent() *string {
	if w.leaf == "" {
		return nil
	}
	p := w.leaf
	return &p
}

func (w *tw) id(prefix string, n int) string {
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	b := make([]byte, 0, len(prefix)+n)
	b = append(b, prefix...)
	for range n {
		b = append(b, alphabet[w.r.IntN(len(alphabet))])
	}
	return string(b)
}

func (w *tw) sidechain() bool { return w.s.kind == kindSidechain }

// ---------------------------------------------------------------- rows

func (w *tw) userPrompt(text string, uuid string) {
	w.prompts++
	kind, source := "human", "typed"
	if w.s.kind == kindPrint {
		kind, source = "sdk", "sdk"
	}
	row := userRow{
		ParentUUID: w.parent(), IsSidechain: w.sidechain(), AgentID: w.agentID,
		PromptID: newUUID(w.r), Type: "user",
		Message: userMessage{Role: "user", Content: text},
		UUID:    uuid, Timestamp: ts(w.tick()),
		PermissionMode: w.s.permMode, Origin: &origin{Kind: kind}, PromptSource: source, TurnOrigin: kind,
		TurnPosition: &turnPosition{PromptIndex: w.prompts, TurnIndex: w.prompts},
		envelope:     w.env,
	}
	w.emit(row)
	w.leaf = uuid
	if w.s.inHistory() && w.s.forkOf == nil || w.s.forkOf != nil && w.prompts > 1 {
		w.history = append(w.history, historyLine{Display: text, PastedContents: map[string]any{}, Timestamp: w.clock.UnixMilli() - int64(3+w.r.IntN(40)), Project: w.s.cwd, SessionID: w.s.id})
	}
}

func (w *tw) metaUser(text string, compact bool) {
	uuid := newUUID(w.r)
	w.emit(userRow{
		ParentUUID: w.parent(), IsSidechain: w.sidechain(), Type: "user",
		Message: userMessage{Role: "user", Content: text}, IsMeta: !compact, IsCompactSummary: compact,
		UUID: uuid, Timestamp: ts(w.tick()), envelope: w.env,
	})
	w.leaf = uuid
}

func (w *tw) attachment(kind, content string) {
	uuid := newUUID(w.r)
	w.emit(attachmentRow{
		ParentUUID: w.parent(), IsSidechain: w.sidechain(), Type: "attachment",
		Attachment: attachmentBody{Type: kind, Content: content},
		UUID:       uuid, Timestamp: ts(w.tick()), envelope: w.env,
	})
	w.leaf = uuid
}

func (w *tw) assistant(msgID string, block any, stop string) string {
	uuid := newUUID(w.r)
	var sr *string
	if stop != "" {
		sr = &stop
	}
	w.emit(assistantRow{
		ParentUUID: w.parent(), IsSidechain: w.sidechain(), AgentID: w.agentID, Type: "assistant",
		Message: apiMessage{
			ID: msgID, Type: "message", Role: "assistant", Model: w.s.model,
			Content: []any{block}, StopReason: sr,
			Usage: usage{
				InputTokens: 3 + w.r.IntN(20), CacheCreationInputTokens: w.r.IntN(9000),
				CacheReadInputTokens: 12000 + w.r.IntN(90000), OutputTokens: 20 + w.r.IntN(2000), ServiceTier: "standard",
			},
		},
		RequestedModel: w.s.model, Effort: w.s.effort, RequestRef: w.id("req_011C", 22),
		UUID: uuid, Timestamp: ts(w.tick()), envelope: w.env, RequestSessionID: w.copiedFrom,
	})
	w.leaf = uuid
	return uuid
}

func (w *tw) toolCall(msgID, name string, input obj, result string, useResult any) {
	toolID := w.id("toolu_01", 22)
	asst := w.assistant(msgID, toolUseBlock{Type: "tool_use", ID: toolID, Name: name, Input: input}, "tool_use")
	uuid := newUUID(w.r)
	w.emit(userRow{
		ParentUUID: w.parent(), IsSidechain: w.sidechain(), AgentID: w.agentID, Type: "user",
		Message: userMessage{Role: "user", Content: []any{toolResultBlock{ToolUseID: toolID, Type: "tool_result", Content: result}}},
		UUID:    uuid, Timestamp: ts(w.tick()),
		ToolUseResult: useResult, SourceToolAssistantUUID: asst,
		envelope: w.env,
	})
	w.leaf = uuid
}

func (w *tw) system(row systemRow) {
	uuid := newUUID(w.r)
	row.ParentUUID, row.IsSidechain, row.Type = w.parent(), w.sidechain(), "system"
	row.UUID, row.Timestamp, row.envelope = uuid, ts(w.tick()), w.env
	w.emit(row)
	w.leaf = uuid
}

// ---------------------------------------------------------------- metadata

func (w *tw) setCustomTitle(name string) {
	w.customTitle = name
	w.titleOff = w.off
	w.emit(customTitleRow{Type: "custom-title", CustomTitle: name, SessionID: w.s.id})
}

func (w *tw) rename(ev renameEvent) {
	switch ev.how {
	case renameSlash:
		w.metaUser("Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly asks you to.", false)
		w.system(systemRow{Subtype: "local_command", Level: "info", Content: "<command-name>/rename</command-name>\n            <command-message>rename</command-message>\n            <command-args>" + ev.name + "</command-args>"})
		w.system(systemRow{Subtype: "local_command", Level: "info", Content: "<local-command-stdout>Session renamed to: " + ev.name + "</local-command-stdout>"})
		w.setCustomTitle(ev.name)
		w.agentName = ev.name
		w.emit(agentNameRow{Type: "agent-name", AgentName: ev.name, SessionID: w.s.id})
		w.sidecar = true
		w.history = append(w.history, historyLine{Display: "/rename " + ev.name, PastedContents: map[string]any{}, Timestamp: w.clock.UnixMilli() - 2, Project: w.s.cwd, SessionID: w.s.id})
	default:
		w.setCustomTitle(ev.name)
	}
}

func (w *tw) lastPromptRow() {
	if w.lastPrompt == "" || w.sidechain() {
		return
	}
	w.emit(lastPromptRow{Type: "last-prompt", LastPrompt: w.lastPrompt, LeafUUID: w.leaf, SessionID: w.s.id})
}

// tailBatch re-appends the metadata the picker looks for in a file's last
// 64 KiB, as Claude Code does when a session starts or ends.
func (w *tw) tailBatch() {
	if w.sidechain() || w.s.renameMiddle {
		return
	}
	if w.customTitle != "" {
		w.setCustomTitle(w.customTitle)
	}
	if w.agentName != "" {
		w.emit(agentNameRow{Type: "agent-name", AgentName: w.agentName, SessionID: w.s.id})
	}
	if w.aiTitle != "" {
		w.emit(aiTitleRow{Type: "ai-title", AITitle: w.aiTitle, SessionID: w.s.id})
	}
	if w.s.tag != "" {
		w.emit(tagRow{Type: "tag", Tag: w.s.tag, SessionID: w.s.id})
	}
	if w.s.prLink > 0 {
		repo := "acme/" + filepath.Base(w.s.cwd)
		if w.s.repo != nil {
			repo = "acme/" + w.s.repo.name
		}
		w.emit(obj{{"type", "pr-link"}, {"prNumber", w.s.prLink}, {"prUrl", fmt.Sprintf("https://github.com/%s/pull/%d", repo, w.s.prLink)}, {"prRepository", repo}, {"timestamp", ts(w.clock)}, {"sessionId", w.s.id}})
	}
	if w.s.wt != nil {
		w.emit(obj{{"type", "worktree-state"}, {"worktreeSession", obj{
			{"originalCwd", w.s.repo.path}, {"worktreePath", w.s.wt.path}, {"worktreeName", w.s.wt.name},
			{"worktreeBranch", w.s.wt.branch}, {"sessionId", w.s.id},
		}}, {"sessionId", w.s.id}})
	}
	w.lastPromptRow()
}

func (w *tw) snapshotRow() {
	id := newUUID(w.r)
	w.emit(fileHistorySnapshotRow{Type: "file-history-snapshot", MessageID: id, Snapshot: snapshotBody{MessageID: id, TrackedFileBackups: map[string]any{}, Timestamp: ts(w.clock)}})
}

// ---------------------------------------------------------------- payloads

func (w *tw) path(file string) string { return filepath.Join(w.s.cwd, filepath.FromSlash(file)) }

// payloadTool spends about n bytes on one tool call and its result.
func (w *tw) payloadTool(msgID string, n int) {
	n = max(n, 200)
	file := pick(w.r, fileNames)
	switch x := w.r.IntN(100); {
	case x < 40:
		// The Read result repeats the file in toolUseResult, as Claude Code does.
		raw := w.c.window(w.r, n/2)
		lines := strings.Count(raw, "\n") + 1
		w.toolCall(msgID, "Read", obj{{"file_path", w.path(file)}}, numberLines(raw, 1),
			obj{{"type", "text"}, {"file", obj{{"filePath", w.path(file)}, {"content", raw}, {"numLines", lines}, {"startLine", 1}, {"totalLines", lines}}}})
	case x < 65:
		out := w.c.window(w.r, n/2)
		w.toolCall(msgID, "Bash", obj{{"command", "go test ./... 2>&1 | tail -n 200"}, {"description", "Run the test suite"}}, out,
			obj{{"stdout", out}, {"stderr", ""}, {"interrupted", false}, {"isImage", false}})
	case x < 80:
		var b strings.Builder
		for b.Len() < n/2 {
			fmt.Fprintf(&b, "%s:%d:%s\n", w.path(pick(w.r, fileNames)), 1+w.r.IntN(900), strings.TrimSpace(w.c.window(w.r, 60)))
		}
		out := b.String()
		w.toolCall(msgID, "Grep", obj{{"pattern", pick(w.r, codeWords)}, {"path", w.s.cwd}, {"output_mode", "content"}, {"-n", true}}, out,
			obj{{"mode", "content"}, {"numFiles", 1 + w.r.IntN(30)}, {"filenames", []string{}}, {"content", out}, {"numLines", strings.Count(out, "\n")}})
	default:
		orig := w.c.window(w.r, max(n-600, 100))
		oldS, newS := w.c.window(w.r, 80), w.c.window(w.r, 90)
		w.toolCall(msgID, "Edit", obj{{"file_path", w.path(file)}, {"old_string", oldS}, {"new_string", newS}},
			"The file "+w.path(file)+" has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n"+numberLines(newS, 40),
			obj{{"filePath", w.path(file)}, {"oldString", oldS}, {"newString", newS}, {"originalFile", orig}, {"structuredPatch", []any{
				obj{{"oldStart", 40}, {"oldLines", 3}, {"newStart", 40}, {"newLines", 3}, {"lines", []string{"-" + oldS, "+" + newS}}},
			}}, {"userModified", false}, {"replaceAll", false}})
	}
}

func numberLines(text string, from int) string {
	var b strings.Builder
	b.Grow(len(text) + len(text)/5)
	line := from
	for len(text) > 0 {
		i := strings.IndexByte(text, '\n')
		l := text
		if i >= 0 {
			l, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		s := strconv.Itoa(line)
		for k := len(s); k < 6; k++ {
			b.WriteByte(' ')
		}
		b.WriteString(s)
		b.WriteString("→")
		b.WriteString(l)
		b.WriteByte('\n')
		line++
	}
	return b.String()
}

func (w *tw) attachments(n int) {
	n = max(n, 3000)
	w.attachment("environment", fmt.Sprintf("Working directory: %s\nIs directory a git repo: %s\nPlatform: linux\nOS Version: Linux 6.8.0\nToday's date: %s", w.s.cwd, yesNo(w.env.GitBranch != "HEAD"), w.clock.Format("2006-01-02")))
	skills := n * 6 / 10
	w.attachment("skill_listing", "The following skills are available for use with the Skill tool:\n\n"+w.c.window(w.r, skills))
	w.attachment("session_context", "As you answer the user's questions, you can use the following context:\n# claudeMd\n"+w.c.window(w.r, n-skills))
}

func yesNo(b bool) string {
	if b {
		return "Yes"
	}
	return "No"
}

// ---------------------------------------------------------------- turns

func (w *tw) turn(k int, budget int64) {
	msgID := w.id("msg_01", 22)
	if w.r.IntN(10) < 3 {
		w.assistant(msgID, thinkingBlock{Type: "thinking", Thinking: sentence(w.r, 200+w.r.IntN(1200)), Signature: w.id("", 300+w.r.IntN(400))}, "")
	}
	w.assistant(msgID, textBlock{Type: "text", Text: sentence(w.r, 80+w.r.IntN(400))}, "")
	if k == 0 && len(w.s.tasks) > 0 {
		w.taskTools(msgID)
	}
	closing := 0 // drawn after the payload, as without replyBytes
	if w.replyBytes > 0 {
		closing = w.replyBytes/2 + w.r.IntN(w.replyBytes+1)
		budget = max(0, budget-int64(closing))
	}
	remaining := budget
	for calls := 0; remaining > 0 && calls < 12; calls++ {
		n := remaining
		if remaining > 4096 && w.r.IntN(3) != 0 {
			// Split: a big line now, the rest in later calls.
			n = remaining * int64(30+w.r.IntN(60)) / 100
		}
		w.payloadTool(msgID, int(n))
		remaining -= n
		msgID = w.id("msg_01", 22)
	}
	if closing == 0 {
		closing = 200 + w.r.IntN(1500)
	}
	w.assistant(msgID, textBlock{Type: "text", Text: sentence(w.r, closing)}, "end_turn")
	if w.s.stopHook {
		f, t := false, ""
		w.system(systemRow{Subtype: "stop_hook_summary", HookCount: 1, HookInfos: []any{obj{{"command", "forgectl resume snapshot --quiet"}}}, HookErrors: []any{}, Prevented: &f, StopReason: &t, HasOutput: &f, Level: "suggestion"})
	}
	w.system(systemRow{Subtype: "turn_duration", DurationMs: 1500 + w.r.IntN(240000)})
}

func (w *tw) taskTools(msgID string) {
	for i, t := range w.s.tasks {
		id := strconv.Itoa(i + 1)
		w.toolCall(msgID, "TaskCreate", obj{{"subject", t.subject}, {"description", t.description}, {"activeForm", t.activeForm}},
			"Task #"+id+" created successfully: "+t.subject,
			obj{{"task", obj{{"id", id}, {"subject", t.subject}, {"description", t.description}}}})
	}
	for i, t := range w.s.tasks {
		if t.status == "pending" {
			continue
		}
		id := strconv.Itoa(i + 1)
		w.toolCall(msgID, "TaskUpdate", obj{{"taskId", id}, {"status", t.status}},
			"Updated task #"+id+" status",
			obj{{"success", true}, {"taskId", id}, {"updatedFields", []string{"status"}}, {"statusChange", obj{{"from", "pending"}, {"to", t.status}}}})
	}
	if w.s.taskDelete {
		w.toolCall(msgID, "TaskUpdate", obj{{"taskId", "2"}, {"status", "deleted"}}, "Updated task #2 deleted",
			obj{{"success", true}, {"taskId", "2"}, {"updatedFields", []string{"deleted"}}})
	}
}

func (w *tw) compact() {
	uuid := newUUID(w.r)
	logical := w.leaf
	w.emit(obj{{"parentUuid", nil}, {"logicalParentUuid", logical}, {"isSidechain", false}, {"type", "system"}, {"subtype", "compact_boundary"},
		{"content", "Conversation compacted"}, {"isMeta", false}, {"timestamp", ts(w.tick())}, {"uuid", uuid}, {"level", "info"},
		{"compactMetadata", obj{{"trigger", "auto"}, {"preTokens", 150000 + w.r.IntN(40000)}}},
		{"userType", w.env.UserType}, {"entrypoint", w.env.Entrypoint}, {"cwd", w.env.Cwd}, {"sessionId", w.env.SessionID}, {"version", w.env.Version}, {"gitBranch", w.env.GitBranch}})
	w.leaf = uuid
	w.metaUser("This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\n"+sentence(w.r, 2000+w.r.IntN(6000)), true)
}

// ---------------------------------------------------------------- session

func writeSession(o *Options, s *sessionSpec, c *corpus) (res sessionResult, err error) {
	r := rand.New(rand.NewPCG(o.Seed, uint64(s.idx)+1))
	projDir := filepath.Join(o.ConfigDir, "projects", EncodeProjectDir(s.cwd))
	path := filepath.Join(projDir, s.id+".jsonl")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return res, err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	w := &tw{s: s, r: r, c: c, bw: bufio.NewWriterSize(f, 1<<20), titleOff: -1, replyBytes: o.ReplyBytes}
	w.enc = json.NewEncoder(&w.buf)
	w.enc.SetEscapeHTML(false)
	if s.kind == kindSidechain {
		w.agentID = w.id("", 8)
	}
	w.write()
	if err := w.bw.Flush(); err != nil {
		return res, err
	}
	mtime := s.end
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		return res, err
	}
	if w.sidecar {
		if err := writeSidecarTitle(projDir, s, w.customTitle, mtime); err != nil {
			return res, err
		}
	}
	if s.subagents > 0 {
		if err := writeSubagents(projDir, s, r, c); err != nil {
			return res, err
		}
	}
	counts, hw, taskDir, err := writeTasks(o.ConfigDir, s)
	if err != nil {
		return res, err
	}

	info := SessionInfo{
		SessionID: s.id, TranscriptPath: path, ProjectDir: filepath.Base(projDir),
		Cwd: s.cwd, CwdExists: s.cwdExists,
		Branch: w.env.GitBranch, Branches: w.branchesSet, Version: w.env.Version, Entrypoint: s.entrypoint(),
		Sidechain: s.kind == kindSidechain, Hidden: s.kind != "", HiddenReason: s.kind,
		CustomTitle: w.customTitle, AgentName: w.agentName, AITitle: w.aiTitle, Summary: s.summary, Tag: s.tag,
		SidecarTitle: w.sidecar,
		FirstPrompt:  s.prompts[0], LastPrompt: w.lastPrompt, PromptCount: w.prompts, LeafUUID: w.leaf,
		InHistory: len(w.history) > 0,
		StartedAt: rfc3339(s.start), LastTimestamp: rfc3339(w.clock), Mtime: rfc3339(mtime),
		SizeBytes: w.off, LineCount: w.lines, MaxLineBytes: w.maxLine,
		Broken: s.broken, BadLines: w.bad,
		Tasks: counts, TaskDir: taskDir, HighWatermark: hw, Subagents: s.subagents,
	}
	if s.kind == kindPrint {
		info.HiddenReason = "print"
	}
	if info.BadLines == nil {
		info.BadLines = []int{}
	}
	if s.forkOf != nil {
		info.ForkedFrom = s.forkOf.id
		info.ParentSessionID, info.Relation, info.ParentExists = s.forkOf.id, "fork", true
	}
	setRepoInfo(&info, s)
	info.Name, info.NameSource = nameOf(info)
	if w.titleOff >= 0 {
		switch {
		case w.titleOff >= w.off-tailWindow:
			info.TitlePosition = "tail"
		case w.titleOff < tailWindow:
			info.TitlePosition = "head"
		default:
			info.TitlePosition = "middle"
		}
	}
	return sessionResult{info: info, history: w.history}, nil
}

func setRepoInfo(info *SessionInfo, s *sessionSpec) {
	switch {
	case s.repo == nil:
		info.Repo = filepath.Base(s.cwd)
	case s.wt != nil:
		info.Repo, info.RepoPath, info.GitToplevel, info.Worktree = s.repo.name, s.repo.path, s.wt.path, true
	default:
		info.Repo, info.RepoPath, info.GitToplevel = s.repo.name, s.repo.path, s.repo.path
	}
}

// nameOf applies forgectl's precedence: custom title, agent name, AI title,
// legacy summary.
func nameOf(i SessionInfo) (string, string) {
	switch {
	case i.CustomTitle != "":
		return i.CustomTitle, "custom_title"
	case i.AgentName != "":
		return i.AgentName, "agent_name"
	case i.AITitle != "":
		return i.AITitle, "ai_title"
	case i.Summary != "":
		return i.Summary, "summary"
	}
	return "", ""
}

func (w *tw) setSegment(k int) {
	s := w.s
	w.env = envelope{UserType: "external", Entrypoint: s.entrypoint(), Cwd: s.cwd, SessionID: s.id, Version: s.versions[k], GitBranch: s.branches[k]}
	if len(w.branchesSet) == 0 || w.branchesSet[len(w.branchesSet)-1] != s.branches[k] {
		w.branchesSet = append(w.branchesSet, s.branches[k])
	}
}

func (w *tw) write() {
	s := w.s
	n := s.nPrompts
	span := s.end.Sub(s.start)
	promptAt := func(k int) time.Time { return s.start.Add(span * time.Duration(k) / time.Duration(n)) }
	w.clock = s.start
	w.limit = s.end.Add(-time.Duration(1+w.r.IntN(900)) * time.Millisecond)
	w.setSegment(0)

	// Per-turn payload weights; an exponential spread gives the big files a
	// few multi-megabyte turns.
	weights := make([]float64, n)
	var wsum float64
	for k := range weights {
		weights[k] = w.r.ExpFloat64() + 0.2
		if k == 0 {
			weights[k] += 1.5 // the first turn carries the big attachments
		}
		wsum += weights[k]
	}
	reserve := int64(n)*perTurnOverhead + 2048

	if s.summary != "" {
		w.emit(summaryRow{Type: "summary", Summary: s.summary, LeafUUID: newUUID(w.r)})
	}
	if s.kind != kindSidechain {
		w.emit(permissionModeRow{Type: "permission-mode", PermissionMode: s.permMode, SessionID: s.id})
	}
	if q := s.forkOf; q != nil {
		// A fork copies its parent's custom title, and its only last-prompt
		// row carries the parent's first prompt.
		if len(q.renames) > 0 {
			w.setCustomTitle(q.renames[len(q.renames)-1].name)
		}
		w.lastPrompt = q.prompts[0]
	}
	for _, ev := range s.renames {
		if ev.after == -1 {
			w.rename(ev)
		}
	}
	garbageAt := -1
	if s.broken == "garbage" {
		garbageAt = n / 2
	}
	for k := range n {
		if slicesIndex(s.segStarts, k) > 0 {
			w.tailBatch()
			w.setSegment(slicesIndex(s.segStarts, k))
			w.emit(permissionModeRow{Type: "permission-mode", PermissionMode: s.permMode, SessionID: s.id})
		}
		if at := promptAt(k); at.After(w.clock) {
			w.clock = at
		}
		if s.kind != kindSidechain {
			w.snapshotRow()
		}
		uuid := newUUID(w.r)
		if k == 0 {
			uuid = s.firstUUID
			if s.forkOf != nil {
				uuid = s.forkOf.firstUUID
			}
		}
		// A fork's first turn is the one it copied from its parent.
		w.copiedFrom = ""
		if s.forkOf != nil && k == 0 {
			w.copiedFrom = s.forkOf.id
		}
		w.userPrompt(s.prompts[k], uuid)
		if s.forkOf == nil && s.kind != kindSidechain {
			w.lastPrompt = s.prompts[k]
		}

		free := max(s.target-w.off-reserve, 0)
		budget := int64(float64(free) * weights[k] / wsum)
		wsum -= weights[k]
		reserve -= perTurnOverhead
		if k == 0 || slicesIndex(s.segStarts, k) > 0 {
			att := budget * 7 / 10
			if s.hugeLines && k == 0 {
				att = max(att, min(int64(2<<20+w.r.IntN(4<<20)), s.target*6/10))
				budget = max(budget, att+att/4)
			}
			w.attachments(int(att))
			budget -= att
		}
		if s.compact && k == n/2 && k > 0 {
			w.compact()
		}
		w.turn(k, budget)
		if s.forkOf == nil {
			w.lastPromptRow()
		}
		for _, ev := range s.renames {
			if ev.after == k {
				w.rename(ev)
			}
		}
		if s.aiTitle != "" && k == s.aiTitleAfter {
			w.aiTitle = s.aiTitle
			w.emit(aiTitleRow{Type: "ai-title", AITitle: s.aiTitle, SessionID: s.id})
		}
		if k == garbageAt {
			w.garbage()
		}
	}
	w.tailBatch()
	if s.broken == "truncated" {
		w.truncated()
	}
}

func slicesIndex(xs []int, v int) int {
	for i, x := range xs {
		if x == v {
			return i
		}
	}
	return -1
}

// garbage leaves what a crash followed by a resume leaves: a run of NUL
// bytes, then a half-written row with the next row appended to it.
func (w *tw) garbage() {
	nul := bytes.Repeat([]byte{0}, 64+w.r.IntN(400))
	w.raw(append(nul, '\n'))
	w.bad = append(w.bad, w.lines)

	w.buf.Reset()
	w.enc.Encode(assistantRow{ParentUUID: w.parent(), Type: "assistant", Message: apiMessage{ID: w.id("msg_01", 22), Type: "message", Role: "assistant", Model: w.s.model, Content: []any{textBlock{Type: "text", Text: sentence(w.r, 300)}}}, UUID: newUUID(w.r), Timestamp: ts(w.clock), envelope: w.env})
	half := append([]byte(nil), w.buf.Bytes()[:w.buf.Len()/2]...)
	id := newUUID(w.r)
	w.buf.Reset()
	w.enc.Encode(fileHistorySnapshotRow{Type: "file-history-snapshot", MessageID: id, Snapshot: snapshotBody{MessageID: id, TrackedFileBackups: map[string]any{}, Timestamp: ts(w.clock)}})
	w.raw(append(half, w.buf.Bytes()...))
	w.bad = append(w.bad, w.lines)
}

// truncated ends the file in the middle of a row, as a killed process does.
func (w *tw) truncated() {
	w.buf.Reset()
	w.enc.Encode(assistantRow{ParentUUID: w.parent(), Type: "assistant", Message: apiMessage{ID: w.id("msg_01", 22), Type: "message", Role: "assistant", Model: w.s.model, Content: []any{textBlock{Type: "text", Text: sentence(w.r, 2000)}}}, UUID: newUUID(w.r), Timestamp: ts(w.clock), envelope: w.env})
	b := w.buf.Bytes()
	cut := len(b) * (30 + w.r.IntN(50)) / 100
	w.raw(append([]byte(nil), b[:cut]...))
	w.bad = append(w.bad, w.lines)
}

func writeSidecarTitle(projDir string, s *sessionSpec, title string, at time.Time) error {
	dir := filepath.Join(projDir, s.id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(obj{{"customTitle", title}, {"by", "user"}, {"at", rfc3339(at)}})
	if err != nil {
		return err
	}
	p := filepath.Join(dir, "custom-title.json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		return err
	}
	return os.Chtimes(p, at, at)
}

func writeSubagents(projDir string, s *sessionSpec, r *rand.Rand, c *corpus) error {
	dir := filepath.Join(projDir, s.id, "subagents")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for range s.subagents {
		var out bytes.Buffer
		w := &tw{s: &sessionSpec{id: s.id, kind: kindSidechain, cwd: s.cwd, model: "claude-haiku-4-5", effort: s.effort, permMode: s.permMode},
			r: r, c: c, bw: bufio.NewWriter(&out), titleOff: -1}
		w.enc = json.NewEncoder(&w.buf)
		w.enc.SetEscapeHTML(false)
		w.agentID = w.id("", 8)
		w.env = envelope{UserType: "external", Entrypoint: "cli", Cwd: s.cwd, SessionID: s.id, Version: s.versions[len(s.versions)-1], GitBranch: s.branches[len(s.branches)-1]}
		w.clock, w.limit = s.start.Add(time.Minute), s.end
		w.userPrompt("Find every place that reads the "+pick(r, nouns)+" configuration and report file:line", newUUID(r))
		msgID := w.id("msg_01", 22)
		for range 1 + r.IntN(3) {
			w.payloadTool(msgID, 1000+r.IntN(6000))
		}
		w.assistant(msgID, textBlock{Type: "text", Text: sentence(r, 300)}, "end_turn")
		w.bw.Flush()
		p := filepath.Join(dir, "agent-"+w.agentID+".jsonl")
		if err := os.WriteFile(p, out.Bytes(), 0o600); err != nil {
			return err
		}
		if err := os.Chtimes(p, s.end, s.end); err != nil {
			return err
		}
	}
	return nil
}

// writeTasks writes tasks/<sessionId>/ and returns the on-disk counts.
func writeTasks(configDir string, s *sessionSpec) (TaskCounts, int, string, error) {
	var counts TaskCounts
	if !s.hasTaskDir() {
		return counts, 0, "", nil
	}
	dir := filepath.Join(configDir, "tasks", s.id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return counts, 0, "", err
	}
	if err := os.WriteFile(filepath.Join(dir, ".lock"), nil, 0o644); err != nil {
		return counts, 0, "", err
	}
	hw := 0
	if s.tasksReset || s.taskDelete {
		hw = len(s.tasks)
		if err := os.WriteFile(filepath.Join(dir, ".highwatermark"), []byte(strconv.Itoa(hw)), 0o644); err != nil {
			return counts, 0, "", err
		}
	}
	if !s.tasksReset {
		for i, t := range s.tasks {
			id := strconv.Itoa(i + 1)
			if s.taskDelete && id == "2" {
				continue
			}
			tf := taskFile{ID: id, Subject: t.subject, Description: t.description, ActiveForm: t.activeForm, Status: t.status,
				Blocks: without(t.blocks, s.taskDelete), BlockedBy: without(t.blockedBy, s.taskDelete)}
			b, err := json.MarshalIndent(tf, "", "  ")
			if err != nil {
				return counts, 0, "", err
			}
			p := filepath.Join(dir, id+".json")
			if err := os.WriteFile(p, b, 0o644); err != nil {
				return counts, 0, "", err
			}
			if err := os.Chtimes(p, s.end, s.end); err != nil {
				return counts, 0, "", err
			}
			switch t.status {
			case "pending":
				counts.Pending++
			case "in_progress":
				counts.InProgress++
			case "completed":
				counts.Completed++
			}
			counts.Total++
		}
	}
	if err := os.Chtimes(dir, s.end, s.end); err != nil {
		return counts, 0, "", err
	}
	return counts, hw, dir, nil
}

// without drops task "2" (the deleted one) from a blocks list.
func without(ids []string, deleted bool) []string {
	out := []string{}
	for _, id := range ids {
		if !(deleted && id == "2") {
			out = append(out, id)
		}
	}
	return out
}
