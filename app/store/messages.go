package store

import (
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"
)

const msgColumns = `id, conversation_id, role, content, created, tokens, tokens_per_second, ttft_seconds, done,
	reasoning, reasoning_tokens, reasoning_seconds, parent_id, finish, draft_tokens, accepted_tokens`

// allMessages returns every message of a conversation, of every branch,
// in the order they were added.
func allMessages(tx *sql.Tx, convID int64) ([]Message, error) {
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
			&m.Reasoning, &m.ReasoningTokens, &m.ReasoningSeconds, &m.ParentID, &m.Finish, &m.DraftTokens, &m.AcceptedTokens); err != nil {
			return nil, err
		}
		m.Created = fromMillis(created)
		out = append(out, m)
	}
	return out, rows.Err()
}

// leafOf returns the last message of the branch the conversation shows:
// its leaf_id while that message exists, else the newest message (0 for
// none). all is allMessages' answer.
func leafOf(tx *sql.Tx, convID int64, all []Message) (int64, error) {
	var leaf int64
	if err := tx.QueryRow(`SELECT leaf_id FROM conversations WHERE id = ?`, convID).Scan(&leaf); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return 0, fmt.Errorf("conversation %d: %w", convID, ErrNotFound)
		}
		return 0, err
	}
	for _, m := range all {
		if m.ID == leaf {
			return leaf, nil
		}
	}
	if len(all) == 0 {
		return 0, nil
	}
	return all[len(all)-1].ID, nil
}

// messages returns the branch a conversation shows, first message first,
// each message with its versions (Version, Versions, Siblings).
func messages(tx *sql.Tx, convID int64) ([]Message, error) {
	all, err := allMessages(tx, convID)
	if err != nil {
		return nil, err
	}
	leaf, err := leafOf(tx, convID, all)
	if err != nil {
		return nil, err
	}
	out := branch(all, leaf)
	if err := loadImages(tx, convID, out); err != nil {
		return nil, err
	}
	return out, nil
}

// loadImages sets the Images of msgs, messages of conversation convID.
func loadImages(tx *sql.Tx, convID int64, msgs []Message) error {
	rows, err := tx.Query(`SELECT i.message_id, i.data FROM images i JOIN messages m ON m.id = i.message_id
		WHERE m.conversation_id = ? ORDER BY i.id`, convID)
	if err != nil {
		return err
	}
	defer rows.Close()
	at := make(map[int64]int, len(msgs))
	for i, m := range msgs {
		at[m.ID] = i
	}
	for rows.Next() {
		var id int64
		var data []byte
		if err := rows.Scan(&id, &data); err != nil {
			return err
		}
		if i, ok := at[id]; ok {
			msgs[i].Images = append(msgs[i].Images, data)
		}
	}
	return rows.Err()
}

// branch returns the messages from the first to leaf, following parents,
// with their versions: the messages of all with the same parent and role.
func branch(all []Message, leaf int64) []Message {
	byID := make(map[int64]int, len(all))
	for i, m := range all {
		byID[m.ID] = i
	}
	var out []Message
	for id := leaf; id != 0; {
		i, ok := byID[id]
		if !ok || len(out) > len(all) { // a broken or looping chain ends here
			break
		}
		out = append(out, all[i])
		id = all[i].ParentID
	}
	slices.Reverse(out)
	for i := range out {
		m := &out[i]
		for _, o := range all {
			if o.ParentID == m.ParentID && o.Role == m.Role {
				m.Siblings = append(m.Siblings, o.ID)
				if o.ID == m.ID {
					m.Version = len(m.Siblings)
				}
			}
		}
		m.Versions = len(m.Siblings)
	}
	return out
}

