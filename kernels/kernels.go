package kernels

import (
	"errors"
	"fmt"

	"saji/kernels/quant"
)

// ErrShape is wrapped by the errors for operands whose shapes or types do
// not fit an operation.
var ErrShape = errors.New("kernels: operand shape mismatch")

// Tensor is an array of numbers that lives on one Backend: a weight viewed
// from a model file, or an activation produced by an operation. Its shape is
// in ggml order: Shape()[0] is the length of a row (the fastest-varying
// dimension) and the product of the others is the number of rows.
//
// A Tensor's data is only reachable through its Backend; the host reads and
// writes activations with Backend.Read and Backend.Write.
type Tensor interface {
	// Backend is the backend that holds the data and runs operations on it.
	Backend() Backend
	// Type is the element type (F32 for activations).
	Type() quant.Type
	// Shape is the shape in ggml order. It must not be modified.
	Shape() []int
}

// Cols returns the row length of t (Shape()[0]).
func Cols(t Tensor) int {
	s := t.Shape()
	if len(s) == 0 {
		return 1
	}
	return s[0]
}

// Rows returns the number of rows of t: the product of its dimensions
// after the first.
func Rows(t Tensor) int {
	n := 1
	for _, d := range t.Shape()[1:] {
		n *= d
	}
	return n
}

// Activation selects the non-linearity of a gated feed-forward layer.
type Activation int

// The activations of GLU.
const (
	// SiLU is x·sigmoid(x) (SwiGLU when gated).
	SiLU Activation = iota
	// GELU is the tanh approximation of GELU evaluated as ggml does: the
	// input is rounded to F16 and looked up in a table of F16 results;
	// inputs <= -10 give 0 and inputs >= 10 give x (GEGLU when gated).
	GELU
	// SwiGLUOAI is gpt-oss's clamped SwiGLU (ggml's swiglu_oai with alpha
	// 1.702 and limit 7): the gate g is clamped above at 7 and the input u
	// to [-7, 7], and the result is g·sigmoid(1.702·g)·(u+1).
	SwiGLUOAI
	// ReLU gives gate·up where the gate is positive and +0 elsewhere
	// (ReGLU, up to the sign of a zero). With the input as gate and up
	// alike it is relu(x)², Nemotron-H's squared ReLU, exactly as
	// ggml_relu then ggml_sqr compute it.
	ReLU
)

// The constants of SwiGLUOAI, as gpt-oss and llama.cpp's
// LLM_FFN_SWIGLU_OAI_MOE fix them.
const (
	SwiGLUOAIAlpha float32 = 1.702
	SwiGLUOAILimit float32 = 7
)

// RopeParams configures rotary position embedding.
type RopeParams struct {
	// HeadDim is the length of one head; the rows of x are split into heads
	// of this length.
	HeadDim int
	// Dims is the number of leading dimensions of each head that rotate
	// (partial rotary embedding); the rest pass through. Even, <= HeadDim.
	Dims int
	// Base is the frequency base θ: pair i rotates by pos·Base^(-2i/Dims).
	Base float32
	// FreqScale multiplies every angle (linear rope scaling); 0 means 1.
	FreqScale float32
	// Factors, when not nil, holds Dims/2 divisors of the per-pair
	// frequencies (Llama 3.1's rope_freqs.weight, Phi-3's long/short factors).
	Factors []float32
	// Neox selects the GPT-NeoX layout, which rotates element i with element
	// i+Dims/2. Otherwise adjacent pairs (2i, 2i+1) rotate (ggml's NORM mode).
	Neox bool
	// YaRN, when its ExtFactor is not 0, corrects FreqScale's interpolation
	// by the YaRN ramp; its AttnFactor scales the rotation either way.
	YaRN YaRN
	// Sections, when any is above 0, makes the rotation ggml's rope with
	// several positions per row (ggml_rope_multi, M-RoPE: Qwen2-VL's and
	// its successors'): pos holds four positions for each row of x, as
	// four runs of Rows(x) values (time, height, width, extra), and each
	// rotating pair takes the position of its section. Sections counts
	// pairs; pair i falls in sector i mod the sections' sum, and the
	// sectors run through the sections in order, or in turn (Interleaved).
	// The pairs are NeoX halves (Neox must be set), except in Vision mode.
	Sections [4]int
	// Interleaved assigns the sectors to the first three sections in turn
	// (Qwen3-VL's IMRoPE): sector s goes to section s mod 3 while s is
	// below three times that section's size, else to the fourth.
	Interleaved bool
	// Vision is ggml's vision mode of the rope with sections (Qwen2-VL's
	// encoder): every value of a head turns, Dims is half the head (ggml's
	// n_dims), and pair i (< Dims) is (i, i+Dims); each section's angles
	// start again from its position, as if it were a rope of its own.
	Vision bool
}

