package gpu

import "saji/kernels/quant"

// Kernel describes one GPU kernel: its name in the CUDA module (extern "C")
// and the Metal library, its parameters in order, and the launch geometry
// its code assumes. kernels/cuda/kernels.cu and kernels/metal/kernels.metal
// define every kernel listed here with exactly these parameters; their
// tests check it.
type Kernel struct {
	Name   string
	Params []Param
	// Block is the number of threads of a thread block (threadgroup): the
	// code relies on it (warp and shared-memory reductions).
	Block uint32
	// Grid says what the grid's X, Y (and Z) dimensions count.
	Grid string
}

// Param is one kernel parameter.
type Param struct {
	Name string
	Kind ArgKind
}

// Signature is k's parameter list for messages: "w ptr, k i32, ...".
func (k Kernel) Signature() string {
	s := ""
	for i, p := range k.Params {
		if i > 0 {
			s += ", "
		}
		s += p.Name + " " + p.Kind.String()
	}
	return s
}

// WeightTypes are the weight types with matmul and get_rows kernels; other
// types are converted to F16 when they are uploaded.
var WeightTypes = []quant.Type{
	quant.TypeF32, quant.TypeF16, quant.TypeQ4_0, quant.TypeQ8_0,
	quant.TypeQ4_K, quant.TypeQ5_K, quant.TypeQ6_K,
}

// CacheTypes are the key/value cache types (set_rows, attention).
var CacheTypes = []quant.Type{quant.TypeF32, quant.TypeF16, quant.TypeQ8_0}

// ActType is the format the activations of a matrix product with weights
// of type w are converted to first, as ggml's CPU backend does: Q8_0 for
// Q4_0 and Q8_0 weights, Q8_K for the K-quants, F32 otherwise (F16
// weights round them to F16 inside the kernel).
func ActType(w quant.Type) quant.Type {
	switch w {
	case quant.TypeQ4_0, quant.TypeQ8_0:
		return quant.TypeQ8_0
	case quant.TypeQ4_K, quant.TypeQ5_K, quant.TypeQ6_K:
		return quant.TypeQ8_K
	}
	return quant.TypeF32
}

// Suffix is the kernel-name suffix of a tensor type: "f32", "q4_k", ...
func Suffix(t quant.Type) string {
	switch t {
	case quant.TypeF32:
		return "f32"
	case quant.TypeF16:
		return "f16"
	case quant.TypeQ4_0:
		return "q4_0"
	case quant.TypeQ8_0:
		return "q8_0"
	case quant.TypeQ4_K:
		return "q4_k"
	case quant.TypeQ5_K:
		return "q5_k"
	case quant.TypeQ6_K:
		return "q6_k"
	}
	return ""
}

// Geometry shared by the kernels and the Backend.
const (
	// ElemBlock is the thread-block size of the element-wise and row kernels.
	ElemBlock = 256
	// MatVecRows is the number of weight rows of a mul_mat_vec block: one
	// warp (SIMD group of 32) per row.
	MatVecRows = 4
	// MatVecTokens is the number of tokens one mul_mat_vec block multiplies.
	MatVecTokens = 8
	// TileM and TileN are the rows of w and tokens of x of a mul_mat block
	// (256 threads, a 4×4 tile of dst each).
	TileM, TileN = 64, 64
	// AttnBlock is the thread-block size of attention: 4 warps.
	AttnBlock = 128
	// MaxHeadDim is the longest key or value head attention supports.
	MaxHeadDim = 256
	// A query row's cells are split into slices, each a block of its own,
	// when the rows and heads of a launch make fewer than AttnBlocks blocks
	// and the cache holds at least 2·AttnSliceCells cells (a decode step
	// over a long context): at most AttnMaxSplits slices of at least
	// AttnSliceCells cells, merged by attention_merge.
	AttnBlocks     = 512
	AttnSliceCells = 256
	AttnMaxSplits  = 64
)

