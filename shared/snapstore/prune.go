package snapstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"forgectl.dev/shared/fsutil"
)

// Pruning retires a record once Claude Code's transcript for its session is
// gone: a snapshot is worth keeping exactly as long as `claude --resume`
// can still open the session, and transcript retention is the operator's
// choice (cleanupPeriodDays), so there is no fixed age. A record whose
// transcript survives is kept however old it is.
//
// A broken lookup (the Stop hook and the shell disagreeing on
// CLAUDE_CONFIG_DIR, an unreadable projects folder) looks exactly like
// every session having died, so a pass that would retire too much refuses
// and says why:
//
//   - it may retire at most half the store, with a small-store floor: any
//     pass may retire up to 3 records, but never the last one
//     (MaxRetire(n) = max(n/2, min(n-1, 3)));
//   - it retires nothing when the lookup finds no transcript at all, or
//     cannot read the projects folder.
//
// Records whose transcript is gone and that were last captured more than
// 180 days ago are retired even by a refused pass, so a machine whose
// lookup stays broken still sheds dead records eventually. Records of live
// sessions are never retired: a session has no transcript until its first
// prompt.
const (
	// PruneInterval is how often a pass runs, at most.
	PruneInterval = 24 * time.Hour
	// PruneCeiling is the age past which a record without a transcript is
	// retired even by a refused pass.
	PruneCeiling = 180 * 24 * time.Hour
	// PruneStamp records when the last pass ran (its mtime) and what it did
	// (its JSON body, read by doctor).
	PruneStamp = ".prune-stamp"
	pruneLock  = ".prune.lock"
)

// MaxRetire is how many of n records one pass may retire without refusing.
func MaxRetire(n int) int {
	return max(n/2, min(n-1, 3))
}

// Pruner runs pruning passes over a store.
type Pruner struct {
	Store Store
	// Projects is Claude Code's projects folder (projects/<enc>/<id>.jsonl).
	Projects string
	Now      func() time.Time
	// Live reports sessions that are running now; they are never retired.
	// nil means none.
	Live func(sessionID string) bool
}

// PruneReport is what a pass did, and the body of the stamp file.
type PruneReport struct {
	// Ran is false when the stamp was fresh or another pass was running.
	Ran     bool      `json:"-"`
	At      time.Time `json:"at"`
	Records int       `json:"records"`
	Retired []string  `json:"retired"`
	// Refused explains why records without a transcript were kept; Withheld
	// counts them.
	Refused  string  `json:"refused,omitempty"`
	Withheld int     `json:"withheld,omitempty"`
	Problems []error `json:"-"`
	// ProblemText carries Problems into the stamp.
	ProblemText []string `json:"problems"`
}

// Run is the daily pass: one stat when the stamp is fresh, otherwise a
// pass under a lock (skipped when another process holds it). The stamp is
// taken before the work, so a pass that crashes is not retried on every
// turn.
func (p Pruner) Run() PruneReport {
	now := p.Now()
	stamp := filepath.Join(p.Store.Dir, PruneStamp)
	if fresh(stamp, now) {
		return PruneReport{}
	}
	if _, err := os.Stat(p.Store.Dir); err != nil {
		// No store yet: nothing to prune, and no reason to create one.
		return PruneReport{}
	}
	l, err := fsutil.TryLock(filepath.Join(p.Store.Dir, pruneLock))
	if err != nil {
		if errors.Is(err, fsutil.ErrLocked) {
			return PruneReport{}
		}
		return PruneReport{Problems: []error{err}}
	}
	defer l.Unlock()
	if fresh(stamp, now) { // another pass finished while we waited
		return PruneReport{}
	}
	if err := writeStamp(stamp, PruneReport{At: now.UTC(), Retired: []string{}, ProblemText: []string{"pass started, not finished"}}, now); err != nil {
		return PruneReport{Problems: []error{err}}
	}
	rep := p.Pass()
	if err := writeStamp(stamp, rep, now); err != nil {
		rep.Problems = append(rep.Problems, err)
	}
	return rep
}

// fresh reports a stamp written less than PruneInterval ago. A stamp from
// the future (a clock set back) counts as fresh only within the interval,
// so a wrong clock cannot stop pruning for good.
func fresh(stamp string, now time.Time) bool {
	st, err := os.Stat(stamp)
	if err != nil {
		return false
	}
	d := now.Sub(st.ModTime())
	return d < PruneInterval && d > -PruneInterval
}

