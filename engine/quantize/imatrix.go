package quantize

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"

	"saji/engine/gguf"
	"saji/kernels/quant"
)

// This file reads an importance matrix, llama-imatrix's output, as
// llama-quantize's --imatrix does (common/imatrix-loader.cpp and
// tools/quantize/quantize.cpp's load_imatrix in llama.cpp).

// The imatrix.* keys of a GGUF importance matrix; llama-quantize refuses a
// GGUF file without all three.
const (
	keyImatrixDatasets   = "imatrix.datasets"
	keyImatrixChunkCount = "imatrix.chunk_count"
	keyImatrixChunkSize  = "imatrix.chunk_size"
)

// The suffixes of a GGUF importance matrix's two tensors per weight: the
// sums of the squared activations of each column (per expert) and the
// number of activations summed (per expert).
const (
	suffixInSum2 = ".in_sum2"
	suffixCounts = ".counts"
)

// Imatrix is an importance matrix: for each weight matrix of a model, the
// mean squared activation of each of its input columns (for a 3-D expert
// tensor, one such vector per expert, concatenated), which the quantizers
// use to weight each column's error.
type Imatrix struct {
	// File is the path the matrix was read from.
	File string
	// Weights maps a tensor name to its importance weights.
	Weights map[string][]float32
	// Datasets names the text files the matrix was computed on.
	Datasets []string
	// Chunks is the number of chunks of text it was computed on.
	Chunks int
}

// ReadImatrix reads the importance matrix at path, in llama-imatrix's GGUF
// format or its older .dat format, and averages it as llama-quantize does.
func ReadImatrix(path string) (*Imatrix, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("quantize: imatrix: %w", err)
	}
	m, err := parseImatrix(b)
	if err != nil {
		return nil, fmt.Errorf("quantize: imatrix %s: %w", path, err)
	}
	m.File = path
	return m, nil
}

// The keys llama-quantize records an importance matrix under in the
// quantized model.
const (
	keyQuantizeImatrixFile    = "quantize.imatrix.file"
	keyQuantizeImatrixDataset = "quantize.imatrix.dataset"
	keyQuantizeImatrixEntries = "quantize.imatrix.entries_count"
	keyQuantizeImatrixChunks  = "quantize.imatrix.chunks_count"
)

// record sets the keys that describe m in a quantized model, as
// llama-quantize does: its file and first dataset (each cut to 127 bytes),
// its entry count and its chunk count (when known).
func (m *Imatrix) record(w *gguf.Writer) error {
	cut := func(s string) string { return s[:min(len(s), 127)] }
	keys := []string{keyQuantizeImatrixFile}
	vals := []any{cut(m.File)}
	if len(m.Datasets) > 0 {
		keys, vals = append(keys, keyQuantizeImatrixDataset), append(vals, cut(m.Datasets[0]))
	}
	keys, vals = append(keys, keyQuantizeImatrixEntries), append(vals, uint32(len(m.Weights)))
	if m.Chunks > 0 {
		keys, vals = append(keys, keyQuantizeImatrixChunks), append(vals, uint32(m.Chunks))
	}
	for i, k := range keys {
		if err := w.Set(k, vals[i]); err != nil {
			return fmt.Errorf("quantize: %w", err)
		}
	}
	return nil
}

// parseImatrix reads an importance matrix held in memory: GGUF when b
// starts with its magic, the legacy format otherwise.
func parseImatrix(b []byte) (*Imatrix, error) {
	var m *Imatrix
	var err error
	if bytes.HasPrefix(b, []byte("GGUF")) {
		m, err = parseImatrixGGUF(b)
	} else {
		m, err = parseImatrixLegacy(b)
	}
	if err != nil {
		return nil, err
	}
	for name, w := range m.Weights {
		for i, v := range w {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return nil, fmt.Errorf("the weights of %q hold a non-finite value (%v at %d)", name, v, i)
			}
		}
	}
	return m, nil
}

