package g4vocab

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
)

// TestBuild checks the vocabulary's layout: the special tokens first, the
// 256 byte tokens, newline runs no merge builds, every merge's result a
// token, and the same vocabulary on every call (the recorded figures
// depend on it).
func TestBuild(t *testing.T) {
	tokens, types, merges := build()
	if len(tokens) != 470 || len(types) != len(tokens) || len(merges) == 0 {
		t.Fatalf("%d tokens, %d types, %d merges; the figures were recorded for 470 tokens", len(tokens), len(types), len(merges))
	}
	if tokens[BOS] != "<bos>" || tokens[EOS] != "<eos>" || tokens[UNK] != "<unk>" || tokens[PAD] != "<pad>" {
		t.Errorf("special tokens %q", tokens[:4])
	}
	if i := slices.Index(tokens, "<0x0A>"); i < 0 || types[i] != typeByte {
		t.Errorf("<0x0A> at %d", i)
	}
	for _, m := range merges {
		l, r, _ := strings.Cut(m, " ")
		if !slices.Contains(tokens, l+r) {
			t.Errorf("merge %q makes no token", m)
		}
		if strings.Contains(l+r, "\n") {
			t.Errorf("merge %q builds a newline run", m)
		}
	}
	var a, b bytes.Buffer
	for _, buf := range []*bytes.Buffer{&a, &b} {
		w, err := Writer()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Encode(context.Background(), buf); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two calls wrote different files")
	}
}
