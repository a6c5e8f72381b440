package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

const home = "/home/u"

func mustParse(t *testing.T, src string) *Config {
	t.Helper()
	cfg, msgs := problems(t, src)
	if msgs != nil {
		t.Fatalf("problems: %q", msgs)
	}
	return cfg
}

func TestResolveMatching(t *testing.T) {
	cfg := mustParse(t, `
[launch.defaults]
model = "default"

[[launch.project]]
match = "~/src"
model = "src"

[[launch.project]]
match = "~/src/work/"
model = "work"

[[launch.project]]
match = "/home/u/src/work/api"
model = "api"

[[launch.project]]
match = "~/src/work/api"
model = "api-again"

[[launch.project]]
match = "/opt/a/../b"
model = "b"

[[launch.project]]
match = "~"
model = "home"
`)
	tests := []struct {
		dir       string
		wantModel string
		wantMatch string
	}{
		{"/home/u/src", "src", "~/src"},
		{"/home/u/src/", "src", "~/src"},
		{"/home/u/src/other", "src", "~/src"},
		{"/home/u/src/work", "work", "~/src/work/"},
		{"/home/u/src/work/deep/er", "work", "~/src/work/"},
		{"/home/u/src/workshop", "src", "~/src"},                // segment boundary
		{"/home/u/src/work/api", "api", "/home/u/src/work/api"}, // a tie: the first wins
		{"/home/u/src/work/api2", "work", "~/src/work/"},        // segment boundary again
		{"/home/u/src/work/api/x", "api", "/home/u/src/work/api"},
		{"/home/u/srcx", "home", "~"},
		{"/home/u", "home", "~"},
		{"/home/user", "default", ""}, // /home/u is not a prefix of /home/user
		{"/opt/b/c", "b", "/opt/a/../b"},
		{"/opt/a/b", "default", ""},
		{"/", "default", ""},
		{"relative/src", "default", ""},
		{"", "default", ""},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			r := Resolve(cfg, tt.dir, home)
			if r.Model != tt.wantModel || r.Match != tt.wantMatch {
				t.Errorf("Resolve(%q) model %q match %q; want %q, %q", tt.dir, r.Model, r.Match, tt.wantModel, tt.wantMatch)
			}
		})
	}
}

func TestResolveRootMatch(t *testing.T) {
	cfg := mustParse(t, "[[launch.project]]\nmatch = \"/\"\nmodel = \"root\"\n[[launch.project]]\nmatch = \"/a\"\nmodel = \"a\"\n")
	for dir, want := range map[string]string{"/": "root", "/x/y": "root", "/a": "a", "/ab": "root"} {
		if got := Resolve(cfg, dir, home).Model; got != want {
			t.Errorf("Resolve(%q).Model = %q, want %q", dir, got, want)
		}
	}
}

func TestResolveWithoutHome(t *testing.T) {
	cfg := mustParse(t, "[[launch.project]]\nmatch = \"~/src\"\nmodel = \"src\"\n[launch.defaults]\nadd_dir = [\"~/notes\"]\n")
	r := Resolve(cfg, "/home/u/src", "")
	want := Resolved{Harness: "claude", AddDir: []string{"~/notes"}}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("Resolve without home (-want +got):\n%s", diff)
	}
}

func TestResolveMerging(t *testing.T) {
	defaults := `
[launch.defaults]
model = "opus"
effort = "high"
permission_mode = "plan"
allow_danger = true
binary_path = "~/bin/claude"
add_dir = ["~/notes", "docs", "/abs/dir/"]
env = { A = "1", B = "2" }
`
	tests := []struct {
		name    string
		project string // the body of a [[launch.project]] matching /home/u/p
		dir     string
		want    Resolved
	}{
		{
			name: "defaults only",
			dir:  "/elsewhere",
			want: Resolved{
				Harness: "claude", Model: "opus", Effort: "high", PermissionMode: "plan", AllowDanger: true,
				BinaryPath: "/home/u/bin/claude",
				AddDir:     []string{"/home/u/notes", "/elsewhere/docs", "/abs/dir"},
				Env:        map[string]string{"A": "1", "B": "2"},
			},
		},
		{
			name:    "an empty project changes nothing but Match",
			project: "",
			dir:     "/home/u/p/sub",
			want: Resolved{
				Harness: "claude", Model: "opus", Effort: "high", PermissionMode: "plan", AllowDanger: true,
				BinaryPath: "/home/u/bin/claude",
				AddDir:     []string{"/home/u/notes", "/home/u/p/sub/docs", "/abs/dir"},
				Env:        map[string]string{"A": "1", "B": "2"},
				Match:      "~/p",
			},
		},
		{
			name: "scalars override, allow_danger turned off, add_dir replaced, env merged",
			project: `harness = "claude"
model = "sonnet"
effort = "max"
permission_mode = "acceptEdits"
allow_danger = false
binary_path = "/opt/claude"
add_dir = ["~/src/shared-lib", "../sibling"]
env = { B = "project", C = "3" }`,
			dir: "/home/u/p",
			want: Resolved{
				Harness: "claude", Model: "sonnet", Effort: "max", PermissionMode: "acceptEdits", AllowDanger: false,
				BinaryPath: "/opt/claude",
				AddDir:     []string{"/home/u/src/shared-lib", "/home/u/sibling"},
				Env:        map[string]string{"A": "1", "B": "project", "C": "3"},
				Match:      "~/p",
			},
		},
		{
			name:    "an empty add_dir clears the defaults' list",
			project: "add_dir = []",
			dir:     "/home/u/p",
			want: Resolved{
				Harness: "claude", Model: "opus", Effort: "high", PermissionMode: "plan", AllowDanger: true,
				BinaryPath: "/home/u/bin/claude",
				Env:        map[string]string{"A": "1", "B": "2"},
				Match:      "~/p",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := mustParse(t, defaults+"\n[[launch.project]]\nmatch = \"~/p\"\n"+tt.project+"\n")
			got := Resolve(cfg, tt.dir, home)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Resolve (-want +got):\n%s", diff)
			}
		})
	}
}