// parseImatrixGGUF reads the GGUF format: for each weight W, F32 tensors
// W.in_sum2 (columns × experts) and W.counts (one per expert). A column's
// weight is its sum divided by its expert's count (rounded to an integer),
// or 1 where the expert saw no activations.
func parseImatrixGGUF(b []byte) (*Imatrix, error) {
	f, err := gguf.OpenBytes(b)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := &Imatrix{Weights: make(map[string][]float32)}
	for _, k := range []string{keyImatrixDatasets, keyImatrixChunkCount, keyImatrixChunkSize} {
		if _, ok := f.Value(k); !ok {
			return nil, fmt.Errorf("missing imatrix metadata (key %s)", k)
		}
	}
	if ds, err := f.Strings(keyImatrixDatasets); err == nil {
		m.Datasets = ds
	}
	n, err := f.Uint32(keyImatrixChunkCount)
	if err != nil {
		return nil, fmt.Errorf("key %s: %w", keyImatrixChunkCount, err)
	}
	m.Chunks = int(n)

	type pair struct{ sums, counts *gguf.TensorInfo }
	pairs := make(map[string]*pair)
	var names []string
	ts := f.Tensors()
	if len(ts) == 0 {
		return nil, errors.New("no data (no tensors)")
	}
	for i := range ts {
		t := &ts[i]
		var name string
		var sums bool
		switch {
		case strings.HasSuffix(t.Name, suffixInSum2):
			name, sums = strings.TrimSuffix(t.Name, suffixInSum2), true
		case strings.HasSuffix(t.Name, suffixCounts):
			name = strings.TrimSuffix(t.Name, suffixCounts)
		default:
			continue
		}
		p := pairs[name]
		if p == nil {
			p = &pair{}
			pairs[name] = p
			names = append(names, name)
		}
		if sums {
			p.sums = t
		} else {
			p.counts = t
		}
	}
	for _, name := range names {
		p := pairs[name]
		if p.sums == nil || p.counts == nil {
			return nil, fmt.Errorf("tensor %q has sums and counts mismatched (both %s and %s are needed)", name, suffixInSum2, suffixCounts)
		}
		sums, err := f32Tensor(f, p.sums)
		if err != nil {
			return nil, err
		}
		counts, err := f32Tensor(f, p.counts)
		if err != nil {
			return nil, err
		}
		if len(counts) == 0 || len(sums)%len(counts) != 0 {
			return nil, fmt.Errorf("tensor %q: %d sums do not divide among %d counts", name, len(sums), len(counts))
		}
		ne0 := len(sums) / len(counts)
		w := make([]float32, len(sums))
		for j, c := range counts {
			// llama.cpp stores the count as an integer (rounded) and
			// divides by it as a float.
			cnt := float32(math.Round(float64(c)))
			for i := j * ne0; i < (j+1)*ne0; i++ {
				if cnt > 0 {
					w[i] = sums[i] / cnt
				} else {
					w[i] = 1
				}
			}
		}
		m.Weights[name] = w
	}
	return m, nil
}

// f32Tensor returns the values of the F32 tensor t of f.
func f32Tensor(f *gguf.File, t *gguf.TensorInfo) ([]float32, error) {
	if t.Type != quant.TypeF32 {
		return nil, fmt.Errorf("tensor %q is %s, not F32", t.Name, t.Type)
	}
	data, err := f.Data(*t)
	if err != nil {
		return nil, err
	}
	v := make([]float32, len(data)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
	}
	return v, nil
}

