package fit

import (
	"fmt"
	"strings"

	"saji/engine/hardware"
	"saji/engine/kvcache"
	"saji/engine/scheduler"
	"saji/engine/units"
	"saji/kernels/quant"
)

// Request is what the user wants to run. Its zero fields take the
// scheduler's defaults (scheduler.Config.Sized), so that the plan sizes the
// pool the scheduler will build.
type Request struct {
	// Context is the longest sequence in tokens (0: the scheduler's
	// default, scheduler.DefaultContext or the training context when
	// shorter).
	Context int `json:"context"`
	// KVType is the KV cache's element type: "f16" (also for ""), "q8_0"
	// or "f32".
	KVType string `json:"kv_type"`
	// Parallel is the memory profile, scheduler.Config.Parallel: 1 the
	// desktop's (one conversation of the whole context and a reserve of
	// scheduler.ReserveTokens), N the server's (a pool of N whole
	// contexts that the running sequences share), 0 the scheduler's older
	// default (four contexts, or MaxSeqs quarter contexts when more).
	Parallel int `json:"parallel"`
	// KVBytes, above 0, is the KV pool's budget in bytes (the scheduler's
	// Config.KVBytes); it takes the place of Parallel's pool.
	KVBytes int64 `json:"kv_bytes,omitempty"`
	// MaxSeqs is the most sequences running at once (0: the scheduler's
	// default for the profile).
	MaxSeqs int `json:"max_seqs,omitempty"`
	// GPULayers is the number of layers to offload: -1 chooses (as many
	// as fit), 0 none.
	GPULayers int `json:"gpu_layers"`
}

// Desktop is the request of the desktop profile (the app, saji run): one
// conversation of ctx tokens (0: the default) and a small reserve.
func Desktop(ctx int) Request { return Request{Context: ctx, Parallel: 1, GPULayers: -1} }

// SchedulerRequest is the request for a model served by a scheduler with
// cfg and gpuLayers layers on the GPU: the plan sizes the same pool.
func SchedulerRequest(cfg scheduler.Config, gpuLayers int) Request {
	return Request{Context: cfg.Context, KVType: cfg.KVType, Parallel: cfg.Parallel, KVBytes: max(0, cfg.KVBytes),
		MaxSeqs: cfg.MaxSeqs, GPULayers: gpuLayers}
}

// scheduler returns the scheduler settings of req for shape, defaults
// filled in as the scheduler fills them.
func (req Request) scheduler(shape ModelShape) scheduler.Config {
	return scheduler.Config{Context: req.Context, KVType: req.KVType, Parallel: req.Parallel, KVBytes: req.KVBytes,
		MaxSeqs: req.MaxSeqs}.Sized(shape.ContextTrain)
}

// VerdictKind says where a model runs.
type VerdictKind int

// The verdicts, best first.
const (
	// FullGPU: every layer, the KV cache and the output head on the GPU.
	FullGPU VerdictKind = iota
	// PartialGPU: Verdict.GPULayers layers on the GPU, the rest on the CPU.
	PartialGPU
	// CPUOnly: everything on the CPU, in RAM.
	CPUOnly
	// WontFit: not even the CPU's RAM holds it.
	WontFit
)

// Verdict is the planner's answer.
type Verdict struct {
	Kind VerdictKind `json:"kind"`
	// GPULayers is the number of layers on the GPU (PartialGPU; all of
	// them for FullGPU).
	GPULayers int `json:"gpu_layers"`
	// Tight is set when the RAM part fits the machine's total memory but
	// not what is available now: other programs must give some back.
	Tight bool `json:"tight,omitempty"`
}

// String says the verdict in a few words.
func (v Verdict) String() string {
	var s string
	switch v.Kind {
	case FullGPU:
		s = "fits on the GPU"
	case PartialGPU:
		s = fmt.Sprintf("partly on the GPU (%d layers)", v.GPULayers)
	case CPUOnly:
		s = "fits in RAM (CPU only)"
	default:
		return "won't fit"
	}
	if v.Tight {
		s += ", tight: close other programs first"
	}
	return s
}

