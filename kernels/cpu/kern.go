package cpu

import (
	"fmt"
	"log/slog"
	"os"
	"slices"
	"unsafe"

	"saji/kernels/quant"
)

// kernelSet holds the SIMD kernels for the running CPU. Every kernel has a
// pure-Go counterpart in this package (the oracle: decode32/dot32,
// decodeK/dotK, dotVec, dotTiny, quantizeQ8, quantizeQ8K) whose results it
// reproduces; a nil kernel falls back to that counterpart. Kernels read the
// weights' bytes as they are in the file: no repacking, no copy.
type kernelSet struct {
	// name says which instruction sets the kernels use ("avx2",
	// "neon+dotprod", ...); it is shown by saji bench.
	name string

	// q8 holds, by weight type, the dot product of one weight row (the raw
	// bytes of len(x) blocks of 32) with Q8_0 (Q8_1 for Q4_1/Q5_1)
	// activations: the same value as dot32 after decode32.
	q8 map[quant.Type]func(w []byte, x []q8Block) float32

	// q8K holds, by weight type, the dot product of one weight row (the raw
	// bytes of len(x) super-blocks of 256) with Q8_K activations: the same
	// value as dotK after decodeK, gemm as there.
	q8K map[quant.Type]func(w []byte, x []q8KBlock, gemm bool) float32

	// f16Vec and f16Tiny are dotVec(widen(w), x, true) and
	// dotTiny(widen(w), x) for a row of F16 weights; bf16Vec and bf16Tiny
	// the same for BF16; f32Vec and f32Tiny are dotVec(w, x, false) and
	// dotTiny(w, x). len(x) is the row length (a multiple of 16 for the
	// tiny forms).
	f16Vec, f16Tiny, bf16Vec, bf16Tiny func(w []byte, x []float32) float32
	f32Vec, f32Tiny                    func(w, x []float32) float32
	// f16Body and bf16Body are f16Vec's and bf16Vec's SIMD part: the sum
	// of the first n (a multiple of 64) products before dotVec's tail
	// (halfVec), where the set's f16Vec and bf16Vec are halfVec's.
	f16Body, bf16Body func(w *byte, x *float32, n int) float32
	// f16Rows and bf16Rows are f16Body and bf16Body over rows weight
	// rows (rows > 0) wstride bytes apart against one activation row,
	// out[r] row r's sum (nil: a call a row).
	f16Rows, bf16Rows func(w *byte, wstride int, x *float32, n int, out *float32, rows int)
	// f16RowsH is f16Rows against F16 activations (narrowed by
	// narrowF16), each out[r] the same bits, where the set has one (nil:
	// f16Rows): half the activation bytes to keep in L1 beside the
	// weights streaming past. AVX2's took llama-1b F16 decode from 10.1
	// to 10.9 t/s at one thread.
	f16RowsH func(w *byte, wstride int, x *byte, n int, out *float32, rows int)
	// f16Body4 is f16Body for four activation rows xstride bytes apart
	// at once (nil: four calls of f16Body).
	f16Body4 func(w *byte, x *float32, xstride, n int, out *[4]float32)
	// f16Body6 is f16Body for two weight rows wstride bytes apart against
	// three F16 activation rows xstride bytes apart: out[3r+c] is weight
	// row r's sum with activation row c (nil: no such kernel); narrowF16
	// writes its activations, src's values (already F16's) as F16.
	f16Body6  func(w *byte, wstride int, x *byte, xstride, n int, out *[6]float32)
	narrowF16 func(dst []byte, src []float32)
	// f16TileH is the F16 weights' tile against F16 activations (narrowed
	// by narrowF16), where the set has one; f16TileHCol is the bytes a
	// column of its register tile (F16 weights, float32 activations)
	// takes in L1 with the activations not narrowed (halfTileL1).
	f16TileH    *tileKernel
	f16TileHCol int

	// quantQ8 and quantQ8K are quantizeQ8 and quantizeQ8K.
	quantQ8  func(x []float32, out []q8Block, sums bool)
	quantQ8K func(x []float32, out []q8KBlock, grouped bool)

	// tiles holds, by weight type, register-blocked kernels that compute
	// a block of outputs at once (several weight rows against several
	// activation rows), so that each weight load and unpack serves several
	// activation rows and each activation load several weight rows. Each
	// output is computed exactly as the single-row kernel (and the oracle)
	// computes it. The matrix product picks the largest tile that fits and
	// finishes the edges with the single-row kernels.
	tiles map[quant.Type][]tileKernel

	// packed holds, by weight type, decode kernels (one activation row,
	// not in dotK's gemm order) that read weights in an interleaved
	// layout, with the layout. Each output equals the single-row kernel's
	// bit for bit. A type with a kernel here is repacked at load (Repack)
	// as repackSize says.
	packed map[quant.Type]packedKernel
}