// parseImatrixLegacy reads llama-imatrix's older .dat format, all
// little-endian int32 and float32: the entry count, then for each entry the
// name's length and bytes, the number of calls, the number of values and
// the values (each the mean scaled by the calls); then optionally the
// chunk count and the dataset's name. A weight is its value divided by the
// calls (where there were any).
func parseImatrixLegacy(b []byte) (*Imatrix, error) {
	r := legacyReader{b: b}
	n, err := r.i32("the entry count")
	if err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, fmt.Errorf("no data (%d entries)", n)
	}
	m := &Imatrix{Weights: make(map[string][]float32)}
	for e := range n {
		l, err := r.i32("a name's length")
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", e, err)
		}
		raw, err := r.bytes(l, "a name")
		if err != nil {
			return nil, fmt.Errorf("entry %d: %w", e, err)
		}
		if i := bytes.IndexByte(raw, 0); i >= 0 {
			raw = raw[:i] // llama.cpp reads the name as a C string
		}
		name := string(raw)
		ncall, err := r.i32("the number of calls")
		if err != nil {
			return nil, fmt.Errorf("entry %q: %w", name, err)
		}
		nval, err := r.i32("the number of values")
		if err != nil {
			return nil, fmt.Errorf("entry %q: %w", name, err)
		}
		if nval < 1 {
			return nil, fmt.Errorf("entry %q: %d values", name, nval)
		}
		vb, err := r.bytes(int64(nval)*4, "the values")
		if err != nil {
			return nil, fmt.Errorf("entry %q: %w", name, err)
		}
		w := make([]float32, nval)
		for i := range w {
			w[i] = math.Float32frombits(binary.LittleEndian.Uint32(vb[4*i:]))
			if ncall > 0 {
				w[i] /= float32(ncall)
			}
		}
		m.Weights[name] = w
	}
	if len(r.b) > 0 {
		if c, err := r.i32("the chunk count"); err == nil {
			m.Chunks = int(c)
			if l, err := r.i32("the dataset's length"); err == nil && l > 0 {
				if ds, err := r.bytes(l, "the dataset"); err == nil {
					if i := bytes.IndexByte(ds, 0); i >= 0 {
						ds = ds[:i]
					}
					m.Datasets = []string{string(ds)}
				}
			}
		}
	}
	return m, nil
}

// legacyReader consumes a legacy importance matrix from the front.
type legacyReader struct{ b []byte }

// i32 reads a little-endian int32.
func (r *legacyReader) i32(what string) (int64, error) {
	p, err := r.bytes(4, what)
	if err != nil {
		return 0, err
	}
	return int64(int32(binary.LittleEndian.Uint32(p))), nil
}

// bytes reads n bytes.
func (r *legacyReader) bytes(n int64, what string) ([]byte, error) {
	if n < 0 || n > int64(len(r.b)) {
		return nil, fmt.Errorf("truncated or malformed at %s (%d bytes wanted, %d left)", what, n, len(r.b))
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p, nil
}

// weightsFor returns the importance weights of tensor t (nil when the
// matrix has none for it): one per column, times the experts of a 3-D
// tensor. A size that does not match is an error, except for the token
// embeddings, whose weights llama-quantize then ignores.
func (m *Imatrix) weightsFor(t gguf.TensorInfo) ([]float32, error) {
	if m == nil {
		return nil, nil
	}
	w, ok := m.Weights[t.Name]
	if !ok {
		return nil, nil
	}
	want := int64(1)
	if len(t.Shape) > 0 {
		want = t.Shape[0]
	}
	if len(t.Shape) > 2 {
		want *= t.Shape[2]
	}
	if int64(len(w)) != want {
		if categorize(t.Name) == catTokenEmbd {
			return nil, nil
		}
		return nil, fmt.Errorf("quantize: the imatrix has %d weights for tensor %q, which needs %d", len(w), t.Name, want)
	}
	return w, nil
}

// requiresImatrix reports whether llama-quantize refuses to quantize the
// tensor called name to type to, in a file of type ft, without importance
// weights (tensor_requires_imatrix): the types of 2 bits and less, and
// Q2_K in a Q2_K_S file, but never for the token embeddings or the
// output.
func requiresImatrix(name string, to quant.Type, ft gguf.FileType) bool {
	if c := categorize(name); c == catTokenEmbd || c == catOutput {
		return false
	}
	switch to {
	case quant.TypeIQ3_XXS, quant.TypeIQ2_XXS, quant.TypeIQ2_XS, quant.TypeIQ2_S, quant.TypeIQ1_M, quant.TypeIQ1_S:
		return true
	case quant.TypeQ2_K:
		return ft == gguf.FileTypeMostlyQ2_K_S
	}
	return false
}
