package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Settings are a conversation's sampling and context options. Zero values
// mean "use the model's default".
type Settings struct {
	Temperature float32 `json:"temperature"`
	TopP        float32 `json:"top_p"`
	MaxTokens   int     `json:"max_tokens"`
	Context     int     `json:"context"`
}

// Conversation is one chat thread, without its messages.
type Conversation struct {
	ID       int64     `json:"id"`
	Title    string    `json:"title"`
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"` // last new or changed message
	Model    string    `json:"model"`
	System   string    `json:"system"` // the system prompt
	Settings Settings  `json:"settings"`
}

// Message is one turn of a conversation.
type Message struct {
	ID              int64     `json:"id"`
	ConversationID  int64     `json:"conversation_id"`
	Role            string    `json:"role"` // "system", "user", "assistant", "tool"
	Content         string    `json:"content"`
	Created         time.Time `json:"created"`
	Tokens          int       `json:"tokens"`
	TokensPerSecond float64   `json:"tokens_per_second"`
	TTFTSeconds     float64   `json:"ttft_seconds"`
	Done            bool      `json:"done"` // false while streaming, or after a crash mid-reply
	// Reasoning is what a thinking model thought before its answer (not
	// sent back to the model with the conversation), ReasoningTokens the
	// tokens it took and ReasoningSeconds how long.
	Reasoning        string  `json:"reasoning,omitempty"`
	ReasoningTokens  int     `json:"reasoning_tokens,omitempty"`
	ReasoningSeconds float64 `json:"reasoning_seconds,omitempty"`
	// ParentID is the message this one follows (0: the first). Messages
	// with the same parent and role are versions of one turn: a
	// regenerated reply, an edited message.
	ParentID int64 `json:"-"`
	// Finish says why a reply ended: "" (it finished, or unknown), or
	// one of the Finish constants.
	Finish string `json:"finish,omitempty"`
	// DraftTokens are the tokens a draft model (speculative decoding)
	// proposed for a reply, AcceptedTokens those its model kept.
	DraftTokens    int `json:"draft_tokens,omitempty"`
	AcceptedTokens int `json:"accepted_tokens,omitempty"`
	// Images are the pictures a user message carries: each one's encoded
	// file (JPEG, PNG, WebP or GIF), in order. Set by Conversation.
	Images [][]byte `json:"images,omitempty"`
	// Version is this message's place (from 1) among Versions, the
	// versions of its turn; Siblings are their IDs, oldest first. Set by
	// Conversation, not stored.
	Version  int     `json:"-"`
	Versions int     `json:"-"`
	Siblings []int64 `json:"-"`
}

// Why a reply ended (Message.Finish).
const (
	FinishStopped = "stopped" // the person stopped it
	FinishLength  = "length"  // it reached the reply's token limit
	FinishContext = "context" // the context was full
	FinishError   = "error"   // it failed part way
)

const convColumns = `id, title, created, updated, model, system, temperature, top_p, max_tokens, context`

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

func scanConversation(sc scanner) (Conversation, error) {
	var c Conversation
	var created, updated int64
	var temp, topP float64
	err := sc.Scan(&c.ID, &c.Title, &created, &updated, &c.Model, &c.System,
		&temp, &topP, &c.Settings.MaxTokens, &c.Settings.Context)
	c.Created, c.Updated = fromMillis(created), fromMillis(updated)
	c.Settings.Temperature, c.Settings.TopP = float32(temp), float32(topP)
	return c, err
}

// NewConversation creates an empty conversation.
func (s *Store) NewConversation(title, model string) (Conversation, error) {
	now := s.stamp()
	c := Conversation{Title: title, Model: model, Created: now, Updated: now}
	res, err := s.db.Exec(`INSERT INTO conversations (title, model, created, updated) VALUES (?, ?, ?, ?)`,
		title, model, now.UnixMilli(), now.UnixMilli())
	if err != nil {
		return Conversation{}, fmt.Errorf("store: new conversation: %w", err)
	}
	if c.ID, err = res.LastInsertId(); err != nil {
		return Conversation{}, fmt.Errorf("store: new conversation: %w", err)
	}
	return c, nil
}

