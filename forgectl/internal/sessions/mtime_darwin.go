package sessions

import "golang.org/x/sys/unix"

func unixMtimeNs(st *unix.Stat_t) int64 { return st.Mtim.Sec*1e9 + st.Mtim.Nsec }
