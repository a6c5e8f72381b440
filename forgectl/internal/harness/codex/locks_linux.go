package codex

import (
	"bytes"
	"errors"
	"os"
	"strconv"

	"forgectl.dev/shared/fsutil"
)

// writeLocks reads the WRITE flocks held now from /proc/locks (path), by
// file: the holder's pid. Reading it takes no lock and changes nothing.
// Lines look like "1: FLOCK  ADVISORY  WRITE 4242 00:2d:1234567 0 EOF";
// a waiter's line ("1: -> FLOCK …") holds nothing.
func writeLocks(path string) (map[lockKey]int, error) {
	b, err := fsutil.ReadRegular(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	out := map[lockKey]int{}
	for line := range bytes.Lines(b) {
		f := bytes.Fields(line)
		if len(f) < 6 || string(f[1]) == "->" || string(f[1]) != "FLOCK" || string(f[3]) != "WRITE" {
			continue
		}
		pid, err := strconv.Atoi(string(f[4]))
		if err != nil {
			continue
		}
		parts := bytes.Split(f[5], []byte(":"))
		if len(parts) != 3 {
			continue
		}
		maj, e1 := strconv.ParseUint(string(parts[0]), 16, 32)
		min, e2 := strconv.ParseUint(string(parts[1]), 16, 32)
		ino, e3 := strconv.ParseUint(string(parts[2]), 10, 64)
		if e1 != nil || e2 != nil || e3 != nil {
			continue
		}
		out[lockKey{uint32(maj), uint32(min), ino}] = pid
	}
	return out, nil
}
