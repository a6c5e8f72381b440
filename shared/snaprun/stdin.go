package snaprun

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// stdinLimits bound the hook's stdin. Claude Code writes the whole JSON at
// once when it starts the hook; a stdin that stays open and silent (a
// wrapper that never writes) must cost a fraction of a second, not the turn.
type stdinLimits struct {
	keep  int           // bytes kept; the rest is read and dropped
	drop  int           // bytes read and dropped before giving up
	idle  time.Duration // silence that ends the read
	total time.Duration // ceiling for the whole read
}

// readStdin returns the hook's input, or nothing when stdin is a terminal.
// It stops at end of input, once what it has is a complete JSON value, or
// at the idle or total deadline. Input past keep is drained rather than
// left unread, so Claude Code's write does not fail on a closed pipe.
func readStdin(r io.Reader, lim stdinLimits) ([]byte, error) {
	if r == nil {
		return nil, nil
	}
	f, ok := r.(*os.File)
	if !ok {
		return io.ReadAll(io.LimitReader(r, int64(lim.keep)))
	}
	fd := int(f.Fd())
	if isTerminal(fd) {
		return nil, nil
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		if errors.Is(err, unix.EBADF) { // stdin closed: no input
			return nil, nil
		}
		return nil, err
	}
	if st.Mode&unix.S_IFMT == unix.S_IFREG {
		return io.ReadAll(io.LimitReader(f, int64(lim.keep)))
	}

	var buf []byte
	chunk := make([]byte, 64<<10)
	dropped := 0
	deadline := time.Now().Add(lim.total)
	for {
		wait := min(lim.idle, time.Until(deadline))
		if wait <= 0 {
			return buf, nil
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(wait/time.Millisecond)+1)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return buf, err
		}
		if n == 0 || fds[0].Revents&unix.POLLNVAL != 0 {
			// Silence, or a descriptor poll cannot watch (some devices
			// on macOS): take what there is.
			return buf, nil
		}
		m, err := unix.Read(fd, chunk)
		if err == unix.EINTR || err == unix.EAGAIN {
			continue
		}
		if err != nil {
			return buf, err
		}
		if m <= 0 {
			return buf, nil
		}
		if room := lim.keep - len(buf); room > 0 {
			buf = append(buf, chunk[:min(m, room)]...)
			dropped += max(0, m-room)
		} else {
			dropped += m
		}
		if dropped > lim.drop {
			return buf, nil
		}
		if dropped == 0 && complete(buf) {
			return buf, nil
		}
	}
}

// complete reports a whole JSON object; Claude Code may keep the pipe open
// after writing it.
func complete(b []byte) bool {
	t := bytes.TrimRight(b, " \t\r\n")
	return len(t) > 0 && t[len(t)-1] == '}' && json.Valid(t)
}
