// Package fakeapi is a loopback stand-in for the Anthropic Messages API and
// the OpenAI Responses API, good enough for the real Claude Code CLI
// (ANTHROPIC_BASE_URL=http://127.0.0.1:<port>) and the real Codex CLI (a
// custom provider whose base_url is http://127.0.0.1:<port>/v1) to hold a
// conversation with it offline.
//
// It serves:
//
//   - POST /v1/messages, streamed (SSE: message_start, content_block_start,
//     ping, content_block_delta…, content_block_stop, message_delta,
//     message_stop) or as one JSON message, whichever the request asks for;
//   - POST /v1/messages/count_tokens, a rough count;
//   - POST /v1/responses, streamed (SSE: response.created,
//     response.output_item.added, response.output_text.delta…,
//     response.output_item.done, response.completed with usage) or as one
//     JSON response: one assistant message (see ResponsesReply). A request
//     whose text.format is a JSON schema (Codex's title call) gets a JSON
//     object, {"title":"Title <first four words of the prompt>"};
//   - anything else: 200 with an empty JSON object, since the CLI probes a
//     few endpoints whose answers do not matter offline.
//
// What the model "says" depends only on the request, so one server can
// serve several CLI processes at once. The newest human prompt in the
// request picks a script (see Reply); the number of assistant turns after
// that prompt is the step within it. Prompts understood:
//
//   - "tasks: A; B; C": load the task tools with ToolSearch, create one task
//     per subject with TaskCreate, mark the first in progress with
//     TaskUpdate, then answer in text;
//   - a prompt containing "slow": a text reply streamed over Options.Slow,
//     so the CLI stays busy meanwhile;
//   - anything else: a short text reply that names the prompt.
//
// Tool calls are only made when the request offers the tool, so side
// requests (titles, summaries) get plain text.
//
// It listens on 127.0.0.1 only, records every request (method, path, body)
// as one JSON line in Options.Record, and stops by itself after
// Options.Lifetime or Options.MaxRequests, whichever comes first.
package fakeapi
