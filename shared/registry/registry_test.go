package registry

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"forgectl.dev/shared/proc"
	"github.com/google/go-cmp/cmp"
)

func startChild(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd.Process.Pid
}

func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func write(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReadAndCheck(t *testing.T) {
	dir := t.TempDir()
	live := startChild(t)
	reused := startChild(t)
	unverified := startChild(t)
	dead := deadPid(t)
	st, err := proc.StartTime(live)
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, fmt.Sprintf("%d.json", live), fmt.Sprintf(`{"pid":%d,"sessionId":"s-live","procStart":%q,"status":"idle","name":"Login work","nameSource":"user","formerNames":["old",{"name":"older"}]}`, live, st))
	write(t, dir, fmt.Sprintf("%d.json", reused), fmt.Sprintf(`{"pid":%d,"sessionId":"s-reused","procStart":"1"}`, reused))
	write(t, dir, fmt.Sprintf("%d.json", unverified), fmt.Sprintf(`{"pid":%d,"sessionId":"s-unverified"}`, unverified))
	write(t, dir, fmt.Sprintf("%d.json", dead), fmt.Sprintf(`{"pid":%d,"sessionId":"s-dead","procStart":"5"}`, dead))
	write(t, dir, "777.json", `{"pid":777,"sessionId":`) // torn
	write(t, dir, "123.abc.key", "secret")
	write(t, dir, ".fleetview-heartbeat", "x")

	all, problems := Read(dir)
	if len(all) != 4 || len(problems) != 1 {
		t.Fatalf("read %d entries, %d problems: %v", len(all), len(problems), problems)
	}
	got := map[string]State{}
	for _, e := range all {
		got[e.SessionID] = Check(e)
	}
	want := map[string]State{"s-live": Alive, "s-reused": Stale, "s-unverified": Unverified, "s-dead": Stale}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("states (-want +got):\n%s", d)
	}
	lv, _ := Live(dir)
	if len(lv) != 1 || lv[0].SessionID != "s-live" || !lv[0].UserNamed() {
		t.Fatalf("Live: %+v", lv)
	}
	if d := cmp.Diff([]string{"old", "older"}, lv[0].FormerNames()); d != "" {
		t.Fatal(d)
	}
	if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("%d.json", dead))); err != nil {
		t.Fatal("stale file must never be deleted")
	}
}

func TestReadMissingDir(t *testing.T) {
	all, problems := Read(filepath.Join(t.TempDir(), "nope"))
	if all != nil || problems != nil {
		t.Fatal("missing registry is empty, not an error")
	}
}

func TestPidFromFileName(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "4242.json", `{"sessionId":"x"}`)
	all, _ := Read(dir)
	if len(all) != 1 || all[0].Pid != 4242 {
		t.Fatalf("%+v", all)
	}
	if (Entry{Name: "demo-b2", NameSource: "derived"}).UserNamed() {
		t.Fatal("derived names are not user names")
	}
}
