package store

import (
	"bytes"
	"testing"
)

func TestMessageImages(t *testing.T) {
	s, path := openTest(t)
	c := newConv(t, s, "Pictures", "m")
	cat, dog := []byte("\x89PNG cat"), []byte("\xff\xd8 dog")
	tests := []struct {
		name   string
		images [][]byte
	}{
		{"none", nil},
		{"one", [][]byte{cat}},
		{"two, in order", [][]byte{dog, cat}},
	}
	for _, tc := range tests {
		m, err := s.AddMessage(c.ID, "user", tc.name, tc.images...)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Images) != len(tc.images) {
			t.Errorf("%s: AddMessage's message has %d images", tc.name, len(m.Images))
		}
		addMsg(t, s, c.ID, "assistant", "seen")
	}
	check := func(s *Store) {
		t.Helper()
		_, msgs, err := s.Conversation(c.ID)
		if err != nil {
			t.Fatal(err)
		}
		for i, tc := range tests {
			got := msgs[2*i].Images
			if len(got) != len(tc.images) {
				t.Fatalf("%s: %d images, want %d", tc.name, len(got), len(tc.images))
			}
			for j := range got {
				if !bytes.Equal(got[j], tc.images[j]) {
					t.Errorf("%s: image %d is %q, want %q", tc.name, j, got[j], tc.images[j])
				}
			}
			if n := len(msgs[2*i+1].Images); n != 0 {
				t.Errorf("%s: the reply has %d images", tc.name, n)
			}
		}
	}
	check(s)
	s.Close()
	s = openAt(t, path) // they stay on disk
	check(s)

	// An edited message keeps its pictures on its own branch; deleting a
	// message deletes its pictures.
	_, msgs, _ := s.Conversation(c.ID)
	edited, err := s.AddMessageAfter(c.ID, msgs[3].ID, "user", "again", cat)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteMessage(c.ID, edited.ID); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.db.QueryRow(`SELECT COUNT(*) FROM images`).Scan(&n); err != nil || n != 3 {
		t.Errorf("%d images left (%v), want 3", n, err)
	}
	if err := s.Delete(c.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.db.QueryRow(`SELECT COUNT(*) FROM images`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d images left after deleting the conversation (%v)", n, err)
	}
}
