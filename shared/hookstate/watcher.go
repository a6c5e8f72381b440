package hookstate

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Label is the launchd agent's label, also its plist's base name.
const Label = "local.forgectl.resume-hooks"

// Unit is the base name of the systemd user units (.service, .path, .timer).
const Unit = "forgectl-resume-hooks"

// Watcher kinds.
const (
	KindLaunchd = "launchd"
	KindSystemd = "systemd"
)

// PlistPath is the launchd agent's file.
func PlistPath(home string) string {
	return filepath.Join(home, "Library", "LaunchAgents", Label+".plist")
}

// UnitDir is systemd's user unit directory.
func UnitDir(getenv func(string) string, home string) string {
	if x := getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "systemd", "user")
	}
	return filepath.Join(home, ".config", "systemd", "user")
}

// UnitFiles are the three unit files, service first.
func UnitFiles(getenv func(string) string, home string) []string {
	dir := UnitDir(getenv, home)
	return []string{
		filepath.Join(dir, Unit+".service"),
		filepath.Join(dir, Unit+".path"),
		filepath.Join(dir, Unit+".timer"),
	}
}

// Env is what inspecting the watcher needs from the outside world.
type Env struct {
	Files  Files
	GOOS   string
	Home   string
	UID    int
	Getenv func(string) string
	Run    Runner
}

// Watcher is the watcher's state as files and the service manager show it.
type Watcher struct {
	// Kind is KindLaunchd on macOS, KindSystemd on Linux, "" elsewhere.
	Kind  string
	Files []string
	// Installed: every file exists.
	Installed bool
	// Loaded: launchd knows the job, or systemd has the .path and .timer active.
	Loaded bool
	// Running: the job is running now, as Pid.
	Running bool
	Pid     int
	// Unreachable is set when the service manager could not be asked
	// (no systemd user instance, say); Loaded is then unknown, not false.
	Unreachable string
}

// LaunchdTarget is the job's launchctl service target.
func LaunchdTarget(uid int) string { return "gui/" + strconv.Itoa(uid) + "/" + Label }

// InspectWatcher reads the watcher's files and asks the service manager.
func InspectWatcher(ctx context.Context, env Env) Watcher {
	switch env.GOOS {
	case "darwin":
		w := Watcher{Kind: KindLaunchd, Files: []string{PlistPath(env.Home)}}
		w.Installed = allExist(w.Files)
		res := env.Run(ctx, "launchctl", "print", LaunchdTarget(env.UID))
		switch {
		case res.Err != nil:
			w.Unreachable = "launchctl: " + res.Err.Error()
		case res.Code == 0:
			w.Loaded = true
			w.Running, w.Pid = parseLaunchctlPrint(res.Stdout)
		}
		return w
	case "linux":
		w := Watcher{Kind: KindSystemd, Files: UnitFiles(env.Getenv, env.Home)}
		w.Installed = allExist(w.Files)
		res := env.Run(ctx, "systemctl", "--user", "is-active", Unit+".path", Unit+".timer")
		if res.Err != nil || !SystemdReachable(res) {
			w.Unreachable = "no systemd user instance answers"
			if res.Err != nil {
				w.Unreachable = "systemctl: " + res.Err.Error()
			}
			return w
		}
		w.Loaded = res.Code == 0
		res = env.Run(ctx, "systemctl", "--user", "show", "--property=ActiveState", "--property=MainPID", Unit+".service")
		if res.Code == 0 {
			props := parseProps(res.Stdout)
			// A oneshot service is "activating" for as long as its run lasts.
			w.Running = props["ActiveState"] == "activating" || props["ActiveState"] == "active"
			if w.Running {
				w.Pid, _ = strconv.Atoi(props["MainPID"])
			}
		}
		return w
	}
	return Watcher{}
}

// SystemdReachable tells an answer from systemctl about units (whatever
// their state) from a failure to reach the user manager at all.
func SystemdReachable(res Result) bool {
	if res.Err != nil {
		return false
	}
	msg := string(res.Stderr)
	return !strings.Contains(msg, "Failed to connect") && !strings.Contains(msg, "not been booted with systemd") &&
		!strings.Contains(msg, "No medium found")
}

func allExist(files []string) bool {
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			return false
		}
	}
	return len(files) > 0
}

// parseLaunchctlPrint reads the job's top-level "state = running" and
// "pid = N" lines; nested blocks (endpoints, sockets) are indented deeper.
func parseLaunchctlPrint(out []byte) (running bool, pid int) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "\t\t") {
			continue
		}
		k, v, ok := strings.Cut(strings.TrimSpace(line), " = ")
		if !ok {
			continue
		}
		switch k {
		case "state":
			running = v == "running"
		case "pid":
			pid, _ = strconv.Atoi(v)
		}
	}
	if !running {
		pid = 0
	}
	return running, pid
}

func parseProps(out []byte) map[string]string {
	m := map[string]string{}
	for line := range strings.SplitSeq(string(out), "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok {
			m[k] = v
		}
	}
	return m
}
