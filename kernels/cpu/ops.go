package cpu

import (
	"fmt"
	"math"
	"sync"

	"saji/kernels"
	"saji/kernels/quant"
)

// GetRows copies rows ids of table, dequantized, into the rows of dst.
func (b *Backend) GetRows(dst, table kernels.Tensor, ids []int32) error {
	d, err := b.f32(dst, "get_rows destination")
	if err != nil {
		return err
	}
	t, err := b.own(table)
	if err != nil {
		return err
	}
	if err := kernels.CheckGetRows(d, t, ids); err != nil {
		return fmt.Errorf("cpu: %w", err)
	}
	if !quant.Supported(t.typ) {
		return fmt.Errorf("cpu: get_rows from %v is not supported", t.typ)
	}
	n := d.cols()
	for r, id := range ids {
		if err := quant.Dequantize(t.typ, t.row(int(id)), d.f[r*n:(r+1)*n]); err != nil {
			return fmt.Errorf("cpu: get_rows: %w", err)
		}
	}
	return nil
}

// SetRows stores row r of src, converted to dst's type (F32, F16 or Q8_0,
// quantized as ggml does), in row rows[r] of dst.
func (b *Backend) SetRows(dst, src kernels.Tensor, rows []int32) error {
	d, err := b.own(dst)
	if err != nil {
		return err
	}
	s, err := b.f32(src, "set_rows source")
	if err != nil {
		return err
	}
	if err := kernels.CheckSetRows(d, s, rows); err != nil {
		return fmt.Errorf("cpu: %w", err)
	}
	n := d.cols()
	set := func(r int) error { return quant.Quantize(d.typ, s.f[r*n:(r+1)*n], d.row(int(rows[r]))) }
	if d.typ == quant.TypeF16 && b.k != nil && b.k.narrowF16 != nil {
		narrow := b.k.narrowF16 // F32ToF16's bits (TestNarrowF16)
		set = func(r int) error { narrow(d.row(int(rows[r])), s.f[r*n:(r+1)*n]); return nil }
	}
	if !ascending(rows) {
		// Rows out of order may name one row twice: stored in order, the
		// last source row wins.
		for r := range rows {
			if err := set(r); err != nil {
				return fmt.Errorf("cpu: set_rows: %w", err)
			}
		}
		return nil
	}
	// A prompt's keys and values, stored one row at a time, were 0.3 ms of
	// every layer of llama-1b F16 at 128 tokens, long enough for the
	// pool's other threads to park.
	var once sync.Once
	var first error
	b.parallelRows(len(rows), n, func(r int) {
		if err := set(r); err != nil {
			once.Do(func() { first = err })
		}
	})
	if first != nil {
		return fmt.Errorf("cpu: set_rows: %w", first)
	}
	return nil
}

// ascending reports whether rows are strictly increasing, so no two of
// them are the same row.
func ascending(rows []int32) bool {
	for i := 1; i < len(rows); i++ {
		if rows[i] <= rows[i-1] {
			return false
		}
	}
	return true
}

// binaryOp selects the operation of binary.
type binaryOp int

const (
	opAdd binaryOp = iota
	opMul
)

// binary sets dst = a op b elementwise (b one row or a's shape), in
// parallel over rows, each row one loop without a call per element.
func (b *Backend) binary(name string, dst, x, y kernels.Tensor, op binaryOp) error {
	d, err := b.f32(dst, name+" destination")
	if err != nil {
		return err
	}
	a, err := b.f32(x, name+" operand")
	if err != nil {
		return err
	}
	c, err := b.f32(y, name+" operand")
	if err != nil {
		return err
	}
	if err := kernels.CheckBinary(name, d, a, c); err != nil {
		return fmt.Errorf("cpu: %w", err)
	}
	n := a.cols()
	bcast := c.rows() == 1
	b.parallelRows(a.rows(), n, func(r int) {
		xs, ys := a.f[r*n:(r+1)*n], d.f[r*n:(r+1)*n]
		zs := c.f[:n]
		if !bcast {
			zs = c.f[r*n : (r+1)*n]
		}
		if op == opAdd {
			for i, v := range xs {
				ys[i] = v + zs[i]
			}
			return
		}
		for i, v := range xs {
			ys[i] = v * zs[i]
		}
	})
	return nil
}

// parallelRows calls fn for each of rows rows of n values, split across
// the threads when there are enough values to pay for it.
func (b *Backend) parallelRows(rows, n int, fn func(r int)) {
	const minParallel = 1 << 15 // values
	if rows < 2 || rows*n < minParallel {
		for r := range rows {
			fn(r)
		}
		return
	}
	b.parallel(rows, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			fn(r)
		}
	})
}

// Add sets dst = a + b.
func (b *Backend) Add(dst, x, y kernels.Tensor) error {
	return b.binary("add", dst, x, y, opAdd)
}

