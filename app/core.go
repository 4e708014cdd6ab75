package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"fyne.io/fyne/v2"

	"saji/app/store"
	"saji/engine/chat"
	"saji/engine/download"
	"saji/engine/fit"
	"saji/engine/hardware"
	"saji/engine/kvcache"
	"saji/engine/library"
	"saji/engine/offload"
	"saji/engine/runner"
	"saji/engine/sample"
	"saji/engine/scheduler"
	"saji/engine/server"
	"saji/engine/units"
)

// defaultPort is the API's port, as `saji serve` uses it.
const defaultPort = 11435

// Settings are the app's preferences, kept in Fyne's preferences store.
type Settings struct {
	// ModelsDir is the library's folder.
	ModelsDir string
	// Threads is the CPU threads a model uses (0: the physical cores).
	Threads int
	// Context is the context length models load with.
	Context int
	// GPULayers is the number of a model's layers that go to the GPU:
	// offload.Auto (-1) as many as fit, 0 none (Off), N the last N.
	GPULayers int
	// Theme is "system", "light" or "dark".
	Theme string
	// StartServer starts the local API when the app opens.
	StartServer bool
	// Host and Port are the API's bind address; APIKeys its keys (none on
	// 127.0.0.1 means open) and CORS the browser origins it allows.
	Host    string
	Port    int
	APIKeys []string
	CORS    []string
	// Welcomed is set once the first-run view has been dismissed.
	Welcomed bool
	// KeepInTray hides the window in the system tray, rather than
	// quitting, when it is closed while the API serves (on by default).
	KeepInTray bool
	// UpdateFeed is the release feed the app checks for a newer Saji at
	// launch ("": never; see update.go).
	UpdateFeed string
	// PromptCache keeps the KV cache of finished conversations on disk
	// (on by default), so that reopening a long conversation does not
	// recompute it; PromptCacheGiB bounds the folder.
	PromptCache    bool
	PromptCacheGiB int
	// SpeculativeDraft pairs each model with a smaller one of the same
	// vocabulary from the library, when it has one, as a draft for
	// speculative decoding (on by default): the same replies, sooner.
	SpeculativeDraft bool
}

// defaultPromptCacheGiB is the prompt cache's default size on disk (as
// saji serve's --prompt-cache-size).
const defaultPromptCacheGiB = 8

// Preference keys.
const (
	prefModelsDir   = "models_dir"
	prefThreads     = "threads"
	prefContext     = "context"
	prefGPULayers   = "gpu_layers"
	prefTheme       = "theme"
	prefStartServer = "start_server"
	prefHost        = "api_host"
	prefPort        = "api_port"
	prefAPIKeys     = "api_keys"
	prefCORS        = "api_cors"
	prefWelcomed    = "welcomed"
	prefKeepInTray  = "keep_in_tray"
	prefUpdateFeed  = "update_feed"
	prefPromptCache = "prompt_cache"
	prefPromptGiB   = "prompt_cache_gib"
	prefDraft       = "speculative_draft"
)

// loadSettings reads the settings from p, with defaults for what is unset.
func loadSettings(p fyne.Preferences) Settings {
	return Settings{
		ModelsDir:   p.StringWithFallback(prefModelsDir, library.ModelsDir()),
		Threads:     p.Int(prefThreads),
		Context:     p.IntWithFallback(prefContext, scheduler.DefaultContext),
		GPULayers:   p.IntWithFallback(prefGPULayers, offload.Auto),
		Theme:       p.StringWithFallback(prefTheme, "system"),
		StartServer: p.Bool(prefStartServer),
		Host:        p.StringWithFallback(prefHost, "127.0.0.1"),
		Port:        p.IntWithFallback(prefPort, defaultPort),
		APIKeys:     p.StringList(prefAPIKeys),
		CORS:        p.StringList(prefCORS),
		Welcomed:    p.Bool(prefWelcomed),
		KeepInTray:  p.BoolWithFallback(prefKeepInTray, true),
		UpdateFeed:  p.String(prefUpdateFeed),
		PromptCache: p.BoolWithFallback(prefPromptCache, true),
		// A size below one GiB is not offered; a bad stored one falls back.
		PromptCacheGiB:   max(1, p.IntWithFallback(prefPromptGiB, defaultPromptCacheGiB)),
		SpeculativeDraft: p.BoolWithFallback(prefDraft, true),
	}
}

