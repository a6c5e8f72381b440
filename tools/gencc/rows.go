package gencc

// Row types mirror what Claude Code 2.1.332 writes. Field order matters to
// readers that look for byte patterns, so the structs keep the observed
// order: the envelope comes last, ending in cwd, sessionId, version and
// gitBranch.

type envelope struct {
	UserType   string `json:"userType"`
	Entrypoint string `json:"entrypoint"`
	Cwd        string `json:"cwd"`
	SessionID  string `json:"sessionId"`
	Version    string `json:"version"`
	GitBranch  string `json:"gitBranch"`
}

type origin struct {
	Kind string `json:"kind"`
}

type turnPosition struct {
	PromptIndex int `json:"promptIndex"`
	TurnIndex   int `json:"turnIndex"`
}

type userMessage struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

type userRow struct {
	ParentUUID              *string       `json:"parentUuid"`
	IsSidechain             bool          `json:"isSidechain"`
	AgentID                 string        `json:"agentId,omitempty"`
	PromptID                string        `json:"promptId,omitempty"`
	Type                    string        `json:"type"`
	Message                 userMessage   `json:"message"`
	IsMeta                  bool          `json:"isMeta,omitempty"`
	IsCompactSummary        bool          `json:"isCompactSummary,omitempty"`
	UUID                    string        `json:"uuid"`
	Timestamp               string        `json:"timestamp"`
	ToolUseResult           any           `json:"toolUseResult,omitempty"`
	SourceToolAssistantUUID string        `json:"sourceToolAssistantUUID,omitempty"`
	PermissionMode          string        `json:"permissionMode,omitempty"`
	Origin                  *origin       `json:"origin,omitempty"`
	PromptSource            string        `json:"promptSource,omitempty"`
	TurnOrigin              string        `json:"turnOrigin,omitempty"`
	TurnPosition            *turnPosition `json:"turnPosition,omitempty"`
	envelope
}

type toolResultBlock struct {
	ToolUseID string `json:"tool_use_id"`
	Type      string `json:"type"`
	Content   string `json:"content"`
	IsError   bool   `json:"is_error,omitempty"`
}

type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type thinkingBlock struct {
	Type      string `json:"type"`
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
}

type toolUseBlock struct {
	Type  string `json:"type"`
	ID    string `json:"id"`
	Name  string `json:"name"`
	Input any    `json:"input"`
}

type usage struct {
	InputTokens              int    `json:"input_tokens"`
	CacheCreationInputTokens int    `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int    `json:"cache_read_input_tokens"`
	OutputTokens             int    `json:"output_tokens"`
	ServiceTier              string `json:"service_tier"`
}

type apiMessage struct {
	ID           string  `json:"id"`
	Type         string  `json:"type"`
	Role         string  `json:"role"`
	Model        string  `json:"model"`
	Content      []any   `json:"content"`
	StopReason   *string `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
	Usage        usage   `json:"usage"`
}

type assistantRow struct {
	ParentUUID     *string    `json:"parentUuid"`
	IsSidechain    bool       `json:"isSidechain"`
	AgentID        string     `json:"agentId,omitempty"`
	Type           string     `json:"type"`
	Message        apiMessage `json:"message"`
	RequestedModel string     `json:"requestedModel"`
	Effort         string     `json:"effort"`
	PerTurnEffort  bool       `json:"perTurnEffort"`
	RequestRef     string     `json:"requestRef"`
	UUID           string     `json:"uuid"`
	Timestamp      string     `json:"timestamp"`
	envelope
	// RequestSessionID is set on the rows a fork copied: the session that
	// made the request (2.1.333 writes it after the envelope).
	RequestSessionID string `json:"requestSessionId,omitempty"`
}

type systemRow struct {
	ParentUUID  *string `json:"parentUuid"`
	IsSidechain bool    `json:"isSidechain"`
	Type        string  `json:"type"`
	Subtype     string  `json:"subtype"`
	Content     string  `json:"content,omitempty"`
	Level       string  `json:"level,omitempty"`
	DurationMs  int     `json:"durationMs,omitempty"`
	HookCount   int     `json:"hookCount,omitempty"`
	HookInfos   []any   `json:"hookInfos,omitempty"`
	HookErrors  []any   `json:"hookErrors,omitempty"`
	Prevented   *bool   `json:"preventedContinuation,omitempty"`
	StopReason  *string `json:"stopReason,omitempty"`
	HasOutput   *bool   `json:"hasOutput,omitempty"`
	CompactMeta any     `json:"compactMetadata,omitempty"`
	IsMeta      bool    `json:"isMeta"`
	UUID        string  `json:"uuid"`
	Timestamp   string  `json:"timestamp"`
	envelope
}

type attachmentBody struct {
	Type    string `json:"type"`
	Content string `json:"content"`
}

type attachmentRow struct {
	ParentUUID  *string        `json:"parentUuid"`
	IsSidechain bool           `json:"isSidechain"`
	Type        string         `json:"type"`
	Attachment  attachmentBody `json:"attachment"`
	UUID        string         `json:"uuid"`
	Timestamp   string         `json:"timestamp"`
	envelope
}

// Metadata rows carry no uuid; each is keyed by sessionId.

type customTitleRow struct {
	Type        string `json:"type"`
	CustomTitle string `json:"customTitle"`
	SessionID   string `json:"sessionId"`
}

type agentNameRow struct {
	Type      string `json:"type"`
	AgentName string `json:"agentName"`
	SessionID string `json:"sessionId"`
}

type aiTitleRow struct {
	Type      string `json:"type"`
	AITitle   string `json:"aiTitle"`
	SessionID string `json:"sessionId"`
}

type lastPromptRow struct {
	Type       string `json:"type"`
	LastPrompt string `json:"lastPrompt"`
	LeafUUID   string `json:"leafUuid"`
	SessionID  string `json:"sessionId"`
}

type summaryRow struct {
	Type     string `json:"type"`
	Summary  string `json:"summary"`
	LeafUUID string `json:"leafUuid"`
}

type tagRow struct {
	Type      string `json:"type"`
	Tag       string `json:"tag"`
	SessionID string `json:"sessionId"`
}

type permissionModeRow struct {
	Type           string `json:"type"`
	PermissionMode string `json:"permissionMode"`
	SessionID      string `json:"sessionId"`
}

type snapshotBody struct {
	MessageID          string         `json:"messageId"`
	TrackedFileBackups map[string]any `json:"trackedFileBackups"`
	Timestamp          string         `json:"timestamp"`
}

type fileHistorySnapshotRow struct {
	Type             string       `json:"type"`
	MessageID        string       `json:"messageId"`
	Snapshot         snapshotBody `json:"snapshot"`
	IsSnapshotUpdate bool         `json:"isSnapshotUpdate"`
}

// historyLine is one line of ~/.claude/history.jsonl.
type historyLine struct {
	Display        string         `json:"display"`
	PastedContents map[string]any `json:"pastedContents"`
	Timestamp      int64          `json:"timestamp"`
	Project        string         `json:"project"`
	SessionID      string         `json:"sessionId,omitempty"`
}

// taskFile is one tasks/<listId>/<n>.json.
type taskFile struct {
	ID          string   `json:"id"`
	Subject     string   `json:"subject"`
	Description string   `json:"description"`
	ActiveForm  string   `json:"activeForm,omitempty"`
	Status      string   `json:"status"`
	Blocks      []string `json:"blocks"`
	BlockedBy   []string `json:"blockedBy"`
}
