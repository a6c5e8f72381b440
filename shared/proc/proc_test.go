package proc

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func TestSelfAndChild(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	cmd.Env = append(os.Environ(), "PROC_TEST_MARK=hello world")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })

	if !Alive(pid) || !Alive(os.Getpid()) {
		t.Fatal("live processes reported dead")
	}
	st, err := StartTime(pid)
	if err != nil || st == "" {
		t.Fatalf("StartTime: %q %v", st, err)
	}
	if runtime.GOOS == "linux" {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if f[19] != st {
			t.Fatalf("StartTime %q, field 22 is %q", st, f[19])
		}
	}
	v, ok, err := Getenv(pid, "PROC_TEST_MARK")
	if err != nil || !ok || v != "hello world" {
		t.Fatalf("Getenv: %q %v %v", v, ok, err)
	}
	if _, ok, _ := Getenv(pid, "PROC_TEST_ABSENT"); ok {
		t.Fatal("absent variable found")
	}
	info, err := Lookup(pid)
	if err != nil || info.Name != "sleep" || !strings.HasSuffix(info.Exe, "sleep") {
		t.Fatalf("Lookup: %+v %v", info, err)
	}
	if p, err := Parent(pid); err != nil || p != os.Getpid() {
		t.Fatalf("Parent: %d %v", p, err)
	}
	if !IsAncestor(os.Getpid(), pid) || IsAncestor(pid, os.Getpid()) {
		t.Fatal("IsAncestor wrong")
	}
	if !IsAncestor(os.Getpid(), os.Getpid()) {
		t.Fatal("self counts as its own ancestor")
	}

	cmd.Process.Kill()
	cmd.Wait()
	if Alive(pid) {
		t.Fatal("reaped child still alive")
	}
	if _, err := StartTime(pid); err != ErrNoProcess {
		t.Fatalf("StartTime of dead pid: %v", err)
	}
	if Alive(0) || Alive(-5) {
		t.Fatal("non-positive pids are never alive")
	}
}
