package config

import (
	"regexp"
	"strings"
)

// locator finds the line of a table header or key in the source. The TOML
// decoder keeps positions per dotted key only, so it cannot say which
// [[resume.on_update]] entry a key sits in; this line scan can, for files
// written in the usual one-key-per-line style. It answers 0 (unknown) for
// anything else (inline tables, dotted keys), which the messages tolerate:
// a wrong line would be worse than none.
type locator struct {
	lines []string
	// lineKey matches a line that starts with a bare or quoted key and "=".
	lineKey *regexp.Regexp
}

func newLocator(src string) locator {
	return locator{lines: strings.Split(src, "\n"), lineKey: regexp.MustCompile(`^\s*([A-Za-z0-9_-]+|"[^"\\]*"|'[^']*')\s*=`)}
}

// find returns the 1-based line of key in the given table, or of the table's
// header when key is empty. entry is the 0-based index for an array of
// tables and -1 for a plain table; the table "" with entry -1 is the root.
func (l locator) find(table string, entry int, key string) int {
	cur, curEntry := "", -1
	seen := map[string]int{}
	multi := "" // the delimiter of an open multi-line string
	for i, line := range l.lines {
		if multi != "" {
			if strings.Count(line, multi)%2 == 1 {
				multi = ""
			}
			continue
		}
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "[["):
			cur = headerName(t[2:], "]]")
			curEntry = seen[cur]
			seen[cur]++
			if key == "" && cur == table && curEntry == entry {
				return i + 1
			}
		case strings.HasPrefix(t, "["):
			cur, curEntry = headerName(t[1:], "]"), -1
			if key == "" && cur == table && entry < 0 {
				return i + 1
			}
		default:
			if key != "" && cur == table && curEntry == entry {
				if m := l.lineKey.FindStringSubmatch(line); m != nil && strings.Trim(m[1], `"'`) == key {
					return i + 1
				}
			}
			multi = openedMultiline(line)
		}
	}
	return 0
}

// headerName normalises "[ resume . \"on_update\" ]" to "resume.on_update".
func headerName(s, closing string) string {
	end := strings.Index(s, closing)
	if end < 0 {
		return ""
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '"', '\'':
			return -1
		}
		return r
	}, s[:end])
}

// openedMultiline reports the delimiter of a multi-line string that the line
// opens and leaves open.
func openedMultiline(line string) string {
	for _, delim := range []string{`"""`, `'''`} {
		if strings.Count(line, delim)%2 == 1 {
			return delim
		}
	}
	return ""
}
