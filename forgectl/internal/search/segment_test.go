package search

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"forgectl.dev/shared/cchome"
)

// A segment truncated by another process while a search has it mapped is
// a damaged index, rebuilt, never a crash: at every point the truncation
// can leave it (nothing, the first page, half of it).
func TestSegmentTruncatedUnderAQuery(t *testing.T) {
	for _, keep := range []string{"0", "4096", "half"} {
		t.Run(keep, func(t *testing.T) {
			tr := newTree(t)
			// Enough distinct words that the terms span many pages.
			for n := range 3 {
				var words []string
				for i := range 3000 {
					words = append(words, fmt.Sprintf("w%dx%d", n, i*7919))
				}
				tr.write(fmt.Sprintf("s%d", n), cchome.PromptRow("needle "+strings.Join(words, " "), 1))
			}
			tr.expect("needle", "s0", "s1", "s2")
			ix, err := open(tr.opt.Dir)
			if err != nil {
				t.Fatal(err)
			}
			seg := filepath.Join(tr.opt.Dir, segName(ix.cat.Segs[0].ID))
			size := keep
			if keep == "half" {
				size = strconv.FormatInt(ix.cat.Segs[0].Size/2, 10)
			}
			if out, err := exec.Command("truncate", "-s", size, seg).CombinedOutput(); err != nil {
				t.Fatalf("truncate: %v %s", err, out)
			}
			q, _ := ParseQuery("w2x23757")
			_, err = ix.query(q, 2)
			ix.close()
			if err == nil || !strings.Contains(err.Error(), "truncated while it was read") {
				t.Fatalf("query over the truncated segment: %v", err)
			}
			// The next search finds it damaged, says so and rebuilds.
			res := tr.expect("needle", "s0", "s1", "s2")
			if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "damaged") {
				t.Errorf("notes %q", res.Notes)
			}
			tr.expect("w2x23757", "s2")
		})
	}
}
