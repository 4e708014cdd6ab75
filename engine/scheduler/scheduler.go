package scheduler

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"reflect"
	"sync"
	"time"

	"saji/engine/kvcache"
	"saji/engine/model"
	"saji/engine/sample"
	"saji/kernels/quant"
)

// Errors of Submit and of finished sequences.
var (
	// ErrContextOverflow is returned by Submit for a prompt (plus
	// MaxTokens) longer than the context.
	ErrContextOverflow = errors.New("scheduler: context overflow")
	// ErrClosed is returned by Submit after Close, and ends the sequences
	// still running when the scheduler closes.
	ErrClosed = errors.New("scheduler: closed")
	// ErrTooLarge ends a sequence that needs more KV cache than the whole
	// pool holds.
	ErrTooLarge = errors.New("scheduler: the sequence does not fit in the KV cache budget")
)

// Defaults of Config. The token budget trades time to first token against
// the smoothness of the other streams: a step that carries a prompt chunk
// holds every decoding sequence for its length. On two cores of llama-1b
// Q4_K_M, eight streams of 256-token prompts measured 62 total tokens/s
// with an inter-token p99 of 1.8 s at 128, against 54 and 3.9 s at 256.
//
// DefaultContext is the one default context of the engine, the app and the
// CLI: what a model loads with unless asked otherwise (or its training
// context when shorter).
const (
	DefaultMaxSeqs     = 16
	DefaultTokenBudget = 128
	DefaultContext     = 4096
)

// The memory profiles, set by Config.Parallel when KVBytes is 0.
//
// The desktop profile (Parallel 1: the app, saji run) sizes the KV pool for
// one conversation of the full context plus ReserveTokens: room for a short
// second request beside a conversation at full length (an editor's call
// to the app's API server, which shares the model), and for the
// copy-on-write of a shared prefix block, without paying for contexts a
// single chat never fills. It runs at most DesktopMaxSeqs sequences at
// once: a longer second request waits, or preempts, rather than growing
// the pool.
//
// The serving profile (Parallel N: saji serve --parallel, DefaultParallel
// as llama-server's -np) sizes the pool for N full contexts, which the
// running sequences share block by block.
const (
	DefaultParallel = 4
	ReserveTokens   = 512
	DesktopMaxSeqs  = 4
)

// Config sets the scheduler's limits. Zero values take the defaults.
type Config struct {
	// MaxSeqs is the most sequences running at once (DefaultMaxSeqs).
	// More requests wait in a queue.
	MaxSeqs int
	// TokenBudget is the most tokens one step runs: every running
	// sequence's next token, then prompt chunks up to the budget
	// (DefaultTokenBudget).
	TokenBudget int
	// Context is the longest sequence, prompt and generated tokens
	// (DefaultContext, or the model's training context when shorter).
	Context int
	// KVType is the cache's element type: "f16" (the default, also for
	// ""), "f32" or "q8_0".
	KVType string
	// KVBytes is the cache's memory budget. 0 sizes it from Parallel.
	KVBytes int64
	// Parallel is the memory profile when KVBytes is 0: 1 pools one
	// conversation of the full context and ReserveTokens (the desktop
	// profile), N > 1 pools N full contexts (the serving profile). 0
	// pools four full contexts, or MaxSeqs quarter contexts when that is
	// more.
	Parallel int
	// BlockSize is the cache's block size in tokens (16).
	BlockSize int
	// NoPrefixCache turns prefix caching off.
	NoPrefixCache bool
	// StateSnapshots is the number of recurrent state snapshots the
	// prefix cache of a hybrid model keeps (snapshot.go): 0 for
	// DefaultSnapshotsPerSeq per sequence, negative for none (a hybrid
	// model's prefixes are then not cached).
	StateSnapshots int
	// ModelID identifies the model (and file) for the prefix cache's
	// hashes; it matters only where caches are shared or persisted.
	ModelID string
	// Logger receives debug records of admissions and preemptions (nil:
	// slog.Default()).
	Logger *slog.Logger
	// PromptCache, when set with ModelDigest, is the prefix cache's tier
	// on disk: finished sequences' full blocks are saved there and
	// prompts that begin with them restore them (promptcache.go). The
	// caller opens and closes it; several schedulers may share it.
	PromptCache *kvcache.Disk
	// ModelDigest identifies the model's weights for PromptCache (a digest
	// of the file); the zero key leaves the disk tier off.
	ModelDigest kvcache.Key
}

