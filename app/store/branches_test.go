package store

import (
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"testing"
)

// contents returns the contents of msgs, in order.
func contents(msgs []Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Content)
	}
	return out
}

// shown returns the branch conversation id shows.
func shown(t *testing.T, s *Store, id int64) []Message {
	t.Helper()
	_, msgs, err := s.Conversation(id)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

// TestVersionsAndBranches regenerates a reply and edits a message: each
// makes a version that the conversation shows while the old one stays
// reachable with ShowVersion, and DeleteMessage takes a branch away.
func TestVersionsAndBranches(t *testing.T) {
	s, _ := openTest(t)
	c, err := s.NewConversation("t", "m")
	if err != nil {
		t.Fatal(err)
	}
	u1 := addMsg(t, s, c.ID, "user", "hi")
	a1 := addMsg(t, s, c.ID, "assistant", "hello")
	// Regenerate: a second reply to u1.
	a2, err := s.AddMessageAfter(c.ID, u1.ID, "assistant", "hey")
	if err != nil {
		t.Fatal(err)
	}
	msgs := shown(t, s, c.ID)
	if got := contents(msgs); !slices.Equal(got, []string{"hi", "hey"}) {
		t.Fatalf("after regenerating: %q", got)
	}
	if r := msgs[1]; r.Version != 2 || r.Versions != 2 || !slices.Equal(r.Siblings, []int64{a1.ID, a2.ID}) {
		t.Errorf("versions of the reply: %d of %d, %v", r.Version, r.Versions, r.Siblings)
	}
	if err := s.ShowVersion(c.ID, a1.ID); err != nil {
		t.Fatal(err)
	}
	if got := contents(shown(t, s, c.ID)); !slices.Equal(got, []string{"hi", "hello"}) {
		t.Fatalf("the first version: %q", got)
	}
	// A message added goes after the branch shown.
	u2 := addMsg(t, s, c.ID, "user", "more")
	addMsg(t, s, c.ID, "assistant", "sure")
	if got := contents(shown(t, s, c.ID)); !slices.Equal(got, []string{"hi", "hello", "more", "sure"}) {
		t.Fatalf("continued: %q", got)
	}
	// Edit the first message: a new branch from the start.
	e1, err := s.AddMessageAfter(c.ID, 0, "user", "hi there")
	if err != nil {
		t.Fatal(err)
	}
	addMsg(t, s, c.ID, "assistant", "welcome")
	msgs = shown(t, s, c.ID)
	if got := contents(msgs); !slices.Equal(got, []string{"hi there", "welcome"}) || msgs[0].Version != 2 {
		t.Fatalf("edited: %q, version %d", got, msgs[0].Version)
	}
	// Back to the old first message: its newest branch shows.
	if err := s.ShowVersion(c.ID, u1.ID); err != nil {
		t.Fatal(err)
	}
	if got := contents(shown(t, s, c.ID)); !slices.Equal(got, []string{"hi", "hey"}) {
		t.Fatalf("the old branch: %q", got)
	}
	// Deleting a message takes what follows it; an older version shows.
	if err := s.ShowVersion(c.ID, a2.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteMessage(c.ID, a2.ID); err != nil {
		t.Fatal(err)
	}
	if got := contents(shown(t, s, c.ID)); !slices.Equal(got, []string{"hi", "hello", "more", "sure"}) {
		t.Fatalf("after deleting the second reply: %q", got)
	}
	if err := s.DeleteMessage(c.ID, u2.ID); err != nil {
		t.Fatal(err)
	}
	if got := contents(shown(t, s, c.ID)); !slices.Equal(got, []string{"hi", "hello"}) {
		t.Fatalf("after deleting a turn: %q", got)
	}
	if err := s.ShowVersion(c.ID, e1.ID); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []error{
		s.ShowVersion(c.ID, 999),
		s.DeleteMessage(c.ID, 999),
		func() error { _, err := s.AddMessageAfter(c.ID, 999, "user", "x"); return err }(),
	} {
		if !errors.Is(bad, ErrNotFound) {
			t.Errorf("unknown message: %v", bad)
		}
	}
	// The finish reason is kept.
	a := addMsg(t, s, c.ID, "assistant", "")
	a.Content, a.Done, a.Finish = "cut", true, FinishLength
	if err := s.UpdateMessage(a); err != nil {
		t.Fatal(err)
	}
	if msgs := shown(t, s, c.ID); msgs[len(msgs)-1].Finish != FinishLength {
		t.Errorf("finish %q", msgs[len(msgs)-1].Finish)
	}
}

// TestMigrateBranches opens a database of schema 2 with two turns: they
// become one branch, in order, and a regenerated reply is a version.
func TestMigrateBranches(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chats.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{migrations[0], migrations[1], `PRAGMA user_version = 2`,
		`INSERT INTO conversations (title, created, updated) VALUES ('old', 1, 1)`,
		`INSERT INTO messages (conversation_id, role, content, created) VALUES (1, 'user', 'a', 1)`,
		`INSERT INTO messages (conversation_id, role, content, created) VALUES (1, 'assistant', 'b', 2)`,
		`INSERT INTO messages (conversation_id, role, content, created) VALUES (1, 'user', 'c', 3)`,
		`INSERT INTO messages (conversation_id, role, content, created) VALUES (1, 'assistant', 'd', 4)`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	s := openAt(t, path)
	msgs := shown(t, s, 1)
	if got := contents(msgs); !slices.Equal(got, []string{"a", "b", "c", "d"}) {
		t.Fatalf("migrated: %q", got)
	}
	if _, err := s.AddMessageAfter(1, msgs[2].ID, "assistant", "e"); err != nil {
		t.Fatal(err)
	}
	msgs = shown(t, s, 1)
	if got := contents(msgs); !slices.Equal(got, []string{"a", "b", "c", "e"}) || msgs[3].Versions != 2 {
		t.Errorf("regenerated after migrating: %q, %d versions", got, msgs[3].Versions)
	}
}
