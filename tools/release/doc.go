// Package release tests what a release is made of, end to end against the
// repository's Makefile: make dist (16 archives and SHA256SUMS), make
// install into a temporary PREFIX, the version each way of building
// stamps, and the one command-line dialect of the four installed binaries.
package release
