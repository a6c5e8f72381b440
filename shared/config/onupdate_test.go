package config

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestOnUpdateRules(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "restart and command are valid",
			src: `[[resume.on_update]]
harness = "claude"
action = "restart"
[[resume.on_update]]
harness = "claude"
command = ["/bin/true"]
timeout_seconds = 86400
`,
		},
		{
			name: "unknown key is named with its entry",
			src: `[[resume.on_update]]
harness = "claude"
action = "restart"

[[resume.on_update]]
harness = "claude"
comand = ["/usr/bin/say", "hi"]
`,
			want: []string{
				`config.toml:7: [[resume.on_update]] entry 2: unknown key "comand"`,
				`config.toml:5: [[resume.on_update]] entry 2: set one of action = "restart" or command`,
			},
		},
		{
			name: "several unknown keys",
			src:  "[[resume.on_update]]\nharness = \"claude\"\naction = \"restart\"\ntimeout = 5\nshell = true\n",
			want: []string{
				`config.toml:5: [[resume.on_update]] entry 1: unknown key "shell"`,
				`config.toml:4: [[resume.on_update]] entry 1: unknown key "timeout"`,
			},
		},
		{
			name: "a sub-table is an unknown key",
			src:  "[[resume.on_update]]\nharness = \"claude\"\naction = \"restart\"\n[resume.on_update.env]\nA = \"b\"\n",
			want: []string{`config.toml:1: [[resume.on_update]] entry 1: unknown key "env"`},
		},
		{
			name: "both action and command",
			src:  "[[resume.on_update]]\nharness = \"claude\"\naction = \"restart\"\ncommand = [\"x\"]\n",
			want: []string{`config.toml:1: [[resume.on_update]] entry 1: set exactly one of action = "restart" or command, not both`},
		},
		{
			name: "neither action nor command",
			src:  "[[resume.on_update]]\nharness = \"claude\"\n",
			want: []string{`config.toml:1: [[resume.on_update]] entry 1: set one of action = "restart" or command`},
		},
		{
			name: "unknown action",
			src:  "[[resume.on_update]]\nharness = \"claude\"\naction = \"reboot\"\n",
			want: []string{`config.toml:3: [[resume.on_update]] entry 1: unknown action "reboot"`},
		},
		{
			name: "empty action is written, and wrong",
			src:  "[[resume.on_update]]\nharness = \"claude\"\naction = \"\"\n",
			want: []string{`config.toml:3: [[resume.on_update]] entry 1: unknown action ""`},
		},
		{
			name: "empty command",
			src:  "[[resume.on_update]]\nharness = \"claude\"\ncommand = []\n",
			want: []string{`config.toml:3: [[resume.on_update]] entry 1: command is empty`},
		},
		{
			name: "empty program",
			src:  "[[resume.on_update]]\nharness = \"claude\"\ncommand = [\"\", \"x\"]\n",
			want: []string{`config.toml:3: [[resume.on_update]] entry 1: command's program (its first element) is empty`},
		},
		{
			name: "command as a shell string",
			src:  "[[resume.on_update]]\nharness = \"claude\"\ncommand = \"say hi\"\n",
			want: []string{`config.toml:3: [[resume.on_update]] entry 1: command: expected an array of strings, found a string`},
		},
		{
			name: "command with a number",
			src:  "[[resume.on_update]]\nharness = \"claude\"\ncommand = [\"sleep\", 5]\n",
			want: []string{`config.toml:3: [[resume.on_update]] entry 1: command: expected an array of strings, found an array`},
		},
		{
			name: "missing harness",
			src:  "[[resume.on_update]]\naction = \"restart\"\n",
			want: []string{`config.toml:1: [[resume.on_update]] entry 1: harness is missing`},
		},
		{
			name: "codex",
			src:  "[[resume.on_update]]\nharness = \"codex\"\naction = \"restart\"\n",
			want: []string{`config.toml:2: [[resume.on_update]] entry 1: harness "codex" is not supported yet`},
		},
		{
			name: "pi",
			src:  "[[resume.on_update]]\nharness = \"pi\"\ncommand = [\"x\"]\n",
			want: []string{`config.toml:2: [[resume.on_update]] entry 1: harness "pi" is not supported yet`},
		},
		{
			name: "other harness",
			src:  "[[resume.on_update]]\nharness = \"Claude\"\naction = \"restart\"\n",
			want: []string{`config.toml:2: [[resume.on_update]] entry 1: unknown harness "Claude"`},
		},
		{
			name: "harness of the wrong type",
			src:  "[[resume.on_update]]\nharness = 1\naction = \"restart\"\n",
			want: []string{`config.toml:2: [[resume.on_update]] entry 1: harness: expected a string, found an integer`},
		},
		{
			name: "negative timeout",
			src:  "[[resume.on_update]]\nharness = \"claude\"\naction = \"restart\"\ntimeout_seconds = -1\n",
			want: []string{`config.toml:4: [[resume.on_update]] entry 1: timeout_seconds -1 is negative`},
		},
		{
			name: "timeout over a day",
			src:  "[[resume.on_update]]\nharness = \"claude\"\ncommand = [\"x\"]\ntimeout_seconds = 86401\n",
			want: []string{`config.toml:4: [[resume.on_update]] entry 1: timeout_seconds 86401 is over the maximum of 86400 (one day)`},
		},
		{
			name: "fractional timeout",
			src:  "[[resume.on_update]]\nharness = \"claude\"\ncommand = [\"x\"]\ntimeout_seconds = 1.5\n",
			want: []string{`config.toml:4: [[resume.on_update]] entry 1: timeout_seconds: expected a whole number of seconds, found a float`},
		},
		{
			name: "timeout as a string",
			src:  "[[resume.on_update]]\nharness = \"claude\"\ncommand = [\"x\"]\ntimeout_seconds = \"60\"\n",
			want: []string{`config.toml:4: [[resume.on_update]] entry 1: timeout_seconds: expected a whole number of seconds, found a string`},
		},
		{
			name: "every problem of every entry",
			src: `[[resume.on_update]]
harness = "pi"
action = "restart"
command = []
timeout_seconds = -5

[[resume.on_update]]
harness = "claude"
action = "restart"

[[resume.on_update]]
comand = ["x"]
`,
			want: []string{
				`config.toml:2: [[resume.on_update]] entry 1: harness "pi" is not supported yet`,
				`config.toml:1: [[resume.on_update]] entry 1: set exactly one of action = "restart" or command, not both`,
				`config.toml:4: [[resume.on_update]] entry 1: command is empty`,
				`config.toml:5: [[resume.on_update]] entry 1: timeout_seconds -5 is negative`,
				`config.toml:12: [[resume.on_update]] entry 3: unknown key "comand"`,
				`config.toml:11: [[resume.on_update]] entry 3: harness is missing`,
				`config.toml:11: [[resume.on_update]] entry 3: set one of action = "restart" or command`,
			},
		},
		{
			name: "inline array of tables has no lines but keeps entries",
			src:  "[resume]\non_update = [{ harness = \"claude\", action = \"restart\" }, { harness = \"claude\", comand = [\"x\"] }]\n",
			want: []string{
				`config.toml: [[resume.on_update]] entry 2: unknown key "comand"`,
				`config.toml: [[resume.on_update]] entry 2: set one of action = "restart" or command`,
			},
		},
		{
			name: "a single table",
			src:  "[resume.on_update]\nharness = \"claude\"\naction = \"restart\"\n",
			want: []string{`config.toml:1: [resume.on_update]: [resume.on_update] must be an array of tables: write each hook as [[resume.on_update]]`},
		},
		{
			name: "a scalar",
			src:  "[resume]\non_update = \"restart\"\n",
			want: []string{`config.toml:2: [resume]: on_update: expected an array of tables, found a string`},
		},
		{
			name: "an array of strings",
			src:  "[resume]\non_update = [\"restart\"]\n",
			want: []string{`config.toml:2: [resume]: on_update: expected an array of tables, found an array holding a string`},
		},
		{
			name: "top-level array of tables",
			src:  "[launch.defaults]\nmodel = \"opus\"\n\n[[on_update]]\nharness = \"claude\"\naction = \"restart\"\n",
			want: []string{`config.toml:4: a top-level [[on_update]] is not read: update hooks belong in [[resume.on_update]]`},
		},
		{
			name: "top-level table",
			src:  "[on_update]\nharness = \"claude\"\naction = \"restart\"\n",
			want: []string{`config.toml:1: a top-level [on_update] is not read: update hooks belong in [[resume.on_update]]`},
		},
		{
			name: "top-level key",
			src:  "on_update = \"restart\"\n",
			want: []string{`config.toml:1: a top-level on_update is not read: update hooks belong in [[resume.on_update]]`},
		},
		{
			name: "both spellings",
			src:  "[[on_update]]\nharness = \"claude\"\naction = \"restart\"\n[[resume.on_update]]\nharness = \"claude\"\nactoin = \"restart\"\n",
			want: []string{
				`config.toml:6: [[resume.on_update]] entry 1: unknown key "actoin"`,
				`config.toml:4: [[resume.on_update]] entry 1: set one of action = "restart" or command`,
				`config.toml:1: a top-level [[on_update]] is not read: update hooks belong in [[resume.on_update]]`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, msgs := problems(t, tt.src)
			if diff := cmp.Diff(tt.want, msgs); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			if cfg.Ignored != nil {
				t.Errorf("on_update keys leaked into Ignored: %q", cfg.Ignored)
			}
		})
	}
}