func TestResolveDoesNotShareMaps(t *testing.T) {
	cfg := mustParse(t, "[launch.defaults]\nenv = { A = \"1\" }\n[[launch.project]]\nmatch = \"/p\"\nenv = { B = \"2\" }\n")
	r := Resolve(cfg, "/p", home)
	r.Env["A"] = "changed"
	d := Resolve(cfg, "/q", home)
	d.Env["A"] = "changed too"
	if cfg.Launch.Defaults.Env["A"] != "1" {
		t.Errorf("Resolve handed out the config's own map: %v", cfg.Launch.Defaults.Env)
	}
}

func TestResolveAllowDanger(t *testing.T) {
	tests := []struct {
		name     string
		defaults string
		project  string
		want     bool
	}{
		{"unset everywhere", "", "", false},
		{"default on", "allow_danger = true", "", true},
		{"default on, project off", "allow_danger = true", "allow_danger = false", false},
		{"default off, project on", "allow_danger = false", "allow_danger = true", true},
		{"default unset, project on", "", "allow_danger = true", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := mustParse(t, "[launch.defaults]\n"+tt.defaults+"\n[[launch.project]]\nmatch = \"/p\"\n"+tt.project+"\n")
			if got := Resolve(cfg, "/p", home).AllowDanger; got != tt.want {
				t.Errorf("AllowDanger = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestResolveNilConfig(t *testing.T) {
	if diff := cmp.Diff(Resolved{Harness: "claude"}, Resolve(nil, "/x", home)); diff != "" {
		t.Errorf("Resolve(nil) (-want +got):\n%s", diff)
	}
}

func TestArgs(t *testing.T) {
	full := Resolved{
		Harness: "claude", Model: "opus", Effort: "high", PermissionMode: "plan", AllowDanger: true,
		AddDir: []string{"/home/u/notes", "/home/u/lib"},
	}
	tests := []struct {
		name     string
		r        Resolved
		terminal bool
		want     []string
	}{
		{"everything on a terminal", full, true, []string{
			"--model", "opus", "--effort", "high", "--permission-mode", "plan",
			"--add-dir", "/home/u/notes", "--add-dir", "/home/u/lib",
			"--allow-dangerously-skip-permissions",
		}},
		{"danger withheld off a terminal", full, false, []string{
			"--model", "opus", "--effort", "high", "--permission-mode", "plan",
			"--add-dir", "/home/u/notes", "--add-dir", "/home/u/lib",
		}},
		{"danger off on a terminal", Resolved{Model: "opus"}, true, []string{"--model", "opus"}},
		{"only effort", Resolved{Effort: "low"}, true, []string{"--effort", "low"}},
		{"only danger", Resolved{AllowDanger: true}, true, []string{"--allow-dangerously-skip-permissions"}},
		{"nothing", Resolved{}, true, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.r.Args(tt.terminal)); diff != "" {
				t.Errorf("Args (-want +got):\n%s", diff)
			}
		})
	}
}

func TestArgsFromConfig(t *testing.T) {
	cfg := mustParse(t, `[launch.defaults]
add_dir = ["~/notes"]
allow_danger = true
[[launch.project]]
match = "~/src/work"
model = "sonnet"
add_dir = ["~/src/work/shared-lib", "~"]
`)
	got := Resolve(cfg, "/home/u/src/work/api", home).Args(true)
	want := []string{"--model", "sonnet", "--add-dir", "/home/u/src/work/shared-lib", "--add-dir", "/home/u", "--allow-dangerously-skip-permissions"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Args (-want +got):\n%s", diff)
	}
}

func TestEnviron(t *testing.T) {
	proxy := []string{"http_proxy=http://p", "HTTP_PROXY=http://p", "no_proxy=", "NO_PROXY="}
	tests := []struct {
		name  string
		env   map[string]string
		proxy []string
		want  []string
	}{
		{"nothing", nil, nil, []string{}},
		{"profile env only", map[string]string{"Z": "1", "A": "2"}, nil, []string{"A=2", "Z=1"}},
		{"proxy only", nil, proxy, []string{"HTTP_PROXY=http://p", "NO_PROXY=", "http_proxy=http://p", "no_proxy="}},
		{"profile env wins over proxy", map[string]string{"NO_PROXY": "corp.internal", "A": "x=y"}, proxy, []string{
			"A=x=y", "HTTP_PROXY=http://p", "NO_PROXY=corp.internal", "http_proxy=http://p", "no_proxy=",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Resolved{Env: tt.env}.Environ(tt.proxy)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Environ (-want +got):\n%s", diff)
			}
		})
	}
}
