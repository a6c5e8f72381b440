package fakeapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
)

// Options bound and shape a server. The zero value is usable.
type Options struct {
	// Record, when set, is a file that gets one JSON line per request.
	Record string
	// Slow is how long a "slow" reply takes to stream (default 5s).
	Slow time.Duration
	// Lifetime stops the server after this long (default 20m), so a test
	// that forgets to close it, or a program left behind, goes away.
	Lifetime time.Duration
	// MaxRequests stops the server after this many requests (default 5000).
	MaxRequests int
	// MaxBody caps a request body read (default 32 MiB).
	MaxBody int64
}

func (o Options) withDefaults() Options {
	if o.Slow <= 0 {
		o.Slow = 5 * time.Second
	}
	if o.Lifetime <= 0 {
		o.Lifetime = 20 * time.Minute
	}
	if o.MaxRequests <= 0 {
		o.MaxRequests = 5000
	}
	if o.MaxBody <= 0 {
		o.MaxBody = 32 << 20
	}
	return o
}

// Server is a running stand-in.
type Server struct {
	opts  Options
	ln    net.Listener
	http  *http.Server
	done  chan struct{}
	close sync.Once

	mu       sync.Mutex
	requests int
	msgSeq   int
	record   *os.File
}

// Start listens on 127.0.0.1 at a free port and serves until Close, the
// lifetime or the request cap.
func Start(opts Options) (*Server, error) {
	opts = opts.withDefaults()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{opts: opts, ln: ln, done: make(chan struct{})}
	if opts.Record != "" {
		f, err := os.OpenFile(opts.Record, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			ln.Close()
			return nil, err
		}
		s.record = f
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages", s.messages)
	mux.HandleFunc("POST /v1/messages/count_tokens", s.countTokens)
	mux.HandleFunc("POST /v1/responses", s.responses)
	mux.HandleFunc("/", s.catchAll)
	s.http = &http.Server{Handler: s.counted(mux), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		t := time.NewTimer(opts.Lifetime)
		defer t.Stop()
		select {
		case <-t.C:
			s.Close()
		case <-s.done:
		}
	}()
	go func() {
		err := s.http.Serve(ln)
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(os.Stderr, "fakeapi: error: %v\n", err)
		}
		s.Close()
	}()
	return s, nil
}

// URL is the base URL to give ANTHROPIC_BASE_URL; a Codex provider's
// base_url is URL()+"/v1".
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Done is closed once the server has stopped.
func (s *Server) Done() <-chan struct{} { return s.done }

// Requests is how many requests have arrived so far.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// Close stops the server, cutting off replies in flight. It is safe to call
// more than once.
func (s *Server) Close() error {
	s.close.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if s.http.Shutdown(ctx) != nil {
			s.http.Close()
		}
		s.mu.Lock()
		if s.record != nil {
			s.record.Close()
			s.record = nil
		}
		s.mu.Unlock()
		close(s.done)
	})
	return nil
}

// counted enforces the request cap and records every request.
func (s *Server) counted(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, s.opts.MaxBody))
		if err != nil {
			http.Error(w, "read error", http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.requests++
		over := s.requests > s.opts.MaxRequests
		s.writeRecord(r, body)
		s.mu.Unlock()
		if over {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"type":"error","error":{"type":"overloaded_error","message":"fakeapi request cap reached"}}`)
			go s.Close()
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

type recordLine struct {
	Time   string          `json:"time"`
	Method string          `json:"method"`
	Path   string          `json:"path"`
	Query  string          `json:"query,omitempty"`
	Body   json.RawMessage `json:"body,omitempty"`
	Text   string          `json:"text,omitempty"`
}

// writeRecord appends one line; s.mu is held.
func (s *Server) writeRecord(r *http.Request, body []byte) {
	if s.record == nil {
		return
	}
	rec := recordLine{Time: time.Now().UTC().Format(time.RFC3339Nano), Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery}
	if json.Valid(body) {
		rec.Body = body
	} else if len(body) > 0 {
		rec.Text = string(body)
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return
	}
	s.record.Write(append(b, '\n'))
}

func (s *Server) nextID(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.msgSeq++
	return fmt.Sprintf("%s_fake%020d", prefix, s.msgSeq)
}

func (s *Server) catchAll(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, "{}")
}

func (s *Server) countTokens(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"input_tokens":%d}`, estimateTokens(len(body)))
}

func estimateTokens(n int) int { return n/4 + 1 }

func (s *Server) messages(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req Request
	if err := json.Unmarshal(body, &req); err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"type":"error","error":{"type":"invalid_request_error","message":"body is not JSON"}}`)
		return
	}
	reply := Reply(req)
	for i := range reply.Blocks {
		if reply.Blocks[i].Type == "tool_use" {
			reply.Blocks[i].ID = s.nextID("toolu")
		}
	}
	msg := message{
		ID: s.nextID("msg"), Type: "message", Role: "assistant", Model: req.Model,
		Content: reply.Blocks, StopReason: reply.StopReason,
		Usage: usage{InputTokens: estimateTokens(len(body)), OutputTokens: reply.outputTokens()},
	}
	if msg.Model == "" {
		msg.Model = "claude-fake"
	}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(msg)
		return
	}
	var pace time.Duration
	if reply.Slow {
		pace = s.opts.Slow
	}
	stream(r.Context(), w, msg, pace)
}
