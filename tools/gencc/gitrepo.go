package gencc

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// writeCommit stores an empty tree and one root commit as loose objects, so
// that HEAD resolves (`git rev-parse HEAD`, `--abbrev-ref HEAD`, `git log`)
// rather than pointing at an unborn branch. It returns the commit id.
func writeCommit(gitDir, repo string, at time.Time) (string, error) {
	tree, err := writeObject(gitDir, "tree", nil)
	if err != nil {
		return "", err
	}
	stamp := fmt.Sprintf("%d +0000", at.Unix())
	body := fmt.Sprintf("tree %s\nauthor Alice Example <alice@example.com> %s\ncommitter Alice Example <alice@example.com> %s\n\nInitial commit of %s\n", tree, stamp, stamp, repo)
	return writeObject(gitDir, "commit", []byte(body))
}

func writeObject(gitDir, kind string, body []byte) (string, error) {
	raw := append([]byte(fmt.Sprintf("%s %d\x00", kind, len(body))), body...)
	sum := sha1.Sum(raw)
	id := hex.EncodeToString(sum[:])
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(raw)
	if err := zw.Close(); err != nil {
		return "", err
	}
	dir := filepath.Join(gitDir, "objects", id[:2])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return id, os.WriteFile(filepath.Join(dir, id[2:]), z.Bytes(), 0o444)
}

func writeRef(gitDir, branch, id string) error {
	p := filepath.Join(gitDir, "refs", "heads", filepath.FromSlash(branch))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(id+"\n"), 0o644)
}
