package model

import (
	"context"
	"errors"
	"fmt"

	"saji/kernels"
	"saji/kernels/quant"
)

// base holds what every architecture has: hyperparameters, the per-layer
// backends, the token embeddings and the output head.
type base struct {
	hp       hparams
	backend  kernels.Backend   // embeddings and output head
	backends []kernels.Backend // per layer
	tokEmbd  kernels.Tensor
	outNorm  kernels.Tensor
	output   kernels.Tensor // token_embd when the embeddings are tied
	outBias  kernels.Tensor // optional
	softcap  float32        // final logit softcap, 0 for none
	outScale float32        // multiplies the logits (Granite), 0 for none
	windows  []int          // per layer attention window (nil: all full)
	// recurrent lists the layers that keep a state per sequence instead
	// of keys and values (nil: none).
	recurrent []RecurrentLayer
	// kDims and vDims are each layer's key and value row lengths (all
	// heads) where they differ between layers (Gemma 4; 0 for Nemotron-H's
	// layers without attention); nil: KVHeads heads of HeadDim and
	// ValueDim in every layer.
	kDims, vDims []int
	// kvFrom, when not nil, names for each layer the layer whose cache it
	// attends over: itself, or an earlier layer whose keys and values it
	// shares (Gemma 4's last layers), which then has no cache of its own.
	kvFrom []int
}

// loadBase reads the hyperparameters, embeddings and output head.
func (ld *loader) loadBase() base {
	hp := ld.commonHParams()
	m := base{hp: hp, backend: ld.backend}
	if ld.err != nil {
		return m
	}
	for i := range hp.Layers {
		m.backends = append(m.backends, ld.layerBackend(i))
	}
	m.tokEmbd = ld.tensor(ld.backend, "token_embd.weight", hp.Embd, hp.Vocab)
	m.outNorm = ld.tensor(ld.backend, ld.outNormName(), hp.Embd)
	m.output = ld.optional(ld.backend, "output.weight", hp.Embd, hp.Vocab)
	if m.output == nil {
		m.output = m.tokEmbd
	}
	return m
}

// Config describes the model.
func (m *base) Config() Config { return m.hp.Config }

// kvGroups returns the layers that keep keys and values grouped by
// attention window, the groups in the order of their first layer. A layer
// that shares an earlier layer's cache (kvFrom) or has no keys (kDims 0)
// belongs to no group: it takes no memory. The layers of a group have the same row lengths (the
// loaders of architectures with per-layer lengths check it).
func (m *base) kvGroups() []KVGroup {
	var gs []KVGroup
	k, v, _ := m.cacheDims()
	for i := range m.hp.Layers {
		if m.recurrentLayer(i) != nil || m.sharesKV(i) || k[i] == 0 {
			continue
		}
		w := m.window(i)
		j := 0
		for j < len(gs) && gs[j].Window != w {
			j++
		}
		if j == len(gs) {
			gs = append(gs, KVGroup{Window: w, KDim: k[i], VDim: v[i]})
		}
		gs[j].Layers = append(gs[j].Layers, i)
	}
	return gs
}

// sharesKV reports whether layer i attends over an earlier layer's cache
// instead of its own.
func (m *base) sharesKV(i int) bool { return i < len(m.kvFrom) && m.kvFrom[i] != i }

// window returns layer i's attention window (0: full attention).
func (m *base) window(i int) int {
	if i < len(m.windows) {
		return m.windows[i]
	}
	return 0
}

// newCache returns an empty contiguous cache for n positions.
func (m *base) newCache(n int, kv quant.Type) (*Cache, error) {
	if n <= 0 {
		return nil, fmt.Errorf("model: cache size must be positive, not %d", n)
	}
	k, v, rows := m.cacheDims()
	for i := range rows {
		rows[i] = n
	}
	c, err := newCache(m.backends, k, v, rows, m.kvFrom, kv)
	if err != nil {
		return nil, err
	}
	c.size, c.group, c.cells = n, make([]int, m.hp.Layers), []int{n}
	if err := m.newStates(c, 1+checkpoints); err != nil {
		return nil, err
	}
	if c.state != nil {
		c.ckpt = []int{-1, -1}
	}
	return c, nil
}

