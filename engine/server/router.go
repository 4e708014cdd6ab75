package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/shirou/gopsutil/v3/mem"

	"saji/engine/gguf"
	"saji/engine/offload"
)

// Routing: which model answers a request. Models given to Add are pinned:
// they stay loaded. Models found in Config.ModelsDir load on first use and
// unload after their keep-alive (Config.KeepAlive, or a request's
// keep_alive) without requests, or when another model needs their place
// (least recently used first, never one that is generating). A name in
// Config.Remotes is forwarded to another OpenAI-compatible server.

// ErrBusy is wrapped when a model cannot be loaded because every loaded
// model is busy and no more may be loaded.
var ErrBusy = errors.New("server: every model slot is busy")

// Defaults of the routing settings.
const (
	DefaultKeepAlive = 5 * time.Minute
	DefaultMaxLoaded = 2
)

// Remote is a model served by another OpenAI-compatible server.
type Remote struct {
	// URL is its base URL, with or without /v1 (http://host:8000).
	URL string
	// APIKey, when set, is sent to it as a bearer token in place of the
	// client's.
	APIKey string
	// Model is the name the remote server knows it by ("" for the same).
	Model string
}

// grace is how recently used a model may be and still be evicted to load
// another: a request that has just looked it up is about to submit.
const grace = 2 * time.Second

// touch marks m used now.
func (m *Model) touch() { m.lastUsed.Store(time.Now().UnixNano()) }

// SetKeepAlive sets how long m stays loaded without requests: d < 0 for
// ever, 0 to unload as soon as it is idle.
func (m *Model) SetKeepAlive(d time.Duration) {
	if d == 0 {
		d = -2 // stored 0 means the server's default
	}
	m.keepAlive.Store(int64(d))
}

// busy reports whether m has requests running or waiting, or embeddings
// in flight.
func (m *Model) busy() bool {
	st := m.sched.Stats()
	return st.Running+st.Waiting > 0 || m.outside.Load() > 0
}

// lifetime returns m's keep-alive given the server's default: negative
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
	if m.pinned || m.busy() {
		return false
	}
	ka := m.lifetime(def)
	return ka >= 0 && now.Sub(time.Unix(0, m.lastUsed.Load())) >= ka
}

// ExpiresAt returns when m unloads if no request comes (zero: never).
func (m *Model) ExpiresAt(def time.Duration) time.Time {
	ka := m.lifetime(def)
	if m.pinned || ka < 0 {
		return time.Time{}
	}
	return time.Unix(0, m.lastUsed.Load()).Add(ka)
}

// dirModel returns the path of the GGUF file called name in the models
// folder, if there is one.
func (s *Server) dirModel(name string) (string, bool) {
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return "", false
	}
	if s.cfg.Library != nil {
		if e, err := s.cfg.Library.Get(name); err == nil && e.Err == nil {
			return e.Path, true
		}
	}
	if s.cfg.ModelsDir == "" {
		return "", false
	}
	p := filepath.Join(s.cfg.ModelsDir, name+".gguf")
	st, err := os.Stat(p)
	return p, err == nil && st.Mode().IsRegular()
}

