// Package model runs the forward pass of transformer language models read
// from GGUF files: token ids in, logits out.
//
// Each architecture (llama with or without experts, qwen2, qwen3,
// qwen2moe, qwen3moe, gpt-oss, mistral3, smollm3, granite, gemma2, gemma3,
// gemma4, phi3, olmo2, lfm2, qwen35, qwen35moe, qwen3next, granitehybrid,
// nemotron_h and nemotron_h_moe) is a page of Go that registers itself
// under its general.architecture name, reads its hyperparameters through
// engine/gguf's accessors, wraps its weights as kernels tensors (zero-copy
// views of the mapped file) and describes its layers as calls on a
// kernels.Backend. Load picks the architecture by name.
// A file Saji cannot run (an architecture no loader is registered for, a
// tensor of a type no kernel computes with) fails before a weight is
// touched, with a RunError that says why in a sentence (Runnable).
//
// The forward pass follows llama.cpp's graphs (src/models/*.cpp) operation by
// operation, and the CPU backend follows ggml's numerics, so that the logits
// match llama.cpp's to about 1e-3.
//
// A Cache holds one sequence's keys and values, contiguous, in F32, F16 or Q8_0
// cells indexed by position. Forward appends the keys and values of a batch
// of tokens at their positions and attends over everything cached up to each
// token's position. A hybrid model's recurrent layers (LFM2's convolutions)
// keep a fixed-size state per sequence instead, in the cache's state slots
// (state.go).
package model

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"

	"saji/engine/gguf"
	"saji/engine/hardware"
	"saji/kernels"
	"saji/kernels/cpu"
	"saji/kernels/quant"
)

// ErrUnknownArch is wrapped by the RunError of Load, Describe and Runnable
// for an architecture that no loader is registered for.
var ErrUnknownArch = errors.New("model: unknown architecture")

// Options configures Load.
type Options struct {
	// Backend runs the model. Nil means a CPU backend with Threads threads.
	Backend kernels.Backend
	// Threads is the CPU backend's thread count when Backend is nil
	// (0: hardware.DefaultThreads, one per physical core).
	Threads int
	// LayerBackends, when not nil, places layer i on LayerBackends[i]
	// (entries may be nil for Backend). The embeddings live on Backend, and
	// so do the output norm and matrix.
	LayerBackends []kernels.Backend
}

// Config describes a loaded model.
type Config struct {
	Arch         string // general.architecture
	Vocab        int    // number of logits per token
	Embd         int    // hidden size
	Layers       int
	Heads        int
	KVHeads      int
	HeadDim      int // key (and query) head length
	ValueDim     int // value head length
	FFN          int // feed-forward length, as the weights have it (one expert's in a mixture of experts)
	ContextTrain int // context length the model was trained with
	// Experts is the number of experts of a mixture-of-experts layer (0:
	// dense), ExpertsUsed how many run for each token, and SharedFFN the
	// feed-forward length of the shared expert every token runs (0: none).
	Experts, ExpertsUsed, SharedFFN int
	// Vectors reports whether the forward pass reads input vectors for
	// negative tokens (Batch.Embd): a picture's embeddings, which a
	// vision projector makes.
	Vectors bool
	// MRoPE reports whether the model rotates each token by four
	// positions (M-RoPE, Qwen2-VL's: Batch.Rope), so that a picture's
	// tokens stand on its grid.
	MRoPE bool
	// Deepstack is the number of layers after which an input vector adds
	// a part of its own to the hidden state (Qwen3-VL's deepstack): each
	// input vector holds Embd values for the input, then Embd for each of
	// them (InputWidth).
	Deepstack int
}

// InputWidth returns the length of one input vector (Batch.Embd): the
// model's width, and as much again for each deepstack layer.
func (c Config) InputWidth() int { return c.Embd * (1 + c.Deepstack) }

