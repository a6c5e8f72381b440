package codex

import (
	"os"
	"os/exec"
	"testing"
)

// macOS has no /proc/locks (locks_other.go): the package must still build
// there, and so must the forgectl binary that imports it.
func TestBuildsForDarwin(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles the forgectl binary")
	}
	for _, arch := range []string{"arm64", "amd64"} {
		cmd := exec.Command("go", "build", "-o", os.DevNull, "forgectl.dev/forgectl")
		cmd.Env = append(os.Environ(), "GOOS=darwin", "GOARCH="+arch, "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("GOOS=darwin GOARCH=%s go build: %v\n%s", arch, err, out)
		}
	}
}