// Multi reports whether p is a rope with several positions per row
// (Sections).
func (p RopeParams) Multi() bool { return p.Sections != [4]int{} }

// PosPerRow returns how many positions each row takes: four for a rope
// with sections, else one.
func (p RopeParams) PosPerRow() int {
	if p.Multi() {
		return 4
	}
	return 1
}

// Section returns the section (0 to 3: time, height, width, extra) whose
// position pair i of a rope with sections takes.
func (p RopeParams) Section(i int) int {
	s := p.Sections
	sector := i % (s[0] + s[1] + s[2] + s[3])
	if p.Interleaved {
		switch {
		case sector%3 == 1 && sector < 3*s[1]:
			return 1
		case sector%3 == 2 && sector < 3*s[2]:
			return 2
		case sector%3 == 0 && sector < 3*s[0]:
			return 0
		}
		return 3
	}
	switch {
	case sector < s[0]:
		return 0
	case sector < s[0]+s[1]:
		return 1
	case sector < s[0]+s[1]+s[2]:
		return 2
	}
	return 3
}

// Restart returns the section whose angle the vision mode starts again
// from its position at pair i, or -1: ggml's indep_sects, which checks
// the sections' starts in order, so that a section of size 0 takes the
// restart of the one after it.
func (p RopeParams) Restart(i int) int {
	s := p.Sections
	sector := i % (s[0] + s[1] + s[2] + s[3])
	start := 0
	for k := range 4 {
		if sector == start {
			return k
		}
		start += s[k]
	}
	return -1
}

// YaRN configures YaRN rope scaling as ggml's rope_yarn computes it: pair
// i's angle θ (before FreqScale) becomes the mix
// FreqScale·θ·(1−r_i) + θ·r_i with r_i = ExtFactor·ramp(i), where the ramp
// falls from 1 to 0 between the correction dims of BetaFast and BetaSlow
// rotations over OrigContext positions; the cosine and sine are multiplied
// by AttnFactor, times 1 + 0.1·ln(1/FreqScale) when ExtFactor is not 0.
// The zero value is plain rope.
type YaRN struct {
	// ExtFactor weighs the extrapolated angles in the ramp (1 for YaRN);
	// 0 turns the ramp and its magnitude correction off.
	ExtFactor float32
	// AttnFactor multiplies the cosine and sine; 0 means 1.
	AttnFactor float32
	// BetaFast and BetaSlow are the numbers of rotations over OrigContext
	// positions that bound the ramp (llama.cpp's defaults are 32 and 1).
	BetaFast, BetaSlow float32
	// OrigContext is the context length the model was trained with before
	// scaling.
	OrigContext int
}

// AttentionParams configures scaled dot-product attention.
type AttentionParams struct {
	// Heads and KVHeads are the numbers of query and key/value heads;
	// Heads must be a multiple of KVHeads (grouped-query attention).
	Heads, KVHeads int
	// HeadDim is the length of a query and key head; ValueDim of a value head.
	HeadDim, ValueDim int
	// Scale multiplies the scores q·k before the softmax.
	Scale float32
	// Window, when above 0, limits each query at position p to the keys at
	// positions p' with p-p' < Window (sliding-window attention).
	Window int
	// Softcap, when above 0, caps the raw scores q·k at Softcap·tanh(s/Softcap)
	// before they are scaled (Gemma 2's attention softcap).
	Softcap float32
	// Sinks, when not nil, holds a logit for each query head that joins the
	// softmax's denominator without a value (gpt-oss's attention sinks):
	// the weights of the cells sum to less than 1 by the sink's share.
	Sinks []float32
}

