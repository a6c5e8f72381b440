package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/google/go-cmp/cmp"
)

// problems parses src as config.toml and returns each problem's message.
func problems(t *testing.T, src string) (*Config, []string) {
	t.Helper()
	cfg, err := Parse("config.toml", []byte(src))
	if cfg == nil {
		t.Fatal("Parse returned a nil config")
	}
	if err == nil {
		return cfg, nil
	}
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error is %T, want ErrorList: %v", err, err)
	}
	msgs := make([]string, len(list))
	for i, e := range list {
		msgs[i] = e.Error()
	}
	return cfg, msgs
}

func ptr[T any](v T) *T { return &v }

func TestLoadMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "forgectl", "config.toml")
	cfg, err := Load(path)
	if err != nil {
		t.Fatalf("Load of a missing file: %v", err)
	}
	if diff := cmp.Diff(&Config{Path: path}, cfg); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
}

func TestLoadUnreadable(t *testing.T) {
	dir := t.TempDir() // a directory where the file should be
	cfg, err := Load(dir)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Load(dir) error = %v, want an *Error", err)
	}
	if e.File != dir || !strings.Contains(e.Reason, "cannot read the config file") || e.Err == nil {
		t.Errorf("got %+v", e)
	}
	if cfg == nil || cfg.Exists {
		t.Errorf("config = %+v, want non-nil and not Exists", cfg)
	}

	if _, err := Load(""); err == nil {
		t.Error("Load(\"\") succeeded")
	}
}

func TestLoadReadsTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte("[launch.defaults]\nmodel = \"opus\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := &Config{Path: path, Exists: true, Launch: Launch{Defaults: Profile{Model: "opus"}}}
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}

	if err := os.WriteFile(path, []byte("[launch.defaults]\nmodel = \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Load(path)
	var e *Error
	if !errors.As(err, &e) || e.File != path || e.Line != 2 {
		t.Fatalf("Load of a broken file: %#v", err)
	}
	if !strings.HasPrefix(err.Error(), path+":2: ") {
		t.Errorf("message %q does not start with the file and line", err.Error())
	}
}

func TestDecodeFullConfig(t *testing.T) {
	src := `
[launch.defaults]
harness = "claude"
model = "opus"
effort = "high"
permission_mode = "plan"
allow_danger = true
binary_path = "~/bin/claude"
add_dir = ["~/notes"]
env = { CLAUDE_CODE_ENABLE_TODO_TOOLS = "1" }
modle = "typo goes to Ignored"

[[launch.project]]
match = "~/src/work"
model = "sonnet"
allow_danger = false
add_dir = []

[[launch.project]]
match = "/srv"
env = { A = "b" }

[proxy]
launch_profile = "corp"

[proxy.profiles.corp]
http_proxy = "http://p:3128"
no_proxy = "localhost"
ftp_proxy = "not read"

[[resume.on_update]]
harness = "claude"
action = "restart"

[[resume.on_update]]
harness = "claude"
command = ["/usr/bin/say", "claude updated"]
timeout_seconds = 60

[net]
ttl_seconds = 60

[somebody.else]
x = 1
`
	cfg, msgs := problems(t, src)
	if msgs != nil {
		t.Fatalf("problems: %q", msgs)
	}
	want := &Config{
		Path:   "config.toml",
		Exists: true,
		Launch: Launch{
			Defaults: Profile{
				Harness: "claude", Model: "opus", Effort: "high", PermissionMode: "plan",
				AllowDanger: ptr(true), BinaryPath: "~/bin/claude", AddDir: []string{"~/notes"},
				Env: map[string]string{"CLAUDE_CODE_ENABLE_TODO_TOOLS": "1"},
			},
			Projects: []ProjectProfile{
				{Match: "~/src/work", Profile: Profile{Model: "sonnet", AllowDanger: ptr(false), AddDir: []string{}}},
				{Match: "/srv", Profile: Profile{Env: map[string]string{"A": "b"}}},
			},
		},
		Proxy: Proxy{
			LaunchProfile: "corp",
			Profiles:      map[string]ProxyProfile{"corp": {HTTPProxy: "http://p:3128", NoProxy: "localhost"}},
		},
		Resume: Resume{OnUpdate: []OnUpdate{
			{Harness: "claude", Action: "restart"},
			{Harness: "claude", Command: []string{"/usr/bin/say", "claude updated"}, TimeoutSeconds: 60},
		}},
		Ignored: []string{
			"launch.defaults.modle",
			"proxy.profiles.corp.ftp_proxy",
			"net.ttl_seconds",
			"somebody.else.x",
		},
	}
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
}

func TestEmptyFile(t *testing.T) {
	cfg, msgs := problems(t, "# nothing but a comment\n")
	if msgs != nil {
		t.Fatalf("problems: %q", msgs)
	}
	if diff := cmp.Diff(&Config{Path: "config.toml", Exists: true}, cfg); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
}

func TestSyntaxErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		line int
		msg  string // a part of the reason
	}{
		{"missing value", "[launch.defaults]\nmodel = \"opus\"\neffort =\n", 3, "expected value"},
		{"duplicate key", "[launch.defaults]\nmodel = \"a\"\n\nmodel = \"b\"\n", 4, "already been defined"},
		{"unterminated string", "[proxy]\nlaunch_profile = \"corp\n", 2, "strings cannot contain newlines"},
		// The parser places this one at the newline, which it counts on line 2.
		{"bad header", "[launch.defaults\nmodel = \"a\"\n", 2, "to end table name"},
		{"duplicate table", "[proxy]\n[proxy]\n", 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("config.toml", []byte(tt.src))
			var list ErrorList
			if !errors.As(err, &list) || len(list) != 1 {
				t.Fatalf("err = %#v, want one problem", err)
			}
			e := list[0]
			if e.Line != tt.line || !strings.Contains(e.Reason, tt.msg) {
				t.Errorf("line %d reason %q, want line %d and a reason containing %q", e.Line, e.Reason, tt.line, tt.msg)
			}
			var pe toml.ParseError
			if !errors.As(err, &pe) {
				t.Errorf("the toml.ParseError is not reachable through %T", err)
			}
			if e.Reason != sentence(e.Reason) {
				t.Errorf("reason %q is not in the house style", e.Reason)
			}
		})
	}
}

