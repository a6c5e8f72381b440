package main

import (
	"bytes"
	"encoding/json"
	"io"
)

// marshalCompact renders v as herdr's CLI does: compact, keys in
// alphabetical order (maps are sorted by encoding/json; the structs below
// declare their fields alphabetically), no HTML escaping, one trailing newline.
func marshalCompact(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// paneInfo is herdr's PaneInfo. Required fields have no omitempty; optional
// ones are omitted when empty, never null.
type paneInfo struct {
	Agent         string        `json:"agent,omitempty"`
	AgentSession  *agentSession `json:"agent_session,omitempty"`
	AgentStatus   string        `json:"agent_status"`
	Cwd           string        `json:"cwd,omitempty"`
	Focused       bool          `json:"focused"`
	ForegroundCwd string        `json:"foreground_cwd,omitempty"`
	Label         string        `json:"label,omitempty"`
	PaneID        string        `json:"pane_id"`
	Revision      int           `json:"revision"`
	Scroll        *scrollInfo   `json:"scroll,omitempty"`
	TabID         string        `json:"tab_id"`
	TerminalID    string        `json:"terminal_id"`
	WorkspaceID   string        `json:"workspace_id"`
}

type agentSession struct {
	Agent  string `json:"agent"`
	Kind   string `json:"kind"`
	Source string `json:"source"`
	Value  string `json:"value"`
}

type scrollInfo struct {
	MaxOffsetFromBottom int `json:"max_offset_from_bottom"`
	OffsetFromBottom    int `json:"offset_from_bottom"`
	ViewportRows        int `json:"viewport_rows"`
}

type processInfo struct {
	ForegroundProcessGroupID int         `json:"foreground_process_group_id,omitempty"`
	ForegroundProcesses      []fgProcess `json:"foreground_processes,omitempty"`
	PaneID                   string      `json:"pane_id"`
	ShellPID                 int         `json:"shell_pid,omitempty"`
}

// apiError is an error herdr reports as a JSON envelope.
type apiError struct {
	code    string
	message string
}

func (e *apiError) Error() string { return e.code + ": " + e.message }

func errorEnvelope(id, code, message string) map[string]any {
	return map[string]any{"error": map[string]any{"code": code, "message": message}, "id": id}
}

func writeJSON(w io.Writer, v any) error {
	b, err := marshalCompact(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}