// newestLeaf returns the end of the newest branch under id: from id, the
// newest child, then its newest child, and so on.
func newestLeaf(all []Message, id int64) int64 {
	for {
		next := int64(0)
		for _, m := range all {
			if m.ParentID == id && m.ID > next {
				next = m.ID
			}
		}
		if next == 0 {
			return id
		}
		id = next
	}
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

// AddMessage appends a message to the branch a conversation shows. An
// "assistant" message starts with Done == false: it is the reply being
// streamed, and the app fills it with UpdateMessage and sets Done on the
// last update. Messages of every other role are complete (Done == true)
// when added. A message may carry pictures (images: each one's encoded
// file).
func (s *Store) AddMessage(convID int64, role, content string, images ...[]byte) (Message, error) {
	return s.addMessage(convID, -1, role, content, images)
}

// AddMessageAfter adds a message that follows parentID (0: a new first
// message) and shows its branch: after the user message before it, a
// reply is a new version of the reply to it (Regenerate); after the
// message before an edited one, a new version of that message (Edit).
// Done and images are as for AddMessage.
func (s *Store) AddMessageAfter(convID, parentID int64, role, content string, images ...[]byte) (Message, error) {
	if parentID < 0 {
		return Message{}, fmt.Errorf("store: add message: negative parent %d", parentID)
	}
	return s.addMessage(convID, parentID, role, content, images)
}

// addMessage adds a message with its images after parent (-1: after the
// leaf) and makes it the leaf.
func (s *Store) addMessage(convID, parent int64, role, content string, images [][]byte) (Message, error) {
	if role == "" {
		return Message{}, errors.New("store: add message: empty role")
	}
	m := Message{ConversationID: convID, Role: role, Content: content, Created: s.stamp(), Done: role != "assistant", Images: images}
	err := s.inTx(func(tx *sql.Tx) error {
		if err := touch(tx, convID, m.Created); err != nil {
			return err
		}
		if parent < 0 {
			all, err := allMessages(tx, convID)
			if err != nil {
				return err
			}
			if parent, err = leafOf(tx, convID, all); err != nil {
				return err
			}
		} else if parent > 0 {
			var one int
			err := tx.QueryRow(`SELECT 1 FROM messages WHERE id = ? AND conversation_id = ?`, parent, convID).Scan(&one)
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("message %d of conversation %d: %w", parent, convID, ErrNotFound)
			}
			if err != nil {
				return err
			}
		}
		m.ParentID = parent
		res, err := tx.Exec(`INSERT INTO messages (conversation_id, role, content, created, done, parent_id) VALUES (?, ?, ?, ?, ?, ?)`,
			convID, role, content, m.Created.UnixMilli(), m.Done, parent)
		if err != nil {
			return err
		}
		if m.ID, err = res.LastInsertId(); err != nil {
			return err
		}
		for _, data := range images {
			if _, err := tx.Exec(`INSERT INTO images (message_id, data) VALUES (?, ?)`, m.ID, data); err != nil {
				return err
			}
		}
		_, err = tx.Exec(`UPDATE conversations SET leaf_id = ? WHERE id = ?`, m.ID, convID)
		return err
	})
	if err != nil {
		return Message{}, fmt.Errorf("store: add message: %w", err)
	}
	m.Version, m.Versions, m.Siblings = 1, 1, []int64{m.ID}
	return m, nil
}

// ShowVersion makes the conversation show the branch through message id:
// id, then the newest message after it, and so on (the ‹ › of a reply's
// or message's versions).
func (s *Store) ShowVersion(convID, id int64) error {
	err := s.inTx(func(tx *sql.Tx) error {
		all, err := allMessages(tx, convID)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(all, func(m Message) bool { return m.ID == id }) {
			return fmt.Errorf("message %d of conversation %d: %w", id, convID, ErrNotFound)
		}
		_, err = tx.Exec(`UPDATE conversations SET leaf_id = ? WHERE id = ?`, newestLeaf(all, id), convID)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: show version: %w", err)
	}
	return nil
}

// DeleteMessage deletes message id and every message after it in any
// branch; the conversation then shows the newest branch left after its
// parent (a failed reply goes, an older version of it shows).
func (s *Store) DeleteMessage(convID, id int64) error {
	err := s.inTx(func(tx *sql.Tx) error {
		all, err := allMessages(tx, convID)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(all, func(m Message) bool { return m.ID == id })
		if i < 0 {
			return fmt.Errorf("message %d of conversation %d: %w", id, convID, ErrNotFound)
		}
		parent := all[i].ParentID
		gone := map[int64]bool{id: true}
		for _, m := range all { // ids grow: a parent comes before its children
			if gone[m.ParentID] {
				gone[m.ID] = true
			}
		}
		var left []Message
		for _, m := range all {
			if gone[m.ID] {
				if _, err := tx.Exec(`DELETE FROM messages WHERE id = ?`, m.ID); err != nil {
					return err
				}
			} else {
				left = append(left, m)
			}
		}
		leaf := int64(0)
		if parent != 0 || len(left) > 0 {
			leaf = newestLeaf(left, parent)
		}
		if _, err := tx.Exec(`UPDATE conversations SET leaf_id = ? WHERE id = ?`, leaf, convID); err != nil {
			return err
		}
		return touch(tx, convID, s.stamp())
	})
	if err != nil {
		return fmt.Errorf("store: delete message: %w", err)
	}
	return nil
}

// UpdateMessage stores m's content, reasoning, statistics (drafts too), Finish and Done flag; m.ID and
// m.ConversationID pick the row, and Role and Created are left as they are.
// Each call is one transaction, so a crash keeps the last completed update.
// The update that ends a reply (Done) is also made durable against a power
// cut: synchronous=NORMAL leaves WAL commits unsynced, and a checkpoint
// syncs the WAL and copies it into the database file.
func (s *Store) UpdateMessage(m Message) error {
	err := s.inTx(func(tx *sql.Tx) error {
		res, err := tx.Exec(`UPDATE messages SET content = ?, tokens = ?, tokens_per_second = ?, ttft_seconds = ?, done = ?,
			reasoning = ?, reasoning_tokens = ?, reasoning_seconds = ?, finish = ?, draft_tokens = ?, accepted_tokens = ?
			WHERE id = ? AND conversation_id = ?`,
			m.Content, m.Tokens, m.TokensPerSecond, m.TTFTSeconds, m.Done,
			m.Reasoning, m.ReasoningTokens, m.ReasoningSeconds, m.Finish, m.DraftTokens, m.AcceptedTokens, m.ID, m.ConversationID)
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
