package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/BurntSushi/toml"
)

// fileTOML is the top of the document. Each section stays a Primitive and is
// decoded on its own, so that a type error in one section does not hide the
// problems of the others.
type fileTOML struct {
	Launch toml.Primitive `toml:"launch"`
	Proxy  toml.Primitive `toml:"proxy"`
	Resume toml.Primitive `toml:"resume"`
}

type launchTOML struct {
	Defaults toml.Primitive `toml:"defaults"`
	// Decoded entry by entry: the decoder's own line numbers for keys in an
	// array of tables point at the last entry that has the key.
	Project toml.Primitive `toml:"project"`
}

type resumeTOML struct {
	// Decoded by hand to name the entry and key of each problem, which the
	// decoder's metadata cannot (it does not record array indices).
	OnUpdate          any              `toml:"on_update"`
	WarnContextTokens int64            `toml:"warn_context_tokens"`
	Prices            map[string]Price `toml:"prices"`
	Harnesses         []string         `toml:"harnesses"`
	CodexBinaryPath   string           `toml:"codex_binary_path"`
}

// decoder carries one decode's state: the metadata, the source for line
// lookups and the problems found so far.
type decoder struct {
	md       toml.MetaData
	loc      locator
	problems ErrorList
}

func decode(cfg *Config, src string) ErrorList {
	var f fileTOML
	md, err := toml.Decode(src, &f)
	if err != nil {
		return ErrorList{syntaxError(err, src)}
	}
	d := &decoder{md: md, loc: newLocator(src)}

	if md.IsDefined("launch") {
		d.launch(f.Launch, &cfg.Launch)
	}
	if md.IsDefined("proxy") {
		if err := md.PrimitiveDecode(f.Proxy, &cfg.Proxy); err != nil {
			d.decodeError(err, "", 0)
		}
	}
	if md.IsDefined("resume") {
		var r resumeTOML
		if err := md.PrimitiveDecode(f.Resume, &r); err != nil {
			d.decodeError(err, "", 0)
		} else {
			if md.IsDefined("resume", "on_update") {
				cfg.Resume.OnUpdate = d.onUpdate(r.OnUpdate)
			}
			d.resumeCost(&r, &cfg.Resume)
			cfg.Resume.CodexBinaryPath = r.CodexBinaryPath
			for _, h := range r.Harnesses {
				if !slices.Contains(KnownHarnesses, h) {
					d.keyError("resume", 0, "harnesses", fmt.Sprintf("unknown harness %q in harnesses (the harnesses are %s)", h, strings.Join(KnownHarnesses, ", ")))
					continue
				}
				cfg.Resume.Harnesses = append(cfg.Resume.Harnesses, h)
			}
		}
	}
	if md.IsDefined("on_update") {
		d.topLevelOnUpdate()
	}
	cfg.Ignored = ignored(md.Undecoded())
	return d.problems
}

func (d *decoder) add(e *Error) { d.problems = append(d.problems, e) }

// resumeCost checks warn_context_tokens and [resume.prices]: a figure
// below zero is a mistake, not "off".
func (d *decoder) resumeCost(r *resumeTOML, out *Resume) {
	if r.WarnContextTokens < 0 {
		d.add(&Error{Line: d.loc.find("resume", -1, "warn_context_tokens"), Table: "resume", Key: "warn_context_tokens",
			Reason: fmt.Sprintf("warn_context_tokens is %d; it must be 0 (off) or a token count", r.WarnContextTokens),
			Hint:   "write a count such as 150000, or remove the key"})
	} else {
		out.WarnContextTokens = r.WarnContextTokens
	}
	for name, p := range r.Prices {
		if p.CacheWrite < 0 || p.CacheRead < 0 {
			d.add(&Error{Line: d.loc.find("resume.prices", -1, name), Table: "resume.prices", Key: name,
				Reason: "a price below zero",
				Hint:   "write USD per million tokens, as in { cache_write = 6.25, cache_read = 0.5 }"})
			continue
		}
		if out.Prices == nil {
			out.Prices = map[string]Price{}
		}
		out.Prices[name] = p
	}
}