// save writes s to p.
func (s Settings) save(p fyne.Preferences) {
	p.SetString(prefModelsDir, s.ModelsDir)
	p.SetInt(prefThreads, s.Threads)
	p.SetInt(prefContext, s.Context)
	p.SetInt(prefGPULayers, s.GPULayers)
	p.SetString(prefTheme, s.Theme)
	p.SetBool(prefStartServer, s.StartServer)
	p.SetString(prefHost, s.Host)
	p.SetInt(prefPort, s.Port)
	p.SetStringList(prefAPIKeys, s.APIKeys)
	p.SetStringList(prefCORS, s.CORS)
	p.SetBool(prefWelcomed, s.Welcomed)
	p.SetBool(prefKeepInTray, s.KeepInTray)
	p.SetString(prefUpdateFeed, s.UpdateFeed)
	p.SetBool(prefPromptCache, s.PromptCache)
	p.SetInt(prefPromptGiB, s.PromptCacheGiB)
	p.SetBool(prefDraft, s.SpeculativeDraft)
}

// core is the app below its views: the settings, the model library, the
// conversation store, and the engine: one runner.Runner over the library
// whose loaded models both the chat and the local API use (the chat goes
// through the same schedulers as the API's requests), and the API's
// server.Server over it.
type core struct {
	log   *slog.Logger
	prefs fyne.Preferences
	store *store.Store

	setMu    sync.Mutex // serialises SetSettings, which releases mu while it works, and Close
	mu       sync.Mutex
	closed   bool // set by Close: the engine and the API stay shut
	settings Settings
	lib      *library.Library
	run      *runner.Runner
	disk     *kvcache.Disk  // the prompt cache on disk, nil when off
	srv      *server.Server // the API's handler over run
	api      *apiServer     // nil while the API is stopped

	dlMu      sync.Mutex
	downloads *download.Manager // opened by Downloads; nil until then
	dlClosed  bool              // set by Close: Downloads opens no manager again
	// downloadsDir is where the downloads keep their state ("":
	// library.DownloadsDir()); tests point it at a temporary folder.
	downloadsDir string
	// promptCacheDir is the prompt cache's folder.
	promptCacheDir string
	// downloadsOpened, when set, is called (with dlMu held) with each
	// manager Downloads opens: the Discover view follows it from then on,
	// whoever started its jobs (the welcome view, the API's pulls).
	downloadsOpened func(*download.Manager)

	// gpu is the GPU models offload their layers to.
	gpu *offload.Registry

	// detect describes the machine (see coreOptions.Detect); machine
	// holds its answer once Machine has run it.
	detect    func(context.Context) (hardware.Machine, error)
	machineMu sync.Mutex
	machine   *machineResult // nil until Machine first runs
	fitMu     sync.Mutex
	fitChecks map[*runner.Model]*fitCheck // models loaded by the chat, compared after their first reply
}

// machineResult is Detect's answer, shared by every caller of Machine.
type machineResult struct {
	done chan struct{} // closed once m is set
	m    hardware.Machine
}

// coreOptions configures newCore.
type coreOptions struct {
	// Prefs holds the settings (a fyne.App's Preferences).
	Prefs fyne.Preferences
	// DBPath is the conversation database (default: DataDir/chats.db).
	DBPath string
	// Logger receives the app's records (nil: slog.Default()).
	Logger *slog.Logger
	// Detect describes the machine for the fit planner. nil reads the
	// CPU and memory only (no GPU probe, no bandwidth measurement), as
	// tests want; Run passes detectMachine, which probes the GPUs in a
	// child process (saji hwprobe --gpu) and measures the bandwidth once
	// (cached in the user cache folder).
	Detect func(context.Context) (hardware.Machine, error)
	// GPU is the GPU models offload layers to (nil: offload.System(),
	// this platform's).
	GPU *offload.Registry
	// PromptCacheDir is the prompt cache's folder (default:
	// library.PromptCacheDir()).
	PromptCacheDir string
}

// detectMachine is the app's full machine detection: GPUs through the
// crash-isolated probe child and the memory bandwidth, cached in
// library.CacheDir().
func detectMachine(ctx context.Context) (hardware.Machine, error) {
	return hardware.Detect(ctx, hardware.DetectOptions{CacheDir: library.CacheDir()})
}

