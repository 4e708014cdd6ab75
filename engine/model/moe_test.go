package model

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"saji/engine/gguf"
	"saji/kernels"
	"saji/kernels/cpu"
	"saji/kernels/quant"
)

// TestRoute checks the router's options against values worked out by
// hand: the gating, the selection bias (which picks but does not weigh),
// ties, gpt-oss's softmax over the chosen logits, normalization and scale.
func TestRoute(t *testing.T) {
	e := math.E
	soft := func(x ...float64) []float64 {
		var s float64
		for _, v := range x {
			s += math.Exp(v)
		}
		out := make([]float64, len(x))
		for i, v := range x {
			out[i] = math.Exp(v) / s
		}
		return out
	}
	p := soft(1, 3, 2, 0)
	cases := []struct {
		name    string
		r       router
		logits  []float32
		bias    []float32
		ids     []int32
		weights []float64
	}{
		{"softmax", router{used: 2, gating: gateSoftmax}, []float32{1, 3, 2, 0}, nil,
			[]int32{1, 2}, []float64{p[1], p[2]}},
		{"softmax normalized", router{used: 2, gating: gateSoftmax, norm: true}, []float32{1, 3, 2, 0}, nil,
			[]int32{1, 2}, []float64{p[1] / (p[1] + p[2]), p[2] / (p[1] + p[2])}},
		{"scaled", router{used: 1, gating: gateSoftmax, scale: 2.5}, []float32{1, 3, 2, 0}, nil,
			[]int32{1}, []float64{2.5 * p[1]}},
		{"sigmoid with selection bias", router{used: 1, gating: gateSigmoid}, []float32{0, 1}, []float32{2, 0},
			[]int32{0}, []float64{0.5}},
		{"softmax over the chosen", router{used: 2, gating: gateSoftmaxWeight}, []float32{1, 3, 2, 0}, nil,
			[]int32{1, 2}, []float64{e / (e + 1), 1 / (e + 1)}},
		{"ties by id", router{used: 3, gating: gateSoftmax}, []float32{5, 7, 5, 7}, nil,
			[]int32{1, 3, 0}, []float64{soft(5, 7, 5, 7)[1], soft(5, 7, 5, 7)[3], soft(5, 7, 5, 7)[0]}},
		{"two tokens", router{used: 1, gating: gateSoftmax, norm: true}, []float32{0, 1, 4, 2}, nil,
			[]int32{1, 0}, []float64{1, 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ids, w := c.r.route(append([]float32(nil), c.logits...), len(c.logits)*c.r.used/len(c.ids), c.bias)
			if fmt.Sprint(ids) != fmt.Sprint(c.ids) {
				t.Fatalf("ids %v, want %v", ids, c.ids)
			}
			for i := range w {
				if math.Abs(float64(w[i])-c.weights[i]) > 1e-6 {
					t.Errorf("weight %d = %g, want %g", i, w[i], c.weights[i])
				}
			}
		})
	}
}

// opsOnly hides a backend's ExpertMatMul, so that the graph builds expert
// products from GetRows, MatMul and SetRows as it does on a GPU backend.
type opsOnly struct{ kernels.Backend }