func (d *decoder) launch(p toml.Primitive, out *Launch) {
	var l launchTOML
	if err := d.md.PrimitiveDecode(p, &l); err != nil {
		d.decodeError(err, "", 0)
		return
	}
	if d.md.IsDefined("launch", "defaults") {
		if err := d.md.PrimitiveDecode(l.Defaults, &out.Defaults); err != nil {
			d.decodeError(err, "launch.defaults", 0)
		} else {
			d.checkProfile(out.Defaults, "launch.defaults", 0)
		}
	}
	if !d.md.IsDefined("launch", "project") {
		return
	}
	if d.md.Type("launch", "project") == "Hash" {
		d.add(&Error{
			Line:   d.loc.find("launch.project", -1, ""),
			Table:  "launch.project",
			Reason: "[launch.project] must be an array of tables: write each project as [[launch.project]]",
			Hint:   "rename the table to [[launch.project]]",
		})
		return
	}
	var projects []toml.Primitive
	if err := d.md.PrimitiveDecode(l.Project, &projects); err != nil {
		d.decodeError(err, "", 0)
		return
	}
	for i, prim := range projects {
		var pp ProjectProfile
		if err := d.md.PrimitiveDecode(prim, &pp); err != nil {
			d.decodeError(err, "launch.project", i+1)
		} else {
			d.checkMatch(pp.Match, i+1)
			d.checkProfile(pp.Profile, "launch.project", i+1)
		}
		// Kept even when invalid so that entry numbers stay those of the file.
		out.Projects = append(out.Projects, pp)
	}
}

// effortList is the values claude's --effort takes, as messages list them.
const effortList = "low, medium, high, xhigh, max"

func validEffort(s string) bool {
	switch s {
	case "low", "medium", "high", "xhigh", "max":
		return true
	}
	return false
}

func (d *decoder) keyError(table string, entry int, key, reason string) {
	d.add(&Error{
		Line:   d.loc.find(table, entry-1, key),
		Table:  table,
		Entry:  entry,
		Key:    key,
		Reason: reason,
	})
}

func (d *decoder) checkProfile(p Profile, table string, entry int) {
	if p.Effort != "" && !validEffort(p.Effort) {
		d.keyError(table, entry, "effort", fmt.Sprintf("effort %q is not one of %s", p.Effort, effortList))
	}
	if r := tildeProblem(p.BinaryPath); r != "" {
		d.keyError(table, entry, "binary_path", "binary_path "+r)
	}
	for _, dir := range p.AddDir {
		if dir == "" {
			d.keyError(table, entry, "add_dir", "add_dir has an empty entry")
		} else if r := tildeProblem(dir); r != "" {
			d.keyError(table, entry, "add_dir", "add_dir "+r)
		}
	}
	for _, k := range sortedKeys(p.Env) {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			d.keyError(table, entry, "env", fmt.Sprintf("env key %q is not a valid environment variable name", k))
		}
	}
}

func (d *decoder) checkMatch(match string, entry int) {
	var reason string
	switch {
	case match == "":
		reason = `match is missing: give the directory this project covers, such as "~/src/work"`
	case tildeProblem(match) != "":
		reason = "match " + tildeProblem(match)
	case match != "~" && !strings.HasPrefix(match, "~/") && !filepath.IsAbs(match):
		reason = fmt.Sprintf("match %q must be an absolute path or start with ~/", match)
	default:
		return
	}
	d.keyError("launch.project", entry, "match", reason)
}

// tildeProblem refuses "~user" forms, which would otherwise be taken as a
// relative path named "~user".
func tildeProblem(p string) string {
	if strings.HasPrefix(p, "~") && p != "~" && !strings.HasPrefix(p, "~/") {
		return fmt.Sprintf("%q: only ~ and ~/ are expanded", p)
	}
	return ""
}

func (d *decoder) topLevelOnUpdate() {
	spelling, line := "on_update", d.loc.find("", -1, "on_update")
	switch d.md.Type("on_update") {
	case "ArrayHash":
		spelling, line = "[[on_update]]", d.loc.find("on_update", 0, "")
	case "Hash":
		spelling, line = "[on_update]", d.loc.find("on_update", -1, "")
	}
	d.add(&Error{
		Line:   line,
		Key:    "on_update",
		Reason: fmt.Sprintf("a top-level %s is not read: update hooks belong in [[resume.on_update]]", spelling),
		Hint:   "rename the table to [[resume.on_update]]",
	})
}

// ignored drops the keys that decode reports itself and the tables whose
// contents are listed anyway.
func ignored(keys []toml.Key) []string {
	var out []string
	for i, k := range keys {
		s := k.String()
		if under(k, "on_update") || under(k, "resume", "on_update") {
			continue
		}
		// Keys come in file order, so a table's contents follow it.
		if i+1 < len(keys) && strings.HasPrefix(keys[i+1].String(), s+".") {
			continue
		}
		out = append(out, s)
	}
	return out
}

func under(k toml.Key, prefix ...string) bool {
	if len(k) < len(prefix) {
		return false
	}
	for i, p := range prefix {
		if k[i] != p {
			return false
		}
	}
	return true
}

