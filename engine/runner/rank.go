package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"saji/engine/gguf"
	"saji/engine/model"
	"saji/kernels/quant"
)

// Reranking: a reranker scores how well a document answers a query. A
// GGUF reranker says so with rank pooling (<arch>.pooling_type 4,
// llama.cpp's LLAMA_POOLING_TYPE_RANK) and carries a classification head,
// cls.output, that turns the pooled hidden state into one value per label.
// Saji runs the rerankers of the architectures it loads whose head
// llama.cpp applies to the pooled state alone: Qwen3-Reranker (qwen3, the
// last token's state, the head being the rows of "yes" and "no" of the
// output matrix, softmaxed), whose score is the probability of "yes".
// BERT-family rerankers are architectures Saji does not load.

// poolingRank is llama.cpp's LLAMA_POOLING_TYPE_RANK, the value of
// <arch>.pooling_type in a reranker's file.
const poolingRank = 4

// keyPoolingType is the GGUF key of a model's pooling type.
const keyPoolingType = "%s.pooling_type"

// keyRerankTemplate is the GGUF key of a reranker's prompt, in which
// {query} and {document} stand for the texts (llama.cpp's named chat
// template "rerank").
const keyRerankTemplate = gguf.KeyChatTemplate + ".rerank"

// rankPools are the architectures Saji ranks with, and the token whose
// hidden state each pools (as llama.cpp's build_pooling does).
var rankPools = map[string]model.Pooling{
	"qwen3": model.PoolLast,
}

// rankHead is a reranker's classification head.
type rankHead struct {
	w        []float32 // labels rows of Embd values
	labels   int
	pool     model.Pooling
	softmax  bool   // the labels' values are softmaxed (Qwen3)
	template string // the prompt with {query} and {document}, or "" for llama.cpp's default
}

// rankOnce reads a model's head once.
type rankOnce struct {
	once sync.Once
	head *rankHead
	err  error // why the model cannot rank
}

// CanRank reports, as an error wrapping ErrBadRequest that says why, whether
// the model cannot rank documents; nil means it can (see Rank).
func (m *Model) CanRank() error {
	_, err := m.rankHead()
	return err
}

// rankHead returns the model's classification head, read from its file on
// first use.
func (m *Model) rankHead() (*rankHead, error) {
	m.rank.once.Do(func() {
		h, err := readRankHead(m.file, m.Info.Arch, m.Info.Embd)
		if err != nil {
			err = fmt.Errorf("%w: model %q cannot rank: %w", ErrBadRequest, m.Name, err)
		}
		m.rank.head, m.rank.err = h, err
	})
	return m.rank.head, m.rank.err
}

// readRankHead reads the classification head of a reranker of arch with
// hidden states of embd values from f.
func readRankHead(f *gguf.File, arch string, embd int) (*rankHead, error) {
	key := fmt.Sprintf(keyPoolingType, arch)
	pt, err := f.Uint(key)
	switch {
	case errors.Is(err, gguf.ErrNotFound):
		return nil, fmt.Errorf("it is not a reranker (its file has no %s; rerankers have 4, rank pooling)", key)
	case err != nil:
		return nil, err
	case pt != poolingRank:
		return nil, fmt.Errorf("it is not a reranker (%s is %d; rerankers have 4, rank pooling)", key, pt)
	}
	pool, ok := rankPools[arch]
	if !ok {
		return nil, fmt.Errorf("the rerankers Saji runs are qwen3 ones (Qwen3-Reranker), not %s", arch)
	}
	t, ok := f.Tensor("cls.output.weight")
	if !ok {
		return nil, errors.New("its file has no classification head (cls.output.weight)")
	}
	if len(t.Shape) != 2 || t.Shape[0] != int64(embd) || t.Shape[1] < 1 || t.Shape[1] > 1<<16 {
		return nil, fmt.Errorf("its classification head has the shape %v, not [%d labels]", t.Shape, embd)
	}
	data, err := f.Data(t)
	if err != nil {
		return nil, err
	}
	h := &rankHead{w: make([]float32, t.Shape[0]*t.Shape[1]), labels: int(t.Shape[1]), pool: pool, softmax: arch == "qwen3"}
	if err := quant.Dequantize(t.Type, data, h.w); err != nil {
		return nil, fmt.Errorf("its classification head: %w", err)
	}
	h.template, err = f.String(keyRerankTemplate)
	if err != nil && !errors.Is(err, gguf.ErrNotFound) {
		return nil, err
	}
	return h, nil
}

