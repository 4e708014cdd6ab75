package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"saji/engine/model"
	"saji/kernels/quant"
)

// newPerplexityCmd is 'saji perplexity', llama-perplexity's procedure.
func newPerplexityCmd() *cobra.Command {
	var (
		modelPath, textPath, kvType string
		nCtx, threads, gpuLayers    int
	)
	cmd := &cobra.Command{
		Use:   "perplexity -m FILE -f TEXT -c N",
		Short: "Measure a model's perplexity on a text, as llama-perplexity does",
		Long: "Tokenize the text (one trailing newline dropped, BOS added as the vocabulary\n" +
			"says), cut it into chunks of N tokens, put BOS first in each chunk, evaluate each\n" +
			"chunk in a fresh sequence and score the second half of its positions. The running\n" +
			"perplexity after each chunk is printed as [k]value, then the final estimate\n" +
			"PPL = x +/- y. The figures are those llama-perplexity -c N -b N gives: like it,\n" +
			"the key/value cache is F16 by default (--kv-type f32 for the exact F32 cache).\n" +
			"--gpu-layers (-ngl) puts the last N layers on the GPU (CUDA, Metal), as many as\n" +
			"fit by default; where the model runs is said on standard error.",
		Example: "  saji perplexity -m stories260K.gguf -f story.txt -c 128",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if modelPath == "" || textPath == "" {
				return errors.New("perplexity: a model (-m FILE) and a text (-f TEXT) are required")
			}
			kv, err := quant.ParseType(kvType)
			if err != nil || (kv != quant.TypeF16 && kv != quant.TypeF32) {
				return fmt.Errorf("perplexity: --kv-type must be f16 or f32, not %q", kvType)
			}
			if nCtx < 4 {
				return fmt.Errorf("perplexity: the context (-c) must be at least 4, not %d", nCtx)
			}
			text, err := os.ReadFile(textPath)
			if err != nil {
				return fmt.Errorf("perplexity: %w", err)
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			lm, err := openTokenized(modelPath)
			if err != nil {
				return fmt.Errorf("perplexity: %w", err)
			}
			defer lm.Close()
			s := strings.TrimSuffix(string(text), "\n")
			tokens := lm.tok.Encode(s, true, false)
			if len(tokens) < 2*nCtx {
				return fmt.Errorf("perplexity: the text has %d tokens; a context of %d needs at least %d", len(tokens), nCtx, 2*nCtx)
			}
			bos := int32(-1)
			if lm.tok.AddBOS() {
				bos = lm.tok.BOS()
			}
			cache, err := lm.loadWithCache(ctx, gpuLayers, threads, nCtx, kv)
			if err != nil {
				return fmt.Errorf("perplexity: %w", err)
			}
			notePlacement(lm.placed.Placement, gpuLayers, cmd.ErrOrStderr())
			_, err = perplexity(ctx, lm.model, cache, tokens, nCtx, bos, cmd.OutOrStdout())
			if err != nil {
				return fmt.Errorf("perplexity: %w", err)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&modelPath, "model", "m", "", "GGUF model `FILE`")
	f.StringVarP(&textPath, "file", "f", "", "UTF-8 text `FILE` to score")
	f.IntVarP(&nCtx, "ctx-size", "c", 512, "tokens per chunk")
	f.IntVarP(&threads, "threads", "t", 0, "number of threads (0: all CPUs)")
	f.StringVar(&kvType, "kv-type", "f16", "key/value cache type: f16 (llama.cpp's default) or f32")
	registerGPULayers(f, &gpuLayers, "")
	return cmd
}

// pplResult is the outcome of perplexity.
type pplResult struct {
	PPL, StdErr float64
	Running     []float64 // after each chunk
}

// perplexity scores tokens, at least 2·nCtx of them (the command checks
// before it loads the model), in chunks of nCtx as llama-perplexity does,
// writing its progress line to w. cache holds nCtx positions; bos, when
// not negative, replaces the first token of each chunk.
func perplexity(ctx context.Context, m model.Model, cache *model.Cache, tokens []int32, nCtx int, bos int32, w io.Writer) (*pplResult, error) {
	nChunk := len(tokens) / nCtx
	vocab := m.Config().Vocab
	first := nCtx / 2
	var nll, nll2 float64
	count := 0
	res := &pplResult{}
	chunk := make([]int32, nCtx)
	for c := range nChunk {
		copy(chunk, tokens[c*nCtx:(c+1)*nCtx])
		if bos >= 0 {
			chunk[0] = bos
		}
		cache.Reset()
		logits, err := m.Forward(ctx, chunk, positions(0, nCtx), cache, true)
		if err != nil {
			return nil, err
		}
		for j := first; j < nCtx-1; j++ {
			v := -logSoftmax(logits[j*vocab:(j+1)*vocab], chunk[j+1])
			nll += v
			nll2 += v * v
		}
		count += nCtx - first - 1
		running := math.Exp(nll / float64(count))
		res.Running = append(res.Running, running)
		fmt.Fprintf(w, "[%d]%.4f,", c+1, running)
	}
	fmt.Fprintln(w)
	nll /= float64(count)
	nll2 /= float64(count)
	res.PPL = math.Exp(nll)
	if v := nll2 - nll*nll; v > 0 && count > 1 {
		res.StdErr = math.Sqrt(v/float64(count-1)) * res.PPL
	}
	fmt.Fprintf(w, "Final estimate: PPL = %.4f +/- %.5f\n", res.PPL, res.StdErr)
	return res, nil
}

// logSoftmax returns log softmax(logits)[tok] as llama-perplexity computes
// it: exponentials in float32, summed in float64.
func logSoftmax(logits []float32, tok int32) float64 {
	mx := logits[0]
	for _, v := range logits[1:] {
		mx = max(mx, v)
	}
	var sum float64
	for _, v := range logits {
		sum += float64(float32(math.Exp(float64(v - mx))))
	}
	return float64(logits[tok]-mx) - math.Log(sum)
}
