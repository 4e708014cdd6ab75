package kernels

import (
	"fmt"

	"saji/kernels/quant"
)

// This file holds the operand checks of the Backend contract, written once
// for every backend: each backend converts its operands to its own tensors
// and calls the check of the operation before it computes anything. A
// check's error names the operation and wraps ErrShape where the shapes or
// types do not fit; the backend prefixes its own name ("cpu: ...").

// elements returns the number of values of a tensor of shape, or an error
// for a negative dimension.
func elements(shape []int) (int, error) {
	n := 1
	for _, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("negative dimension in shape %v: %w", shape, ErrShape)
		}
		n *= d
	}
	return n, nil
}

// CheckWeight checks that data holds a tensor of typ and shape in typ's
// block layout (Backend.Weight), and returns its number of values.
func CheckWeight(typ quant.Type, shape []int, data []byte) (int, error) {
	if !typ.Known() {
		return 0, fmt.Errorf("unknown tensor type %d", uint32(typ))
	}
	n, err := elements(shape)
	if err != nil {
		return 0, err
	}
	if len(shape) > 0 && shape[0]%typ.BlockSize() != 0 {
		return 0, fmt.Errorf("row length %d is not a multiple of the %v block size %d: %w", shape[0], typ, typ.BlockSize(), ErrShape)
	}
	if want := n / typ.BlockSize() * typ.TypeSize(); len(data) != want {
		return 0, fmt.Errorf("%v tensor of shape %v needs %d bytes, got %d: %w", typ, shape, want, len(data), ErrShape)
	}
	return n, nil
}

// CheckNew checks that a tensor of typ and shape can be allocated
// (Backend.New: F32, F16, or Q8_0 with rows a multiple of 32 long), and
// returns its number of values.
func CheckNew(typ quant.Type, shape []int) (int, error) {
	n, err := elements(shape)
	if err != nil {
		return 0, err
	}
	switch typ {
	case quant.TypeF32, quant.TypeF16:
	case quant.TypeQ8_0:
		if len(shape) > 0 && shape[0]%typ.BlockSize() != 0 {
			return 0, fmt.Errorf("a Q8_0 row of %d values is not a multiple of %d: %w", shape[0], typ.BlockSize(), ErrShape)
		}
	default:
		return 0, fmt.Errorf("cannot allocate a %v tensor (only F32, F16 and Q8_0)", typ)
	}
	return n, nil
}

// size is the number of values of t.
func size(t Tensor) int { return Cols(t) * Rows(t) }

// sameShape reports whether a and b have the same number of rows and
// columns.
func sameShape(a, b Tensor) bool { return Cols(a) == Cols(b) && Rows(a) == Rows(b) }

// CheckWrite checks that src holds one value for each of dst's
// (Backend.Write).
func CheckWrite(dst Tensor, src []float32) error {
	if n := size(dst); len(src) != n {
		return fmt.Errorf("writing %d values into a tensor of %d: %w", len(src), n, ErrShape)
	}
	return nil
}

// CheckRead checks that dst has room for each of src's values, and no
// more (Backend.Read).
func CheckRead(src Tensor, dst []float32) error {
	if n := size(src); len(dst) != n {
		return fmt.Errorf("reading a tensor of %d values into %d: %w", n, len(dst), ErrShape)
	}
	return nil
}

// checkRows checks that every one of ids is a row of a tensor of n rows.
func checkRows(op string, ids []int32, n int) error {
	for _, id := range ids {
		if id < 0 || int(id) >= n {
			return fmt.Errorf("%s: row %d out of range [0, %d)", op, id, n)
		}
	}
	return nil
}

// CheckGetRows checks the operands of Backend.GetRows: a row of dst for
// each id, rows of table's length, and every id a row of table.
func CheckGetRows(dst, table Tensor, ids []int32) error {
	if Cols(dst) != Cols(table) || Rows(dst) != len(ids) {
		return fmt.Errorf("get_rows of %d rows of %v into %v: %w", len(ids), table.Shape(), dst.Shape(), ErrShape)
	}
	return checkRows("get_rows", ids, Rows(table))
}

