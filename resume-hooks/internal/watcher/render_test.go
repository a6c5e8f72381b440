package watcher

import (
	"encoding/xml"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"forgectl.dev/shared/hookstate"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// awkward is a bake whose every path needs escaping somewhere: spaces,
// "&" and "<" for XML, "%" and "$" and quotes for systemd, "'" for sh.
func awkward() Bake {
	return Bake{
		Forgectl:        "/Users/a b/tools & more/<bin>/forgectl",
		Claude:          "/Users/a b/.local/bin/claude",
		Herdr:           `/opt/h&r<dr> 100%/"$HOME"/it's/herdr`,
		HerdrSocket:     "/Users/a b/.config/herdr/herdr.sock",
		ConfigDir:       "/Users/a b/Library/Application Support/forgectl",
		ClaudeConfigDir: `/Users/a b/claude & <co> 100% "$x"`,
		WorkDir:         "/Users/a b/Library/Application Support/forgectl/resume-hooks",
		Log:             "/Users/a b/Library/Application Support/forgectl/resume-hooks/watcher.log",
		Trigger:         hookstate.TriggerLaunchd,
	}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Fatalf("%s (-golden +got):\n%s", path, d)
	}
}

func TestPlistGolden(t *testing.T) {
	golden(t, "plist", Plist(awkward()))
}

// plistStrings decodes every <key>, <string> and <integer> of a plist in order,
// proving the XML is well formed and its escaping reversible.
func plistStrings(t *testing.T, doc string) []string {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(doc))
	d.Strict = true
	var out []string
	var in string
	for {
		tok, err := d.Token()
		if err != nil {
			if err.Error() == "EOF" {
				return out
			}
			t.Fatalf("the plist is not well-formed XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			in = tok.Name.Local
		case xml.CharData:
			if in == "string" || in == "key" || in == "integer" {
				out = append(out, string(tok))
			}
		case xml.EndElement:
			in = ""
		}
	}
}

func TestPlistRoundTrips(t *testing.T) {
	b := awkward()
	got := plistStrings(t, Plist(b))
	want := []string{
		"Label", "local.forgectl.resume-hooks",
		"ProgramArguments", b.Forgectl, "resume", "hooks", "run",
		"EnvironmentVariables",
		"CLAUDE_CONFIG_DIR", b.ClaudeConfigDir,
		"FORGECTL_CLAUDE_BIN", b.Claude,
		"FORGECTL_CONFIG_DIR", b.ConfigDir,
		"FORGECTL_HERDR_BIN", b.Herdr,
		"FORGECTL_HOOKS_TRIGGER", "launchd",
		"HERDR_SOCKET_PATH", b.HerdrSocket,
		"PATH", `/Users/a b/.local/bin:/opt/h&r<dr> 100%/"$HOME"/it's:/Users/a b/tools & more/<bin>:/usr/bin:/bin:/usr/sbin:/sbin`,
		"WatchPaths", b.Claude, "/Users/a b/.local/bin",
		"RunAtLoad", "StartInterval", "1800",
		// launchd kills 120 s after the SIGTERM, not 20; umask 0077.
		"ExitTimeOut", "120", "Umask", "63",
		"WorkingDirectory", b.WorkDir,
		"StandardOutPath", b.Log, "StandardErrorPath", b.Log,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("plist strings (-want +got):\n%s", d)
	}
}

func TestPlistLeavesOutWhatIsNotSet(t *testing.T) {
	b := awkward()
	b.Herdr, b.HerdrSocket, b.ClaudeConfigDir = "", "", ""
	doc := Plist(b)
	for _, k := range []string{"FORGECTL_HERDR_BIN", "HERDR_SOCKET_PATH", "CLAUDE_CONFIG_DIR"} {
		if strings.Contains(doc, k) {
			t.Errorf("plist sets %s though it is unset", k)
		}
	}
	// The config directory is baked always: the job has no XDG_CONFIG_HOME
	// to find it by.
	if !strings.Contains(doc, "<key>FORGECTL_CONFIG_DIR</key>") {
		t.Error("plist lacks FORGECTL_CONFIG_DIR")
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Bake)
		err    string
	}{
		{"complete", func(*Bake) {}, ""},
		{"no herdr, socket or claude config directory", func(b *Bake) { b.Herdr, b.HerdrSocket, b.ClaudeConfigDir = "", "", "" }, ""},
		{"no config directory", func(b *Bake) { b.ConfigDir = "" }, "the watcher needs the path of the config directory"},
		{"no log", func(b *Bake) { b.Log = "" }, "the watcher needs the path of the config directory"},
		{"a relative claude config directory", func(b *Bake) { b.ClaudeConfigDir = "claude" }, "the path of CLAUDE_CONFIG_DIR is not absolute: claude"},
		{"a control character in the log", func(b *Bake) { b.Log += "\n" }, "holds a control character"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := awkward()
			tc.change(&b)
			err := b.Validate()
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("err = %v, want %q", err, tc.err)
			}
		})
	}
}

func TestUnitsGolden(t *testing.T) {
	b := awkward()
	b.Trigger = hookstate.TriggerSystemd
	units := Units(b)
	for i, name := range []string{"service", "path", "timer"} {
		golden(t, name, units[i])
	}
	b.Trigger = hookstate.TriggerCron
	golden(t, "cron", CronLine(b)+"\n")
}

// TestUnitsVerify has systemd itself parse the units, with paths as awkward
// as the golden ones but real (systemd-analyze checks that the program
// exists and is executable).
func TestUnitsVerify(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed")
	}
	root := t.TempDir()
	mk := func(rel string) string {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	work := filepath.Join(root, "cfg & <x> 100%", "resume-hooks")
	os.MkdirAll(work, 0o700)
	b := Bake{
		Forgectl:        mk("tools & more/<bin> $x/forgectl"),
		Claude:          mk("local bin/claude"),
		Herdr:           mk(`h&r<dr> 100%/"q"/herdr`),
		HerdrSocket:     filepath.Join(root, "sock et"),
		ConfigDir:       filepath.Dir(work),
		ClaudeConfigDir: filepath.Join(root, `claude "$x" 100%`),
		WorkDir:         work,
		Log:             filepath.Join(work, "watcher.log"),
		Trigger:         hookstate.TriggerSystemd,
	}
	unitDir := filepath.Join(root, "units")
	os.MkdirAll(unitDir, 0o755)
	var files []string
	for i, ext := range []string{".service", ".path", ".timer"} {
		f := filepath.Join(unitDir, hookstate.Unit+ext)
		os.WriteFile(f, []byte(Units(b)[i]), 0o644)
		files = append(files, f)
	}
	out, err := exec.Command(analyze, append([]string{"verify"}, files...)...).CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}