// detectQuick reads the CPU and memory only.
func detectQuick(ctx context.Context) (hardware.Machine, error) {
	return hardware.Detect(ctx, hardware.DetectOptions{SkipGPU: true, SkipBandwidth: true})
}

// newCore opens the library named by the settings and the conversation
// database.
func newCore(opts coreOptions) (*core, error) {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	c := &core{log: log, prefs: opts.Prefs, settings: loadSettings(opts.Prefs), detect: opts.Detect,
		gpu: opts.GPU, fitChecks: map[*runner.Model]*fitCheck{}, promptCacheDir: opts.PromptCacheDir}
	if c.promptCacheDir == "" {
		c.promptCacheDir = library.PromptCacheDir()
	}
	if c.detect == nil {
		c.detect = detectQuick
	}
	db := opts.DBPath
	if db == "" {
		db = filepath.Join(library.DataDir(), "chats.db")
	}
	if err := os.MkdirAll(filepath.Dir(db), 0o755); err != nil {
		return nil, fmt.Errorf("app: %w", err)
	}
	st, err := store.Open(db)
	if err != nil {
		return nil, fmt.Errorf("app: the conversation database: %w", err)
	}
	c.store = st
	if err := c.openEngine(); err != nil {
		st.Close()
		return nil, err
	}
	return c, nil
}

// openEngine opens the library of the settings' models folder, a runner
// over it and the API's server over the runner. The caller holds c.mu or
// has c to itself.
func (c *core) openEngine() error {
	lib, err := library.OpenWith(c.settings.ModelsDir, c.log)
	if err != nil {
		return fmt.Errorf("app: the models folder: %w", err)
	}
	c.lib = lib
	c.disk = c.openPromptCache()
	sc := c.settings.scheduler()
	sc.PromptCache = c.disk
	c.run = runner.New(runner.Config{
		Library: lib,
		Logger:  c.log,
		Load: runner.LoadOptions{Threads: c.settings.Threads, GPULayers: c.settings.GPULayers, GPU: c.gpu, Logger: c.log,
			Scheduler: sc},
		AutoDraft: c.settings.SpeculativeDraft,
	})
	// Ollama's /api/pull fetches through the app's download manager: two
	// managers must not share its state folder.
	c.srv = server.New(server.Config{Runner: c.run, Logger: c.log, APIKeys: c.settings.APIKeys, CORSOrigins: c.settings.CORS,
		Downloads: c.Downloads})
	return nil
}

// Settings returns the current settings.
func (c *core) Settings() Settings {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.settings
}

// SetSettings stores s. A change of models folder, threads, context, GPU
// layers, keys or CORS origins unloads the models and reopens the engine
// (and restarts the API if it runs), so the next reply uses it. After
// Close it only stores s: a change the window queued as it closed is
// kept, and nothing reopens.
func (c *core) SetSettings(s Settings) error {
	c.setMu.Lock()
	defer c.setMu.Unlock()
	c.mu.Lock()
	old := c.settings
	c.settings = s
	if c.prefs != nil {
		s.save(c.prefs)
	}
	restart := old.ModelsDir != s.ModelsDir || old.Threads != s.Threads || old.Context != s.Context || old.GPULayers != s.GPULayers ||
		!slices.Equal(old.APIKeys, s.APIKeys) || !slices.Equal(old.CORS, s.CORS) ||
		old.PromptCache != s.PromptCache || old.PromptCacheGiB != s.PromptCacheGiB || old.SpeculativeDraft != s.SpeculativeDraft
	if !restart || c.closed {
		c.mu.Unlock()
		return nil
	}
	running := c.api != nil
	c.mu.Unlock()
	if running {
		c.StopAPI()
	}
	c.mu.Lock()
	c.closeEngine()
	err := c.openEngine()
	c.mu.Unlock()
	if err != nil {
		return err
	}
	if running {
		_, err = c.StartAPI()
	}
	return err
}

// Library returns the model library.
func (c *core) Library() *library.Library {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lib
}

// closeEngine closes the API's server and the runner, unloading the
// models. The caller holds c.mu or has c to itself.
func (c *core) closeEngine() {
	c.srv.Close()
	c.run.Close()
	if c.disk != nil {
		c.disk.Close() // after the models, whose schedulers save on closing
		c.disk = nil
	}
}

