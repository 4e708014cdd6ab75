package download

import (
	"cmp"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"saji/engine/hardware"
)

// Defaults of Options.
const (
	DefaultConnections = 4
	DefaultChunkSize   = 16 << 20
	DefaultMaxActive   = 2
	DefaultRetries     = 6
	DefaultBackoff     = 500 * time.Millisecond
	DefaultMaxBackoff  = 30 * time.Second
)

// spaceMargin is the free space a download leaves on its disk on top of
// the bytes it still has to write.
const spaceMargin = 64 << 20

// Options configure a Manager. The zero value of each field picks its
// default.
type Options struct {
	// StateDir is where the jobs' state lives: a JSON file per job and
	// the job's .part file. It is created if missing. Required.
	StateDir string
	// Connections is the number of parallel ranged requests per file
	// (default 4).
	Connections int
	// ChunkSize is the size of each ranged request (default 16 MiB). A
	// file smaller than two chunks uses one connection.
	ChunkSize int64
	// MaxActive is the number of downloads running at once (default 2);
	// the others wait in a queue.
	MaxActive int
	// Retries is how many times a failed request is repeated before the
	// job fails (default 6; a request that made progress starts its count
	// again). Negative means no retries.
	Retries int
	// Backoff is the delay before the first retry (default 0.5s); it
	// doubles at each retry up to MaxBackoff (default 30s), with jitter.
	// A Retry-After header from the server takes precedence.
	Backoff, MaxBackoff time.Duration
	// AutoResume queues the jobs restored from StateDir by New; without
	// it they are restored paused, for the person (or Start) to resume.
	AutoResume bool
	// HTTP is the client used for every request (default: a client of
	// its own that keeps every connection alive between chunks). Set no
	// overall Timeout on it: a large file takes long; the manager drops a
	// response that sends nothing for a minute. Its CheckRedirect is
	// wrapped so that the request's headers reach only the first host.
	HTTP *http.Client
	// Logger receives retries and other events (default: discarded).
	Logger *slog.Logger
	// FreeSpace returns the bytes free for the user on the disk holding
	// dir (default: hardware.DiskFree); tests stand in a full disk. When it
	// fails the check is skipped and a full disk is caught by the writes.
	FreeSpace func(dir string) (uint64, error)
}

// Request describes one file to download.
type Request struct {
	// ID is the job's stable key (e.g. "repo/path@rev"): starting the
	// same ID again returns the running job or resumes the stopped one.
	ID string
	// URL is the file's address. It is resolved again (redirects and all)
	// on every retry, as a signed CDN address may expire.
	URL string
	// Header is sent with every request to URL's host (a token); it is
	// not sent to the hosts a redirect leads to, and not saved to disk.
	Header http.Header
	// Size is the expected size in bytes; 0 means unknown, and the first
	// response decides (such a file is fetched with one connection).
	Size int64
	// SHA256 is the expected hex digest of the file; "" skips the check.
	SHA256 string
	// Dest is the final path. It is written only by a rename once the
	// whole file is there and its hash matched; its folder is created.
	Dest string
	// Meta is kept with the job's state, for the caller (for example the
	// repository, file and quantization shown in a downloads list).
	Meta map[string]string
}

// clone returns a deep copy of r.
func (r Request) clone() Request {
	r.Header = r.Header.Clone()
	if r.Meta != nil {
		meta := make(map[string]string, len(r.Meta))
		for k, v := range r.Meta {
			meta[k] = v
		}
		r.Meta = meta
	}
	return r
}

// validate checks the fields a download cannot do without.
func (r Request) validate() error {
	if r.ID == "" {
		return errors.New("download: the request has no ID")
	}
	u, err := url.Parse(r.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("download: %s: not an http(s) URL: %q", r.ID, redact(r.URL))
	}
	if r.Dest == "" {
		return fmt.Errorf("download: %s: the request has no destination", r.ID)
	}
	if r.Size < 0 {
		return fmt.Errorf("download: %s: negative size %d", r.ID, r.Size)
	}
	if r.SHA256 != "" {
		if b, err := hex.DecodeString(r.SHA256); err != nil || len(b) != 32 {
			return fmt.Errorf("download: %s: %q is not a hex sha256", r.ID, r.SHA256)
		}
	}
	return nil
}

// Manager runs downloads: at most Options.MaxActive at once, the others
// queued. Its methods are safe for concurrent use.
type Manager struct {
	opts      Options
	client    *http.Client
	log       *slog.Logger
	freeSpace func(dir string) (uint64, error)
	// writeAt writes to a .part file; tests replace it to fail writes.
	writeAt func(f *os.File, p []byte, off int64) (int, error)
	// sameDisk reports whether two folders are on one file system (the
	// file is then renamed into place, not copied); tests replace it.
	sameDisk func(a, b string) bool
	// stall is how long a response may send nothing before it is dropped
	// and retried.
	stall time.Duration

	ctx  context.Context // cancelled by Close
	stop context.CancelCauseFunc
	wg   sync.WaitGroup // the running jobs

	mu     sync.Mutex
	jobs   map[string]*Job
	queue  []*Job
	active int
	closed bool

	// wmu guards watchers, the channels of Changes. It is taken last,
	// after m.mu and a job's lock.
	wmu      sync.Mutex
	watchers map[chan struct{}]bool
	wclosed  bool
}