// MarshalText names the kind in JSON.
func (k VerdictKind) MarshalText() ([]byte, error) {
	return []byte([...]string{"full_gpu", "partial_gpu", "cpu_only", "wont_fit"}[min(int(k), 3)]), nil
}

// KVGroupPlan is the pool of one group of layers with the same attention
// window, as the scheduler sizes it.
type KVGroupPlan struct {
	// Window is the group's attention window (0: full attention).
	Window int `json:"window"`
	// Layers is how many layers the group has.
	Layers int `json:"layers"`
	// Cells is the number of cells the pool gives the group; CellBytes
	// what one cell takes over all its layers; Bytes the product.
	Cells     int   `json:"cells"`
	CellBytes int64 `json:"cell_bytes"`
	Bytes     int64 `json:"bytes"`
}

// Breakdown is where the memory goes. Sizes are in bytes.
type Breakdown struct {
	// LayerWeights is the mean size of a layer's weights; LayersWeights
	// all of them; EmbdWeights the token embeddings and OutputWeights the
	// output head and norm (and any other tensor outside the blocks).
	LayerWeights  int64 `json:"layer_weights"`
	LayersWeights int64 `json:"layers_weights"`
	EmbdWeights   int64 `json:"embd_weights"`
	OutputWeights int64 `json:"output_weights"`
	Weights       int64 `json:"weights"`
	// KVGroups are the pool's groups; KV their sum. KVTokens is the
	// number of tokens the full-attention layers hold (over all parallel
	// sequences), KVBudget the scheduler Config.KVBytes that gives this
	// pool.
	KVGroups []KVGroupPlan `json:"kv_groups"`
	KV       int64         `json:"kv"`
	KVTokens int           `json:"kv_tokens"`
	KVBudget int64         `json:"kv_budget"`
	// State is the recurrent layers' state of a hybrid model: a slot of
	// every recurrent layer's state for each sequence the scheduler runs
	// at once and for each of the prefix cache's state snapshots
	// (ModelShape.StateBytes × scheduler.StateSlots), beside the KV pool.
	State int64 `json:"state,omitempty"`
	// Activations are the F32 buffers of one step's widest layer (a step
	// runs up to the scheduler's token budget); Logits the vocabulary-wide
	// buffers of the sequences sampled in a step.
	Activations int64 `json:"activations"`
	Logits      int64 `json:"logits"`
	// Overhead is the Go runtime, the program and the tokenizer.
	Overhead int64 `json:"overhead"`
	// Total is everything, with the KV cache full; GPU the part on the
	// GPU and RAM the part in RAM (weights mapped from the file count: the
	// engine reads all of them).
	Total int64 `json:"total"`
	GPU   int64 `json:"gpu"`
	RAM   int64 `json:"ram"`
	// Repacked is the CPU backend's interleaved copies of the weights it
	// runs (ModelShape.RepackBytes), part of Total and RAM: the matrix
	// products read them instead of the file's bytes, which stay mapped
	// (to gather rows) and, loaded without mmap, in memory.
	Repacked int64 `json:"repacked,omitempty"`
}

// Plan is the planner's answer for a model, a machine and a request.
type Plan struct {
	Model   ModelShape       `json:"model"`
	Machine hardware.Machine `json:"machine"`
	// Request is the request with its defaults filled in; MaxSeqs the
	// number of sequences the scheduler runs at once.
	Request Request `json:"request"`
	MaxSeqs int     `json:"max_seqs"`
	// Pool names the KV pool in words ("1 conversation of 8192 tokens +
	// a reserve of 512", "4 parallel sequences of 8192 tokens").
	Pool string `json:"pool"`
	// Warnings say what the plan's numbers do not: a context beyond the
	// training context, a plan from the file's size alone.
	Warnings []string `json:"warnings,omitempty"`
	// Fallback is set for a plan from the file's size alone (PlanSize),
	// without a breakdown by layer.
	Fallback bool `json:"fallback,omitempty"`

	Breakdown Breakdown `json:"breakdown"`
	Verdict   Verdict   `json:"verdict"`
	// MaxContext is the largest context (a multiple of 16, at most the
	// training context) that fits the machine with the same KV type and
	// parallel sequences.
	MaxContext int `json:"max_context"`
	// DecodeBytes is what one decoded token reads: every weight but the
	// embeddings (one row) and the experts the token does not run, and
	// the KV cache of a sequence at the full context. DecodeTokensPerSec is the bandwidth over it (0 when the
	// bandwidth is unknown or layers run on a GPU, whose bandwidth is not
	// measured).
	DecodeBytes        int64   `json:"decode_bytes"`
	DecodeTokensPerSec float64 `json:"decode_tokens_per_sec"`
}

