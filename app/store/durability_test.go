package store

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "chats.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	c := newConv(t, s, "kept", "m")
	addMsg(t, s, c.ID, "user", "persisted?")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := openAt(t, path)
	got, msgs := must2(t, s2, c.ID)
	if got.Title != "kept" || len(msgs) != 1 || msgs[0].Content != "persisted?" {
		t.Errorf("after reopen: %+v %+v", got, msgs)
	}
}

// TestCrashMidReply leaves a reply half streamed and reads the file the way
// the next start of the app would, without closing the first Store.
func TestCrashMidReply(t *testing.T) {
	tests := []struct {
		name string
		// reopen returns the path to open after the "crash".
		reopen func(t *testing.T, path string) string
	}{
		{"second store on the same file", func(t *testing.T, path string) string { return path }},
		{"copy of db and wal files", func(t *testing.T, path string) string {
			dst := filepath.Join(t.TempDir(), "copy.db")
			for _, suffix := range []string{"", "-wal"} {
				b, err := os.ReadFile(path + suffix)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(dst+suffix, b, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			return dst
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, path := openTest(t) // closed only by Cleanup, after the check
			c := newConv(t, s, "crash", "m")
			addMsg(t, s, c.ID, "user", "tell me a story")
			a := addMsg(t, s, c.ID, "assistant", "")
			for _, part := range []string{"Once", "Once upon", "Once upon a time"} {
				a.Content, a.Tokens = part, len(part)
				if err := s.UpdateMessage(a); err != nil {
					t.Fatal(err)
				}
			}

			s2 := openAt(t, tt.reopen(t, path))
			var check string
			if err := s2.db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
				t.Fatalf("integrity_check = %q, %v", check, err)
			}
			_, msgs := must2(t, s2, c.ID)
			if len(msgs) != 2 {
				t.Fatalf("messages = %+v", msgs)
			}
			if m := msgs[1]; m.Content != "Once upon a time" || m.Done || m.Tokens != len(m.Content) {
				t.Errorf("interrupted reply = %+v, want last update with Done false", m)
			}
		})
	}
}

func userVersion(t *testing.T, db *sql.DB) int {
	t.Helper()
	var v int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestMigrations(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(t *testing.T, path string)
		wantErr bool
	}{
		{"missing file", func(t *testing.T, path string) {}, false},
		{"empty file", func(t *testing.T, path string) {
			if err := os.WriteFile(path, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"already current", func(t *testing.T, path string) {
			s, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
		}, false},
		{"newer than this program", func(t *testing.T, path string) {
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, len(migrations)+1)); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"first schema, with a reply", func(t *testing.T, path string) {
			// A database of the first release: its messages gain the
			// reasoning columns empty.
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for _, q := range []string{migrations[0], `PRAGMA user_version = 1`,
				`INSERT INTO conversations (title, created, updated) VALUES ('old', 1, 1)`,
				`INSERT INTO messages (conversation_id, role, content, created) VALUES (1, 'assistant', 'hi', 1)`} {
				if _, err := db.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
		}, false},
		{"not a database", func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte("this is not a SQLite file, it is some text long enough to be a header....."), 0o600); err != nil {
				t.Fatal(err)
			}
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "chats.db")
			tt.prepare(t, path)
			s, err := Open(path)
			if tt.wantErr {
				if err == nil {
					s.Close()
					t.Fatal("Open: no error")
				}
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer s.Close()
			if v := userVersion(t, s.db); v != len(migrations) {
				t.Errorf("user_version = %d, want %d", v, len(migrations))
			}
			var mode string
			if err := s.db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
				t.Errorf("journal_mode = %q, %v", mode, err)
			}
			var fk int
			if err := s.db.QueryRow(`PRAGMA foreign_keys`).Scan(&fk); err != nil || fk != 1 {
				t.Errorf("foreign_keys = %d, %v", fk, err)
			}
			if _, err := s.NewConversation("works", ""); err != nil {
				t.Error(err)
			}
			if c, msgs, err := s.Conversation(1); err == nil && c.Title == "old" && (len(msgs) != 1 || msgs[0].Content != "hi" || msgs[0].Reasoning != "") {
				t.Errorf("old messages after the migrations: %+v", msgs)
			}
		})
	}
}

func TestOddPaths(t *testing.T) {
	for _, name := range []string{"with space.db", "what?.db", "hash#percent%.db"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			s, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, err := os.Stat(path); err != nil {
				t.Errorf("database not at %q: %v", path, err)
			}
		})
	}
	if _, err := Open(""); err == nil {
		t.Error("Open(\"\"): no error")
	}
}

func TestConcurrentWriters(t *testing.T) {
	s, path := openTest(t)
	s2 := openAt(t, path) // a second handle writes too, as a second process would
	shared := newConv(t, s, "shared", "")
	const workers, perWorker = 6, 15
	var wg sync.WaitGroup
	errs := make(chan error, workers*perWorker*3)
	for w := range workers {
		st := []*Store{s, s2}[w%2]
		wg.Go(func() {
			own, err := st.NewConversation(fmt.Sprint("worker ", w), "")
			if err != nil {
				errs <- err
				return
			}
			for i := range perWorker {
				if _, err := st.AddMessage(shared.ID, "user", fmt.Sprint(w, "/", i)); err != nil {
					errs <- err
				}
				m, err := st.AddMessage(own.ID, "assistant", "")
				if err != nil {
					errs <- err
					continue
				}
				m.Content, m.Done = fmt.Sprint(i), true
				if err := st.UpdateMessage(m); err != nil {
					errs <- err
				}
				if _, err := st.Conversations("worker"); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	_, msgs := must2(t, s, shared.ID)
	if len(msgs) != workers*perWorker {
		t.Errorf("shared conversation has %d messages, want %d", len(msgs), workers*perWorker)
	}
	cs, err := s.Conversations("")
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != workers+1 {
		t.Errorf("%d conversations, want %d", len(cs), workers+1)
	}
}

// TestReplyEndDurable checks that a finished reply is in the database
// file itself, not only in its write-ahead log (which a power cut can
// lose under synchronous=NORMAL): a copy of the file alone has it.
func TestReplyEndDurable(t *testing.T) {
	s, path := openTest(t)
	c := newConv(t, s, "durable", "")
	a := addMsg(t, s, c.ID, "assistant", "")
	a.Content, a.Done = "the whole reply", true
	if err := s.UpdateMessage(a); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(t.TempDir(), "copy.db")
	if err := os.WriteFile(cp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	s2 := openAt(t, cp)
	if _, msgs := must2(t, s2, c.ID); len(msgs) != 1 || msgs[0].Content != "the whole reply" || !msgs[0].Done {
		t.Errorf("the database file without its log holds %+v", msgs)
	}
}

// BenchmarkUpdateMessage is the cost of saving a streaming reply's text
// (streaming) and of its last, durable update (done).
func BenchmarkUpdateMessage(b *testing.B) {
	for _, done := range []bool{false, true} {
		name := "streaming"
		if done {
			name = "done"
		}
		b.Run(name, func(b *testing.B) {
			s, err := Open(filepath.Join(b.TempDir(), "chats.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			c, err := s.NewConversation("bench", "")
			if err != nil {
				b.Fatal(err)
			}
			m, err := s.AddMessage(c.ID, "assistant", "")
			if err != nil {
				b.Fatal(err)
			}
			m.Content, m.Done = strings.Repeat("a reply of a few hundred words ", 60), done
			for b.Loop() {
				if err := s.UpdateMessage(m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