// A byte-order mark at the very start is allowed: TOML asks for a valid
// UTF-8 Unicode document, which may open with U+FEFF as its signature, and
// the parser skips one. Anywhere else the parser stops at it, and the
// problem names it instead of quoting an invisible '\ufeff'.
func TestByteOrderMark(t *testing.T) {
	cfg, err := Parse("config.toml", []byte("\ufeff[launch.defaults]\nmodel = \"opus\"\n"))
	if err != nil || cfg.Launch.Defaults.Model != "opus" {
		t.Fatalf("a leading BOM: %v, model %q", err, cfg.Launch.Defaults.Model)
	}
	tests := []struct {
		name   string
		src    string
		line   int
		reason string
	}{
		{"two at the start", "\ufeff\ufeff[launch.defaults]\nmodel = \"opus\"\n", 1,
			"a second byte-order mark (U+FEFF) at the start of the file"},
		{"one starting a later line", "# mine\n[proxy]\n\ufeff[launch.defaults]\n", 3,
			"a byte-order mark (U+FEFF) in the middle of the file"},
		{"one in a table name", "[launch\ufeff]\n", 1,
			"a byte-order mark (U+FEFF) in the middle of the file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("config.toml", []byte(tt.src))
			var list ErrorList
			if !errors.As(err, &list) || len(list) != 1 {
				t.Fatalf("err = %#v, want one problem", err)
			}
			e := list[0]
			if e.Line != tt.line || e.Reason != tt.reason || e.Hint != "save the file as UTF-8 without a BOM" {
				t.Errorf("line %d reason %q hint %q, want line %d reason %q", e.Line, e.Reason, e.Hint, tt.line, tt.reason)
			}
			if strings.Contains(e.Error(), `\ufeff`) {
				t.Errorf("the message quotes the invisible character: %q", e.Error())
			}
		})
	}
}

func TestTypeErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "defaults string",
			src:  "[launch.defaults]\nmodel = 5\n",
			want: []string{"config.toml:2: [launch.defaults]: model: expected a string, found an integer"},
		},
		{
			name: "defaults bool",
			src:  "[launch.defaults]\n\nallow_danger = \"yes\"\n",
			want: []string{"config.toml:3: [launch.defaults]: allow_danger: expected a boolean, found a string"},
		},
		{
			name: "add_dir element",
			src:  "[launch.defaults]\nadd_dir = [\"~/a\", 3]\n",
			want: []string{"config.toml:2: [launch.defaults]: add_dir: expected a string, found an integer"},
		},
		{
			name: "env value",
			src:  "[launch.defaults]\nenv = { A = 1 }\n",
			want: []string{"config.toml:2: [launch.defaults]: env.A: expected a string, found an integer"},
		},
		{
			// The decoder alone would name line 11, the last entry with effort.
			name: "project entry names its own line",
			src: `[[launch.project]]
match = "/a"
effort = "high"

[[launch.project]]
match = "/b"
effort = 3

[[launch.project]]
match = "/c"
effort = "low"
`,
			want: []string{"config.toml:7: [[launch.project]] entry 2: effort: expected a string, found an integer"},
		},
		{
			name: "proxy profile value",
			src:  "[proxy]\nlaunch_profile = \"corp\"\n[proxy.profiles.corp]\nhttp_proxy = true\n",
			want: []string{"config.toml:4: [proxy.profiles.corp]: http_proxy: expected a string, found a boolean"},
		},
		{
			name: "launch not a table",
			src:  "launch = 5\n",
			want: []string{"config.toml:1: launch: expected a table, found an integer"},
		},
		{
			name: "single launch.project table",
			src:  "[launch.defaults]\neffort = \"none\"\n[launch.project]\nmatch = \"/a\"\n",
			want: []string{
				`config.toml:2: [launch.defaults]: effort "none" is not one of low, medium, high, xhigh, max`,
				"config.toml:3: [launch.project]: [launch.project] must be an array of tables: write each project as [[launch.project]]",
			},
		},
		{
			name: "launch.project a scalar",
			src:  "[launch]\nproject = \"/a\"\n",
			want: []string{"config.toml:2: [launch]: project: expected an array, found a string"},
		},
		{
			name: "errors in separate sections are all reported",
			src:  "[launch.defaults]\nmodel = 5\n[proxy]\nlaunch_profile = 1\n[[resume.on_update]]\nharness = \"claude\"\n",
			want: []string{
				"config.toml:2: [launch.defaults]: model: expected a string, found an integer",
				"config.toml:4: [proxy]: launch_profile: expected a string, found an integer",
				`config.toml:5: [[resume.on_update]] entry 1: set one of action = "restart" or command`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, msgs := problems(t, tt.src)
			if diff := cmp.Diff(tt.want, msgs); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLaunchValidation(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "every effort is accepted",
			src: `[[launch.project]]
match = "/a"
effort = "low"
[[launch.project]]
match = "/b"
effort = "medium"
[[launch.project]]
match = "/c"
effort = "high"
[[launch.project]]
match = "/d"
effort = "xhigh"
[[launch.project]]
match = "/e"
effort = "max"
`,
		},
		{
			name: "bad effort in defaults",
			src:  "[launch.defaults]\neffort = \"hgih\"\n",
			want: []string{`config.toml:2: [launch.defaults]: effort "hgih" is not one of low, medium, high, xhigh, max`},
		},
		{
			name: "bad effort in a project",
			src:  "[[launch.project]]\nmatch = \"/a\"\n[[launch.project]]\nmatch = \"/b\"\neffort = \"HIGH\"\n",
			want: []string{`config.toml:5: [[launch.project]] entry 2: effort "HIGH" is not one of low, medium, high, xhigh, max`},
		},
		{
			name: "missing match points at nothing it cannot find",
			src:  "[[launch.project]]\nmodel = \"opus\"\n",
			want: []string{`config.toml: [[launch.project]] entry 1: match is missing: give the directory this project covers, such as "~/src/work"`},
		},
		{
			name: "relative match",
			src:  "[[launch.project]]\nmatch = \"src/work\"\n",
			want: []string{`config.toml:2: [[launch.project]] entry 1: match "src/work" must be an absolute path or start with ~/`},
		},
		{
			name: "another user's home",
			src:  "[[launch.project]]\nmatch = \"~bob/src\"\n",
			want: []string{`config.toml:2: [[launch.project]] entry 1: match "~bob/src": only ~ and ~/ are expanded`},
		},
		{
			name: "tilde alone and absolute matches are fine",
			src:  "[[launch.project]]\nmatch = \"~\"\n[[launch.project]]\nmatch = \"/\"\n[[launch.project]]\nmatch = \"~/x/../y\"\n",
		},
		{
			name: "add_dir entries",
			src:  "[launch.defaults]\nadd_dir = [\"\", \"~bob\", \"relative/ok\"]\n",
			want: []string{
				"config.toml:2: [launch.defaults]: add_dir has an empty entry",
				`config.toml:2: [launch.defaults]: add_dir "~bob": only ~ and ~/ are expanded`,
			},
		},
		{
			name: "binary_path",
			src:  "[launch.defaults]\nbinary_path = \"~claude/bin\"\n",
			want: []string{`config.toml:2: [launch.defaults]: binary_path "~claude/bin": only ~ and ~/ are expanded`},
		},
		{
			name: "env key",
			src:  "[launch.defaults]\nenv = { \"A=B\" = \"x\", \"\" = \"y\" }\n",
			want: []string{
				`config.toml:2: [launch.defaults]: env key "" is not a valid environment variable name`,
				`config.toml:2: [launch.defaults]: env key "A=B" is not a valid environment variable name`,
			},
		},
		{
			name: "harness is not checked at load",
			src:  "[launch.defaults]\nharness = \"codex\"\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, msgs := problems(t, tt.src)
			if diff := cmp.Diff(tt.want, msgs); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestIgnoredKeys(t *testing.T) {
	src := `[net]
ttl_seconds = 60
retries = 3

[launch]
unknown = 1

[launch.defaults]
modle = "x"

[resume]
other = true

[resume.onupdate]
harness = "claude"

[empty]
`
	cfg, msgs := problems(t, src)
	if msgs != nil {
		t.Fatalf("problems: %q", msgs)
	}
	want := []string{
		"net.ttl_seconds", "net.retries",
		"launch.unknown", "launch.defaults.modle",
		"resume.other", "resume.onupdate.harness",
		"empty",
	}
	if diff := cmp.Diff(want, cfg.Ignored); diff != "" {
		t.Errorf("Ignored (-want +got):\n%s", diff)
	}
}

func TestErrorFormatting(t *testing.T) {
	tests := []struct {
		e    Error
		want string
	}{
		{Error{File: "c.toml", Line: 3, Table: "resume.on_update", Entry: 2, Reason: `unknown key "comand"`}, `c.toml:3: [[resume.on_update]] entry 2: unknown key "comand"`},
		{Error{File: "c.toml", Table: "launch.defaults", Reason: "r"}, "c.toml: [launch.defaults]: r"},
		{Error{File: "c.toml", Line: 1, Reason: "r"}, "c.toml:1: r"},
		{Error{Reason: "r"}, "r"},
		{Error{Key: "harness", Reason: "harness is missing"}, "harness is missing"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}

	list := ErrorList{{Reason: "a"}, {Reason: "b"}}
	if got := list.Error(); got != "a\nb" {
		t.Errorf("ErrorList.Error() = %q", got)
	}
	var first *Error
	if !errors.As(error(list), &first) || first.Reason != "a" {
		t.Errorf("errors.As found %+v, want the first problem", first)
	}
}

func TestSentence(t *testing.T) {
	for in, want := range map[string]string{
		"Key 'a' has already been defined.": "key 'a' has already been defined",
		"TOML is odd":                       "TOML is odd",
		"expected value":                    "expected value",
		"":                                  "",
	} {
		if got := sentence(in); got != want {
			t.Errorf("sentence(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLocator(t *testing.T) {
	src := `top = 1
[launch.defaults]
model = "a"
note = """
[[resume.on_update]]
comand = "inside a string"
"""
[ "resume" . on_update ]
[[resume.on_update]]
harness = "claude"
[[resume.on_update]]
  "comand" = ["x"]
[[resume.on_update]]
harness = { inline = true }
`
	loc := newLocator(src)
	tests := []struct {
		table string
		entry int
		key   string
		want  int
	}{
		{"", -1, "top", 1},
		{"launch.defaults", -1, "", 2},
		{"launch.defaults", -1, "model", 3},
		{"resume.on_update", -1, "", 8},
		{"resume.on_update", 0, "", 9},
		{"resume.on_update", 0, "harness", 10},
		{"resume.on_update", 0, "comand", 0},
		{"resume.on_update", 1, "comand", 12},
		{"resume.on_update", 2, "harness", 14},
		{"resume.on_update", 3, "", 0},
		{"launch.project", 0, "", 0},
	}
	for _, tt := range tests {
		if got := loc.find(tt.table, tt.entry, tt.key); got != tt.want {
			t.Errorf("find(%q, %d, %q) = %d, want %d", tt.table, tt.entry, tt.key, got, tt.want)
		}
	}
}

func TestReport(t *testing.T) {
	var b strings.Builder
	_, err := Parse("config.toml", []byte("[[resume.on_update]]\nharness = \"claude\"\ncomand = [\"x\"]\n"))
	Report(&b, err)
	if !strings.Contains(b.String(), "forgectl: error: config.toml:3: ") || !strings.Contains(b.String(), `unknown key "comand"`) {
		t.Fatalf("%q", b.String())
	}
	b.Reset()
	Report(&b, errors.New("read config.toml: permission denied"))
	if b.String() != "forgectl: error: read config.toml: permission denied\n" {
		t.Fatalf("%q", b.String())
	}
}

func TestResumeHarnesses(t *testing.T) {
	cfg, err := Parse("config.toml", []byte("[resume]\nharnesses = [\"codex\"]\ncodex_binary_path = \"~/bin/codex\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Resume.Harnesses) != 1 || cfg.Resume.Harnesses[0] != "codex" || cfg.Resume.CodexBinaryPath != "~/bin/codex" || len(cfg.Ignored) != 0 {
		t.Fatalf("got %+v, ignored %v", cfg.Resume, cfg.Ignored)
	}
	_, err = Parse("config.toml", []byte("[resume]\nharnesses = [\"pi\"]\n"))
	if err == nil || !strings.Contains(err.Error(), `config.toml:2: [resume]: unknown harness "pi"`) {
		t.Fatalf("an unknown harness: %v", err)
	}
}