// KV is attention's view of one layer's key/value cache. K holds one row of
// KVHeads·HeadDim keys per cell and V one row of KVHeads·ValueDim values;
// logical cell i holds the token at position i of the sequence, and cells
// 0..Len-1 are filled.
//
// Cells, when not nil, maps each logical cell to the row of K and V that
// holds it: a paged cache passes its block table flattened this way, so
// that attention reads scattered blocks without copying them. A nil Cells
// means cell i is row i. With a sliding window, cells that no query of the
// call can see may be -1 (a paged cache releases them).
//
// Size, when above 0, is the logical size of the sequence's cache (its
// context length); a nil-Cells cache's size is the rows of K. Backends
// that reproduce llama.cpp's order of summation need it, because llama.cpp
// attends over the used cells padded to 256, but at most the cache size.
type KV struct {
	K, V  Tensor
	Len   int
	Cells []int32
	Size  int
}

// SeqKV is one sequence's share of AttentionSeqs: len(Pos) consecutive
// query rows at positions Pos, attending over the sequence's own cache
// view KV.
type SeqKV struct {
	KV  KV
	Pos []int32
}

// Row returns the physical row of logical cell i.
func (kv KV) Row(i int) int {
	if kv.Cells == nil {
		return i
	}
	return int(kv.Cells[i])
}

