package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"forgectl.dev/shared/snapstore"
)

var stressIDs = []string{
	"a0000000-0000-4000-8000-000000000001",
	"a0000000-0000-4000-8000-000000000002",
	"a0000000-0000-4000-8000-000000000003",
}

// TestConcurrentSnapshots runs 32 snapshot processes at once (three times)
// against the same sessions, some as the first session's Stop hook, while task files
// are created, rewritten and deleted underneath them, and a reader watches
// the store. No task id ever seen in the store may go missing, every
// store file must parse at every moment, and a last pass must agree with
// the task folders.
func TestConcurrentSnapshots(t *testing.T) {
	w := newWorld(t)
	pids := make([]int, len(stressIDs))
	for i, id := range stressIDs {
		pids[i] = w.session(id, map[string]any{"name": fmt.Sprintf("stress %d", i), "nameSource": "user"})
		ids := make([]string, 30)
		for k := range ids {
			ids[k] = strconv.Itoa(k + 1)
		}
		w.tasks(id, ids...)
	}
	hookIn := hookStdin(stressIDs[0], w.transcript(stressIDs[0]))

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var bg sync.WaitGroup

	// Claude Code's side: new tasks appear, some are rewritten in place,
	// some are deleted. The first 30 are never deleted.
	bg.Go(func() {
		rng := rand.New(rand.NewPCG(1, 2))
		next := 31
		for ctx.Err() == nil {
			id := stressIDs[rng.IntN(len(stressIDs))]
			dir := filepath.Join(w.claude, "tasks", id)
			switch rng.IntN(3) {
			case 0:
				os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.json", next)), taskJSON(strconv.Itoa(next), "pending"), 0o644)
				next++
			case 1:
				n := 1 + rng.IntN(next-1)
				os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.json", n)), taskJSON(strconv.Itoa(n), "in_progress"), 0o644)
			case 2:
				if n := 31 + rng.IntN(max(1, next-31)); n < next {
					os.Remove(filepath.Join(dir, fmt.Sprintf("%d.json", n)))
				}
			}
			time.Sleep(200 * time.Microsecond)
		}
	})

	// A reader of the store: every file parses every time, and every task
	// id it ever sees is remembered.
	seen := map[string]map[string]bool{}
	var readerErr error
	bg.Go(func() {
		for ctx.Err() == nil {
			recs, problems := w.store().All()
			if len(problems) > 0 && readerErr == nil {
				readerErr = fmt.Errorf("store read mid-run: %v", problems)
			}
			for _, r := range recs {
				if seen[r.SessionID] == nil {
					seen[r.SessionID] = map[string]bool{}
				}
				for _, tk := range r.Tasks {
					seen[r.SessionID][tk.ID] = true
				}
			}
		}
	})

	const procs, waves = 32, 3
	var wg sync.WaitGroup
	results := make([]result, procs*waves)
	for i := range procs * waves {
		if i > 0 && i%procs == 0 {
			wg.Wait() // the next 32 at once
		}
		wg.Go(func() {
			cmd := exec.Command(binary)
			cmd.Env = w.environ()
			if i%2 == 0 {
				cmd.Stdin = strings.NewReader(hookIn)
				cmd.Env = append(cmd.Env, fmt.Sprintf("CLAUDE_PID=%d", pids[0]))
			}
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			code := 0
			if err != nil {
				code = -1
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				}
			}
			results[i] = result{out.String(), errb.String(), code}
		})
	}
	wg.Wait()
	stop()
	bg.Wait()
	if readerErr != nil {
		t.Fatal(readerErr)
	}
	for i, r := range results {
		if r.code != 0 {
			t.Fatalf("process %d exited %d: %s", i, r.code, r.stderr)
		}
		if n := strings.Count(r.stdout, "captured "); n != len(stressIDs) {
			t.Errorf("process %d captured %d sessions:\n%s", i, n, r.stdout)
		}
		for _, line := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
			// A task file read mid-write is reported and retried next pass;
			// anything else (a lock timeout, a lost write) is a failure.
			if line != "" && !(strings.HasPrefix(line, "forgectl: error: snapshot ") && strings.Contains(line, ".json: ")) {
				t.Errorf("process %d: %s", i, line)
			}
		}
	}

	// Settle: one more pass sees the final folders (the files were
	// touched within the last seconds, so it reads them in full).
	if r := w.run(nil, "--quiet"); r.code != 0 || r.stderr != "" {
		t.Fatalf("final pass: %+v", r)
	}
	if err := everyRecordParses(w.store().Dir); err != nil {
		t.Fatal(err)
	}
	for _, id := range stressIDs {
		rec := w.record(id)
		have := map[string]*snapstore.Task{}
		for i := range rec.Tasks {
			have[rec.Tasks[i].ID] = &rec.Tasks[i]
		}
		for tid := range seen[id] {
			if have[tid] == nil {
				t.Errorf("%s: task %s was captured once and is now missing", id, tid)
			}
		}
		for k := 1; k <= 30; k++ {
			if tk := have[strconv.Itoa(k)]; tk == nil || tk.GoneSince != nil {
				t.Errorf("%s: task %d, never deleted, is %+v", id, k, tk)
			}
		}
		ents, _ := os.ReadDir(filepath.Join(w.claude, "tasks", id))
		onDisk := 0
		for _, e := range ents {
			if tid, ok := strings.CutSuffix(e.Name(), ".json"); ok {
				onDisk++
				if tk := have[tid]; tk == nil || tk.GoneSince != nil {
					t.Errorf("%s: task %s is on disk but captured as %+v", id, tid, tk)
				}
			}
		}
		gone := 0
		for _, tk := range rec.Tasks {
			if tk.GoneSince != nil {
				gone++
			}
		}
		if len(rec.Tasks)-gone != onDisk {
			t.Errorf("%s: %d live tasks captured, %d on disk", id, len(rec.Tasks)-gone, onDisk)
		}
	}
}