// openPromptCache opens the prompt cache of the settings, or returns nil
// when it is off or cannot be opened (the models then run without it).
func (c *core) openPromptCache() *kvcache.Disk {
	if !c.settings.PromptCache || c.promptCacheDir == "" {
		return nil
	}
	d, err := kvcache.OpenDisk(kvcache.DiskOptions{Dir: c.promptCacheDir, MaxBytes: int64(c.settings.PromptCacheGiB) << 30, Logger: c.log})
	if err != nil {
		c.log.Warn("app: no prompt cache on disk", "err", err)
		return nil
	}
	return d
}

// Runner returns the engine: the loaded models and their generations.
func (c *core) Runner() *runner.Runner {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.run
}

// Server returns the API's handler over the runner.
func (c *core) Server() *server.Server {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.srv
}

// Store returns the conversation database.
func (c *core) Store() *store.Store { return c.store }

// Downloads returns the download manager, opening it on first use (its
// state lives in library.DownloadsDir(), and the jobs an earlier run left
// there are restored paused). After Close it opens nothing.
func (c *core) Downloads() (*download.Manager, error) {
	c.dlMu.Lock()
	defer c.dlMu.Unlock()
	if c.dlClosed {
		return nil, errors.New("app: the app is closing; the downloads stay shut")
	}
	if c.downloads != nil {
		return c.downloads, nil
	}
	dir := cmp.Or(c.downloadsDir, library.DownloadsDir())
	m, err := download.New(download.Options{StateDir: dir, Logger: c.log})
	if err != nil {
		return nil, fmt.Errorf("app: the downloads: %w", err)
	}
	c.downloads = m
	if c.downloadsOpened != nil {
		c.downloadsOpened(m)
	}
	return m, nil
}

// openDownloads returns the download manager if Downloads has opened it,
// else nil: a view that only reads the jobs does not open it.
func (c *core) openDownloads() *download.Manager {
	c.dlMu.Lock()
	defer c.dlMu.Unlock()
	return c.downloads
}

// closeDownloads stops the downloads, keeping their state for the next
// run; a later Downloads opens the manager again.
func (c *core) closeDownloads() {
	c.dlMu.Lock()
	m := c.downloads
	c.downloads = nil
	c.dlMu.Unlock()
	if m != nil {
		m.Close()
	}
}

// Close stops the downloads and the API, unloads the models and closes
// the database, once a settings change under way has finished: from then
// on neither SetSettings nor StartAPI opens anything again (their folders
// may be gone), nor Downloads. Closing again does nothing.
func (c *core) Close() error {
	c.setMu.Lock()
	defer c.setMu.Unlock()
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	c.dlMu.Lock()
	c.dlClosed = true
	c.dlMu.Unlock()
	c.closeDownloads()
	c.StopAPI()
	c.mu.Lock()
	c.closeEngine()
	c.mu.Unlock()
	return c.store.Close()
}

// apiServer is the local API's listener.
type apiServer struct {
	http *http.Server
	url  string
}

// StartAPI serves the engine over HTTP on the settings' host and port and
// returns its base URL. A host other than loopback needs an API key.
func (c *core) StartAPI() (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return "", errors.New("app: the app is closing; the server does not start")
	}
	if c.api != nil {
		return c.api.url, nil
	}
	s := c.settings
	host := s.Host
	if host == "" {
		host = "127.0.0.1"
	}
	if ip := net.ParseIP(host); (ip == nil || !ip.IsLoopback()) && host != "localhost" && len(s.APIKeys) == 0 {
		return "", errors.New("app: serving on " + host + " reaches other machines; add an API key first")
	}
	if err := os.MkdirAll(s.ModelsDir, 0o755); err != nil {
		return "", fmt.Errorf("app: the models folder: %w", err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(s.Port)))
	if err != nil {
		return "", fmt.Errorf("app: %w", err)
	}
	hs := server.NewHTTPServer(c.srv.Handler())
	go hs.Serve(ln)
	c.api = &apiServer{http: hs, url: "http://" + ln.Addr().String()}
	c.log.Info("app: API started", "url", c.api.url)
	return c.api.url, nil
}

// StopAPI stops the API listener, ending the requests it runs; the models
// stay loaded for the chat.
func (c *core) StopAPI() {
	c.mu.Lock()
	api := c.api
	c.api = nil
	c.mu.Unlock()
	if api == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := api.http.Shutdown(ctx); err != nil {
		api.http.Close()
	}
	c.log.Info("app: API stopped")
}