// packedKernel is a decode kernel for weights whose rows are interleaved
// in groups, and the layout it reads.
type packedKernel struct {
	// rows is the number of weight rows a group interleaves.
	rows int
	// size returns the bytes of the layout of m weight rows (at least
	// rows) of rowBytes each: the full groups, and the rows after the last
	// one where pack copies them too (the matrix product reads those from
	// the file's layout).
	size func(m, rowBytes int) int
	// pack writes m weight rows of src, the file's layout, into dst in the
	// layout, over b's threads.
	pack func(b *Backend, dst, src []byte, m, rowBytes int)
	// gemv computes rows (a multiple of the group's) outputs for one
	// activation row: a.w is the first group, a.wstride a group's bytes
	// divided by its rows.
	gemv func(a *tileArgs, rows int)
	// tile, where the layout has one, computes a group's rows × tileRows
	// activation rows for prompts, each activation row in the order of
	// its a.gemm bit.
	tile func(a *tileArgs)
	// tileRows is the number of activation rows tile takes: 4 where 0.
	// tileGroup is the tile's tileKernel.group.
	tileRows, tileGroup int
	// tileScales is the tile's tileKernel.scales.
	tileScales func(a tileArgs, rows int, wd *float32)
	// gemvBatch is the largest batch (with no row in dotK's gemm order)
	// that runs on gemv row by row rather than on the tile, group by
	// group while the group's weights are in cache: where the decode
	// kernel does less work per activation row than the tile.
	gemvBatch int
	// maxCols, where not 0, is the longest rows (in values) that Repack
	// lays out this way by default: longer rows stay in the file's layout.
	maxCols int
	// unpack, where the layout has it, writes row r (of a full group) of
	// a weight of rowBytes per row in the file's layout into dst, from
	// the layout's bytes.
	unpack func(dst, packed []byte, r, rowBytes int)
}

// tileKernel is a register-blocked kernel for full tiles of mr weight rows
// by nr activation rows.
type tileKernel struct {
	mr, nr int
	fn     func(a *tileArgs)

	// rows, where set, is fn for rows weight rows (a multiple of mr), as
	// many tiles down the weight rows in one call: where the activation
	// rows are one block of nr (decode), a thread's share of the weight
	// rows goes to one call, not one call a group. decodeKernel makes fn
	// of it.
	rows func(a *tileArgs, rows int)

	// overlap has the activation rows after the last full tile (fewer
	// than nr) computed by one more tile over the last nr rows, which
	// computes some outputs a second time (the same values), rather than
	// by the single-row kernel: faster where the tile is several times the
	// single-row kernel's speed.
	overlap bool

	// narrow holds kernels for the same mr weight rows and fewer
	// activation rows, widest first (the set's, as buildSet links them):
	// the activation rows after the last full tile go to them while the
	// weight rows are still in cache (a batch of nine rows is a tile of
	// eight and a narrower one's row), the rows after those to the
	// single-row kernel.
	narrow []tileKernel

	// short, where set, is a kernel for the same mr weight rows and nr-1
	// activation rows. A cache tile whose rows are not a multiple of nr
	// then goes in blocks of nr and of nr-1, as many as ⌈rows/nr⌉ blocks
	// of nr would be, covering its rows exactly (ggml's tinyBLAS splits
	// its columns so): 128 rows are 18 blocks of six and 4 of five, where
	// overlap computes 22 blocks of six, 3% more.
	short *tileKernel

	// group, where set, is how many weight rows (a multiple of mr) each
	// block of nr activation rows passes over before the next block: the
	// group's weights and one block of activations then stay in L1 while
	// they meet, where by default every activation row of the cache tile
	// passes each mr weight rows and comes from L2 each time. It pays for
	// tiles that read more activation bytes than weight bytes per block.
	group int

	// scales, where set, marks a Q8_0 tile that reads its blocks' scales
	// from tileArgs.xd and tileArgs.wd, widened ahead, rather than
	// gathering and widening them from the blocks on every call: each
	// activation row's and weight row's are used by dozens of tiles.
	// scales widens those of rows weight rows (a multiple of mr) at a.w
	// into wd, by pairs of rows (tileArgs.wd); the matrix products
	// (tiledBlocks, blockExperts) lay out the activation rows'
	// (q8ActScales).
	scales func(a tileArgs, rows int, wd *float32)
}

// decodeKernel returns the decode tile (one activation row) of mr weight
// rows whose kernel rows computes any multiple of mr rows in one call:
// its fn is rows over mr.
func decodeKernel(mr int, rows func(a *tileArgs, rows int)) tileKernel {
	return tileKernel{mr: mr, nr: 1, fn: func(a *tileArgs) { rows(a, mr) }, rows: rows}
}