func ptr(name string) Param { return Param{name, Ptr} }
func i32(name string) Param { return Param{name, I32} }
func f32(name string) Param { return Param{name, F32} }

// Kernels lists every kernel of the GPU backends. Semantics, by family
// (dst, src, w, x are byte or float pointers; rows are in ggml order, so a
// [cols, rows] tensor is rows consecutive rows of cols values):
//
//   - get_rows_T: dst[r][i] = dequant(table row ids[r])[i], i < cols.
//     Grid X: len(ids). Rows of table are row_bytes apart.
//   - set_rows_T (T = f32, f16, q8_0): row rows[r] of dst (row_bytes apart)
//     = src row r converted to T; Q8_0 as quant.Quantize (ggml's
//     reference quantize_row_q8_0: d = amax/127, stored as F16,
//     q = x·(1/d) rounded half away from zero). Grid X: len(rows).
//   - quantize_q8_0, quantize_q8_k: the activations of a quantized matrix
//     product in the weight type's dot-product format, as ggml's CPU
//     backend (and kernels/cpu, actquant.go) makes them, so that the GPU's
//     products round as the CPU's do. x holds nb blocks of 32 (Q8_0) or
//     256 (Q8_K) values; dst gets nb blocks. Q8_0 (34 bytes: F16 d, 32
//     int8): amax = max|x|, d = amax/127 stored as F16 (round to nearest
//     even), q = x·(127/amax) rounded half to even (0 when amax is 0).
//     Q8_K (292 bytes: float32 d at 0, 256 int8 at 4, 16 int16 sums of 16
//     quants at 260): the value of largest magnitude (the first, on ties)
//     max maps to −127: iscale = −127/max, q = min(127, x·iscale rounded
//     half to even), d = 1/iscale (all zero when max is 0). quantize_q8_0:
//     8 warps per block, a warp per Q8_0 block, grid X: ⌈nb/8⌉;
//     quantize_q8_k: a block per Q8_K block, grid X: nb.
//   - mul_mat_vec_T: dst[j][i] = Σ_l w[i][l]·x[j][l] for i < m (w rows,
//     row_bytes apart, k values each), j < n (tokens). Block: MatVecRows
//     warps, warp w taking row blockIdx.x·MatVecRows+w for tokens
//     blockIdx.y·MatVecTokens up to MatVecTokens of them. Grid X: ⌈m/4⌉,
//     Y: ⌈n/8⌉. x is in the activation format of T (ActType): F32 for f32
//     (k floats per token); F32 for f16, each value rounded to F16 before
//     it is multiplied; for q4_0 and q8_0, Q8_0 blocks from quantize_q8_0
//     (k/32·34 bytes per token); for q4_k, q5_k and q6_k, Q8_K blocks from
//     quantize_q8_k (k/256·292 bytes per token). Weights and activations
//     are dequantized to float (or multiplied as integers within a block
//     and scaled) and the products summed in float.
//   - mul_mat_T: the same product, with x in the same format, tiled for a
//     batch: block (x, y) computes dst rows y·TileN.. (tokens) and
//     columns x·TileM.. (weight rows) through shared memory. Grid X:
//     ⌈m/TileM⌉, Y: ⌈n/TileN⌉.
//   - rms_norm: y = x/√(mean(x²)+eps)·(has_w ? w : 1) over each group of n
//     consecutive values; grid X: number of groups.
//   - rope: rotates each head_dim-long head of row r (cols values) by
//     position pos[r]: pair p < dims/2 rotates by the angle θ_p = pos·
//     theta_scale^p (computed by p repeated float multiplications), divided
//     by factors[p] when has_factors, times freq_scale; when ext_factor is
//     not 0 (YaRN), the angle is instead the mix a·(1−r)+θ·r of that
//     angle a and the unscaled θ, r = ext_factor·ramp(p) with ramp(p) =
//     1 − clamp((p−corr_low)/max(0.001, corr_high−corr_low), 0, 1); the
//     cosine and sine are multiplied by mscale (kernels.RopeParams.Scaling
//     gives freq_scale, corr_low, corr_high and mscale); the pair is
//     (p, p+dims/2) when neox, else (2p, 2p+1): y0 = x0·cos−x1·sin,
//     y1 = x0·sin+x1·cos. Values of a head past dims are copied. dst may be
//     x. With sections s0..s3 (mrope 1: in order, 2: in turn, 3: vision;
//     kernels.RopeParams.Sections), pos holds four positions a row as four
//     runs of rows, each section's angle starts at its own position, and
//     a pair takes its section's; the vision mode starts a section's angle
//     again at its first pair and turns the pairs (p, p+dims) of whole
//     heads. Grid X: rows.
//   - add, mul: dst[i] = a[i] op b[i mod bn], i < n. scale: dst = s·x.
//     softcap: dst = c·tanh(x/c). glu_silu: dst = gate/(1+e^−gate)·up.
//     glu_gelu: dst = gelu(gate)·up with GELU as ggml's CPU backend: 0 for
//     gate <= −10, gate for gate >= 10, else the tanh approximation of the
//     gate rounded to F16, its result rounded to F16. glu_swiglu_oai: the
//     gate g clamped above at 7 and up u to [−7, 7],
//     dst = g/(1+e^(−1.702·g))·(u+1). glu_relu: dst = gate·up where
//     gate > 0, else +0. Grid X: ⌈n/256⌉.
//   - attention_T (T = f32, f16, q8_0: the cache type of K and V): causal
//     attention of query row j (heads·head_dim values), head h, over the
//     sequence's cells: key head h/(heads/kv_heads); cell c is row
//     (has_cells ? cells[c] : c) of k and v (k_row_bytes, v_row_bytes
//     apart); visible cells are max(0, pos[j]−window+1) (0 when window is
//     0) to min(pos[j], len−1); score s = q·k, s = softcap·tanh(s/softcap)
//     when softcap > 0, then s·scale; dst row j, head h (value_dim values)
//     = Σ softmax(s)·v, zeros when no cell is visible; with has_sinks,
//     sinks[h] joins the softmax as a score without a value (with one
//     slice; attention_merge adds it otherwise). Grid X: heads,
//     Y: query rows × splits: block y takes query row j = y/splits and,
//     of its n visible cells, slice z = y mod splits: the cells
//     z·⌈n/splits⌉ to (z+1)·⌈n/splits⌉−1 after the first visible one.
//     With splits = 1 it writes dst; otherwise it writes the slice's
//     partial softmax to part + ((j·heads + h)·splits + z)·(value_dim+2)
//     floats: its largest score m (−inf for an empty slice), l = Σ e^(s−m)
//     and value_dim sums Σ e^(s−m)·v (part is not read with splits = 1).
//   - attention_merge: dst row j, head h = Σ_z e^(m_z−M)·acc_z /
//     Σ_z e^(m_z−M)·l_z over the splits partials of part (M = max m_z;
//     slices with m_z = −inf count 0), zeros when every slice is empty;
//     with has_sinks, sinks[h] joins M and adds e^(sinks[h]−M) below.
//     Grid X: heads, Y: query rows.
//   - ssm_scan: Mamba-2's selective scan (kernels.Backend.SSMScan) of the
//     sequences of a batch; seqs holds three int32 per sequence: its first
//     row, its tokens and its state slot. Thread i < heads·head_dim of
//     block (x, y) (i = x·256 + thread) takes head h = i/head_dim, row
//     i mod head_dim of sequence y's state in slot s (states + s·heads·
//     head_dim·state_dim floats, row i at i·state_dim), and for each token
//     row r: d = softplus(dt[r·heads+h]) (d > 20: d), dA = e^(d·a[h]),
//     xd = x[r·heads·head_dim+i]·d, over group g = h/(heads/groups) of b
//     and c (rows of groups·state_dim): state[n] = fma(state[n], dA,
//     b[n]·xd), y = Σ_n state[n]·c[n] (fused, in order of n). With
//     has_bias, dt[r·heads+h] + dt_bias[h] takes dt's place; with has_d,
//     y gets x[r·heads·head_dim+i]·d_skip[h] added (kernels.SSMScanParams).
//     Grid X: ⌈heads·head_dim/256⌉, Y: sequences.
//   - gated_delta_net: the gated delta rule (kernels.Backend.GatedDeltaNet)
//     of the sequences of a batch, seqs as for ssm_scan. Thread i <
//     heads·head_dim takes value head h = i/head_dim, row j = i mod
//     head_dim of the head's transposed state (slot s at states +
//     s·heads·head_dim² floats, row i at i·head_dim), key and query head
//     h mod k_heads, and for each token row r: row ← row·e^(g[r·heads+h]),
//     delta = (v[j] − row·k)·beta[r·heads+h], row ← fma(k, delta, row),
//     out[j] = (row·q)·scale, the dot products fused in order. With
//     norm_eps > 0, q and k are first multiplied by 1/max(√Σx², norm_eps)
//     of their head; with has_gate, g is first softplus(g + (has_bias ?
//     dt_bias[h] : 0))·a[h]; with beta_logits, beta is first
//     1/(1+e^−beta) (kernels.DeltaNetParams). Grid X:
//     ⌈heads·head_dim/256⌉, Y: sequences.
//   - short_conv: the causal depthwise convolution of kernel size k
//     (kernels.Backend.ShortConv) of the sequences of a batch, seqs as for
//     ssm_scan. Thread i < c of block (x, y) takes channel i of sequence
//     y, whose window is the k−1 rows of c values of its slot s (states +
//     s·(k−1)·c floats, oldest first) followed by its rows of x; for each
//     token t, y[t][i] = Σ_j win[t+j][i]·w[j][i], each product fused into
//     the sum in order of j from 0; then the window's last k−1 rows go
//     back to the slot. Grid X: ⌈c/256⌉, Y: sequences.
var Kernels = buildKernels()