// withDefaults fills in the zero fields for m.
func (c Config) withDefaults(m model.Model) Config {
	c = c.Sized(m.Config().ContextTrain)
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

// Sized fills in the zero fields that size the scheduler (everything but
// the logger) for a model trained with contextTrain tokens (0: unknown):
// the defaults that New applies, for a planner that sizes the same pool.
func (c Config) Sized(contextTrain int) Config {
	if c.MaxSeqs <= 0 {
		c.MaxSeqs = DefaultMaxSeqs
		if c.Parallel == 1 && c.KVBytes <= 0 {
			c.MaxSeqs = DesktopMaxSeqs
		}
	}
	if c.TokenBudget <= 0 {
		c.TokenBudget = DefaultTokenBudget
	}
	if c.Context <= 0 {
		c.Context = DefaultContext
		if contextTrain > 0 {
			c.Context = min(c.Context, contextTrain)
		}
	}
	if c.KVType == "" {
		c.KVType = "f16"
	}
	if c.BlockSize <= 0 {
		c.BlockSize = kvcache.DefaultBlockSize
	}
	return c
}

// Request is one generation.
type Request struct {
	// Prompt is the tokenized prompt; at least one token.
	Prompt []int32
	// MaxTokens limits the generated tokens; <= 0 means until the end of
	// generation or the end of the context.
	MaxTokens int
	// Sampling configures the sequence's sampler. Its zero value is
	// greedy.
	Sampling sample.Params
	// EOG are the end-of-generation tokens: sampling one ends the
	// sequence (it is not emitted) unless IgnoreEOS is set.
	EOG       []int32
	IgnoreEOS bool
	// TopLogProbs, when above 0, attaches the chosen token's
	// log-probability and this many alternatives to every token event;
	// LogProbs alone attaches the chosen token's.
	LogProbs    bool
	TopLogProbs int
	// Progress, when set, is called from the scheduler's loop after each
	// step that read part of the prompt, with the prompt tokens stored so
	// far (cached ones included) and the prompt's length. It must not
	// block: the app uses it to show progress through a long prompt.
	Progress func(done, total int)
	// Constraint, when set, restricts the tokens the sequence may sample
	// (structured output): the others are masked before sampling, and
	// end-of-generation tokens are allowed only when it is complete.
	Constraint Constraint
	// Drafter, when set, proposes up to DraftMax tokens (DefaultDraftMax
	// for 0) before each decode step, which the step verifies at once
	// (speculative decoding, see spec.go); a draft shorter than DraftMin
	// is not run. The output is the same as without it. The scheduler
	// closes it when the sequence ends.
	Drafter            Drafter
	DraftMax, DraftMin int
	// Pictures are the prompt's pictures, in order: their positions hold
	// negative ids (keys for the prefix cache: equal ids for equal
	// pictures), which the model reads as the pictures' vectors
	// (model.Batch.Embd). A request with pictures must not have a
	// Drafter.
	Pictures []Picture
}

// Picture is a picture's place in a prompt and its vectors.
type Picture struct {
	// At is the prompt position of the first of its N tokens.
	At, N int
	// Embd holds N vectors of the model's width, one per token.
	Embd []float32
	// Bidirectional: the picture's tokens attend to each other, not
	// causally (Gemma 3's); a prefill chunk then never ends inside it.
	Bidirectional bool
	// Rows and Cols, when Cols is above 0, lay the picture's N = Rows·Cols
	// tokens on its grid, row after row, for a model that rotates by four
	// positions (model.Config.MRoPE): each token turns by the picture's
	// time position and its row and column beside it, and the picture
	// takes max(Rows, Cols) time positions, not N (mtmd's M-RoPE layout).
	Rows, Cols int
}

// Constraint restricts the tokens of a sequence, as a grammar does.
type Constraint interface {
	// Allowed reports whether token id may come next.
	Allowed(id int32) bool
	// Accept records the token that was sampled.
	Accept(id int32) error
	// Complete reports whether the output may end here.
	Complete() bool
}

// Finish says why a sequence ended.
type Finish int

// The reasons a sequence ends.
const (
	// FinishStop: an end-of-generation token was sampled.
	FinishStop Finish = iota + 1
	// FinishLength: MaxTokens were generated or the context is full.
	FinishLength
	// FinishCancelled: the request's context was cancelled.
	FinishCancelled
	// FinishError: the sequence failed; Event.Err says why.
	FinishError
)

// String returns the OpenAI-style name of the reason.
func (f Finish) String() string {
	switch f {
	case FinishStop:
		return "stop"
	case FinishLength:
		return "length"
	case FinishCancelled:
		return "cancelled"
	case FinishError:
		return "error"
	}
	return "running"
}

// Event is a sequence's next generated token, or its end.
type Event struct {
	// Token is the generated token (when Done is false).
	Token int32
	// LogProb and Top are the token's log-probability and the most likely
	// alternatives, when the request asked for them.
	LogProb float32
	Top     []sample.TokenLogProb
	// Done marks the last event of the stream, with Finish, Err and Usage.
	Done   bool
	Finish Finish
	// StopToken is the end-of-generation token that ended the sequence
	// (Finish == FinishStop).
	StopToken int32
	Err       error
	Usage     Usage
}

// Usage measures one request.
type Usage struct {
	// PromptTokens is the prompt's length; CachedTokens of them came from
	// the prefix cache.
	PromptTokens, CachedTokens int
	// CompletionTokens counts the tokens generated (not the end token).
	CompletionTokens int
	// Queued is the time from Submit to admission; FirstToken from Submit
	// to the first token; Total from Submit to the end.
	Queued, FirstToken, Total time.Duration
	// Preemptions counts the times the sequence was preempted.
	Preemptions int
	// DraftTokens counts the draft tokens the sequence's steps verified,
	// AcceptedTokens those the target agreed with (speculative decoding).
	DraftTokens, AcceptedTokens int
}

// AcceptanceRate returns the share of the draft tokens that were accepted
// (0 without drafts).
func (u Usage) AcceptanceRate() float64 {
	if u.DraftTokens == 0 {
		return 0
	}
	return float64(u.AcceptedTokens) / float64(u.DraftTokens)
}

// Stats is a snapshot of the scheduler.
type Stats struct {
	Running, Waiting int
	// KV is the cache pool's state and prefix-cache counters.
	KV kvcache.Stats
	// Steps, Preemptions, PromptTokens (computed, not cached) and
	// GeneratedTokens count since New.
	Steps, Preemptions, PromptTokens, GeneratedTokens int64
	// DraftTokens and AcceptedTokens count the draft tokens verified and
	// accepted since New (speculative decoding).
	DraftTokens, AcceptedTokens int64
	// RestoredTokens counts the prompt tokens read from the prompt cache
	// on disk since New (KV's HitTokens counts those found in memory).
	RestoredTokens int64
	// BatchTokens is the number of tokens of the last step.
	BatchTokens int
	// UtilSum, UtilSteps and UtilMin measure the KV cache's utilisation
	// (tokens stored / cells of the blocks held) after each step.
	UtilSum   float64
	UtilSteps int64
	UtilMin   float64
}

// MeanUtilization returns the mean KV cache utilisation after a step (0
// before the first step).
func (s Stats) MeanUtilization() float64 {
	if s.UtilSteps == 0 {
		return 0
	}
	return s.UtilSum / float64(s.UtilSteps)
}

// Scheduler runs requests on one model. Its methods are safe for
// concurrent use.
type Scheduler struct {
	m     model.Model
	cfg   Config
	cache *model.Cache
	pool  *kvcache.Pool
	vocab int
	embd  int // the model's input width: the length of a picture's vectors
	// mrope: the model rotates by four positions (model.Config.MRoPE),
	// and gridded pictures stand on their grids.
	mrope bool

	mu      sync.Mutex
	waiting []*seq // FIFO; preempted sequences go back to the front
	closed  bool
	nextID  uint64
	stats   Stats
	wake    chan struct{}

	// Owned by the loop goroutine.
	running []*seq
	ended   []ending // last events held until the stats count their step
	batch   model.Batch
	cells   [][][]int32 // per batch sequence, per group
	// recurrent says the model keeps a recurrent state per sequence (a
	// hybrid model); slots are its cache's free state slots, one held by
	// each running sequence.
	recurrent bool
	slots     []int
	snaps     *snapshots // nil without state snapshots

	stop context.CancelFunc
	done chan struct{}

	// The disk tier (promptcache.go): nil when off. saves is owned by the
	// loop goroutine.
	disk    *kvcache.Disk
	diskKey kvcache.Key
	kvType  quant.Type
	saves   []*pendingSave
}

// ending is a finished sequence and the last event it will be sent.
type ending struct {
	sq *seq
	ev Event
}

// seq is a request in the scheduler.
type seq struct {
	id       uint64
	req      Request
	ctx      context.Context
	out      chan Event
	tokens   []int32 // prompt, then generated tokens
	computed int     // tokens whose keys and values are stored
	kv       *kvcache.Seq
	slot     int // the recurrent state slot, -1 when none is held
	sampler  *sample.Sampler
	usage    Usage
	start    time.Time
	admitted bool
	n        int     // tokens in this step, the draft's aside
	draft    []int32 // draft tokens run after them in this step
	draftLen int     // the next draft's most tokens (adaptive; 0: DraftMax)
}

// New builds a scheduler for m and starts its loop. Close stops it.
func New(m model.Model, cfg Config) (*Scheduler, error) {
	cfg = cfg.withDefaults(m)
	kv, err := quant.ParseType(cfg.KVType)
	if err != nil || (kv != quant.TypeF16 && kv != quant.TypeF32 && kv != quant.TypeQ8_0) {
		return nil, fmt.Errorf("scheduler: KV type must be f16, f32 or q8_0, not %q", cfg.KVType)
	}
	groups := m.KVGroups()
	specs, cells, err := plan(cfg, kv, groups)
	if err != nil {
		return nil, err
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%v", cfg.ModelID, kv)
	// A hybrid model's prefixes are cached only with snapshots of its
	// recurrent state at their ends (snapshot.go).
	recurrent := len(m.Recurrent()) > 0
	noPrefix := cfg.NoPrefixCache || (recurrent && snapshotCount(cfg) == 0)
	pool, err := kvcache.New(kvcache.Options{BlockSize: cfg.BlockSize, Groups: specs, Seed: h.Sum64(), NoPrefixCache: noPrefix})
	if err != nil {
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	cache, err := m.NewPagedCache(cells, StateSlots(cfg), kv)
	if err != nil {
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	ctx, stop := context.WithCancel(context.Background())
	s := &Scheduler{m: m, cfg: cfg, cache: cache, pool: pool, vocab: m.Config().Vocab, embd: m.Config().InputWidth(), mrope: m.Config().MRoPE,
		wake: make(chan struct{}, 1), stop: stop, done: make(chan struct{})}
	s.recurrent = recurrent
	s.openDisk(groups, kv)
	if recurrent {
		for i := cfg.MaxSeqs - 1; i >= 0; i-- {
			s.slots = append(s.slots, i)
		}
		if n := snapshotCount(cfg); n > 0 {
			s.snaps = newSnapshots(cfg.MaxSeqs, n)
		}
	}
	go s.loop(ctx)
	return s, nil
}

// PoolGroup is one KV group as the pool is sized: its attention window
// (0 for full attention) and the bytes one cell takes over its layers.
type PoolGroup struct {
	Window    int
	CellBytes int64
}

// PoolCells sizes a KV pool for groups as New does, from cfg's Context,
// MaxSeqs, TokenBudget, BlockSize, KVBytes and Parallel (PoolBudget); cfg
// must have its defaults filled in (Sized). A sliding-window group never
// needs more than the window and a step's tokens per sequence, and never
// more cells than the full-attention group has tokens: the full-attention
// group gets the largest token count T such that T cells of it and
// min(T, what the windows need) cells of each sliding group fit the
// budget. It returns each group's cells (whole blocks, possibly 0) and the
// budget it sized them for. engine/fit plans with it, so its figures are
// the pool's.
func PoolCells(cfg Config, groups []PoolGroup) (cells []int, budget int64) {
	bs := cfg.BlockSize
	var fullBytes, slideBytes int64
	for _, g := range groups {
		if g.Window == 0 {
			fullBytes += g.CellBytes
		} else {
			slideBytes += g.CellBytes
		}
	}
	budget = PoolBudget(cfg, groups)
	bytes := func(t int64) int64 { return poolBytes(cfg, groups, t) }
	// The most tokens that fit, by bisection (bytes grows with t).
	per := fullBytes
	if per == 0 {
		per = slideBytes
	}
	lo, hi := int64(0), budget/max(1, per)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if bytes(mid) <= budget {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	cells = make([]int, len(groups))
	for i, g := range groups {
		n := lo
		if g.Window > 0 && fullBytes > 0 {
			n = min(lo, windowNeed(cfg, g))
		}
		cells[i] = int(n/int64(bs)) * bs
	}
	return cells, budget
}

// PoolBudget returns the KV pool's budget in bytes for cfg (defaults
// filled in, Sized) over groups: KVBytes when set; else the pool of the
// profile Parallel chooses, its tokens of full attention (PoolTokens) with
// the sliding-window groups capped as PoolCells caps them, so that the
// pool holds exactly those tokens. Parallel 0 keeps the older rule of
// PoolTokens cells in every group.
func PoolBudget(cfg Config, groups []PoolGroup) int64 {
	if cfg.KVBytes > 0 {
		return cfg.KVBytes
	}
	t := PoolTokens(cfg)
	if cfg.Parallel > 0 {
		return poolBytes(cfg, groups, t)
	}
	var b int64
	for _, g := range groups {
		b += t * g.CellBytes
	}
	return b
}

// PoolTokens returns the tokens the pool of profile cfg.Parallel holds
// (with Context and MaxSeqs filled in): one context and ReserveTokens for
// 1, Parallel contexts above, and max(4, MaxSeqs/4) contexts for 0.
func PoolTokens(cfg Config) int64 {
	ctx := int64(cfg.Context)
	switch {
	case cfg.Parallel == 1:
		return ctx + ReserveTokens
	case cfg.Parallel > 1:
		return int64(cfg.Parallel) * ctx
	}
	return max(4*ctx, int64(cfg.MaxSeqs)*ctx/4)
}

// windowNeed is the cells a sliding-window group can use at once: per
// running sequence, its window, a step's tokens and a block.
func windowNeed(cfg Config, g PoolGroup) int64 {
	bs := cfg.BlockSize
	per := ((min(g.Window, cfg.Context)+cfg.TokenBudget+bs-1)/bs + 1) * bs
	return int64(cfg.MaxSeqs) * int64(min(per, cfg.Context+bs))
}

// poolBytes is what a pool of t full-attention tokens takes over groups,
// the sliding-window groups capped at what their windows need.
func poolBytes(cfg Config, groups []PoolGroup, t int64) int64 {
	var fullBytes int64
	for _, g := range groups {
		if g.Window == 0 {
			fullBytes += g.CellBytes
		}
	}
	b := t * fullBytes
	for _, g := range groups {
		if g.Window > 0 {
			n := t
			if fullBytes > 0 {
				n = min(t, windowNeed(cfg, g))
			}
			b += n * g.CellBytes
		}
	}
	return b
}

// plan sizes the pool's groups from the budget (PoolCells) and refuses a
// budget that leaves a group without one block.
func plan(cfg Config, kv quant.Type, groups []model.KVGroup) ([]kvcache.GroupSpec, []int, error) {
	pg := make([]PoolGroup, len(groups))
	for i, g := range groups {
		pg[i] = PoolGroup{Window: g.Window, CellBytes: int64(g.CellBytes(kv))}
	}
	cells, budget := PoolCells(cfg, pg)
	specs := make([]kvcache.GroupSpec, len(groups))
	for i, g := range groups {
		blocks := cells[i] / cfg.BlockSize
		if blocks < 1 {
			return nil, nil, fmt.Errorf("scheduler: a KV budget of %d bytes leaves no room for one block of %d tokens", budget, cfg.BlockSize)
		}
		specs[i] = kvcache.GroupSpec{Blocks: blocks, Window: g.Window}
	}
	return specs, cells, nil
}

// Config returns the scheduler's settings, defaults filled in.
func (s *Scheduler) Config() Config { return s.cfg }

// Capacity returns the number of tokens the cache holds in its
// full-attention layers.
func (s *Scheduler) Capacity() int {
	st := s.pool.Stats()
	for i, g := range s.m.KVGroups() {
		if g.Window == 0 {
			return st.Groups[i].Total * s.cfg.BlockSize
		}
	}
	return 0
}

// Submit queues a request. Its tokens come on the returned channel, which
// is closed after the Done event. The channel is buffered for every event
// the request can produce, so a slow reader never holds up the other
// sequences. Cancelling ctx ends the request with FinishCancelled and
// frees its cache blocks.
func (s *Scheduler) Submit(ctx context.Context, req Request) (<-chan Event, error) {
	if len(req.Prompt) == 0 {
		return nil, errors.New("scheduler: the prompt has no tokens")
	}
	if err := s.checkPrompt(req); err != nil {
		return nil, err
	}
	n := s.cfg.Context
	if len(req.Prompt) >= n {
		return nil, fmt.Errorf("%w: the prompt has %d tokens and the context holds %d, with room for at least one more", ErrContextOverflow, len(req.Prompt), n)
	}
	if req.MaxTokens > n-len(req.Prompt) { // not len+MaxTokens > n: a MaxTokens near 2^63 wraps
		return nil, fmt.Errorf("%w: %d prompt tokens plus max_tokens %d exceed the context of %d", ErrContextOverflow, len(req.Prompt), req.MaxTokens, n)
	}
	params := req.Sampling
	if reflect.ValueOf(params).IsZero() {
		params = sample.Greedy()
	}
	sp, err := sample.New(params)
	if err != nil {
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	for _, t := range req.Prompt {
		if t >= 0 { // a picture's tokens are not the sampler's history
			sp.Accept(t)
		}
	}
	events := n - len(req.Prompt)
	if req.MaxTokens > 0 {
		events = req.MaxTokens
	}
	sq := &seq{req: req, ctx: ctx, out: make(chan Event, events+1), sampler: sp, start: time.Now(), slot: -1,
		tokens: append(make([]int32, 0, len(req.Prompt)+events), req.Prompt...)}
	sq.usage.PromptTokens = len(req.Prompt)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	s.nextID++
	sq.id = s.nextID
	s.waiting = append(s.waiting, sq)
	s.stats.Waiting = len(s.waiting)
	s.mu.Unlock()
	context.AfterFunc(ctx, s.signal)
	s.signal()
	return sq.out, nil
}

// signal wakes the loop.
func (s *Scheduler) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Stats returns a snapshot of the scheduler.
func (s *Scheduler) Stats() Stats {
	s.mu.Lock()
	st := s.stats
	s.mu.Unlock()
	st.KV = s.pool.Stats()
	return st
}

// Close stops the loop, ends every sequence with ErrClosed and waits for
// the loop to exit.
func (s *Scheduler) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.stop()
	<-s.done
	return nil
}

// checkPrompt checks a request's tokens against the vocabulary and its
// pictures: each picture's positions, and only those, hold negative ids,
// with a vector of the model's width for each.
func (s *Scheduler) checkPrompt(req Request) error {
	if len(req.Pictures) > 0 && req.Drafter != nil {
		return errors.New("scheduler: a request with pictures cannot decode speculatively")
	}
	pic := 0
	for i, t := range req.Prompt {
		for pic < len(req.Pictures) && i >= req.Pictures[pic].At+req.Pictures[pic].N {
			pic++
		}
		in := pic < len(req.Pictures) && i >= req.Pictures[pic].At
		switch {
		case in && t >= 0:
			return fmt.Errorf("scheduler: position %d of picture %d holds token %d, not a picture's id", i, pic, t)
		case !in && t < 0:
			return fmt.Errorf("scheduler: token %d at position %d outside any picture", t, i)
		case t >= 0 && int(t) >= s.vocab:
			return fmt.Errorf("scheduler: token %d outside the vocabulary of %d", t, s.vocab)
		}
	}
	at := 0
	for i, p := range req.Pictures {
		if p.N <= 0 || p.At < at || p.At+p.N > len(req.Prompt) || len(p.Embd) != p.N*s.embd {
			return fmt.Errorf("scheduler: picture %d of %d tokens at %d (%d values) does not fit the prompt of %d tokens and vectors of %d",
				i, p.N, p.At, len(p.Embd), len(req.Prompt), s.embd)
		}
		if p.Cols < 0 || p.Rows < 0 || (p.Cols > 0 && p.Rows*p.Cols != p.N) {
			return fmt.Errorf("scheduler: picture %d of %d tokens on a grid of %d×%d", i, p.N, p.Cols, p.Rows)
		}
		at = p.At + p.N
	}
	return nil
}

// rotation returns the four positions (time, height, width, extra) token
// p of sq turns by in a model that rotates by four (model.Batch.Rope):
// a gridded picture's tokens stand at the picture's time position, beside
// it by their row and column; every other token at its position less
// what the gridded pictures before it saved (their tokens less the larger
// side of their grid), as its time, height and width. The extra position
// is 0, as llama.cpp gives text and mtmd pictures.
func (sq *seq) rotation(p int) [4]int32 {
	saved := 0
	for i := range sq.req.Pictures {
		pic := &sq.req.Pictures[i]
		if p < pic.At || pic.Cols == 0 {
			break
		}
		if p < pic.At+pic.N {
			t, j := int32(pic.At-saved), p-pic.At
			return [4]int32{t, t + int32(j/pic.Cols), t + int32(j%pic.Cols), 0}
		}
		saved += pic.N - max(pic.Rows, pic.Cols)
	}
	t := int32(p - saved)
	return [4]int32{t, t, t, 0}
}

// picture returns the picture of sq's prompt that holds position p, or nil.
func (sq *seq) picture(p int) *Picture {
	for i := range sq.req.Pictures {
		if pic := &sq.req.Pictures[i]; p >= pic.At && p < pic.At+pic.N {
			return pic
		}
	}
	return nil
}

// pictureChunk returns the length of a prefill chunk of at most n tokens
// from sq.computed that does not end inside a bidirectional picture: cut
// before the picture, or, when the chunk starts in it, stretched to its
// end (past the budget, as a decode token is).
func (sq *seq) pictureChunk(n int) int {
	end := sq.computed + n
	pic := sq.picture(end - 1)
	if pic == nil || !pic.Bidirectional || end == pic.At+pic.N {
		return n
	}
	if pic.At > sq.computed {
		return pic.At - sq.computed
	}
	return pic.At + pic.N - sq.computed
}