// tileArgs describes one tile. Its layout is read by assembly: keep the
// fields in this order, all 8 bytes wide.
type tileArgs struct {
	w       *byte          // @0: the first weight row (raw bytes)
	wstride int            // @8: bytes from one weight row to the next
	x       unsafe.Pointer // @16: the first activation row ([]q8Block, []q8KBlock or []float32 data)
	xstride int            // @24: bytes from one activation row to the next
	n       int            // @32: blocks per row (32-blocks or super-blocks), or values for float weights
	out     *float32       // @40: the output of (weight row 0, activation row 0)
	ostride int            // @48: floats from one activation row's outputs to the next (m)
	gemm    uint64         // @56: bit j: activation row j takes dotK's gemm order (Q4_K, Q2_K)

	// The blocks' scales, widened ahead, for the tiles with
	// tileKernel.scales; with xd nil such a tile gathers them itself.
	xd       unsafe.Pointer // @64: activation row 0's scale in block 0 (q8ActScales: the rows' scales are adjacent)
	xdstride int            // @72: bytes from one block's activation scales to the next
	wd       *float32       // @80: weight rows 0 and 1's scales, block by block: block b's at 2b and 2b+1
}

// newKernelSet returns an empty set called name, ready for an
// architecture's kernels to be added.
func newKernelSet(name string) *kernelSet {
	return &kernelSet{
		name:  name,
		q8:    map[quant.Type]func(w []byte, x []q8Block) float32{},
		q8K:   map[quant.Type]func(w []byte, x []q8KBlock, gemm bool) float32{},
		tiles: map[quant.Type][]tileKernel{},
	}
}

// simdDisabled reports whether SAJI_SIMD=off asks for the pure-Go kernels.
func simdDisabled() bool { return os.Getenv("SAJI_SIMD") == "off" }

// simdForced returns the kernel set SAJI_SIMD forces, or "" when it forces
// none this CPU runs. The kernels outside the sets (attention, element-wise
// ones), which every backend shares, follow it and simdDisabled too, so
// that a forced set runs as it would on a CPU that has nothing newer, and
// compares with a peer built for that CPU.
func simdForced() string {
	want := os.Getenv("SAJI_SIMD")
	if want == "" || want == "off" {
		return ""
	}
	name, err := resolveSet(want)
	if err != nil {
		return ""
	}
	return name
}

// flag is a CPU feature a kernel set needs, named as /proc/cpuinfo names
// it, and whether this CPU has it.
type flag struct {
	name string
	has  bool
}

// missing returns "cpu lacks F" for the first flag the CPU lacks, or "".
func missing(need []flag) string {
	for _, f := range need {
		if !f.has {
			return "cpu lacks " + f.name
		}
	}
	return ""
}

// KernelSets returns the names of the SIMD kernel sets this CPU runs,
// oldest first; the last is the one New picks. It is empty where there are
// none.
func KernelSets() []string {
	var names []string
	for _, n := range kernelSetNames {
		if lacks(n) == "" {
			names = append(names, n)
		}
	}
	return names
}

// CheckKernelSet returns nil if this CPU runs the kernel set name (one of
// KernelSets, or a short name SAJI_SIMD takes: avx2, vnni, avx512; neon,
// dotprod, i8mm), else an error saying what it lacks.
func CheckKernelSet(name string) error {
	_, err := resolveSet(name)
	return err
}

// resolveSet returns the full name of the kernel set name (or its short
// name), or an error saying what this CPU lacks to run it.
func resolveSet(name string) (string, error) {
	if a, ok := simdAliases[name]; ok {
		name = a
	}
	if why := lacks(name); why != "" {
		return "", fmt.Errorf("cpu: kernel set %s: %s", name, why)
	}
	return name, nil
}

// NewWithKernels is New with the kernel set name ("go" for the pure-Go
// kernels), whatever SAJI_SIMD says; it fails if the CPU cannot run it.
func NewWithKernels(threads int, name string) (*Backend, error) {
	b := NewReference(threads)
	if name == "go" || name == "off" {
		return b, nil
	}
	name, err := resolveSet(name)
	if err != nil {
		return nil, err
	}
	b.k = buildSet(name)
	return b, nil
}

// detectKernels returns the kernel set New runs: the newest this CPU has,
// or the one SAJI_SIMD names (avx2, vnni, avx512 on x86-64; neon, dotprod,
// i8mm on arm64). A set the CPU cannot run falls back to the newest it can,
// with a warning; nil means the pure-Go kernels.
func detectKernels() *kernelSet {
	sets := KernelSets()
	if len(sets) == 0 {
		return nil
	}
	name := sets[len(sets)-1]
	if want := os.Getenv("SAJI_SIMD"); want != "" && want != "off" {
		if set, err := resolveSet(want); err != nil {
			slog.Warn("SAJI_SIMD names a kernel set this CPU cannot run; using the newest it can", "SAJI_SIMD", want, "err", err, "using", name)
		} else {
			name = set
		}
	}
	return buildSet(name)
}

