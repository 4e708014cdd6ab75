package gpu

import (
	"fmt"
	"math"

	"saji/kernels"
	"saji/kernels/quant"
)

// launch queues kernel name with its spec's block size.
func (b *Backend) launch(name string, grid Dim3, args ...Arg) error {
	k, ok := Lookup(name)
	if !ok {
		return fmt.Errorf("gpu: no kernel %q", name)
	}
	if err := checkArgs(k, args); err != nil {
		return err
	}
	if grid.X == 0 || grid.Y == 0 || grid.Z == 0 {
		return nil
	}
	if err := b.dev.Launch(name, grid, Dim3{k.Block, 1, 1}, args...); err != nil {
		return fmt.Errorf("gpu: %s: %w", name, err)
	}
	return nil
}

// checkArgs checks args against the parameters of k (CheckArgs), and
// that every pointer has a buffer: the Backend never passes a null one.
func checkArgs(k Kernel, args []Arg) error {
	if err := CheckArgs(k, args); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	for i, a := range args {
		if a.Kind == Ptr && a.Buf.Handle == 0 {
			return fmt.Errorf("gpu: argument %d (%s) of %s is no buffer", i, k.Params[i].Name, k.Name)
		}
	}
	return nil
}

// blocks is ⌈n/per⌉.
func blocks(n, per int) uint32 { return uint32((n + per - 1) / per) }

// GetRows sets row r of dst to row ids[r] of table, dequantized.
func (b *Backend) GetRows(dst, table kernels.Tensor, ids []int32) error {
	if err := b.lock(); err != nil {
		return err
	}
	defer b.mu.Unlock()
	d, err := b.f32(dst, "get_rows destination")
	if err != nil {
		return err
	}
	t, err := b.own(table)
	if err != nil {
		return err
	}
	if err := kernels.CheckGetRows(d, t, ids); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	if !hasKernels(t.typ) {
		return fmt.Errorf("gpu: get_rows from %v is not supported", t.typ)
	}
	if len(ids) == 0 || d.cols() == 0 {
		return nil
	}
	arr, err := b.hostArrays(i32Bytes(ids))
	if err != nil {
		return err
	}
	return b.launch("get_rows_"+Suffix(t.typ), Dim3{uint32(len(ids)), 1, 1},
		t.ptr(0), arr[0], d.ptr(0), I(t.cols()), I(t.rowBytes()))
}

// SetRows stores row r of src, converted to dst's type, in row rows[r] of
// dst.
func (b *Backend) SetRows(dst, src kernels.Tensor, rows []int32) error {
	if err := b.lock(); err != nil {
		return err
	}
	defer b.mu.Unlock()
	d, err := b.own(dst)
	if err != nil {
		return err
	}
	s, err := b.f32(src, "set_rows source")
	if err != nil {
		return err
	}
	if err := kernels.CheckSetRows(d, s, rows); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	if len(rows) == 0 || d.cols() == 0 {
		return nil
	}
	arr, err := b.hostArrays(i32Bytes(rows))
	if err != nil {
		return err
	}
	return b.launch("set_rows_"+Suffix(d.typ), Dim3{uint32(len(rows)), 1, 1},
		s.ptr(0), arr[0], d.ptr(0), I(d.cols()), I(d.rowBytes()))
}

