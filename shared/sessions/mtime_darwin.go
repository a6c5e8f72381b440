package sessions

import (
	"syscall"

	"golang.org/x/sys/unix"
)

func mtimeNs(st *syscall.Stat_t) int64 { return st.Mtimespec.Sec*1e9 + st.Mtimespec.Nsec }

func unixMtimeNs(st *unix.Stat_t) int64 { return st.Mtim.Sec*1e9 + st.Mtim.Nsec }
