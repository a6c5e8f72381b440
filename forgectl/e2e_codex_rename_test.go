package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"forgectl.dev/shared/poll"
)

// codexSearch is the ids `search --json --all q` finds.
func (c *codexHome) search(t *testing.T, q string) []string {
	t.Helper()
	code, out, errOut := c.runBin(t, "resume", "search", "--json", "--all", q)
	if code > 1 {
		t.Fatalf("search %q: exit %d %s", q, code, errOut)
	}
	var rows []struct {
		ID string `json:"session_id"`
	}
	json.Unmarshal([]byte(out), &rows)
	var ids []string
	for _, r := range rows {
		ids = append(ids, r.ID)
	}
	return ids
}

// A Codex rename appends to session_index.jsonl exactly the line /rename
// appends ({"id","thread_name","updated_at"}, updated_at in UTC to the
// nanosecond, as a real 0.171.0 run left it), touches no rollout, and the
// warm listing and search show the new name.
func TestE2ECodexRenameAppendsWhatRenameAppends(t *testing.T) {
	c := newCodexE2E(t)
	c.build()
	index := filepath.Join(c.root, "session_index.jsonl")
	// Warm the listing and the search index first.
	if r := rowsByID(c.lsJSON(t))[cxTUI]; r.Name != "refunds webhook" {
		t.Fatalf("before: %+v", r)
	}
	if got := c.search(t, "Zephyrqueue"); len(got) != 0 {
		t.Fatalf("search before: %v", got)
	}
	rollouts := map[string]string{}
	filepath.Walk(filepath.Join(c.root, "sessions"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			b, _ := os.ReadFile(p)
			rollouts[p] = fmt.Sprint(fi.ModTime().UnixNano(), string(b))
		}
		return nil
	})
	before, _ := os.ReadFile(index)

	name := `Zephyrqueue <retry> & "ünï"`
	code, out, errOut := c.runBin(t, "resume", "rename", cxTUI, name)
	if code != 0 || out != "" || !strings.Contains(errOut, "renamed session "+cxTUI) || !strings.Contains(errOut, `"refunds webhook"`) ||
		!strings.Contains(errOut, "its state database cached") {
		t.Fatalf("rename: %d\nstdout %q\nstderr %s", code, out, errOut)
	}
	after, _ := os.ReadFile(index)
	if !bytes.HasPrefix(after, before) {
		t.Fatalf("the index was not appended to:\n%s", after)
	}
	line := string(after[len(before):])
	re := regexp.MustCompile(`^\{"id":"` + cxTUI + `","thread_name":"Zephyrqueue <retry> & \\"ünï\\"","updated_at":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z"\}` + "\n$")
	if !re.MatchString(line) {
		t.Fatalf("appended %q", line)
	}
	filepath.Walk(filepath.Join(c.root, "sessions"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			b, _ := os.ReadFile(p)
			if rollouts[p] != fmt.Sprint(fi.ModTime().UnixNano(), string(b)) {
				t.Errorf("rollout %s changed", p)
			}
		}
		return nil
	})
	if r := rowsByID(c.lsJSON(t))[cxTUI]; r.Name != name {
		t.Errorf("listing after: %q", r.Name)
	}
	if got := c.search(t, "Zephyrqueue"); len(got) != 1 || got[0] != cxTUI {
		t.Errorf("search after: %v, want [%s]", got, cxTUI)
	}
	if code, out, _ := c.runBin(t, "resume", "ls", "Zephyrqueue"); code != 0 || !strings.Contains(out, "Zephyrqueue") {
		t.Errorf("ls by the new name: %d %s", code, out)
	}
	// A fork shares its parent's first name: it keeps its own.
	if r := rowsByID(c.lsJSON(t))[cxFork]; r.Name != "refunds webhook" {
		t.Errorf("the fork's name: %q", r.Name)
	}
}

