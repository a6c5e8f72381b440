package main

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
)

// registry is one sessions/<pid>.json record. Field order follows what
// Claude Code 2.1.x writes.
type registry struct {
	PID             int    `json:"pid"`
	SessionID       string `json:"sessionId"`
	Cwd             string `json:"cwd"`
	StartedAt       int64  `json:"startedAt"`
	ProcStart       string `json:"procStart,omitempty"`
	Version         string `json:"version"`
	PeerProtocol    int    `json:"peerProtocol"`
	Kind            string `json:"kind"`
	Entrypoint      string `json:"entrypoint"`
	Name            string `json:"name"`
	NameSource      string `json:"nameSource"`
	Status          string `json:"status"`
	UpdatedAt       int64  `json:"updatedAt"`
	StatusUpdatedAt int64  `json:"statusUpdatedAt"`
}

// writeRegistry replaces path atomically (temp file + rename), so a reader
// never sees half a record. The temp name does not end in .json, so a
// directory scan never mistakes it for a session. The mode is Claude
// Code's own (0644), since readers are tested against what it writes.
func writeRegistry(path string, r registry) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".fakeclaude-*.tmp")
	if err != nil {
		return err
	}
	_, werr := f.Write(b)
	cerr := f.Close()
	if err := errors.Join(werr, cerr, os.Chmod(f.Name(), 0o644)); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}

// procStart returns /proc/<pid>/stat field 22 (start time in clock ticks
// since boot) as the decimal string Claude Code records, or "" off Linux.
func procStart(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	return statStartTime(string(b))
}

// statStartTime takes field 22 from a stat line. The command name in
// parentheses may contain spaces or ')', so fields are counted after the
// last ')': field 3 is index 0 there, field 22 index 19.
func statStartTime(line string) string {
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(line[i+1:])
	if len(f) < 20 {
		return ""
	}
	if _, err := strconv.ParseUint(f[19], 10, 64); err != nil {
		return ""
	}
	return f[19]
}

func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// derivedName is Claude Code's fallback session name: a slug of the cwd's
// base name and two random hex digits.
func derivedName(cwd string) string {
	var sb strings.Builder
	dash := false
	for _, r := range strings.ToLower(filepath.Base(cwd)) {
		if r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			sb.WriteRune(r)
			dash = false
		} else if !dash && sb.Len() > 0 {
			sb.WriteByte('-')
			dash = true
		}
	}
	slug := strings.TrimRight(sb.String(), "-")
	if slug == "" {
		slug = "session"
	}
	var b [1]byte
	rand.Read(b[:])
	return fmt.Sprintf("%s-%02x", slug, b[0])
}

// projectDirName encodes a cwd the way Claude Code names its project
// directories: every non-alphanumeric byte becomes '-', and a name over 200
// characters is cut and given a hash suffix.
func projectDirName(cwd string) string {
	var sb strings.Builder
	for _, r := range cwd {
		switch {
		case r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			sb.WriteRune(r)
		case r >= 0x10000:
			// JavaScript replaces each UTF-16 unit of a surrogate pair.
			sb.WriteString("--")
		default:
			sb.WriteByte('-')
		}
	}
	enc := sb.String()
	if len(enc) <= 200 {
		return enc
	}
	var h int32
	for _, u := range utf16Units(cwd) {
		h = h<<5 - h + int32(u)
	}
	abs := int64(h)
	if abs < 0 {
		abs = -abs
	}
	return enc[:200] + "-" + strconv.FormatInt(abs, 36)
}

func utf16Units(s string) []uint16 {
	var out []uint16
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			out = append(out, uint16(0xd800+(r>>10)), uint16(0xdc00+(r&0x3ff)))
		} else {
			out = append(out, uint16(r))
		}
	}
	return out
}

// appendJSONL appends one JSON line with a single write.
func appendJSONL(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write(append(b, '\n'))
	return errors.Join(werr, f.Close())
}