// New returns a Manager keeping its state in opts.StateDir, with the jobs
// found there restored (paused, or queued with Options.AutoResume).
func New(opts Options) (*Manager, error) {
	if opts.StateDir == "" {
		return nil, errors.New("download: Options.StateDir is empty")
	}
	if err := os.MkdirAll(opts.StateDir, 0o755); err != nil {
		return nil, fmt.Errorf("download: state folder: %w", err)
	}
	if opts.Connections <= 0 {
		opts.Connections = DefaultConnections
	}
	if opts.ChunkSize <= 0 {
		opts.ChunkSize = DefaultChunkSize
	}
	if opts.MaxActive <= 0 {
		opts.MaxActive = DefaultMaxActive
	}
	if opts.Retries == 0 {
		opts.Retries = DefaultRetries
	} else if opts.Retries < 0 {
		opts.Retries = 0
	}
	if opts.Backoff <= 0 {
		opts.Backoff = DefaultBackoff
	}
	if opts.MaxBackoff <= 0 {
		opts.MaxBackoff = DefaultMaxBackoff
	}
	opts.MaxBackoff = max(opts.MaxBackoff, opts.Backoff)
	m := &Manager{
		opts:      opts,
		log:       cmp.Or(opts.Logger, slog.New(slog.DiscardHandler)),
		freeSpace: opts.FreeSpace,
		writeAt:   func(f *os.File, p []byte, off int64) (int, error) { return f.WriteAt(p, off) },
		sameDisk:  sameDisk,
		stall:     time.Minute,
		jobs:      make(map[string]*Job),
		watchers:  make(map[chan struct{}]bool),
	}
	if m.freeSpace == nil {
		m.freeSpace = hardware.DiskFree
	}
	hc := opts.HTTP
	if hc == nil {
		// Room to keep every connection of every running job alive.
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = opts.Connections * opts.MaxActive
		hc = &http.Client{Transport: t}
	}
	m.client = headerGuard(hc)
	m.ctx, m.stop = context.WithCancelCause(context.Background())
	if err := m.restore(); err != nil {
		return nil, err
	}
	return m, nil
}

// ctxKey is the type of the request context key that carries the names
// of the headers to drop on a redirect to another host.
type ctxKey struct{}

// headerGuard returns a copy of c (or of a default client) whose
// redirects drop the request's own headers once they lead away from the
// first host. net/http already drops Authorization and cookies when the
// new host is not the first one or its subdomain; this also covers other
// headers and sibling subdomains.
func headerGuard(c *http.Client) *http.Client {
	var cc http.Client
	if c != nil {
		cc = *c
	}
	next := cc.CheckRedirect
	cc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if keys, ok := req.Context().Value(ctxKey{}).([]string); ok && req.URL.Host != via[0].URL.Host {
			for _, k := range keys {
				req.Header.Del(k)
			}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("download: stopped after 10 redirects")
		}
		return nil
	}
	return &cc
}

// Start queues the download req describes and returns its job at once. A
// job with the same ID that is queued or running is returned as it is; one
// that is paused or failed (also one restored from StateDir) resumes, with
// req's URL and Header (a fresh token or signed URL). If Size or SHA256
// differ from the stopped job's, its partial data is dropped first.
func (m *Manager) Start(req Request) (*Job, error) {
	if err := req.validate(); err != nil {
		return nil, err
	}
	req = req.clone()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	j := m.jobs[req.ID]
	if j == nil {
		j = newJob(m, req, time.Now())
		m.jobs[req.ID] = j
		if err := j.saveStateLocked(); err != nil {
			m.log.Warn("download: saving state", "id", req.ID, "err", err)
		}
		m.enqueue(j)
		return j, nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	switch j.state {
	case Queued:
		return j, nil
	case Running, Verifying:
		if j.want == wantPause {
			j.want = wantRestart
		}
		return j, nil
	case Done:
		if fi, err := os.Stat(j.req.Dest); err == nil && fi.Mode().IsRegular() && j.req.Dest == req.Dest {
			return j, nil
		}
	}
	if req.Meta == nil {
		req.Meta = j.req.Meta
	}
	changed := req.Size != j.req.Size || !strings.EqualFold(req.SHA256, j.req.SHA256) || j.state == Done
	j.req = req
	if changed {
		j.resetLocked()
		_ = os.Remove(j.partPath())
	}
	if err := j.saveStateLocked(); err != nil {
		m.log.Warn("download: saving state", "id", req.ID, "err", err)
	}
	m.enqueueLocked(j)
	return j, nil
}

// Jobs returns every known job, oldest first: the ones started since New
// and the ones restored from StateDir. Cancelled jobs are forgotten.
func (m *Manager) Jobs() []*Job {
	m.mu.Lock()
	jobs := make([]*Job, 0, len(m.jobs))
	for _, j := range m.jobs {
		jobs = append(jobs, j)
	}
	m.mu.Unlock()
	slices.SortFunc(jobs, func(a, b *Job) int {
		return cmp.Or(a.created.Compare(b.created), strings.Compare(a.id, b.id))
	})
	return jobs
}

// Close stops the running downloads, saving their state so that a later
// Manager on the same StateDir resumes them, and waits for them to stop.
// Jobs that have not finished stay on disk; Wait on them returns
// ErrClosed.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	m.stop(ErrClosed)
	m.mu.Unlock()
	m.wg.Wait()
	if m.opts.HTTP == nil {
		m.client.CloseIdleConnections()
	}
	for _, j := range m.Jobs() {
		j.mu.Lock()
		j.closed = true
		if j.state == Queued {
			j.state = Paused
		}
		j.notifyLocked()
		j.mu.Unlock()
	}
	m.wmu.Lock()
	m.wclosed = true
	for ch := range m.watchers {
		close(ch)
		delete(m.watchers, ch)
	}
	m.wmu.Unlock()
	return nil
}

