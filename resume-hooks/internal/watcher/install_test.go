package watcher

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"forgectl.dev/shared/hookstate"
	"forgectl.dev/shared/poll"
)

// script plays launchctl or systemctl: each call is logged, and answered
// by the first matching rule still holding answers.
type script struct {
	calls []string
	rules []rule
}

type rule struct {
	prefix  string
	answers []hookstate.Result // consumed in order; the last one repeats
}

func (s *script) run(_ context.Context, name string, args ...string) hookstate.Result {
	call := strings.Join(append([]string{name}, args...), " ")
	s.calls = append(s.calls, call)
	for i := range s.rules {
		r := &s.rules[i]
		if strings.HasPrefix(call, r.prefix) {
			a := r.answers[0]
			if len(r.answers) > 1 {
				r.answers = r.answers[1:]
			}
			return a
		}
	}
	return hookstate.Result{Code: 0}
}

type installRig struct {
	home   string
	files  hookstate.Files
	sh     *script
	stdout bytes.Buffer
	stderr bytes.Buffer
	sleeps int
	in     *Installer
}

func newInstallRig(t *testing.T, goos string, rules ...rule) *installRig {
	home := t.TempDir()
	g := &installRig{home: home, files: hookstate.Files{Dir: filepath.Join(home, "cfg", "resume-hooks")}, sh: &script{rules: rules}}
	g.in = &Installer{
		Env: hookstate.Env{Files: g.files, GOOS: goos, Home: home, UID: 501,
			Getenv: func(string) string { return "" }, Run: g.sh.run},
		Now:     func() time.Time { return time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC) },
		Sleep:   func(context.Context, time.Duration) error { g.sleeps++; return nil },
		Stdout:  &g.stdout,
		Stderr:  &g.stderr,
		Trigger: hookstate.TriggerManual,
	}
	return g
}

// realBake points at real files in the rig's home: a claude symlink into a
// versions directory, a forgectl, a herdr.
func (g *installRig) realBake(t *testing.T) Bake {
	t.Helper()
	mk := func(p string) string {
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755)
		return p
	}
	target := mk(filepath.Join(g.home, ".local", "share", "claude", "versions", "2.1.1"))
	link := filepath.Join(g.home, ".local", "bin", "claude")
	os.MkdirAll(filepath.Dir(link), 0o755)
	os.Symlink(target, link)
	return Bake{
		Forgectl:  mk(filepath.Join(g.home, "bin", "forgectl")),
		Claude:    link,
		Herdr:     mk(filepath.Join(g.home, "bin", "herdr")),
		ConfigDir: filepath.Dir(g.files.Dir),
		WorkDir:   g.files.Dir,
		Log:       g.files.WatcherLog(),
		Trigger:   hookstate.TriggerLaunchd,
	}
}

func (g *installRig) audit(t *testing.T) []string {
	t.Helper()
	recs, err := hookstate.ReadRecords(g.files, -1)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range recs {
		out = append(out, r.Event+" "+r.Outcome+" "+r.Detail)
	}
	return out
}

const notLoaded = 113

func TestLaunchdInstall(t *testing.T) {
	target := "launchctl print gui/501/local.forgectl.resume-hooks"
	tests := []struct {
		name   string
		rules  []rule
		calls  []string
		sleeps int
		err    string
	}{
		{"fresh", []rule{{target, []hookstate.Result{{Code: notLoaded}}}},
			[]string{target, "launchctl bootstrap gui/501 PLIST"}, 0, ""},
		{"loaded: unloaded first, a refused load retried", []rule{
			{target, []hookstate.Result{{Code: 0}}},
			{"launchctl bootstrap", []hookstate.Result{{Code: 5, Stderr: []byte("Bootstrap failed: 5: Input/output error")}, {Code: 5}, {Code: 0}}},
		}, []string{target, "launchctl bootout gui/501/local.forgectl.resume-hooks",
			"launchctl bootstrap gui/501 PLIST", "launchctl bootstrap gui/501 PLIST", "launchctl bootstrap gui/501 PLIST"}, 2, ""},
		{"a load refused every time", []rule{
			{target, []hookstate.Result{{Code: notLoaded}}},
			{"launchctl bootstrap", []hookstate.Result{{Code: 5, Stderr: []byte("Bootstrap failed: 5: Input/output error")}}},
		}, []string{target, "launchctl bootstrap gui/501 PLIST", "launchctl bootstrap gui/501 PLIST",
			"launchctl bootstrap gui/501 PLIST", "launchctl bootstrap gui/501 PLIST"}, 3,
			"launchd refused to load it 4 times (launchctl bootstrap: exit 5: Bootstrap failed: 5: Input/output error)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := newInstallRig(t, "darwin", tc.rules...)
			b := g.realBake(t)
			err := g.in.Install(context.Background(), b, false)
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("err = %v, want %q", err, tc.err)
			}
			plist := hookstate.PlistPath(g.home)
			var calls []string
			for _, c := range g.sh.calls {
				calls = append(calls, strings.ReplaceAll(c, plist, "PLIST"))
			}
			if d := cmp.Diff(tc.calls, calls); d != "" {
				t.Fatalf("launchctl calls (-want +got):\n%s", d)
			}
			if g.sleeps != tc.sleeps {
				t.Fatalf("slept %d times, want %d", g.sleeps, tc.sleeps)
			}
			got, _ := os.ReadFile(plist)
			if string(got) != Plist(b) {
				t.Fatal("the plist on disk is not the rendered one")
			}
			if st, _ := os.Stat(g.files.Dir); st == nil || st.Mode().Perm() != 0o700 {
				t.Fatal("the working directory is missing or not owner-only")
			}
			if st, _ := os.Stat(b.Log); st == nil || st.Mode().Perm() != 0o600 {
				t.Fatal("the watcher log is missing or not owner-only")
			}
			line := "install ok " + plist
			if tc.err != "" {
				// The reason is kept, not only the file.
				line = "install failed " + plist + ": wrote " + plist + " but " + tc.err
			}
			if d := cmp.Diff([]string{line}, g.audit(t)); d != "" {
				t.Fatalf("audit (-want +got):\n%s", d)
			}
		})
	}
}

