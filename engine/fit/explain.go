package fit

import (
	"fmt"
	"strings"
)

// mb formats bytes in megabytes (10^6), as file sizes are shown.
func mb(n int64) string {
	if n >= 10e9 {
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	}
	return fmt.Sprintf("%d MB", (n+500_000)/1_000_000)
}

// Explain says how the plan's numbers come about, a line each.
func (p Plan) Explain() []string {
	s, b, r := p.Model, p.Breakdown, p.Request
	m := p.Machine.Memory
	var out []string
	if p.Fallback {
		out = append(out, fmt.Sprintf("Need: %s (the file's %s, a fifth more for the KV cache and buffers, and 512 MiB)",
			mb(b.Total), mb(s.FileSize)))
		out = append(out, fmt.Sprintf("Verdict: %s (RAM %s available of %s)", p.Verdict, mb(int64(m.Available)), mb(int64(m.Total))))
		for _, w := range p.Warnings {
			out = append(out, "Warning: "+w)
		}
		return out
	}
	out = append(out, fmt.Sprintf("Weights: %s (%d layers x %s + %s embeddings/output)",
		mb(b.Weights), s.Layers, mb(b.LayerWeights), mb(b.EmbdWeights+b.OutputWeights)))
	bpe := kvElemBytes(r.KVType)
	for _, g := range b.KVGroups {
		kvh, _ := s.groupHeads(g.Window)
		what := "full attention"
		if g.Window > 0 {
			what = fmt.Sprintf("sliding window of %d", g.Window)
		}
		out = append(out, fmt.Sprintf("KV cache at %d tokens, %s: %s (2 x %d layers x %d KV heads x %d x %d cells x %s B; %s)",
			r.Context, r.KVType, mb(g.Bytes), g.Layers, kvh, s.HeadDim, g.Cells, bpe, what))
	}
	out = append(out, fmt.Sprintf("KV cache: %s: a pool of %d tokens in blocks of 16 (scheduler KV budget %d bytes)",
		p.Pool, b.KVTokens, b.KVBudget))
	out = append(out, fmt.Sprintf("Compute buffers: %s (activations for %d tokens a step: %s; logits for %s: %s)",
		mb(b.Activations+b.Logits), max(128, p.MaxSeqs), mb(b.Activations), plural(p.MaxSeqs, "sequence"), mb(b.Logits)))
	out = append(out, fmt.Sprintf("Runtime and tokenizer: %s", mb(b.Overhead)))
	out = append(out, fmt.Sprintf("Total: %s (RAM %s, GPU %s)", mb(b.Total), mb(b.RAM), mb(b.GPU)))
	out = append(out, fmt.Sprintf("Verdict: %s (RAM %s available of %s)", p.Verdict, mb(int64(m.Available)), mb(int64(m.Total))))
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
		out = append(out, fmt.Sprintf("Decode: about %.1f tokens/s (%.1f GB/s / %s read per token: weights and KV at %d tokens)",
			p.DecodeTokensPerSec, p.Machine.Bandwidth/1e9, mb(p.DecodeBytes), r.Context))
	case p.Breakdown.GPU > 0:
		out = append(out, fmt.Sprintf("Decode: not predicted (GPU bandwidth unknown); %s read per token", mb(p.DecodeBytes)))
	default:
		out = append(out, fmt.Sprintf("Decode: not predicted (memory bandwidth unknown); %s read per token", mb(p.DecodeBytes)))
	}
	return out
}

// groupHeads returns the KV heads of the group with the given window (the
// first layer's) and whether the layers differ.
func (s ModelShape) groupHeads(window int) (int, bool) {
	h, mixed := -1, false
	for i := range s.Layers {
		if s.window(i) != window {
			continue
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
