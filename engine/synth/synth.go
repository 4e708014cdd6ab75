package synth

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"saji/engine/gguf"
	"saji/engine/hardware"
	"saji/engine/quantize"
	"saji/kernels/quant"
)

// Options configures a synthetic model.
type Options struct {
	// Shape is the model's architecture and size.
	Shape Shape
	// FileType is the quantization, one of quantize.MixFileTypes.
	FileType gguf.FileType
	// Vocab is a GGUF file whose tokenizer.* metadata is copied; the
	// model's vocabulary size is its token count.
	Vocab *gguf.File
	// Seed selects the random weights.
	Seed uint64
	// Threads is the number of goroutines that generate and quantize (0:
	// hardware.DefaultThreads, one per physical core).
	Threads int
	// Progress, if set, is called after each tensor with the bytes written
	// so far and the file's size.
	Progress func(done, total int64)
	// Repeat generates and quantizes each tensor's first chunk of rows
	// only, and repeats it over the rest of the tensor: a file for speed
	// tests, whose size and layout are the model's but whose weights
	// repeat, written in minutes instead of hours (quantizing a 30B model
	// to the K-quants takes hours on two cores).
	Repeat bool
	// Pure, when not 0 (F32), is the type of every matrix instead of the
	// FileType's mix, as llama-quantize --pure writes them (rows that do
	// not divide into its blocks stay F32). Types Saji cannot write get
	// random blocks (rawBlocks).
	Pure quant.Type
	// BlockScale, when above 0, scales the standard deviation of the
	// blocks' random weights and biases (blk.*, norms aside). Below 1 the
	// layers add little to the token's embedding, so that the model is
	// nearly a bigram model and copies of it at other types predict as it
	// does: a draft for speculative decoding that agrees with its target
	// as often as the scale says, where random weights at full scale agree
	// one time in ten. The speed is the same at any scale.
	BlockScale float64
	// Layers, when above 0 and below the shape's, keeps the shape's first
	// Layers blocks and drops the rest. Every tensor kept has the weights
	// it has in the whole model (a tensor's seed is its place in the whole
	// model's list), so that with a small BlockScale the truncated model
	// predicts as the whole one does at a fraction of its cost: a cheap
	// draft for speculative decoding. Shapes whose metadata has an entry
	// per layer cannot be truncated.
	Layers int
}

// ParseFileType reads a quantization name such as "q4_k_m", "Q8_0" or
// "f16" (case-insensitive): one of the file types whose llama-quantize
// mix (quantize.Mix) a synthetic model can be written in.
func ParseFileType(s string) (gguf.FileType, error) {
	ft, err := quantize.ParseMixFileType(s)
	if err != nil {
		return 0, fmt.Errorf("synth: %w", err)
	}
	return ft, nil
}

// weightStd is the standard deviation of the random weights and biases,
// about that of a trained model's.
const weightStd = 0.02

// chunkElems is about how many values one goroutine generates and
// quantizes at a time. It is a variable so that a test can make chunks
// small enough for a tiny model's tensors to hold several; a model's
// values depend on it.
var chunkElems int64 = 1 << 20

// NewWriter prepares the model's file: its metadata, and tensors whose
// data is generated while the Writer encodes them. ctx cancels the
// generation.
func NewWriter(ctx context.Context, opts Options) (*gguf.Writer, error) {
	s := opts.Shape
	if s.Embd <= 0 || s.Layers <= 0 || s.Heads <= 0 || s.KVHeads <= 0 || (s.FFN <= 0 && s.Experts == 0) ||
		(s.Head == 0 && s.Embd%s.Heads != 0) || s.Heads%s.KVHeads != 0 || s.ExpertsUsed > s.Experts {
		return nil, fmt.Errorf("synth: shape %q is inconsistent", s.Name)
	}
	if opts.Layers < 0 || opts.Layers > s.Layers {
		return nil, fmt.Errorf("synth: %d layers asked of shape %q, which has %d", opts.Layers, s.Name, s.Layers)
	}
	if opts.Vocab == nil {
		return nil, fmt.Errorf("synth: a vocabulary file is required")
	}
	tokens, err := opts.Vocab.Tokens()
	if err != nil {
		return nil, fmt.Errorf("synth: vocabulary: %w", err)
	}
	if len(tokens) == 0 {
		return nil, fmt.Errorf("synth: the vocabulary has no tokens")
	}
	if _, err := quantize.DefaultType(opts.FileType); err != nil && opts.Pure == quant.TypeF32 {
		return nil, fmt.Errorf("synth: %w", err)
	}
	threads := hardware.Threads(opts.Threads)
	w, err := newMeta(opts, len(tokens))
	if err != nil {
		return nil, err
	}

	mix := s.Mix(opts.FileType)
	for i, spec := range s.Tensors(len(tokens)) {
		if dropped(spec.Name, opts.Layers) {
			continue
		}
		typ := quant.TypeF32
		switch {
		case opts.Pure != quant.TypeF32:
			if len(spec.Shape) >= 2 && spec.Shape[0]%int64(opts.Pure.BlockSize()) == 0 {
				typ = opts.Pure
			}
		default:
			if typ, err = mix.Type(spec.Name, spec.Shape, quant.TypeF32); err != nil {
				return nil, err
			}
		}
		g := &tensorGen{spec: spec, typ: typ, seed: opts.Seed, index: uint64(i), threads: threads, scaled: s.Scaled, repeat: opts.Repeat}
		if opts.BlockScale > 0 && strings.HasPrefix(spec.Name, "blk.") {
			g.scale = opts.BlockScale
		}
		if err := w.AddTensorFunc(spec.Name, typ, spec.Shape, func(out io.Writer) error { return g.write(ctx, out) }); err != nil {
			return nil, fmt.Errorf("synth: %w", err)
		}
	}
	return w, nil
}