// score turns a pooled hidden state into the reranker's score: the head's
// first label, after the softmax for the heads that have one, as
// llama-server's rerank reports it.
func (h *rankHead) score(x []float32) float32 {
	out := make([]float64, h.labels)
	for l := range h.labels {
		var s float64
		for i, w := range h.w[l*len(x) : (l+1)*len(x)] {
			s += float64(w) * float64(x[i])
		}
		out[l] = s
	}
	if !h.softmax {
		return float32(out[0])
	}
	top := out[0]
	for _, v := range out {
		top = max(top, v)
	}
	var sum float64
	for _, v := range out {
		sum += math.Exp(v - top)
	}
	return float32(math.Exp(out[0]-top) / sum)
}

// rankPrompt returns the tokens of the pair (query, doc) as llama-server
// builds them: the model's rerank prompt with the texts in place (special
// tokens parsed, none added), or else BOS, the query, EOS, SEP, the
// document and EOS, each separator where the vocabulary adds it.
func (m *Model) rankPrompt(h *rankHead, query, doc string) []int32 {
	tk := m.tok
	if h.template != "" {
		p := strings.ReplaceAll(h.template, "{query}", query)
		p = strings.ReplaceAll(p, "{document}", doc)
		return tk.Encode(p, false, true)
	}
	eos := tk.EOS()
	if eos < 0 {
		eos = tk.SEP()
	}
	var toks []int32
	if tk.AddBOS() && tk.BOS() >= 0 {
		toks = append(toks, tk.BOS())
	}
	toks = append(toks, tk.Encode(query, false, false)...)
	if tk.AddEOS() && eos >= 0 {
		toks = append(toks, eos)
	}
	if tk.AddSEP() && tk.SEP() >= 0 {
		toks = append(toks, tk.SEP())
	}
	toks = append(toks, tk.Encode(doc, false, false)...)
	if tk.AddEOS() && eos >= 0 {
		toks = append(toks, eos)
	}
	return toks
}

// Rank scores each of docs against query with the model's classification
// head (see CanRank) and returns the scores in the order of docs, with the
// number of tokens read. A pair longer than the model's context is an
// error wrapping ErrContextLength. Like embeddings, ranking runs outside
// the scheduler.
func (m *Model) Rank(ctx context.Context, query string, docs []string) ([]float32, int, error) {
	h, err := m.rankHead()
	if err != nil {
		return nil, 0, err
	}
	if len(docs) == 0 {
		return nil, 0, fmt.Errorf("%w: there are no documents to rank", ErrBadRequest)
	}
	seqs := make([][]int32, len(docs))
	for i, d := range docs {
		seqs[i] = m.rankPrompt(h, query, d)
		if len(seqs[i]) == 0 {
			return nil, 0, fmt.Errorf("%w: document %d and the query are empty", ErrBadRequest, i)
		}
		if len(seqs[i]) > m.Info.Context {
			return nil, 0, fmt.Errorf("%w: the query with document %d has %d tokens and the model's context is %d",
				ErrContextLength, i, len(seqs[i]), m.Info.Context)
		}
	}
	ctx, release, err := m.hold(ctx)
	if err != nil {
		return nil, 0, err
	}
	defer release()
	scores := make([]float32, len(docs))
	total := 0
	for i, toks := range seqs {
		x, err := m.pooled(ctx, toks, h.pool)
		if err != nil {
			return nil, 0, err
		}
		if len(x)*h.labels != len(h.w) {
			return nil, 0, fmt.Errorf("runner: ranking: a hidden state of %d values for a head of %d", len(x), len(h.w)/h.labels)
		}
		scores[i] = h.score(x)
		total += len(toks)
	}
	m.touch()
	return scores, total, nil
}
