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
	"fmt"
	"strconv"
	"strings"

	"saji/engine/gguf"
	"saji/engine/model"
	"saji/kernels/cpu"
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
	// KVHeads is the number of key/value heads of each layer (GQA; 0 for
	// a layer that keeps no keys and values: recurrent, or Nemotron-H's
	// feed-forward layers).
	KVHeads []int `json:"kv_heads"`
	// StateBytes are the bytes of each layer's recurrent state for one
	// sequence (0 for an attention layer), nil for a transformer: a
	// hybrid model's cache holds one for each sequence it runs at once.
	StateBytes []int64 `json:"state_bytes,omitempty"`
	// HeadDim and ValueDim are the key and value head lengths.
	HeadDim  int `json:"head_dim"`
	ValueDim int `json:"value_dim"`
	// KDims and VDims, when not nil, are the values of a cell's keys and
	// values in each layer, where they are not KVHeads[i]·HeadDim and
	// KVHeads[i]·ValueDim: head lengths that differ between layers, and 0
	// for a layer that reads another's cache (Gemma 4).
	KDims []int `json:"k_dims,omitempty"`
	VDims []int `json:"v_dims,omitempty"`
	// Embd is the hidden size, FFN the feed-forward size (0 if unknown),
	// Vocab the number of tokens, ContextTrain the training context.
	Embd int `json:"embd"`
	FFN  int `json:"ffn"`
	// Experts is the number of experts of a mixture-of-experts layer (0:
	// dense), ExpertsUsed how many a token runs, and FFN then one
	// expert's feed-forward size; SharedFFN is that of the shared expert.
	Experts     int `json:"experts,omitempty"`
	ExpertsUsed int `json:"experts_used,omitempty"`
	SharedFFN   int `json:"shared_ffn,omitempty"`
	// ExpertBytes are the bytes of each block's expert tensors (part of
	// LayerBytes), of which a token reads ExpertsUsed/Experts.
	ExpertBytes  []int64 `json:"expert_bytes,omitempty"`
	Vocab        int     `json:"vocab"`
	ContextTrain int     `json:"context_train"`
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
	// RepackBytes are the bytes of the interleaved copies the CPU backend
	// makes of each block's weights, experts included (cpu.RepackBytes,
	// per expert), nil when none; RepackOther those of the tensors outside
	// the blocks.
	RepackBytes []int64 `json:"repack_bytes,omitempty"`
	RepackOther int64   `json:"repack_other,omitempty"`
	// FileSize is the size of the file(s) in bytes.
	FileSize int64 `json:"file_size"`
	// TokenizerEntries counts the vocabulary's tokens and merges, which
	// the tokenizer keeps in memory.
	TokenizerEntries int `json:"tokenizer_entries"`
}

// layerKVDims returns the per-layer cell lengths of d's KV groups (0 for
// the layers in none), or nil when every layer has KVHeads heads of
// HeadDim and ValueDim.
func layerKVDims(d model.Description) (k, v []int) {
	k, v = make([]int, d.Layers), make([]int, d.Layers)
	uniform := true
	for _, g := range d.KVGroups {
		for _, l := range g.Layers {
			if l >= 0 && l < d.Layers {
				k[l], v[l] = g.KDim, g.VDim
			}
		}
	}
	for i := range k {
		uniform = uniform && k[i] == d.KVHeads*d.HeadDim && v[i] == d.KVHeads*d.ValueDim
	}
	if uniform {
		return nil, nil
	}
	return k, v
}

// Describe reads a model's shape from f's metadata and tensor table: the
// hyperparameters and attention windows as engine/model's loader reads
// them (model.Describe: an architecture Saji cannot run is an error), the
// sizes from the tensor table.
func Describe(f *gguf.File) (ModelShape, error) {
	d, err := model.Describe(f)
	if err != nil {
		return ModelShape{}, fmt.Errorf("fit: %w", err)
	}
	s := ModelShape{Arch: d.Arch, Layers: d.Layers, Heads: d.Heads, HeadDim: d.HeadDim, ValueDim: d.ValueDim,
		Embd: d.Embd, FFN: d.FFN, Vocab: d.Vocab, ContextTrain: d.ContextTrain,
		Experts: d.Experts, ExpertsUsed: d.ExpertsUsed, SharedFFN: d.SharedFFN}
	s.Name, _ = f.Name()
	if ft, err := f.FileType(); err == nil {
		s.FileType = ft.Description()
	}
	s.KVHeads = make([]int, s.Layers)
	for i := range s.KVHeads {
		s.KVHeads[i] = d.KVHeads
		if d.LayerKVHeads != nil && d.LayerKVHeads[i] == 0 {
			s.KVHeads[i] = 0 // no attention
		}
	}
	for _, l := range d.Recurrent {
		if s.StateBytes == nil {
			s.StateBytes = make([]int64, s.Layers)
		}
		s.KVHeads[l.Layer] = 0
		s.StateBytes[l.Layer] = model.StateBytes([]model.RecurrentLayer{l})
	}
	s.KDims, s.VDims = layerKVDims(d)
	for i, w := range d.Windows {
		if w > 0 {
			if s.SWA == nil {
				s.SWA = make([]bool, s.Layers)
			}
			s.SWA[i], s.SlidingWindow = true, w
		}
	}

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
			if s.Experts > 0 && strings.Contains(t.Name, "_exps.") {
				if s.ExpertBytes == nil {
					s.ExpertBytes = make([]int64, s.Layers)
				}
				s.ExpertBytes[i] += t.Size
			}
			if rb := repackBytes(t); rb > 0 {
				if s.RepackBytes == nil {
					s.RepackBytes = make([]int64, s.Layers)
				}
				s.RepackBytes[i] += rb
			}
		case t.Name == "token_embd.weight":
			s.EmbdBytes += t.Size
			s.RepackOther += repackBytes(t)
		default:
			output = output || t.Name == "output.weight"
			s.OutputBytes += t.Size
			s.RepackOther += repackBytes(t)
		}
	}
	s.TiedOutput = !output
	for _, key := range []string{gguf.KeyTokens, gguf.KeyMerges} {
		if v, ok := f.Value(key); ok {
			s.TokenizerEntries += v.Len()
		}
	}
	s.FileSize = f.FileSize()
	return s, nil
}

// repackBytes returns the bytes of the CPU backend's interleaved copy of
// tensor t (its shape without trailing 1s, as the loader wraps it; a
// three-dimensional tensor of experts as one matrix per expert).
func repackBytes(t gguf.TensorInfo) int64 {
	shape := make([]int, len(t.Shape))
	for i, d := range t.Shape {
		shape[i] = int(d)
	}
	for len(shape) > 1 && shape[len(shape)-1] == 1 {
		shape = shape[:len(shape)-1]
	}
	if len(shape) == 3 {
		return int64(shape[2]) * cpu.RepackBytes(t.Type, shape[:2])
	}
	return cpu.RepackBytes(t.Type, shape)
}

// cpuRepackBytes returns the bytes of the CPU backend's interleaved copies
// when the first cpuLayers blocks run on it.
func (s ModelShape) cpuRepackBytes(cpuLayers int) int64 {
	n := s.RepackOther
	for i, b := range s.RepackBytes {
		if i < cpuLayers {
			n += b
		}
	}
	return n
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