// An index whose last line was cut (a writer killed mid-line) gets a
// newline first; a home where no thread was ever named (0.142.3 wrote no
// index) gets the file, 0644 as Codex makes it.
func TestE2ECodexRenameCutLineAndNoIndex(t *testing.T) {
	c := newCodexE2E(t)
	c.build()
	index := filepath.Join(c.root, "session_index.jsonl")
	f, _ := os.OpenFile(index, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"id":"` + cxFork + `","thread_name":"half`)
	f.Close()
	before, _ := os.ReadFile(index)
	if code, _, errOut := c.runBin(t, "resume", "rename", cxExec, "Exec named"); code != 0 {
		t.Fatalf("rename after a cut line: %d %s", code, errOut)
	}
	after, _ := os.ReadFile(index)
	if !bytes.HasPrefix(after, before) || !bytes.HasPrefix(after[len(before):], []byte("\n{\"id\":\""+cxExec+`","thread_name":"Exec named"`)) {
		t.Fatalf("after a cut line: %q", after[len(before):])
	}
	if r := rowsByID(c.lsJSON(t, "--all"))[cxExec]; r.Name != "Exec named" {
		t.Errorf("listing: %q", r.Name)
	}

	os.Remove(index)
	if code, _, errOut := c.runBin(t, "resume", "rename", cxLegacy, "Legacy named"); code != 0 {
		t.Fatalf("rename with no index: %d %s", code, errOut)
	}
	fi, err := os.Stat(index)
	b, _ := os.ReadFile(index)
	if err != nil || fi.Mode().Perm() != 0o644&^umask() || !regexp.MustCompile(`^\{"id":"`+cxLegacy+`","thread_name":"Legacy named","updated_at":"[^"]+"\}`+"\n$").Match(b) {
		t.Fatalf("a new index: %v %v %q", err, fi, b)
	}
	if r := rowsByID(c.lsJSON(t))[cxLegacy]; r.Name != "Legacy named" {
		t.Errorf("listing: %q", r.Name)
	}
}

func umask() os.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return os.FileMode(m)
}

// A live thread (whoever holds its write lock: a TUI, exec or the daemon,
// which all write names) is refused with exit 2 naming the pid, and so are
// names Codex would refuse or /rename could not type; nothing is written.
func TestE2ECodexRenameRefusals(t *testing.T) {
	c := newCodexE2E(t)
	c.build()
	index := filepath.Join(c.root, "session_index.jsonl")
	pid := holdThreadLock(t, c.root, cxTUI).Process.Pid
	poll.Every(20*time.Millisecond).Until(t, 15*time.Second, "the lock to be held", func() (bool, string) {
		r := rowsByID(c.lsJSON(t))[cxTUI]
		return r.Live, fmt.Sprintf("%+v", r)
	})
	before, _ := os.ReadFile(index)
	check := func(what string, wantCode int, wantErr string, args ...string) {
		t.Helper()
		code, out, errOut := c.runBin(t, append([]string{"resume", "rename"}, args...)...)
		if code != wantCode || out != "" || !strings.Contains(errOut, wantErr) {
			t.Errorf("%s: exit %d\nstdout %q\nstderr %s", what, code, out, errOut)
		}
		if after, _ := os.ReadFile(index); !bytes.Equal(after, before) {
			t.Errorf("%s: the index changed: %q", what, after[len(before):])
		}
	}
	check("held by a TUI", 2, fmt.Sprintf("(pid %d)", pid), cxTUI, "New")
	c.write("app-server-daemon/daemon.pid", fmt.Appendf(nil, `{"pid":%d,"processStartTime":1}`, pid), time.Now())
	check("held by the daemon", 2, fmt.Sprintf("(pid %d)", pid), cxTUI, "New")
	check("empty", 2, "the name is empty", cxExec, "  ")
	check("newline", 2, "control character (U+000A)", cxExec, "two\nlines")
	check("tab", 2, "control character (U+0009)", cxExec, "a\tb")
}

// A write the kernel cuts short (a file-size limit a few bytes past the
// index; a full disk acts alike) is cut back off: the index is byte for
// byte what it was, and the rename fails with exit 1.
func TestE2ECodexRenameShortWriteIsCutBack(t *testing.T) {
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Fatal("prlimit (util-linux) is needed to cut a write short")
	}
	c := newCodexE2E(t)
	c.build()
	index := filepath.Join(c.root, "session_index.jsonl")
	c.lsJSON(t) // the listing's index is written now, not under the limit
	before, _ := os.ReadFile(index)
	var stderr bytes.Buffer
	cmd := exec.Command(prlimit, "--fsize="+itoa(len(before)+30), c.forgectl, "resume", "rename", cxExec, "Cut short")
	cmd.Env, cmd.Dir, cmd.Stderr = c.env, c.home, &stderr
	code := exitCode(cmd.Run())
	after, _ := os.ReadFile(index)
	if code != 1 || !bytes.Equal(after, before) || !strings.Contains(stderr.String(), "cannot rename session "+cxExec) {
		t.Fatalf("exit %d\nstderr %s\nindex grew by %q", code, stderr.String(), after[len(before):])
	}
}