// load loads the folder model name from path, making room first. Only one
// load of a name runs at a time; others wait for it.
func (s *Server) load(name, path string) (*Model, error) {
	s.mu.Lock()
	if m, ok := s.models[name]; ok {
		s.mu.Unlock()
		m.touch()
		return m, nil
	}
	if c, ok := s.loading[name]; ok {
		s.mu.Unlock()
		<-c.done
		return c.m, c.err
	}
	c := &loadCall{done: make(chan struct{})}
	s.loading[name] = c
	s.mu.Unlock()

	defer func() {
		s.mu.Lock()
		delete(s.loading, name)
		s.mu.Unlock()
		close(c.done)
	}()
	split, onGPU := s.makeGPURoom(path)
	if err := s.makeRoom(s.memoryNeed(path, split, onGPU)); err != nil {
		c.err = err
		return nil, err
	}
	opts := s.cfg.Load
	opts.Name = name
	start := time.Now()
	m, err := LoadModel(context.Background(), path, opts)
	if err != nil {
		c.err = err
		return nil, err
	}
	s.log.Info("server: loaded", "model", name, "seconds", time.Since(start).Seconds())
	s.add(m, false)
	m.touch()
	c.m = m
	return m, nil
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
func (s *Server) makeRoom(need int64) error {
	limit := s.cfg.MaxLoaded
	if limit <= 0 {
		limit = DefaultMaxLoaded
	}
	for {
		s.mu.RLock()
		n := len(s.models)
		s.mu.RUnlock()
		victim := s.idlest(nil)
		avail := s.available()
		short := avail > 0 && avail < uint64(max(need, 0))
		if n < limit && !short {
			return nil
		}
		if victim == nil {
			if n < limit {
				s.log.Warn("server: loading a model with little memory available", "need", need, "available", avail)
				return nil
			}
			return fmt.Errorf("%w: %d models loaded (at most %d), all in use", ErrBusy, n, limit)
		}
		s.unload(victim)
	}
}

// idlest returns the least recently used loaded model that may be
// unloaded to make room, and for which ok (nil: any) is true: one from the
// models folder, without requests, and not looked up within grace. It
// returns nil when there is none.
func (s *Server) idlest(ok func(*Model) bool) *Model {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var victim *Model
	now := time.Now()
	for _, m := range s.models {
		if m.pinned || m.busy() || now.Sub(time.Unix(0, m.lastUsed.Load())) < grace || (ok != nil && !ok(m)) {
			continue
		}
		if victim == nil || m.lastUsed.Load() < victim.lastUsed.Load() {
			victim = m
		}
	}
	return victim
}

// makeGPURoom unloads least recently used idle folder models that hold
// GPU memory while the model at path, loaded with the server's options,
// would get only part of the GPU it asks for automatically, as Ollama
// makes room on the GPU for the model a request names. It returns the
// split the model will get, and false when it will not use the GPU.
func (s *Server) makeGPURoom(path string) (offload.Split, bool) {
	opts := s.cfg.Load
	reg := opts.registry()
	if opts.GPULayers == 0 {
		return offload.Split{}, false
	}
	if _, err := reg.Open(); err != nil {
		return offload.Split{}, false // no GPU: nothing to read the file for
	}
	f, err := gguf.Open(path)
	if err != nil {
		return offload.Split{}, false // the load says why
	}
	defer f.Close()
	req := offload.ServeRequest(opts.GPULayers, opts.Scheduler)
	for {
		split, ok := offload.Preview(f, reg, req)
		if !ok || opts.GPULayers > 0 || split.Layers >= split.Of && split.Output {
			return split, ok
		}
		victim := s.idlest(func(m *Model) bool { return m.Info.Offload.Layers > 0 })
		if victim == nil {
			return split, ok
		}
		s.log.Info("server: unloading a model to make room on the GPU", "model", victim.Name, "for", filepath.Base(path))
		s.unload(victim)
	}
}

// available returns the memory available for a new model, 0 when unknown.
func (s *Server) available() uint64 {
	if s.cfg.Available != nil {
		return s.cfg.Available()
	}
	vm, err := mem.VirtualMemory()
	if err != nil {
		return 0
	}
	return vm.Available
}

// memoryNeed estimates the RAM that loading the model at path takes: its
// weights and its KV cache budget (a quarter of the weights when the
// budget is left to the scheduler's default), less the share of the
// layers split puts on a GPU of its own (onGPU), whose weights and cache
// are copied to the device.
func (s *Server) memoryNeed(path string, split offload.Split, onGPU bool) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	kv := s.cfg.Load.Scheduler.KVBytes
	if kv <= 0 {
		kv = st.Size() / 4
	}
	need := st.Size() + kv
	if onGPU && split.Layers > 0 && split.Of > 0 && !s.cfg.Load.registry().Platform().Unified {
		need = need * int64(split.Of-split.Layers) / int64(split.Of)
	}
	return need
}

