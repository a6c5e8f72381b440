package pickcache

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"forgectl.dev/forgectl/internal/sessions"
)

func tail(s *sessions.Session) string { return "  " + s.Repo + "  " + s.Name }

func sample() []sessions.Session {
	at := time.Date(2026, 11, 29, 10, 0, 0, 123, time.UTC)
	return []sessions.Session{
		{ID: "aaaa-1", Name: "Login work", NameSource: "custom-title", FirstPrompt: "fix login",
			LastPrompt: strings.Repeat("é", 400), // 800 bytes: cut on a rune boundary
			Cwd:        "/src/api", CwdExists: true, Repo: "api", Branch: "main", LastActivity: at,
			Live: true, Pid: 4242, Tmux: "%3", Messages: 9},
		{ID: "bbbb-2", Cwd: "/gone", Repo: "gone", LastActivity: at.Add(-time.Hour), Hidden: true, HiddenReason: "sidechain"},
	}
}

func TestRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cache", "picker-rows")
	list := sample()
	enc := Encode("/home/u/.claude/projects", list, tail)
	if err := Save(p, enc); err != nil {
		t.Fatal(err)
	}
	got, raw, err := Load(p, "/home/u/.claude/projects")
	if err != nil || len(got) != 2 {
		t.Fatalf("Load: %d entries, %v", len(got), err)
	}
	if raw != string(enc) {
		t.Error("Load's bytes differ from what was saved")
	}
	if string(Encode("/home/u/.claude/projects", list, tail)) != string(enc) {
		t.Error("the same list encoded to different bytes: an unchanged cache would be rewritten")
	}
	for i, e := range got {
		want := list[i]
		if !e.LastActivity.Equal(want.LastActivity) || e.Hidden != want.Hidden || e.Tail != tail(&want) {
			t.Errorf("entry %d: %+v", i, e)
		}
		s, err := e.Session()
		if err != nil {
			t.Fatalf("entry %d: Session: %v", i, err)
		}
		if s.ID != want.ID || s.Name != want.Name || s.NameSource != want.NameSource || s.Cwd != want.Cwd ||
			s.CwdExists != want.CwdExists || s.Repo != want.Repo || s.Branch != want.Branch ||
			s.Live != want.Live || s.Pid != want.Pid || s.Tmux != want.Tmux || s.FirstPrompt != want.FirstPrompt ||
			!s.LastActivity.Equal(want.LastActivity) || s.Hidden != want.Hidden {
			t.Errorf("entry %d: Session() = %+v\nwant %+v", i, s, want)
		}
	}
	s, _ := got[0].Session()
	if len(s.LastPrompt) > maxPrompt || !utf8.ValidString(s.LastPrompt) || !strings.HasPrefix(list[0].LastPrompt, s.LastPrompt) {
		t.Errorf("long prompt kept as %d bytes (valid UTF-8: %v)", len(s.LastPrompt), utf8.ValidString(s.LastPrompt))
	}
	if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("cache file mode: %v %v", st.Mode(), err)
	}
}

func TestUnusableFiles(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "picker-rows")
	if got, raw, err := Load(p, "/r"); got != nil || raw != "" || err != nil {
		t.Errorf("missing file: %v %q %v", got, raw, err)
	}
	enc := Encode("/r", sample(), tail)
	os.WriteFile(p, enc, 0o600)
	// Another CLAUDE_CONFIG_DIR's cache is never shown, and is not an error.
	if got, _, err := Load(p, "/other"); got != nil || err != nil {
		t.Errorf("other root: %d entries, %v", len(got), err)
	}
	// Another format's cache is not used, silently.
	other := append([]byte(magic), 99)
	os.WriteFile(p, other, 0o600)
	if got, raw, err := Load(p, "/r"); got != nil || err != nil || raw != string(other) {
		t.Errorf("other format: %d entries, %v", len(got), err)
	}
	os.WriteFile(p, []byte("not a cache at all"), 0o600)
	if got, _, err := Load(p, "/r"); got != nil || err == nil {
		t.Errorf("foreign file: %d entries, %v", len(got), err)
	}
	// Cut anywhere, the cache is refused or (cut inside a detail) the
	// damaged entry says so; never a panic, never a wrong session.
	for cut := len(magic); cut < len(enc); cut++ {
		os.WriteFile(p, enc[:cut], 0o600)
		got, _, err := Load(p, "/r")
		if err == nil && got != nil {
			t.Fatalf("cut at %d of %d: loaded %d entries without an error", cut, len(enc), len(got))
		}
	}
	// A length byte flipped inside the details section: the file loads (the
	// rows are intact), and the damaged entry says so when a preview or a
	// choice decodes it.
	os.WriteFile(p, enc, 0o600)
	good, _, err := Load(p, "/r")
	if err != nil {
		t.Fatal(err)
	}
	at := strings.Index(string(enc), good[0].detail)
	damaged := append([]byte(nil), enc...)
	damaged[at] = 0x7f // the id's length, now past the end of the detail
	os.WriteFile(p, damaged, 0o600)
	list, _, err := Load(p, "/r")
	if err != nil || len(list) != 2 {
		t.Fatalf("a damaged detail failed the whole load: %d entries, %v", len(list), err)
	}
	if _, err := list[0].Session(); err == nil {
		t.Error("a damaged detail decoded without an error")
	}
	if s, err := list[1].Session(); err != nil || s.ID != "bbbb-2" {
		t.Errorf("the undamaged entry: %+v, %v", s, err)
	}
}
