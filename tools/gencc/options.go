package gencc

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"time"
)

// Mode selects what kind of home Generate writes.
type Mode string

const (
	// ModeDefault writes N sessions over M repos with small, varied
	// transcripts and at least one of every special case once N allows.
	ModeDefault Mode = "default"
	// ModeDemo writes a fixed, human-friendly home: named repos, renamed
	// sessions, tasks, and one of each awkward case.
	ModeDemo Mode = "demo"
	// ModeScale writes a benchmark home: mostly 40 KB–2 MB transcripts, a few
	// of 50 MB or more, some multi-megabyte lines, the total capped.
	ModeScale Mode = "scale"
)

const (
	// DefaultScaleMaxBytes caps a scale home at about 1.5 GB so it fits CI disks.
	DefaultScaleMaxBytes int64 = 1_500_000_000
	// DefaultHugeBytes is the smallest size of a "huge" scale transcript.
	DefaultHugeBytes int64 = 50 << 20

	defaultSessions      = 12
	defaultRepos         = 4
	defaultScaleSessions = 10000
	defaultScaleRepos    = 40
)

// Options tell Generate what to write.
type Options struct {
	// Home receives .claude/, .claude.json, src/<repo>/ and the manifest.
	Home string
	// ConfigDir overrides Home/.claude, as CLAUDE_CONFIG_DIR does; when set,
	// .claude.json is written inside it, as Claude Code does.
	ConfigDir string
	Mode      Mode
	// Sessions and Repos default to 12 and 4 (10,000 and 40 in scale mode).
	// The demo has a fixed cast and ignores them.
	Sessions int
	Repos    int
	// Seed makes the output reproducible: the same Seed, Options and Now give
	// byte-identical files (paths aside, which embed Home).
	Seed uint64
	// Now anchors every timestamp and mtime; sessions spread over the 60
	// days before it. Zero means time.Now().
	Now time.Time
	// MaxBytes caps the total transcript size (default 1.5 GB in scale mode,
	// unlimited otherwise).
	MaxBytes int64
	// HugeFiles is the number of 50 MB+ transcripts in scale mode: zero
	// means one per 2,000 sessions (at least one), negative means none.
	HugeFiles int
	// HugeBytes is the minimum size of each huge transcript (default 50 MiB).
	HugeBytes int64
	// PromptBytes, when positive, makes a text-heavy home: each typed
	// prompt gets a pasted block of prose after it, of 0.5–1.5× this many
	// bytes (mean PromptBytes). Zero writes the prompts as before.
	PromptBytes int
	// ReplyBytes, when positive, makes each turn's closing text reply
	// 0.5–1.5× this many bytes (mean ReplyBytes) instead of 0.2–1.7 KB; the
	// extra bytes come out of the turn's tool payload, so the transcript
	// sizes (and MaxBytes) stay what they would be.
	ReplyBytes int
	// Workers bounds parallel transcript writers (default GOMAXPROCS).
	Workers int
	// Progress, when set, receives a line per thousand sessions written.
	Progress io.Writer
}

func (o *Options) normalize() error {
	if o.Home == "" {
		return errors.New("home directory is required")
	}
	home, err := filepath.Abs(o.Home)
	if err != nil {
		return err
	}
	o.Home = home
	if o.ConfigDir == "" {
		o.ConfigDir = filepath.Join(home, ".claude")
	} else if o.ConfigDir, err = filepath.Abs(o.ConfigDir); err != nil {
		return err
	}
	switch o.Mode {
	case "":
		o.Mode = ModeDefault
	case ModeDefault, ModeDemo, ModeScale:
	default:
		return fmt.Errorf("unknown mode %q", o.Mode)
	}
	if o.Sessions < 0 || o.Repos < 0 {
		return errors.New("sessions and repos must not be negative")
	}
	if o.Sessions == 0 {
		o.Sessions = defaultSessions
		if o.Mode == ModeScale {
			o.Sessions = defaultScaleSessions
		}
	}
	if o.Repos == 0 {
		o.Repos = defaultRepos
		if o.Mode == ModeScale {
			o.Repos = defaultScaleRepos
		}
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	o.Now = o.Now.UTC().Truncate(time.Millisecond)
	if o.PromptBytes < 0 || o.ReplyBytes < 0 {
		return errors.New("prompt and reply bytes must not be negative")
	}
	if o.MaxBytes < 0 {
		return errors.New("max bytes must not be negative")
	}
	if o.MaxBytes == 0 && o.Mode == ModeScale {
		o.MaxBytes = DefaultScaleMaxBytes
	}
	if o.HugeBytes <= 0 {
		o.HugeBytes = DefaultHugeBytes
	}
	switch {
	case o.Mode != ModeScale || o.HugeFiles < 0:
		o.HugeFiles = -1
	case o.HugeFiles == 0:
		o.HugeFiles = max(1, o.Sessions/2000)
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.MaxBytes > 0 && int64(o.Sessions)*minTarget > o.MaxBytes {
		return fmt.Errorf("max bytes %d is too small for %d sessions (need at least %d)", o.MaxBytes, o.Sessions, int64(o.Sessions)*minTarget)
	}
	return nil
}

// claudeJSONPath follows Claude Code: ~/.claude.json, or inside
// CLAUDE_CONFIG_DIR when that is set.
func (o *Options) claudeJSONPath() string {
	if o.ConfigDir == filepath.Join(o.Home, ".claude") {
		return filepath.Join(o.Home, ".claude.json")
	}
	return filepath.Join(o.ConfigDir, ".claude.json")
}
