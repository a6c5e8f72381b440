package sessions

import "syscall"

func mtimeNs(st *syscall.Stat_t) int64 { return st.Mtimespec.Sec*1e9 + st.Mtimespec.Nsec }