// perLayer reports whether the metadata value v (a gguf.Value or a Go
// slice) is an array of an entry per layer of a model of layers.
func perLayer(v any, layers int) bool {
	if gv, ok := v.(gguf.Value); ok {
		return gv.IsArray() && gv.Len() == layers
	}
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Slice && rv.Len() == layers
}

// dropped reports whether the tensor name belongs to a block at or past
// layers (Options.Layers; 0 keeps every block).
func dropped(name string, layers int) bool {
	rest, ok := strings.CutPrefix(name, "blk.")
	if !ok || layers <= 0 {
		return false
	}
	n, _, _ := strings.Cut(rest, ".")
	i, err := strconv.Atoi(n)
	return err == nil && i >= layers
}

// newMeta returns a writer holding the metadata of a model of opts.Shape
// and opts.FileType with vocab tokens: the hyperparameters, the
// architecture's own keys and the tokenizer.* keys of opts.Vocab.
func newMeta(opts Options, vocab int) (*gguf.Writer, error) {
	s := opts.Shape
	w := gguf.NewWriter()
	w.Progress = opts.Progress
	arch := s.Arch
	key := func(k string) string { return fmt.Sprintf(k, arch) }
	type meta struct {
		k string
		v any
	}
	set := []meta{
		{gguf.KeyArchitecture, arch},
		{"general.type", "model"},
		{gguf.KeyName, fmt.Sprintf("Saji synthetic %s %s", s.Name, opts.FileType)},
		{gguf.KeyFileType, uint32(opts.FileType)},
		{gguf.KeyQuantizationVersion, uint32(2)},
		{key(gguf.KeyVocabSize), uint32(vocab)},
		{key(gguf.KeyContextLength), uint32(s.Context)},
		{key(gguf.KeyEmbeddingLength), uint32(s.Embd)},
		{key(gguf.KeyBlockCount), uint32(cmp.Or(opts.Layers, s.Layers))},
		{key(gguf.KeyFeedForwardLength), uint32(s.FFN)},
		{key(gguf.KeyHeadCount), uint32(s.Heads)},
		{key(gguf.KeyHeadCountKV), uint32(s.KVHeads)},
		{key(gguf.KeyRopeFreqBase), s.RopeBase},
		{key(gguf.KeyLayerNormRMSEpsilon), s.Eps},
		{key(gguf.KeyRopeDimensionCount), uint32(s.HeadDim())},
	}
	if s.Head > 0 {
		set = append(set, meta{key("%s.attention.key_length"), uint32(s.Head)}, meta{key("%s.attention.value_length"), uint32(s.Head)})
	}
	if s.Experts > 0 {
		set = append(set, meta{key(gguf.KeyExpertCount), uint32(s.Experts)}, meta{key(gguf.KeyExpertUsedCount), uint32(s.ExpertsUsed)})
		if s.ExpertFFN > 0 {
			set = append(set, meta{key("%s.expert_feed_forward_length"), uint32(s.ExpertFFN)})
		}
		if s.SharedFFN > 0 {
			set = append(set, meta{key("%s.expert_shared_feed_forward_length"), uint32(s.SharedFFN)})
		}
	}
	if a, ok := archs[arch]; ok && a.keys != nil {
		extra := a.keys(s)
		names := make([]string, 0, len(extra))
		for k := range extra {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			if opts.Layers > 0 && perLayer(extra[k], s.Layers) {
				return nil, fmt.Errorf("synth: shape %q has an entry per layer in %s and cannot be truncated", s.Name, k)
			}
			set = append(set, meta{arch + "." + k, extra[k]})
		}
	}
	for _, kv := range set {
		if err := w.Set(kv.k, kv.v); err != nil {
			return nil, fmt.Errorf("synth: %w", err)
		}
	}
	for _, kv := range opts.Vocab.KVs() {
		if strings.HasPrefix(kv.Key, "tokenizer.") {
			if err := w.Set(kv.Key, kv.Value); err != nil {
				return nil, fmt.Errorf("synth: %w", err)
			}
		}
	}

	return w, nil
}