// APIURL returns the API's base URL, or "" when it is stopped.
func (c *core) APIURL() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.api == nil {
		return ""
	}
	return c.api.url
}

// EngineStats is a snapshot of the engine for the server panel.
type EngineStats struct {
	// Models are the loaded models' names; Placements say where each
	// runs ("GPU: 32/32 layers on cuda:0", "CPU (no NVIDIA driver
	// (libcuda.so.1 not found))").
	Models     []string
	Placements []string
	// Running and Waiting count sequences across the models.
	Running, Waiting int
	// Generated counts the tokens generated since the models loaded.
	Generated int64
	// KVUsed and KVTotal are the KV cache blocks held by running
	// sequences and in all; KVCached are kept for prefix reuse.
	KVUsed, KVCached, KVTotal int
	// HitRate is the prefix cache's share of prompt tokens served.
	HitRate float64
}

// Stats sums the loaded models' scheduler statistics.
func (c *core) Stats() EngineStats {
	var st EngineStats
	var query, hit int64
	for _, m := range c.Runner().Models() {
		st.Models = append(st.Models, m.Name)
		st.Placements = append(st.Placements, placementText(m.Info.Offload))
		s := m.Scheduler().Stats()
		st.Running += s.Running
		st.Waiting += s.Waiting
		st.Generated += s.GeneratedTokens
		for _, g := range s.KV.Groups {
			st.KVUsed += g.Used
			st.KVCached += g.Cached
			st.KVTotal += g.Total
		}
		query += s.KV.QueryTokens
		hit += s.KV.HitTokens
	}
	if query > 0 {
		st.HitRate = float64(hit) / float64(query)
	}
	return st
}

// Generator writes the chat's replies: the engine, or a fake in tests.
type Generator interface {
	// Generate streams the reply to req through emit (called from any
	// goroutine, one call at a time) and returns its statistics. Cancelling ctx stops it;
	// the text emitted so far stands.
	Generate(ctx context.Context, req ReplyRequest, emit func(Update)) (ReplyStats, error)
}

// ReplyRequest is one chat reply.
type ReplyRequest struct {
	// Model names a library model.
	Model string
	// System is the system prompt ("" for none).
	System string
	// Messages are the conversation's turns before the reply.
	Messages []chat.Message
	// Settings are the conversation's sampling settings; zero fields take
	// the defaults.
	Settings store.Settings
	// Continue says that the last of Messages is a reply cut short, which
	// the model goes on writing rather than answering it.
	Continue bool
}

// Update is one step of a reply: new text, or progress before the first
// token.
type Update struct {
	// Text is the reply's next text.
	Text string
	// Reasoning is the reply's next reasoning text: what a thinking model
	// thinks before it answers, shown apart from the answer.
	Reasoning string
	// Status, when set, says what is happening before the first token
	// ("Loading qwen2.5-0.5b...", "Reading the prompt...").
	Status string
	// Done and Total, when Total > 0, are the progress through Status.
	Done, Total int
}

// ReplyStats are a finished reply's figures, shown under it.
type ReplyStats struct {
	Tokens          int
	TokensPerSecond float64
	TTFT            time.Duration
	Total           time.Duration
	// Finish is "stop", "length" (the reply's token limit) or "context"
	// (the reply filled the room the context leaves it).
	Finish string
	// ReasoningTokens are the tokens of the reply's reasoning (included in
	// Tokens) and ReasoningTime the time from its first token to the
	// answer's.
	ReasoningTokens int
	ReasoningTime   time.Duration
	// Fit, set after the first reply of a model the chat loaded, compares
	// the fit planner's predictions with the measured memory and speed.
	Fit *fit.Measurement
	// DraftTokens are the tokens a draft model proposed (speculative
	// decoding) and AcceptedTokens those the model kept.
	DraftTokens, AcceptedTokens int
}

