// Package version reports a binary's release, taken from the build: it is
// never a constant in the source, which drifts from the tags.
//
// In order:
//
//   - make stamps it with -ldflags "-X forgectl.dev/shared/version.stamp=V",
//     V being the module's own tag (forgectl/v0.2.0 gives v0.2.0) or a
//     Go pseudo-version, with -dirty for a modified tree (tools/relver);
//   - `go install forgectl.dev/forgectl@v0.2.0` records the module version
//     in the build info;
//   - a plain `go build` records none: "(devel)", followed by the VCS
//     revision when the go command stamped one ("-dirty" when modified).
package version

import (
	"runtime/debug"
)

// stamp is the one package-level variable of the suite: the linker's -X
// flag can set nothing else. Empty unless make set it.
var stamp string

// String is this binary's version.
func String() string {
	if stamp != "" {
		return stamp
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Devel
	}
	return FromBuildInfo(bi)
}

// Devel is a build that knows nothing of its version.
const Devel = "(devel)"

// FromBuildInfo reads the version the go command recorded.
func FromBuildInfo(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != Devel {
		return v
	}
	var rev string
	var modified bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return Devel
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified {
		rev += "-dirty"
	}
	return Devel + "-" + rev
}