// Constants of the memory model. baseOverhead is the resident memory of
// the program and the Go runtime with nothing loaded; tokenizerEntry what
// the tokenizer and the parsed metadata keep per token or merge (strings,
// maps, the metadata's own copy). Both were measured on the synthetic
// llama-1b (408k tokens and merges: about 70 MB; see TestResidentMemory
// and saji fit --measure).
const (
	baseOverhead   = 24 << 20
	tokenizerEntry = 170
)

// PlanFor plans shape on machine for req.
func PlanFor(shape ModelShape, machine hardware.Machine, req Request) (Plan, error) {
	p := Plan{Model: shape, Machine: machine}
	req, err := fillRequest(shape, req)
	if err != nil {
		return p, err
	}
	p.Request = req
	p.MaxSeqs = req.MaxSeqs
	p.place()
	p.MaxContext = p.maxContext()
	p.DecodeBytes = shape.decodeBytes(req.Context, p.kvType())
	if machine.Bandwidth > 0 && p.Breakdown.GPU == 0 && p.DecodeBytes > 0 {
		p.DecodeTokensPerSec = machine.Bandwidth / float64(p.DecodeBytes)
	}
	p.Pool = p.poolText()
	if t := shape.ContextTrain; t > 0 && req.Context > t {
		p.Warnings = append(p.Warnings, fmt.Sprintf("the context of %d tokens exceeds the %d the model was trained with: "+
			"past token %d its output degrades, so the largest context given is the trained one", req.Context, t, t))
	}
	return p, nil
}

// fillRequest checks req and fills in its defaults, the scheduler's.
func fillRequest(s ModelShape, req Request) (Request, error) {
	if req.Context < 0 || req.Parallel < 0 || req.MaxSeqs < 0 {
		return req, fmt.Errorf("fit: the context (%d), the parallel sequences (%d) and the sequences at once (%d) cannot be negative",
			req.Context, req.Parallel, req.MaxSeqs)
	}
	req.KVType = strings.ToLower(req.KVType)
	if _, err := kvType0(req.KVType); err != nil {
		return req, err
	}
	cfg := req.scheduler(s)
	req.Context, req.KVType, req.MaxSeqs = cfg.Context, cfg.KVType, cfg.MaxSeqs
	req.KVBytes = max(0, req.KVBytes)
	if req.GPULayers < -1 {
		req.GPULayers = -1
	}
	return req, nil
}

// poolText names the KV pool of the plan's profile.
func (p Plan) poolText() string {
	r := p.Request
	switch {
	case r.KVBytes > 0:
		return fmt.Sprintf("a budget of %s shared by up to %s of %d tokens", units.Bytes(r.KVBytes), plural(p.MaxSeqs, "sequence"), r.Context)
	case r.Parallel == 1:
		return fmt.Sprintf("1 conversation of %d tokens + a reserve of %d", r.Context, scheduler.ReserveTokens)
	case r.Parallel > 1:
		return fmt.Sprintf("%d parallel sequences of %d tokens", r.Parallel, r.Context)
	}
	return fmt.Sprintf("the scheduler's default pool for %d sequences of %d tokens", p.MaxSeqs, r.Context)
}