// Conversations lists conversations, most recently updated first. A
// non-empty query keeps those whose title or any message contains it
// (case-insensitive for ASCII letters).
func (s *Store) Conversations(query string) ([]Conversation, error) {
	q := `SELECT ` + convColumns + ` FROM conversations`
	var args []any
	if query != "" {
		pat := "%" + escapeLike(query) + "%"
		q += ` WHERE title LIKE ? ESCAPE '\' OR EXISTS (
			SELECT 1 FROM messages m WHERE m.conversation_id = conversations.id AND m.content LIKE ? ESCAPE '\')`
		args = append(args, pat, pat)
	}
	q += ` ORDER BY updated DESC, id DESC`
	rows, err := s.db.Query(q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: conversations: %w", err)
	}
	defer rows.Close()
	var out []Conversation
	for rows.Next() {
		c, err := scanConversation(rows)
		if err != nil {
			return nil, fmt.Errorf("store: conversations: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: conversations: %w", err)
	}
	return out, nil
}

// escapeLike makes s match literally inside a LIKE pattern with ESCAPE '\'.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// Conversation returns one conversation and the messages of the branch
// it shows, in order, each with its versions.
func (s *Store) Conversation(id int64) (Conversation, []Message, error) {
	// One read transaction, so the messages match the conversation row.
	// ReadOnly makes it a deferred BEGIN: a reader never waits for a writer.
	tx, err := s.db.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return Conversation{}, nil, fmt.Errorf("store: conversation %d: %w", id, err)
	}
	defer tx.Rollback()
	c, err := scanConversation(tx.QueryRow(`SELECT `+convColumns+` FROM conversations WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Conversation{}, nil, fmt.Errorf("store: conversation %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Conversation{}, nil, fmt.Errorf("store: conversation %d: %w", id, err)
	}
	msgs, err := messages(tx, id)
	if err != nil {
		return Conversation{}, nil, fmt.Errorf("store: conversation %d: %w", id, err)
	}
	return c, msgs, nil
}

// Rename sets a conversation's title.
func (s *Store) Rename(id int64, title string) error {
	res, err := s.db.Exec(`UPDATE conversations SET title = ? WHERE id = ?`, title, id)
	return checkOne(res, err, "rename conversation", id)
}

// SetModel sets the library model a conversation replies with.
func (s *Store) SetModel(id int64, model string) error {
	res, err := s.db.Exec(`UPDATE conversations SET model = ? WHERE id = ?`, model, id)
	return checkOne(res, err, "set model of conversation", id)
}

// UpdateSettings sets a conversation's system prompt and sampling settings.
func (s *Store) UpdateSettings(id int64, system string, st Settings) error {
	res, err := s.db.Exec(`UPDATE conversations SET system = ?, temperature = ?, top_p = ?, max_tokens = ?, context = ? WHERE id = ?`,
		system, float64(st.Temperature), float64(st.TopP), st.MaxTokens, st.Context, id)
	return checkOne(res, err, "update settings of conversation", id)
}

// Delete removes a conversation and all of its messages.
func (s *Store) Delete(id int64) error {
	res, err := s.db.Exec(`DELETE FROM conversations WHERE id = ?`, id)
	return checkOne(res, err, "delete conversation", id)
}

// checkOne turns the result of a single-row statement into an error,
// ErrNotFound when no row matched.
func checkOne(res sql.Result, err error, what string, id int64) error {
	if err != nil {
		return fmt.Errorf("store: %s %d: %w", what, id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("store: %s %d: %w", what, id, err)
	}
	if n == 0 {
		return fmt.Errorf("store: %s %d: %w", what, id, ErrNotFound)
	}
	return nil
}

// ThoughtSummary says how long a reply's reasoning took ("Thought for
// 4.2 s · 120 tokens"), as the app titles the collapsed block and the
// Markdown export its summary.
func (m Message) ThoughtSummary() string {
	s := fmt.Sprintf("Thought for %.1f s", m.ReasoningSeconds)
	switch m.ReasoningTokens {
	case 0:
	case 1:
		s += " · 1 token"
	default:
		s += fmt.Sprintf(" · %d tokens", m.ReasoningTokens)
	}
	return s
}
