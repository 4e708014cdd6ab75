package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"saji/engine/chat"
	"saji/engine/chat/jinja"
	"saji/engine/fit"
	"saji/engine/gguf"
	"saji/engine/model"
	"saji/engine/offload"
	"saji/engine/scheduler"
	"saji/engine/tokenizer"
)

// Model is a loaded model ready to serve: its file, tokenizer, chat
// template and the scheduler that runs its requests.
type Model struct {
	// Name is the name requests use for it.
	Name string
	// Path is the GGUF file.
	Path string
	// Info describes it.
	Info Info

	file *gguf.File
	// shape is the model as the fit planner sees it, read from the header
	// at load (shapeErr when it could not be).
	shape    fit.ModelShape
	shapeErr error
	lm       model.Model
	gpu      *offload.Loaded // lm's placement; Close frees its GPU memory
	tok      *tokenizer.Tokenizer
	tmpl     *chat.Template
	sched    *scheduler.Scheduler
	caps     chat.Caps
	draft    *DraftModel // the draft model of speculative decoding, or nil
	proj     *projector  // the vision projector, or nil: the model cannot see
	// runner, once the model is added to one, is told how every
	// generation ended (see Runner.Observe).
	runner *Runner
	// opts loaded the model; a model whose GPU fails is loaded again
	// with them (see Runner.recoverGPU).
	opts LoadOptions
	// faulted, when set, is called after a run on the model failed while
	// its GPU has failed.
	faulted    func()
	recovering atomic.Bool

	// Runs outside the scheduler (embeddings) hold use for reading while
	// they read the weights; Close cancels them through life and takes it
	// for writing before it frees anything.
	use     sync.RWMutex
	closed  bool // under use
	life    context.Context
	end     context.CancelFunc
	outside atomic.Int32 // runs outside the scheduler in flight

	pieces    piecesOnce   // token texts for structured output
	longest   longestOnce  // the most bytes one token stands for
	rank      rankOnce     // the classification head of a reranker
	pinned    bool         // loaded for the runner's life (Runner.Add)
	lastUsed  atomic.Int64 // unix nanoseconds of the last lookup
	keepAlive atomic.Int64 // nanoseconds; 0: the runner's default, -2: none
}

// Info describes a model for the model lists.
type Info struct {
	Arch         string
	FileType     string // quantization, as llama.cpp names it ("Q4_K_M")
	Parameters   int64
	Size         int64 // bytes of the file
	Context      int   // the context a request may use
	ContextTrain int   // the context the model was trained with
	Embd         int
	Layers       int
	Modified     time.Time
	Template     string // the chat template's source ("" for ChatML)
	// Offload says where the model runs: its layers on the GPU, or why
	// it runs on the CPU.
	Offload offload.Placement
}

// LoadOptions configures Load.
type LoadOptions struct {
	// Name is the model's name in the API; "" means the file's base name
	// without .gguf.
	Name string
	// Threads is the CPU backend's thread count (0: all cores).
	Threads int
	// Scheduler configures continuous batching (context, KV cache, ...).
	Scheduler scheduler.Config
	// GPULayers is the number of layers to put on the GPU:
	// offload.Auto (-1) as many as fit with the scheduler's KV cache, N
	// the last N, and 0 (the zero value) none. When the GPU is missing or
	// fails, the model loads on the CPU and Info.Offload says why.
	GPULayers int
	// GPU is the GPU the layers go to (nil: offload.System(), the
	// platform's).
	GPU *offload.Registry
	// Logger receives the notes of loading (nil: slog.Default()).
	Logger *slog.Logger
	// Speculative turns speculative decoding on for the model's requests:
	// a draft model (loaded with the model) or prompt lookup.
	Speculative Speculative
	// Memory says how the model's and the draft's files are held: mapped
	// (the zero value), read into process memory (NoMmap, llama.cpp's
	// --no-mmap) and locked (Lock, --mlock).
	Memory gguf.OpenOptions
	// Projector is the vision projector's file (an mmproj GGUF), which
	// lets the model see pictures. "" looks for one beside the model
	// (FindProjector) and leaves it out, with a note, when it does not
	// fit the model; a projector named here that does not is an error.
	Projector string
}

// logger is the logger of o's loads.
func (o LoadOptions) logger() *slog.Logger {
	if o.Logger == nil {
		return slog.Default()
	}
	return o.Logger
}

// registry is the GPU registry of o's loads.
func (o LoadOptions) registry() *offload.Registry {
	if o.GPU == nil {
		return offload.System()
	}
	return o.GPU
}

// Load opens the GGUF file at path, loads its weights, tokenizer and chat
// template (ChatML when the file has none), and starts its scheduler.
// Close releases it. A model that cannot run fails here, with the reason.
func Load(ctx context.Context, path string, opts LoadOptions) (*Model, error) {
	h, err := open(ctx, path, opts.Memory)
	if err != nil {
		return nil, err
	}
	return load(ctx, h, opts)
}