// Backend creates tensors and runs the operations of a transformer on them.
// All operands of one call must live on this backend; activations are F32
// matrices whose rows are tokens ([n_features, n_tokens] in ggml order).
// Operations write into a caller-allocated dst, which may be one of the
// inputs where the shapes agree (in-place), unless the method says not.
//
// Every operation is deterministic for a given backend: the number of
// threads does not change the result. Every backend checks an operation's
// operands with the Check function of the same name (check.go), so that
// all of them refuse the same operands with the same error.
type Backend interface {
	// Name identifies the backend ("cpu", "cuda:0", ...).
	Name() string

	// Weight returns a tensor of type typ and shape over data, the bytes of
	// a weight in the block layout of typ. Backends that can read host
	// memory use data in place (zero-copy from a mapped model file), so it
	// must stay valid and unmodified while the tensor is in use; others
	// copy it to device memory.
	Weight(typ quant.Type, shape []int, data []byte) (Tensor, error)
	// New allocates a zeroed tensor of type typ (F32, or F16 for caches).
	New(typ quant.Type, shape ...int) (Tensor, error)
	// Write copies host values into dst (converting to dst's type).
	Write(dst Tensor, src []float32) error
	// Read copies src's values (of any type) to the host as float32.
	Read(src Tensor, dst []float32) error

	// GetRows sets row r of dst to row ids[r] of table, dequantized
	// (embedding lookup). table may be of any supported type.
	GetRows(dst, table Tensor, ids []int32) error
	// SetRows converts row r of src and stores it in row rows[r] of dst
	// (F32 or F16), as when writing new keys and values into a cache.
	SetRows(dst, src Tensor, rows []int32) error
	// MatMul multiplies each row of x by the weight w: for w of shape
	// [k, m] and x of shape [k, n], dst is [m, n] with
	// dst[j][i] = Σ w[i][l]·x[j][l]. Like ggml, quantized weights are
	// multiplied by activations quantized to the weight's dot-product
	// format. dst must not alias x.
	MatMul(dst, w, x Tensor) error
	// Add sets dst = a + b. b has the shape of a, or is a single row that
	// is added to every row of a (a bias).
	Add(dst, a, b Tensor) error
	// Mul sets dst = a ⊙ b with b broadcast as in Add.
	Mul(dst, a, b Tensor) error
	// Scale sets dst = s·x.
	Scale(dst, x Tensor, s float32) error
	// RMSNorm normalizes each group of Cols(w) consecutive values of x by
	// its root mean square and multiplies it by w: y = x/√(mean(x²)+eps)·w.
	// With a w shorter than a row of x it normalizes each head separately.
	// A nil w normalizes rows without a weight.
	RMSNorm(dst, x, w Tensor, eps float32) error
	// Rope rotates the heads of each row j of x by position pos[j].
	Rope(dst, x Tensor, pos []int32, p RopeParams) error
	// GLU sets dst = act(gate) ⊙ up.
	GLU(dst, gate, up Tensor, act Activation) error
	// Softcap sets dst = c·tanh(x/c).
	Softcap(dst, x Tensor, c float32) error
	// Attention computes causal multi-head attention of the queries q
	// (one row of Heads·HeadDim per token, token j at position pos[j]) over
	// the cells of kv, writing one row of Heads·ValueDim per token to dst.
	// A query at position p sees the cells at positions <= p (and within
	// the window, if any). dst must not alias q.
	Attention(dst, q Tensor, kv KV, pos []int32, p AttentionParams) error
	// AttentionSeqs is Attention for a batch that mixes the tokens of
	// several sequences: the rows of q and dst belong to seqs in order
	// (len(seqs[i].Pos) rows each), and each sequence attends over its own
	// cache view only. Every row's result is the one Attention gives for
	// that sequence alone, so batching never changes a sequence's output.
	AttentionSeqs(dst, q Tensor, seqs []SeqKV, p AttentionParams) error

	// The recurrences of hybrid models' linear layers (Mamba-2's selective
	// scan, the gated delta net of Qwen3.5 and Qwen3-Next). Each runs a
	// batch whose rows belong to seqs in order, each sequence from the
	// state in its slot of states, which it overwrites with the state
	// after its last token: what ggml's op computes followed by the copy
	// of its final state back into the cache.

	// SSMScan is Mamba-2's selective scan (ggml_ssm_scan with one decay
	// per head): for token t, head h, row i < HeadDim and state column
	// n < StateDim of group g = h/(Heads/Groups), with d = softplus(dt[t][h])
	// (dt as the graph leaves it, its bias added),
	// S[h][i][n] = S[h][i][n]·exp(d·a[h]) + b[t][g][n]·(x[t][h][i]·d) and
	// y[t][h][i] = Σ_n S[h][i][n]·c[t][g][n]. x and y are
	// [Heads·HeadDim, n], dt [Heads, n], b and c [Groups·StateDim, n],
	// a holds Heads values (−exp(A_log)); a slot of states is
	// [StateDim, HeadDim, Heads]. The dt bias and the skip term D·x, which
	// llama.cpp's graph adds around the op, are added where p has them.
	// y must not alias an input.
	SSMScan(y, x, dt, a, b, c, states Tensor, seqs []RecurrentSeq, p SSMScanParams) error
	// GatedDeltaNet is the gated delta rule (ggml_gated_delta_net with a
	// scalar gate per head): for token t and value head h, reading query
	// and key head h mod KHeads (ggml's tiled broadcast), with S the head's
	// HeadDim×HeadDim state, S ← exp(g[t][h])·S, then
	// S ← S + k·(β[t][h]·(v − Sᵀk))ᵀ, and out[t][h] = Sᵀq/√HeadDim. q and
	// k are [KHeads·HeadDim, n] (L2-normalized, by the caller or by
	// p.NormEps), v and out [Heads·HeadDim, n], g and beta [Heads, n]
	// (the log-decay softplus(α+dt_bias)·a and sigmoid(β), computed by the
	// caller or from α and β as p says); a slot of states is
	// [HeadDim, HeadDim, Heads], element
	// (j, i) of a head being S[i][j]. One loop over the tokens serves
	// prompts and decode alike, as llama.cpp's fused op does on every
	// backend that has it. out must not alias an input.
	GatedDeltaNet(out, q, k, v, g, beta, states Tensor, seqs []RecurrentSeq, p DeltaNetParams) error
	// ShortConv is a causal depthwise convolution of kernel size K over the
	// tokens of several sequences (LFM2's short convolution: ggml's
	// ssm_conv over the state and the new inputs). w holds the taps as K
	// rows of C channels (row j: each channel's j-th tap, the transpose of
	// a GGUF file's conv weight); x and dst hold one row of C values per
	// token, the rows belonging to seqs in order; state holds one row of
	// (K-1)·C values per slot: a sequence's last K-1 inputs, oldest first,
	// a row of C each. Over win, the slot's K-1 rows followed by the
	// sequence's rows of x, dst[t][c] = Σ_j win[t+j][c]·w[j][c], each
	// product fused into the sum in order of j from zero; the last K-1 rows
	// of win are written back to the slot. dst must not alias x.
	ShortConv(dst, x, w, state Tensor, seqs []ConvSeq) error
}

// ConvSeq is one sequence's part of a ShortConv: its N rows of the input
// and the row of the state that holds its window.
type ConvSeq struct {
	N, Slot int
}

// RecurrentSeq is one sequence's share of a recurrent operation's batch:
// Tokens consecutive rows, run from the state in slot Slot of the states
// tensor (a recurrent layer's states for every sequence, slot after slot),
// which the operation overwrites with the state after the last token.
type RecurrentSeq struct {
	Slot   int
	Tokens int
}