func kvType(s string) (quant.Type, error) {
	switch s {
	case "f16":
		return quant.TypeF16, nil
	case "f32":
		return quant.TypeF32, nil
	case "q8_0":
		return quant.TypeQ8_0, nil
	}
	return 0, fmt.Errorf("fit: KV type must be f16, q8_0 or f32, not %q", s)
}

func (p *Plan) kvType() quant.Type {
	t, _ := kvType(p.Request.KVType)
	return t
}

// kvGroup is a set of layers with the same window, as engine/model groups
// them (in the order of their first layer).
type kvGroup struct {
	window int
	layers []int
}

func (s ModelShape) kvGroups() []kvGroup {
	var gs []kvGroup
	for i := range s.Layers {
		if s.KVHeads[i] == 0 {
			continue // a recurrent layer
		}
		w := s.window(i)
		j := 0
		for j < len(gs) && gs[j].window != w {
			j++
		}
		if j == len(gs) {
			gs = append(gs, kvGroup{window: w})
		}
		gs[j].layers = append(gs[j].layers, i)
	}
	return gs
}

// layerCellBytes is what one cell takes in layer i: a row of keys and one
// of values over the layer's KV heads, in blocks of typ.
func (s ModelShape) layerCellBytes(i int, typ quant.Type) int64 {
	row := func(n int) int64 { return int64(n / typ.BlockSize() * typ.TypeSize()) }
	if s.KDims != nil {
		return row(s.KDims[i]) + row(s.VDims[i])
	}
	return row(s.KVHeads[i]*s.HeadDim) + row(s.KVHeads[i]*s.ValueDim)
}

func (s ModelShape) groupCellBytes(g kvGroup, typ quant.Type) int64 {
	var n int64
	for _, l := range g.layers {
		n += s.layerCellBytes(l, typ)
	}
	return n
}

func kvType0(s string) (quant.Type, error) {
	if s == "" {
		s = "f16"
	}
	return kvType(strings.ToLower(s))
}

// poolGroups returns the shape's KV groups as the scheduler sizes them.
func (s ModelShape) poolGroups(typ quant.Type) []scheduler.PoolGroup {
	var groups []scheduler.PoolGroup
	for _, g := range s.kvGroups() {
		groups = append(groups, scheduler.PoolGroup{Window: g.window, CellBytes: s.groupCellBytes(g, typ)})
	}
	return groups
}

// place sizes everything and chooses where it goes.
func (p *Plan) place() {
	s, req := p.Model, p.Request
	typ := p.kvType()
	b := &p.Breakdown
	*b = Breakdown{}
	for _, n := range s.LayerBytes {
		b.LayersWeights += n
	}
	if s.Layers > 0 {
		b.LayerWeights = b.LayersWeights / int64(s.Layers)
	}
	b.EmbdWeights, b.OutputWeights = s.EmbdBytes, s.OutputBytes
	b.Weights = b.LayersWeights + b.EmbdWeights + b.OutputWeights

	cfg := req.scheduler(s)
	cells, budget := scheduler.PoolCells(cfg, s.poolGroups(typ))
	b.KVBudget = budget
	groups := s.kvGroups()
	layerKV := make([]int64, s.Layers)
	for i, g := range groups {
		cb := s.groupCellBytes(g, typ)
		gp := KVGroupPlan{Window: g.window, Layers: len(g.layers), Cells: cells[i], CellBytes: cb, Bytes: int64(cells[i]) * cb}
		b.KVGroups = append(b.KVGroups, gp)
		b.KV += gp.Bytes
		if g.window == 0 {
			b.KVTokens = cells[i]
		}
		for _, l := range g.layers {
			layerKV[l] = int64(cells[i]) * s.layerCellBytes(l, typ)
		}
	}
	if b.KVTokens == 0 && len(cells) > 0 {
		b.KVTokens = cells[0]
	}
	slots := int64(scheduler.StateSlots(cfg))
	for l, n := range s.StateBytes {
		layerKV[l] += n * slots
		b.State += n * slots
	}

	b.Activations, b.Logits = s.computeBytes(p.MaxSeqs, max(cfg.TokenBudget, p.MaxSeqs), req.Context, max(1, p.Machine.CPU.Threads))
	b.Overhead = baseOverhead + int64(s.TokenizerEntries)*tokenizerEntry
	b.Total = b.Weights + b.KV + b.State + b.Activations + b.Logits + b.Overhead

	p.Verdict = p.choose(layerKV)
}

