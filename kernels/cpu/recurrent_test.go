package cpu

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"testing"

	"saji/kernels"
)

// Test support shared by the selective scan's and the delta net's tests.

// recInputs draws len(sizes) arrays of sizes[i] values from refLCG(seed),
// value j of array i being float()·scale[i] + off[i].
func recInputs(seed uint64, sizes []int, scale, off []float32) [][]float32 {
	s := refLCG(seed)
	out := make([][]float32, len(sizes))
	for i, n := range sizes {
		out[i] = make([]float32, n)
		for j := range out[i] {
			out[i][j] = float32(s.float()*scale[i]) + off[i] // never fused, as in the peer program
		}
	}
	return out
}

// recBackends returns the backends the recurrent tests run on: the
// pure-Go oracle and one for each kernel set this CPU runs that has
// recurrent kernels of its own (AVX2's and AVX-512's; the AVX-VNNI set
// runs AVX2's, and the other architectures' sets the oracle), two threads
// each.
func recBackends(t *testing.T) []*Backend {
	bs := []*Backend{NewReference(2)}
	for _, name := range KernelSets() {
		if runtime.GOARCH != "amd64" || name == "avx-vnni" {
			continue
		}
		b, err := NewWithKernels(2, name)
		if err != nil {
			t.Fatal(err)
		}
		bs = append(bs, b)
	}
	return bs
}

// recRun runs one recurrent case on a backend and returns its output and
// the states after it.
type recRun func(t *testing.T, b *Backend) (out, states []float32)

// checkPeer runs run on every recurrent backend (subtests name/kernels)
// and checks the hashes of its output and states against llama.cpp's.
func checkPeer(t *testing.T, name string, run recRun, out, states uint64) {
	for _, b := range recBackends(t) {
		t.Run(name+"/"+b.Kernels(), func(t *testing.T) {
			o, st := run(t, b)
			if h := bitsHash(o); h != out {
				t.Errorf("output hash %#016x, llama.cpp's %#016x", h, out)
			}
			if h := bitsHash(st); h != states {
				t.Errorf("state hash %#016x, llama.cpp's %#016x", h, states)
			}
		})
	}
}

// evenSeqs returns seqs sequences of tokens tokens each, in slots 0 to
// seqs−1 (the peer program's batches).
func evenSeqs(tokens, seqs int) []kernels.RecurrentSeq {
	out := make([]kernels.RecurrentSeq, seqs)
	for i := range out {
		out[i] = kernels.RecurrentSeq{Slot: i, Tokens: tokens}
	}
	return out
}

// recBatch returns a batch of sequences of tokens[i] tokens in shuffled
// slots of len(tokens)+1, its rows and its slots.
func recBatch(tokens []int) (seqs []kernels.RecurrentSeq, n, slots int) {
	slots = len(tokens) + 1
	for i, k := range tokens {
		seqs = append(seqs, kernels.RecurrentSeq{Slot: (i*2 + 1) % slots, Tokens: k})
		n += k
	}
	return seqs, n, slots
}

// checkReference computes the expected output sequence by sequence with
// ref, given a sequence's first row, the sequence and its slot of states
// widened to float64 (slots of size values, which ref updates), and
// compares run's results on every recurrent backend with it within 1e-4.
func checkReference(t *testing.T, name string, run recRun, seqs []kernels.RecurrentSeq, states []float32, size int,
	ref func(r int, s kernels.RecurrentSeq, st []float64) []float64) {
	var want []float64
	wantS := make([]float64, len(states))
	for i, v := range states {
		wantS[i] = float64(v)
	}
	r := 0
	for _, s := range seqs {
		want = append(want, ref(r, s, wantS[s.Slot*size:][:size])...)
		r += s.Tokens
	}
	for _, b := range recBackends(t) {
		t.Run(name+"/"+b.Kernels(), func(t *testing.T) {
			out, st := run(t, b)
			if msg := closeTo(out, want, 1e-4); msg != "" {
				t.Errorf("output: %s", msg)
			}
			if msg := closeTo(st, wantS, 1e-4); msg != "" {
				t.Errorf("states: %s", msg)
			}
		})
	}
}

// checkChunks checks, on every recurrent backend, that each of seqs
// sequences of tokens tokens (slot i, rows i·tokens..) run alone in chunks
// (part returns the run of rows r0..r1 from states st) gives the bits run
// gives the whole batch: output rows of width values, states of size.
func checkChunks(t *testing.T, run recRun, states []float32, seqs, tokens, width, size int, chunks [][2]int,
	part func(r0, r1 int, st []float32) recRun) {
	for _, b := range recBackends(t) {
		t.Run(b.Kernels(), func(t *testing.T) {
			whole, wholeS := run(t, b)
			for i := range seqs {
				var out []float32
				st := append([]float32(nil), states[i*size:][:size]...)
				for _, ch := range chunks {
					po, ps := part(i*tokens+ch[0], i*tokens+ch[1], st)(t, b)
					out, st = append(out, po...), ps
				}
				if bitsHash(out) != bitsHash(whole[i*tokens*width:(i+1)*tokens*width]) || bitsHash(st) != bitsHash(wholeS[i*size:][:size]) {
					t.Errorf("sequence %d in chunks differs from the batch", i)
				}
			}
		})
	}
}

// closeTo reports the first value of got that differs from want by more
// than tol·(1+|want|), as an error message, or "".
func closeTo(got []float32, want []float64, tol float64) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d values, want %d", len(got), len(want))
	}
	for i := range got {
		if d := math.Abs(float64(got[i]) - want[i]); !(d <= tol*(1+math.Abs(want[i]))) {
			return fmt.Sprintf("value %d: %g, want %g", i, got[i], want[i])
		}
	}
	return ""
}

// refusal is a recurrent operation on operands that do not fit.
type refusal struct {
	name string
	run  func() error
}

// seqRefusals returns the refusals of a recurrent operation whose fitting
// batch is one sequence of tokens tokens in slot 0 of slots: op runs it
// on another batch.
func seqRefusals(op func(seqs []kernels.RecurrentSeq) error, tokens, slots int) []refusal {
	batch := func(seqs ...kernels.RecurrentSeq) func() error { return func() error { return op(seqs) } }
	return []refusal{
		{"tokens", batch(kernels.RecurrentSeq{Tokens: tokens + 1})},
		{"slot", batch(kernels.RecurrentSeq{Slot: slots, Tokens: tokens})},
		{"negative", batch(kernels.RecurrentSeq{Tokens: -1})},
		{"shared slot", batch(kernels.RecurrentSeq{Tokens: 1}, kernels.RecurrentSeq{Tokens: tokens - 1})},
	}
}

// checkRefusals checks that each of rs fails with an error that wraps
// kernels.ErrShape, and that ok, the operation on fitting operands, does
// not.
func checkRefusals(t *testing.T, rs []refusal, ok func() error) {
	for _, r := range rs {
		if err := r.run(); err == nil {
			t.Errorf("%s: no error", r.name)
		} else if !errors.Is(err, kernels.ErrShape) {
			t.Errorf("%s: %v does not wrap ErrShape", r.name, err)
		}
	}
	if err := ok(); err != nil {
		t.Errorf("fitting operands: %v", err)
	}
}