// Generate implements Generator with the engine: it loads the model if
// needed (reporting it), drops the oldest turns that do not fit the
// context, and streams the reply.
func (c *core) Generate(ctx context.Context, req ReplyRequest, emit func(Update)) (stats ReplyStats, err error) {
	defer recoverTo(&err, "the reply")
	var emitMu sync.Mutex // progress comes from the scheduler's goroutine
	emit = func(f func(Update)) func(Update) {
		return func(u Update) {
			emitMu.Lock()
			defer emitMu.Unlock()
			f(u)
		}
	}(emit)
	loading := !c.Loaded(req.Model)
	if loading {
		emit(Update{Status: "Loading " + req.Model + "..."})
	}
	m, err := c.LoadModel(req.Model)
	if err != nil {
		return ReplyStats{}, err
	}
	if loading {
		emit(Update{Status: placementStatus(m)})
	}
	st := req.Settings
	params := sample.Defaults()
	if st.Temperature > 0 {
		params.Temperature = st.Temperature
	}
	if st.TopP > 0 {
		params.TopP = st.TopP
	}
	maxTokens := st.MaxTokens
	limit := m.Info.Context
	if st.Context > 0 && st.Context < limit {
		limit = st.Context
	}
	// A reply may take up to half the context; the older turns that leave
	// less room for it are dropped below.
	if maxTokens <= 0 || maxTokens > limit/2 {
		maxTokens = max(limit/2, 1)
	}
	msgs := req.Messages
	// A reply continued is its prompt's tail: the turns before it with
	// the generation prompt, then its text so far.
	var tail []int32
	if n := len(msgs); req.Continue && n > 0 && msgs[n-1].Role == "assistant" {
		tail = m.Tokenizer().Encode(msgs[n-1].Content, false, false)
		msgs = msgs[:n-1]
	}
	var system []chat.Message
	if req.System != "" {
		system = []chat.Message{{Role: "system", Content: req.System}}
	}
	// Keep the most recent turns that leave room for the reply. The tokens
	// counted for the turns kept are the prompt.
	var prompt []int32
	var all []chat.Message
	for {
		all = append(slices.Clip(system), msgs...)
		p, err := m.Prompt(ctx, runner.Request{Messages: all})
		if err != nil {
			return ReplyStats{}, err
		}
		if len(p)+len(tail)+maxTokens <= limit || len(msgs) <= 1 {
			prompt = append(p, tail...)
			break
		}
		msgs = msgs[1:]
	}
	gr := runner.Request{Tokens: prompt, MaxTokens: maxTokens, Sampling: params,
		Progress: func(done, total int) {
			if total >= 64 {
				emit(Update{Status: "Reading the prompt...", Done: done, Total: total})
			}
		}}
	if hasPictures(all) {
		// The runner reads the pictures with the turns (and refuses them
		// to a model that cannot see), from the messages: a reply's text
		// so far cannot follow them.
		if tail != nil {
			return ReplyStats{}, errors.New("app: a reply to a conversation with pictures cannot be continued: regenerate it with a longer reply length")
		}
		gr.Tokens, gr.Messages = nil, all
	}
	var think thinkClock
	res, err := m.Generate(ctx, gr, func(p runner.Piece) error {
		think.piece(p, time.Now())
		if p.Text != "" || p.Reasoning != "" {
			emit(Update{Text: p.Text, Reasoning: p.Reasoning})
		}
		return nil
	})
	stats = ReplyStats{Tokens: res.CompletionTokens, TTFT: res.FirstToken, Total: res.Total, Finish: res.Finish,
		DraftTokens: res.DraftTokens, AcceptedTokens: res.AcceptedTokens}
	if res.Finish == "length" && (st.MaxTokens <= 0 || st.MaxTokens > maxTokens) {
		stats.Finish = "context" // the limit was the context's, not the settings'
	}
	stats.ReasoningTokens, stats.ReasoningTime = think.tokens, think.took(time.Now())
	if res.GenTime > 0 && res.CompletionTokens > 1 {
		stats.TokensPerSecond = float64(res.CompletionTokens-1) / res.GenTime.Seconds()
	}
	if err == nil {
		stats.Fit = c.checkFit(ctx, m, res.PromptTokens+res.CompletionTokens, stats.TokensPerSecond)
	}
	return stats, err
}

// thinkClock times a reply's reasoning: it counts the tokens of the pieces
// that carry only reasoning, from the first of them to the first piece of
// the answer.
type thinkClock struct {
	tokens     int
	start, end time.Time
}

// piece takes the next piece of the reply, streamed at now.
func (c *thinkClock) piece(p runner.Piece, now time.Time) {
	switch {
	case !c.end.IsZero():
	case p.Text != "":
		if !c.start.IsZero() {
			c.end = now
		}
	case p.Reasoning != "" || (!c.start.IsZero() && len(p.Tokens) > 0):
		if c.start.IsZero() {
			c.start = now
		}
		c.tokens += len(p.Tokens)
	}
}