// Mul sets dst = a ⊙ b.
func (b *Backend) Mul(dst, x, y kernels.Tensor) error {
	return b.binary("mul", dst, x, y, opMul)
}

// unary applies op to every element of x.
func (b *Backend) unary(name string, dst, x kernels.Tensor, op func(float32) float32) error {
	d, err := b.f32(dst, name+" destination")
	if err != nil {
		return err
	}
	a, err := b.f32(x, name+" operand")
	if err != nil {
		return err
	}
	if err := kernels.CheckUnary(name, d, a); err != nil {
		return fmt.Errorf("cpu: %w", err)
	}
	for i, v := range a.f {
		d.f[i] = op(v)
	}
	return nil
}

// Scale sets dst = s·x.
func (b *Backend) Scale(dst, x kernels.Tensor, s float32) error {
	d, err := b.f32(dst, "scale destination")
	if err != nil {
		return err
	}
	a, err := b.f32(x, "scale operand")
	if err != nil {
		return err
	}
	if err := kernels.CheckUnary("scale", d, a); err != nil {
		return fmt.Errorf("cpu: %w", err)
	}
	n := a.cols()
	b.parallelRows(a.rows(), n, func(r int) {
		ys := d.f[r*n : (r+1)*n]
		for i, v := range a.f[r*n : (r+1)*n] {
			ys[i] = v * s
		}
	})
	return nil
}

// Softcap sets dst = c·tanh(x/c), computed as ggml's scale, tanh, scale.
func (b *Backend) Softcap(dst, x kernels.Tensor, c float32) error {
	if err := kernels.CheckSoftcap(c); err != nil {
		return fmt.Errorf("cpu: %w", err)
	}
	inv := 1 / c
	return b.unary("softcap", dst, x, func(v float32) float32 { return tanh32(v*inv) * c })
}

// RMSNorm normalizes each group of Cols(w) values (each row when w is nil).
func (b *Backend) RMSNorm(dst, x, w kernels.Tensor, eps float32) error {
	d, err := b.f32(dst, "rms_norm destination")
	if err != nil {
		return err
	}
	a, err := b.f32(x, "rms_norm input")
	if err != nil {
		return err
	}
	var wf []float32
	if w != nil {
		wt, err := b.f32(w, "rms_norm weight")
		if err != nil {
			return err
		}
		wf = wt.f
	}
	n, err := kernels.CheckRMSNorm(d, a, w)
	if err != nil {
		return fmt.Errorf("cpu: %w", err)
	}
	groups := len(a.f) / n
	b.parallel(groups, func(lo, hi int) {
		for g := lo; g < hi; g++ {
			xs, ys := a.f[g*n:(g+1)*n], d.f[g*n:(g+1)*n]
			var sum float64
			for _, v := range xs {
				sum += float64(v * v)
			}
			mean := float32(sum / float64(n))
			scale := 1 / float32(math.Sqrt(float64(mean+eps)))
			for i, v := range xs {
				y := v * scale
				if wf != nil {
					y *= wf[i]
				}
				ys[i] = y
			}
		}
	})
	return nil
}

// ropePairs rotates the pairs i/2 of one head x into y for the even i in
// [from, nd), by the cosines and sines cs[i], cs[i+1]: elements i and i+1,
// or with neox i/2 and i/2+nd/2.
func ropePairs(y, x, cs []float32, from, nd int, neox bool) {
	for i := from; i < nd; i += 2 {
		i0, i1 := i, i+1
		if neox {
			i0, i1 = i/2, i/2+nd/2
		}
		c, s := cs[i], cs[i+1]
		x0, x1 := x[i0], x[i1]
		// GCC contracts these into fused multiply-adds.
		y[i0] = fma32(x0, c, -(x1 * s))
		y[i1] = fma32(x0, s, x1*c)
	}
}

// GLU sets dst = act(gate) ⊙ up.
func (b *Backend) GLU(dst, gate, up kernels.Tensor, act kernels.Activation) error {
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
		return fmt.Errorf("cpu: %w", err)
	}
	n := d.cols()
	silu := siluRow
	if b.k != nil {
		silu = siluRowFast // the same values
	}
	b.parallel(d.rows(), func(lo, hi int) {
		for r := lo; r < hi; r++ {
			y, x, v := d.f[r*n:(r+1)*n], g.f[r*n:(r+1)*n], u.f[r*n:(r+1)*n]
			switch act {
			case kernels.SiLU:
				silu(y, x, v)
			case kernels.GELU:
				for i := range y {
					y[i] = geluF16(x[i]) * v[i]
				}
			case kernels.SwiGLUOAI:
				for i := range y {
					y[i] = swigluOAI(x[i], v[i])
				}
			case kernels.ReLU:
				for i, a := range x {
					r := float32(0) // y may be x or v
					if a > 0 {
						r = a * v[i]
					}
					y[i] = r
				}
			}
		}
	})
	return nil
}

