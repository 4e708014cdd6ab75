package synth

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"saji/engine/gguf"
	"saji/kernels/quant"
)

// A scripted model writes a given reply, whatever the prompt: a fixture for
// tests of what a server makes of a reply (reasoning blocks, tool calls,
// JSON), where a random model would only write gibberish. It is a bigram
// model. Each piece of the reply is a token of its own, added to the mini
// vocabulary as a user-defined token so that it decodes verbatim; its
// embedding is a one-hot vector of its own, and every other token shares
// the first dimension. The one layer's attention and feed-forward outputs
// are zero, so the last hidden state is the token's embedding, and the
// output matrix maps each piece's dimension to the next piece (the last to
// the end-of-sequence token) and the shared dimension to the first piece:
// greedy decoding writes the reply from wherever the prompt ends, and so
// does sampling, the margin being 12 logits or more.
//
// When a constraint forbids the next piece, the sampler is left with the
// rest of the vocabulary, which the output matrix ranks as scriptFallback
// says, far enough apart that sampling picks as greedy decoding does.

// Script is a scripted model's reply and chat template.
type Script struct {
	// Reply is the reply, token by token: pieces of text, each distinct
	// and none a token of the mini vocabulary already.
	Reply []string
	// Template is the chat template (tokenizer.chat_template); "" for
	// none.
	Template string
	// Context is the context length the metadata gives (0: 4096).
	Context int
	// Control are tokens added to the vocabulary, which a prompt may hold
	// and the reply never writes: fill-in-the-middle tokens
	// ("<|fim_prefix|>", ..., which the tokenizer makes control tokens),
	// a template's turn markers.
	Control []string
}

// scriptFallback are the tokens a scripted model writes where a
// constraint forbids its reply, with their logits: a string's end, an
// object's and an array's, so that a constrained value closes soon, then
// the end of the sequence; every other token has 0. The byte tokens of
// the mini vocabulary follow <unk>, <s> and </s> (2).
var scriptFallback = []struct {
	token int
	logit float64
}{{3 + '"', 20}, {3 + '}', 18}, {3 + ']', 16}, {2, 14}}

// scriptLogit is the logit of the next piece.
const scriptLogit = 32

// WriteScripted writes a scripted model (see Script) at path.
func WriteScripted(ctx context.Context, path string, s Script) error {
	if len(s.Reply) == 0 {
		return fmt.Errorf("synth: a scripted model needs a reply")
	}
	w, err := MiniVocab("llama", append(slices.Clone(s.Control), s.Reply...)...)
	if err != nil {
		return err
	}
	if s.Template != "" {
		if err := w.Set(gguf.KeyChatTemplate, s.Template); err != nil {
			return fmt.Errorf("synth: %w", err)
		}
	}
	vocab, done, err := openVocab(ctx, w, path)
	if err != nil {
		return err
	}
	defer done()
	words, err := vocab.Tokens()
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	tokens := len(words)
	first := int32(tokens - len(s.Reply)) // the first piece's token
	for i, p := range append(slices.Clone(s.Control), s.Reply...) {
		if p == "" || slices.Index(words, p) != int(first)-len(s.Control)+i {
			return fmt.Errorf("synth: the scripted token %q is empty or not unique", p)
		}
	}

	// One dimension for the prompt's tokens and one for each piece, in
	// rows of a multiple of 32.
	embd := max(64, (len(s.Reply)+1+31)/32*32)
	shape := Shape{Name: "scripted", Arch: "llama", Embd: embd, Layers: 1, Heads: 2, KVHeads: 1, FFN: embd,
		RopeBase: 10000, Context: cmp.Or(s.Context, 4096), Eps: 1e-5}
	out, err := newMeta(Options{Shape: shape, FileType: gguf.FileTypeAllF32, Vocab: vocab}, tokens)
	if err != nil {
		return err
	}
	embed := make([]float32, embd*tokens)
	output := make([]float32, embd*tokens)
	for id := range int32(tokens) {
		dim := 0
		if id >= first {
			dim = int(id-first) + 1
		}
		embed[int(id)*embd+dim] = 1
	}
	// RMSNorm scales a one-hot vector to about √embd: a weight of
	// logit/√embd gives that logit.
	scale := 1 / math.Sqrt(float64(embd))
	for _, f := range scriptFallback {
		row := output[f.token*embd:][:embd]
		for d := range row {
			row[d] = float32(f.logit * scale)
		}
	}
	for dim := range len(s.Reply) + 1 {
		next := first + int32(dim) // the piece after dimension dim's token
		if dim == len(s.Reply) {
			next = 2 // </s>
		}
		output[int(next)*embd+dim] += float32(scriptLogit * scale)
	}
	for _, spec := range shape.Tensors(tokens) {
		n := int64(1)
		for _, d := range spec.Shape {
			n *= d
		}
		data := make([]float32, n)
		switch {
		case spec.Ones:
			for i := range data {
				data[i] = 1
			}
		case spec.Name == "token_embd.weight":
			data = embed
		case spec.Name == "output.weight":
			data = output
		}
		raw := make([]byte, 4*n)
		if err := quant.Quantize(quant.TypeF32, data, raw); err != nil {
			return fmt.Errorf("synth: %w", err)
		}
		if err := out.AddTensor(spec.Name, quant.TypeF32, spec.Shape, raw); err != nil {
			return fmt.Errorf("synth: %w", err)
		}
	}
	if err := out.WriteFile(ctx, path); err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	return nil
}