// computeBytes models the buffers a step allocates: the F32 activations of
// the widest layer for the token budget's tokens (the graph recycles them
// at each layer boundary), the attention's per-thread scores over the
// context, and per sampled sequence the logits, their copy and the
// sampler's candidates.
func (s ModelShape) computeBytes(maxSeqs, stepTokens, ctx, threads int) (act, logits int64) {
	t := int64(stepTokens)
	kv := 0
	for _, n := range s.KVHeads {
		kv = max(kv, n)
	}
	ffn := s.FFN
	if ffn == 0 {
		ffn = 4 * s.Embd
	}
	if s.Experts > 0 {
		// A token's k experts each hold gate, up and product rows, and
		// their outputs and weights are rows of n_embd; the router's
		// logits, the shared expert's rows.
		ffn = s.ExpertsUsed*ffn + s.SharedFFN + (2*s.ExpertsUsed*s.Embd+s.Experts)/3
	}
	width := int64(5*s.Embd + s.Heads*(s.HeadDim+s.ValueDim) + kv*(s.HeadDim+s.ValueDim) + 3*ffn)
	act = 4*t*width + int64(threads)*4*int64(ctx)*2
	logits = 3 * 4 * int64(s.Vocab) * int64(maxSeqs)
	return act, logits
}

// choose picks the placement: the whole model on the GPUs if it fits,
// else as many layers as fit (the rest in RAM), else RAM alone.
func (p *Plan) choose(layerKV []int64) Verdict {
	b := &p.Breakdown
	s := p.Model
	var gpuFree uint64
	unified := false
	for _, g := range p.Machine.GPUs {
		gpuFree += g.Free
		unified = unified || g.Unified
	}
	want := p.Request.GPULayers
	if len(p.Machine.GPUs) == 0 || want == 0 {
		b.Repacked = s.cpuRepackBytes(s.Layers)
		b.Total += b.Repacked
		b.RAM = b.Total
		return p.ramVerdict(Verdict{Kind: CPUOnly})
	}
	if unified {
		// The GPU works in RAM: everything is in RAM either way.
		b.RAM = b.Total
		v := p.ramVerdict(Verdict{Kind: CPUOnly})
		if v.Kind != WontFit && uint64(b.Total) <= gpuFree {
			b.GPU = b.Total
			return Verdict{Kind: FullGPU, GPULayers: s.Layers, Tight: v.Tight}
		}
		return v
	}
	// A discrete GPU: n layers (the last ones) with their KV cache, plus
	// the activations; all of them also take the output head.
	fixed := b.Activations
	full := b.Weights + b.KV + b.State + b.Activations + b.Logits
	if (want < 0 || want >= s.Layers) && uint64(full) <= gpuFree {
		b.GPU = full
		b.RAM = b.Overhead
		return p.ramVerdict(Verdict{Kind: FullGPU, GPULayers: s.Layers})
	}
	n, used := 0, fixed
	for i := s.Layers - 1; i >= 0; i-- {
		c := s.LayerBytes[i] + layerKV[i]
		if uint64(used+c) > gpuFree || (want >= 0 && n == want) {
			break
		}
		used += c
		n++
	}
	if n == 0 {
		b.Repacked = s.cpuRepackBytes(s.Layers)
		b.Total += b.Repacked
		b.RAM = b.Total
		return p.ramVerdict(Verdict{Kind: CPUOnly})
	}
	b.GPU = used
	b.Repacked = s.cpuRepackBytes(s.Layers - n)
	b.Total += b.Repacked
	b.RAM = b.Total - used + fixed
	return p.ramVerdict(Verdict{Kind: PartialGPU, GPULayers: n})
}