func writeStamp(path string, rep PruneReport, now time.Time) error {
	b, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	if err := fsutil.WriteAtomic(path, append(b, '\n'), fsutil.FilePerm); err != nil {
		return err
	}
	// The stamp's age is its mtime, set from the same clock as the pass.
	return os.Chtimes(path, now, now)
}

// LastPrune reads the stamp of the last pass; ErrNoRecord when none ran.
func (s Store) LastPrune() (PruneReport, error) {
	path := filepath.Join(s.Dir, PruneStamp)
	b, err := fsutil.ReadRegular(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return PruneReport{}, ErrNoRecord
		}
		return PruneReport{}, err
	}
	var rep PruneReport
	if err := json.Unmarshal(b, &rep); err != nil {
		return PruneReport{}, fmt.Errorf("%s: %w", path, err)
	}
	rep.Ran = true
	return rep, nil
}

// Pass prunes now, ignoring the stamp.
func (p Pruner) Pass() PruneReport {
	now := p.Now()
	rep := PruneReport{Ran: true, At: now.UTC(), Retired: []string{}, ProblemText: []string{}}
	recs, problems := p.Store.All()
	rep.Problems = append(rep.Problems, problems...)
	rep.Records = len(recs)
	if len(recs) == 0 {
		return rep
	}

	var idx TranscriptIndex
	var idxErr error
	indexed := false
	var gone, ancient []string
	for _, r := range recs {
		if p.Live != nil && p.Live(r.SessionID) {
			continue
		}
		if r.Transcript != "" && isFile(r.Transcript) {
			continue
		}
		if !indexed {
			// One walk of projects/ per pass, and only when some record's
			// own transcript path has gone.
			idx, idxErr = IndexTranscripts(p.Projects)
			indexed = true
		}
		if _, ok := idx.Sessions[r.SessionID]; ok {
			continue
		}
		if now.Sub(r.LastCapture) > PruneCeiling {
			ancient = append(ancient, r.SessionID)
		} else {
			gone = append(gone, r.SessionID)
		}
	}

	retire := ancient
	switch total := len(gone) + len(ancient); {
	case len(gone) == 0:
	case idxErr != nil:
		rep.Refused = fmt.Sprintf("cannot look up transcripts (%v)", idxErr)
	case len(idx.Sessions) == 0:
		rep.Refused = fmt.Sprintf("found no transcript at all under %s", p.Projects)
	case total > MaxRetire(len(recs)):
		rep.Refused = fmt.Sprintf("%d of %d records have no transcript under %s, more than one pass may retire (%d): that looks like a broken transcript lookup, not that many ended sessions",
			total, len(recs), p.Projects, MaxRetire(len(recs)))
	default:
		retire = append(retire, gone...)
	}
	if rep.Refused != "" {
		rep.Withheld = len(gone)
	}
	rep.Problems = append(rep.Problems, idx.Problems...)
	sort.Strings(retire)
	for _, id := range retire {
		if err := p.Store.Remove(id); err != nil {
			rep.Problems = append(rep.Problems, fmt.Errorf("retire %s: %w", id, err))
			continue
		}
		rep.Retired = append(rep.Retired, id)
	}
	for _, e := range rep.Problems {
		rep.ProblemText = append(rep.ProblemText, e.Error())
	}
	return rep
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// TranscriptIndex maps session ids to their transcript, from one walk of
// Claude Code's projects folder.
type TranscriptIndex struct {
	Sessions map[string]string
	// Problems are project folders that could not be read; the sessions in
	// them are missing from Sessions.
	Problems []error
}

// IndexTranscripts lists projects/*/<id>.jsonl. A projects folder that is
// missing or unreadable is an error: it says nothing about which sessions
// ended.
func IndexTranscripts(projects string) (TranscriptIndex, error) {
	idx := TranscriptIndex{Sessions: map[string]string{}}
	dirs, err := fsutil.ReadDir(projects)
	if err != nil {
		return idx, err
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		dir := filepath.Join(projects, d.Name())
		ents, err := fsutil.ReadDir(dir)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				idx.Problems = append(idx.Problems, err)
			}
			continue
		}
		for _, e := range ents {
			id, ok := strings.CutSuffix(e.Name(), ".jsonl")
			if ok && e.Type().IsRegular() {
				idx.Sessions[id] = filepath.Join(dir, e.Name())
			}
		}
	}
	if len(idx.Problems) > 0 {
		// A folder we could not read may hold any record's transcript.
		return idx, fmt.Errorf("%d project folders unreadable: %w", len(idx.Problems), idx.Problems[0])
	}
	return idx, nil
}
