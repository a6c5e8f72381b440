// Package settings reads and edits Claude Code's settings.json: it reads
// the command hooks as Claude Code does (for doctor and init alike), and it
// adds or removes forgectl's Stop hook, leaving every other byte where it
// was.
//
// A decode-and-re-encode round trip would reorder keys, reflow arrays and
// rewrite escapes in a file that holds a user's permissions, env, status
// line and other hooks. So the document is parsed into byte spans with
// encoding/json's tokenizer (Decoder.Token and InputOffset), and an edit is
// a splice of minimal text at one span, indented like its neighbours.
//
// Claude Code reads the file with JSON.parse after sniffing its encoding
// (2.1.332, observed): the last of duplicate keys wins, keys are
// case-sensitive, a leading byte-order mark is dropped and UTF-16LE is
// decoded. encoding/json's Unmarshal differs on the first two (it merges
// duplicate objects and matches field names in any case), so nothing here
// unmarshals into structs.
package settings
