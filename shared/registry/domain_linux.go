package registry

import (
	"os"
	"strings"

	"forgectl.dev/shared/fsutil"
)

// LocalPidDomain renders this process's pid namespace the way Claude Code
// writes pidDomain on Linux: linux:<machine-id>:pid:[<ns inode>]. It is ""
// when either part cannot be read, and then no entry is judged by it.
func LocalPidDomain() string {
	id, err := fsutil.ReadRegular("/etc/machine-id")
	if err != nil {
		return ""
	}
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return ""
	}
	mid := strings.TrimSpace(string(id))
	if mid == "" {
		return ""
	}
	return "linux:" + mid + ":" + ns
}
