package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/msg"
)

// Config is one config.toml, decoded.
type Config struct {
	// Path is the file Load was given, used to name it in messages.
	Path string
	// Exists is false when the file was absent and the config is empty.
	Exists bool

	Launch Launch
	Proxy  Proxy
	Resume Resume

	// Ignored lists, in file order, the dotted keys this package does not
	// read (other commands' sections, unknown keys under [launch] or
	// [proxy]). A table is listed only when it holds nothing listed.
	Ignored []string
}

// Launch is the [launch] table.
type Launch struct {
	Defaults Profile
	Projects []ProjectProfile
}

// Profile is [launch.defaults], and the overriding part of a [[launch.project]].
type Profile struct {
	Harness        string `toml:"harness"`
	Model          string `toml:"model"`
	Effort         string `toml:"effort"`
	PermissionMode string `toml:"permission_mode"`
	// AllowDanger is a pointer so that a project's explicit false can
	// override a default of true.
	AllowDanger *bool             `toml:"allow_danger"`
	BinaryPath  string            `toml:"binary_path"`
	AddDir      []string          `toml:"add_dir"`
	Env         map[string]string `toml:"env"`
}

// ProjectProfile is one [[launch.project]] entry.
type ProjectProfile struct {
	Match string `toml:"match"`
	Profile
}

// Proxy is the [proxy] table.
type Proxy struct {
	LaunchProfile string                  `toml:"launch_profile"`
	Profiles      map[string]ProxyProfile `toml:"profiles"`
}

// ProxyProfile is one [proxy.profiles.<name>] table.
type ProxyProfile struct {
	HTTPProxy  string `toml:"http_proxy"`
	HTTPSProxy string `toml:"https_proxy"`
	NoProxy    string `toml:"no_proxy"`
	AllProxy   string `toml:"all_proxy"`
}

// Resume is the [resume] table.
type Resume struct {
	OnUpdate []OnUpdate
	// Harnesses are the agents resume lists by default ("claude",
	// "codex"); empty means every one whose home exists.
	Harnesses []string
	// CodexBinaryPath is the codex a resume of a Codex thread runs;
	// FORGECTL_CODEX_BIN wins over it, PATH is the fallback.
	CodexBinaryPath string
	// WarnContextTokens is warn_context_tokens: a resume of a session whose
	// context is above it asks first in the picker, and --dry-run names
	// the figure; 0 (the default) never warns.
	WarnContextTokens int64
	// Prices is [resume.prices]: per model, what a million tokens cost in
	// USD. Nothing is priced without it: forgectl compiles in no prices,
	// which would go stale.
	Prices map[string]Price
}

// Price is one [resume.prices] entry, in USD per million tokens.
type Price struct {
	CacheWrite float64 `toml:"cache_write"`
	CacheRead  float64 `toml:"cache_read"`
}

// PriceFor is the price of model: the entry named exactly so, else the
// one with the longest name that begins it ("claude-opus-4" prices
// claude-opus-4-5-20251101); ok is false when none does.
func (r *Resume) PriceFor(model string) (Price, bool) {
	if p, ok := r.Prices[model]; ok {
		return p, true
	}
	best, found := "", false
	for name := range r.Prices {
		if name != "" && strings.HasPrefix(model, name) && len(name) > len(best) {
			best, found = name, true
		}
	}
	return r.Prices[best], found
}

// KnownHarnesses are the agents resume can list.
var KnownHarnesses = []string{"claude", "codex"}

// Error is one problem in a config file.
type Error struct {
	File string // the path given to Load
	Line int    // 1-based; 0 when the line is not known
	// Table is the dotted table the problem is in ("launch.defaults",
	// "resume.on_update"); empty for a syntax error or a top-level key.
	Table string
	// Entry is the 1-based position of an array-of-tables entry, else 0.
	Entry int
	// Key is the key at fault, relative to Table; may be empty.
	Key    string
	Reason string
	// Hint is the next step for the user; may be empty.
	Hint string
	// Err is the underlying error (a toml.ParseError, a read error), if any.
	Err error
}

// Error reads "<file>[:<line>]: <where>: <reason>", leaving out the parts
// that are unknown.
func (e *Error) Error() string {
	parts := make([]string, 0, 3)
	if e.File != "" {
		at := e.File
		if e.Line > 0 {
			at += ":" + strconv.Itoa(e.Line)
		}
		parts = append(parts, at)
	}
	if w := e.Where(); w != "" {
		parts = append(parts, w)
	}
	return strings.Join(append(parts, e.Reason), ": ")
}

// Where names the table as the user wrote it: "[launch.defaults]" or
// "[[resume.on_update]] entry 2"; empty when the problem has no table.
func (e *Error) Where() string {
	switch {
	case e.Table == "":
		return ""
	case e.Entry > 0:
		return fmt.Sprintf("[[%s]] entry %d", e.Table, e.Entry)
	}
	return "[" + e.Table + "]"
}

func (e *Error) Unwrap() error { return e.Err }

// ErrorList is every problem found in one file, in the order they were found.
// Load returns one whenever the file is unreadable or invalid.
type ErrorList []*Error

// Error joins the problems one per line; a command-line caller should rather
// print each element under its own "forgectl: error:" prefix.
func (l ErrorList) Error() string {
	msgs := make([]string, len(l))
	for i, e := range l {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// Unwrap lets errors.As find the first *Error.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// Load reads and validates the config file at path. A file that does not
// exist yields an empty config with Exists false and no error.
//
// Any other failure is an ErrorList. The returned Config is then still
// non-nil and holds whatever did decode, for doctor to report on; a launch
// or a resume must not proceed from it.
func Load(path string) (*Config, error) {
	if path == "" {
		return &Config{}, ErrorList{{Reason: "no config file path given"}}
	}
	data, err := fsutil.ReadRegular(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Config{Path: path}, nil
	}
	if err != nil {
		hint := "check the file's permissions"
		if errors.Is(err, fsutil.ErrNotRegular) { // a FIFO or a device: never opened, it could block
			hint = "replace it with a regular file, or remove it to use the built-in defaults ('forgectl init' writes a commented one)"
		}
		return &Config{Path: path}, ErrorList{{
			File:   path,
			Reason: "cannot read the config file: " + errReason(err),
			Hint:   hint,
			Err:    err,
		}}
	}
	return Parse(path, data)
}

// Parse decodes and validates data as the contents of the file at path, which
// is used only in messages. Its results are as Load's for an existing file.
func Parse(path string, data []byte) (*Config, error) {
	cfg := &Config{Path: path, Exists: true}
	if problems := decode(cfg, string(data)); len(problems) > 0 {
		for _, p := range problems {
			p.File = path
		}
		return cfg, problems
	}
	return cfg, nil
}

// errReason strips the path from a *fs.PathError: the message names the file already.
func errReason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Report prints every problem in err (an ErrorList from Load, or any other
// error) as an error line, each followed by its hint when it has one, in
// the suite's message format.
func Report(w io.Writer, err error) {
	var list ErrorList
	if !errors.As(err, &list) {
		msg.Errorf(w, "%v", err)
		return
	}
	for _, e := range list {
		msg.Errorf(w, "%s", e.Error())
		if e.Hint != "" {
			msg.Hintf(w, "%s", e.Hint)
		}
	}
}
