package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/shirou/gopsutil/v3/mem"

	"saji/engine/fit"
	"saji/engine/gguf"
	"saji/engine/library"
	"saji/engine/offload"
)

// Errors of the runner that callers report as client errors.
var (
	// ErrModelNotFound is wrapped when a request names a model the runner
	// does not have.
	ErrModelNotFound = errors.New("runner: model not found")
	// ErrBusy is wrapped when a model cannot be loaded because every
	// loaded model is busy and no more may be loaded.
	ErrBusy = errors.New("runner: every model slot is busy")
	// ErrModelFile is wrapped by a load's error when the file itself is at
	// fault in a way the model's header did not show: a chat template that
	// cannot be parsed or runs past its bounds. Like a model Saji cannot
	// run (model.RunError), the request that named it is refused.
	ErrModelFile = errors.New("the model file cannot be used")
	// ErrClosed is returned by a load asked for, or finishing, after
	// Close: its model is closed again, not kept by a runner no one uses.
	// A load that Close stops on its way wraps it too.
	ErrClosed = errors.New("runner: closed")
)

// Defaults of the lifecycle settings.
const (
	DefaultKeepAlive = 5 * time.Minute
	DefaultMaxLoaded = 2
)

// LatestTag is the tag Ollama's clients give a model name ("NAME:latest");
// a name with it resolves to the model without it.
const LatestTag = ":latest"

// Config configures a Runner.
type Config struct {
	// ModelsDir, when set, is a folder of GGUF files that requests may name
	// (by file name without .gguf): they load on first use with Load.
	ModelsDir string
	// Library, when set, adds the models of the app's library (its folder
	// and the files it holds by reference) to those requests may name; they
	// load on first use with Load, as ModelsDir's do.
	Library *library.Library
	// Load configures the models loaded from ModelsDir and Library.
	Load LoadOptions
	// KeepAlive is how long a model loaded on demand (from ModelsDir or
	// Library) stays loaded without requests (0: DefaultKeepAlive;
	// negative: for ever).
	KeepAlive time.Duration
	// MaxLoaded is the most models loaded at once (0: DefaultMaxLoaded, or
	// the models given to Add if more).
	MaxLoaded int
	// SweepEvery is how often expired models are unloaded (0: 5 s).
	SweepEvery time.Duration
	// Available returns the memory available for another model (nil: the
	// system's available memory); loading unloads idle models while it is
	// short of the new model's weights and KV cache.
	Available func() uint64
	// Aliases are other names for models ("gpt-4o" -> "qwen2.5-7b"), for
	// clients that only offer a fixed list of model names.
	Aliases map[string]string
	// Logger receives the runner's records (nil: slog.Default()).
	Logger *slog.Logger
	// AutoDraft pairs each model loaded from ModelsDir or Library with a
	// draft model for speculative decoding: PickDraft over the other
	// models a request may name (Catalog), unless Load.Speculative names a
	// drafter already. A draft that fails to load leaves the model
	// without one, with a log line.
	AutoDraft bool
}

// Runner owns the loaded models and their lifecycle: models given to Add
// are pinned and stay loaded; models found in Config.ModelsDir or
// Config.Library load on first use and unload after their keep-alive
// (Config.KeepAlive, or a request's) without requests, or when another
// model needs their place (least recently used first, never one that is
// generating). Before a model that asks for the GPU loads, idle models
// holding GPU memory make room for it; a model whose GPU fails is loaded
// again on the CPU. The app, the CLI and the HTTP server all run their
// generations through one Runner.
type Runner struct {
	cfg Config
	log *slog.Logger

	mu      sync.RWMutex
	models  map[string]*Model
	order   []string // names in the order they were added
	loading map[string]*loadCall
	// life ends when Close begins: the janitor stops, and a load under
	// way (its context) stops before its next weight instead of running
	// to its end.
	life context.Context
	end  context.CancelFunc
	// reloads are the loads of models whose GPU failed (recoverGPU).
	reloads sync.WaitGroup

	obsMu     sync.RWMutex
	observers map[int]func(*Model, Result, error)
	nextObs   int

	// vocabs caches the vocabulary hashes of AutoDraft's candidates.
	vocabMu sync.Mutex
	vocabs  map[vocabKey]uint64
}

// New returns a runner with no models loaded; Add adds them, and Model
// loads the ones of the models folder and library on demand.
func New(cfg Config) *Runner {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Load.Logger == nil {
		cfg.Load.Logger = cfg.Logger
	}
	r := &Runner{cfg: cfg, log: cfg.Logger, models: map[string]*Model{}, loading: map[string]*loadCall{},
		vocabs: map[vocabKey]uint64{}}
	r.life, r.end = context.WithCancel(context.Background())
	every := cfg.SweepEvery
	if every <= 0 {
		every = 5 * time.Second
	}
	go r.janitor(every)
	return r
}

