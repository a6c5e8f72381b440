package watcher

import (
	"encoding/xml"
	"fmt"
	"strings"

	"forgectl.dev/shared/hookstate"
)

// StopTimeout is how long, in seconds, the service manager waits after
// stopping the watcher with SIGTERM before it kills it: longer than a
// restart's 90-second relaunch grace plus the notification after it.
const StopTimeout = 120

// Umask is the watcher's umask (0077): what it creates is owner-only.
const Umask = 0o077

// Args are the watcher's arguments after the forgectl program.
var runArgs = []string{"resume", "hooks", "run"}

// Plist renders the launchd agent.
func Plist(b Bake) string {
	var s strings.Builder
	s.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
`)
	key := func(k string) { fmt.Fprintf(&s, "\t<key>%s</key>\n", esc(k)) }
	str := func(indent, v string) { fmt.Fprintf(&s, "%s<string>%s</string>\n", indent, esc(v)) }
	key("Label")
	str("\t", hookstate.Label)
	key("ProgramArguments")
	s.WriteString("\t<array>\n")
	for _, a := range append([]string{b.Forgectl}, runArgs...) {
		str("\t\t", a)
	}
	s.WriteString("\t</array>\n")
	key("EnvironmentVariables")
	s.WriteString("\t<dict>\n")
	for _, kv := range b.Env() {
		fmt.Fprintf(&s, "\t\t<key>%s</key>\n", esc(kv[0]))
		str("\t\t", kv[1])
	}
	s.WriteString("\t</dict>\n")
	key("WatchPaths")
	s.WriteString("\t<array>\n")
	for _, p := range b.WatchPaths() {
		str("\t\t", p)
	}
	s.WriteString("\t</array>\n")
	key("RunAtLoad")
	s.WriteString("\t<true/>\n")
	key("StartInterval")
	fmt.Fprintf(&s, "\t<integer>%d</integer>\n", Interval)
	// launchd's default is a SIGKILL 20 seconds after the SIGTERM; a
	// signalled run lets a restart finish a relaunch (up to 90 seconds),
	// then notifies about what it left stopped.
	key("ExitTimeOut")
	fmt.Fprintf(&s, "\t<integer>%d</integer>\n", StopTimeout)
	// The log (and runs.jsonl) can hold a bare token: owner-only from
	// creation. launchd reads the integer as decimal.
	key("Umask")
	fmt.Fprintf(&s, "\t<integer>%d</integer>\n", Umask)
	key("WorkingDirectory")
	str("\t", b.WorkDir)
	key("StandardOutPath")
	str("\t", b.Log)
	key("StandardErrorPath")
	str("\t", b.Log)
	s.WriteString("</dict>\n</plist>\n")
	return s.String()
}

func esc(v string) string {
	var s strings.Builder
	_ = xml.EscapeText(&s, []byte(v))
	return s.String()
}

// Units renders the systemd user units: the oneshot service, the .path unit
// watching the claude link and its directory, and the 30-minute timer, in
// the order of hookstate.UnitFiles.
func Units(b Bake) []string {
	desc := "Description=forgectl resume hooks: run [[resume.on_update]] when claude changes version\n"
	var svc strings.Builder
	svc.WriteString("[Unit]\n" + desc + "\n[Service]\nType=oneshot\n")
	// systemd expands variables in the arguments only, never in the
	// program's path, so "$" is doubled in the arguments only.
	args := []string{sdQuote(b.Forgectl, false)}
	for _, a := range runArgs {
		args = append(args, sdQuote(a, true))
	}
	fmt.Fprintf(&svc, "ExecStart=%s\n", strings.Join(args, " "))
	for _, kv := range b.Env() {
		fmt.Fprintf(&svc, "Environment=%s\n", sdQuote(kv[0]+"="+kv[1], false))
	}
	fmt.Fprintf(&svc, "WorkingDirectory=%s\n", sdPath(b.WorkDir))
	fmt.Fprintf(&svc, "StandardOutput=append:%s\n", sdPath(b.Log))
	fmt.Fprintf(&svc, "StandardError=append:%s\n", sdPath(b.Log))
	// A restart hook waits up to its timeout (30 minutes by default); the
	// oneshot default of 90 seconds would kill it.
	svc.WriteString("TimeoutStartSec=infinity\n")
	// SIGTERM goes to the run alone, which ends the restart's waiting
	// itself; a restart in mid-relaunch is not signalled behind its back.
	svc.WriteString("KillMode=mixed\n")
	// As launchd's ExitTimeOut: the default 90 seconds would kill the run
	// while it waits out a relaunch's grace.
	fmt.Fprintf(&svc, "TimeoutStopSec=%d\n", StopTimeout)
	// Owner-only from creation, as the log can hold a bare token.
	fmt.Fprintf(&svc, "UMask=%04o\n", Umask)

	var path strings.Builder
	path.WriteString("[Unit]\n" + desc + "\n[Path]\n")
	for _, p := range b.WatchPaths() {
		fmt.Fprintf(&path, "PathChanged=%s\n", sdPath(p))
	}
	fmt.Fprintf(&path, "Unit=%s.service\n\n[Install]\nWantedBy=default.target\n", hookstate.Unit)

	var timer strings.Builder
	timer.WriteString("[Unit]\n" + desc + "\n[Timer]\n")
	// OnStartupSec is the login run (and elapses at once when the timer is
	// started later, which gives the install-time run); the interval then
	// counts from each run.
	fmt.Fprintf(&timer, "OnStartupSec=1min\nOnUnitActiveSec=%dmin\nUnit=%s.service\n\n[Install]\nWantedBy=timers.target\n", Interval/60, hookstate.Unit)
	return []string{svc.String(), path.String(), timer.String()}
}

// sdQuote quotes one word for a systemd command line or Environment=
// assignment: double quotes with C-style escapes, "%" doubled against
// specifier expansion and, for a command's arguments, "$" doubled against
// variable expansion.
func sdQuote(v string, arg bool) string {
	var s strings.Builder
	s.WriteByte('"')
	for _, r := range v {
		switch r {
		case '\\', '"':
			s.WriteByte('\\')
			s.WriteRune(r)
		case '%':
			s.WriteString("%%")
		case '$':
			if arg {
				s.WriteString("$$")
			} else {
				s.WriteRune(r)
			}
		default:
			s.WriteRune(r)
		}
	}
	s.WriteByte('"')
	return s.String()
}

// sdPath writes a path setting, which systemd takes whole (spaces included)
// after specifier expansion.
func sdPath(p string) string { return strings.ReplaceAll(p, "%", "%%") }

// CronLine is the crontab entry for a machine without a service manager.
func CronLine(b Bake) string {
	var env []string
	for _, kv := range b.Env() {
		env = append(env, kv[0]+"="+shQuote(kv[1]))
	}
	cmd := append([]string{shQuote(b.Forgectl)}, runArgs...)
	line := fmt.Sprintf("*/%d * * * * umask %03o && cd %s && %s %s >> %s 2>&1", Interval/60, Umask, shQuote(b.WorkDir), strings.Join(env, " "), strings.Join(cmd, " "), shQuote(b.Log))
	// cron turns an unescaped % into a newline.
	return strings.ReplaceAll(line, "%", `\%`)
}

func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
