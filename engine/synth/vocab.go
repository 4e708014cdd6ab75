package synth

import (
	"context"
	"fmt"
	"os"

	"saji/engine/gguf"
)

// WriteMiniVocab writes a GGUF file at path holding only a small SPM
// vocabulary (269 tokens: <unk>, <s>, </s>, the 256 byte tokens and ten
// words), for tests that need a model without a real tokenizer: pass it
// as Options.Vocab. model is its tokenizer.ggml.model ("llama"); with ""
// the key is left out, and no tokenizer accepts the file.
func WriteMiniVocab(ctx context.Context, path, model string) error {
	w, err := MiniVocab(model)
	if err != nil {
		return err
	}
	if err := w.WriteFile(ctx, path); err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	return nil
}

// MiniVocab returns a GGUF writer holding WriteMiniVocab's vocabulary, for
// callers that add keys (a chat template) before writing it. The extra
// tokens follow the ten words, user-defined: the tokenizer keeps them
// whole and writes them as their text (a chat format's markers).
func MiniVocab(model string, extra ...string) (*gguf.Writer, error) {
	tokens := []string{"<unk>", "<s>", "</s>"}
	types := []int32{2, 3, 3}
	for b := range 256 {
		tokens = append(tokens, fmt.Sprintf("<0x%02X>", b))
		types = append(types, 6)
	}
	for _, w := range []string{"▁", "▁a", "▁the", "▁cat", "▁sat", "▁on", "▁mat", "e", "t", "a"} {
		tokens = append(tokens, w)
		types = append(types, 1)
	}
	for _, w := range extra {
		tokens = append(tokens, w)
		types = append(types, 4)
	}
	scores := make([]float32, len(tokens))
	for i := range scores {
		scores[i] = -float32(i)
	}
	w := gguf.NewWriter()
	for _, kv := range []struct {
		k string
		v any
	}{
		{gguf.KeyArchitecture, "llama"},
		{gguf.KeyTokens, tokens},
		{gguf.KeyScores, scores},
		{gguf.KeyTokenType, types},
		{gguf.KeyBOSTokenID, uint32(1)},
		{gguf.KeyEOSTokenID, uint32(2)},
		{gguf.KeyUNKTokenID, uint32(0)},
		{gguf.KeyAddBOSToken, true},
	} {
		if err := w.Set(kv.k, kv.v); err != nil {
			return nil, fmt.Errorf("synth: %w", err)
		}
	}
	if model != "" {
		if err := w.Set(gguf.KeyTokenizerModel, model); err != nil {
			return nil, fmt.Errorf("synth: %w", err)
		}
	}
	return w, nil
}

// WriteTiny writes the "tiny" shape (a 4-layer llama, 256 wide) with the
// mini vocabulary at path, quantized as fileType ("q8_0", "q4_k_m", ...),
// with random weights from seed: a self-contained model for tests that
// run a real forward pass.
func WriteTiny(ctx context.Context, path, fileType string, seed uint64) error {
	return WriteShape(ctx, path, "tiny", fileType, seed)
}

// WriteShape writes the shape called name with the mini vocabulary at
// path, as WriteTiny does for "tiny". The vocabulary file is written
// beside it and removed.
func WriteShape(ctx context.Context, path, name, fileType string, seed uint64) error {
	w, err := MiniVocab("llama")
	if err != nil {
		return err
	}
	return writeWithVocab(ctx, path, name, fileType, w, seed)
}

// WriteChat writes the "tiny" shape quantized as fileType at path with
// the mini vocabulary, the extra tokens (see MiniVocab) and the chat
// template tmpl: a model for tests of a chat format, whose markers
// logit_bias can make it write.
func WriteChat(ctx context.Context, path, fileType, tmpl string, extra []string, seed uint64) error {
	w, err := MiniVocab("llama", extra...)
	if err != nil {
		return err
	}
	if err := w.Set(gguf.KeyChatTemplate, tmpl); err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	return writeWithVocab(ctx, path, "tiny", fileType, w, seed)
}

// ThinkingTemplate is a ChatML template that opens a <think> block in
// its generation prompt unless enable_thinking is false (then it writes an
// empty one), as Qwen3's does, writes reasoning_effort before it when
// set, and writes an assistant turn's reasoning back in a block: with
// WriteChat and the markers as extra tokens, a model that thinks.
const ThinkingTemplate = `{% for m in messages %}<|im_start|>{{ m.role }}
{% if m.reasoning_content %}<think>
{{ m.reasoning_content }}
</think>

{% endif %}{{ m.content }}<|im_end|>
{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant
{% if reasoning_effort is defined %}effort {{ reasoning_effort }}
{% endif %}{% if enable_thinking is defined and enable_thinking is false %}<think>

</think>

{% else %}<think>
{% endif %}{% endif %}`

// writeWithVocab writes the shape called name at path with the vocabulary
// of w, written beside it and removed.
func writeWithVocab(ctx context.Context, path, name, fileType string, w *gguf.Writer, seed uint64) error {
	shape, err := LookupShape(name)
	if err != nil {
		return err
	}
	ft, err := ParseFileType(fileType)
	if err != nil {
		return err
	}
	vocab, done, err := openVocab(ctx, w, path)
	if err != nil {
		return err
	}
	defer done()
	return Write(ctx, path, Options{Shape: shape, FileType: ft, Vocab: vocab, Seed: seed, Threads: 2})
}

// openVocab writes the vocabulary writer w beside path and opens it; done
// closes and removes it.
func openVocab(ctx context.Context, w *gguf.Writer, path string) (vocab *gguf.File, done func(), err error) {
	vp := path + ".vocab.gguf"
	if err := w.WriteFile(ctx, vp); err != nil {
		return nil, nil, fmt.Errorf("synth: %w", err)
	}
	if vocab, err = gguf.Open(vp); err != nil {
		os.Remove(vp)
		return nil, nil, fmt.Errorf("synth: %w", err)
	}
	return vocab, func() { vocab.Close(); os.Remove(vp) }, nil
}