// CheckSetRows checks the operands of Backend.SetRows: an F32, F16 or
// Q8_0 dst, a row of src for each of rows, rows of dst's length, and every
// one of rows a row of dst.
func CheckSetRows(dst, src Tensor, rows []int32) error {
	typ := dst.Type()
	if Cols(dst) != Cols(src) || Rows(src) != len(rows) || (typ != quant.TypeF32 && typ != quant.TypeF16 && typ != quant.TypeQ8_0) {
		return fmt.Errorf("set_rows of %v into %v %v: %w", src.Shape(), typ, dst.Shape(), ErrShape)
	}
	return checkRows("set_rows", rows, Rows(dst))
}

// CheckMatMul checks the operands of Backend.MatMul: w [k, m] by x [k, n]
// into dst [m, n], dst not x.
func CheckMatMul(dst, w, x Tensor) error {
	if Cols(x) != Cols(w) || Cols(dst) != Rows(w) || Rows(dst) != Rows(x) {
		return fmt.Errorf("matmul of weight %v by input %v into %v: %w", w.Shape(), x.Shape(), dst.Shape(), ErrShape)
	}
	if dst == x {
		return fmt.Errorf("matmul destination aliases its input: %w", ErrShape)
	}
	return nil
}

// CheckMatMulExperts checks the operands of ExpertMatMul.MatMulExperts:
// experts of one type and shape [k, m], x [k, n], dst [m, len(ids)] with
// len(ids) a multiple of n, every id an expert, dst not x. It returns how
// many rows of dst each row of x feeds.
func CheckMatMulExperts(dst Tensor, experts []Tensor, x Tensor, ids []int32) (int, error) {
	if len(experts) == 0 {
		return 0, fmt.Errorf("expert matmul without experts: %w", ErrShape)
	}
	w := experts[0]
	for i, e := range experts {
		if e == nil || e.Type() != w.Type() || Cols(e) != Cols(w) || Rows(e) != Rows(w) {
			return 0, fmt.Errorf("expert matmul: expert %d differs from expert 0 (%v %v): %w", i, w.Type(), w.Shape(), ErrShape)
		}
	}
	n := Rows(x)
	if Cols(x) != Cols(w) || Cols(dst) != Rows(w) || Rows(dst) != len(ids) || n == 0 || len(ids)%n != 0 {
		return 0, fmt.Errorf("expert matmul of experts %v by input %v into %v with %d ids: %w", w.Shape(), x.Shape(), dst.Shape(), len(ids), ErrShape)
	}
	if dst == x {
		return 0, fmt.Errorf("expert matmul destination aliases its input: %w", ErrShape)
	}
	for _, id := range ids {
		if id < 0 || int(id) >= len(experts) {
			return 0, fmt.Errorf("expert matmul: expert %d out of range [0, %d)", id, len(experts))
		}
	}
	return len(ids) / n, nil
}

// CheckBinary checks the operands of Backend.Add and Backend.Mul (op
// names the operation): dst of a's shape, b of a's shape or a single row
// as long as a's.
func CheckBinary(op string, dst, a, b Tensor) error {
	if !sameShape(dst, a) || Cols(b) != Cols(a) || (Rows(b) != 1 && Rows(b) != Rows(a)) {
		return fmt.Errorf("%s of %v and %v into %v: %w", op, a.Shape(), b.Shape(), dst.Shape(), ErrShape)
	}
	return nil
}

// CheckUnary checks the operands of an elementwise operation of one input
// (Backend.Scale, Backend.Softcap; op names it): dst of x's shape.
func CheckUnary(op string, dst, x Tensor) error {
	if !sameShape(dst, x) {
		return fmt.Errorf("%s of %v into %v: %w", op, x.Shape(), dst.Shape(), ErrShape)
	}
	return nil
}

// CheckSoftcap checks Backend.Softcap's cap, which must be positive.
func CheckSoftcap(c float32) error {
	if !(c > 0) {
		return fmt.Errorf("softcap must be positive, not %g", c)
	}
	return nil
}

