package contract

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The install commands print one "<version> <path>" line per pinned
// binary, or SKIPPED and exit 0 when the registry cannot be reached.
func TestMainPrintsPinnedCodexBinariesOrSkips(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("the installer fetches the linux-x64 package only")
	}
	npm, _ := fakeCodexNPM(t, "codex-cli 0.171.0", "0.171.0")
	t.Setenv("PATH", filepath.Dir(npm)+":/usr/bin:/bin")
	t.Setenv("FORGECTL_CONTRACT_CACHE", t.TempDir())
	t.Setenv("FORGECTL_CONTRACT_CODEX_LEGACY", "0.171.0") // the fake packs one version
	var out, errOut bytes.Buffer
	if code := Main(context.Background(), &Codex, nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	cache := os.Getenv("FORGECTL_CONTRACT_CACHE")
	want := "0.171.0 " + filepath.Join(cache, "codex", "0.171.0", "bin", "codex") + "\n"
	if out.String() != want+want {
		t.Errorf("stdout %q, want %q twice", out.String(), want)
	}
	out.Reset()
	if code := Main(context.Background(), &Codex, []string{"-latest"}, &out, &errOut); code != 0 || out.String() != want {
		t.Errorf("-latest: exit %d, stdout %q", code, out.String())
	}

	failing, _ := fakeNPM(t, "", true)
	t.Setenv("PATH", filepath.Dir(failing)+":/usr/bin:/bin")
	t.Setenv("FORGECTL_CONTRACT_CACHE", t.TempDir())
	out.Reset()
	if code := Main(context.Background(), &Codex, nil, &out, &errOut); code != 0 || !strings.HasPrefix(out.String(), "SKIPPED: cannot install codex 0.171.0: ") {
		t.Errorf("unreachable registry: exit %d, stdout %q", code, out.String())
	}
	if code := Main(context.Background(), &Codex, []string{"-latest", "1.2.3"}, &out, &errOut); code != 2 {
		t.Errorf("-latest with a version: exit %d, want 2", code)
	}
}