// SSMScanParams configures Mamba-2's selective scan (SSMScan).
type SSMScanParams struct {
	// Heads and HeadDim: a row of x holds Heads heads of HeadDim values.
	Heads, HeadDim int
	// StateDim is d_state, the length of a state row; Groups is n_group:
	// a row of b and c holds Groups groups of StateDim values, head h
	// reading group h/(Heads/Groups).
	StateDim, Groups int
	// DtBias, when not nil, holds a bias per head that is added to dt
	// first (ssm_dt.bias, as llama.cpp's graph adds it before the scan).
	DtBias []float32
	// D, when not nil, holds the skip weight per head (ssm_d): the scan's
	// y[t][h][i] gets x[t][h][i]·D[h] added, the product and the sum
	// rounded as ggml_mul and ggml_add round them after the op.
	D []float32
}

// SlotSize returns the number of values of one sequence's state.
func (p SSMScanParams) SlotSize() int { return p.StateDim * p.HeadDim * p.Heads }

// DeltaNetParams configures the gated delta net (GatedDeltaNet). Its
// optional fields have the operation compute what llama.cpp's graph
// computes before ggml_gated_delta_net, with ggml's rounding, so that a
// model passes its projections as they come.
type DeltaNetParams struct {
	// Heads is the number of value heads (and states), KHeads of query and
	// key heads (a divisor of Heads); every head is HeadDim long.
	Heads, KHeads, HeadDim int
	// NormEps, when above 0, normalizes each head of q and k first, as
	// ggml_l2_norm does: x·(1/max(√Σx², NormEps)), the sum in float64.
	NormEps float32
	// A, when not nil, makes g the raw gate projection α: the log-decay of
	// head h is softplus(α + DtBias[h])·A[h] (Qwen3.5's ssm_alpha, ssm_dt
	// bias and ssm_a = −exp(A_log); a nil DtBias adds nothing), each step
	// rounded as ggml_add, ggml_softplus and ggml_mul round it.
	A, DtBias []float32
	// BetaLogits makes beta the raw projection: the operation takes its
	// sigmoid first (ggml_sigmoid: 1/(1+e^−β)).
	BetaLogits bool
}

// SlotSize returns the number of values of one sequence's state.
func (p DeltaNetParams) SlotSize() int { return p.HeadDim * p.HeadDim * p.Heads }

// ExpertMatMul is implemented by backends that multiply each activation
// row by the expert weights chosen for it in one call (ggml's MUL_MAT_ID),
// batching the rows that chose the same expert. Mixture-of-experts models
// use it where the backend has it, and otherwise build the same product
// from GetRows, MatMul and SetRows per expert.
type ExpertMatMul interface {
	// MatMulExperts sets row r of dst to experts[ids[r]] times row
	// r/(Rows(dst)/Rows(x)) of x: each row of x feeds that many
	// consecutive rows of dst (a token's k chosen experts), and is
	// converted to the experts' dot-product format once. The experts have
	// one type and shape [k, m], x is [k, n] and dst [m, len(ids)]. Every
	// row of dst equals what MatMul gives for that expert and row alone
	// (a batch of one row: ggml's order of summation for MUL_MAT_ID).
	// dst must not alias x.
	MatMulExperts(dst Tensor, experts []Tensor, x Tensor, ids []int32) error
}

// Recycler is implemented by backends that can reuse the memory of
// activations: after Recycle(ts...), the caller promises never to use ts
// again, and a later New of the same size may return their memory. A
// forward pass recycles a layer's intermediate results at the next layer
// boundary, so that one layer's buffers serve them all, the heap does not
// grow with the batch and the garbage collector has little to do.
type Recycler interface {
	Recycle(ts ...Tensor)
}

// Move returns t on backend b: t itself when it is already there, or else a
// copy made through host memory. Models call it where consecutive layers
// live on different backends.
func Move(b Backend, t Tensor) (Tensor, error) {
	if t.Backend() == b {
		return t, nil
	}
	if t.Type() != quant.TypeF32 {
		return nil, fmt.Errorf("kernels: moving a %v tensor: only F32 activations move between backends", t.Type())
	}
	host := make([]float32, Cols(t)*Rows(t))
	if err := t.Backend().Read(t, host); err != nil {
		return nil, err
	}
	dst, err := b.New(quant.TypeF32, t.Shape()...)
	if err != nil {
		return nil, err
	}
	if err := b.Write(dst, host); err != nil {
		return nil, err
	}
	return dst, nil
}