func syntaxError(err error, src string) *Error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		// One byte-order mark at the very start is a UTF-8 document's
		// signature, which TOML allows and the parser skips; the lexer
		// stops at any other, and quotes it as an invisible '\ufeff'.
		if strings.Contains(pe.Message, `'\ufeff'`) {
			reason := "a byte-order mark (U+FEFF) in the middle of the file"
			if strings.HasPrefix(src, "\ufeff\ufeff") {
				reason = "a second byte-order mark (U+FEFF) at the start of the file"
			}
			return &Error{Line: pe.Position.Line, Key: pe.LastKey, Reason: reason, Hint: "save the file as UTF-8 without a BOM", Err: err}
		}
		return &Error{
			Line:   pe.Position.Line,
			Key:    pe.LastKey,
			Reason: sentence(pe.Message),
			Hint:   "fix the file, or move it aside to run with the defaults",
			Err:    err,
		}
	}
	d := &decoder{}
	d.decodeError(err, "", 0)
	return d.problems[0]
}

// The decoder's type errors are plain errors, matched by these patterns:
// `toml: line 3 (last key "launch.defaults.model"): incompatible types: …`.
// They are compiled where an error is reported, never at start-up: every
// forgectl command links this package, including the Stop-hook dispatch.
const (
	decodeMessagePattern = `(?s)^toml: (?:line (\d+) )?\(last key "((?:[^"\\]|\\.)*)"\): (.*)$`
	badTypePattern       = `^incompatible types: TOML value has type (.+); destination has type (.+)$`
	notTablePattern      = `^type mismatch for .+: expected table but found (.+)$`
)

// typeName names a type as the decoder prints it (Go types for TOML values,
// words for destinations) in the user's terms.
func typeName(t string) string {
	switch t {
	case "string":
		return "a string"
	case "int64", "integer":
		return "an integer"
	case "float64", "float":
		return "a float"
	case "bool", "boolean":
		return "a boolean"
	case "[]any", "slice":
		return "an array"
	case "map[string]any", "map":
		return "a table"
	case "[]map[string]any":
		return "an array of tables"
	case "time.Time", "toml.LocalDatetime":
		return "a date-time"
	case "toml.LocalDate":
		return "a date"
	case "toml.LocalTime":
		return "a time"
	}
	return t
}

// decodeError turns a decoder error into a problem in table (entry is
// 1-based, 0 for a plain table).
func (d *decoder) decodeError(err error, table string, entry int) {
	e := &Error{Table: table, Entry: entry, Err: err}
	m := regexp.MustCompile(decodeMessagePattern).FindStringSubmatch(err.Error())
	if m == nil {
		e.Reason = sentence(strings.TrimPrefix(err.Error(), "toml: "))
		d.add(e)
		return
	}
	full, _ := strconv.Unquote(`"` + m[2] + `"`)
	if table == "" {
		// A type error in a whole section: name the section as the table.
		table = full
		if i := strings.LastIndexByte(full, '.'); i >= 0 {
			table = full[:i]
		}
		e.Table = table
	}
	e.Key = strings.TrimPrefix(full, table+".")
	if full == table {
		e.Key = ""
	}
	name := e.Key
	if name == "" {
		name = full
		e.Table = ""
	}
	badType, notTable := regexp.MustCompile(badTypePattern), regexp.MustCompile(notTablePattern)
	switch reason := m[3]; {
	case badType.MatchString(reason):
		t := badType.FindStringSubmatch(reason)
		e.Reason = fmt.Sprintf("%s: expected %s, found %s", name, typeName(t[2]), typeName(t[1]))
	case notTable.MatchString(reason):
		e.Reason = fmt.Sprintf("%s: expected a table, found %s", name, typeName(notTable.FindStringSubmatch(reason)[1]))
	default:
		e.Reason = fmt.Sprintf("%s: %s", name, sentence(reason))
	}
	if entry > 0 {
		// The decoder's line is that of the last entry with this key.
		e.Line = d.loc.find(table, entry-1, firstSegment(e.Key))
	} else if m[1] != "" {
		e.Line, _ = strconv.Atoi(m[1])
	}
	d.add(e)
}

func firstSegment(key string) string {
	if i := strings.IndexByte(key, '.'); i >= 0 {
		return key[:i]
	}
	return key
}

// sentence fits a library message to the house style: lowercase, no period.
func sentence(s string) string {
	s = strings.TrimSuffix(strings.TrimSpace(s), ".")
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || !unicode.IsUpper(r) {
		return s
	}
	// Leave acronyms ("TOML …") alone.
	if r2, _ := utf8.DecodeRuneInString(s[n:]); unicode.IsUpper(r2) {
		return s
	}
	return string(unicode.ToLower(r)) + s[n:]
}
