package quantize

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"saji/engine/gguf"
	"saji/engine/hardware"
	"saji/engine/units"
	"saji/kernels/quant"
)

// Options configures Quantize.
type Options struct {
	// FileType is the target, one of FileTypes.
	FileType gguf.FileType
	// Threads is the number of goroutines that convert rows (0:
	// hardware.DefaultThreads, one per physical core).
	Threads int
	// Progress, if set, is called as the conversion advances with the bytes
	// of source tensor data processed so far and their total. It is called
	// from one goroutine at a time, in order.
	Progress func(done, total int64)
	// AllowRequantize accepts a source whose tensors are already quantized
	// (Q8_0, Q4_K ...): they are dequantized to float32 and quantized
	// again, which loses more than quantizing the original weights. Without
	// it such a source is refused, as llama-quantize does without
	// --allow-requantize.
	AllowRequantize bool
	// Imatrix, if set, is an importance matrix (ReadImatrix): the tensors
	// it has weights for are quantized with ggml's weighted algorithms, as
	// llama-quantize --imatrix does, and the mix takes its imatrix rules.
	Imatrix *Imatrix
}

// Result describes a finished quantization.
type Result struct {
	// Tensors is the number of tensors written.
	Tensors int
	// InBytes and OutBytes are the sizes of the source (all its shards)
	// and of the output file.
	InBytes, OutBytes int64
	// TypeCounts counts the output's tensors by type.
	TypeCounts map[quant.Type]int
	// Duration is the time the whole run took.
	Duration time.Duration
}

// ErrQuantized is the error Quantize's error wraps when the source is
// already quantized and Options.AllowRequantize is not set.
var ErrQuantized = errors.New("the source is already quantized")

// fileTypes are the targets Quantize writes: those of Mix whose
// every tensor type Saji can produce and that llama-quantize makes without
// an importance matrix (Q2_K_S needs one).
var fileTypes = []gguf.FileType{
	gguf.FileTypeAllF32, gguf.FileTypeMostlyF16, gguf.FileTypeMostlyBF16,
	gguf.FileTypeMostlyQ8_0, gguf.FileTypeMostlyQ6_K,
	gguf.FileTypeMostlyQ5_K_M, gguf.FileTypeMostlyQ5_K_S,
	gguf.FileTypeMostlyQ5_0, gguf.FileTypeMostlyQ5_1,
	gguf.FileTypeMostlyQ4_K_M, gguf.FileTypeMostlyQ4_K_S,
	gguf.FileTypeMostlyQ4_0, gguf.FileTypeMostlyQ4_1,
	gguf.FileTypeMostlyIQ4NL, gguf.FileTypeMostlyIQ4XS, gguf.FileTypeMostlyMXFP4,
	gguf.FileTypeMostlyQ3_K_L, gguf.FileTypeMostlyQ3_K_M, gguf.FileTypeMostlyIQ3M,
	gguf.FileTypeMostlyIQ3S, gguf.FileTypeMostlyQ3_K_S, gguf.FileTypeMostlyQ2_K,
	gguf.FileTypeMostlyTQ2_0, gguf.FileTypeMostlyTQ1_0,
}

// FileTypes returns the target file types Quantize supports, from the
// largest files to the smallest.
func FileTypes() []gguf.FileType { return slices.Clone(fileTypes) }

// Supported reports whether Quantize can write file type ft.
func Supported(ft gguf.FileType) bool { return slices.Contains(fileTypes, ft) }

// imatrixFileTypes are the targets llama-quantize refuses without an
// importance matrix (llama-imatrix's output, its --imatrix): some of their
// tensors take a type that needs one (IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS, IQ2_S,
// IQ3_XXS, and Q2_K in a Q2_K_S file; tensor_requires_imatrix).
var imatrixFileTypes = []gguf.FileType{
	gguf.FileTypeMostlyQ2_K_S, gguf.FileTypeMostlyIQ3XS, gguf.FileTypeMostlyIQ3XXS,
	gguf.FileTypeMostlyIQ2M, gguf.FileTypeMostlyIQ2S, gguf.FileTypeMostlyIQ2XS,
	gguf.FileTypeMostlyIQ2XXS, gguf.FileTypeMostlyIQ1M, gguf.FileTypeMostlyIQ1S,
}

// ImatrixFileTypes returns the target file types Quantize supports only
// with an importance matrix (Options.Imatrix).
func ImatrixFileTypes() []gguf.FileType { return slices.Clone(imatrixFileTypes) }

// errNeedsImatrix returns the error for a target that needs an importance
// matrix when none is given (withImatrix false), or nil.
func errNeedsImatrix(ft gguf.FileType, withImatrix bool) error {
	if withImatrix || !slices.Contains(imatrixFileTypes, ft) {
		return nil
	}
	return fmt.Errorf("quantize: target type %s needs an importance matrix (llama-imatrix's output, --imatrix FILE)", ft)
}