// took is how long the reasoning lasted, until now if the answer has not
// started.
func (c *thinkClock) took(now time.Time) time.Duration {
	switch {
	case c.start.IsZero():
		return 0
	case c.end.IsZero():
		return now.Sub(c.start)
	}
	return c.end.Sub(c.start)
}

// Machine describes this computer for the fit planner: the first call
// starts the detection (CPU, memory and, in the app, the GPUs and the
// memory bandwidth, which take a second or so) in the background, and
// every call waits for that one answer or for ctx. Call it off the UI
// goroutine; MachineKnown does not wait.
func (c *core) Machine(ctx context.Context) (hardware.Machine, error) {
	c.machineMu.Lock()
	r := c.machine
	if r == nil {
		r = &machineResult{done: make(chan struct{})}
		c.machine = r
		go func() {
			defer recoverTo(new(error), "detecting the machine")
			m, err := c.detect(context.Background())
			if err != nil {
				c.log.Warn("app: detecting the machine", "err", err)
			}
			r.m = m
			close(r.done)
		}()
	}
	c.machineMu.Unlock()
	select {
	case <-r.done:
		return r.m, nil
	case <-ctx.Done():
		return hardware.Machine{}, fmt.Errorf("app: detecting the machine: %w", ctx.Err())
	}
}

// MachineKnown returns the machine if its detection has finished.
func (c *core) MachineKnown() (hardware.Machine, bool) {
	c.machineMu.Lock()
	r := c.machine
	c.machineMu.Unlock()
	if r == nil {
		return hardware.Machine{}, false
	}
	select {
	case <-r.done:
		return r.m, true
	default:
		return hardware.Machine{}, false
	}
}

// fitCheck is a model the chat loaded, waiting for its first reply to
// compare the planner's predictions with what it measured.
type fitCheck struct {
	// baseline is the process's resident memory before the model loaded
	// (0: unknown).
	baseline int64
	// ready is closed once plan and err are set.
	ready chan struct{}
	plan  fit.Plan
	err   error
}

// Loaded says whether the model called name is loaded.
func (c *core) Loaded(name string) bool {
	return c.Runner().Loaded(name)
}

// LoadModel returns the model called name, loading it if needed (the
// chat's path: Generate and the chat's preload). A model it loads is
// planned (its GGUF header, the context of the settings, this machine)
// and compared with the measurements after its first reply (checkFit):
// the resident memory read before loading is the baseline subtracted
// from the one after, so other models and the app's own windows do not
// count.
func (c *core) LoadModel(name string) (_ *runner.Model, err error) {
	defer recoverTo(&err, "loading "+name)
	run := c.Runner()
	if run.Loaded(name) {
		return run.Model(name)
	}
	baseline, err := fit.ResidentSetSize()
	if err != nil {
		c.log.Debug("app: reading the resident memory", "err", err)
	}
	m, err := run.Model(name)
	if err != nil {
		return nil, err
	}
	if m.Info.Offload.Layers > 0 {
		// The planner's resident memory and speed are the CPU's.
		c.log.Debug("app: no fit check for a model on the GPU", "model", m.Name, "placement", m.Info.Offload.String())
		return m, nil
	}
	loaded := run.Models()
	c.fitMu.Lock()
	for old := range c.fitChecks {
		if !slices.Contains(loaded, old) {
			delete(c.fitChecks, old) // unloaded before its first reply
		}
	}
	if _, ok := c.fitChecks[m]; ok {
		c.fitMu.Unlock()
		return m, nil
	}
	fc := &fitCheck{baseline: baseline, ready: make(chan struct{})}
	c.fitChecks[m] = fc
	c.fitMu.Unlock()
	go func() {
		defer close(fc.ready)
		defer recoverTo(&fc.err, "planning "+m.Name)
		fc.plan, fc.err = c.planLoaded(m)
	}()
	return m, nil
}