// CheckRMSNorm checks the operands of Backend.RMSNorm, and returns the
// length of its groups: Cols(w), or a row of x when w is nil, dividing
// x's rows; dst of x's shape.
func CheckRMSNorm(dst, x, w Tensor) (int, error) {
	n := Cols(x)
	if w != nil {
		n = Cols(w)
	}
	if !sameShape(dst, x) || n == 0 || Cols(x)%n != 0 {
		return 0, fmt.Errorf("rms_norm of %v in groups of %d into %v: %w", x.Shape(), n, dst.Shape(), ErrShape)
	}
	return n, nil
}

// CheckRope checks the operands of Backend.Rope: a position for each row
// of x, rows cut into heads of p.HeadDim, an even number of rotating
// dimensions within a head, a factor for each rotating pair, dst of x's
// shape.
func CheckRope(dst, x Tensor, pos []int32, p RopeParams) error {
	hd, nd := p.HeadDim, p.Dims
	pairs := nd / 2
	if p.Vision {
		pairs = nd
	}
	if !sameShape(dst, x) || Rows(x)*p.PosPerRow() != len(pos) || hd <= 0 || Cols(x)%hd != 0 || nd <= 0 || nd > hd || nd%2 != 0 ||
		(p.Factors != nil && len(p.Factors) < pairs) {
		return fmt.Errorf("rope of %v (head %d, %d dims, %d positions, %d factors): %w", x.Shape(), hd, nd, len(pos), len(p.Factors), ErrShape)
	}
	if s := p.Sections; p.Multi() || p.Interleaved || p.Vision {
		switch {
		case s[0] < 0 || s[1] < 0 || s[2] < 0 || s[3] < 0 || s[0]+s[1]+s[2] == 0:
			return fmt.Errorf("rope: sections %v: %w", s, ErrShape)
		case p.Vision && (2*nd != hd || p.Interleaved):
			return fmt.Errorf("rope: the vision mode turns whole heads of 2×%d values, not %d (interleaved %v): %w", nd, hd, p.Interleaved, ErrShape)
		case !p.Vision && !p.Neox:
			return fmt.Errorf("rope: sections turn NeoX halves: %w", ErrShape)
		}
	}
	if y := p.YaRN; y.ExtFactor != 0 && (y.OrigContext <= 0 || !(y.BetaFast > 0) || !(y.BetaSlow > 0) || !(p.Base > 1)) {
		return fmt.Errorf("rope: YaRN needs a positive original context (%d), beta fast (%g) and beta slow (%g), and a base above 1 (%g)",
			y.OrigContext, y.BetaFast, y.BetaSlow, p.Base)
	}
	return nil
}

// CheckGLU checks the operands of Backend.GLU: gate, up and dst of one
// shape, and a known activation.
func CheckGLU(dst, gate, up Tensor, act Activation) error {
	if !sameShape(dst, gate) || !sameShape(gate, up) {
		return fmt.Errorf("glu of %v and %v into %v: %w", gate.Shape(), up.Shape(), dst.Shape(), ErrShape)
	}
	if act != SiLU && act != GELU && act != SwiGLUOAI && act != ReLU {
		return fmt.Errorf("unknown activation %d", act)
	}
	return nil
}

// CheckAttention checks the operands of Backend.AttentionSeqs (and of
// Attention, as one sequence): p's heads, the queries and dst (not the
// queries) a row for each position of the sequences, and each sequence's
// cache (checkKV). The caches of sequences without queries are not read,
// so not checked.
func CheckAttention(dst, q Tensor, seqs []SeqKV, p AttentionParams) error {
	nh, nkv, hd, vd := p.Heads, p.KVHeads, p.HeadDim, p.ValueDim
	if nh <= 0 || nkv <= 0 || nh%nkv != 0 || hd <= 0 || vd <= 0 || Cols(q) != nh*hd || Cols(dst) != nh*vd {
		return fmt.Errorf("attention of q %v into %v with %d/%d heads of %d/%d: %w", q.Shape(), dst.Shape(), nh, nkv, hd, vd, ErrShape)
	}
	if dst == q {
		return fmt.Errorf("attention destination aliases the queries: %w", ErrShape)
	}
	if p.Sinks != nil && len(p.Sinks) != nh {
		return fmt.Errorf("attention with %d sinks for %d heads: %w", len(p.Sinks), nh, ErrShape)
	}
	rows := 0
	for _, s := range seqs {
		rows += len(s.Pos)
	}
	if rows != Rows(q) || rows != Rows(dst) {
		return fmt.Errorf("attention of %d query rows into %d for sequences of %d tokens: %w", Rows(q), Rows(dst), rows, ErrShape)
	}
	for i, s := range seqs {
		if len(s.Pos) == 0 {
			continue
		}
		if err := checkKV(s.KV, s.Pos, p); err != nil {
			if len(seqs) > 1 {
				return fmt.Errorf("sequence %d of the batch: %w", i, err)
			}
			return err
		}
	}
	return nil
}

