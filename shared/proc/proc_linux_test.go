package proc

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"forgectl.dev/shared/poll"
)

// A child that exited and was not waited for is a zombie: its pid and
// start time still answer, but it is not alive (a pane's program the
// terminal has not reaped yet is not a running claude or codex).
func TestZombieIsNotAlive(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "exit 0")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	pid := cmd.Process.Pid
	poll.Until(t, 10*time.Second, "the child to exit", func() (bool, string) {
		f, _, err := statFields(pid)
		return err == nil && len(f) > 0 && f[0] == "Z", fmt.Sprint(f, err)
	})
	if _, err := StartTime(pid); err != nil {
		t.Fatalf("a zombie's start time: %v (the test needs it to answer)", err)
	}
	if Alive(pid) {
		t.Error("a zombie counts as alive")
	}
	if !Alive(os.Getpid()) {
		t.Error("this process is not alive")
	}
}