// newPagedCache returns a paged cache of cells[g] cells for KV group g
// and slots state slots.
func (m *base) newPagedCache(cells []int, slots int, kv quant.Type) (*Cache, error) {
	gs := m.kvGroups()
	if len(cells) != len(gs) {
		return nil, fmt.Errorf("model: a paged cache needs cell counts for %d KV groups, not %d", len(gs), len(cells))
	}
	k, v, rows := m.cacheDims()
	group := make([]int, m.hp.Layers)
	for l := range group {
		group[l] = -1
	}
	for g, grp := range gs {
		for _, l := range grp.Layers {
			rows[l], group[l] = cells[g], g
		}
	}
	for i := range m.hp.Layers {
		if m.sharesKV(i) {
			rows[i], group[i] = rows[m.kvFrom[i]], group[m.kvFrom[i]]
		}
	}
	c, err := newCache(m.backends, k, v, rows, m.kvFrom, kv)
	if err != nil {
		return nil, err
	}
	c.paged, c.group, c.cells = true, group, append([]int(nil), cells...)
	return c, m.newStates(c, slots)
}

// cacheDims returns the per-layer key and value row lengths (0 for a
// recurrent layer), and a slice for the per-layer cell counts.
func (m *base) cacheDims() (k, v, rows []int) {
	k, v, rows = make([]int, m.hp.Layers), make([]int, m.hp.Layers), make([]int, m.hp.Layers)
	for i := range k {
		if m.recurrentLayer(i) != nil {
			continue
		}
		k[i], v[i] = m.hp.KVHeads*m.hp.HeadDim, m.hp.KVHeads*m.hp.ValueDim
		if m.kDims != nil {
			k[i], v[i] = m.kDims[i], m.vDims[i]
		}
	}
	return k, v, rows
}

// step is one forward pass: the tokens and their positions, where each
// layer's new keys and values go, and which cells each token attends over.
type step struct {
	tokens, pos []int32
	cache       *Cache
	rows        [][]int32   // per KV group: the cell of each token
	seqs        [][]seqView // per KV group: each sequence's view
	out         []int32     // rows whose logits are returned; nil for all
	used        int         // contiguous caches: cells filled after the step
	embed       bool        // head returns the normed hidden states, not logits
	cut         bool        // the hidden states hold only the rows st.out (outputsOnly)
	embd        []float32   // input vectors of the negative tokens (Batch.Embd)
	rope        []int32     // four positions per token (Batch.Rope), made by rotations
	kv          []kernels.SeqKV
	rec         stateStep // recurrent layers' sequences and slots
}

// seqView is one sequence's view of a KV group.
type seqView struct {
	cells     []int32 // nil: cell i is position i
	len, size int
	pos       []int32
}

// layerKV is a layer's part of a step: its cache tensors, the cells the
// batch writes, and the sequences' views.
type layerKV struct {
	k, v kernels.Tensor
	rows []int32
	seqs []kernels.SeqKV
}

// layer returns layer i's part of the step. Its seqs are valid until the
// next call.
func (st *step) layer(i int) layerKV {
	g := st.cache.group[i]
	k, v := st.cache.k[i], st.cache.v[i]
	st.kv = st.kv[:0]
	for _, s := range st.seqs[g] {
		st.kv = append(st.kv, kernels.SeqKV{KV: kernels.KV{K: k, V: v, Len: s.len, Cells: s.cells, Size: s.size}, Pos: s.pos})
	}
	return layerKV{k: k, v: v, rows: st.rows[g], seqs: st.kv}
}

