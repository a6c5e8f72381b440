package fresh

import "golang.org/x/sys/unix"

// MtimeNs is a stat's modification time in nanoseconds, as File keeps it.
func MtimeNs(st *unix.Stat_t) int64 { return st.Mtim.Sec*1e9 + st.Mtim.Nsec }
