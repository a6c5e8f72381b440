package proc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"forgectl.dev/shared/fsutil"
)

// statFields returns the fields of /proc/<pid>/stat after the command name.
// The name sits in parentheses and may itself contain spaces and ')', so the
// split starts after the last ')'.
func statFields(pid int) ([]string, string, error) {
	b, err := fsutil.ReadRegular(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, "", ErrNoProcess
		}
		return nil, "", err
	}
	open := bytes.IndexByte(b, '(')
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || open < 0 || open > i {
		return nil, "", fmt.Errorf("/proc/%d/stat: unrecognised format", pid)
	}
	return strings.Fields(string(b[i+1:])), string(b[open+1 : i]), nil
}

// StartTime is field 22 of /proc/<pid>/stat (clock ticks since boot) as a
// decimal string: exactly what Claude Code writes as procStart on Linux.
func StartTime(pid int) (string, error) {
	f, _, err := statFields(pid)
	if err != nil {
		return "", err
	}
	if len(f) < 20 {
		return "", fmt.Errorf("/proc/%d/stat: too few fields", pid)
	}
	return f[19], nil
}

// Parent is the parent pid (field 4).
func Parent(pid int) (int, error) {
	f, _, err := statFields(pid)
	if err != nil {
		return 0, err
	}
	if len(f) < 2 {
		return 0, fmt.Errorf("/proc/%d/stat: too few fields", pid)
	}
	return strconv.Atoi(f[1])
}

// Environ is the environment the process was started with.
func Environ(pid int) ([]string, error) {
	b, err := fsutil.ReadRegular(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, ErrNoProcess
		}
		return nil, err
	}
	return splitNul(b), nil
}

// Args is the process's argv.
func Args(pid int) ([]string, error) {
	b, err := fsutil.ReadRegular(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, ErrNoProcess
		}
		return nil, err
	}
	return splitNul(b), nil
}

// Exe is the path of the running executable. The kernel appends
// " (deleted)" when the file was replaced, as an update does; that suffix
// is kept so callers can see it.
func Exe(pid int) (string, error) {
	p, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if os.IsNotExist(err) {
		return "", ErrNoProcess
	}
	return p, err
}

// Lookup gathers Info for pid.
func Lookup(pid int) (Info, error) {
	f, name, err := statFields(pid)
	if err != nil {
		return Info{}, err
	}
	info := Info{Pid: pid, Name: name}
	if len(f) >= 20 {
		info.StartTime = f[19]
	}
	info.Exe, _ = Exe(pid)
	if info.Exe == "" {
		if args, err := Args(pid); err == nil && len(args) > 0 {
			info.Exe = args[0]
		}
	}
	if info.Name == "" {
		info.Name = filepath.Base(strings.TrimSuffix(info.Exe, " (deleted)"))
	}
	return info, nil
}

func splitNul(b []byte) []string {
	b = bytes.TrimRight(b, "\x00")
	if len(b) == 0 {
		return nil
	}
	parts := bytes.Split(b, []byte{0})
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = string(p)
	}
	return out
}

// exited says the process is a zombie or dead (the state field of
// /proc/<pid>/stat is Z or X).
func exited(pid int) bool {
	f, _, err := statFields(pid)
	if err != nil || len(f) == 0 {
		return errors.Is(err, ErrNoProcess)
	}
	return f[0] == "Z" || f[0] == "X"
}