// ParseFileType reads a target name as llama-quantize spells it ("Q4_K_M",
// "q8_0", "f16"; case-insensitive). The targets that need an importance
// matrix are accepted where Saji writes them (Quantize then asks for the
// matrix).
func ParseFileType(s string) (gguf.FileType, error) {
	for _, ft := range imatrixFileTypes {
		if strings.EqualFold(ft.String(), s) {
			return ft, nil
		}
	}
	return parseFileType(s, fileTypes, "unsupported target type")
}

// splitKeys are the keys of a split model's shards, which a single output
// file must not carry.
var splitKeys = []string{"split.no", "split.count", "split.tensors.count"}

// Quantize converts the GGUF model at in (the first shard of a split
// model) to opts.FileType and writes it to out as one file. Every metadata
// key of the source is copied in its order, with general.file_type and
// general.quantization_version (2) set; tensors keep the source's order,
// each converted to the type llama-quantize would choose for it. out is
// written atomically: on an error or when ctx is cancelled it is left as it
// was, and no temporary file remains.
//
// One difference from llama-quantize: where a row's length does not divide
// into 32-element blocks, a target of Q8_0, Q4_0, IQ4_NL (or another
// 32-block type) keeps that tensor F16, as llama-quantize does for the
// K-quants' fallbacks, where llama-quantize refuses the whole model.
func Quantize(ctx context.Context, in, out string, opts Options) (Result, error) {
	start := time.Now()
	if err := errNeedsImatrix(opts.FileType, opts.Imatrix != nil); err != nil {
		return Result{}, err
	}
	if !Supported(opts.FileType) && !slices.Contains(imatrixFileTypes, opts.FileType) {
		return Result{}, fmt.Errorf("quantize: unsupported target type %s", opts.FileType)
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("quantize: cancelled: %w", err)
	}
	f, err := gguf.Open(in)
	if err != nil {
		return Result{}, fmt.Errorf("quantize: %w", err)
	}
	defer f.Close()
	if err := checkOutput(f, out); err != nil {
		return Result{}, err
	}
	p, err := newPlan(f, opts)
	if err != nil {
		return Result{}, err
	}

	w := gguf.NewWriter()
	for _, kv := range f.KVs() {
		if err := w.Set(kv.Key, kv.Value); err != nil {
			return Result{}, fmt.Errorf("quantize: %w", err)
		}
	}
	for _, k := range splitKeys {
		w.Delete(k)
	}
	if err := w.Set(gguf.KeyQuantizationVersion, uint32(2)); err != nil {
		return Result{}, fmt.Errorf("quantize: %w", err)
	}
	if err := w.Set(gguf.KeyFileType, uint32(opts.FileType)); err != nil {
		return Result{}, fmt.Errorf("quantize: %w", err)
	}
	if opts.Imatrix != nil {
		if err := opts.Imatrix.record(w); err != nil {
			return Result{}, err
		}
	}

	threads := hardware.Threads(opts.Threads)
	prog := &progress{total: p.inTensorBytes, report: opts.Progress}
	res := Result{Tensors: len(p.tensors), InBytes: f.FileSize(), TypeCounts: make(map[quant.Type]int)}
	for _, t := range p.tensors {
		data, err := f.Data(t.src)
		if err != nil {
			return Result{}, fmt.Errorf("quantize: %w", err)
		}
		c := &converter{src: t.src, data: data, to: t.to, weights: t.weights, threads: threads, prog: prog}
		if err := w.AddTensorFunc(t.src.Name, t.to, t.src.Shape, func(out io.Writer) error { return c.write(ctx, out) }); err != nil {
			return Result{}, fmt.Errorf("quantize: %w", err)
		}
		res.TypeCounts[t.to]++
	}
	if err := checkSpace(out, w.Size(), hardware.DiskFree); err != nil {
		return Result{}, err
	}
	if err := w.WriteFile(ctx, out); err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return Result{}, fmt.Errorf("quantize: cancelled: %w", err)
		}
		return Result{}, fmt.Errorf("quantize: %w", err)
	}
	res.OutBytes = w.Size()
	res.Duration = time.Since(start)
	return res, nil
}

// checkOutput refuses an output path that is one of the source's files,
// which the rename at the end would replace while it is being read.
func checkOutput(f *gguf.File, out string) error {
	st, err := os.Stat(out)
	if err != nil {
		return nil // absent (or unreadable: creating it will say why)
	}
	for _, p := range f.Paths() {
		if ps, err := os.Stat(p); err == nil && os.SameFile(ps, st) {
			return fmt.Errorf("quantize: the output %s is the input file", out)
		}
	}
	return nil
}