// TestKilledSnapshotsLeaveAParseableStore kills snapshot processes with
// SIGKILL at random moments, many times, while each one has real work to
// do, and checks after every batch that every store file parses.
func TestKilledSnapshotsLeaveAParseableStore(t *testing.T) {
	w := newWorld(t)
	for i, id := range stressIDs {
		w.session(id, map[string]any{"name": fmt.Sprintf("crash %d", i), "nameSource": "user"})
		w.tasks(id, "1", "2", "3")
	}
	// How long a run with work to do takes here, so that the kills spread
	// over a whole run (start-up, reading, writing, renaming); runs in a
	// batch are slower than one alone, hence up to three times that.
	var span time.Duration
	for i := range 3 {
		for _, id := range stressIDs {
			w.tasks(id, strconv.Itoa(1000+i))
		}
		start := time.Now()
		w.run(nil, "--quiet")
		span = max(span, time.Since(start))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	// A run's time is measured once, but the machine's load changes: when
	// it drops, runs end before most kills. So a batch in which fewer than
	// a quarter were killed shortens the delays, and batches go on past
	// the 200 runs until a quarter of all were killed mid-way.
	const iterations, batch = 200, 8
	killed, it := 0, 0
	for ; it < iterations || killed < it/4; it += batch {
		if it >= 4*iterations {
			t.Fatalf("only %d of %d runs were killed before they finished: the kills missed the runs", killed, it)
		}
		before := killed
		// New work for every batch, so no run takes the fast path.
		for _, id := range stressIDs {
			w.tasks(id, strconv.Itoa(4+it))
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		for range batch {
			delay := time.Duration(rng.Int64N(int64(span) * 3))
			wg.Go(func() {
				cmd := exec.Command(binary, "--quiet")
				cmd.Env = w.environ()
				if err := cmd.Start(); err != nil {
					t.Error(err)
					return
				}
				time.Sleep(delay)
				cmd.Process.Signal(syscall.SIGKILL)
				cmd.Wait()
				if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					mu.Lock()
					killed++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if err := everyRecordParses(w.store().Dir); err != nil && !os.IsNotExist(err) {
			t.Fatalf("after %d runs: %v", it+batch, err)
		}
		if killed-before < batch/4 {
			span = max(span*2/3, time.Millisecond)
		}
	}
	t.Logf("%d of %d runs killed mid-way", killed, it)
	if m, _ := filepath.Glob(filepath.Join(w.store().Dir, "*.corrupt-*")); len(m) > 0 {
		t.Fatalf("a killed writer left a torn record that was moved aside: %v", m)
	}
	// Whatever the kills interrupted, the next full run captures it all.
	if r := w.run(nil, "--quiet"); r.code != 0 || r.stderr != "" {
		t.Fatalf("%+v", r)
	}
	for _, id := range stressIDs {
		if n := len(w.record(id).Tasks); n != 3+3+it/batch {
			t.Errorf("%s: %d tasks", id, n)
		}
	}
}
