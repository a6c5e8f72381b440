package claude

import (
	"forgectl.dev/forgectl/internal/binrec"
	"forgectl.dev/forgectl/internal/fresh"
	"forgectl.dev/shared/lineage"
	"forgectl.dev/shared/tasks"
	"forgectl.dev/shared/transcript"
)

// What the listing's index keeps of Claude Code (see package sessions for
// the file around it): for each transcript an indexEntry, after the path
// and stat the engine stores; and in the aux section the prompt history
// folded by session (a histEntry under each session id) with its
// histFile as the state record.

// format is the version of the encodings below, folded into the index's
// header (harness.Harness.Format): it changes with them and with the
// parser's meaning. The record version sits above the parser's; the
// engine's own version covered both encodings until they moved here.
const format = recordVersion<<8 | transcript.ParserVersion

// 1: the summary's Usage is stored (what a resume reloads, the cache's
// clock, the tokens used), so a warm listing reads no transcript for it.
// 2: the stat of <id>/archived.json and its mark are stored beside the
// custom title's.
const recordVersion = 2

// Format is the version of what the listing stores for Claude Code.
func (h *Harness) Format() uint64 { return format }

// indexEntry is one transcript's record.
type indexEntry struct {
	fresh.File // the transcript as it was when read
	Sum        transcript.Summary
	// Sums are the checksums of the bytes before Sum.Offset that the
	// summary was built from, which fresh.Decide checks before the file is
	// read on from there.
	Sums fresh.Sums
	// Side is what the session's sidecar title file said, valid while the
	// file keeps its size and mtime.
	Side sideEntry
	// Arch is what the session's <id>/archived.json said (Claude Code's
	// own archive mark), valid while the file keeps its size and mtime.
	Arch archEntry
	// Tasks caches the counts of the session's task list; nil when the
	// listing did not count them.
	Tasks *taskEntry
}

// sideEntry is a sidecar custom-title.json, read; Size is -1 when there is
// none and Title "" when it names nobody.
type sideEntry struct {
	Size, MtimeNs int64
	Title, By     string
}

// archEntry is a sidecar archived.json, read: Size is -1 when there is
// none; Archived and AtMs are its marks when it parsed as Claude Code
// parses it (see parseArchived).
type archEntry struct {
	Size, MtimeNs int64
	Archived      bool
	AtMs          int64
}

// taskEntry caches the status counts of a task list directory, valid while
// its *.json files keep the same names, sizes and mtimes. Claude Code
// rewrites task files in place, so the directory's own mtime is not enough.
type taskEntry struct {
	Files  []taskFile
	Counts tasks.Counts
}

type taskFile struct {
	Name    string
	Size    int64
	MtimeNs int64
}

func (e *taskEntry) same(files []taskFile) bool {
	if e == nil || len(e.Files) != len(files) {
		return false
	}
	for i := range files {
		if e.Files[i] != files[i] {
			return false
		}
	}
	return true
}

// stamp is the entry as fresh.Decide judges it.
func (e *indexEntry) stamp() *fresh.Stamp {
	return &fresh.Stamp{File: e.File, Offset: e.Sum.Offset, Sums: e.Sums}
}

func summaryStrings(s *transcript.Summary) []*string {
	return []*string{&s.SessionID, &s.Cwd, &s.LastCwd, &s.Relocated, &s.GitBranch, &s.Version,
		&s.Entrypoint, &s.TeamName, &s.FirstPrompt, &s.LastPrompt, &s.LastHuman, &s.CustomTitle, &s.AgentName,
		&s.AITitle, &s.SummaryText, &s.ContinuedIn,
		&s.CopiedFrom, &s.CopiedBy, &s.ClearedAt, &s.ProcessSession}
}

func summaryInts(s *transcript.Summary) []*int64 {
	return []*int64{&s.Offset, &s.LastUserOff, &s.LastUserLen}
}

// Encode appends the entry, but for the path and stat the engine stores
// before it (harness.Record).
func (ent *indexEntry) Encode(e *binrec.Encoder) {
	e.Uint(uint64(ent.Sums.Head))
	e.Uint(uint64(ent.Sums.Tail))
	for _, f := range summaryStrings(&ent.Sum) {
		e.String(*f)
	}
	for _, f := range summaryInts(&ent.Sum) {
		e.Int(*f)
	}
	e.Int(int64(ent.Sum.Messages))
	e.Int(int64(ent.Sum.BrokenLines))
	e.Bool(ent.Sum.Sidechain)
	encodeUsage(e, &ent.Sum.Usage)
	e.Int(ent.Side.Size)
	e.Int(ent.Side.MtimeNs)
	e.String(ent.Side.Title)
	e.String(ent.Side.By)
	e.Int(ent.Arch.Size)
	e.Int(ent.Arch.MtimeNs)
	e.Bool(ent.Arch.Archived)
	e.Int(ent.Arch.AtMs)
	e.Bool(ent.Tasks != nil)
	if te := ent.Tasks; te != nil {
		e.Uint(uint64(len(te.Files)))
		for _, f := range te.Files {
			e.String(f.Name)
			e.Int(f.Size)
			e.Int(f.MtimeNs)
		}
		for _, n := range []int{te.Counts.Pending, te.Counts.InProgress, te.Counts.Completed, te.Counts.Total} {
			e.Int(int64(n))
		}
	}
}

