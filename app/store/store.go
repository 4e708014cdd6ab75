// Package store keeps the desktop chat's conversations in an embedded SQLite
// database (modernc.org/sqlite, pure Go) and exports them as Markdown or JSON.
//
// The database runs in WAL mode and every change is one transaction, so a
// crash in the middle of a streamed reply leaves the file intact with every
// update committed before the crash. A reply that was still streaming keeps
// Done == false; the app can show it as interrupted.
//
// Package store is plain Go and never imports fyne, so it is tested headless.
package store

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// ErrNotFound is returned (wrapped) when a conversation or message does not exist.
var ErrNotFound = errors.New("store: not found")

// busyTimeoutMS is how long a connection waits for another writer (in this
// process or another one) before it gives up with SQLITE_BUSY.
const busyTimeoutMS = 10000

// migrations lists the schema changes in order; migrations[i] moves the
// database from PRAGMA user_version i to i+1. Append, never edit.
var migrations = []string{
	`CREATE TABLE conversations (
		id          INTEGER PRIMARY KEY,
		title       TEXT    NOT NULL,
		model       TEXT    NOT NULL DEFAULT '',
		system      TEXT    NOT NULL DEFAULT '',
		temperature REAL    NOT NULL DEFAULT 0,
		top_p       REAL    NOT NULL DEFAULT 0,
		max_tokens  INTEGER NOT NULL DEFAULT 0,
		context     INTEGER NOT NULL DEFAULT 0,
		created     INTEGER NOT NULL,
		updated     INTEGER NOT NULL
	);
	CREATE INDEX conversations_updated ON conversations(updated DESC, id DESC);
	CREATE TABLE messages (
		id                INTEGER PRIMARY KEY,
		conversation_id   INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
		role              TEXT    NOT NULL,
		content           TEXT    NOT NULL,
		created           INTEGER NOT NULL,
		tokens            INTEGER NOT NULL DEFAULT 0,
		tokens_per_second REAL    NOT NULL DEFAULT 0,
		ttft_seconds      REAL    NOT NULL DEFAULT 0,
		done              INTEGER NOT NULL DEFAULT 1
	);
	CREATE INDEX messages_conversation ON messages(conversation_id, id);`,
	// A reply's reasoning (a thinking model's thoughts before the answer),
	// how many tokens it took and how long.
	`ALTER TABLE messages ADD COLUMN reasoning TEXT NOT NULL DEFAULT '';
	ALTER TABLE messages ADD COLUMN reasoning_tokens INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE messages ADD COLUMN reasoning_seconds REAL NOT NULL DEFAULT 0;`,
	// Versions and branches: each message follows its parent (0: the
	// first), a regenerated reply or an edited message is a sibling of
	// the one it replaces, and a conversation shows the branch that ends
	// at its leaf (0: the newest message). The messages of a database
	// from before are one branch, each following the one before it. A
	// reply also keeps why it ended (finish).
	`ALTER TABLE messages ADD COLUMN parent_id INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE messages ADD COLUMN finish TEXT NOT NULL DEFAULT '';
	ALTER TABLE conversations ADD COLUMN leaf_id INTEGER NOT NULL DEFAULT 0;
	UPDATE messages SET parent_id = COALESCE((SELECT MAX(p.id) FROM messages p
		WHERE p.conversation_id = messages.conversation_id AND p.id < messages.id), 0);
	CREATE INDEX messages_parent ON messages(conversation_id, parent_id);`,
	// The pictures a message carries (their files' bytes), in order; they
	// go with their message.
	`CREATE TABLE images (
		id         INTEGER PRIMARY KEY,
		message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
		data       BLOB    NOT NULL
	);
	CREATE INDEX images_message ON images(message_id, id);`,
	// Speculative decoding: the draft tokens a reply's model checked and
	// how many of them it kept.
	`ALTER TABLE messages ADD COLUMN draft_tokens INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE messages ADD COLUMN accepted_tokens INTEGER NOT NULL DEFAULT 0;`,
}

// Store is an open conversation database. Its methods are safe for
// concurrent use by several goroutines.
type Store struct {
	db  *sql.DB
	now func() time.Time // the clock; tests replace it for golden output
}

// Open opens (creating if needed) the database at path and brings its schema
// up to date. The directory of path must exist.
func Open(path string) (*Store, error) {
	dsn, err := dsnFor(path)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	s := &Store{db: db, now: time.Now}
	if err := s.init(); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	return s, nil
}

// dsnFor turns a file path into a SQLite URI that sets the per-connection
// pragmas on every connection of the pool. The URI form keeps a '?' or '#'
// in the path from being read as the start of the parameters.
func dsnFor(path string) (string, error) {
	if path == "" {
		return "", errors.New("store: empty database path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("store: %w", err)
	}
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") { // Windows: C:/... becomes /C:/...
		p = "/" + p
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeoutMS))
	q.Add("_pragma", "foreign_keys(1)")
	// NORMAL is crash-safe in WAL mode: an application crash loses nothing
	// committed; only a power cut can lose the last transactions.
	q.Add("_pragma", "synchronous(NORMAL)")
	// Writers take the lock when the transaction begins, so two writers
	// wait for each other (busy_timeout) instead of failing on upgrade.
	q.Set("_txlock", "immediate")
	u := url.URL{Scheme: "file", Path: p, RawQuery: q.Encode()}
	return u.String(), nil
}

// init switches the file to WAL and runs the pending migrations.
func (s *Store) init() error {
	var mode string
	if err := s.db.QueryRow(`PRAGMA journal_mode=WAL`).Scan(&mode); err != nil {
		return fmt.Errorf("journal mode: %w", err)
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("journal mode is %q, want wal", mode)
	}
	return s.migrate()
}

// migrate applies migrations one transaction each, recording progress in
// PRAGMA user_version. A database newer than this program is refused.
func (s *Store) migrate() error {
	for {
		done, err := s.migrateOne()
		if err != nil || done {
			return err
		}
	}
}

// migrateOne applies the next pending migration, or reports done when none is left.
func (s *Store) migrateOne() (done bool, err error) {
	tx, err := s.db.Begin()
	if err != nil {
		return false, fmt.Errorf("migrate: %w", err)
	}
	defer tx.Rollback()
	var v int
	if err := tx.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		return false, fmt.Errorf("migrate: schema version: %w", err)
	}
	switch {
	case v == len(migrations):
		return true, nil
	case v > len(migrations) || v < 0:
		return false, fmt.Errorf("migrate: database schema version %d is newer than this program's %d", v, len(migrations))
	}
	if _, err := tx.Exec(migrations[v]); err != nil {
		return false, fmt.Errorf("migrate to version %d: %w", v+1, err)
	}
	// PRAGMA takes no bound parameters; v is an int we control.
	if _, err := tx.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, v+1)); err != nil {
		return false, fmt.Errorf("migrate to version %d: %w", v+1, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("migrate to version %d: %w", v+1, err)
	}
	return false, nil
}

// Close closes the database. Committed data is already on disk.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("store: close: %w", err)
	}
	return nil
}

// stamp returns the current time as stored: UTC, millisecond precision.
func (s *Store) stamp() time.Time {
	return fromMillis(s.now().UnixMilli())
}

func fromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// inTx runs fn in one write transaction and commits it when fn succeeds.
func (s *Store) inTx(fn func(tx *sql.Tx) error) error {
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}