// Model is a loaded model.
type Model interface {
	// Config describes the model.
	Config() Config
	// NewCache returns an empty key/value cache for a sequence of up to n
	// positions, with cells of type kv (F32, F16, or Q8_0 for heads a
	// multiple of 32 long).
	NewCache(n int, kv quant.Type) (*Cache, error)
	// Forward runs tokens (token i at position positions[i]) through the
	// model, adding their keys and values to cache, and returns the logits:
	// Vocab values per token, for every token when all is set, or for the
	// last token only.
	Forward(ctx context.Context, tokens, positions []int32, cache *Cache, all bool) ([]float32, error)

	// KVGroups describes the layers' attention windows, one group per
	// distinct window: a paged cache keeps one block table per group.
	KVGroups() []KVGroup
	// NewPagedCache returns a cache of cells[g] cells for each KV group g,
	// shared by the sequences of ForwardBatch through their cell maps, and
	// of slots recurrent state slots (SeqBatch.Slot) when the model has
	// recurrent layers (slots is ignored otherwise).
	NewPagedCache(cells []int, slots int, kv quant.Type) (*Cache, error)
	// Recurrent describes the layers that keep a fixed-size state per
	// sequence (nil for a transformer): a cache holds it beside the KV
	// cells of the attention layers, one slot per sequence.
	Recurrent() []RecurrentLayer
	// ForwardBatch runs one forward pass over the tokens of several
	// sequences, reading each weight once for all of them. Each sequence's
	// keys and values go to the cells its Cells map gives, and its tokens
	// attend over its own cells only, with the values they would get in a
	// pass of their own. It returns Vocab logits for the last token of each
	// sequence whose Logits is set (its last Outputs tokens when above 1),
	// in order.
	ForwardBatch(ctx context.Context, b *Batch, cache *Cache) ([]float32, error)

	// Embed runs tokens (positions 0, 1, ...) through the model over a
	// temporary cache and returns Embd values: the last layer's hidden
	// states after the output norm, pooled over the tokens as pool says.
	// The vector is not normalized.
	Embed(ctx context.Context, tokens []int32, pool Pooling) ([]float32, error)
}

// KVGroup is a set of layers that attend over the same window. A paged
// cache keeps one block table per group, so that sliding-window layers can
// release the cells that fall out of their window while full-attention
// layers keep every cell.
type KVGroup struct {
	// Window is the attention window in tokens, 0 for full attention.
	Window int
	// Layers are the layers of the group.
	Layers []int
	// KDim and VDim are the lengths of one cell's keys and values in each
	// layer (all heads).
	KDim, VDim int
}

// CellBytes returns the memory one cell of the group takes in every layer
// for cache type typ.
func (g KVGroup) CellBytes(typ quant.Type) int {
	row := func(n int) int { return n / typ.BlockSize() * typ.TypeSize() }
	return len(g.Layers) * (row(g.KDim) + row(g.VDim))
}

// Batch is the input of ForwardBatch: the tokens of several sequences,
// sequence after sequence.
type Batch struct {
	// Tokens and Pos are the tokens and their positions in their sequences.
	Tokens, Pos []int32
	// Seqs says which tokens belong to which sequence, in order.
	Seqs []SeqBatch
	// Embd holds the input vectors of the tokens whose ids are negative:
	// a picture's positions, whose ids are keys for the prefix cache, not
	// tokens of the vocabulary (llama.cpp's llama_batch.embd). The j-th
	// negative token of the batch reads Embd[j·n:(j+1)·n], n the model's
	// input width (Config.InputWidth), instead of a row of the token
	// embeddings, unscaled.
	// Architectures that read input vectors say so (Capabilities).
	Embd []float32
	// AttnPos, when not nil, are the positions the tokens attend from, one
	// per token (Pos still rotates them): the tokens of a picture that
	// the model reads with attention among all of them (Gemma 3's) stand at
	// the picture's last position in the batch, and so see each other.
	AttnPos []int32
	// Rope, when not nil, holds the positions the tokens turn by in a
	// model that rotates by four (Config.MRoPE): four runs of len(Tokens)
	// values, each token's time, height, width and extra position (ggml's
	// layout). A picture's tokens share its time position and stand on
	// its grid; the tokens after it continue from that time position plus
	// the larger side of the grid (mtmd's n_pos); text has its position
	// as its time, height and width, and 0 extra. Nil means each token's
	// Pos so, as text. Pos still places the tokens in the cache.
	Rope []int32
}