// A log an older install left readable (or a looser umask created) is made
// owner-only by the next install, as is its directory.
func TestInstallMakesTheLogOwnerOnly(t *testing.T) {
	for _, goos := range []string{"darwin", "linux"} {
		t.Run(goos, func(t *testing.T) {
			g := newInstallRig(t, goos, rule{"launchctl print", []hookstate.Result{{Code: notLoaded}}})
			b := g.realBake(t)
			if err := os.MkdirAll(g.files.Dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(g.files.Dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(b.Log, []byte("earlier runs\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(b.Log, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := g.in.Install(context.Background(), b, false); err != nil {
				t.Fatal(err)
			}
			got := map[string]os.FileMode{}
			for _, p := range []string{g.files.Dir, b.Log} {
				st, err := os.Stat(p)
				if err != nil {
					t.Fatal(err)
				}
				got[p] = st.Mode().Perm()
			}
			if d := cmp.Diff(map[string]os.FileMode{g.files.Dir: 0o700, b.Log: 0o600}, got); d != "" {
				t.Fatalf("modes (-want +got):\n%s", d)
			}
			if content, _ := os.ReadFile(b.Log); string(content) != "earlier runs\n" {
				t.Fatalf("the log's content changed: %q", content)
			}
		})
	}
}

// A FIFO where the watcher log goes fails the install, naming the file,
// before anything is loaded; a plain open for appending would block on it
// until a reader came.
func TestInstallRefusesAFIFOLog(t *testing.T) {
	for _, goos := range []string{"darwin", "linux"} {
		t.Run(goos, func(t *testing.T) {
			g := newInstallRig(t, goos, rule{"launchctl print", []hookstate.Result{{Code: notLoaded}}})
			b := g.realBake(t)
			if err := os.MkdirAll(g.files.Dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(b.Log, 0o600); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- g.in.Install(context.Background(), b, false) }()
			var err error
			select {
			case err = <-done:
			case <-time.After(poll.Long):
				t.Fatal("install blocked on the FIFO log")
			}
			if want := "open " + b.Log + ": is a FIFO, not a regular file"; err == nil || err.Error() != want {
				t.Fatalf("err = %v, want %q", err, want)
			}
			for _, c := range g.sh.calls {
				if strings.Contains(c, "bootstrap") || strings.Contains(c, "enable") {
					t.Fatalf("loaded after the log failed: %v", g.sh.calls)
				}
			}
		})
	}
}

func TestLaunchdFailedUnloadKeepsTheOldPlist(t *testing.T) {
	g := newInstallRig(t, "darwin",
		rule{"launchctl print", []hookstate.Result{{Code: 0}}},
		rule{"launchctl bootout", []hookstate.Result{{Code: 1, Stderr: []byte("Boot-out failed: 1: Operation not permitted")}}})
	b := g.realBake(t)
	plist := hookstate.PlistPath(g.home)
	os.MkdirAll(filepath.Dir(plist), 0o755)
	os.WriteFile(plist, []byte("old"), 0o644)
	err := g.in.Install(context.Background(), b, false)
	if err == nil || !strings.Contains(err.Error(), "cannot unload the loaded watcher (launchctl bootout: exit 1: Boot-out failed: 1: Operation not permitted); the old plist stays in place") {
		t.Fatalf("err = %v", err)
	}
	if got, _ := os.ReadFile(plist); string(got) != "old" {
		t.Fatalf("the plist was replaced: %q", got)
	}
	want := []string{"install failed " + plist + ": cannot unload the loaded watcher (launchctl bootout: exit 1: Boot-out failed: 1: Operation not permitted); the old plist stays in place"}
	if d := cmp.Diff(want, g.audit(t)); d != "" {
		t.Fatalf("audit (-want +got):\n%s", d)
	}
	for _, c := range g.sh.calls {
		if strings.Contains(c, "bootstrap") {
			t.Fatal("loaded after a failed unload")
		}
	}
}

func TestDryRunPrintsOnly(t *testing.T) {
	for _, goos := range []string{"darwin", "linux"} {
		t.Run(goos, func(t *testing.T) {
			g := newInstallRig(t, goos)
			b := g.realBake(t)
			if err := g.in.Install(context.Background(), b, true); err != nil {
				t.Fatal(err)
			}
			if len(g.sh.calls) != 0 {
				t.Fatalf("a dry run called %q", g.sh.calls)
			}
			want := Plist(b)
			if goos == "linux" {
				want = Units(b)[0]
			}
			if !strings.Contains(g.stdout.String(), want) {
				t.Fatalf("stdout:\n%s", g.stdout.String())
			}
			if _, err := os.Stat(hookstate.PlistPath(g.home)); err == nil {
				t.Fatal("a dry run wrote the plist")
			}
			if _, err := os.Stat(g.files.Dir); err == nil {
				t.Fatal("a dry run created the store")
			}
		})
	}
}

func TestLaunchdUninstallIsRepeatable(t *testing.T) {
	g := newInstallRig(t, "darwin",
		rule{"launchctl print", []hookstate.Result{{Code: 0}, {Code: notLoaded}}})
	plist := hookstate.PlistPath(g.home)
	os.MkdirAll(filepath.Dir(plist), 0o755)
	os.WriteFile(plist, []byte("<plist/>"), 0o644)
	for range 2 {
		if err := g.in.Uninstall(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		"launchctl print gui/501/local.forgectl.resume-hooks", "launchctl bootout gui/501/local.forgectl.resume-hooks",
		"launchctl print gui/501/local.forgectl.resume-hooks",
	}
	if d := cmp.Diff(want, g.sh.calls); d != "" {
		t.Fatalf("calls (-want +got):\n%s", d)
	}
	if _, err := os.Stat(plist); !os.IsNotExist(err) {
		t.Fatal("the plist is still there")
	}
	if g.stdout.String() != "removed "+plist+"\nnot installed: nothing to remove\n" {
		t.Fatalf("stdout %q", g.stdout.String())
	}
	if d := cmp.Diff([]string{"uninstall ok " + plist, "uninstall ok " + plist}, g.audit(t)); d != "" {
		t.Fatalf("audit (-want +got):\n%s", d)
	}
}

func TestSystemdInstall(t *testing.T) {
	g := newInstallRig(t, "linux")
	b := g.realBake(t)
	b.Trigger = hookstate.TriggerSystemd
	if err := g.in.Install(context.Background(), b, false); err != nil {
		t.Fatal(err)
	}
	files := hookstate.UnitFiles(g.in.Env.Getenv, g.home)
	for i, f := range files {
		got, err := os.ReadFile(f)
		if err != nil || string(got) != Units(b)[i] {
			t.Fatalf("%s: %v", f, err)
		}
	}
	want := []string{
		"systemctl --user show-environment", "systemctl --user daemon-reload",
		"systemctl --user enable --now forgectl-resume-hooks.path forgectl-resume-hooks.timer",
	}
	if d := cmp.Diff(want, g.sh.calls); d != "" {
		t.Fatalf("calls (-want +got):\n%s", d)
	}
	// Again: the running units are stopped before their files change.
	g.sh.calls = nil
	if err := g.in.Install(context.Background(), b, false); err != nil {
		t.Fatal(err)
	}
	if g.sh.calls[1] != "systemctl --user stop forgectl-resume-hooks.path forgectl-resume-hooks.timer" {
		t.Fatalf("reinstall calls %q", g.sh.calls)
	}
	g.sh.calls = nil
	if err := g.in.Uninstall(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Fatalf("%s survived the uninstall", f)
		}
	}
	want = []string{"systemctl --user show-environment",
		"systemctl --user disable --now forgectl-resume-hooks.path forgectl-resume-hooks.timer", "systemctl --user daemon-reload"}
	if d := cmp.Diff(want, g.sh.calls); d != "" {
		t.Fatalf("uninstall calls (-want +got):\n%s", d)
	}
}

func TestSystemdMissingPrintsUnitsAndCron(t *testing.T) {
	g := newInstallRig(t, "linux", rule{"systemctl --user show-environment", []hookstate.Result{{Code: 1, Stderr: []byte("Failed to connect to bus: No medium found")}}})
	b := g.realBake(t)
	b.Trigger = hookstate.TriggerSystemd
	err := g.in.Install(context.Background(), b, false)
	if !errors.Is(err, ErrNoServiceManager) {
		t.Fatalf("err = %v", err)
	}
	out := g.stdout.String()
	cron := b
	cron.Trigger = hookstate.TriggerCron
	for _, want := range append(Units(b), CronLine(cron)) {
		if !strings.Contains(out, want) {
			t.Fatalf("stdout lacks\n%s\nin\n%s", want, out)
		}
	}
	if _, err := os.Stat(hookstate.UnitDir(g.in.Env.Getenv, g.home)); err == nil {
		t.Fatal("units were written without systemd")
	}
}

func TestWarnings(t *testing.T) {
	g := newInstallRig(t, "darwin")
	b := g.realBake(t)
	if w := b.Warnings(os.Getuid()); len(w) != 0 {
		t.Fatalf("a clean setup warned: %q", w)
	}
	wrapper := filepath.Join(g.home, "wrapper", "claude")
	os.MkdirAll(filepath.Dir(wrapper), 0o755)
	os.WriteFile(wrapper, []byte("#!/bin/sh\nexec claude-real \"$@\"\n"), 0o755)
	b.Claude = wrapper
	shared := filepath.Dir(b.Herdr)
	if err := os.Chmod(shared, 0o775); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"the claude it watches (" + wrapper + ") is not a symlink into a versions directory: an update never touches such a file, so only the load-time and 30-minute runs will notice one",
		shared + " is group- or other-writable (-rwxrwxr-x): another user could change what the watcher runs unattended",
	}
	if d := cmp.Diff(want, b.Warnings(os.Getuid())); d != "" {
		t.Fatalf("warnings (-want +got):\n%s", d)
	}
	os.Chmod(shared, 0o755)
	// Owned by someone else: as root, hand herdr to another uid; otherwise
	// ask as if this process were another user.
	me, owner, asUID := os.Getuid(), os.Getuid(), os.Getuid()+1
	if me == 0 {
		owner, asUID = 4242, 0
		if err := os.Lchown(b.Herdr, owner, -1); err != nil {
			t.Fatal(err)
		}
	}
	found := false
	for _, w := range b.Warnings(asUID) {
		if w == fmt.Sprintf("%s is owned by uid %d, not you: its owner could change what the watcher runs unattended", b.Herdr, owner) {
			found = true
		}
	}
	if !found {
		t.Fatalf("no ownership warning for %s: %q", b.Herdr, b.Warnings(asUID))
	}
}

func TestFindForgectl(t *testing.T) {
	dir := t.TempDir()
	beside := filepath.Join(dir, "bin", "forgectl")
	os.MkdirAll(filepath.Dir(beside), 0o755)
	os.WriteFile(beside, []byte("#!/bin/sh\n"), 0o755)
	self := filepath.Join(dir, "bin", "resume-hooks")
	// A named path is taken as it is (it need not exist here); a bare name
	// is found on PATH.
	onPath := func(name string) (string, error) {
		if strings.Contains(name, "/") {
			return name, nil
		}
		return "/usr/local/bin/forgectl", nil
	}
	noPath := func(string) (string, error) { return "", errors.New("not found") }
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "FORGECTL_SELF" {
				return v
			}
			return ""
		}
	}
	tests := []struct {
		name   string
		getenv func(string) string
		self   string
		look   func(string) (string, error)
		want   string
		err    string
	}{
		{"told by forgectl", env("/opt/forgectl/bin/forgectl"), self, onPath, "/opt/forgectl/bin/forgectl", ""},
		{"beside this binary", env(""), self, onPath, beside, ""},
		{"on PATH", env(""), filepath.Join(dir, "elsewhere", "resume-hooks"), onPath, "/usr/local/bin/forgectl", ""},
		{"nowhere", env(""), filepath.Join(dir, "elsewhere", "resume-hooks"), noPath, "", "forgectl not found"},
		{"a go run build", env("/tmp/go-build1234/b001/exe/forgectl"), self, onPath, "", "go run build"},
		{"beside a go run build", env(""), "/private/var/folders/x/T/go-build99/b001/exe/resume-hooks", func(string) (string, error) {
			return "/private/var/folders/x/T/go-build99/b001/exe/forgectl", nil
		}, "", "go run build"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FindForgectl(tc.getenv, tc.self, tc.look)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