// Observe makes fn be told how every generation on the runner's models
// ended (the server's metrics), failures too, but not requests that Start
// refused as invalid; stop ends it. fn must not block.
func (r *Runner) Observe(fn func(m *Model, res Result, err error)) (stop func()) {
	r.obsMu.Lock()
	defer r.obsMu.Unlock()
	if r.observers == nil {
		r.observers = map[int]func(*Model, Result, error){}
	}
	id := r.nextObs
	r.nextObs++
	r.observers[id] = fn
	return func() {
		r.obsMu.Lock()
		delete(r.observers, id)
		r.obsMu.Unlock()
	}
}

// observed reports a generation's end to the observers.
func (r *Runner) observed(m *Model, res Result, err error) {
	r.obsMu.RLock()
	defer r.obsMu.RUnlock()
	for _, fn := range r.observers {
		fn(m, res, err)
	}
}

// Add makes m available under its name (and replaces a model of the same
// name, which the caller closes). It stays loaded until the runner closes.
func (r *Runner) Add(m *Model) { r.add(m, true) }

// add adds m, pinned or not.
func (r *Runner) add(m *Model, pinned bool) {
	m.pinned = pinned
	m.touch()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.insert(m)
}

// insert adds m to the loaded models. The caller holds r.mu.
func (r *Runner) insert(m *Model) {
	if _, ok := r.models[m.Name]; !ok {
		r.order = append(r.order, m.Name)
	}
	r.models[m.Name] = m
	r.hook(m)
}

// addOpen adds the model m loaded on demand, unless r is closed: it
// reports whether it did.
func (r *Runner) addOpen(m *Model) bool {
	m.touch()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped() {
		return false
	}
	r.insert(m)
	return true
}

// stopped reports whether Close has begun.
func (r *Runner) stopped() bool { return r.life.Err() != nil }

// hook connects m's results and GPU fault reports to r.
func (r *Runner) hook(m *Model) {
	m.runner = r
	m.faulted = func() { r.recoverGPU(m) }
}

// Models returns the loaded models in the order they were added.
func (r *Runner) Models() []*Model {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]*Model, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.models[n])
	}
	return out
}

// Library returns the library the runner finds models in (nil when it has
// none), for the API's model management.
func (r *Runner) Library() *library.Library { return r.cfg.Library }

// Resolve returns the name an alias stands for (name itself when it is
// none).
func (r *Runner) Resolve(name string) string {
	if to, ok := r.cfg.Aliases[name]; ok {
		return to
	}
	return name
}

// Model returns the model called name. An empty name means the first
// model, so that clients that send none (or a placeholder) still work
// with one model loaded.
//
// A name that is not loaded but is a model of the models folder or the
// library loads it first (unloading an idle model when MaxLoaded are
// loaded, or when memory is short).
func (r *Runner) Model(name string) (*Model, error) {
	name, m, ok := r.lookup(name)
	if ok {
		m.touch()
		return m, nil
	}
	if name, path, ok := r.dirModel(name); ok {
		return r.load(name, path)
	}
	return nil, r.notFound(name)
}

// Find returns the model called name as Model does, but never loads one:
// a model that is not loaded comes as the catalog describes it (its Info
// from the file's header, without a scheduler), for a request that only
// asks about a model (GET /v1/models/NAME), which must not load it.
func (r *Runner) Find(name string) (*Model, error) {
	name, m, ok := r.lookup(name)
	if ok {
		return m, nil
	}
	if name, _, ok := r.dirModel(name); ok {
		for _, c := range r.Catalog() {
			if c.Name == name {
				return c, nil
			}
		}
	}
	return nil, r.notFound(name)
}