// Write writes the synthetic model to path (atomically: path never holds a
// partial file).
func Write(ctx context.Context, path string, opts Options) error {
	w, err := NewWriter(ctx, opts)
	if err != nil {
		return err
	}
	if err := w.WriteFile(ctx, path); err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	return nil
}

// tensorGen produces one tensor's data.
type tensorGen struct {
	spec    TensorSpec
	typ     quant.Type
	seed    uint64
	index   uint64 // the tensor's place in the file, part of its chunks' seeds
	threads int
	scaled  bool    // Shape.Scaled
	repeat  bool    // Options.Repeat
	scale   float64 // Options.BlockScale where it applies, else 0
}

// genSlot is one goroutine's buffers.
type genSlot struct {
	src []float32
	dst []byte
	err error
}

// write generates the tensor in chunks of whole rows, threads chunks at a
// time, and writes them in order.
func (g *tensorGen) write(ctx context.Context, out io.Writer) error {
	cols := g.spec.Shape[0]
	rows := int64(1)
	for _, d := range g.spec.Shape[1:] {
		rows *= d
	}
	rowBytes, err := g.typ.RowSize(cols)
	if err != nil {
		return err
	}
	per := max(1, chunkElems/cols)
	chunks := (rows + per - 1) / per
	if g.repeat && chunks > 1 {
		return g.writeRepeated(ctx, out, rows, per, rowBytes)
	}
	slots := make([]genSlot, min(int64(g.threads), chunks))
	for first := int64(0); first < chunks; first += int64(len(slots)) {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(int64(len(slots)), chunks-first)
		var wg sync.WaitGroup
		for j := range n {
			wg.Go(func() {
				c := first + j
				r := min(per, rows-c*per)
				sl := &slots[j]
				sl.src = resize(sl.src, int(r*cols))
				sl.dst = resize(sl.dst, int(r*rowBytes))
				g.fill(sl.src, uint64(c))
				sl.err = g.encode(sl.src, sl.dst, uint64(c))
			})
		}
		wg.Wait()
		for j := range n {
			if slots[j].err != nil {
				return slots[j].err
			}
			if _, err := out.Write(slots[j].dst); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeRepeated writes the tensor's first chunk of per rows over and over
// (Options.Repeat): whole rows, so every row is a valid row of the type.
func (g *tensorGen) writeRepeated(ctx context.Context, out io.Writer, rows, per, rowBytes int64) error {
	src := make([]float32, per*g.spec.Shape[0])
	g.fill(src, 0)
	dst := make([]byte, per*rowBytes)
	if err := g.encode(src, dst, 0); err != nil {
		return err
	}
	for r := int64(0); r < rows; r += per {
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, err := out.Write(dst[:min(per, rows-r)*rowBytes]); err != nil {
			return err
		}
	}
	return nil
}

// encode writes chunk c's values src as the tensor's type into dst:
// quantized, or random blocks standing for them where Saji cannot write
// the type.
func (g *tensorGen) encode(src []float32, dst []byte, c uint64) error {
	if g.typ == quant.TypeF32 || quant.Quantizable(g.typ) {
		return quant.Quantize(g.typ, src, dst)
	}
	return rawBlocks(g.typ, src, dst, rand.New(rand.NewPCG(^g.seed, g.index<<40|c)))
}

// fill sets dst to chunk c's values: ones for a norm, otherwise normal
// values from a generator seeded by the model's seed, the tensor and the
// chunk. In a Scaled shape norms are 1+0.1·N(0,1) and the other values
// have a standard deviation of 1/√(row length) (0.1 for a vector). A
// tensor with Values takes them.
func (g *tensorGen) fill(dst []float32, c uint64) {
	if g.spec.Values != nil {
		copy(dst, g.spec.Values[min(int(c)*len(dst), len(g.spec.Values)):])
		return
	}
	if g.spec.Ones && !g.scaled {
		for i := range dst {
			dst[i] = 1
		}
		return
	}
	r := rand.New(rand.NewPCG(g.seed, g.index<<40|c))
	mean, std := 0.0, weightStd
	switch {
	case g.spec.Ones:
		mean, std = 1, 0.1
	case g.spec.Std > 0:
		std = g.spec.Std
	case g.scaled && len(g.spec.Shape) == 1:
		std = 0.1
	case g.scaled:
		std = 1 / math.Sqrt(float64(g.spec.Shape[0]))
	}
	if g.scale > 0 && !g.spec.Ones {
		std *= g.scale
	}
	for i := range dst {
		dst[i] = float32(mean + r.NormFloat64()*std)
	}
}

// resize returns s with length n, reallocating only to grow.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
