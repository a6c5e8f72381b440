package gencodex

import (
	"bytes"
	"time"

	"github.com/klauspost/compress/zstd"
)

// writeZstd writes b zstd-compressed to path, as Codex's (off by default)
// compressing writer would leave a segment.
func writeZstd(path string, b []byte, at time.Time) error {
	var out bytes.Buffer
	enc, err := zstd.NewWriter(&out, zstd.WithEncoderConcurrency(1))
	if err != nil {
		return err
	}
	if _, err := enc.Write(b); err != nil {
		enc.Close()
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	return writeNew(path, out.Bytes(), at)
}
