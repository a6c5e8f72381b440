package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"forgectl.dev/shared/poll"
)

// An index file truncated by another process while forgectl has it mapped
// must end in a whole answer (the index is rebuilt, or the transcripts
// read instead), never a crash. Each run stops the process once it has
// the file mapped (read from /proc/PID/maps), truncates the file, and lets
// it go on; before mapped reads were guarded, nearly every run died of
// SIGBUS ("fatal error: fault", exit 2).
func TestE2ESearchIndexTruncatedWhileMapped(t *testing.T) {
	truncatedWhileMapped(t, "/cache/search/seg-", "resume", "search", "--json", "the")
}

func TestE2EListingIndexTruncatedWhileMapped(t *testing.T) {
	truncatedWhileMapped(t, "/cache/transcripts.idx", "resume", "ls", "--json")
}

func truncatedWhileMapped(t *testing.T, mapped string, args ...string) {
	if runtime.GOOS != "linux" {
		t.Skip("catches the file mapped through /proc/PID/maps")
	}
	h := newSearchHome(t, "-scale", "-sessions", "150", "-repos", "3")
	answer := func(cmd *exec.Cmd, stdout, stderr *bytes.Buffer) ([]string, int) {
		t.Helper()
		code := exitCode(cmd.Wait())
		if strings.Contains(stderr.String(), "fatal error") || strings.Contains(stderr.String(), "panic") || code != 0 {
			t.Fatalf("%s: exit %d\n%s", strings.Join(args, " "), code, firstLines(stderr.String(), 12))
		}
		var rows []struct {
			SessionID string `json:"session_id"`
			Name      string `json:"name"`
		}
		if err := json.Unmarshal(stdout.Bytes(), &rows); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, firstLines(stdout.String(), 5))
		}
		var ids []string
		for _, r := range rows {
			ids = append(ids, r.SessionID+" "+r.Name)
		}
		slices.Sort(ids)
		return ids, code
	}
	start := func() (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
		cmd := h.command(args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, &stdout, &stderr
	}
	want, _ := answer(start())
	if len(want) == 0 {
		t.Fatal("no rows to compare")
	}
	// Whether a look lands while the file is mapped is chance, and a busy
	// machine changes the odds: runs go on until three were caught (each
	// run, caught or not, must answer whole), up to a bound that only a
	// command that never maps the file reaches.
	const atLeast, atMost = 6, 30
	caught := 0
	for run := 0; run < atLeast || caught < 3; run++ {
		if run == atMost {
			t.Fatalf("caught the file mapped in %d of %d runs: the test proves too little", caught, run)
		}
		answer(start()) // the index whole again, rebuilt after the last run
		cmd, stdout, stderr := start()
		if path := stopWhenMapped(cmd.Process.Pid, mapped); path != "" {
			size := []string{"0", "4096"}[caught%2] // both sizes, whichever runs are caught
			if out, err := exec.Command("truncate", "-s", size, path).CombinedOutput(); err != nil {
				t.Fatalf("truncate: %v %s", err, out)
			}
			caught++
		}
		syscall.Kill(cmd.Process.Pid, syscall.SIGCONT)
		got, _ := answer(cmd, stdout, stderr)
		if !slices.Equal(got, want) {
			t.Fatalf("run %d: %d rows, want %d\nstderr: %s", run, len(got), len(want), stderr)
		}
	}
}

// stopWhenMapped stops the process at the first moment it is seen with a
// file whose path holds mapped in its memory map, and returns that path;
// "" when it exited first. The process is left stopped.
func stopWhenMapped(pid int, mapped string) string {
	found := ""
	// Each look stops the process, so it is let run 200 µs between looks.
	poll.Every(200*time.Microsecond).Wait(poll.Long, func() bool {
		if syscall.Kill(pid, syscall.SIGSTOP) != nil {
			return true // exited first
		}
		for !stopped(pid) {
			if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
				return true
			}
			runtime.Gosched()
		}
		// A zombie takes the signal and maps nothing: it exited first (the
		// look would otherwise go on until its deadline).
		if procState(pid) == 'Z' {
			return true
		}
		maps, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
		if err != nil {
			return true
		}
		for _, l := range strings.Split(string(maps), "\n") {
			if i := strings.Index(l, "/"); i >= 0 && strings.Contains(l[i:], mapped) {
				found = strings.TrimSuffix(l[i:], " (deleted)")
				return true
			}
		}
		syscall.Kill(pid, syscall.SIGCONT)
		return false
	})
	return found
}

// stopped reports whether the process is stopped, or gone (a zombie).
func stopped(pid int) bool {
	switch procState(pid) {
	case 'T', 't', 'Z', 0:
		return true
	}
	return false
}

// procState is the process's state letter in /proc/PID/stat, 0 once gone.
func procState(pid int) byte {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2]
	}
	return 0
}

func firstLines(s string, n int) string {
	l := strings.SplitN(s, "\n", n+1)
	return strings.Join(l[:min(n, len(l))], "\n")
}
