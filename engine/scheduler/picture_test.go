package scheduler

import (
	"slices"
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
		{"on its grid", []int32{1, -5, -6, -7, -8, -9, -10}, []Picture{{At: 1, N: 6, Embd: make([]float32, 12), Rows: 2, Cols: 3}}, ""},
		{"off its grid", []int32{1, -5, -6, -7, -8, -9, -10}, []Picture{{At: 1, N: 6, Embd: make([]float32, 12), Rows: 2, Cols: 2}}, "on a grid of 2×2"},
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

// TestTail checks where a prompt's last prefill chunk starts, which is as
// far as the prefix cache matches it: a prompt without pictures is not
// cut; one with pictures at the last block boundary before its last token
// (its last token when that starts a block), or before a bidirectional
// picture that the boundary would cut.
func TestTail(t *testing.T) {
	s := &Scheduler{cfg: Config{BlockSize: 16}}
	pic := func(at, n int, bi bool) Picture { return Picture{At: at, N: n, Bidirectional: bi} }
	tests := []struct {
		name    string
		n       int // tokens
		pics    []Picture
		want    int
		aligned []int // alignChunk's chunk lengths from position 0 with a budget of 128
	}{
		{"no pictures", 95, nil, 95, []int{95}},
		{"a picture before the boundary", 95, []Picture{pic(44, 16, true)}, 80, []int{80, 15}},
		{"a whole last block", 96, []Picture{pic(44, 16, true)}, 95, []int{95, 1}},
		{"a short prompt", 10, []Picture{pic(1, 4, true)}, 0, []int{10}},
		{"a bidirectional picture across the boundary", 90, []Picture{pic(70, 16, true)}, 64, []int{64, 26}},
		{"a causal picture across the boundary", 90, []Picture{pic(70, 16, false)}, 80, []int{80, 10}},
		{"a picture from the boundary", 90, []Picture{pic(80, 4, true)}, 80, []int{80, 10}},
		{"two pictures", 200, []Picture{pic(30, 20, true), pic(180, 16, true)}, 176, []int{128, 48, 24}},
	}
	for _, tt := range tests {
		sq := &seq{tokens: make([]int32, tt.n), req: Request{Pictures: tt.pics}}
		if got := s.tail(sq); got != tt.want {
			t.Errorf("%s: tail %d, want %d", tt.name, got, tt.want)
		}
		var chunks []int
		for sq.computed < tt.n {
			c := s.alignChunk(sq, min(tt.n-sq.computed, 128))
			chunks = append(chunks, c)
			sq.computed += c
		}
		if !slices.Equal(chunks, tt.aligned) {
			t.Errorf("%s: chunks %v, want %v", tt.name, chunks, tt.aligned)
		}
	}
}

// TestRotation checks the M-RoPE positions of a prompt's tokens: two
// text tokens, a picture of 2 × 3 (taking 3 time positions for its 6
// tokens), a token, a picture of 3 × 1 (3 for 3), and the text after
// them; then a picture off any grid (its tokens in turn).
func TestRotation(t *testing.T) {
	pics := []Picture{{At: 2, N: 6, Rows: 2, Cols: 3}, {At: 9, N: 3, Rows: 3, Cols: 1}}
	sq := &seq{req: Request{Pictures: pics}}
	want := [][4]int32{
		{0, 0, 0, 0}, {1, 1, 1, 0},
		{2, 2, 2, 0}, {2, 2, 3, 0}, {2, 2, 4, 0}, {2, 3, 2, 0}, {2, 3, 3, 0}, {2, 3, 4, 0},
		{5, 5, 5, 0},
		{6, 6, 6, 0}, {6, 7, 6, 0}, {6, 8, 6, 0},
		{9, 9, 9, 0}, {10, 10, 10, 0},
	}
	for p, w := range want {
		if got := sq.rotation(p); got != w {
			t.Errorf("position %d turns by %v, want %v", p, got, w)
		}
	}
	// A picture without a grid keeps its tokens' positions, and so do the
	// gridded pictures after it (mtmd gives every picture of a model the
	// same kind of positions).
	sq = &seq{req: Request{Pictures: []Picture{{At: 1, N: 4}}}}
	if got := sq.rotation(3); got != [4]int32{3, 3, 3, 0} {
		t.Errorf("a token of a picture off any grid turns by %v", got)
	}
}