func TestOnUpdateErrorFields(t *testing.T) {
	_, err := Parse("/cfg/config.toml", []byte("[[resume.on_update]]\nharness = \"claude\"\naction = \"restart\"\n[[resume.on_update]]\nharness = \"claude\"\ncomand = [\"x\"]\n"))
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("err = %v", err)
	}
	want := &Error{
		File: "/cfg/config.toml", Line: 6, Table: "resume.on_update", Entry: 2, Key: "comand",
		Reason: `unknown key "comand"`, Hint: "the keys are harness, action, command and timeout_seconds",
	}
	if diff := cmp.Diff(want, list[0]); diff != "" {
		t.Errorf("first problem (-want +got):\n%s", diff)
	}
	top := mustProblems(t, "[on_update]\nx = 1\n")[0]
	if top.Key != "on_update" || top.Table != "" || top.Hint == "" {
		t.Errorf("top-level problem = %+v", top)
	}
}

func mustProblems(t *testing.T, src string) ErrorList {
	t.Helper()
	_, err := Parse("config.toml", []byte(src))
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("err = %v, want problems", err)
	}
	return list
}

func TestOnUpdateKindAndTimeout(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		kind    string
		timeout time.Duration
	}{
		{"restart default", `action = "restart"`, "restart", 1800 * time.Second},
		{"restart zero is default", "action = \"restart\"\ntimeout_seconds = 0", "restart", 30 * time.Minute},
		{"restart set", "action = \"restart\"\ntimeout_seconds = 600", "restart", 10 * time.Minute},
		{"command default", `command = ["x"]`, "command", 300 * time.Second},
		{"command set", "command = [\"x\"]\ntimeout_seconds = 60", "command", time.Minute},
		{"command max", "command = [\"x\"]\ntimeout_seconds = 86400", "command", 24 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, msgs := problems(t, "[[resume.on_update]]\nharness = \"claude\"\n"+tt.src+"\n")
			if msgs != nil {
				t.Fatalf("problems: %q", msgs)
			}
			o := cfg.Resume.OnUpdate[0]
			if o.Kind() != tt.kind || o.Timeout() != tt.timeout {
				t.Errorf("Kind() = %q, Timeout() = %v; want %q, %v", o.Kind(), o.Timeout(), tt.kind, tt.timeout)
			}
		})
	}
}

func TestOnUpdateValidate(t *testing.T) {
	tests := []struct {
		name string
		o    OnUpdate
		want []string
	}{
		{"restart", OnUpdate{Harness: "claude", Action: "restart"}, nil},
		{"command", OnUpdate{Harness: "claude", Command: []string{"x"}, TimeoutSeconds: 1}, nil},
		{"nothing", OnUpdate{}, []string{"harness:harness is missing", `:set one of action = "restart" or command`}},
		{"codex both", OnUpdate{Harness: "codex", Action: "restart", Command: []string{"x"}}, []string{
			`harness:harness "codex" is not supported yet`,
			`:set exactly one of action = "restart" or command, not both`,
		}},
		{"bad action and timeout", OnUpdate{Harness: "claude", Action: "stop", TimeoutSeconds: 90000}, []string{
			`action:unknown action "stop"`,
			"timeout_seconds:timeout_seconds 90000 is over the maximum of 86400 (one day)",
		}},
		{"empty argv", OnUpdate{Harness: "claude", Command: []string{}}, []string{"command:command is empty"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, err := range tt.o.Validate() {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("%T is not an *Error", err)
				}
				got = append(got, e.Key+":"+e.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Validate (-want +got):\n%s", diff)
			}
		})
	}
}
