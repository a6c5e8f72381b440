package transcript

import (
	"encoding/json"
	"path/filepath"
	"strings"
)

// SidecarName is the file Claude Code writes on /rename beside the
// transcript, in the session's own folder:
// <project dir>/<session id>/custom-title.json, holding
// {"customTitle":…,"by":…,"at":…}.
const SidecarName = "custom-title.json"

// SidecarPath is the sidecar title file of the transcript of session id.
func SidecarPath(transcript, id string) string {
	return filepath.Join(filepath.Dir(transcript), id, SidecarName)
}

// maxSidecar bounds what is parsed: a title file is a few dozen bytes.
const maxSidecar = 64 << 10

// ParseSidecar reads a custom-title.json: the title and who set it ("user",
// "command", …; "custom-title" when the file does not say). A file that is
// not such an object, an empty title, or one marked "derived" (not a name
// anybody gave) yields ok false.
func ParseSidecar(b []byte) (title, by string, ok bool) {
	if len(b) > maxSidecar {
		return "", "", false
	}
	var ct struct {
		CustomTitle string `json:"customTitle"`
		By          string `json:"by"`
	}
	if json.Unmarshal(b, &ct) != nil {
		return "", "", false
	}
	title = strings.TrimSpace(ct.CustomTitle)
	if title == "" || ct.By == "derived" {
		return "", "", false
	}
	by = ct.By
	if by == "" {
		by = "custom-title"
	}
	return title, by, true
}