// unload removes m from the server and closes it.
func (s *Server) unload(m *Model) {
	s.mu.Lock()
	if s.models[m.Name] != m {
		s.mu.Unlock()
		return
	}
	delete(s.models, m.Name)
	for i, n := range s.order {
		if n == m.Name {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
	s.mu.Unlock()
	s.log.Info("server: unloaded", "model", m.Name)
	m.Close()
}

// recoverGPU loads m again after its GPU has failed, which puts it on the
// CPU, and serves the new model in m's place under m's name; the requests
// that ran on m have ended with the GPU's error. The other models on the
// failed GPU are loaded again too, before a request of theirs meets the
// fault. It runs once per model, in the background. A model that cannot
// be loaded again is unloaded.
func (s *Server) recoverGPU(m *Model) {
	fault := m.gpu.Fault()
	if fault == nil || !m.recovering.CompareAndSwap(false, true) {
		return
	}
	defer func() {
		for _, o := range s.Models() {
			if o.faulted != nil && o.gpu.Fault() != nil {
				s.recoverGPU(o)
			}
		}
	}()
	s.mu.Lock()
	select {
	case <-s.stop:
		s.mu.Unlock()
		return // closing: nothing to serve it to
	default:
	}
	s.reloads.Add(1) // before Close's Wait, or not at all
	s.mu.Unlock()
	s.log.Error("server: the GPU failed; loading the model again on the CPU", "model", m.Name, "err", fault)
	go func() {
		defer s.reloads.Done()
		start := time.Now()
		nm, err := LoadModel(context.Background(), m.Path, m.opts)
		s.mu.Lock()
		current := s.models[m.Name] == m
		if err == nil && current {
			nm.pinned = m.pinned
			nm.keepAlive.Store(m.keepAlive.Load())
			nm.touch()
			s.models[m.Name] = nm
			s.hook(nm)
		}
		s.mu.Unlock()
		switch {
		case err != nil:
			s.log.Error("server: the model could not be loaded again after its GPU failed; it is unloaded", "model", m.Name, "err", err)
			s.unload(m)
			return
		case !current:
			nm.Close() // unloaded meanwhile
		default:
			s.log.Info("server: loaded again", "model", m.Name, "placement", nm.Info.Offload.String(),
				"seconds", time.Since(start).Seconds())
		}
		m.Close()
	}()
}

// Unload closes the loaded model called name, ending its running requests,
// and reports whether one was loaded. The app calls it before deleting a
// model's file.
func (s *Server) Unload(name string) bool {
	s.mu.RLock()
	m, ok := s.models[name]
	s.mu.RUnlock()
	if ok {
		s.unload(m)
	}
	return ok
}

// janitor unloads expired folder models until stop is closed.
func (s *Server) janitor(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		s.sweep(time.Now())
	}
}

// sweep unloads the models whose keep-alive has passed.
func (s *Server) sweep(now time.Time) {
	def := s.keepAlive()
	for _, m := range s.Models() {
		if m.expired(now, def) {
			s.unload(m)
		}
	}
}

// keepAlive is the default keep-alive.
func (s *Server) keepAlive() time.Duration {
	if s.cfg.KeepAlive != 0 {
		return s.cfg.KeepAlive
	}
	return DefaultKeepAlive
}

// Catalog returns every model a request may name: the loaded ones, then
// the models folder's others (described from their headers, not loaded).
func (s *Server) Catalog() []*Model {
	out := s.Models()
	loaded := map[string]bool{}
	for _, m := range out {
		loaded[m.Name] = true
	}
	if s.cfg.Library != nil {
		entries, _ := s.cfg.Library.List()
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
	if s.cfg.ModelsDir == "" {
		return out
	}
	paths, _ := filepath.Glob(filepath.Join(s.cfg.ModelsDir, "*.gguf"))
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

// remote returns the remote model called name.
func (s *Server) remote(name string) (Remote, bool) {
	if to, ok := s.cfg.Aliases[name]; ok {
		name = to
	}
	r, ok := s.cfg.Remotes[name]
	return r, ok && name != ""
}

// forward sends an OpenAI request for a remote model to its server, the
// body given back, the response (a stream too) passed through as it comes.
func (s *Server) forward(w http.ResponseWriter, r *http.Request, body []byte, rm Remote) {
	target, err := url.Parse(strings.TrimSuffix(strings.TrimRight(rm.URL, "/"), "/v1"))
	if err != nil || target.Host == "" {
		oaiError(w, fmt.Errorf("server: the remote URL %q is invalid", rm.URL))
		return
	}
	if rm.Model != "" {
		var v map[string]any
		if json.Unmarshal(body, &v) == nil {
			v["model"] = rm.Model
			if b, err := json.Marshal(v); err == nil {
				body = b
			}
		}
	}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Host = target.Host
			pr.Out.Body = io.NopCloser(bytes.NewReader(body))
			pr.Out.ContentLength = int64(len(body))
			pr.Out.Header.Del("Authorization")
			if rm.APIKey != "" {
				pr.Out.Header.Set("Authorization", "Bearer "+rm.APIKey)
			}
		},
		FlushInterval: -1, // stream as it comes
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			oaiError(w, &apiError{status: http.StatusBadGateway, typ: "server_error", msg: "the remote server failed: " + err.Error()})
		},
	}
	proxy.ServeHTTP(w, r)
}

// routeRemote forwards an OpenAI POST whose model is remote, and reports
// whether it did. The body is read (within the limit) and put back.
func (s *Server) routeRemote(w http.ResponseWriter, r *http.Request) bool {
	if len(s.cfg.Remotes) == 0 || r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1/") {
		return false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBody))
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return false // the handler reports it
	}
	var v struct {
		Model string `json:"model"`
	}
	if json.Unmarshal(body, &v) != nil {
		return false
	}
	rm, ok := s.remote(v.Model)
	if !ok {
		return false
	}
	s.forward(w, r, body, rm)
	return true
}
