// Package settings edits Claude Code's settings.json in place: it adds or
// removes forgectl's Stop hook and leaves every other byte where it was.
//
// A decode-and-re-encode round trip would reorder keys, reflow arrays and
// rewrite escapes in a file that holds a user's permissions, env, status
// line and other hooks. So the document is parsed into byte spans with
// encoding/json's tokenizer (Decoder.Token and InputOffset), and an edit is
// a splice of minimal text at one span, indented like its neighbours.
package settings