// decodeEntry decodes what Encode wrote, for a transcript whose stat was
// file when it was written. Its strings share payload.
func decodeEntry(file fresh.File, payload string) (*indexEntry, error) {
	d := binrec.Decoder{S: payload}
	ent := &indexEntry{File: file}
	ent.Sums = fresh.Sums{Head: uint32(d.Uint()), Tail: uint32(d.Uint())}
	for _, f := range summaryStrings(&ent.Sum) {
		*f = d.String()
	}
	for _, f := range summaryInts(&ent.Sum) {
		*f = d.Int()
	}
	ent.Sum.Messages = int(d.Int())
	ent.Sum.BrokenLines = int(d.Int())
	ent.Sum.Sidechain = d.Bool()
	decodeUsage(&d, &ent.Sum.Usage)
	ent.Side = sideEntry{Size: d.Int(), MtimeNs: d.Int(), Title: d.String(), By: d.String()}
	ent.Arch = archEntry{Size: d.Int(), MtimeNs: d.Int(), Archived: d.Bool(), AtMs: d.Int()}
	if d.Bool() {
		n := d.Count()
		if d.Err() != nil {
			return nil, d.Err()
		}
		te := &taskEntry{Files: make([]taskFile, n)}
		for k := range te.Files {
			te.Files[k] = taskFile{Name: d.String(), Size: d.Int(), MtimeNs: d.Int()}
		}
		te.Counts = tasks.Counts{Pending: int(d.Int()), InProgress: int(d.Int()), Completed: int(d.Int()), Total: int(d.Int())}
		ent.Tasks = te
	}
	if d.Err() != nil {
		return nil, d.Err()
	}
	if d.Rest() != 0 {
		return nil, binrec.ErrCorrupt
	}
	if ent.Sum.Offset < 0 || ent.Sum.Offset > ent.Size {
		return nil, binrec.ErrCorrupt
	}
	return ent, nil
}

func encodeUsage(e *binrec.Encoder, u *transcript.Usage) {
	e.Int(u.Context)
	e.Int(u.Output)
	e.String(u.Model)
	e.Int(u.ReplyAtMs)
	e.String(u.TTL)
	e.Bool(u.Compacted)
	e.Int(u.Used)
	e.String(u.MsgID)
	e.Int(u.MsgTokens)
}

func decodeUsage(d *binrec.Decoder, u *transcript.Usage) {
	u.Context, u.Output, u.Model, u.ReplyAtMs = d.Int(), d.Int(), d.String(), d.Int()
	u.TTL, u.Compacted = d.String(), d.Bool()
	u.Used, u.MsgID, u.MsgTokens = d.Int(), d.String(), d.Int()
}

// histEntry is one session's newest prompt in the prompt history.
type histEntry struct {
	LastAtMs int64  // epoch ms of the newest prompt
	Last     string // its display text, one line
}

func (h histEntry) encode(e *binrec.Encoder) {
	e.Int(h.LastAtMs)
	e.String(h.Last)
}

func decodeHistEntry(payload string) (histEntry, bool) {
	d := binrec.Decoder{S: payload}
	e := histEntry{LastAtMs: d.Int(), Last: d.String()}
	return e, d.Err() == nil && d.Rest() == 0
}

// histFile is how far the prompt history was read, and its /clear lines
// (few), which tell a /clear continuation which session it continued
// (see lineage.Decide).
type histFile struct {
	fresh.Stamp
	Clears []lineage.ClearEvent
}

func (h *histFile) encode(e *binrec.Encoder) {
	e.Uint(h.Ino)
	e.Int(h.Size)
	e.Int(h.MtimeNs)
	e.Int(h.Offset)
	e.Uint(uint64(h.Head))
	e.Uint(uint64(h.Tail))
	e.Uint(uint64(len(h.Clears)))
	for _, c := range h.Clears {
		e.String(c.SessionID)
		e.Int(c.AtMs)
	}
}

// decodeHistFile decodes the aux state record; one that does not decode
// (none: a first listing) is no history read, so it is read whole.
func decodeHistFile(payload string) histFile {
	if payload == "" {
		return histFile{}
	}
	sd := binrec.Decoder{S: payload}
	h := histFile{Stamp: fresh.Stamp{File: fresh.File{Ino: sd.Uint(), Size: sd.Int(), MtimeNs: sd.Int()},
		Offset: sd.Int(), Sums: fresh.Sums{Head: uint32(sd.Uint()), Tail: uint32(sd.Uint())}}}
	if n := sd.Count(); sd.Err() == nil && n > 0 {
		h.Clears = make([]lineage.ClearEvent, n)
		for k := range h.Clears {
			h.Clears[k] = lineage.ClearEvent{SessionID: sd.String(), AtMs: sd.Int()}
		}
	}
	if sd.Err() != nil || sd.Rest() != 0 {
		return histFile{}
	}
	return h
}