// MatMul sets dst[j][i] = Σ w[i][l]·x[j][l]: a matrix-vector kernel for a
// few tokens, a tiled one for a batch.
func (b *Backend) MatMul(dst, w, x kernels.Tensor) error {
	if err := b.lock(); err != nil {
		return err
	}
	defer b.mu.Unlock()
	d, err := b.f32(dst, "matmul destination")
	if err != nil {
		return err
	}
	wt, err := b.own(w)
	if err != nil {
		return err
	}
	xt, err := b.f32(x, "matmul input")
	if err != nil {
		return err
	}
	if err := kernels.CheckMatMul(d, wt, xt); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	k, m, n := wt.cols(), wt.rows(), xt.rows()
	if !hasKernels(wt.typ) {
		return fmt.Errorf("gpu: matmul with %v weights is not supported", wt.typ)
	}
	if m == 0 || n == 0 {
		return nil
	}
	if k == 0 {
		return b.dev.Zero(d.buf, d.off, d.bytes())
	}
	xa := xt.ptr(0)
	if act := ActType(wt.typ); act != quant.TypeF32 {
		// The activations in the weight's dot-product format (quantize
		// writes every byte, so the buffer is not zeroed first), in a pooled
		// buffer that goes back to the pool at once: whatever reuses it is
		// queued after this product.
		nb := n * k / act.BlockSize()
		buf, err := b.scratch(nb * act.TypeSize())
		if err != nil {
			return err
		}
		defer func() { b.pool = append(b.pool, buf) }()
		name, grid := "quantize_q8_0", Dim3{blocks(nb, ElemBlock/32), 1, 1}
		if act == quant.TypeQ8_K {
			name, grid = "quantize_q8_k", Dim3{uint32(nb), 1, 1}
		}
		if err := b.launch(name, grid, xt.ptr(0), P(buf, 0), I(nb)); err != nil {
			return err
		}
		xa = P(buf, 0)
	}
	args := []Arg{wt.ptr(0), xa, d.ptr(0), I(k), I(m), I(n), I(wt.rowBytes())}
	if n <= 2*MatVecTokens {
		return b.launch("mul_mat_vec_"+Suffix(wt.typ), Dim3{blocks(m, MatVecRows), blocks(n, MatVecTokens), 1}, args...)
	}
	return b.launch("mul_mat_"+Suffix(wt.typ), Dim3{blocks(m, TileM), blocks(n, TileN), 1}, args...)
}

// binary sets dst = a op b, b broadcast when it is a single row.
func (b *Backend) binary(name string, dst, x, y kernels.Tensor) error {
	if err := b.lock(); err != nil {
		return err
	}
	defer b.mu.Unlock()
	d, err := b.f32(dst, name+" destination")
	if err != nil {
		return err
	}
	a, err := b.f32(x, name+" input")
	if err != nil {
		return err
	}
	c, err := b.f32(y, name+" input")
	if err != nil {
		return err
	}
	if err := kernels.CheckBinary(name, d, a, c); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	n, bn := a.cols()*a.rows(), c.cols()*c.rows()
	if n == 0 {
		return nil
	}
	return b.launch(name, Dim3{blocks(n, ElemBlock), 1, 1}, a.ptr(0), c.ptr(0), d.ptr(0), I(n), I(bn))
}

// Add sets dst = a + b.
func (b *Backend) Add(dst, a, c kernels.Tensor) error { return b.binary("add", dst, a, c) }

// Mul sets dst = a ⊙ b.
func (b *Backend) Mul(dst, a, c kernels.Tensor) error { return b.binary("mul", dst, a, c) }

// unary sets dst = op(x) with one scalar parameter.
func (b *Backend) unary(name string, dst, x kernels.Tensor, s float32) error {
	if err := b.lock(); err != nil {
		return err
	}
	defer b.mu.Unlock()
	d, err := b.f32(dst, name+" destination")
	if err != nil {
		return err
	}
	a, err := b.f32(x, name+" input")
	if err != nil {
		return err
	}
	if err := kernels.CheckUnary(name, d, a); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	n := a.cols() * a.rows()
	if n == 0 {
		return nil
	}
	return b.launch(name, Dim3{blocks(n, ElemBlock), 1, 1}, a.ptr(0), d.ptr(0), I(n), F(s))
}

// Scale sets dst = s·x.
func (b *Backend) Scale(dst, x kernels.Tensor, s float32) error { return b.unary("scale", dst, x, s) }

// Softcap sets dst = c·tanh(x/c).
func (b *Backend) Softcap(dst, x kernels.Tensor, c float32) error {
	if err := kernels.CheckSoftcap(c); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	return b.unary("softcap", dst, x, c)
}