// lookup resolves name (an alias, NAME:latest, "" for the first model)
// and returns the loaded model of that name, if there is one.
func (r *Runner) lookup(name string) (string, *Model, bool) {
	name = r.Resolve(name)
	// Ollama's clients name models NAME:TAG, and list them (from /api/tags)
	// as NAME:latest, sometimes to call the OpenAI dialect with.
	if base, ok := strings.CutSuffix(name, LatestTag); ok && base != "" && !r.Loaded(name) {
		name = base
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	m, ok := r.models[name]
	if !ok && name == "" && len(r.order) > 0 {
		m, ok = r.models[r.order[0]], true
	}
	return name, m, ok
}

// notFound is the error for a model called name that is not there; it
// lists the ones that are.
func (r *Runner) notFound(name string) error {
	var names []string
	for _, m := range r.Catalog() {
		names = append(names, m.Name)
	}
	sort.Strings(names)
	return fmt.Errorf("%w: %q (available: %v)", ErrModelNotFound, name, names)
}

// Loaded reports whether a model called name is loaded.
func (r *Runner) Loaded(name string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	_, ok := r.models[name]
	return ok
}

// Close stops unloading models, stops the loads under way and closes
// every model.
func (r *Runner) Close() error {
	r.mu.Lock()
	r.end() // under mu: see recoverGPU
	r.mu.Unlock()
	r.reloads.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	var first error
	for _, m := range r.models {
		if err := m.Close(); err != nil && first == nil {
			first = err
		}
	}
	r.models, r.order = map[string]*Model{}, nil
	return first
}

// DefaultKeepAlive returns how long a model loaded on demand stays loaded
// without requests unless a request says otherwise.
func (r *Runner) DefaultKeepAlive() time.Duration {
	if r.cfg.KeepAlive != 0 {
		return r.cfg.KeepAlive
	}
	return DefaultKeepAlive
}

// Grace is how recently a model must have been used to be kept from
// eviction: a request that has just looked it up is about to submit.
const Grace = 2 * time.Second

// dirModel returns the name and the path of the GGUF file called name in
// the library (name may be an alias of it there) or the models folder, if
// there is one.
func (r *Runner) dirModel(name string) (string, string, bool) {
	if name == "" {
		return "", "", false
	}
	if r.cfg.Library != nil {
		if e, err := r.cfg.Library.Get(name); err == nil && e.Err == nil {
			return e.Name, e.Path, true
		}
	}
	if r.cfg.ModelsDir == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return "", "", false
	}
	p := filepath.Join(r.cfg.ModelsDir, name+".gguf")
	st, err := os.Stat(p)
	return name, p, err == nil && st.Mode().IsRegular()
}

// load loads the folder model name from path, making room first. Only one
// load of a name runs at a time; others wait for it.
func (r *Runner) load(name, path string) (*Model, error) {
	r.mu.Lock()
	if m, ok := r.models[name]; ok {
		r.mu.Unlock()
		m.touch()
		return m, nil
	}
	if r.stopped() {
		r.mu.Unlock()
		return nil, ErrClosed
	}
	if c, ok := r.loading[name]; ok {
		r.mu.Unlock()
		<-c.done
		return c.m, c.err
	}
	c := &loadCall{done: make(chan struct{})}
	r.loading[name] = c
	r.mu.Unlock()

	defer func() {
		r.mu.Lock()
		delete(r.loading, name)
		r.mu.Unlock()
		close(c.done)
	}()
	// The file is opened mapped to make room for its model, and its
	// data held as the runner's Memory says (read into memory with
	// --no-mmap) only once the room is made.
	h, err := open(r.life, path, gguf.OpenOptions{})
	if err != nil {
		c.err = r.stoppedBy(err)
		return nil, c.err
	}
	split, onGPU := r.makeGPURoom(h.f)
	if err := r.makeRoom(r.memoryNeed(h, split, onGPU)); err != nil {
		h.f.Close()
		c.err = err
		return nil, err
	}
	if err := h.hold(r.life, r.cfg.Load.Memory); err != nil {
		c.err = r.stoppedBy(err)
		return nil, c.err
	}
	opts := r.cfg.Load
	opts.Name = name
	start := time.Now()
	draft := ""
	if r.cfg.AutoDraft && !opts.Speculative.on() {
		draft = r.pickDraft(h, name)
		opts.Speculative.Draft = draft
	}
	m, err := load(r.life, h, opts)
	if err != nil && draft != "" && !r.stopped() {
		r.log.Warn("runner: loading without the draft model paired with it", "model", name, "draft", draft, "err", err)
		opts.Speculative.Draft = ""
		if h, err = open(r.life, path, opts.Memory); err == nil {
			m, err = load(r.life, h, opts)
		}
	}
	if err != nil {
		c.err = r.stoppedBy(err)
		return nil, c.err
	}
	r.log.Info("runner: loaded", "model", name, "seconds", time.Since(start).Seconds())
	if !r.addOpen(m) {
		// Closed while it loaded (the app's settings reopened the engine,
		// or it quit): the model goes with the runner.
		if err := m.Close(); err != nil {
			r.log.Warn("runner: closing a model loaded after Close", "model", name, "err", err)
		}
		c.err = ErrClosed
		return nil, ErrClosed
	}
	m.touch()
	c.m = m
	return m, nil
}