// swigluOAI is gpt-oss's clamped SwiGLU of gate g and input u as ggml's
// swiglu_oai computes it (scalar, libm's expf): g clamped above at the
// limit (a NaN stays NaN), u clamped to [-limit, limit], and
// g/(1+e^(-alpha·g))·(u+1).
func swigluOAI(g, u float32) float32 {
	const alpha, limit = kernels.SwiGLUOAIAlpha, kernels.SwiGLUOAILimit
	if g > limit {
		g = limit
	}
	if u < -limit {
		u = -limit
	} else if u > limit {
		u = limit
	}
	return g / (1 + expF(alpha*(-g))) * (u + 1)
}

// geluTanh is ggml's tanh approximation of GELU in float32.
func geluTanh(x float32) float32 {
	const sqrt2OverPi = 0.79788456080286535587989211986876
	const coefA = 0.044715
	// 1 + coefA·x·x is one fused multiply-add in ggml's build.
	return 0.5 * x * (1 + tanh32(sqrt2OverPi*x*fma32(coefA*x, x, 1)))
}

// geluF16 is GELU as ggml's CPU backend evaluates it: through a table of
// F16 results indexed by the input rounded to F16 (geluTable), with inputs
// <= -10 giving 0 and inputs >= 10 giving x.
func geluF16(x float32) float32 {
	switch {
	case x <= -10:
		return 0
	case x >= 10:
		return x
	}
	return geluTable()[quant.F32ToF16(x)]
}

// geluTable holds, for each F16 value by its bits, geluTanh of it rounded
// to F16: ggml's table, made on first use. A lookup costs a tenth of the
// tanh it replaces, and decode runs GELU over one row on one thread.
var geluTable = sync.OnceValue(func() *[1 << 16]float32 {
	t := new([1 << 16]float32)
	for h := range t {
		t[h] = roundF16(geluTanh(quant.F16ToF32(uint16(h))))
	}
	return t
})

// Rope rotates the heads of each row of x by the row's position.
func (b *Backend) Rope(dst, x kernels.Tensor, pos []int32, p kernels.RopeParams) error {
	d, err := b.f32(dst, "rope destination")
	if err != nil {
		return err
	}
	a, err := b.f32(x, "rope input")
	if err != nil {
		return err
	}
	if err := kernels.CheckRope(d, a, pos, p); err != nil {
		return fmt.Errorf("cpu: %w", err)
	}
	hd, nd := p.HeadDim, p.Dims
	y := newYarnRope(p)
	thetaScale := float32(math.Pow(float64(p.Base), float64(float32(-2)/float32(nd))))
	n, rows := a.cols(), a.rows()
	// turned is the length of the rotated part of a head: Dims, or the
	// whole head in the vision mode, whose pairs are (i, i+Dims).
	turned := nd
	if p.Vision {
		turned = 2 * nd
	}
	b.parallel(rows, func(lo, hi int) {
		cs := make([]float32, turned) // cos, sin of each pair
		for j := lo; j < hi; j++ {
			if p.Multi() {
				ropeMultiAngles(cs, &y, pos, j, rows, thetaScale, p)
			} else {
				// ggml builds the angles by repeated multiplication in float32.
				theta := float32(pos[j])
				for i := 0; i < nd; i += 2 {
					t := theta
					if p.Factors != nil {
						t /= p.Factors[i/2]
					}
					cs[i+1], cs[i] = y.sinCos(t, i)
					theta *= thetaScale
				}
			}
			xs, ys := a.f[j*n:(j+1)*n], d.f[j*n:(j+1)*n]
			for h := 0; h < n; h += hd {
				xh, yh := xs[h:h+hd], ys[h:h+hd]
				ropeHead(yh, xh, cs, turned, p.Neox || p.Vision)
				copy(yh[turned:], xh[turned:])
			}
		}
	})
	return nil
}

// ropeMultiAngles sets cs to the cosine and sine of each pair of row j
// (of rows) for a rope with sections, as ggml's mrope cache computes
// them: each section's angle starts at its position of the row and every
// section's is multiplied by thetaScale at each pair; a pair takes its
// section's (the vision mode starting a section's angle again where the
// section starts: Restart).
func ropeMultiAngles(cs []float32, y *yarnRope, pos []int32, j, rows int, thetaScale float32, p kernels.RopeParams) {
	var start, theta [4]float32
	for k := range start {
		start[k] = float32(pos[j+k*rows])
		theta[k] = start[k]
	}
	for i := 0; i < len(cs); i += 2 {
		if p.Vision {
			if r := p.Restart(i / 2); r >= 0 {
				theta[r] = start[r]
			}
		}
		t := theta[p.Section(i/2)]
		if p.Factors != nil {
			t /= p.Factors[i/2]
		}
		cs[i+1], cs[i] = y.sinCos(t, i)
		for k := range theta {
			theta[k] *= thetaScale
		}
	}
}
