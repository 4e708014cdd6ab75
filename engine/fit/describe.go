// Package fit plans how a model runs on a machine: from a GGUF file's
// metadata and tensor table alone (a local file, or the header of a hub
// file read with HTTP Range requests) it sizes the weights per layer, the
// KV cache Saji's scheduler allocates for a context length, the compute
// buffers and the runtime's overhead, and gives a verdict (full GPU,
// partial offload, CPU only, won't fit), the largest context that fits and
// the decode speed the memory bandwidth allows, with the breakdown that
// explains each number.
package fit

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"saji/engine/gguf"
)

// ModelShape is what the planner needs to know about a model, read from
// its GGUF metadata and tensor infos (never its weights).
type ModelShape struct {
	// Arch is general.architecture; Name is general.name ("" if absent).
	Arch string `json:"arch"`
	Name string `json:"name,omitempty"`
	// FileType is the file's general.file_type in words ("Q4_K - Medium").
	FileType string `json:"file_type,omitempty"`
	// Layers is the block count; Heads the query heads.
	Layers int `json:"layers"`
	Heads  int `json:"heads"`
	// KVHeads is the number of key/value heads of each layer (GQA).
	KVHeads []int `json:"kv_heads"`
	// HeadDim and ValueDim are the key and value head lengths.
	HeadDim  int `json:"head_dim"`
	ValueDim int `json:"value_dim"`
	// Embd is the hidden size, FFN the feed-forward size (0 if unknown),
	// Vocab the number of tokens, ContextTrain the training context.
	Embd         int `json:"embd"`
	FFN          int `json:"ffn"`
	Vocab        int `json:"vocab"`
	ContextTrain int `json:"context_train"`
	// SlidingWindow is the attention window of the sliding-window layers
	// (0: none); SWA says which layers use it, as the engine decides.
	SlidingWindow int    `json:"sliding_window,omitempty"`
	SWA           []bool `json:"swa,omitempty"`
	// LayerBytes are the bytes of each block's tensors (blk.N.*).
	LayerBytes []int64 `json:"layer_bytes"`
	// EmbdBytes is token_embd's size; OutputBytes that of the output head
	// and norm and any other tensor outside the blocks. TiedOutput is set
	// when there is no output.weight (the embeddings serve as the head).
	EmbdBytes   int64 `json:"embd_bytes"`
	OutputBytes int64 `json:"output_bytes"`
	TiedOutput  bool  `json:"tied_output,omitempty"`
	// FileSize is the size of the file(s) in bytes.
	FileSize int64 `json:"file_size"`
	// TokenizerEntries counts the vocabulary's tokens and merges, which
	// the tokenizer keeps in memory.
	TokenizerEntries int `json:"tokenizer_entries"`
}

// Describe reads a model's shape from f's metadata and tensor table.
func Describe(f *gguf.File) (ModelShape, error) {
	var s ModelShape
	var err error
	if s.Arch, err = f.Architecture(); err != nil {
		return s, fmt.Errorf("fit: %w", err)
	}
	s.Name, _ = f.Name()
	if ft, err := f.FileType(); err == nil {
		s.FileType = ft.Description()
	}
	layers, err := f.BlockCount()
	if err != nil {
		return s, fmt.Errorf("fit: %w", err)
	}
	if layers == 0 || layers > 1<<16 {
		return s, fmt.Errorf("fit: block count %d is not plausible", layers)
	}
	s.Layers = int(layers)
	embd, err := f.EmbeddingLength()
	if err != nil {
		return s, fmt.Errorf("fit: %w", err)
	}
	s.Embd = int(embd)
	heads, err := f.LayerUints(gguf.KeyHeadCount)
	if err != nil {
		return s, fmt.Errorf("fit: %w", err)
	}
	s.Heads = int(heads[0])
	kv, err := f.LayerUints(gguf.KeyHeadCountKV)
	if errors.Is(err, gguf.ErrNotFound) {
		kv = heads
	} else if err != nil {
		return s, fmt.Errorf("fit: %w", err)
	}
	s.KVHeads = make([]int, s.Layers)
	for i, n := range kv {
		s.KVHeads[i] = int(n)
	}
	if s.Heads <= 0 {
		return s, fmt.Errorf("fit: head count %d is not plausible", s.Heads)
	}
	s.HeadDim = s.Embd / s.Heads
	if v, err := f.KeyLength(); err == nil {
		s.HeadDim = int(v)
	}
	s.ValueDim = s.HeadDim
	if v, err := f.ValueLength(); err == nil {
		s.ValueDim = int(v)
	}
	if v, err := f.ContextLength(); err == nil {
		s.ContextTrain = int(v)
	}
	if v, err := f.FeedForwardLength(); err == nil {
		s.FFN = int(v)
	} else if ffn, err := f.LayerUints(gguf.KeyFeedForwardLength); err == nil {
		s.FFN = int(ffn[0])
	}
	s.describeSWA(f)

	s.LayerBytes = make([]int64, s.Layers)
	output := false
	for _, t := range f.Tensors() {
		switch {
		case strings.HasPrefix(t.Name, "blk."):
			rest := t.Name[len("blk."):]
			n, _, ok := strings.Cut(rest, ".")
			i, err := strconv.Atoi(n)
			if !ok || err != nil || i < 0 || i >= s.Layers {
				return s, fmt.Errorf("fit: tensor %q is outside the model's %d blocks", t.Name, s.Layers)
			}
			s.LayerBytes[i] += t.Size
		case t.Name == "token_embd.weight":
			s.EmbdBytes += t.Size
			if len(t.Shape) >= 2 {
				s.Vocab = int(t.Shape[1])
			}
		default:
			output = output || t.Name == "output.weight"
			s.OutputBytes += t.Size
		}
	}
	s.TiedOutput = !output
	if s.Vocab == 0 {
		if v, err := f.VocabSize(); err == nil {
			s.Vocab = int(v)
		}
	}
	for _, key := range []string{gguf.KeyTokens, gguf.KeyMerges} {
		if v, ok := f.Value(key); ok {
			s.TokenizerEntries += v.Len()
		}
	}
	s.FileSize = f.FileSize()
	return s, nil
}

// describeSWA sets the sliding-window layers as engine/model does: only
// Gemma 3 uses them, every layer but each pattern-th (default 6) being
// local when the file has a window.
func (s *ModelShape) describeSWA(f *gguf.File) {
	if s.Arch != "gemma3" {
		return
	}
	w, err := f.SlidingWindow()
	if err != nil || w == 0 {
		return
	}
	period := 6
	if v, err := f.Uint("%s.attention.sliding_window_pattern"); err == nil {
		period = int(v)
	}
	s.SlidingWindow = int(w)
	s.SWA = make([]bool, s.Layers)
	for i := range s.SWA {
		s.SWA[i] = period == 0 || i%period < period-1
	}
}

// WeightBytes returns the bytes of all the weights.
func (s ModelShape) WeightBytes() int64 {
	n := s.EmbdBytes + s.OutputBytes
	for _, b := range s.LayerBytes {
		n += b
	}
	return n
}

// window returns layer i's attention window (0: full attention).
func (s ModelShape) window(i int) int {
	if i < len(s.SWA) && s.SWA[i] {
		return s.SlidingWindow
	}
	return 0
}
