package proc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

func kinfo(pid int) (*unix.KinfoProc, error) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		// A pid gone between two looks answers EIO (a reply of size 0),
		// not ESRCH.
		if errors.Is(err, unix.ESRCH) || errors.Is(err, unix.EIO) {
			return nil, ErrNoProcess
		}
		return nil, err
	}
	if k.Proc.P_pid != int32(pid) {
		return nil, ErrNoProcess
	}
	return k, nil
}

// StartTime renders the kernel start time the way Claude Code records
// procStart on macOS: the output of `LC_ALL=C TZ=UTC ps -o lstart= -p PID`.
func StartTime(pid int) (string, error) {
	k, err := kinfo(pid)
	if err != nil {
		return "", err
	}
	tv := k.Proc.P_starttime
	t := time.Unix(int64(tv.Sec), int64(tv.Usec)*1000).UTC()
	return t.Format("Mon Jan _2 15:04:05 2006"), nil
}

// Parent is the parent pid.
func Parent(pid int) (int, error) {
	k, err := kinfo(pid)
	if err != nil {
		return 0, err
	}
	return int(k.Eproc.Ppid), nil
}

// procargs reads kern.procargs2: argc, the exec path, padding, argv, env.
func procargs(pid int) (exe string, args, env []string, err error) {
	b, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil {
		if errors.Is(err, unix.ESRCH) || errors.Is(err, unix.EINVAL) {
			return "", nil, nil, ErrNoProcess
		}
		return "", nil, nil, err
	}
	if len(b) < 4 {
		return "", nil, nil, errors.New("kern.procargs2: short read")
	}
	argc := int(binary.LittleEndian.Uint32(b[:4]))
	b = b[4:]
	i := bytes.IndexByte(b, 0)
	if i < 0 {
		return "", nil, nil, errors.New("kern.procargs2: no exec path")
	}
	exe = string(b[:i])
	b = b[i:]
	for len(b) > 0 && b[0] == 0 {
		b = b[1:]
	}
	for len(b) > 0 {
		j := bytes.IndexByte(b, 0)
		if j < 0 {
			j = len(b)
		}
		if j == 0 {
			break // the environment ends at the first empty string
		}
		s := string(b[:j])
		if len(args) < argc {
			args = append(args, s)
		} else {
			env = append(env, s)
		}
		if j == len(b) {
			break
		}
		b = b[j+1:]
	}
	return exe, args, env, nil
}

// Environ is the environment the process was started with.
func Environ(pid int) ([]string, error) {
	_, _, env, err := procargs(pid)
	return env, err
}

// Args is the process's argv.
func Args(pid int) ([]string, error) {
	_, args, _, err := procargs(pid)
	return args, err
}

// Exe is the path of the running executable.
func Exe(pid int) (string, error) {
	exe, _, _, err := procargs(pid)
	return exe, err
}

// Lookup gathers Info for pid.
func Lookup(pid int) (Info, error) {
	st, err := StartTime(pid)
	if err != nil {
		return Info{}, err
	}
	info := Info{Pid: pid, StartTime: st}
	info.Exe, _ = Exe(pid)
	if k, err := kinfo(pid); err == nil {
		info.Name = unix.ByteSliceToString(k.Proc.P_comm[:])
	}
	if info.Name == "" {
		info.Name = filepath.Base(info.Exe)
	}
	return info, nil
}

// exited says the process is a zombie (SZOMB in its kinfo_proc).
func exited(pid int) bool {
	k, err := kinfo(pid)
	if err != nil {
		return errors.Is(err, ErrNoProcess)
	}
	const szomb = 5 // sys/proc.h
	return k.Proc.P_stat == szomb
}