// SeqBatch is one sequence's part of a Batch.
type SeqBatch struct {
	// N is the number of the batch's tokens (after the previous
	// sequences') that belong to the sequence.
	N int
	// Cells holds, for each KV group, the cache cell of every position of
	// the sequence up to its last token in the batch. Positions that no
	// token of the batch can see (out of a sliding window) may be -1.
	Cells [][]int32
	// Size is the sequence's context length (llama.cpp's n_ctx for one
	// sequence). Attention pads its cells as llama.cpp does up to this
	// size, so the results are the same as over a contiguous cache of Size
	// cells. 0 means the cache's size.
	Size int
	// Logits asks for the logits of the sequence's last token in the batch.
	Logits bool
	// Outputs, when above 1 with Logits, asks for the logits of the
	// sequence's last Outputs tokens in the batch, in order: a speculative
	// step verifies every draft token it runs. At most N.
	Outputs int
	// Slot is the sequence's recurrent state slot (a model with
	// recurrent layers), one no other sequence of the batch has. Its
	// tokens follow each other and start at position 0 (from zeros) or
	// where the slot's last batch left it.
	Slot int
}

// arch is what an architecture implements: the forward pass of a step.
type arch interface {
	common() *base
	forward(ctx context.Context, st *step) ([]float32, error)
}

// runner implements Model over an architecture.
type runner struct{ arch }

func (r runner) Config() Config              { return r.common().hp.Config }
func (r runner) KVGroups() []KVGroup         { return r.common().kvGroups() }
func (r runner) Recurrent() []RecurrentLayer { return r.common().recurrent }

func (r runner) NewCache(n int, kv quant.Type) (*Cache, error) { return r.common().newCache(n, kv) }

func (r runner) NewPagedCache(cells []int, slots int, kv quant.Type) (*Cache, error) {
	return r.common().newPagedCache(cells, slots, kv)
}

// Forward runs a batch of one sequence through the model over a
// contiguous cache.
func (r runner) Forward(ctx context.Context, tokens, positions []int32, cache *Cache, all bool) ([]float32, error) {
	m := r.common()
	st, err := m.solo(ctx, tokens, positions, cache, all)
	if err != nil {
		return nil, err
	}
	logits, err := r.forward(ctx, st)
	cache.finish(st.used, err)
	cache.finishState(st, err)
	return logits, err
}

// ForwardBatch runs several sequences' tokens through the model over a
// paged cache.
func (r runner) ForwardBatch(ctx context.Context, b *Batch, cache *Cache) ([]float32, error) {
	st, err := r.common().batch(ctx, b, cache)
	if err != nil {
		return nil, err
	}
	logits, err := r.forward(ctx, st)
	cache.finishState(st, err)
	return logits, err
}

// loaderFunc builds a model of one architecture.
type loaderFunc func(ld *loader) (arch, error)

var (
	registryMu sync.RWMutex
	registry   = map[string]loaderFunc{}
)

// register makes an architecture loadable under name.
func register(name string, fn loaderFunc) {
	registryMu.Lock()
	defer registryMu.Unlock()
	registry[name] = fn
}

// Architectures returns the names of the supported architectures, sorted.
func Architectures() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// lookup returns f's architecture and its loader, once it has checked
// that Saji computes with f's tensor types (checkTypes), so that a file
// Saji cannot run fails with the reason before any weight is touched.
func lookup(f *gguf.File) (string, loaderFunc, error) {
	arch, err := f.Architecture()
	if err != nil {
		return "", nil, unknownArch("", err)
	}
	registryMu.RLock()
	fn := registry[arch]
	registryMu.RUnlock()
	if fn == nil {
		return arch, nil, unknownArch(arch, nil)
	}
	if err := checkTypes(f); err != nil {
		return arch, nil, err
	}
	return arch, fn, nil
}

