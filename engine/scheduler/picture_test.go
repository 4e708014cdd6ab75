package scheduler

import (
	"strings"
	"testing"
)

// TestCheckPictures checks Submit's checks of a prompt's pictures: their
// positions, and only those, hold negative ids, each with its vectors.
func TestCheckPictures(t *testing.T) {
	s := &Scheduler{vocab: 100, embd: 2}
	pic := func(at, n int) Picture { return Picture{At: at, N: n, Embd: make([]float32, 2*n)} }
	tests := []struct {
		name   string
		prompt []int32
		pics   []Picture
		want   string // "" for none
	}{
		{"one picture", []int32{1, -5, -6, 2}, []Picture{pic(1, 2)}, ""},
		{"two pictures", []int32{-5, 3, -6, -7}, []Picture{pic(0, 1), pic(2, 2)}, ""},
		{"a negative token outside", []int32{1, -5, -6, -2}, []Picture{pic(1, 2)}, "outside any picture"},
		{"a token inside", []int32{1, -5, 7, 2}, []Picture{pic(1, 2)}, "not a picture's id"},
		{"no pictures", []int32{1, -5}, nil, "outside any picture"},
		{"past the prompt", []int32{1, -5}, []Picture{pic(1, 2)}, "does not fit"},
		{"too few values", []int32{1, -5, -6}, []Picture{{At: 1, N: 2, Embd: make([]float32, 3)}}, "does not fit"},
		{"out of order", []int32{-1, -2}, []Picture{pic(1, 1), pic(0, 1)}, "picture"},
		{"out of the vocabulary", []int32{100}, nil, "outside the vocabulary"},
	}
	for _, tt := range tests {
		err := s.checkPrompt(Request{Prompt: tt.prompt, Pictures: tt.pics})
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: %v, want an error saying %q", tt.name, err, tt.want)
		}
	}
}

// TestPictureChunk checks that a prefill chunk never ends inside a
// bidirectional picture.
func TestPictureChunk(t *testing.T) {
	pics := []Picture{{At: 4, N: 8, Bidirectional: true}, {At: 20, N: 4}}
	tests := []struct {
		computed, n, want int
	}{
		{0, 3, 3},   // before the picture
		{0, 6, 4},   // cut at its start
		{0, 12, 12}, // ends at its end
		{4, 3, 8},   // starts at it: stretched to its end
		{6, 2, 6},   // starts inside (after a cached block): to its end
		{0, 22, 22}, // ends inside a causal picture
	}
	for _, tt := range tests {
		sq := &seq{req: Request{Pictures: pics}, computed: tt.computed}
		if got := sq.pictureChunk(tt.n); got != tt.want {
			t.Errorf("a chunk of %d from %d: %d tokens, want %d", tt.n, tt.computed, got, tt.want)
		}
	}
}