// stoppedBy returns the error of a load that failed with err: err, or
// where Close has stopped the load, ErrClosed wrapping it.
func (r *Runner) stoppedBy(err error) error {
	if r.stopped() {
		return fmt.Errorf("%w: %w", ErrClosed, err)
	}
	return err
}

// loadCall is a load in progress.
type loadCall struct {
	done chan struct{}
	m    *Model
	err  error
}

// makeRoom unloads least recently used idle folder models until one more
// fits under MaxLoaded and the machine has need bytes of memory available.
// When memory is short but nothing can be unloaded, the load goes ahead
// (the weights are mapped, not copied, and the system may page them).
func (r *Runner) makeRoom(need int64) error {
	limit := r.cfg.MaxLoaded
	if limit <= 0 {
		limit = DefaultMaxLoaded
	}
	for {
		r.mu.RLock()
		n := len(r.models)
		r.mu.RUnlock()
		victim := r.idlest(nil)
		avail := r.available()
		short := avail > 0 && avail < uint64(max(need, 0))
		if n < limit && !short {
			return nil
		}
		if victim == nil {
			if n < limit {
				r.log.Warn("runner: loading a model with little memory available", "need", need, "available", avail)
				return nil
			}
			return fmt.Errorf("%w: %d models loaded (at most %d), all in use", ErrBusy, n, limit)
		}
		r.unload(victim)
	}
}

// idlest returns the least recently used loaded model that may be
// unloaded to make room, and for which ok (nil: any) is true: one from the
// models folder, without requests, and not looked up within Grace. It
// returns nil when there is none.
func (r *Runner) idlest(ok func(*Model) bool) *Model {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var victim *Model
	now := time.Now()
	for _, m := range r.models {
		if m.pinned || m.Busy() || now.Sub(time.Unix(0, m.lastUsed.Load())) < Grace || (ok != nil && !ok(m)) {
			continue
		}
		if victim == nil || m.lastUsed.Load() < victim.lastUsed.Load() {
			victim = m
		}
	}
	return victim
}

// makeGPURoom unloads least recently used idle folder models that hold
// GPU memory while the model of f, loaded with the runner's options,
// would get only part of the GPU it asks for automatically, as Ollama
// makes room on the GPU for the model a request names. It returns the
// split the model will get, and false when it will not use the GPU.
func (r *Runner) makeGPURoom(f *gguf.File) (offload.Split, bool) {
	opts := r.cfg.Load
	reg := opts.registry()
	if opts.GPULayers == 0 {
		return offload.Split{}, false
	}
	if _, err := reg.Open(); err != nil {
		return offload.Split{}, false // no GPU
	}
	req := offload.ServeRequest(opts.GPULayers, opts.Scheduler)
	for {
		split, ok := offload.Preview(f, reg, req)
		if !ok || opts.GPULayers > 0 || split.Layers >= split.Of && split.Output {
			return split, ok
		}
		victim := r.idlest(func(m *Model) bool { return m.Info.Offload.Layers > 0 })
		if victim == nil {
			return split, ok
		}
		r.log.Info("runner: unloading a model to make room on the GPU", "model", victim.Name, "for", filepath.Base(f.Path()))
		r.unload(victim)
	}
}

// available returns the memory available for a new model, 0 when unknown.
func (r *Runner) available() uint64 {
	if r.cfg.Available != nil {
		return r.cfg.Available()
	}
	vm, err := mem.VirtualMemory()
	if err != nil {
		return 0
	}
	return vm.Available
}

// memoryNeed is the RAM that loading the model of h with the runner's
// options takes, as the fit planner plans it: its weights, KV pool and
// buffers, less what the layers split puts on a GPU of its own (onGPU)
// hold there.
func (r *Runner) memoryNeed(h *header, split offload.Split, onGPU bool) int64 {
	layers := 0
	if onGPU {
		layers = split.Layers
	}
	return fit.LoadRAM(h.plannable(), h.st.Size(), fit.SchedulerRequest(r.cfg.Load.Scheduler, layers), r.cfg.Load.registry().Platform().Unified)
}

// unload removes m from the runner and closes it.
func (r *Runner) unload(m *Model) {
	r.mu.Lock()
	if r.models[m.Name] != m {
		r.mu.Unlock()
		return
	}
	delete(r.models, m.Name)
	for i, n := range r.order {
		if n == m.Name {
			r.order = append(r.order[:i], r.order[i+1:]...)
			break
		}
	}
	r.mu.Unlock()
	r.log.Info("runner: unloaded", "model", m.Name)
	m.Close()
}