// Load builds the model in f. The model's weights are views of f's mapped
// data: f must stay open while the model is in use. Cancelling ctx stops
// the load before the next weight is wrapped or repacked, with ctx's
// error.
func Load(ctx context.Context, f *gguf.File, opts Options) (Model, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	arch, fn, err := lookup(f)
	if err != nil {
		return nil, err
	}
	b := opts.Backend
	if b == nil {
		b = cpu.New(hardware.Threads(opts.Threads))
	}
	ld := &loader{ctx: ctx, f: f, arch: arch, backend: b, layerBackends: opts.LayerBackends}
	a, err := fn(ld)
	if err != nil {
		return nil, fmt.Errorf("model: loading %s: %w", arch, err)
	}
	return runner{a}, nil
}

// Cache holds keys and values: per layer, one row of keys and one of values
// per cell. A contiguous cache (NewCache) serves one sequence, cell i
// holding position i; a paged cache (NewPagedCache) serves many through
// ForwardBatch, each sequence's cells given by its cell maps.
type Cache struct {
	k, v  []kernels.Tensor // nil for a recurrent layer
	group []int            // layer -> KV group (paged caches; -1 for a recurrent layer)
	cells []int            // cells per group (paged caches)
	paged bool
	size  int
	used  int // contiguous caches: cells 0..used-1 are filled
	// state holds each recurrent layer's states (nil for the others), one
	// row per slot; slotPos is the position each slot's state has reached
	// (-1 after a failed step: only position 0 may follow).
	state   [][]kernels.Tensor
	slotPos []int
	// ckpt holds the positions of a contiguous cache's checkpoints, the
	// states of slots 1, 2, ... (-1: none); next is the one to replace.
	ckpt []int
	next int
}

// newCache allocates a cache for layers whose keys and values have kDim[i]
// and vDim[i] values per cell and rows[i] cells, each on its layer's
// backend; a layer of kDim 0 (a recurrent one) has none. A layer i with
// share[i] != i (share may be nil) gets no tensors of its own: it holds
// those of the earlier layer share[i].
func newCache(backends []kernels.Backend, kDim, vDim, rows, share []int, typ quant.Type) (*Cache, error) {
	if typ != quant.TypeF32 && typ != quant.TypeF16 && typ != quant.TypeQ8_0 {
		return nil, fmt.Errorf("model: cache type must be F32, F16 or Q8_0, not %v", typ)
	}
	c := &Cache{}
	for i, b := range backends {
		if kDim[i] == 0 {
			c.k, c.v = append(c.k, nil), append(c.v, nil)
			continue
		}
		if i < len(share) && share[i] != i {
			if share[i] < 0 || share[i] >= i {
				return nil, fmt.Errorf("model: layer %d cannot share the cache of layer %d", i, share[i])
			}
			c.k, c.v = append(c.k, c.k[share[i]]), append(c.v, c.v[share[i]])
			continue
		}
		if rows[i] <= 0 {
			return nil, fmt.Errorf("model: cache size must be positive, not %d", rows[i])
		}
		if typ == quant.TypeQ8_0 && (kDim[i]%typ.BlockSize() != 0 || vDim[i]%typ.BlockSize() != 0) {
			return nil, fmt.Errorf("model: a Q8_0 cache needs rows a multiple of %d long, not %d/%d", typ.BlockSize(), kDim[i], vDim[i])
		}
		k, err := b.New(typ, kDim[i], rows[i])
		if err != nil {
			return nil, fmt.Errorf("model: cache: %w", err)
		}
		v, err := b.New(typ, vDim[i], rows[i])
		if err != nil {
			return nil, fmt.Errorf("model: cache: %w", err)
		}
		c.k, c.v = append(c.k, k), append(c.v, v)
	}
	return c, nil
}

