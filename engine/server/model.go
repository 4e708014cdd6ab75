package server

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

	file  *gguf.File
	lm    model.Model
	gpu   *offload.Loaded // lm's placement; Close frees its GPU memory
	tok   *tokenizer.Tokenizer
	tmpl  *chat.Template
	sched *scheduler.Scheduler
	caps  chat.Caps
	// observe, when set, is told how every generation ended (metrics).
	observe func(GenResult, error)
	// opts loaded the model; a model whose GPU fails is loaded again
	// with them (see Server.recoverGPU).
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
	pinned    bool         // loaded for the server's life (Server.Add)
	lastUsed  atomic.Int64 // unix nanoseconds of the last lookup
	keepAlive atomic.Int64 // nanoseconds; 0: the server's default, -2: none
}

// Info describes a model for the API's model lists.
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

// LoadOptions configures LoadModel.
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
}

// registry is the GPU registry of o's loads.
func (o LoadOptions) registry() *offload.Registry {
	if o.GPU == nil {
		return offload.System()
	}
	return o.GPU
}

// LoadModel opens the GGUF file at path, loads its weights, tokenizer and
// chat template, and starts its scheduler. Close releases it.
func LoadModel(ctx context.Context, path string, opts LoadOptions) (*Model, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	f, err := gguf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	fail := func(err error) (*Model, error) {
		f.Close()
		return nil, fmt.Errorf("server: loading %s: %w", path, err)
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
			return fail(fmt.Errorf("the chat template: %w", err))
		}
	}
	caps, err := chat.Capabilities(ctx, tmpl)
	if err != nil {
		caps = chat.Caps{}
	}
	cfg := opts.Scheduler
	if cfg.ModelID == "" {
		cfg.ModelID = path
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
	return &Model{Name: name, Path: path, Info: info, file: f, lm: lm.Model, gpu: lm, tok: tk, tmpl: tmpl, sched: sched, caps: caps,
		life: life, end: end, opts: opts}, nil
}

// checkGPU tells the server, after a run on m failed, when the failure
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
		return nil, nil, fmt.Errorf("server: %q was unloaded: %w", m.Name, scheduler.ErrClosed)
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
	if ferr := m.file.Close(); err == nil {
		err = ferr
	}
	return err
}
