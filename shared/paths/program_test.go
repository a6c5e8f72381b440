package paths

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestProgramFind(t *testing.T) {
	dir := t.TempDir()
	mk := func(p string) string {
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755)
		return p
	}
	told := mk(filepath.Join(dir, "told", "forgectl"))
	beside := mk(filepath.Join(dir, "bin", "forgectl"))
	onPath := mk(filepath.Join(dir, "path", "forgectl"))
	goRun := mk(filepath.Join(dir, "go-build12", "b001", "exe", "forgectl"))
	look := func(name string) (string, error) {
		if strings.Contains(name, "/") {
			return exec.LookPath(name)
		}
		return onPath, nil
	}
	noPath := func(name string) (string, error) {
		if strings.Contains(name, "/") {
			return exec.LookPath(name)
		}
		return "", errors.New("not found")
	}
	env := func(v string) Getenv {
		return func(k string) string {
			if k == "FORGECTL_SELF" {
				return v
			}
			return ""
		}
	}
	self := filepath.Join(dir, "bin", "resume-hooks")
	for _, tc := range []struct {
		name string
		p    Program
		env  Getenv
		look func(string) (string, error)
		want string
		err  string
	}{
		{"told", Program{Name: "forgectl", EnvVar: "FORGECTL_SELF", Self: self}, env(told), look, told, ""},
		{"told but broken", Program{Name: "forgectl", EnvVar: "FORGECTL_SELF", Self: self}, env(filepath.Join(dir, "nope")), look, "", "FORGECTL_SELF"},
		{"beside", Program{Name: "forgectl", EnvVar: "FORGECTL_SELF", Self: self}, env(""), look, beside, ""},
		{"on PATH", Program{Name: "forgectl", Self: filepath.Join(dir, "x", "y")}, env(""), look, onPath, ""},
		{"nowhere", Program{Name: "forgectl", Self: filepath.Join(dir, "x", "y")}, env(""), noPath, "", "forgectl not found: neither beside"},
		{"go run refused", Program{Name: "forgectl", EnvVar: "FORGECTL_SELF"}, env(goRun), look, "", "go run build"},
		{"go run refused even when gone", Program{Name: "forgectl", EnvVar: "FORGECTL_SELF"}, env("/tmp/go-build1/b001/exe/forgectl"), look, "", "go run build"},
		{"go run skipped", Program{Name: "forgectl", EnvVar: "FORGECTL_SELF", Self: goRun, SkipGoRun: true}, env(goRun), look, onPath, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.p.Find(tc.env, tc.look)
			if got != tc.want || (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Fatalf("got %q, %v; want %q, error containing %q", got, err, tc.want, tc.err)
			}
		})
	}
}