// checkKV checks one sequence's cache view for attention of queries at
// positions pos: rows of KVHeads keys and values, Len cells that are rows
// of both K and V (a cell no query can see through p's window may be -1,
// released), and a Q8_0 cache's heads a whole number of blocks long.
func checkKV(kv KV, pos []int32, p AttentionParams) error {
	if kv.K == nil || kv.V == nil {
		return fmt.Errorf("attention without keys or values: %w", ErrShape)
	}
	nkv, hd, vd := p.KVHeads, p.HeadDim, p.ValueDim
	kRows, vRows := Rows(kv.K), Rows(kv.V)
	if Cols(kv.K) != nkv*hd || Cols(kv.V) != nkv*vd || kv.Len < 0 ||
		(kv.Cells == nil && (kv.Len > kRows || kv.Len > vRows)) ||
		(kv.Cells != nil && len(kv.Cells) < kv.Len) {
		return fmt.Errorf("attention over k %v, v %v (%d cells): %w", kv.K.Shape(), kv.V.Shape(), kv.Len, ErrShape)
	}
	if kv.Cells != nil {
		// Cells before the first one any query sees may be released (-1).
		seen := 0
		if p.Window > 0 && len(pos) > 0 {
			seen = int(pos[0])
			for _, q := range pos {
				seen = min(seen, int(q))
			}
			seen = max(0, seen-p.Window+1)
		}
		for i, c := range kv.Cells[:kv.Len] {
			if (c < 0 && i >= seen) || int(c) >= kRows || int(c) >= vRows {
				return fmt.Errorf("attention: cell %d of the sequence is row %d, out of range: %w", i, c, ErrShape)
			}
		}
	}
	q8 := quant.TypeQ8_0
	if (kv.K.Type() == q8 && hd%q8.BlockSize() != 0) || (kv.V.Type() == q8 && vd%q8.BlockSize() != 0) {
		return fmt.Errorf("attention over a Q8_0 cache needs heads a multiple of 32 long, not %d/%d: %w", hd, vd, ErrShape)
	}
	return nil
}

// CheckShortConv checks the operands of Backend.ShortConv and returns the
// kernel size K: w of K > 1 rows of C taps, x and dst of C columns and the
// sequences' rows, state of (K-1)·C columns, each sequence's slot a row of
// it and no slot named twice (the sequences would overwrite each other's
// windows).
func CheckShortConv(dst, x, w, state Tensor, seqs []ConvSeq) (int, error) {
	k, c := Rows(w), Cols(w)
	if k < 2 || Cols(x) != c || !sameShape(dst, x) || Cols(state) != (k-1)*c {
		return 0, fmt.Errorf("short_conv of %v with taps %v and state %v into %v: %w", x.Shape(), w.Shape(), state.Shape(), dst.Shape(), ErrShape)
	}
	n := 0
	seen := make(map[int]bool, len(seqs))
	for i, s := range seqs {
		if s.N < 0 || s.Slot < 0 || s.Slot >= Rows(state) || seen[s.Slot] {
			return 0, fmt.Errorf("short_conv: sequence %d has %d rows and slot %d of %d (taken: %v): %w", i, s.N, s.Slot, Rows(state), seen[s.Slot], ErrShape)
		}
		seen[s.Slot] = true
		n += s.N
	}
	if n != Rows(x) {
		return 0, fmt.Errorf("short_conv: the sequences hold %d rows, the input %d: %w", n, Rows(x), ErrShape)
	}
	return k, nil
}
