package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// discardTypedAhead drops what was typed on the terminal f but not read yet.
func discardTypedAhead(f *os.File) {
	_ = unix.IoctlSetPointerInt(int(f.Fd()), unix.TIOCFLUSH, unix.TCIFLUSH)
}
