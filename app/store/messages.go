package store

import (
	"database/sql"
	"errors"
	"fmt"
	"time"
)

const msgColumns = `id, conversation_id, role, content, created, tokens, tokens_per_second, ttft_seconds, done,
	reasoning, reasoning_tokens, reasoning_seconds`

// messages returns a conversation's messages in the order they were added.
func messages(tx *sql.Tx, convID int64) ([]Message, error) {
	rows, err := tx.Query(`SELECT `+msgColumns+` FROM messages WHERE conversation_id = ? ORDER BY id`, convID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Message
	for rows.Next() {
		var m Message
		var created int64
		if err := rows.Scan(&m.ID, &m.ConversationID, &m.Role, &m.Content, &created,
			&m.Tokens, &m.TokensPerSecond, &m.TTFTSeconds, &m.Done,
			&m.Reasoning, &m.ReasoningTokens, &m.ReasoningSeconds); err != nil {
			return nil, err
		}
		m.Created = fromMillis(created)
		out = append(out, m)
	}
	return out, rows.Err()
}

// touch marks a conversation as updated at the given time, or reports ErrNotFound.
func touch(tx *sql.Tx, convID int64, at time.Time) error {
	res, err := tx.Exec(`UPDATE conversations SET updated = ? WHERE id = ?`, at.UnixMilli(), convID)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return fmt.Errorf("conversation %d: %w", convID, ErrNotFound)
	}
	return nil
}

// AddMessage appends a message to a conversation. An "assistant" message
// starts with Done == false: it is the reply being streamed, and the app
// fills it with UpdateMessage and sets Done on the last update. Messages of
// every other role are complete (Done == true) when added.
func (s *Store) AddMessage(convID int64, role, content string) (Message, error) {
	if role == "" {
		return Message{}, errors.New("store: add message: empty role")
	}
	m := Message{ConversationID: convID, Role: role, Content: content, Created: s.stamp(), Done: role != "assistant"}
	err := s.inTx(func(tx *sql.Tx) error {
		if err := touch(tx, convID, m.Created); err != nil {
			return err
		}
		res, err := tx.Exec(`INSERT INTO messages (conversation_id, role, content, created, done) VALUES (?, ?, ?, ?, ?)`,
			convID, role, content, m.Created.UnixMilli(), m.Done)
		if err != nil {
			return err
		}
		m.ID, err = res.LastInsertId()
		return err
	})
	if err != nil {
		return Message{}, fmt.Errorf("store: add message: %w", err)
	}
	return m, nil
}

// UpdateMessage stores m's content, reasoning, statistics and Done flag; m.ID and
// m.ConversationID pick the row, and Role and Created are left as they are.
// Each call is one transaction, so a crash keeps the last completed update.
// The update that ends a reply (Done) is also made durable against a power
// cut: synchronous=NORMAL leaves WAL commits unsynced, and a checkpoint
// syncs the WAL and copies it into the database file.
func (s *Store) UpdateMessage(m Message) error {
	err := s.inTx(func(tx *sql.Tx) error {
		res, err := tx.Exec(`UPDATE messages SET content = ?, tokens = ?, tokens_per_second = ?, ttft_seconds = ?, done = ?,
			reasoning = ?, reasoning_tokens = ?, reasoning_seconds = ?
			WHERE id = ? AND conversation_id = ?`,
			m.Content, m.Tokens, m.TokensPerSecond, m.TTFTSeconds, m.Done,
			m.Reasoning, m.ReasoningTokens, m.ReasoningSeconds, m.ID, m.ConversationID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return fmt.Errorf("message %d of conversation %d: %w", m.ID, m.ConversationID, ErrNotFound)
		}
		return touch(tx, m.ConversationID, s.stamp())
	})
	if err == nil && m.Done {
		_, err = s.db.Exec(`PRAGMA wal_checkpoint(PASSIVE)`)
	}
	if err != nil {
		return fmt.Errorf("store: update message: %w", err)
	}
	return nil
}

// TruncateAfter deletes every message of the conversation that comes after
// messageID, keeping messageID itself: edit a message and resend, or
// regenerate the reply to it.
func (s *Store) TruncateAfter(convID, messageID int64) error {
	err := s.inTx(func(tx *sql.Tx) error {
		var one int
		err := tx.QueryRow(`SELECT 1 FROM messages WHERE id = ? AND conversation_id = ?`, messageID, convID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("message %d of conversation %d: %w", messageID, convID, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if _, err := tx.Exec(`DELETE FROM messages WHERE conversation_id = ? AND id > ?`, convID, messageID); err != nil {
			return err
		}
		return touch(tx, convID, s.stamp())
	})
	if err != nil {
		return fmt.Errorf("store: truncate: %w", err)
	}
	return nil
}