// TestExperts compares the three ways to an expert product: the CPU
// backend's ExpertMatMul kernel, the graph's fallback from plain backend
// operations, and a dense product of each row alone by its expert. The
// kernel equals the dense reference bit for bit (ggml's MUL_MAT_ID
// multiplies each row alone); the fallback equals it where each expert
// has one row (decoding) and otherwise differs by the order of summation
// of a batched MatMul only.
func TestExperts(t *testing.T) {
	b := cpu.New(2)
	rng := rand.New(rand.NewPCG(3, 4))
	const k, m, n = 256, 64, 6
	for _, typ := range []quant.Type{quant.TypeF32, quant.TypeF16, quant.TypeQ8_0, quant.TypeQ4_K, quant.TypeQ6_K} {
		ws := make([]kernels.Tensor, n)
		for e := range ws {
			w := make([]float32, k*m)
			for i := range w {
				w[i] = float32(rng.NormFloat64() / 16)
			}
			data := make([]byte, m*k/typ.BlockSize()*typ.TypeSize())
			if err := quant.Quantize(typ, w, data); err != nil {
				t.Fatal(err)
			}
			var err error
			if ws[e], err = b.Weight(typ, []int{k, m}, data); err != nil {
				t.Fatal(err)
			}
		}
		for _, tokens := range []int{1, 9} {
			const used = 2
			x := make([]float32, k*tokens)
			for i := range x {
				x[i] = float32(rng.NormFloat64())
			}
			var ids []int32 // distinct experts per token, as a router picks them
			for range tokens {
				for _, e := range rng.Perm(n)[:used] {
					ids = append(ids, int32(e))
				}
			}
			run := func(be kernels.Backend) []float32 {
				g := &graph{b: be}
				xt := g.new(k, tokens)
				g.fail(be.Write(xt, x))
				out := g.host(g.experts(xt, ws, nil, ids))
				if g.err != nil {
					t.Fatal(g.err)
				}
				return out
			}
			kernel, fallback := run(b), run(opsOnly{b})
			var dense []float32
			for r, e := range ids {
				g := &graph{b: b}
				xt := g.new(k, 1)
				g.fail(b.Write(xt, x[r/used*k:(r/used+1)*k]))
				dense = append(dense, g.host(g.linear(xt, ws[e], nil))...)
				if g.err != nil {
					t.Fatal(g.err)
				}
			}
			var dk, df float64
			for i := range dense {
				dk = max(dk, math.Abs(float64(kernel[i]-dense[i])))
				df = max(df, math.Abs(float64(fallback[i]-kernel[i])))
			}
			t.Logf("%v, %d tokens: max |kernel-dense| %.3g, max |fallback-kernel| %.3g", typ, tokens, dk, df)
			if dk != 0 {
				t.Errorf("%v, %d tokens: the kernel differs from the dense product by %g", typ, tokens, dk)
			}
			if (tokens == 1 && df != 0) || df > 1e-4 {
				t.Errorf("%v, %d tokens: the fallback differs from the kernel by %g", typ, tokens, df)
			}
		}
	}
}

// moeFile is a hand-written qwen3moe (or qwen3vlmoe), qwen2moe or llama file of one layer with F32
// weights: keys can be changed or dropped, tensors dropped or reshaped.
type moeFile struct {
	arch    string
	keys    map[string]any     // without the arch prefix; nil values are left out
	drop    map[string]bool    // tensors to leave out
	reshape map[string][]int64 // tensors of another shape
}

