package capture

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"

	"forgectl.dev/shared/fsutil"
	"forgectl.dev/shared/transcript"
)

// Hook is the part of a Claude Code hook's stdin JSON the capture uses.
// Claude Code sends more (prompt_id, effort, last_assistant_message, …);
// it is ignored.
type Hook struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	Event          string `json:"hook_event_name"`
}

// ParseHook decodes a hook's stdin. Empty input is no hook (a zero Hook,
// no error). Input cut off by a size cap still yields the leading string
// fields, which Claude Code writes first; anything else is an error and a
// zero Hook.
func ParseHook(b []byte) (Hook, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return Hook{}, nil
	}
	var h Hook
	err := json.Unmarshal(b, &h)
	if err == nil {
		return h.clean(), nil
	}
	if b[0] != '{' {
		return Hook{}, errors.New("hook stdin is not a JSON object")
	}
	h = Hook{
		SessionID:      stringField(b, "session_id"),
		TranscriptPath: stringField(b, "transcript_path"),
		Cwd:            stringField(b, "cwd"),
		Event:          stringField(b, "hook_event_name"),
	}
	if h.SessionID == "" {
		return Hook{}, err
	}
	return h.clean(), nil
}

// clean drops paths that cannot be what Claude Code sends.
func (h Hook) clean() Hook {
	if h.TranscriptPath != "" && !filepath.IsAbs(h.TranscriptPath) {
		h.TranscriptPath = ""
	}
	if h.Cwd != "" && !filepath.IsAbs(h.Cwd) {
		h.Cwd = ""
	}
	return h
}

// stringField finds `"key":"value"` in a JSON text that may be truncated.
// Inside a JSON string every quote is escaped, so an unescaped `"key":`
// can only be a real key; the first one is the top-level one because
// Claude Code writes these fields before any nested object.
func stringField(b []byte, key string) string {
	pat := []byte(`"` + key + `"`)
	for off := 0; ; {
		i := bytes.Index(b[off:], pat)
		if i < 0 {
			return ""
		}
		rest := bytes.TrimLeft(b[off+i+len(pat):], " \t\r\n")
		off += i + len(pat)
		if len(rest) == 0 || rest[0] != ':' {
			continue
		}
		rest = bytes.TrimLeft(rest[1:], " \t\r\n")
		if len(rest) == 0 || rest[0] != '"' {
			return ""
		}
		end := 1
		for end < len(rest) && rest[end] != '"' {
			if rest[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(rest) {
			return ""
		}
		var s string
		if json.Unmarshal(rest[:end+1], &s) != nil {
			return ""
		}
		return s
	}
}

// sidecarTitle reads a custom-title.json: a name for a session whose
// registry entry carries only a derived one.
func sidecarTitle(path string) (name, source string) {
	b, err := fsutil.ReadRegular(path)
	if err != nil {
		return "", ""
	}
	name, source, _ = transcript.ParseSidecar(b)
	return name, source
}
