package store

import (
	"errors"
	"testing"
)

func TestSetModel(t *testing.T) {
	s, _ := openTest(t)
	c := newConv(t, s, "Chat", "first")
	for _, model := range []string{"second", ""} {
		if err := s.SetModel(c.ID, model); err != nil {
			t.Fatalf("SetModel(%q): %v", model, err)
		}
		got, _, err := s.Conversation(c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Model != model {
			t.Errorf("model %q, want %q", got.Model, model)
		}
	}
	if err := s.SetModel(c.ID+100, "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("SetModel of a missing conversation: %v, want ErrNotFound", err)
	}
}
