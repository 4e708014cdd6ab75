package synth

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"saji/engine/gguf"
	"saji/engine/model"
	"saji/engine/tokenizer"
	"saji/kernels/quant"
)

// TestWriteScripted writes scripted models and checks that greedy decoding
// writes each one's reply, then the end of the sequence, after prompts of
// every kind: none, words, bytes, and one that holds the reply's own
// pieces (a prompt that ends with one continues the reply from there).
func TestWriteScripted(t *testing.T) {
	for _, tt := range []struct {
		name    string
		reply   []string
		control []string
	}{
		{"plain", []string{"Hello", "! How", " can I help?"}, nil},
		{"think", []string{"<think>\n", "The user greets me.", "\n</think>\n\n", "Hello!"}, nil},
		{"hermes", []string{"<tool_call>\n", `{"name": "get_weather", `, `"arguments": {"city": "Paris"}}`, "\n</tool_call>"}, nil},
		{"one", []string{"ok"}, nil},
		{"long", longReply(100), nil},
		{"fim", []string{"return a + b"}, []string{"<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, m := loadScripted(t, Script{Reply: tt.reply, Template: "{{ messages }}", Control: tt.control})
			if tmpl, _ := f.ChatTemplate(); tmpl != "{{ messages }}" {
				t.Errorf("chat template %q", tmpl)
			}
			tok, err := tokenizer.FromGGUF(f)
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Join(tt.reply, "")
			prompts := []string{"", "the cat sat on the mat", "<|im_start|>assistant\n", "¿qué? " + want + " and then?"}
			for _, c := range tt.control {
				id, ok := tok.TokenID(c)
				if !ok || !tok.IsControl(id) {
					t.Errorf("%q is not a control token", c)
				}
				prompts = append(prompts, "def add(a, b):\n"+c)
			}
			for _, prompt := range prompts {
				ids := tok.Encode(prompt, true, true)
				got, end := greedy(t, m, tok, ids, len(tt.reply)+2)
				if got != want || !end {
					t.Errorf("prompt %q: greedy wrote %q (end %v), want %q", prompt, got, end, want)
				}
			}
		})
	}
}

// loadScripted writes the scripted model s and loads it.
func loadScripted(t *testing.T, s Script) (*gguf.File, model.Model) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.gguf")
	if err := WriteScripted(context.Background(), path, s); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	m, err := model.Load(context.Background(), f, model.Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	return f, m
}

// longReply returns a reply of n distinct pieces.
func longReply(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = " w" + strconv.Itoa(i)
	}
	return out
}

// greedy decodes up to n tokens after prompt, always the most likely, and
// returns their text and whether an end-of-generation token ended it.
func greedy(t *testing.T, m model.Model, tok *tokenizer.Tokenizer, prompt []int32, n int) (string, bool) {
	t.Helper()
	cache, err := m.NewCache(len(prompt)+n, quant.TypeF16)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	ids := prompt
	for range n {
		pos := make([]int32, len(ids))
		for i := range pos {
			pos[i] = int32(cache.Len() + i)
		}
		logits, err := m.Forward(context.Background(), ids, pos, cache, false)
		if err != nil {
			t.Fatal(err)
		}
		next := int32(slices.Index(logits, slices.Max(logits)))
		if tok.IsEOG(next) {
			return sb.String(), true
		}
		sb.WriteString(tok.TokenToPiece(next, true))
		ids = []int32{next}
	}
	return sb.String(), false
}

// TestScriptedFallback checks the logits of the tokens a scripted model
// writes where a constraint forbids its reply: '"', '}', ']' and </s>,
// each below the reply's next piece and far above the rest.
func TestScriptedFallback(t *testing.T) {
	_, m := loadScripted(t, Script{Reply: []string{"{\"a\": 1}", "!"}})
	cache, err := m.NewCache(4, quant.TypeF16)
	if err != nil {
		t.Fatal(err)
	}
	logits, err := m.Forward(context.Background(), []int32{1}, []int32{0}, cache, false)
	if err != nil {
		t.Fatal(err)
	}
	next := logits[len(logits)-2] // the reply's first piece
	got := []float32{next, logits[3+'"'], logits[3+'}'], logits[3+']'], logits[2], logits[3+'a']}
	for i, want := range []float32{scriptLogit, 20, 18, 16, 14, 0} {
		if math.Abs(float64(got[i]-want)) > 0.05 { // RMSNorm's epsilon
			t.Errorf("logits (next piece, '\"', '}', ']', </s>, 'a') = %v, want %g at %d", got, want, i)
		}
	}
}

// TestWriteScriptedErrors checks the replies a scripted model cannot have.
func TestWriteScriptedErrors(t *testing.T) {
	for _, s := range []Script{
		{}, {Reply: []string{"a", ""}}, {Reply: []string{"x", "y", "x"}}, {Reply: []string{"▁the"}}, {Reply: []string{"</s>"}},
		{Reply: []string{"x"}, Control: []string{"x"}}, {Reply: []string{"x"}, Control: []string{"<s>"}},
	} {
		path := filepath.Join(t.TempDir(), "m.gguf")
		if err := WriteScripted(context.Background(), path, s); err == nil {
			t.Errorf("%+v: WriteScripted succeeded", s)
		}
	}
}
