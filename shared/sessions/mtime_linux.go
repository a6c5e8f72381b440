package sessions

import "syscall"

func mtimeNs(st *syscall.Stat_t) int64 { return st.Mtim.Sec*1e9 + st.Mtim.Nsec }
