package fit

import (
	"fmt"
	"strings"

	"saji/engine/units"
)

// Explain says how the plan's numbers come about, a line each.
func (p Plan) Explain() []string {
	s, b, r := p.Model, p.Breakdown, p.Request
	m := p.Machine.Memory
	var out []string
	if p.Fallback {
		out = append(out, fmt.Sprintf("Need: %s (the file's %s, a fifth more for the KV cache and buffers, and 512 MiB)",
			units.Bytes(b.Total), units.Bytes(s.FileSize)))
		out = append(out, fmt.Sprintf("Verdict: %s (RAM %s available of %s)", p.Verdict, units.Bytes(int64(m.Available)), units.Bytes(int64(m.Total))))
		for _, w := range p.Warnings {
			out = append(out, "Warning: "+w)
		}
		return out
	}
	out = append(out, fmt.Sprintf("Weights: %s (%d layers x %s + %s embeddings/output)",
		units.Bytes(b.Weights), s.Layers, units.Bytes(b.LayerWeights), units.Bytes(b.EmbdWeights+b.OutputWeights)))
	bpe := kvElemBytes(r.KVType)
	for _, g := range b.KVGroups {
		kvh, _ := s.groupHeads(g.Window)
		what := "full attention"
		if g.Window > 0 {
			what = fmt.Sprintf("sliding window of %d", g.Window)
		}
		out = append(out, fmt.Sprintf("KV cache at %d tokens, %s: %s (2 x %d layers x %d KV heads x %d x %d cells x %s B; %s)",
			r.Context, r.KVType, units.Bytes(g.Bytes), g.Layers, kvh, s.HeadDim, g.Cells, bpe, what))
	}
	out = append(out, fmt.Sprintf("KV cache: %s: a pool of %d tokens in blocks of 16", p.Pool, b.KVTokens))
	if b.State > 0 {
		var per int64
		for _, n := range s.StateBytes {
			per += n
		}
		out = append(out, fmt.Sprintf("Recurrent state: %s (%d recurrent layers, %s a slot, x %d slots: one per sequence and the prefix cache's snapshots)",
			units.Bytes(b.State), s.recurrentLayers(), units.Bytes(per), b.State/max(1, per)))
	}
	out = append(out, fmt.Sprintf("Compute buffers: %s (activations for %d tokens a step: %s; logits for %s: %s)",
		units.Bytes(b.Activations+b.Logits), max(128, p.MaxSeqs), units.Bytes(b.Activations), plural(p.MaxSeqs, "sequence"), units.Bytes(b.Logits)))
	out = append(out, fmt.Sprintf("Runtime and tokenizer: %s", units.Bytes(b.Overhead)))
	out = append(out, fmt.Sprintf("Total: %s (RAM %s, GPU %s)", units.Bytes(b.Total), units.Bytes(b.RAM), units.Bytes(b.GPU)))
	out = append(out, fmt.Sprintf("Verdict: %s (RAM %s available of %s)", p.Verdict, units.Bytes(int64(m.Available)), units.Bytes(int64(m.Total))))
	limit := "training context"
	if s.ContextTrain > 0 {
		limit = fmt.Sprintf("training context %d", s.ContextTrain)
	}
	out = append(out, fmt.Sprintf("Largest context that fits: %d tokens (%s)", p.MaxContext, limit))
	for _, w := range p.Warnings {
		out = append(out, "Warning: "+w)
	}
	switch {
	case p.DecodeTokensPerSec > 0:
		out = append(out, fmt.Sprintf("Decode: about %.1f tokens/s (%s / %s read per token: weights and KV at %d tokens)",
			p.DecodeTokensPerSec, units.Rate(p.Machine.Bandwidth), units.Bytes(p.DecodeBytes), r.Context))
	case p.Breakdown.GPU > 0:
		out = append(out, fmt.Sprintf("Decode: not predicted (GPU bandwidth unknown); %s read per token", units.Bytes(p.DecodeBytes)))
	default:
		out = append(out, fmt.Sprintf("Decode: not predicted (memory bandwidth unknown); %s read per token", units.Bytes(p.DecodeBytes)))
	}
	return out
}

// groupHeads returns the KV heads of the group with the given window (the
// first attention layer's) and whether the layers differ.
func (s ModelShape) groupHeads(window int) (int, bool) {
	h, mixed := -1, false
	for i := range s.Layers {
		if s.window(i) != window || s.KVHeads[i] == 0 {
			continue // another group's, or a recurrent layer
		}
		if h >= 0 && s.KVHeads[i] != h {
			mixed = true
		}
		if h < 0 {
			h = s.KVHeads[i]
		}
	}
	return h, mixed
}

func kvElemBytes(t string) string {
	switch strings.ToLower(t) {
	case "f32":
		return "4"
	case "q8_0":
		return "1.0625"
	}
	return "2"
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// recurrentLayers counts the layers that keep a recurrent state.
func (s ModelShape) recurrentLayers() int {
	n := 0
	for _, b := range s.StateBytes {
		if b > 0 {
			n++
		}
	}
	return n
}
