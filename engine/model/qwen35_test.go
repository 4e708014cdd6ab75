package model

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"testing"

	"saji/kernels/cpu"
	"saji/kernels/quant"
)

// TestQwen35State checks what a Qwen3.5 model keeps per sequence (three
// convolution windows and the delta net's state matrices in each linear
// layer, keys and values in the attention layers), and that a prompt read
// in chunks carries them from chunk to chunk: the chunks' greedy tokens
// are the single steps', their logits within rounding of them.
func TestQwen35State(t *testing.T) {
	_, m, _ := loadRef(t, "tiny-qwen35-f32", cpu.New(2))
	rec := m.Recurrent()
	// tiny-qwen35: 4 taps (windows of 3 rows), 4 key and 8 value heads of 32.
	const perLayer = 3*(128+128+256) + 8*32*32
	if len(rec) != 2 || rec[0].Layer != 0 || rec[1].Layer != 2 || StateBytes(rec) != 2*perLayer*4 {
		t.Fatalf("recurrent layers %+v (%d bytes, want %d)", rec, StateBytes(rec), 2*perLayer*4)
	}
	if g := m.KVGroups(); len(g) != 1 || !slices.Equal(g[0].Layers, []int{1, 3}) {
		t.Fatalf("KV groups %+v: the attention layers are 1 and 3", g)
	}
	prompt := []int32{1024, 5, 77, 300, 12, 9, 800, 41, 42, 43, 600, 7}
	steps := generateSolo(t, m, quant.TypeF32, 64, prompt, 1, 8)
	for _, chunk := range []int{3, len(prompt)} {
		got := generateSolo(t, m, quant.TypeF32, 64, prompt, chunk, 8)
		if !slices.Equal(got.tokens, steps.tokens) {
			t.Errorf("chunks of %d: %v, single steps %v", chunk, got.tokens, steps.tokens)
		}
		for i := range got.logits {
			for v, x := range got.logits[i] {
				if d := x - steps.logits[i][v]; d > 1e-4 || d < -1e-4 {
					t.Fatalf("chunks of %d, step %d: logit %d is %g, %g in single steps", chunk, i, v, x, steps.logits[i][v])
				}
			}
		}
	}

	// A paged cache holds the states of its slots apart: two sequences
	// in one batch give the logits each gives alone in slot 0.
	paged, err := m.NewPagedCache([]int{64}, 2, quant.TypeF32)
	if err != nil {
		t.Fatal(err)
	}
	a, b := prompt[:5], prompt[5:]
	batch := &Batch{Tokens: append(slices.Clone(a), b...), Pos: append(span(0, len(a)), span(0, len(b))...),
		Seqs: []SeqBatch{{N: len(a), Cells: [][]int32{span(0, len(a))}, Slot: 1, Logits: true},
			{N: len(b), Cells: [][]int32{span(32, 32+len(b))}, Slot: 0, Logits: true}}}
	both, err := m.ForwardBatch(context.Background(), batch, paged)
	if err != nil {
		t.Fatal(err)
	}
	vocab := m.Config().Vocab
	for i, p := range [][]int32{a, b} {
		alone := generateSolo(t, m, quant.TypeF32, 64, p, len(p), 1)
		if argmax(both[i*vocab:(i+1)*vocab]) != alone.tokens[0] {
			t.Errorf("sequence %d: token %d batched, %d alone", i, argmax(both[i*vocab:(i+1)*vocab]), alone.tokens[0])
		}
	}
}

// TestQwen35Refuses checks that a Qwen3.5 or Qwen3-Next file whose delta
// net does not add up, or that lacks one of its tensors, is refused with
// a sentence that names the culprit, by Load and Describe alike.
func TestQwen35Refuses(t *testing.T) {
	if testing.Short() && runtime.GOARCH != "amd64" {
		t.Skip("-short under emulation: the load's checks have nothing architecture-specific")
	}
	for _, c := range []struct {
		shape, key string
		value      any
		drop, want string
	}{
		{"tiny-qwen35", "qwen35.ssm.group_count", uint32(3), "", "multiple of key heads"},
		{"tiny-qwen35", "qwen35.ssm.group_count", uint32(0), "", "ssm.group_count"},
		{"tiny-qwen35", "qwen35.ssm.inner_size", uint32(100), "", "ssm.inner_size"},
		{"tiny-qwen35", "qwen35.ssm.conv_kernel", uint32(1), "", "ssm.conv_kernel"},
		{"tiny-qwen35", "qwen35.ssm.conv_kernel", uint32(1 << 30), "", "ssm_conv1d"},
		{"tiny-qwen35", "qwen35.full_attention_interval", uint32(0), "", "full_attention_interval"},
		{"tiny-qwen35", "qwen35.ssm.state_size", uint32(64), "", "ssm"},
		{"tiny-qwen35", "", nil, "blk.0.ssm_beta.weight", "ssm_beta"},
		{"tiny-qwen3next", "", nil, "blk.2.ssm_ba.weight", "ssm_ba"},
		{"tiny-qwen35moe", "", nil, "blk.1.ffn_gate_inp_shexp.weight", "ffn_gate_inp_shexp"},
	} {
		t.Run(c.shape+"/"+c.key+c.drop, func(t *testing.T) {
			f := writeSynth(t, c.shape, "q8_0", 1)
			if c.key != "" {
				f = withKey(t, f, c.key, c.value)
			}
			if c.drop != "" {
				f = withoutTensor(t, f, c.drop)
			}
			_, err := Load(context.Background(), f, Options{Threads: 1})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("load: %v, want an error naming %s", err, c.want)
			}
			if c.drop == "" {
				if _, err := Describe(f); err == nil {
					t.Error("describe: no error")
				}
			}
		})
	}
}