// Size returns the number of positions a contiguous cache can hold.
func (c *Cache) Size() int { return c.size }

// Len returns the number of filled positions (the next position) of a
// contiguous cache.
func (c *Cache) Len() int { return c.used }

// Reset empties a contiguous cache for a new sequence.
func (c *Cache) Reset() { c.used = 0 }

// Truncate drops the positions from n on, so that generation can resume
// from an earlier point of the sequence. A hybrid model's recurrent state
// resumes only from 0 or from the end of one of the cache's last two
// multi-token chunks (its checkpoints); from elsewhere, Forward refuses.
func (c *Cache) Truncate(n int) {
	if n >= 0 && n < c.used {
		c.used = n
	}
}

// Cells returns the number of cells of KV group g of a paged cache.
func (c *Cache) Cells(g int) int {
	if g < 0 || g >= len(c.cells) {
		return 0
	}
	return c.cells[g]
}

// Copy copies the keys and values of cells src[i] to cells dst[i] in every
// layer of KV group g of a paged cache (copy-on-write of shared blocks).
// The values are copied exactly.
func (c *Cache) Copy(g int, src, dst []int32) error {
	if !c.paged || g < 0 || g >= len(c.cells) || len(src) != len(dst) {
		return fmt.Errorf("model: copying %d cells to %d in group %d of a cache with %d groups", len(src), len(dst), g, len(c.cells))
	}
	if len(src) == 0 {
		return nil
	}
	for _, r := range append(append([]int32(nil), src...), dst...) {
		if r < 0 || int(r) >= c.cells[g] {
			return fmt.Errorf("model: copying cell %d of a group of %d cells", r, c.cells[g])
		}
	}
	for i, grp := range c.group {
		if grp != g || slices.Contains(c.k[:i], c.k[i]) {
			continue // another group, or a layer sharing an earlier one's cells
		}
		for _, t := range []kernels.Tensor{c.k[i], c.v[i]} {
			if err := copyRows(t, src, dst); err != nil {
				return fmt.Errorf("model: copying cells: %w", err)
			}
		}
	}
	return nil
}

// copyRows copies rows src of t to rows dst through F32, which is exact
// for the cache types: F16 and F32 values convert both ways without loss,
// and a Q8_0 block requantizes from its own values to the same block.
func copyRows(t kernels.Tensor, src, dst []int32) error {
	b := t.Backend()
	tmp, err := b.New(quant.TypeF32, kernels.Cols(t), len(src))
	if err != nil {
		return err
	}
	if err := b.GetRows(tmp, t, src); err != nil {
		return err
	}
	err = b.SetRows(t, tmp, dst)
	if r, ok := b.(kernels.Recycler); ok {
		r.Recycle(tmp)
	}
	return err
}

// admit checks a batch's positions against a contiguous cache and returns
// the number of filled cells once the batch is stored.
func (c *Cache) admit(tokens, positions []int32, layers int) (int, error) {
	if c == nil {
		return 0, errors.New("model: forward needs a cache")
	}
	if c.paged {
		return 0, errors.New("model: Forward needs a contiguous cache (NewCache); a paged cache goes with ForwardBatch")
	}
	if len(c.k) != layers {
		return 0, fmt.Errorf("model: the cache has %d layers, the model %d", len(c.k), layers)
	}
	if len(tokens) == 0 || len(tokens) != len(positions) {
		return 0, fmt.Errorf("model: %d tokens with %d positions", len(tokens), len(positions))
	}
	used := c.used
	for _, p := range positions {
		if p < 0 || int(p) >= c.size {
			return 0, fmt.Errorf("model: position %d outside the cache of %d", p, c.size)
		}
		if int(p) > used {
			return 0, fmt.Errorf("model: position %d leaves a gap after %d cached positions", p, used)
		}
		used = max(used, int(p)+1)
	}
	return used, nil
}

// lastRowOnly is the index list that keeps only the last of n rows.
func lastRowOnly(n int) []int32 { return []int32{int32(n - 1)} }