// Kernels returns the name of the kernel set the backend runs: "go" for the
// pure-Go oracle, otherwise the SIMD instruction sets in use.
func (b *Backend) Kernels() string {
	if b.k == nil {
		return "go"
	}
	return b.k.name
}

// dotQ8 returns the SIMD kernel for t's rows against Q8_0/Q8_1
// activations, or nil.
func (k *kernelSet) dotQ8(t quant.Type) func(w []byte, x []q8Block) float32 {
	if k == nil {
		return nil
	}
	return k.q8[t]
}

// dotQ8K returns the SIMD kernel for t's rows against Q8_K activations, or
// nil.
func (k *kernelSet) dotQ8K(t quant.Type) func(w []byte, x []q8KBlock, gemm bool) float32 {
	if k == nil {
		return nil
	}
	return k.q8K[t]
}

// f32Dot returns the SIMD form of floatDot(n, cols, false), or nil.
func (k *kernelSet) f32Dot(n, cols int) func(w, x []float32) float32 {
	if k == nil {
		return nil
	}
	if tinyOrder(n, cols) {
		return k.f32Tiny
	}
	return k.f32Vec
}

// halfDot returns the SIMD kernel for an F16 (kind dotF16) or BF16 weight
// row against activations already rounded to the weight type, in the
// order floatDot(n, cols, true) picks, or nil.
func (k *kernelSet) halfDot(kind dotKind, n, cols int) func(w []byte, x []float32) float32 {
	if k == nil {
		return nil
	}
	tiny := tinyOrder(n, cols)
	switch {
	case kind == dotF16 && tiny:
		return k.f16Tiny
	case kind == dotF16:
		return k.f16Vec
	case tiny:
		return k.bf16Tiny
	}
	return k.bf16Vec
}

// halfRows returns the many-row form of halfDot's kernel for one
// activation row of cols values where it has one and the row has no tail
// past its 64s (so that each sum is the body's alone), or nil.
func (k *kernelSet) halfRows(kind dotKind, n, cols int) func(w *byte, wstride int, x *float32, n int, out *float32, rows int) {
	if k == nil || n != 1 || cols%64 != 0 {
		return nil
	}
	if kind == dotF16 {
		return k.f16Rows
	}
	return k.bf16Rows
}

// halfBody returns the SIMD body of halfDot's kernel where it is
// halfVec's (not the tiny order) and the row has a tail past its 64s, or
// nil.
func (k *kernelSet) halfBody(kind dotKind, n, cols int) func(w *byte, x *float32, n int) float32 {
	if k == nil || tinyOrder(n, cols) || cols%64 == 0 {
		return nil
	}
	if kind == dotF16 {
		return k.f16Body
	}
	return k.bf16Body
}

// setTile puts tk in k's tiles for t in the place of the tile of its
// shape (mr×nr), or adds it: how a newer set replaces an older set's tile.
func setTile(k *kernelSet, t quant.Type, tk tileKernel) {
	for i, old := range k.tiles[t] {
		if old.mr == tk.mr && old.nr == tk.nr {
			k.tiles[t][i] = tk
			return
		}
	}
	k.tiles[t] = append(k.tiles[t], tk)
}

// buildSet returns the kernel set name, which the CPU must run, each of
// its tiles with its narrow kernels: the set's tiles of the same weight
// rows and fewer activation rows, widest first.
func buildSet(name string) *kernelSet {
	k := archSet(name)
	if k == nil {
		return nil
	}
	for _, tks := range k.tiles {
		narrow := make([][]tileKernel, len(tks))
		for i, tk := range tks {
			for _, nk := range tks {
				if nk.mr == tk.mr && nk.nr < tk.nr {
					narrow[i] = append(narrow[i], nk)
				}
			}
			slices.SortStableFunc(narrow[i], func(a, b tileKernel) int { return b.nr - a.nr })
		}
		for i := range tks {
			tks[i].narrow = narrow[i]
		}
	}
	return k
}

// tile returns the tile kernel for t that does the most work per call on
// batches of n activation rows, or nil.
func (k *kernelSet) tile(t quant.Type, n int) *tileKernel {
	if k == nil {
		return nil
	}
	var best *tileKernel
	for i, tk := range k.tiles[t] {
		if tk.nr > n {
			continue
		}
		if best == nil || tk.mr*tk.nr > best.mr*best.nr {
			best = &k.tiles[t][i]
		}
	}
	return best
}