// header is an open GGUF file with what a load reads of it before the
// weights: its size and the model as the fit planner sees it.
type header struct {
	f        *gguf.File
	st       os.FileInfo
	shape    fit.ModelShape
	shapeErr error // why the model could not be described
}

// plannable returns the model's shape, nil when it could not be described
// (the planner then falls back on the file's size).
func (h *header) plannable() *fit.ModelShape {
	if h.shapeErr != nil {
		return nil
	}
	return &h.shape
}

// open opens the GGUF file at path, held as mem says, and describes its
// model. A model Saji cannot run (model.RunError) is an error here.
func open(ctx context.Context, path string, mem gguf.OpenOptions) (*header, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("runner: %w", err)
	}
	f, err := gguf.OpenWith(ctx, path, mem)
	if err != nil {
		return nil, fmt.Errorf("runner: %w", err)
	}
	h := &header{f: f, st: st}
	h.shape, h.shapeErr = fit.Describe(f)
	// A model Saji cannot run says so before room is made for it and
	// before anything else is read.
	var re *model.RunError
	if errors.As(h.shapeErr, &re) {
		f.Close()
		return nil, fmt.Errorf("runner: loading %s: %w", path, re)
	}
	return h, nil
}

// hold opens h's file again, held as mem says, where mem does not map it
// as open with the zero options did (--no-mmap reads it into memory,
// --mlock locks it): a runner opens a model's file mapped to make room
// for it, and holds its data so only then. On failure h's file is closed.
func (h *header) hold(ctx context.Context, mem gguf.OpenOptions) error {
	if mem == (gguf.OpenOptions{}) {
		return nil
	}
	f, err := gguf.OpenWith(ctx, h.f.Path(), mem)
	h.f.Close()
	if err != nil {
		return fmt.Errorf("runner: %w", err)
	}
	h.f = f
	return nil
}

// load is Load of the open file of h, which it owns from now on: the model
// keeps it open, a failure closes it.
func load(ctx context.Context, h *header, opts LoadOptions) (*Model, error) {
	f, st := h.f, h.st
	path := f.Path()
	fail := func(err error) (*Model, error) {
		f.Close()
		return nil, fmt.Errorf("runner: loading %s: %w", path, err)
	}
	tk, err := tokenizer.FromGGUF(f)
	if err != nil {
		return fail(err)
	}
	src, err := f.ChatTemplate()
	if err != nil && !errors.Is(err, gguf.ErrNotFound) {
		return fail(err)
	}
	tmpl := chat.ChatML()
	if src != "" {
		if tmpl, err = chat.Parse(src); err != nil {
			return fail(fmt.Errorf("%w: its chat template: %w", ErrModelFile, err))
		}
	}
	caps, err := chat.Capabilities(ctx, tmpl)
	var jerr *jinja.Error
	switch {
	case errors.Is(err, jinja.ErrLimitExceeded), errors.As(err, &jerr) && jerr.Kind == jinja.KindInternal:
		// A template that runs past its bounds on a one-message chat (a
		// hostile file) would fail every request: refused here, with why.
		return fail(fmt.Errorf("%w: its chat template: %w", ErrModelFile, err))
	case err != nil:
		caps = chat.Caps{} // it cannot chat; raw completions still work
	}
	cfg := opts.Scheduler
	if cfg.ModelID == "" {
		cfg.ModelID = path
	}
	if cfg.PromptCache != nil && cfg.ModelDigest.IsZero() {
		// Without a digest the prompt cache on disk stays off: a file it
		// cannot read now fails later anyway, with its own error.
		if cfg.ModelDigest, err = Fingerprint(f); err != nil {
			logger := opts.Logger
			if logger == nil {
				logger = slog.Default()
			}
			logger.Warn("runner: no prompt cache on disk", "err", err)
		}
	}
	// The scheduler allocates the KV cache: on the GPU for the offloaded
	// layers, so that a cache the GPU cannot hold falls back to the CPU
	// with the weights.
	var sched *scheduler.Scheduler
	lm, err := offload.Load(ctx, f, offload.Options{Request: offload.ServeRequest(opts.GPULayers, cfg),
		Threads: opts.Threads, Registry: opts.GPU, Logger: opts.Logger}, func(m model.Model) error {
		s, err := scheduler.New(m, cfg)
		sched = s
		return err
	})
	if err != nil {
		return fail(err)
	}
	var draft *DraftModel
	if p := opts.Speculative.Draft; p != "" {
		if draft, err = LoadDraft(ctx, p, tk, sched.Config().Context, opts.Threads, opts.Memory); err != nil {
			sched.Close()
			lm.Close()
			return fail(err)
		}
	}
	proj, err := loadProjector(ctx, opts.Projector, path, lm.Model.Config(), tk, opts.Threads, lm.GPU(), opts.logger())
	if err != nil {
		if draft != nil {
			draft.Close()
		}
		sched.Close()
		lm.Close()
		return fail(err)
	}
	name := opts.Name
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	opts.Name = name
	c := lm.Model.Config()
	info := Info{Arch: c.Arch, Size: st.Size(), Context: sched.Config().Context, ContextTrain: c.ContextTrain,
		Embd: c.Embd, Layers: c.Layers, Modified: st.ModTime(), Template: src, Offload: lm.Placement}
	if s := f.Summary(); s.HasFileType {
		info.FileType, info.Parameters = s.FileType.String(), s.Parameters
	} else {
		info.Parameters = s.Parameters
	}
	life, end := context.WithCancel(context.Background())
	return &Model{Name: name, Path: path, Info: info, file: f, lm: lm.Model, gpu: lm, tok: tk, tmpl: tmpl, sched: sched, caps: caps, draft: draft, proj: proj,
		shape: h.shape, shapeErr: h.shapeErr, life: life, end: end, opts: opts}, nil
}