// planLoaded plans the loaded model m as the engine runs it.
func (c *core) planLoaded(m *runner.Model) (fit.Plan, error) {
	shape, err := m.Shape() // read from the header at load: no file opened again
	if err != nil {
		return fit.Plan{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), fitCheckWait)
	defer cancel()
	machine, err := c.Machine(ctx)
	if err != nil {
		return fit.Plan{}, err
	}
	s := c.Settings()
	if s.Threads > 0 {
		machine.CPU.Threads = s.Threads
	}
	// The engine runs on the CPU: plan it there, with the settings its
	// scheduler runs with.
	return fit.PlanFor(shape, machine, fit.SchedulerRequest(m.Scheduler().Config(), 0))
}

// scheduler is the scheduler configuration the app loads models with:
// the desktop profile (one conversation of the context and a reserve, for
// a few sequences at once) at the settings' context.
func (s Settings) scheduler() scheduler.Config {
	return scheduler.Config{Context: s.Context, Parallel: 1}
}

// fitCheckWait bounds how long the comparison waits for the plan (the
// machine's detection, normally done long before).
const fitCheckWait = 20 * time.Second

// checkFit compares, after the first reply of a model LoadModel loaded,
// the plan with the process's resident memory (over the baseline) with
// tokens in the cache and the measured decode speed; it logs the figures
// ("app: fit check") and returns them, or nil for later replies and when
// the plan failed.
func (c *core) checkFit(ctx context.Context, m *runner.Model, tokens int, tokensPerSec float64) *fit.Measurement {
	c.fitMu.Lock()
	fc := c.fitChecks[m]
	delete(c.fitChecks, m)
	c.fitMu.Unlock()
	if fc == nil {
		return nil
	}
	rss, err := fit.ResidentSetSize()
	if err != nil {
		c.log.Warn("app: fit check", "model", m.Name, "err", err)
		return nil
	}
	select {
	case <-fc.ready:
	case <-ctx.Done():
		return nil
	case <-time.After(fitCheckWait):
		c.log.Warn("app: fit check", "model", m.Name, "err", "the plan took too long")
		return nil
	}
	if fc.err != nil {
		c.log.Warn("app: fit check", "model", m.Name, "err", fc.err)
		return nil
	}
	meas := fc.plan.Compare(tokens, rss, fc.baseline, tokensPerSec)
	c.log.Info("app: fit check", "model", m.Name, "tokens", tokens,
		"predicted_mb", meas.Predicted/1_000_000, "measured_mb", meas.RSS/1_000_000,
		"predicted_tps", meas.PredictedTokensPerSec, "measured_tps", meas.DecodeTokensPerSec,
		"baseline_mb", meas.Baseline/1_000_000, "verdict", fc.plan.Verdict.String())
	return &meas
}

// fitCheckText says a fit check's figures in a line under the reply,
// for people: what the model takes and how fast it wrote. The planner's
// predictions beside them go to the log ("app: fit check"). The memory
// is the process's growth since the model loaded, which the runtime can
// shrink by more than a small model takes: a growth of nothing is not
// said ("takes about 0 B of memory").
func fitCheckText(m *fit.Measurement) string {
	if m.RSS <= 0 {
		return fmt.Sprintf("This model wrote %s.", fit.SpeedText(m.DecodeTokensPerSec))
	}
	return fmt.Sprintf("This model takes about %s of memory and wrote %s.", units.Bytes(m.RSS), fit.SpeedText(m.DecodeTokensPerSec))
}

// placementText says where a loaded model runs, for people: "on the GPU
// (cuda:0)", "partly on the GPU (20 of 32 layers, on cuda:0)", "on the
// processor". Why a GPU holds none of it is said only when there is one
// (its free memory); a machine without a GPU driver needs no reason.
func placementText(p offload.Placement) string {
	switch {
	case p.Layers > 0 && p.Layers >= p.Of:
		return "on the GPU (" + p.Device + ")"
	case p.Layers > 0:
		return fmt.Sprintf("partly on the GPU (%d of %d layers, on %s)", p.Layers, p.Of, p.Device)
	case p.Device != "" && p.Note != "":
		return "on the processor: " + p.Note
	}
	return "on the processor"
}

// placementStatus says where a loaded model runs, for the chat: "Running
// on the GPU (cuda:0)", "Running on the processor".
func placementStatus(m *runner.Model) string {
	return "Running " + placementText(m.Info.Offload)
}

// hasPictures reports whether msgs carry a picture.
func hasPictures(msgs []chat.Message) bool {
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p.Image != nil {
				return true
			}
		}
	}
	return false
}