// RMSNorm normalizes each group of Cols(w) values (rows when w is nil).
func (b *Backend) RMSNorm(dst, x, w kernels.Tensor, eps float32) error {
	if err := b.lock(); err != nil {
		return err
	}
	defer b.mu.Unlock()
	d, err := b.f32(dst, "rms_norm destination")
	if err != nil {
		return err
	}
	a, err := b.f32(x, "rms_norm input")
	if err != nil {
		return err
	}
	wArg, hasW := a.ptr(0), 0
	if w != nil {
		wt, err := b.f32(w, "rms_norm weight")
		if err != nil {
			return err
		}
		wArg, hasW = wt.ptr(0), 1
	}
	n, err := kernels.CheckRMSNorm(d, a, w)
	if err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	groups := a.cols() * a.rows() / n
	if groups == 0 {
		return nil
	}
	return b.launch("rms_norm", Dim3{uint32(groups), 1, 1}, a.ptr(0), wArg, d.ptr(0), I(n), F(eps), I(hasW))
}

// Rope rotates the heads of each row of x by the row's position.
func (b *Backend) Rope(dst, x kernels.Tensor, pos []int32, p kernels.RopeParams) error {
	if err := b.lock(); err != nil {
		return err
	}
	defer b.mu.Unlock()
	d, err := b.f32(dst, "rope destination")
	if err != nil {
		return err
	}
	a, err := b.f32(x, "rope input")
	if err != nil {
		return err
	}
	if err := kernels.CheckRope(d, a, pos, p); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	hd, nd := p.HeadDim, p.Dims
	rows := a.rows()
	if rows == 0 || a.cols() == 0 {
		return nil
	}
	scale, low, high, mscale := p.Scaling()
	// The CPU backend's (and ggml's) θ scale, computed the same way.
	thetaScale := float32(math.Pow(float64(p.Base), float64(float32(-2)/float32(nd))))
	pairs, mrope := nd/2, 0
	switch {
	case p.Vision:
		pairs, mrope = nd, 3
	case p.Multi() && p.Interleaved:
		mrope = 2
	case p.Multi():
		mrope = 1
	}
	var factors []byte
	hasFactors := 0
	if p.Factors != nil {
		factors, hasFactors = f32Bytes(p.Factors[:pairs]), 1
	}
	arr, err := b.hostArrays(i32Bytes(pos), factors)
	if err != nil {
		return err
	}
	neox := 0
	if p.Neox {
		neox = 1
	}
	s := p.Sections
	return b.launch("rope", Dim3{uint32(rows), 1, 1}, a.ptr(0), d.ptr(0), arr[0], arr[1],
		I(a.cols()), I(hd), I(nd), F(thetaScale), F(scale), I(neox), I(hasFactors),
		F(p.YaRN.ExtFactor), F(mscale), F(low), F(high), I(rows), I(mrope), I(s[0]), I(s[1]), I(s[2]), I(s[3]))
}

// GLU sets dst = act(gate) ⊙ up.
func (b *Backend) GLU(dst, gate, up kernels.Tensor, act kernels.Activation) error {
	if err := b.lock(); err != nil {
		return err
	}
	defer b.mu.Unlock()
	d, err := b.f32(dst, "glu destination")
	if err != nil {
		return err
	}
	g, err := b.f32(gate, "glu gate")
	if err != nil {
		return err
	}
	u, err := b.f32(up, "glu input")
	if err != nil {
		return err
	}
	if err := kernels.CheckGLU(d, g, u, act); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	name := map[kernels.Activation]string{kernels.SiLU: "glu_silu", kernels.GELU: "glu_gelu", kernels.SwiGLUOAI: "glu_swiglu_oai", kernels.ReLU: "glu_relu"}[act]
	n := g.cols() * g.rows()
	if n == 0 {
		return nil
	}
	return b.launch(name, Dim3{blocks(n, ElemBlock), 1, 1}, g.ptr(0), u.ptr(0), d.ptr(0), I(n))
}