// ramVerdict checks the RAM part of v against the machine's memory.
func (p *Plan) ramVerdict(v Verdict) Verdict {
	m := p.Machine.Memory
	need := uint64(p.Breakdown.RAM)
	avail := m.Available
	if avail == 0 {
		avail = m.Total
	}
	switch {
	case need <= avail:
	case need <= m.Total:
		v.Tight = true
	default:
		return Verdict{Kind: WontFit}
	}
	return v
}

// maxContext is the largest context (a multiple of the block size, up to
// the training context or 1M tokens) that does not make the plan WontFit.
func (p *Plan) maxContext() int {
	bs := kvcache.DefaultBlockSize
	limit := p.Model.ContextTrain
	if limit <= 0 {
		limit = 1 << 20
	}
	fits := func(ctx int) bool {
		q := Plan{Model: p.Model, Machine: p.Machine, Request: p.Request, MaxSeqs: p.MaxSeqs}
		q.Request.Context = ctx
		q.place()
		return q.Verdict.Kind != WontFit
	}
	lo, hi := 0, limit/bs
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fits(mid * bs) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo * bs
}

// decodeBytes is what decoding one token reads: the layers' weights (of
// a mixture of experts, the experts it runs), the output head (the
// embeddings when tied), and the keys and values of a sequence ctx tokens
// long (a window's worth in sliding-window layers).
func (s ModelShape) decodeBytes(ctx int, typ quant.Type) int64 {
	n := s.OutputBytes
	if s.TiedOutput {
		n += s.EmbdBytes
	}
	for i, b := range s.LayerBytes {
		cells := ctx
		if w := s.window(i); w > 0 {
			cells = min(w, ctx)
		}
		n += s.activeBytes(i, b) + int64(cells)*s.layerCellBytes(i, typ)
	}
	return n
}

// activeBytes returns what a token reads of layer i's b bytes of weights:
// all of them, less the experts it does not run.
func (s ModelShape) activeBytes(i int, b int64) int64 {
	if s.Experts == 0 || i >= len(s.ExpertBytes) {
		return b
	}
	e := s.ExpertBytes[i]
	return b - e + e*int64(s.ExpertsUsed)/int64(s.Experts)
}

// ResidentAt predicts the resident memory of a CPU run with one sequence
// of tokens tokens in the cache: the weights (a forward pass reads all of
// them), the overhead, the buffers of a step of that sequence alone, and
// the KV cells written so far (the pool's memory is only touched as it
// fills, so Breakdown.KV is reached only with a full pool).
func (p Plan) ResidentAt(tokens int) int64 {
	b := p.Breakdown
	typ := p.kvType()
	bs := kvcache.DefaultBlockSize
	var kv int64
	for _, g := range p.Model.kvGroups() {
		n := tokens
		if g.window > 0 {
			n = min(n, g.window+scheduler.DefaultTokenBudget)
		}
		n = (n + bs - 1) / bs * bs
		kv += int64(n) * p.Model.groupCellBytes(g, typ)
	}
	act, logits := p.Model.computeBytes(1, min(tokens, scheduler.DefaultTokenBudget), tokens, max(1, p.Machine.CPU.Threads))
	var state int64 // one sequence's
	for _, n := range p.Model.StateBytes {
		state += n
	}
	return b.Weights + min(kv, b.KV) + state + act + logits + b.Overhead
}

// DecodeTokensPerSecAt predicts the decode speed of a sequence with tokens
// tokens in the cache (DecodeTokensPerSec is at the full context), for
// comparing with a measurement; 0 when the plan gives no speed.
func (p Plan) DecodeTokensPerSecAt(tokens int) float64 {
	if p.DecodeTokensPerSec == 0 {
		return 0
	}
	return p.Machine.Bandwidth / float64(p.Model.decodeBytes(tokens, p.kvType()))
}

// Word says the verdict's RAM side in a word, as the app's and saji
// pull's tables show it: "fits", "tight" or "too big".
func (v Verdict) Word() string {
	switch {
	case v.Kind == WontFit:
		return "too big"
	case v.Tight:
		return "tight"
	}
	return "fits"
}
