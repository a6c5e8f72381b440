package fakeapi

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Request is the part of a Messages API request the scripts look at.
type Request struct {
	Model    string    `json:"model"`
	Stream   bool      `json:"stream"`
	Messages []Message `json:"messages"`
	Tools    []Tool    `json:"tools"`
}

// Message is one turn; Content is a string or an array of blocks.
type Message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// Tool is an offered tool, by name.
type Tool struct {
	Name string `json:"name"`
}

// Block is a content block of a request or a reply.
type Block struct {
	Type  string          `json:"type"`
	Text  string          `json:"text,omitempty"`
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
	// Request-side tool results.
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"`
}

// blocks decodes either form of a message's content.
func (m Message) blocks() []Block {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return []Block{{Type: "text", Text: s}}
	}
	var bs []Block
	json.Unmarshal(m.Content, &bs)
	return bs
}

// Answer is what the model says to one request.
type Answer struct {
	Blocks     []Block
	StopReason string
	Slow       bool
}

func (a Answer) outputTokens() int {
	n := 1
	for _, b := range a.Blocks {
		n += len(b.Text)/4 + len(b.Input)/4
	}
	return n
}

func text(s string) Answer {
	return Answer{Blocks: []Block{{Type: "text", Text: s}}, StopReason: "end_turn"}
}

func toolUse(name string, input any) Answer {
	b, _ := json.Marshal(input)
	return Answer{Blocks: []Block{{Type: "tool_use", Name: name, Input: b}}, StopReason: "tool_use"}
}

// Reply decides the answer to a request from the request alone.
func Reply(req Request) Answer {
	prompt, at := humanPrompt(req.Messages)
	if at < 0 {
		return text("Hello from the fake model.")
	}
	if subjects, ok := taskSubjects(prompt); ok {
		return taskStep(req, subjects, req.Messages[at+1:])
	}
	if strings.Contains(strings.ToLower(prompt), "slow") {
		a := text("This reply was slow on purpose; the fake model took its time.")
		a.Slow = true
		return a
	}
	return text("Hello from the fake model. You said: " + oneLine(prompt, 80))
}

// humanPrompt finds the newest user message that a person typed (not a
// tool result) and returns its text. The CLI puts its own context in the
// same message as text blocks starting with a tag (<system-reminder>, or
// <command-name> for an earlier slash command), so the last untagged block
// is the prompt.
func humanPrompt(msgs []Message) (string, int) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != "user" {
			continue
		}
		prompt, tagged := "", ""
		toolResult := false
		for _, b := range msgs[i].blocks() {
			switch b.Type {
			case "tool_result":
				toolResult = true
			case "text":
				t := strings.TrimSpace(b.Text)
				switch {
				case t == "":
				case strings.HasPrefix(t, "<"):
					tagged = t
				default:
					prompt = t
				}
			}
		}
		if toolResult {
			continue
		}
		if prompt == "" {
			prompt = tagged
		}
		if prompt != "" {
			return prompt, i
		}
	}
	return "", -1
}

var tasksDirective = regexp.MustCompile(`(?m)\btasks:\s*(.+)$`)

// taskSubjects parses "tasks: A; B; C".
func taskSubjects(prompt string) ([]string, bool) {
	m := tasksDirective.FindStringSubmatch(prompt)
	if m == nil {
		return nil, false
	}
	var out []string
	for _, s := range strings.Split(m[1], ";") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out, len(out) > 0
}

var taskNumber = regexp.MustCompile(`#(\d+)`)

// taskStep is the next move of the tasks script, given what the assistant
// has already done since the prompt.
func taskStep(req Request, subjects []string, since []Message) Answer {
	offered := map[string]bool{}
	for _, t := range req.Tools {
		offered[t.Name] = true
	}
	calls := map[string]int{} // tool name -> calls made
	names := map[string]string{}
	firstID := ""
	for _, m := range since {
		for _, b := range m.blocks() {
			switch {
			case m.Role == "assistant" && b.Type == "tool_use":
				calls[b.Name]++
				names[b.ID] = b.Name
			case m.Role == "user" && b.Type == "tool_result" && names[b.ToolUseID] == "TaskCreate" && firstID == "":
				if n := taskNumber.FindStringSubmatch(resultText(b.Content)); n != nil {
					firstID = n[1]
				}
			}
		}
	}
	switch {
	case offered["ToolSearch"] && calls["ToolSearch"] == 0:
		return toolUse("ToolSearch", map[string]any{"query": "select:TaskCreate,TaskUpdate", "max_results": 5})
	case !offered["TaskCreate"] && calls["ToolSearch"] == 0:
		return text("The task tools are not available here.")
	case calls["TaskCreate"] < len(subjects):
		s := subjects[calls["TaskCreate"]]
		return toolUse("TaskCreate", map[string]any{
			"subject":     s,
			"description": "Fake model task: " + s,
			"activeForm":  "Working on " + strings.ToLower(s[:1]) + s[1:],
		})
	case calls["TaskUpdate"] == 0:
		if firstID == "" {
			firstID = "1"
		}
		return toolUse("TaskUpdate", map[string]any{"taskId": firstID, "status": "in_progress"})
	}
	return text(fmt.Sprintf("Created %d tasks and started the first.", len(subjects)))
}

// resultText flattens a tool_result's content (a string or text blocks).
func resultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var bs []Block
	json.Unmarshal(raw, &bs)
	var parts []string
	for _, b := range bs {
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "\n")
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + "…"
	}
	return s
}