// Changes returns a channel that receives a signal whenever a job is
// added, changes state, makes progress or is forgotten, and a function
// that ends the subscription. Signals coalesce: a reader that is busy
// gets one signal for many changes, and reads Jobs and their Progress for
// the state itself. The channel is closed by Close or by the returned
// function.
func (m *Manager) Changes() (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	m.wmu.Lock()
	defer m.wmu.Unlock()
	if m.wclosed {
		close(ch)
		return ch, func() {}
	}
	m.watchers[ch] = true
	return ch, func() {
		m.wmu.Lock()
		defer m.wmu.Unlock()
		if m.watchers[ch] {
			delete(m.watchers, ch)
			close(ch)
		}
	}
}

// changed signals the watchers of Changes without blocking. Any lock may
// be held but wmu.
func (m *Manager) changed() {
	m.wmu.Lock()
	defer m.wmu.Unlock()
	for ch := range m.watchers {
		select {
		case ch <- struct{}{}:
		default: // a signal is pending already
		}
	}
}

// Forget drops the finished job id from Jobs (the file it wrote stays)
// and says whether it did: a job in any other state is kept.
func (m *Manager) Forget(id string) bool {
	m.mu.Lock()
	j := m.jobs[id]
	forget := false
	if j != nil {
		j.mu.Lock()
		forget = j.state == Done
		j.mu.Unlock()
	}
	if forget {
		delete(m.jobs, id)
	}
	m.mu.Unlock()
	if forget {
		m.changed()
	}
	return forget
}

// enqueue takes m.mu's job j's lock and queues it.
func (m *Manager) enqueue(j *Job) {
	j.mu.Lock()
	m.enqueueLocked(j)
	j.mu.Unlock()
}

// enqueueLocked queues j (m.mu and j.mu held) and starts what may start.
func (m *Manager) enqueueLocked(j *Job) {
	j.err = nil
	j.setStateLocked(Queued)
	m.queue = append(m.queue, j)
	m.scheduleLocked(j)
}

// scheduleLocked starts queued jobs while fewer than MaxActive run. m.mu
// is held, and so is held's lock (nil for none).
func (m *Manager) scheduleLocked(held *Job) {
	for !m.closed && m.active < m.opts.MaxActive && len(m.queue) > 0 {
		j := m.queue[0]
		m.queue = m.queue[1:]
		if j != held {
			j.mu.Lock()
		}
		ctx, cancel := context.WithCancelCause(m.ctx)
		j.cancel = cancel
		j.want = wantNone
		j.setStateLocked(Running)
		if j != held {
			j.mu.Unlock()
		}
		m.active++
		m.wg.Add(1)
		go m.run(ctx, j)
	}
}

// dequeueLocked removes j from the queue (m.mu held).
func (m *Manager) dequeueLocked(j *Job) {
	m.queue = slices.DeleteFunc(m.queue, func(q *Job) bool { return q == j })
}

// run downloads j and records how it ended.
func (m *Manager) run(ctx context.Context, j *Job) {
	defer m.wg.Done()
	err := m.download(ctx, j)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.active--
	j.mu.Lock()
	j.cancel(context.Canceled)
	j.cancel = nil
	want := j.want
	j.want = wantNone
	switch {
	case err == nil:
		j.setStateLocked(Done)
		m.log.Info("download: done", "id", j.id, "dest", j.req.Dest)
	case want == wantCancel:
		j.removeFilesLocked()
		delete(m.jobs, j.id)
		j.err = ErrCancelled
		j.setStateLocked(Cancelled)
	case m.closed || want == wantPause:
		j.setStateLocked(Paused)
	case want == wantRestart:
		j.mu.Unlock()
		m.enqueue(j)
		j.mu.Lock()
	default:
		j.err = err
		j.setStateLocked(Failed)
		m.log.Warn("download: failed", "id", j.id, "err", err)
	}
	j.mu.Unlock()
	m.scheduleLocked(nil)
}
