package snapstore

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"forgectl.dev/shared/tasks"
	"github.com/google/go-cmp/cmp"
)

func tk(id, status string) tasks.Task {
	b, _ := json.Marshal(map[string]string{"id": id, "status": status, "subject": "s" + id})
	return tasks.Task{ID: id, Status: status, Subject: "s" + id, Body: b}
}

func ids(r Record) (live, gone []string) {
	for _, t := range r.Tasks {
		if t.GoneSince == nil {
			live = append(live, t.ID)
		} else {
			gone = append(gone, t.ID)
		}
	}
	return
}

func TestMergeNeverShrinks(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	r := Merge(Record{}, Observation{SessionID: "s", Name: "Login", NameSource: "user", Tasks: []tasks.Task{tk("1", "pending"), tk("2", "pending"), tk("10", "pending")}, At: t0})
	r = Merge(r, Observation{SessionID: "s", Tasks: []tasks.Task{tk("2", "completed")}, At: t0.Add(time.Minute)})
	live, gone := ids(r)
	if d := cmp.Diff([]string{"2"}, live); d != "" {
		t.Fatal(d)
	}
	if d := cmp.Diff([]string{"1", "10"}, gone); d != "" {
		t.Fatal(d)
	}
	if r.Tasks[1].Status != "completed" || !r.Tasks[0].GoneSince.Equal(t0.Add(time.Minute)) {
		t.Fatalf("%+v", r.Tasks)
	}
	// Seeing it again revives it; an unreadable task dir (nil) marks nothing.
	r = Merge(r, Observation{SessionID: "s", Tasks: []tasks.Task{tk("1", "in_progress")}, At: t0.Add(2 * time.Minute)})
	r = Merge(r, Observation{SessionID: "s", Tasks: nil, At: t0.Add(3 * time.Minute)})
	live, _ = ids(r)
	if d := cmp.Diff([]string{"1"}, live); d != "" {
		t.Fatal(d)
	}
	if !r.FirstCapture.Equal(t0) || !r.LastCapture.Equal(t0.Add(3*time.Minute)) {
		t.Fatal("capture times")
	}
	// A derived name (empty here) never replaces a user name; a new user name keeps the old one.
	if r.Name != "Login" {
		t.Fatal("name lost")
	}
	r = Merge(r, Observation{SessionID: "s", Name: "Login v2", NameSource: "user", At: t0})
	if r.Name != "Login v2" || len(r.FormerNames) != 1 || r.FormerNames[0] != "Login" {
		t.Fatalf("rename: %+v", r)
	}
}

func TestStoreUpdateConcurrent(t *testing.T) {
	s := Store{Dir: filepath.Join(t.TempDir(), "resume-sessions")}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := string(rune('a' + i))
			if _, err := s.Update(Observation{SessionID: "sess", Tasks: []tasks.Task{tk(id, "pending")}, At: time.Now()}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	r, err := s.Load("sess")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Tasks) != 16 {
		t.Fatalf("lost tasks under concurrency: %d", len(r.Tasks))
	}
	st, _ := os.Stat(s.Dir)
	if st.Mode().Perm() != 0o700 {
		t.Fatalf("store dir mode %v", st.Mode())
	}
	st, _ = os.Stat(s.Path("sess"))
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("record mode %v", st.Mode())
	}
}

func TestStoreCorruptRecordMovedAside(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	os.WriteFile(s.Path("x"), []byte(`{"schema":1,"session_id":"x","tasks":[{"id":`), 0o600)
	if _, err := s.Update(Observation{SessionID: "x", Tasks: []tasks.Task{tk("1", "pending")}, At: time.Unix(100, 0)}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Path("x") + ".corrupt-100000000000"); err != nil {
		t.Fatal("corrupt record not kept aside")
	}
	all, problems := s.All()
	if len(all) != 1 || len(problems) != 0 {
		t.Fatalf("All: %d %v", len(all), problems)
	}
	if _, err := s.Load("nope"); err != ErrNoRecord {
		t.Fatal(err)
	}
	if s.Path("../../etc/passwd") != filepath.Join(s.Dir, "------etc-passwd.json") {
		t.Fatal(s.Path("../../etc/passwd"))
	}
}

func TestMergeOutOfOrderAndPartial(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	r := Merge(Record{}, Observation{SessionID: "s", Tasks: []tasks.Task{tk("1", "pending"), tk("2", "pending")}, At: t0})
	// A capture that read later lands first...
	r = Merge(r, Observation{SessionID: "s", Tasks: []tasks.Task{tk("1", "completed")}, At: t0.Add(2 * time.Second)})
	// ...then one that read earlier: it adds what the record lacks, and
	// neither revives 2, overwrites 1's newer body, nor moves time back.
	r = Merge(r, Observation{SessionID: "s", Tasks: []tasks.Task{tk("1", "in_progress"), tk("2", "pending"), tk("3", "pending")}, At: t0.Add(time.Second)})
	live, gone := ids(r)
	if d := cmp.Diff([]any{[]string{"1", "3"}, []string{"2"}}, []any{live, gone}); d != "" {
		t.Fatal(d)
	}
	if r.Tasks[0].Status != "completed" || !r.LastCapture.Equal(t0.Add(2*time.Second)) || !r.Tasks[1].GoneSince.Equal(t0.Add(2*time.Second)) {
		t.Fatalf("%+v", r)
	}
	// A partial read (a torn file) adds and refreshes, but marks nothing gone.
	r = Merge(r, Observation{SessionID: "s", Tasks: []tasks.Task{tk("4", "pending")}, Partial: true, At: t0.Add(3 * time.Second)})
	live, gone = ids(r)
	if d := cmp.Diff([]any{[]string{"1", "3", "4"}, []string{"2"}}, []any{live, gone}); d != "" {
		t.Fatal(d)
	}
}

// A record that cannot be read (here: a directory in its place) is a
// failed read, not a damaged record: it is neither moved nor replaced.
func TestStoreReadFailureIsNotCorruption(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	os.Mkdir(s.Path("y"), 0o700)
	if _, err := s.Update(Observation{SessionID: "y", At: time.Unix(100, 0)}); err == nil {
		t.Fatal("want the read error")
	}
	if st, err := os.Stat(s.Path("y")); err != nil || !st.IsDir() {
		t.Fatal("the unreadable record was touched")
	}
}