// solo checks a Forward call's arguments and returns its step over a
// contiguous cache.
func (m *base) solo(ctx context.Context, tokens, positions []int32, cache *Cache, all bool) (*step, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n, err := cache.admit(tokens, positions, m.hp.Layers)
	if err != nil {
		return nil, err
	}
	if err := m.checkTokens(tokens); err != nil {
		return nil, err
	}
	st := &step{tokens: tokens, pos: positions, cache: cache, used: n,
		rows: [][]int32{positions}, seqs: [][]seqView{{{len: n, pos: positions}}}}
	if !all {
		st.out = lastRowOnly(len(tokens))
	}
	if err := cache.prepareState(st, []int{len(tokens)}, []int{0}); err != nil {
		return nil, err
	}
	return st, nil
}

// batch checks a ForwardBatch call's arguments and returns its step.
func (m *base) batch(ctx context.Context, b *Batch, cache *Cache) (*step, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if cache == nil || !cache.paged {
		return nil, errors.New("model: ForwardBatch needs a paged cache (NewPagedCache)")
	}
	if len(cache.k) != m.hp.Layers {
		return nil, fmt.Errorf("model: the cache has %d layers, the model %d", len(cache.k), m.hp.Layers)
	}
	if b == nil || len(b.Tokens) == 0 || len(b.Tokens) != len(b.Pos) {
		return nil, errors.New("model: a batch needs tokens, each with a position")
	}
	if err := m.checkInputs(b); err != nil {
		return nil, err
	}
	attnPos := b.Pos
	if b.AttnPos != nil {
		attnPos = b.AttnPos
	}
	groups := len(cache.cells)
	st := &step{tokens: b.Tokens, pos: b.Pos, cache: cache, out: []int32{}, embd: b.Embd, rope: b.Rope,
		rows: make([][]int32, groups), seqs: make([][]seqView, groups)}
	for g := range groups {
		st.rows[g] = make([]int32, 0, len(b.Tokens))
	}
	at := 0
	for i, s := range b.Seqs {
		if s.N <= 0 || at+s.N > len(b.Tokens) {
			return nil, fmt.Errorf("model: sequence %d of the batch has %d tokens, %d left", i, s.N, len(b.Tokens)-at)
		}
		if len(s.Cells) != groups {
			return nil, fmt.Errorf("model: sequence %d has cell maps for %d KV groups, the cache %d", i, len(s.Cells), groups)
		}
		pos := b.Pos[at : at+s.N]
		last := 0
		for _, p := range pos {
			if p < 0 {
				return nil, fmt.Errorf("model: sequence %d: negative position %d", i, p)
			}
			last = max(last, int(p))
		}
		for _, p := range attnPos[at : at+s.N] {
			if p < 0 || int(p) > last {
				return nil, fmt.Errorf("model: sequence %d: attention position %d outside its positions up to %d", i, p, last)
			}
		}
		for g, cells := range s.Cells {
			if len(cells) <= last {
				return nil, fmt.Errorf("model: sequence %d maps %d positions of group %d, its tokens reach position %d", i, len(cells), g, last)
			}
			for _, p := range pos {
				c := cells[p]
				if c < 0 || int(c) >= cache.cells[g] {
					return nil, fmt.Errorf("model: sequence %d: position %d maps to cell %d of a group of %d", i, p, c, cache.cells[g])
				}
				st.rows[g] = append(st.rows[g], c)
			}
			st.seqs[g] = append(st.seqs[g], seqView{cells: cells, len: last + 1, size: s.Size, pos: attnPos[at : at+s.N]})
		}
		if s.Outputs > s.N {
			return nil, fmt.Errorf("model: sequence %d asks for the logits of %d tokens, it has %d", i, s.Outputs, s.N)
		}
		at += s.N
		if s.Logits {
			for j := max(1, s.Outputs); j >= 1; j-- {
				st.out = append(st.out, int32(at-j))
			}
		}
	}
	if at != len(b.Tokens) {
		return nil, fmt.Errorf("model: the batch's sequences hold %d of its %d tokens", at, len(b.Tokens))
	}
	if cache.state != nil {
		ns, slots := make([]int, len(b.Seqs)), make([]int, len(b.Seqs))
		for i, s := range b.Seqs {
			ns[i], slots[i] = s.N, s.Slot
		}
		if err := cache.prepareState(st, ns, slots); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// checkInputs checks a batch's tokens and input vectors: every token in
// the vocabulary, or negative with its vector (Batch.Embd). batch checks
// the attention positions against each sequence's.
func (m *base) checkInputs(b *Batch) error {
	if b.AttnPos != nil && len(b.AttnPos) != len(b.Tokens) {
		return fmt.Errorf("model: %d attention positions for %d tokens", len(b.AttnPos), len(b.Tokens))
	}
	if b.Rope != nil && (!m.hp.MRoPE || len(b.Rope) != 4*len(b.Tokens)) {
		return fmt.Errorf("model: %d rope positions for %d tokens of %s (M-RoPE %v)", len(b.Rope), len(b.Tokens), m.hp.Arch, m.hp.MRoPE)
	}
	n := 0
	for _, t := range b.Tokens {
		if t < 0 {
			n++
		} else if int(t) >= m.hp.Vocab {
			return fmt.Errorf("model: token %d outside the vocabulary of %d", t, m.hp.Vocab)
		}
	}
	switch {
	case n > 0 && !m.hp.Vectors:
		return fmt.Errorf("model: %s reads tokens only, not input vectors", m.hp.Arch)
	case len(b.Embd) != n*m.hp.InputWidth():
		return fmt.Errorf("model: %d input values for %d vectors of %d", len(b.Embd), n, m.hp.InputWidth())
	}
	return nil
}

// input returns the step's input rows: the token embeddings multiplied by
// scale (unless 0), and the input vectors of the negative tokens as they
// are (llama.cpp's Gemma 3 scales token embeddings only).
func (m *base) input(g *graph, st *step, scale float32) kernels.Tensor {
	ids, rows := st.tokens, []int32(nil)
	if st.embd != nil {
		ids = make([]int32, len(st.tokens))
		for i, t := range st.tokens {
			if t < 0 {
				rows = append(rows, int32(i))
				continue
			}
			ids[i] = t
		}
	}
	x := g.embed(m.tokEmbd, ids)
	if scale != 0 {
		x = g.scale(x, scale)
	}
	if len(rows) == 0 || g.err != nil {
		return x
	}
	v := g.new(m.hp.Embd, len(rows))
	if g.err == nil {
		g.fail(g.b.Write(v, st.inputs(m.hp.Config)))
	}
	if g.err == nil {
		g.fail(g.b.SetRows(x, v, rows))
	}
	return x
}

// checkTokens checks that every token is in the vocabulary.
func (m *base) checkTokens(tokens []int32) error {
	for _, t := range tokens {
		if t < 0 || int(t) >= m.hp.Vocab {
			return fmt.Errorf("model: token %d outside the vocabulary of %d", t, m.hp.Vocab)
		}
	}
	return nil
}

// graph returns a graph that starts on the input backend.
func (m *base) graph() *graph { return &graph{b: m.backend} }

// common returns the parts every architecture shares.
func (m *base) common() *base { return m }

// head applies the output norm and matrix (and softcap) to the rows st.out
// of x (every row when st.out is nil) and returns the logits; for an
// embedding step (st.embed) it stops after the norm and returns the normed
// rows, Embd values each.
func (m *base) head(g *graph, x kernels.Tensor, st *step, eps float32) ([]float32, error) {
	out := st.out
	if out != nil && len(out) == 0 {
		g.release(nil)
		return nil, g.err
	}
	x = g.on(m.backend, x)
	if out != nil && !st.cut && g.err == nil && !(len(out) == kernels.Rows(x) && allRows(out)) {
		x = g.rows(x, out)
	}
	x = g.norm(x, m.outNorm, eps)
	if st.embed {
		return g.logits(x)
	}
	x = g.linear(x, m.output, m.outBias)
	if m.outScale != 0 {
		x = g.scale(x, m.outScale)
	}
	if m.softcap > 0 {
		x = g.softcap(x, m.softcap)
	}
	return g.logits(x)
}

// outputsOnly returns x (the hidden states after layer i's attention) cut
// to the rows st.out when i is the last layer and not every row is wanted,
// as llama.cpp's graphs cut theirs there: the last feed-forward block then
// runs on the rows whose logits are returned (one of a prompt's), not on
// all of them (5% of the multiply-adds of a 16-layer Llama's prompt), and
// each of its matrix products takes the path llama.cpp's does for that
// many rows. head then reads the rows as they are. Where no row is wanted
// (a prompt's chunk before its last) it returns nil, and the caller skips
// the rest of the layer. A layer that adds deepstack input vectors
// afterwards needs every row, and keeps them.
func (m *base) outputsOnly(g *graph, x kernels.Tensor, st *step, i int) kernels.Tensor {
	out := st.out
	if i != m.hp.Layers-1 || out == nil || i < m.hp.Deepstack || g.err != nil ||
		(len(out) == kernels.Rows(x) && allRows(out)) {
		return x
	}
	st.cut = true
	if len(out) == 0 {
		return nil
	}
	return g.rows(x, out)
}

// allRows reports whether ids is 0, 1, 2, ...
func allRows(ids []int32) bool {
	for i, r := range ids {
		if int(r) != i {
			return false
		}
	}
	return true
}

// finish records the batch in a contiguous cache once the forward pass
// succeeded.
func (c *Cache) finish(n int, err error) {
	if err == nil {
		c.used = n
	}
}

// rotations returns the positions the step's tokens turn by under p:
// their positions, or for a rope with sections (M-RoPE) the batch's four
// per token (Batch.Rope), or, without them, text's: each position as its
// time, height and width, and 0 extra (llama.cpp's llm_graph_input_pos).
func (st *step) rotations(p kernels.RopeParams) []int32 {
	if !p.Multi() {
		return st.pos
	}
	if st.rope == nil {
		n := len(st.pos)
		st.rope = make([]int32, 4*n)
		for k := range 3 {
			copy(st.rope[k*n:], st.pos)
		}
	}
	return st.rope
}

// inputs returns the first Embd values of each of the step's input
// vectors (Batch.Embd): the whole vectors, or without the parts deepstack
// layers add (Config.Deepstack, addDeepstack).
func (st *step) inputs(c Config) []float32 {
	if c.Deepstack == 0 {
		return st.embd
	}
	w := c.InputWidth()
	out := make([]float32, 0, len(st.embd)/w*c.Embd)
	for j := 0; j+w <= len(st.embd); j += w {
		out = append(out, st.embd[j:j+c.Embd]...)
	}
	return out
}

// addDeepstack adds to the hidden states x, after deepstack layer k, the
// part of each input vector for that layer, at the rows of the negative
// tokens (llama.cpp adds the zeros that pad a token's embedding to the
// other rows, which changes none).
func (m *base) addDeepstack(g *graph, x kernels.Tensor, st *step, k int) kernels.Tensor {
	if k >= m.hp.Deepstack || st.embd == nil || g.err != nil {
		return x
	}
	n, w := m.hp.Embd, m.hp.InputWidth()
	h := make([]float32, len(st.tokens)*n)
	j := 0 // the input vector of the next negative token
	for i, t := range st.tokens {
		if t < 0 {
			off := j*w + (k+1)*n
			copy(h[i*n:(i+1)*n], st.embd[off:off+n])
			j++
		}
	}
	d := g.new(n, len(st.tokens))
	if g.err == nil {
		g.fail(g.b.Write(d, h))
	}
	return g.add(x, d)
}