// checkGPU tells the runner, after a run on m failed, when the failure
// was m's GPU failing.
func (m *Model) checkGPU(err error) {
	if err != nil && m.faulted != nil && m.gpu.Fault() != nil {
		m.faulted()
	}
}

// Scheduler returns the model's scheduler (for its statistics).
func (m *Model) Scheduler() *scheduler.Scheduler { return m.sched }

// Tokenizer returns the model's tokenizer.
func (m *Model) Tokenizer() *tokenizer.Tokenizer { return m.tok }

// Template returns the model's chat template (ChatML when its file has
// none).
func (m *Model) Template() *chat.Template { return m.tmpl }

// Caps returns what the model's chat template supports (tools, thinking).
func (m *Model) Caps() chat.Caps { return m.caps }

// Shape returns the model as the fit planner sees it, read from its
// header when it loaded, so that planning a loaded model reads no file.
func (m *Model) Shape() (fit.ModelShape, error) { return m.shape, m.shapeErr }

// Pinned reports whether the model stays loaded for the runner's life.
func (m *Model) Pinned() bool { return m.pinned }

// VRAM returns the bytes of GPU memory the model holds (0 on the CPU).
func (m *Model) VRAM() int64 { return m.Info.Offload.Bytes }

// hold keeps m's weights in place for a run outside the scheduler until
// release is called. The returned context is cancelled when m starts to
// close, which waits for release. It fails with scheduler.ErrClosed once m
// is closing.
func (m *Model) hold(ctx context.Context) (_ context.Context, release func(), err error) {
	m.use.RLock()
	if m.closed {
		m.use.RUnlock()
		return nil, nil, fmt.Errorf("runner: %q was unloaded: %w", m.Name, scheduler.ErrClosed)
	}
	m.outside.Add(1)
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(m.life, cancel)
	return ctx, func() {
		stop()
		cancel()
		m.outside.Add(-1)
		m.use.RUnlock()
	}, nil
}

// closing reports whether Close has been called.
func (m *Model) closing() bool { return m.life.Err() != nil }

// Close stops the scheduler (ending what still runs), cancels and waits
// for the runs outside it, frees the model's GPU memory and closes the
// file. Closing a closed model does nothing.
func (m *Model) Close() error {
	m.end()
	m.use.Lock()
	closed := m.closed
	m.closed = true
	m.use.Unlock()
	if closed {
		return nil
	}
	m.sched.Close()
	err := m.gpu.Close()
	if m.draft != nil {
		if derr := m.draft.Close(); err == nil {
			err = derr
		}
	}
	if m.proj != nil {
		if perr := m.proj.file.Close(); err == nil {
			err = perr
		}
	}
	if ferr := m.file.Close(); err == nil {
		err = ferr
	}
	return err
}

// touch marks m used now.
func (m *Model) touch() { m.lastUsed.Store(time.Now().UnixNano()) }

// SetKeepAlive sets how long m stays loaded without requests: d < 0 for
// ever, 0 to unload as soon as it is idle.
func (m *Model) SetKeepAlive(d time.Duration) {
	if d == 0 {
		d = -2 // stored 0 means the runner's default
	}
	m.keepAlive.Store(int64(d))
}

// Busy reports whether m has requests running or waiting, or embeddings
// in flight.
func (m *Model) Busy() bool {
	st := m.sched.Stats()
	return st.Running+st.Waiting > 0 || m.outside.Load() > 0
}

// lifetime returns m's keep-alive given the runner's default: negative
// for ever.
func (m *Model) lifetime(def time.Duration) time.Duration {
	switch ka := time.Duration(m.keepAlive.Load()); ka {
	case 0:
		return def
	case -2:
		return 0
	default:
		return ka
	}
}

// expired reports whether m may be unloaded for its keep-alive.
func (m *Model) expired(now time.Time, def time.Duration) bool {
	if m.pinned || m.Busy() {
		return false
	}
	ka := m.lifetime(def)
	return ka >= 0 && now.Sub(time.Unix(0, m.lastUsed.Load())) >= ka
}

// ExpiresAt returns when m unloads if no request comes (zero: never),
// given the runner's default keep-alive def.
func (m *Model) ExpiresAt(def time.Duration) time.Time {
	ka := m.lifetime(def)
	if m.pinned || ka < 0 {
		return time.Time{}
	}
	return time.Unix(0, m.lastUsed.Load()).Add(ka)
}