func buildKernels() []Kernel {
	var ks []Kernel
	add := func(k Kernel) { ks = append(ks, k) }
	for _, t := range WeightTypes {
		s := Suffix(t)
		add(Kernel{Name: "get_rows_" + s, Block: ElemBlock, Grid: "X: ids",
			Params: []Param{ptr("table"), ptr("ids"), ptr("dst"), i32("cols"), i32("row_bytes")}})
		add(Kernel{Name: "mul_mat_vec_" + s, Block: MatVecRows * 32, Grid: "X: ⌈m/4⌉, Y: ⌈n/8⌉",
			Params: []Param{ptr("w"), ptr("x"), ptr("dst"), i32("k"), i32("m"), i32("n"), i32("row_bytes")}})
		add(Kernel{Name: "mul_mat_" + s, Block: 256, Grid: "X: ⌈m/64⌉, Y: ⌈n/64⌉",
			Params: []Param{ptr("w"), ptr("x"), ptr("dst"), i32("k"), i32("m"), i32("n"), i32("row_bytes")}})
	}
	for _, t := range CacheTypes {
		s := Suffix(t)
		add(Kernel{Name: "set_rows_" + s, Block: ElemBlock, Grid: "X: rows",
			Params: []Param{ptr("src"), ptr("rows"), ptr("dst"), i32("cols"), i32("row_bytes")}})
		add(Kernel{Name: "attention_" + s, Block: AttnBlock, Grid: "X: heads, Y: query rows × splits",
			Params: []Param{ptr("q"), ptr("k"), ptr("v"), ptr("cells"), ptr("pos"), ptr("dst"),
				i32("heads"), i32("kv_heads"), i32("head_dim"), i32("value_dim"),
				i32("k_row_bytes"), i32("v_row_bytes"), i32("len"), i32("window"),
				f32("scale"), f32("softcap"), i32("has_cells"), ptr("part"), i32("splits"),
				ptr("sinks"), i32("has_sinks")}})
	}
	add(Kernel{Name: "attention_merge", Block: ElemBlock, Grid: "X: heads, Y: query rows",
		Params: []Param{ptr("part"), ptr("dst"), i32("heads"), i32("value_dim"), i32("splits"), ptr("sinks"), i32("has_sinks")}})
	add(Kernel{Name: "quantize_q8_0", Block: ElemBlock, Grid: "X: ⌈nb/8⌉",
		Params: []Param{ptr("x"), ptr("dst"), i32("nb")}})
	add(Kernel{Name: "quantize_q8_k", Block: ElemBlock, Grid: "X: nb",
		Params: []Param{ptr("x"), ptr("dst"), i32("nb")}})
	add(Kernel{Name: "rms_norm", Block: ElemBlock, Grid: "X: groups",
		Params: []Param{ptr("x"), ptr("w"), ptr("dst"), i32("n"), f32("eps"), i32("has_w")}})
	add(Kernel{Name: "rope", Block: ElemBlock, Grid: "X: rows",
		Params: []Param{ptr("x"), ptr("dst"), ptr("pos"), ptr("factors"), i32("cols"), i32("head_dim"),
			i32("dims"), f32("theta_scale"), f32("freq_scale"), i32("neox"), i32("has_factors"),
			f32("ext_factor"), f32("mscale"), f32("corr_low"), f32("corr_high"), i32("rows"), i32("mrope"),
			i32("s0"), i32("s1"), i32("s2"), i32("s3")}})
	for _, name := range []string{"add", "mul"} {
		add(Kernel{Name: name, Block: ElemBlock, Grid: "X: ⌈n/256⌉",
			Params: []Param{ptr("a"), ptr("b"), ptr("dst"), i32("n"), i32("bn")}})
	}
	add(Kernel{Name: "scale", Block: ElemBlock, Grid: "X: ⌈n/256⌉",
		Params: []Param{ptr("x"), ptr("dst"), i32("n"), f32("s")}})
	add(Kernel{Name: "softcap", Block: ElemBlock, Grid: "X: ⌈n/256⌉",
		Params: []Param{ptr("x"), ptr("dst"), i32("n"), f32("c")}})
	for _, name := range []string{"glu_silu", "glu_gelu", "glu_swiglu_oai", "glu_relu"} {
		add(Kernel{Name: name, Block: ElemBlock, Grid: "X: ⌈n/256⌉",
			Params: []Param{ptr("gate"), ptr("up"), ptr("dst"), i32("n")}})
	}
	add(Kernel{Name: "ssm_scan", Block: ElemBlock, Grid: "X: ⌈heads·head_dim/256⌉, Y: sequences",
		Params: []Param{ptr("x"), ptr("dt"), ptr("a"), ptr("b"), ptr("c"), ptr("states"), ptr("seqs"), ptr("y"),
			i32("heads"), i32("head_dim"), i32("state_dim"), i32("groups"),
			ptr("dt_bias"), ptr("d_skip"), i32("has_bias"), i32("has_d")}})
	add(Kernel{Name: "gated_delta_net", Block: ElemBlock, Grid: "X: ⌈heads·head_dim/256⌉, Y: sequences",
		Params: []Param{ptr("q"), ptr("k"), ptr("v"), ptr("g"), ptr("beta"), ptr("states"), ptr("seqs"), ptr("out"),
			i32("heads"), i32("k_heads"), i32("head_dim"), f32("scale"),
			f32("norm_eps"), ptr("a"), ptr("dt_bias"), i32("has_gate"), i32("has_bias"), i32("beta_logits")}})
	add(Kernel{Name: "short_conv", Block: ElemBlock, Grid: "X: ⌈c/256⌉, Y: sequences",
		Params: []Param{ptr("x"), ptr("w"), ptr("states"), ptr("seqs"), ptr("y"), i32("c"), i32("k")}})
	return ks
}

// Lookup returns the kernel named name.
func Lookup(name string) (Kernel, bool) {
	for _, k := range Kernels {
		if k.Name == name {
			return k, true
		}
	}
	return Kernel{}, false
}
