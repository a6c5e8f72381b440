package inputbox

import (
	"strconv"
	"strings"
)

// cell is one rune with the styling that matters here.
type cell struct {
	r       rune
	dim     bool
	inverse bool
	grey    bool // the foreground colour is a grey
}

// faint reports whether the rune is drawn as ghost text.
func (c cell) faint() bool { return c.dim || c.grey }

type line []cell

func (l line) text() string {
	var b strings.Builder
	for _, c := range l {
		b.WriteRune(c.r)
	}
	return b.String()
}

// style is the SGR state, which carries across lines as on a terminal.
type style struct {
	dim, inverse, grey bool
}

// parseScreen splits a screen into lines of styled cells. It understands
// SGR; every other control sequence (cursor moves, OSC titles, charset
// switches) is dropped, and so are other control characters.
func parseScreen(s string) []line {
	var lines []line
	var cur line
	var st style
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\n':
			lines = append(lines, cur)
			cur = nil
		case r == 0x1b:
			i = escape(rs, i, &st)
		case r == 0x9b: // C1 CSI
			i = csi(rs, i+1, &st)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			// \r, \t and other controls carry no text here.
			if r == '\t' {
				cur = append(cur, cell{r: ' '})
			}
		default:
			cur = append(cur, cell{r: r, dim: st.dim, inverse: st.inverse, grey: st.grey})
		}
	}
	if len(cur) > 0 {
		lines = append(lines, cur)
	}
	return lines
}

// escape consumes the sequence starting at rs[i] == ESC and returns the
// index of its last rune.
func escape(rs []rune, i int, st *style) int {
	if i+1 >= len(rs) {
		return i
	}
	switch rs[i+1] {
	case '[':
		return csi(rs, i+2, st)
	case ']', 'P', '_', '^', 'X': // OSC, DCS, APC, PM, SOS: up to BEL or ST
		for j := i + 2; j < len(rs); j++ {
			if rs[j] == 0x07 {
				return j
			}
			if rs[j] == 0x1b && j+1 < len(rs) && rs[j+1] == '\\' {
				return j + 1
			}
		}
		return len(rs) - 1
	case '(', ')', '*', '+', '#', '%': // charset designations take one more rune
		return min(i+2, len(rs)-1)
	}
	return i + 1
}

// csi consumes a control sequence whose parameters start at rs[j] and
// applies it when it is SGR.
func csi(rs []rune, j int, st *style) int {
	start := j
	for j < len(rs) && !(rs[j] >= 0x40 && rs[j] <= 0x7e) {
		j++
	}
	if j >= len(rs) {
		return len(rs) - 1
	}
	if rs[j] == 'm' {
		sgr(string(rs[start:j]), st)
	}
	return j
}

// sgr applies one SGR parameter list, in both the ';' and the ':' forms of
// extended colours.
func sgr(params string, st *style) {
	if params == "" {
		*st = style{}
		return
	}
	if strings.ContainsAny(params, "<=>?") {
		return // private sequences are not SGR
	}
	ps := strings.Split(params, ";")
	for k := 0; k < len(ps); k++ {
		p := ps[k]
		if sub, ok := strings.CutPrefix(p, "38:"); ok {
			st.grey = extendedGrey(strings.Split(sub, ":"))
			continue
		}
		if strings.Contains(p, ":") {
			continue // underline styles and other sub-parameters
		}
		n, err := strconv.Atoi(p)
		if p == "" {
			n, err = 0, nil
		}
		if err != nil {
			continue
		}
		switch {
		case n == 0:
			*st = style{}
		case n == 2:
			st.dim = true
		case n == 22:
			st.dim = false
		case n == 7:
			st.inverse = true
		case n == 27:
			st.inverse = false
		case n >= 30 && n <= 37, n >= 91 && n <= 97, n == 39:
			st.grey = false
		case n == 90:
			st.grey = true
		case n == 38:
			rest := ps[k+1:]
			used := extendedLen(rest)
			st.grey = extendedGrey(rest[:used])
			k += used
		case n == 48 || n == 58:
			k += extendedLen(ps[k+1:])
		}
	}
}

// extendedLen is how many parameters an extended colour takes after 38/48.
func extendedLen(rest []string) int {
	if len(rest) == 0 {
		return 0
	}
	switch rest[0] {
	case "5":
		return min(2, len(rest))
	case "2":
		return min(4, len(rest))
	}
	return 1
}

// extendedGrey judges "5;n" and "2;r;g;b" (also "2;;r;g;b" with a colour
// space id) colours.
func extendedGrey(p []string) bool {
	num := func(s string) int {
		n, err := strconv.Atoi(s)
		if err != nil {
			return -1
		}
		return n
	}
	if len(p) >= 2 && p[0] == "5" {
		n := num(p[1])
		return n == 8 || (n >= 238 && n <= 250) // 8, or the middle of the 232–255 grey ramp
	}
	if len(p) >= 4 && p[0] == "2" {
		rgb := p[len(p)-3:]
		r, g, b := num(rgb[0]), num(rgb[1]), num(rgb[2])
		return r == g && g == b && r >= 64 && r <= 192
	}
	return false
}
