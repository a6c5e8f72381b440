package paths

import "testing"

func env(m map[string]string) Getenv { return func(k string) string { return m[k] } }

func TestClaudeFrom(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"default", nil, "/h/.claude"},
		{"override", map[string]string{"CLAUDE_CONFIG_DIR": "/x/cc"}, "/x/cc"},
		{"tilde", map[string]string{"CLAUDE_CONFIG_DIR": "~/alt"}, "/h/alt"},
	} {
		if got := ClaudeFrom(env(tc.env), "/h").Root; got != tc.want {
			t.Errorf("%s: got %q want %q", tc.name, got, tc.want)
		}
	}
	c := Claude{Root: "/r"}
	if got := c.TaskList("a.b/c"); got != "/r/tasks/a-b-c" {
		t.Errorf("TaskList sanitises: %q", got)
	}
}

func TestForgectlFrom(t *testing.T) {
	for _, tc := range []struct {
		name, goos string
		env        map[string]string
		want       string
	}{
		{"linux", "linux", nil, "/h/.config/forgectl"},
		{"xdg", "linux", map[string]string{"XDG_CONFIG_HOME": "/x"}, "/x/forgectl"},
		{"xdg relative ignored", "linux", map[string]string{"XDG_CONFIG_HOME": "rel"}, "/h/.config/forgectl"},
		{"mac", "darwin", map[string]string{"XDG_CONFIG_HOME": "/x"}, "/h/Library/Application Support/forgectl"},
		{"override", "darwin", map[string]string{"FORGECTL_CONFIG_DIR": "/o"}, "/o"},
	} {
		if got := ForgectlFrom(env(tc.env), "/h", tc.goos).Root; got != tc.want {
			t.Errorf("%s: got %q want %q", tc.name, got, tc.want)
		}
	}
	f := Forgectl{Root: "/f"}
	if f.Snapshots() != "/f/resume-sessions" || f.RestartLock() != "/f/restart.lock" || f.Hooks() != "/f/resume-hooks" {
		t.Error("store layout changed")
	}
}