// file writes the model and opens it.
func (mf moeFile) file(t *testing.T) *gguf.File {
	t.Helper()
	const vocab, embd, heads, kvHeads, head, experts, nff = 8, 32, 2, 1, 16, 4, 32
	keys := map[string]any{
		"block_count": uint32(1), "embedding_length": uint32(embd), "feed_forward_length": uint32(64),
		"attention.head_count": uint32(heads), "attention.head_count_kv": uint32(kvHeads),
		"attention.layer_norm_rms_epsilon": float32(1e-6), "context_length": uint32(64),
		"expert_count": uint32(experts), "expert_used_count": uint32(2), "expert_feed_forward_length": uint32(nff),
	}
	for k, v := range mf.keys {
		keys[k] = v
	}
	w := gguf.NewWriter()
	if err := w.Set(gguf.KeyArchitecture, mf.arch); err != nil {
		t.Fatal(err)
	}
	for k, v := range keys {
		if v == nil {
			continue
		}
		if err := w.Set(mf.arch+"."+k, v); err != nil {
			t.Fatal(err)
		}
	}
	tensors := []struct {
		name  string
		shape []int64
	}{
		{"token_embd.weight", []int64{embd, vocab}},
		{"blk.0.attn_norm.weight", []int64{embd}},
		{"blk.0.attn_q.weight", []int64{embd, heads * head}},
		{"blk.0.attn_k.weight", []int64{embd, kvHeads * head}},
		{"blk.0.attn_v.weight", []int64{embd, kvHeads * head}},
		{"blk.0.attn_output.weight", []int64{heads * head, embd}},
		{"blk.0.ffn_norm.weight", []int64{embd}},
		{"blk.0.ffn_gate_inp.weight", []int64{embd, experts}},
		{"blk.0.ffn_gate_exps.weight", []int64{embd, nff, experts}},
		{"blk.0.ffn_up_exps.weight", []int64{embd, nff, experts}},
		{"blk.0.ffn_down_exps.weight", []int64{nff, embd, experts}},
		{"output_norm.weight", []int64{embd}},
	}
	type spec = struct {
		name  string
		shape []int64
	}
	switch mf.arch {
	case "qwen3moe", "qwen3vlmoe":
		tensors = append(tensors, spec{"blk.0.attn_q_norm.weight", []int64{head}}, spec{"blk.0.attn_k_norm.weight", []int64{head}})
	case "qwen2moe":
		tensors = append(tensors, spec{"blk.0.ffn_gate_inp_shexp.weight", []int64{embd}},
			spec{"blk.0.ffn_gate_shexp.weight", []int64{embd, 64}}, spec{"blk.0.ffn_up_shexp.weight", []int64{embd, 64}},
			spec{"blk.0.ffn_down_shexp.weight", []int64{64, embd}}, spec{"output.weight", []int64{embd, vocab}})
	}
	for _, tn := range tensors {
		if mf.drop[tn.name] {
			continue
		}
		shape := tn.shape
		if s, ok := mf.reshape[tn.name]; ok {
			shape = s
		}
		n := int64(1)
		for _, d := range shape {
			n *= d
		}
		if err := w.AddTensor(tn.name, quant.TypeF32, shape, make([]byte, 4*n)); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if _, err := w.Encode(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.OpenBytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestMoEBadInput checks that files whose experts do not add up fail to
// load and to describe with an error naming the key or tensor, not a
// panic.
func TestMoEBadInput(t *testing.T) {
	cases := []struct {
		name string
		mf   moeFile
		want string // in the error; "" for a file that loads
	}{
		{"valid", moeFile{arch: "qwen3moe"}, ""},
		{"valid qwen2moe", moeFile{arch: "qwen2moe"}, ""},
		{"qwen2moe without its shared expert", moeFile{arch: "qwen2moe", drop: map[string]bool{"blk.0.ffn_up_shexp.weight": true}}, "blk.0.ffn_up_shexp.weight is missing"},
		{"valid mixtral", moeFile{arch: "llama", keys: map[string]any{"feed_forward_length": uint32(32)}}, ""},
		{"no expert count", moeFile{arch: "qwen3moe", keys: map[string]any{"expert_count": nil}}, "qwen3moe.expert_count"},
		{"expert count 0", moeFile{arch: "qwen3moe", keys: map[string]any{"expert_count": uint32(0)}}, "qwen3moe.expert_count"},
		{"a million experts", moeFile{arch: "qwen3moe", keys: map[string]any{"expert_count": uint32(1000000)}}, "qwen3moe.expert_count = 1000000"},
		{"2^40 experts", moeFile{arch: "qwen3moe", keys: map[string]any{"expert_count": uint64(1 << 40)}}, "qwen3moe.expert_count"},
		{"top-k above the count", moeFile{arch: "qwen3moe", keys: map[string]any{"expert_used_count": uint32(5)}}, "qwen3moe.expert_used_count = 5"},
		{"top-k 0", moeFile{arch: "qwen3moe", keys: map[string]any{"expert_used_count": uint32(0)}}, "qwen3moe.expert_used_count = 0"},
		{"top-k a string", moeFile{arch: "qwen3moe", keys: map[string]any{"expert_used_count": "two"}}, "expert_used_count"},
		{"experts claimed, tensors absent", moeFile{arch: "qwen3moe", drop: map[string]bool{"blk.0.ffn_up_exps.weight": true}}, "blk.0.ffn_up_exps.weight is missing"},
		{"no router", moeFile{arch: "qwen3moe", drop: map[string]bool{"blk.0.ffn_gate_inp.weight": true}}, "blk.0.ffn_gate_inp.weight is missing"},
		{"fewer experts than claimed", moeFile{arch: "qwen3moe", reshape: map[string][]int64{"blk.0.ffn_down_exps.weight": {32, 32, 3}}}, "blk.0.ffn_down_exps.weight has shape"},
		{"mixtral without experts", moeFile{arch: "llama", keys: map[string]any{"feed_forward_length": uint32(32)}, drop: map[string]bool{"blk.0.ffn_gate_exps.weight": true}}, "blk.0.ffn_gate_exps.weight is missing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := c.mf.file(t)
			_, lerr := Load(context.Background(), f, Options{Backend: cpu.NewReference(1)})
			_, derr := Describe(f)
			for what, err := range map[string]error{"Load": lerr, "Describe": derr} {
				switch {
				case c.want == "" && err != nil:
					t.Errorf("%s: %v", what, err)
				case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
					t.Errorf("%s: error %v, want one containing %q", what, err, c.want)
				}
			}
		})
	}
}

// TestExpertsRepacked checks that the loader gives each expert the CPU
// backend's interleaved layout where Repack gives a dense weight of its
// type one, and that the repacked experts multiply as the file's bytes do.
func TestExpertsRepacked(t *testing.T) {
	const cols, rows, n = 256, 32, 3
	for _, typ := range []quant.Type{quant.TypeQ4_K, quant.TypeQ6_K, quant.TypeMXFP4, quant.TypeQ8_0} {
		rng := rand.New(rand.NewPCG(5, uint64(typ)))
		w := make([]float32, cols*rows*n)
		for i := range w {
			w[i] = float32(rng.NormFloat64() / 16)
		}
		data := make([]byte, len(w)/typ.BlockSize()*typ.TypeSize())
		if err := quant.Quantize(typ, w, data); err != nil {
			t.Fatal(err)
		}
		gw := gguf.NewWriter()
		if err := gw.Set(gguf.KeyArchitecture, "llama"); err != nil {
			t.Fatal(err)
		}
		if err := gw.AddTensor("exps", typ, []int64{cols, rows, n}, data); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if _, err := gw.Encode(context.Background(), &buf); err != nil {
			t.Fatal(err)
		}
		f, err := gguf.OpenBytes(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		b := cpu.New(2)
		ld := &loader{f: f, arch: "llama", backend: b}
		ws := ld.experts(b, "exps", cols, rows, n)
		if ld.err != nil {
			t.Fatal(ld.err)
		}
		x := make([]float32, cols)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		for e, we := range ws {
			plain, err := b.Weight(typ, []int{cols, rows}, data[e*len(data)/n:(e+1)*len(data)/n])
			if err != nil {
				t.Fatal(err)
			}
			dense, err := b.Repack(plain)
			if err != nil {
				t.Fatal(err)
			}
			if cpu.Repacked(we) != cpu.Repacked(dense) {
				t.Errorf("%v expert %d: repacked %v, a dense weight %v", typ, e, cpu.Repacked(we), cpu.Repacked(dense))
			}
			g := &graph{b: b}
			xt := g.new(cols, 1)
			g.fail(b.Write(xt, x))
			got, want := g.host(g.linear(xt, we, nil)), g.host(g.linear(xt, plain, nil))
			if g.err != nil {
				t.Fatal(g.err)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%v expert %d: output %d is %g, the file layout's %g", typ, e, i, got[i], want[i])
				}
			}
		}
	}
}
