package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"saji/engine/gguf"
	"saji/engine/model"
	"saji/engine/offload"
	"saji/engine/tokenizer"
	"saji/kernels/quant"
)

// loadedModel is a model file opened for inference: the file (whose mapping
// the weights point into), its tokenizer and, once load has run, the model
// and where it runs.
type loadedModel struct {
	file   *gguf.File
	tok    *tokenizer.Tokenizer
	model  model.Model
	placed *offload.Loaded
}

// openTokenized opens path and loads its tokenizer; load loads the model.
func openTokenized(path string) (*loadedModel, error) {
	f, err := gguf.Open(path)
	if err != nil {
		return nil, err
	}
	tk, err := tokenizer.FromGGUF(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &loadedModel{file: f, tok: tk}, nil
}

// load loads lm's model with opts.GPULayers of its layers on the GPU and
// runs setup on it (allocating what must sit beside the weights, such as
// the KV cache). When the GPU cannot take it, the model runs on the CPU
// and lm.placed says why.
func (lm *loadedModel) load(ctx context.Context, opts offload.Options, setup func(model.Model) error) error {
	placed, err := offload.Load(ctx, lm.file, opts, setup)
	if err != nil {
		return err
	}
	lm.placed, lm.model = placed, placed.Model
	return nil
}

// loadWithCache loads lm's model with gpuLayers of its layers on the GPU
// and a KV cache of type kv for one sequence of n positions, in the same
// attempt, so that a cache the GPU cannot hold sends the model to the CPU
// with it.
func (lm *loadedModel) loadWithCache(ctx context.Context, gpuLayers, threads, n int, kv quant.Type) (*model.Cache, error) {
	var cache *model.Cache
	req := offload.Request{GPULayers: gpuLayers, Context: n, KVType: strings.ToLower(kv.String()), Parallel: 1}
	err := lm.load(ctx, offload.Options{Request: req, Threads: threads}, func(m model.Model) error {
		c, err := m.NewCache(n, kv)
		cache = c
		return err
	})
	return cache, err
}

// openModel opens path and loads its tokenizer and model on the CPU.
func openModel(ctx context.Context, path string, threads int) (*loadedModel, error) {
	lm, err := openTokenized(path)
	if err != nil {
		return nil, err
	}
	if err := lm.load(ctx, offload.Options{Threads: threads}, nil); err != nil {
		lm.Close()
		return nil, err
	}
	return lm, nil
}

// Close frees the model's GPU memory, if it has any, and closes the file.
func (lm *loadedModel) Close() error {
	err := lm.placed.Close()
	if ferr := lm.file.Close(); err == nil {
		err = ferr
	}
	return err
}

// notePlacement tells errw where a model runs: always when it is on a GPU
// or a GPU was found, and when layers were asked for (asked > 0) and there
// is no GPU.
func notePlacement(p offload.Placement, asked int, errw io.Writer) {
	if p.Layers == 0 && p.Device == "" && (asked <= 0 || p.Note == "") {
		return
	}
	fmt.Fprintf(errw, "saji: %s\n", p)
}

// positions returns from, from+1, ..., from+n-1.
func positions(from, n int) []int32 {
	p := make([]int32, n)
	for i := range p {
		p[i] = int32(from + i)
	}
	return p
}

// newEvalCmd is 'saji eval': the logits of a prompt and a greedy
// continuation as JSON, in the form of llama.cpp's reference dumps.
func newEvalCmd() *cobra.Command {
	var (
		modelPath, prompt               string
		top, greedy, threads, gpuLayers int
	)
	cmd := &cobra.Command{
		Use:   "eval -m FILE -p PROMPT",
		Short: "Print a prompt's logits and greedy continuation as JSON",
		Long: "Tokenize the prompt (adding BOS as the vocabulary says and parsing special-token\n" +
			"text, as llama.cpp does), run it through the model in one batch, and print JSON:\n\n" +
			"  {\"tokens\": [...], \"top_logits\": [[[id, logit], ...] per position],\n" +
			"   \"last_logits\": [all logits of the last position], \"greedy\": [ids]}\n\n" +
			"top_logits holds the --top largest logits of every position (ties by lower id);\n" +
			"greedy is --greedy tokens chosen by argmax, decoded one at a time through the\n" +
			"key/value cache. End-of-generation tokens do not stop it. --gpu-layers (-ngl)\n" +
			"puts the last N layers on the GPU, as many as fit by default (0: the CPU, whose\n" +
			"figures match llama.cpp's CPU backend closest).",
		Example: "  saji eval -m stories260K.gguf -p 'Once upon a time' --top 5 --greedy 16",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if modelPath == "" {
				return errors.New("eval: a model is required (-m FILE)")
			}
			if top < 0 || greedy < 0 {
				return errors.New("eval: --top and --greedy must not be negative")
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			lm, err := openTokenized(modelPath)
			if err != nil {
				return fmt.Errorf("eval: %w", err)
			}
			defer lm.Close()
			tokens := lm.tok.Encode(prompt, true, true)
			if len(tokens) == 0 {
				return errors.New("eval: the prompt has no tokens")
			}
			cache, err := lm.loadWithCache(ctx, gpuLayers, threads, len(tokens)+greedy, quant.TypeF32)
			if err != nil {
				return fmt.Errorf("eval: %w", err)
			}
			notePlacement(lm.placed.Placement, gpuLayers, cmd.ErrOrStderr())
			res, err := evaluate(ctx, lm.model, cache, tokens, top, greedy)
			if err != nil {
				return fmt.Errorf("eval: %w", err)
			}
			w := bufio.NewWriter(cmd.OutOrStdout())
			res.write(w)
			return w.Flush()
		},
	}
	f := cmd.Flags()
	f.StringVarP(&modelPath, "model", "m", "", "GGUF model `FILE`")
	f.StringVarP(&prompt, "prompt", "p", "", "prompt text")
	f.IntVar(&top, "top", 20, "number of top logits per position")
	f.IntVar(&greedy, "greedy", 32, "number of greedy tokens to generate")
	f.IntVarP(&threads, "threads", "t", 0, "number of threads (0: all CPUs)")
	registerGPULayers(f, &gpuLayers, "")
	return cmd
}

// evalResult is what 'saji eval' prints.
type evalResult struct {
	tokens []int32
	top    [][]int32 // per position, the ids of the top logits
	logits [][]float32
	last   []float32
	greedy []int32
}

// evaluate runs tokens through m with an empty cache that holds at least
// len(tokens)+greedy positions, then greedy tokens after them.
func evaluate(ctx context.Context, m model.Model, cache *model.Cache, tokens []int32, top, greedy int) (*evalResult, error) {
	vocab := m.Config().Vocab
	logits, err := m.Forward(ctx, tokens, positions(0, len(tokens)), cache, true)
	if err != nil {
		return nil, err
	}
	res := &evalResult{tokens: tokens}
	for i := range tokens {
		row := logits[i*vocab : (i+1)*vocab]
		res.top = append(res.top, topIDs(row, top))
		res.logits = append(res.logits, row)
	}
	res.last = logits[(len(tokens)-1)*vocab:]
	cur := res.last
	for step := range greedy {
		next := topIDs(cur, 1)[0]
		res.greedy = append(res.greedy, next)
		if step == greedy-1 {
			break
		}
		cur, err = m.Forward(ctx, []int32{next}, []int32{int32(len(tokens) + step)}, cache, false)
		if err != nil {
			return nil, err
		}
	}
	return res, nil
}

// topIDs returns the ids of the k largest values, largest first, ties by
// lower id (llama.cpp's order).
func topIDs(x []float32, k int) []int32 {
	k = min(k, len(x))
	ids := make([]int32, len(x))
	for i := range ids {
		ids[i] = int32(i)
	}
	sort.SliceStable(ids, func(a, b int) bool { return x[ids[a]] > x[ids[b]] })
	return ids[:k]
}

// write prints r as JSON, floats in the shortest form that reads back as
// the same float32.
func (r *evalResult) write(w io.Writer) {
	var b []byte
	f := func(v float32) { b = strconv.AppendFloat(b, float64(v), 'g', -1, 32) }
	ids := func(s []int32) {
		b = append(b, '[')
		for i, id := range s {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(id), 10)
		}
		b = append(b, ']')
	}
	b = append(b, `{"tokens":`...)
	ids(r.tokens)
	b = append(b, `,"top_logits":[`...)
	for i, row := range r.top {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		for j, id := range row {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(id), 10)
			b = append(b, ',')
			f(r.logits[i][id])
			b = append(b, ']')
		}
		b = append(b, ']')
	}
	b = append(b, `],"last_logits":[`...)
	for i, v := range r.last {
		if i > 0 {
			b = append(b, ',')
		}
		f(v)
	}
	b = append(b, `],"greedy":`...)
	if r.greedy == nil {
		r.greedy = []int32{}
	}
	ids(r.greedy)
	b = append(b, "}\n"...)
	w.Write(b)
}
