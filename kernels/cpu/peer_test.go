package cpu

import (
	"hash/fnv"
	"math"
	"math/rand"
	"testing"

	"saji/kernels"
	"saji/kernels/quant"
)

// The figures of this file were computed by llama.cpp's CPU backend at
// commit 3f545bec (AVX-512 build, one thread) from the same inputs, which
// math/rand's source generates from the seeds below, through a small
// program that runs one ggml operation on them: ggml_flash_attn_ext with
// ggml_flash_attn_ext_add_sinks over an F16 cache (F32 precision), or
// ggml_mul_mat, ggml_soft_max_ext with ggml_soft_max_add_sinks and
// ggml_mul_mat over an F32 cache, with scale 1/8, 256 cells (those from
// len on, and those after a query's position, masked), and ggml_swiglu_oai
// with alpha 1.702 and limit 7. Each figure is bitsHash of the output.

// bitsHash is the FNV-1a hash of the bits of x, little-endian.
func bitsHash(x []float32) uint64 {
	h := fnv.New64a()
	var b [4]byte
	for _, v := range x {
		u := math.Float32bits(v)
		b[0], b[1], b[2], b[3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
		h.Write(b[:])
	}
	return h.Sum64()
}

// sinkPeerCase is one attention problem with sinks and llama.cpp's result.
type sinkPeerCase struct {
	name                    string
	typ                     quant.Type
	heads, kvHeads, hd, len int
	pos                     []int32
	hash                    uint64
}

// positions returns n consecutive positions from first.
func positions(first, n int) []int32 {
	p := make([]int32, n)
	for i := range p {
		p[i] = int32(first + i)
	}
	return p
}

var sinkPeerCases = []sinkPeerCase{
	{name: "flash one-row decode", typ: quant.TypeF16, heads: 8, kvHeads: 2, hd: 64, len: 100, pos: []int32{99}, hash: 0x6ed763ad5f3519c3},
	{name: "flash tiled batch", typ: quant.TypeF16, heads: 4, kvHeads: 2, hd: 64, len: 200, pos: positions(130, 70), hash: 0x350232c6c6b39096},
	{name: "flash one-row batch", typ: quant.TypeF16, heads: 4, kvHeads: 2, hd: 64, len: 200, pos: positions(190, 10), hash: 0x92659efa04ac2a15},
	{name: "softmax decode", typ: quant.TypeF32, heads: 8, kvHeads: 2, hd: 64, len: 100, pos: []int32{99}, hash: 0xac690b98d87e4b19},
}

// sinkInputs are a sinkPeerCase's operands: rows of queries (token, head),
// keys and values (cell, KV head), and a sink per head.
type sinkInputs struct {
	q, k, v, sinks []float32
}

// inputs generates the case's operands: N(0,1) queries, keys and values,
// and N(0,2) sinks with the first one 8, above every score.
func (c sinkPeerCase) inputs() sinkInputs {
	r := rand.New(rand.NewSource(int64(len(c.pos)*1000 + c.len)))
	normal := func(n int, s float64) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(r.NormFloat64() * s)
		}
		return x
	}
	in := sinkInputs{
		q: normal(len(c.pos)*c.heads*c.hd, 1), k: normal(c.len*c.kvHeads*c.hd, 1), v: normal(c.len*c.kvHeads*c.hd, 1),
		sinks: normal(c.heads, 2),
	}
	in.sinks[0] = 8
	return in
}

// swigluPeerInputs returns the gates and inputs of the swiglu_oai figure:
// 4096 of each, N(0,5), so that both clamps are often hit.
func swigluPeerInputs() (g, u []float32) {
	r := rand.New(rand.NewSource(1))
	g, u = make([]float32, 4096), make([]float32, 4096)
	for i := range g {
		g[i] = float32(r.NormFloat64() * 5)
		u[i] = float32(r.NormFloat64() * 5)
	}
	return g, u
}

// TestAttentionSinksPeer checks attention with sinks bit for bit against
// llama.cpp's figures, on the oracle and on the SIMD backend.
func TestAttentionSinksPeer(t *testing.T) {
	const cells = 256
	for _, c := range sinkPeerCases {
		in := c.inputs()
		for _, be := range []struct {
			name string
			b    *Backend
		}{{"oracle", NewReference(2)}, {"simd", New(2)}} {
			t.Run(c.name+"/"+be.name, func(t *testing.T) {
				b := be.b
				kt, err := b.New(c.typ, c.kvHeads*c.hd, cells)
				if err != nil {
					t.Fatal(err)
				}
				vt, err := b.New(c.typ, c.kvHeads*c.hd, cells)
				if err != nil {
					t.Fatal(err)
				}
				kk, vv := make([]float32, cells*c.kvHeads*c.hd), make([]float32, cells*c.kvHeads*c.hd)
				copy(kk, in.k)
				copy(vv, in.v)
				if err := b.Write(kt, kk); err != nil {
					t.Fatal(err)
				}
				if err := b.Write(vt, vv); err != nil {
					t.Fatal(err)
				}
				d := newF32(t, b, c.heads*c.hd, len(c.pos))
				p := kernels.AttentionParams{Heads: c.heads, KVHeads: c.kvHeads, HeadDim: c.hd, ValueDim: c.hd, Scale: 0.125, Sinks: in.sinks}
				kv := kernels.KV{K: kt, V: vt, Len: c.len}
				if err := b.Attention(d, f32(t, b, in.q, c.heads*c.hd, len(c.pos)), kv, c.pos, p); err != nil {
					t.Fatal(err)
				}
				if h := bitsHash(read(t, d)); h != c.hash {
					t.Errorf("output hash %#x, llama.cpp's %#x", h, c.hash)
				}
			})
		}
	}
}

// TestSwiGLUOAIPeer checks the swiglu_oai activation bit for bit against
// llama.cpp's figure.
func TestSwiGLUOAIPeer(t *testing.T) {
	const want = 0xf2ee9a4c4d83d45d
	g, u := swigluPeerInputs()
	b := New(2)
	d := newF32(t, b, len(g), 1)
	if err := b.GLU(d, f32(t, b, g, len(g), 1), f32(t, b, u, len(u), 1), kernels.SwiGLUOAI); err != nil {
		t.Fatal(err)
	}
	if h := bitsHash(read(t, d)); h != want {
		t.Errorf("output hash %#x, llama.cpp's %#x", h, uint64(want))
	}
}
