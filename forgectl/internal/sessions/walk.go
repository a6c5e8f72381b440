package sessions

import (
	"sort"

	"forgectl.dev/forgectl/internal/harness"
)

// sortNewestFirst orders files by mtime, newest first (ties by path, so
// that the order is the same every time).
func sortNewestFirst(files []harness.File) {
	sort.Slice(files, func(a, b int) bool {
		fa, fb := &files[a], &files[b]
		if fa.MtimeNs != fb.MtimeNs {
			return fa.MtimeNs > fb.MtimeNs
		}
		if *fa.Dir != *fb.Dir {
			return *fa.Dir < *fb.Dir
		}
		return fa.Name < fb.Name
	})
}
