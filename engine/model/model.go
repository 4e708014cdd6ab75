// Package model runs the forward pass of transformer language models read
// from GGUF files: token ids in, logits out.
//
// Each architecture (llama, qwen2, qwen3, gemma3, phi3) is a page of Go that
// registers itself under its general.architecture name, reads its
// hyperparameters through engine/gguf's accessors, wraps its weights as
// kernels tensors (zero-copy views of the mapped file) and describes its
// layers as calls on a kernels.Backend. Load picks the architecture by name;
// an unknown name is an error that says which.
//
// The forward pass follows llama.cpp's graphs (src/models/*.cpp) operation by
// operation, and the CPU backend follows ggml's numerics, so that the logits
// match llama.cpp's to about 1e-3.
//
// A Cache holds one sequence's keys and values, contiguous, in F32, F16 or Q8_0
// cells indexed by position. Forward appends the keys and values of a batch
// of tokens at their positions and attends over everything cached up to each
// token's position.
package model

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"saji/engine/gguf"
	"saji/kernels"
	"saji/kernels/cpu"
	"saji/kernels/quant"
)

// ErrUnknownArch is wrapped by Load's error for an architecture that no
// loader is registered for.
var ErrUnknownArch = errors.New("model: unknown architecture")

// Options configures Load.
type Options struct {
	// Backend runs the model. Nil means a CPU backend with Threads threads.
	Backend kernels.Backend
	// Threads is the CPU backend's thread count when Backend is nil
	// (0: all CPUs).
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
	ContextTrain int // context length the model was trained with
}

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
}

// loaderFunc builds a model of one architecture.
type loaderFunc func(ld *loader) (Model, error)

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

// Load builds the model in f. The model's weights are views of f's mapped
// data: f must stay open while the model is in use.
func Load(ctx context.Context, f *gguf.File, opts Options) (Model, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	arch, err := f.Architecture()
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	registryMu.RLock()
	fn := registry[arch]
	registryMu.RUnlock()
	if fn == nil {
		return nil, fmt.Errorf("%w %q (supported: %v)", ErrUnknownArch, arch, Architectures())
	}
	b := opts.Backend
	if b == nil {
		b = cpu.New(opts.Threads)
	}
	ld := &loader{f: f, arch: arch, backend: b, layerBackends: opts.LayerBackends}
	m, err := fn(ld)
	if err != nil {
		return nil, fmt.Errorf("model: loading %s: %w", arch, err)
	}
	return m, nil
}

// Cache is the key/value cache of one sequence: per layer, one row of keys
// and one of values per position.
type Cache struct {
	k, v []kernels.Tensor
	size int
	used int // cells 0..used-1 are filled
}

// newCache allocates a cache for layers whose keys and values have kvDim[i]
// and vDim[i] values per cell, each on its layer's backend.
func newCache(backends []kernels.Backend, kDim, vDim []int, n int, typ quant.Type) (*Cache, error) {
	if n <= 0 {
		return nil, fmt.Errorf("model: cache size must be positive, not %d", n)
	}
	if typ != quant.TypeF32 && typ != quant.TypeF16 && typ != quant.TypeQ8_0 {
		return nil, fmt.Errorf("model: cache type must be F32, F16 or Q8_0, not %v", typ)
	}
	c := &Cache{size: n}
	for i, b := range backends {
		k, err := b.New(typ, kDim[i], n)
		if err != nil {
			return nil, fmt.Errorf("model: cache: %w", err)
		}
		v, err := b.New(typ, vDim[i], n)
		if err != nil {
			return nil, fmt.Errorf("model: cache: %w", err)
		}
		c.k, c.v = append(c.k, k), append(c.v, v)
	}
	return c, nil
}

// Size returns the number of positions the cache can hold.
func (c *Cache) Size() int { return c.size }

// Len returns the number of filled positions (the next position).
func (c *Cache) Len() int { return c.used }

// Reset empties the cache for a new sequence.
func (c *Cache) Reset() { c.used = 0 }

// Truncate drops the positions from n on, so that generation can resume
// from an earlier point of the sequence.
func (c *Cache) Truncate(n int) {
	if n >= 0 && n < c.used {
		c.used = n
	}
}

// admit checks a batch's positions against the cache and returns the number
// of filled cells once the batch is stored.
func (c *Cache) admit(tokens, positions []int32, layers int) (int, error) {
	if c == nil {
		return 0, errors.New("model: forward needs a cache")
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

// layer returns layer i's view of the cache for a batch that fills n cells.
func (c *Cache) layer(i, n int) kernels.KV {
	return kernels.KV{K: c.k[i], V: c.v[i], Len: n}
}

// lastRowOnly is the index list that keeps only the last of n rows.
func lastRowOnly(n int) []int32 { return []int32{int32(n - 1)} }
