package match

import (
	"testing"

	"forgectl.dev/forgectl/internal/harness"
	"github.com/google/go-cmp/cmp"
)

func TestMatcher(t *testing.T) {
	list := []harness.Session{
		{ID: "1fc9d747-58cb-4e62-b7f1-a85d62252943", Name: "Login bugfix work", Repo: "web-app", Cwd: "/home/a/src/web-app"},
		{ID: "1fc9aaaa-0000-0000-0000-000000000000", Name: "Login", Repo: "api", Cwd: "/home/a/src/api"},
		{ID: "77777777-0000-0000-0000-000000000000", Repo: "forgectl", Cwd: "/home/a/src/forgectl"},
		{ID: "88888888-0000-0000-0000-000000000000", Repo: "forgectl", Cwd: "/home/a/src/forgectl/sub", Hidden: true},
		{ID: "1fc9d747-58cb-4e62-b7f1-a85d62252943", Name: "older copy", Repo: "web-app", Cwd: "/home/a/old/web-app"},
	}
	for _, tc := range []struct {
		filter string
		hidden bool
		want   []int
		tier   Tier
	}{
		{"", false, []int{0, 1, 2, 4}, None},
		{"", true, []int{0, 1, 2, 3, 4}, None},
		{"1fc9d747-58cb-4e62-b7f1-a85d62252943", false, []int{0}, ExactID},
		{"1FC9", false, []int{0, 1, 4}, IDPrefix},
		{"1fc9d", false, []int{0, 4}, IDPrefix},
		{"login", false, []int{1}, ExactName},
		{"bugfix", false, []int{0}, Substring},
		{"forgectl", false, []int{2}, Substring},
		{"forgectl", true, []int{2, 3}, Substring},
		{"88888888-0000-0000-0000-000000000000", false, []int{3}, ExactID},
		{"8888", false, nil, None},
		{"nothing-like-this", false, nil, None},
		{"src/api", false, []int{1}, Substring},
	} {
		m := New(tc.filter, tc.hidden)
		for i := range list {
			m.Add(&list[i])
		}
		hits, tier := m.Hits()
		var got []int
		for _, h := range hits {
			for i := range list {
				if h == &list[i] {
					got = append(got, i)
				}
			}
		}
		if d := cmp.Diff(tc.want, got); d != "" || tier != tc.tier {
			t.Errorf("Find(%q, %v): tier %q want %q; %s", tc.filter, tc.hidden, tier, tc.tier, d)
		}
	}
}