// checkSpace fails when the file system that will hold out has less than
// need bytes free (a file being replaced counts as free), so that a full
// disk is told before the work rather than after most of it.
func checkSpace(out string, need int64, free func(dir string) (uint64, error)) error {
	n, err := free(filepath.Dir(out))
	if err != nil {
		return nil
	}
	if st, err := os.Stat(out); err == nil && st.Mode().IsRegular() {
		n += uint64(st.Size())
	}
	if uint64(need) > n {
		return fmt.Errorf("quantize: %s needs %s, and its disk has %s free", out, units.Bytes(need), units.Bytes(int64(n)))
	}
	return nil
}

// planned is one tensor, the type it becomes, and its importance weights
// (nil for none).
type planned struct {
	src     gguf.TensorInfo
	to      quant.Type
	weights []float32
}

// plan is every tensor's conversion.
type plan struct {
	tensors       []planned
	inTensorBytes int64
}

// newPlan chooses each tensor's type with the mix llama-quantize would
// use for f's model, and checks that every tensor can be converted.
func newPlan(f *gguf.File, opts Options) (*plan, error) {
	mix, err := mixFor(f, opts.FileType)
	if err != nil {
		return nil, err
	}
	mix.Imatrix = opts.Imatrix != nil
	p := &plan{}
	for _, t := range f.Tensors() {
		if t.Type.BlockSize() > 1 && !opts.AllowRequantize {
			return nil, fmt.Errorf("quantize: %w (tensor %q is %s): start from an F32, F16 or BF16 model", ErrQuantized, t.Name, t.Type)
		}
		to, err := mix.Type(t.Name, t.Shape, t.Type)
		if err != nil {
			return nil, fmt.Errorf("quantize: %w", err)
		}
		if to != t.Type && !isFloat(t.Type) && (t.Type.BlockSize() <= 1 || !quant.Supported(t.Type)) {
			return nil, fmt.Errorf("quantize: tensor %q is %s, which Saji cannot convert to %s", t.Name, t.Type, to)
		}
		var w []float32
		if to != t.Type {
			if w, err = opts.Imatrix.weightsFor(t); err != nil {
				return nil, err
			}
		}
		if w == nil && to != t.Type && requiresImatrix(t.Name, to, opts.FileType) {
			return nil, fmt.Errorf("quantize: the importance matrix has no weights for tensor %q, which %s needs for %s", t.Name, opts.FileType, to)
		}
		if to != t.Type && w == nil && !quant.Quantizable(to) {
			return nil, fmt.Errorf("quantize: tensor %q: Saji cannot write %s", t.Name, to)
		}
		if w != nil && !quant.QuantizableWeighted(to) {
			return nil, fmt.Errorf("quantize: tensor %q: Saji cannot write %s with an importance matrix yet", t.Name, to)
		}
		p.tensors = append(p.tensors, planned{src: t, to: to, weights: w})
		p.inTensorBytes += t.Size
	}
	return p, nil
}

// isFloat reports whether t is one of the unquantized source types.
func isFloat(t quant.Type) bool {
	return t == quant.TypeF32 || t == quant.TypeF16 || t == quant.TypeBF16
}

// mixFor reads what llama-quantize's type rules need from the model's
// metadata: the architecture, the layer count, the grouped-query ratio
// (of the first layer, as llama.cpp's n_gqa), the expert count, and
// whether the output matrix is tied to the embeddings.
func mixFor(f *gguf.File, ft gguf.FileType) (Mix, error) {
	arch, err := f.Architecture()
	if err != nil {
		return Mix{}, fmt.Errorf("quantize: %w", err)
	}
	m := Mix{FileType: ft, Arch: arch}
	if n, err := f.BlockCount(); err == nil {
		m.Layers = int(min(n, 1<<20))
	} else {
		m.Layers = countLayers(f)
	}
	if heads, err := f.LayerUints(gguf.KeyHeadCount); err == nil && len(heads) > 0 {
		kv := heads
		if v, err := f.LayerUints(gguf.KeyHeadCountKV); err == nil && len(v) == len(heads) {
			kv = v
		}
		if kv[0] > 0 {
			m.GQA = int(min(heads[0]/kv[0], 1<<20))
		}
	}
	if n, err := f.Uint(gguf.KeyExpertCount); err == nil {
		m.Experts = int(min(n, 1<<20))
	}
	_, hasOutput := f.Tensor("output.weight")
	m.Tied = !hasOutput
	return m, nil
}

// countLayers returns one more than the largest N of the "blk.N." tensor
// names, for a model without a block count.
func countLayers(f *gguf.File) int {
	n := 0
	for _, t := range f.Tensors() {
		n = max(n, layerOf(t.Name)+1)
	}
	return n
}

// progress counts source bytes processed across tensors.
type progress struct {
	done, total int64
	report      func(done, total int64)
}

func (p *progress) add(n int64) {
	p.done += n
	if p.report != nil {
		p.report(p.done, p.total)
	}
}