// recoverGPU loads m again after its GPU has failed, which puts it on the
// CPU, and serves the new model in m's place under m's name; the requests
// that ran on m have ended with the GPU's error. The other models on the
// failed GPU are loaded again too, before a request of theirs meets the
// fault. It runs once per model, in the background. A model that cannot
// be loaded again is unloaded.
func (r *Runner) recoverGPU(m *Model) {
	fault := m.gpu.Fault()
	if fault == nil || !m.recovering.CompareAndSwap(false, true) {
		return
	}
	defer func() {
		for _, o := range r.Models() {
			if o.faulted != nil && o.gpu.Fault() != nil {
				r.recoverGPU(o)
			}
		}
	}()
	r.mu.Lock()
	if r.stopped() {
		r.mu.Unlock()
		return // closing: nothing to serve it to
	}
	r.reloads.Add(1) // before Close's Wait, or not at all
	r.mu.Unlock()
	r.log.Error("runner: the GPU failed; loading the model again on the CPU", "model", m.Name, "err", fault)
	go func() {
		defer r.reloads.Done()
		start := time.Now()
		nm, err := Load(r.life, m.Path, m.opts)
		r.mu.Lock()
		current := r.models[m.Name] == m
		if err == nil && current {
			nm.pinned = m.pinned
			nm.keepAlive.Store(m.keepAlive.Load())
			nm.touch()
			r.models[m.Name] = nm
			r.hook(nm)
		}
		r.mu.Unlock()
		switch {
		case err != nil:
			if !r.stopped() { // else Close stopped the load
				r.log.Error("runner: the model could not be loaded again after its GPU failed; it is unloaded", "model", m.Name, "err", err)
			}
			r.unload(m)
			return
		case !current:
			nm.Close() // unloaded meanwhile
		default:
			r.log.Info("runner: loaded again", "model", m.Name, "placement", nm.Info.Offload.String(),
				"seconds", time.Since(start).Seconds())
		}
		m.Close()
	}()
}

// Unload closes the loaded model called name, ending its running requests,
// and reports whether one was loaded. The app calls it before deleting a
// model's file.
func (r *Runner) Unload(name string) bool {
	r.mu.RLock()
	m, ok := r.models[name]
	r.mu.RUnlock()
	if ok {
		r.unload(m)
	}
	return ok
}

// janitor unloads expired folder models until Close.
func (r *Runner) janitor(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-r.life.Done():
			return
		case <-t.C:
		}
		r.sweep(time.Now())
	}
}

// sweep unloads the models whose keep-alive has passed.
func (r *Runner) sweep(now time.Time) {
	def := r.DefaultKeepAlive()
	for _, m := range r.Models() {
		if m.expired(now, def) {
			r.unload(m)
		}
	}
}

// Catalog returns every model a request may name: the loaded ones, then
// the library's and the models folder's others (described from their
// headers, not loaded).
func (r *Runner) Catalog() []*Model {
	out := r.Models()
	loaded := map[string]bool{}
	for _, m := range out {
		loaded[m.Name] = true
	}
	if r.cfg.Library != nil {
		entries, _ := r.cfg.Library.List()
		for _, e := range entries {
			if loaded[e.Name] || e.Err != nil {
				continue
			}
			loaded[e.Name] = true
			out = append(out, &Model{Name: e.Name, Path: e.Path, Info: Info{Arch: e.Arch, FileType: e.FileType,
				Parameters: e.Parameters, Size: e.Size, Context: e.ContextLength, ContextTrain: e.ContextLength,
				Modified: e.Modified}})
		}
	}
	if r.cfg.ModelsDir == "" {
		return out
	}
	paths, _ := filepath.Glob(filepath.Join(r.cfg.ModelsDir, "*.gguf"))
	sort.Strings(paths)
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".gguf")
		if loaded[name] {
			continue
		}
		if m, err := describe(name, p); err == nil {
			out = append(out, m)
		}
	}
	return out
}

// describe reads the header of the GGUF file at path into an unloaded
// Model for the model lists.
func describe(name, path string) (*Model, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	f, err := gguf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s := f.Summary()
	info := Info{Arch: s.Architecture, Parameters: s.Parameters, Size: st.Size(), Context: int(s.ContextLength),
		ContextTrain: int(s.ContextLength), Embd: int(s.EmbeddingLength), Layers: int(s.BlockCount), Modified: st.ModTime()}
	if s.HasFileType {
		info.FileType = s.FileType.String()
	}
	if src, err := f.ChatTemplate(); err == nil {
		info.Template = src
	}
	return &Model{Name: name, Path: path, Info: info}, nil
}
