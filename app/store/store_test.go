package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"testing"
	"time"
)

// base is the fixed start of the test clock.
var base = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// openTest opens a store in a temporary directory whose clock starts at base
// and moves one second on each reading, so ordering by time is deterministic.
func openTest(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "chats.db")
	s := openAt(t, path)
	return s, path
}

func openAt(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	var tick atomic.Int64
	s.now = func() time.Time { return base.Add(time.Duration(tick.Add(1)-1) * time.Second) }
	t.Cleanup(func() { s.Close() })
	return s
}

func newConv(t *testing.T, s *Store, title, model string) Conversation {
	t.Helper()
	c, err := s.NewConversation(title, model)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func addMsg(t *testing.T, s *Store, convID int64, role, content string) Message {
	t.Helper()
	m, err := s.AddMessage(convID, role, content)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestConversationCRUD(t *testing.T) {
	s, _ := openTest(t)
	c := newConv(t, s, "First", "llama-3.2-1b")
	if c.ID == 0 || c.Title != "First" || c.Model != "llama-3.2-1b" || !c.Created.Equal(base) {
		t.Fatalf("NewConversation = %+v", c)
	}
	if err := s.Rename(c.ID, "Renamed"); err != nil {
		t.Fatal(err)
	}
	st := Settings{Temperature: 0.7, TopP: 0.9, MaxTokens: 512, Context: 4096}
	if err := s.UpdateSettings(c.ID, "Be brief.", st); err != nil {
		t.Fatal(err)
	}
	u := addMsg(t, s, c.ID, "user", "hi")
	a := addMsg(t, s, c.ID, "assistant", "")
	if !u.Done || a.Done {
		t.Fatalf("Done: user %v assistant %v, want true false", u.Done, a.Done)
	}
	a.Content, a.Tokens, a.TokensPerSecond, a.TTFTSeconds, a.Done = "hello", 2, 40.5, 0.25, true
	if err := s.UpdateMessage(a); err != nil {
		t.Fatal(err)
	}

	got, msgs, err := s.Conversation(c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != "Renamed" || got.System != "Be brief." || got.Settings != st {
		t.Errorf("Conversation = %+v", got)
	}
	if !got.Updated.After(got.Created) {
		t.Errorf("Updated %v not after Created %v", got.Updated, got.Created)
	}
	want := []Message{u, a}
	if len(msgs) != len(want) {
		t.Fatalf("messages = %+v, want %+v", msgs, want)
	}
	for i := range want {
		if !reflect.DeepEqual(msgs[i], want[i]) {
			t.Errorf("message %d = %+v, want %+v", i, msgs[i], want[i])
		}
	}
}

func TestNotFound(t *testing.T) {
	s, _ := openTest(t)
	c := newConv(t, s, "c", "")
	m := addMsg(t, s, c.ID, "user", "x")
	other := newConv(t, s, "other", "")
	tests := []struct {
		name string
		fn   func() error
	}{
		{"conversation", func() error { _, _, err := s.Conversation(999); return err }},
		{"rename", func() error { return s.Rename(999, "x") }},
		{"settings", func() error { return s.UpdateSettings(999, "", Settings{}) }},
		{"delete", func() error { return s.Delete(999) }},
		{"add message", func() error { _, err := s.AddMessage(999, "user", "x"); return err }},
		{"update message id", func() error { return s.UpdateMessage(Message{ID: 999, ConversationID: c.ID}) }},
		{"update message wrong conversation", func() error { return s.UpdateMessage(Message{ID: m.ID, ConversationID: other.ID}) }},
		{"delete message", func() error { return s.DeleteMessage(c.ID, 999) }},
		{"delete message wrong conversation", func() error { return s.DeleteMessage(other.ID, m.ID) }},
		{"show version wrong conversation", func() error { return s.ShowVersion(other.ID, m.ID) }},
		{"add after wrong conversation", func() error { _, err := s.AddMessageAfter(other.ID, m.ID, "user", "x"); return err }},
		{"export markdown", func() error { return s.ExportMarkdown(999, io.Discard) }},
		{"export json", func() error { return s.ExportJSON(999, io.Discard) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.fn(); !errors.Is(err, ErrNotFound) {
				t.Errorf("err = %v, want ErrNotFound", err)
			}
		})
	}
	if _, err := s.AddMessage(c.ID, "", "x"); err == nil {
		t.Error("AddMessage with empty role: no error")
	}
}

func TestSearch(t *testing.T) {
	s, _ := openTest(t)
	go1 := newConv(t, s, "Go generics", "")
	rust := newConv(t, s, "Rust lifetimes", "")
	pct := newConv(t, s, "Discounts", "")
	addMsg(t, s, go1.ID, "user", "What is a type parameter?")
	addMsg(t, s, rust.ID, "user", "Explain the borrow checker")
	addMsg(t, s, pct.ID, "user", "Is 50% off good?")
	// Touch go1 last so it is the newest.
	addMsg(t, s, go1.ID, "assistant", "A placeholder for a type.")

	tests := []struct {
		query string
		want  []int64
	}{
		{"", []int64{go1.ID, pct.ID, rust.ID}},
		{"rust", []int64{rust.ID}},   // title, case-insensitive
		{"BORROW", []int64{rust.ID}}, // message text
		{"type", []int64{go1.ID}},    // several messages match: listed once
		{"50%", []int64{pct.ID}},     // % is literal
		{"5_%", nil},                 // _ is literal
		{"o", []int64{go1.ID, pct.ID, rust.ID}},
		{"nothing like this", nil},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			cs, err := s.Conversations(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, c := range cs {
				got = append(got, c.ID)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("Conversations(%q) = %v, want %v", tt.query, got, tt.want)
			}
		})
	}
}

func TestDeleteCascades(t *testing.T) {
	s, _ := openTest(t)
	a := newConv(t, s, "a", "")
	b := newConv(t, s, "b", "")
	for _, id := range []int64{a.ID, a.ID, b.ID} {
		addMsg(t, s, id, "user", "x")
	}
	if err := s.Delete(a.ID); err != nil {
		t.Fatal(err)
	}
	count := func(id int64) (n int) {
		if err := s.db.QueryRow(`SELECT count(*) FROM messages WHERE conversation_id = ?`, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(a.ID); n != 0 {
		t.Errorf("%d messages of the deleted conversation remain", n)
	}
	if n := count(b.ID); n != 1 {
		t.Errorf("other conversation has %d messages, want 1", n)
	}
}

func must2(t *testing.T, s *Store, id int64) (Conversation, []Message) {
	t.Helper()
	c, m, err := s.Conversation(id)
	if err != nil {
		t.Fatal(err)
	}
	return c, m
}

// exportFixture builds the conversation the export golden strings describe.
func exportFixture(t *testing.T) (*Store, int64) {
	s, _ := openTest(t)
	c := newConv(t, s, "Haiku\nrequest", "qwen3-0.6b") // 12:00:00
	if err := s.UpdateSettings(c.ID, "You are a poet.", Settings{Temperature: 0.5, TopP: 0.95, MaxTokens: 64, Context: 2048}); err != nil {
		t.Fatal(err)
	}
	addMsg(t, s, c.ID, "user", "Write a haiku.\n") // 12:00:01
	a := addMsg(t, s, c.ID, "assistant", "")       // 12:00:02
	a.Content, a.Tokens, a.TokensPerSecond, a.TTFTSeconds, a.Done = "Old pond", 3, 30, 0.125, true
	a.Reasoning, a.ReasoningTokens, a.ReasoningSeconds = "Five syllables first.\n", 4, 1.25
	if err := s.UpdateMessage(a); err != nil { // 12:00:03
		t.Fatal(err)
	}
	addMsg(t, s, c.ID, "user", "Another?")  // 12:00:04
	addMsg(t, s, c.ID, "assistant", "Frog") // 12:00:05 (never finished)
	return s, c.ID
}

func TestExportMarkdown(t *testing.T) {
	s, id := exportFixture(t)
	var b bytes.Buffer
	if err := s.ExportMarkdown(id, &b); err != nil {
		t.Fatal(err)
	}
	const want = `# Haiku request

- Model: qwen3-0.6b
- Created: 2025-03-01T12:00:00Z
- Updated: 2025-03-01T12:00:05Z

## System prompt

You are a poet.

## User

Write a haiku.

## Assistant

<details><summary>Thought for 1.2 s · 4 tokens</summary>

Five syllables first.

</details>

Old pond

*3 tokens, 30.0 tokens/s, 0.12 s to first token*

## User

Another?

## Assistant

Frog

*(reply interrupted)*
`
	if got := b.String(); got != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", got, want)
	}
}

func TestExportJSON(t *testing.T) {
	s, id := exportFixture(t)
	var b bytes.Buffer
	if err := s.ExportJSON(id, &b); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`{
  "id": %[1]d,
  "title": "Haiku\nrequest",
  "created": "2025-03-01T12:00:00Z",
  "updated": "2025-03-01T12:00:05Z",
  "model": "qwen3-0.6b",
  "system": "You are a poet.",
  "settings": {
    "temperature": 0.5,
    "top_p": 0.95,
    "max_tokens": 64,
    "context": 2048
  },
  "messages": [
    {
      "id": 1,
      "conversation_id": %[1]d,
      "role": "user",
      "content": "Write a haiku.\n",
      "created": "2025-03-01T12:00:01Z",
      "tokens": 0,
      "tokens_per_second": 0,
      "ttft_seconds": 0,
      "done": true
    },
    {
      "id": 2,
      "conversation_id": %[1]d,
      "role": "assistant",
      "content": "Old pond",
      "created": "2025-03-01T12:00:02Z",
      "tokens": 3,
      "tokens_per_second": 30,
      "ttft_seconds": 0.125,
      "done": true,
      "reasoning": "Five syllables first.\n",
      "reasoning_tokens": 4,
      "reasoning_seconds": 1.25
    },
    {
      "id": 3,
      "conversation_id": %[1]d,
      "role": "user",
      "content": "Another?",
      "created": "2025-03-01T12:00:04Z",
      "tokens": 0,
      "tokens_per_second": 0,
      "ttft_seconds": 0,
      "done": true
    },
    {
      "id": 4,
      "conversation_id": %[1]d,
      "role": "assistant",
      "content": "Frog",
      "created": "2025-03-01T12:00:05Z",
      "tokens": 0,
      "tokens_per_second": 0,
      "ttft_seconds": 0,
      "done": false
    }
  ]
}
`, id)
	if got := b.String(); got != want {
		t.Errorf("json:\n%s\nwant:\n%s", got, want)
	}
}

func TestThoughtSummary(t *testing.T) {
	tests := []struct {
		m    Message
		want string
	}{
		{Message{ReasoningSeconds: 4.24, ReasoningTokens: 120}, "Thought for 4.2 s · 120 tokens"},
		{Message{ReasoningSeconds: 0.05, ReasoningTokens: 1}, "Thought for 0.1 s · 1 token"},
		{Message{ReasoningSeconds: 2}, "Thought for 2.0 s"},
	}
	for _, tt := range tests {
		if got := tt.m.ThoughtSummary(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.m, got, tt.want)
		}
	}
}

// TestMessageDrafts stores a reply's speculative-decoding figures and reads
// them back, through a reopening of the database.
func TestMessageDrafts(t *testing.T) {
	s, path := openTest(t)
	c := newConv(t, s, "Drafts", "m")
	a := addMsg(t, s, c.ID, "assistant", "")
	a.Content, a.Tokens, a.Done, a.DraftTokens, a.AcceptedTokens = "Hi", 40, true, 48, 31
	if err := s.UpdateMessage(a); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openAt(t, path)
	msgs := shown(t, s, c.ID)
	if len(msgs) != 1 || msgs[0].DraftTokens != 48 || msgs[0].AcceptedTokens != 31 {
		t.Errorf("messages %+v, want one with 31 of 48 draft tokens accepted", msgs)
	}
}
