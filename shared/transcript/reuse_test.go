package transcript

import "testing"

// FuzzReadStringAs: reusing the current value is only ever a saving, never
// another answer. Whatever the literal and whatever cur holds, readStringAs
// decodes what readString does.
func FuzzReadStringAs(f *testing.F) {
	for _, c := range [][2]string{
		{`"/repo"`, "/repo"},
		{`"/repo",`, "/repo"},
		{`"/repo/x"`, "/repo"},
		{`"/rep\"o"`, `/rep"o`},
		{`"a\\"`, `a\`},
		{`"a\"b"`, `a\`},
		{"\"a\tb\"", "a\tb"},
		{"\"\xff\"", "\xff"},
		{"\"\xff\"", "\uFFFD"},
		{`""`, ""},
		{`"main"`, "dev"},
		{`"x`, "x"},
	} {
		f.Add([]byte(c[0]), c[1])
	}
	f.Fuzz(func(t *testing.T, b []byte, cur string) {
		want, wok := readString(b)
		got, gok := readStringAs(b, cur)
		if got != want || gok != wok {
			t.Fatalf("readStringAs(%q, %q) = %q, %v; readString = %q, %v", b, cur, got, gok, want, wok)
		}
	})
}

// TestReadStringAsAllocatesNothingForTheSameValue is the point of it.
func TestReadStringAsAllocatesNothingForTheSameValue(t *testing.T) {
	b := []byte(`"/home/dev/src/project","gitBranch":"main"`)
	cur := "/home/dev/src/project"
	if n := testing.AllocsPerRun(100, func() {
		if v, ok := readStringAs(b, cur); !ok || v != cur {
			t.Fatalf("got %q, %v", v, ok)
		}
	}); n != 0 {
		t.Fatalf("%v allocations reading the same value again", n)
	}
}
