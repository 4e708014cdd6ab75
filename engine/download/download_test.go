package download

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// testChunk is the chunk size of the tests' managers.
const testChunk = 64 << 10

// payload returns n reproducible pseudo-random bytes and their sha256.
func payload(n int, seed uint64) ([]byte, string) {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	sum := sha256.Sum256(b)
	return b, hex.EncodeToString(sum[:])
}

// newManager returns a manager on a fresh state folder (or dir), with
// small chunks, fast retries and plenty of (injected) free space.
func newManager(t *testing.T, dir string, tweak func(*Options)) *Manager {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	opts := Options{
		StateDir:   dir,
		ChunkSize:  testChunk,
		Backoff:    time.Millisecond,
		MaxBackoff: 5 * time.Millisecond,
		FreeSpace:  func(string) (uint64, error) { return 1 << 40, nil },
	}
	if tweak != nil {
		tweak(&opts)
	}
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// wait waits for j with a generous bound (a hang is a failure, not a
// timing assertion).
func wait(t *testing.T, j *Job) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := j.Wait(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("job %s did not finish: %+v", j.ID(), j.Progress())
	}
	return err
}

// waitFor waits until cond holds for j's progress.
func waitFor(t *testing.T, j *Job, what string, cond func(Progress) bool) Progress {
	t.Helper()
	ch, stop := j.Subscribe()
	defer stop()
	timeout := time.After(time.Minute)
	for {
		if p := j.Progress(); cond(p) {
			return p
		}
		select {
		case <-ch:
		case <-timeout:
			t.Fatalf("job %s: waiting for %s: %+v", j.ID(), what, j.Progress())
		}
	}
}

// noFile fails unless path does not exist.
func noFile(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("%s exists (%v)", path, err)
	}
}

// checkDest fails unless dest holds data.
func checkDest(t *testing.T, dest string, data []byte) {
	t.Helper()
	got, err := os.ReadFile(dest)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("%s: %d bytes differ from the %d served", dest, len(got), len(data))
	}
}

func TestDownload(t *testing.T) {
	const size = 5*testChunk + 1234 // six chunks, the last one short
	tests := []struct {
		name     string
		spec     func(data []byte) *fileSpec
		unsized  bool // Request.Size = 0
		noHash   bool // Request.SHA256 = ""
		conns    int
		wantErr  error
		wantMsg  string // in the error
		requests int    // exact number of requests when > 0
		attempts int    // at least this many Progress.Attempts
		check    func(t *testing.T, s *testServer)
	}{
		{name: "parallel ranges", spec: func(d []byte) *fileSpec { return &fileSpec{data: d} }, requests: 6},
		{name: "one connection", spec: func(d []byte) *fileSpec { return &fileSpec{data: d} }, conns: 1, requests: 6},
		{
			name: "connection cut mid-chunk resumes",
			spec: func(d []byte) *fileSpec { return &fileSpec{data: d, cutAfter: 1000, cuts: 3} }, attempts: 3,
			check: func(t *testing.T, s *testServer) {
				mid := false
				for _, r := range s.requests("/f") {
					if strings.HasSuffix(strings.SplitN(r.rng, "-", 2)[0], "1000") {
						mid = true
					}
				}
				if !mid {
					t.Errorf("no request resumed mid-chunk: %+v", s.requests("/f"))
				}
				if got := s.served.Load(); got >= size+3*1000+1 {
					t.Errorf("served %d bytes for a %d-byte file cut 3 times at 1000", got, size)
				}
			},
		},
		{name: "503 is retried", spec: func(d []byte) *fileSpec { return &fileSpec{data: d, fail: 3} }, conns: 1, attempts: 3, requests: 9},
		{name: "429 honours Retry-After", spec: func(d []byte) *fileSpec {
			return &fileSpec{data: d, fail: 2, failStatus: http.StatusTooManyRequests, retryAfter: "0"}
		}, conns: 1, attempts: 2},
		{name: "server ignores Range", spec: func(d []byte) *fileSpec { return &fileSpec{data: d, noRange: true} }},
		{name: "server ignores Range and drops the connection", spec: func(d []byte) *fileSpec {
			return &fileSpec{data: d, noRange: true, cutAfter: 3 * testChunk, cuts: 3}
		}, conns: 1, attempts: 2},
		{name: "corrupted bytes are fetched again", spec: func(d []byte) *fileSpec {
			return &fileSpec{data: d, flipAt: 3*testChunk + 7, flips: 1}
		}, attempts: 1, requests: 12},
		{name: "corrupted twice fails", spec: func(d []byte) *fileSpec {
			return &fileSpec{data: d, flipAt: 7, flips: -1}
		}, wantErr: ErrChecksum, wantMsg: "corrupted twice", requests: 12},
		{name: "corruption unnoticed without a hash", spec: func(d []byte) *fileSpec {
			return &fileSpec{data: d}
		}, noHash: true},
		{name: "unknown size", spec: func(d []byte) *fileSpec { return &fileSpec{data: d} }, unsized: true, requests: 1},
		{name: "unknown size resumes", spec: func(d []byte) *fileSpec {
			return &fileSpec{data: d, cutAfter: 5000, cuts: 1}
		}, unsized: true, requests: 2, attempts: 1},
		{name: "404 fails at once", spec: func(d []byte) *fileSpec { return &fileSpec{status: 404} }, wantErr: ErrHTTP, wantMsg: "does not exist", requests: 1},
		{name: "401 fails at once", spec: func(d []byte) *fileSpec { return &fileSpec{status: 401} }, wantErr: ErrHTTP, wantMsg: "needs a token", requests: 1, conns: 1},
		{name: "403 fails at once", spec: func(d []byte) *fileSpec { return &fileSpec{status: 403} }, wantErr: ErrHTTP, wantMsg: "gated model", requests: 1, conns: 1},
		{name: "503 forever gives up", spec: func(d []byte) *fileSpec { return &fileSpec{data: d, fail: 1000} }, conns: 1, wantErr: ErrHTTP, wantMsg: "gave up after 3 tries", requests: 3},
		{name: "size differs from the listing", spec: func(d []byte) *fileSpec {
			return &fileSpec{data: d, size: size + 1}
		}, conns: 1, wantMsg: "should have", requests: 1},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, sum := payload(size, uint64(i))
			s := newTestServer(t)
			u := s.add("/f", tc.spec(data))
			m := newManager(t, "", func(o *Options) {
				o.Connections = tc.conns
				o.Retries = 2
				if tc.wantErr == nil {
					o.Retries = 6
				}
			})
			dest := filepath.Join(t.TempDir(), "lib", "model.gguf")
			req := Request{ID: "repo/model.gguf@main", URL: u, Size: size, SHA256: sum, Dest: dest, Meta: map[string]string{"quant": "Q4_K_M"}}
			if tc.unsized {
				req.Size = 0
			}
			if tc.noHash {
				req.SHA256 = ""
			}
			j, err := m.Start(req)
			if err != nil {
				t.Fatal(err)
			}
			err = wait(t, j)
			p := j.Progress()
			if tc.wantErr != nil || tc.wantMsg != "" {
				if err == nil || (tc.wantErr != nil && !errors.Is(err, tc.wantErr)) || !strings.Contains(err.Error(), tc.wantMsg) {
					t.Fatalf("err = %v, want %v containing %q", err, tc.wantErr, tc.wantMsg)
				}
				if !strings.HasPrefix(err.Error(), "download: ") {
					t.Errorf("err %q lacks the package prefix", err)
				}
				if p.State != Failed || !errors.Is(p.Err, err) {
					t.Errorf("progress %+v, want Failed with %v", p, err)
				}
				noFile(t, dest)
			} else {
				if err != nil {
					t.Fatalf("Wait: %v", err)
				}
				checkDest(t, dest, data)
				if p.State != Done || p.Done != size || p.Total != size {
					t.Errorf("progress %+v, want Done %d/%d", p, size, size)
				}
				noFile(t, j.partPath())
				noFile(t, j.statePath())
			}
			if tc.requests > 0 {
				if got := len(s.requests("/f")); got != tc.requests {
					t.Errorf("%d requests, want %d: %+v", got, tc.requests, s.requests("/f"))
				}
			}
			if p.Attempts < tc.attempts {
				t.Errorf("Attempts = %d, want at least %d", p.Attempts, tc.attempts)
			}
			if errors.Is(tc.wantErr, ErrChecksum) {
				noFile(t, j.partPath())
				noFile(t, j.statePath())
			}
			if tc.check != nil {
				tc.check(t, s)
			}
		})
	}
}

func TestHTTPErrorStatus(t *testing.T) {
	s := newTestServer(t)
	u := s.add("/gated", &fileSpec{status: http.StatusUnauthorized})
	m := newManager(t, "", nil)
	j, err := m.Start(Request{ID: "gated", URL: u + "?sig=secret", Size: 10, Dest: filepath.Join(t.TempDir(), "x")})
	if err != nil {
		t.Fatal(err)
	}
	err = wait(t, j)
	var he *HTTPError
	if !errors.As(err, &he) || he.StatusCode != http.StatusUnauthorized {
		t.Fatalf("err = %v, want an *HTTPError 401", err)
	}
	if strings.Contains(err.Error(), "secret") {
		t.Errorf("the error shows the URL's query: %v", err)
	}
}

func TestRedirectKeepsHeadersOnFirstHost(t *testing.T) {
	data, sum := payload(3*testChunk, 7)
	cdn := newTestServer(t)
	cdn.add("/f", &fileSpec{data: data})
	hub := newTestServer(t)
	tests := []struct{ name, target string }{
		// net/http itself drops Authorization on a redirect to another host.
		{"another host name", strings.Replace(cdn.URL, "127.0.0.1", "localhost", 1)},
		// The same address on another port: net/http keeps Authorization
		// (it compares host names only); the manager's guard drops it.
		{"another port", cdn.URL},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := "/r" + string(rune('0'+i))
			u := hub.add(path, &fileSpec{redirect: tc.target})
			cdn.add(path, &fileSpec{data: data})
			m := newManager(t, "", nil)
			dest := filepath.Join(t.TempDir(), "m.gguf")
			h := http.Header{}
			h.Set("Authorization", "Bearer hf_secret")
			h.Set("X-Custom", "also-secret")
			j, err := m.Start(Request{ID: "r", URL: u, Header: h, Size: int64(len(data)), SHA256: sum, Dest: dest})
			if err != nil {
				t.Fatal(err)
			}
			if err := wait(t, j); err != nil {
				t.Fatal(err)
			}
			checkDest(t, dest, data)
			for _, r := range hub.requests(path) {
				if r.auth != "Bearer hf_secret" || r.custom != "also-secret" {
					t.Errorf("the first host got %+v, want the headers", r)
				}
			}
			reqs := cdn.requests(path)
			if len(reqs) == 0 {
				t.Fatal("the redirect target got no request")
			}
			for _, r := range reqs {
				if r.auth != "" || r.custom != "" {
					t.Errorf("the redirect target got the request's headers: %+v", r)
				}
			}
		})
	}
}

// TestExpiredRedirect checks that a redirect target refusing a (signed,
// expired) address is resolved again from the first URL, while a refusal
// from the first host fails at once.
func TestExpiredRedirect(t *testing.T) {
	data, sum := payload(3*testChunk, 8)
	cdn := newTestServer(t)
	cdn.add("/f", &fileSpec{data: data, fail: 2, failStatus: http.StatusForbidden})
	hub := newTestServer(t)
	u := hub.add("/f", &fileSpec{redirect: cdn.URL})
	m := newManager(t, "", nil)
	dest := filepath.Join(t.TempDir(), "m.gguf")
	j, err := m.Start(Request{ID: "r", URL: u, Size: int64(len(data)), SHA256: sum, Dest: dest})
	if err != nil {
		t.Fatal(err)
	}
	if err := wait(t, j); err != nil {
		t.Fatal(err)
	}
	checkDest(t, dest, data)
	if hubN, cdnN := len(hub.requests("/f")), len(cdn.requests("/f")); hubN != cdnN {
		t.Errorf("%d requests to the first host, %d to the redirect target: each retry should start at the first URL", hubN, cdnN)
	}
}

func TestDiskFull(t *testing.T) {
	data, sum := payload(4*testChunk, 3)
	s := newTestServer(t)
	u := s.add("/f", &fileSpec{data: data})
	t.Run("free-space check", func(t *testing.T) {
		var asked string
		m := newManager(t, "", func(o *Options) {
			o.FreeSpace = func(dir string) (uint64, error) { asked = dir; return 1 << 20, nil }
		})
		dest := filepath.Join(t.TempDir(), "m.gguf")
		j, err := m.Start(Request{ID: "a", URL: u, Size: int64(len(data)), SHA256: sum, Dest: dest})
		if err != nil {
			t.Fatal(err)
		}
		err = wait(t, j)
		if !errors.Is(err, ErrDiskFull) {
			t.Fatalf("err = %v, want ErrDiskFull", err)
		}
		for _, want := range []string{asked, "67 MB needed", "1.0 MB free"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q does not say %q", err, want)
			}
		}
		if n := len(s.requests("/f")); n != 0 {
			t.Errorf("%d requests before failing the space check", n)
		}
		noFile(t, dest)
	})
	t.Run("destination on a fuller disk", func(t *testing.T) {
		destDir := t.TempDir()
		m := newManager(t, "", func(o *Options) {
			o.FreeSpace = func(dir string) (uint64, error) {
				if dir == destDir {
					return 1 << 20, nil
				}
				return 1 << 40, nil
			}
		})
		m.sameDisk = func(a, b string) bool { return false }
		before := len(s.requests("/f"))
		j, err := m.Start(Request{ID: "c", URL: u, Size: int64(len(data)), SHA256: sum, Dest: filepath.Join(destDir, "m.gguf")})
		if err != nil {
			t.Fatal(err)
		}
		if err := wait(t, j); !errors.Is(err, ErrDiskFull) || !strings.Contains(err.Error(), destDir) {
			t.Fatalf("err = %v, want ErrDiskFull naming %s", err, destDir)
		}
		if n := len(s.requests("/f")) - before; n != 0 {
			t.Errorf("%d requests before failing the space check", n)
		}
	})
	t.Run("write fails with ENOSPC", func(t *testing.T) {
		m := newManager(t, "", nil)
		var written atomic.Int64
		m.writeAt = func(f *os.File, p []byte, off int64) (int, error) {
			if written.Add(int64(len(p))) > testChunk {
				return 0, &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
			}
			return f.WriteAt(p, off)
		}
		before := len(s.requests("/f"))
		dest := filepath.Join(t.TempDir(), "m.gguf")
		j, err := m.Start(Request{ID: "b", URL: u, Size: int64(len(data)), SHA256: sum, Dest: dest})
		if err != nil {
			t.Fatal(err)
		}
		err = wait(t, j)
		if !errors.Is(err, ErrDiskFull) || !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("err = %v, want ErrDiskFull wrapping ENOSPC", err)
		}
		if !strings.Contains(err.Error(), m.opts.StateDir) {
			t.Errorf("%q does not name the folder", err)
		}
		if n := len(s.requests("/f")) - before; n > 4 {
			t.Errorf("%d requests: a full disk was retried", n)
		}
		noFile(t, dest)
	})
}

func TestMaxActive(t *testing.T) {
	s := newTestServer(t)
	gate := make(chan struct{})
	m := newManager(t, "", func(o *Options) { o.MaxActive = 2; o.Connections = 1 })
	var jobs []*Job
	var datas [][]byte
	dir := t.TempDir()
	for i := range 5 {
		data, sum := payload(testChunk+i, uint64(i))
		path := "/f" + string(rune('a'+i))
		u := s.add(path, &fileSpec{data: data, gate: gate})
		j, err := m.Start(Request{ID: path, URL: u, Size: int64(len(data)), SHA256: sum, Dest: filepath.Join(dir, path)})
		if err != nil {
			t.Fatal(err)
		}
		jobs, datas = append(jobs, j), append(datas, data)
	}
	// Two requests arrive and are held; nothing else can start before
	// one of them ends.
	<-s.arrived
	<-s.arrived
	running, queued := 0, 0
	for _, j := range jobs {
		switch j.Progress().State {
		case Running:
			running++
		case Queued:
			queued++
		}
	}
	if running != 2 || queued != 3 {
		t.Errorf("%d running and %d queued, want 2 and 3", running, queued)
	}
	if got := len(m.Jobs()); got != 5 {
		t.Errorf("Jobs() has %d jobs, want 5", got)
	}
	close(gate)
	for i, j := range jobs {
		if err := wait(t, j); err != nil {
			t.Fatal(err)
		}
		checkDest(t, j.Request().Dest, datas[i])
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.maxFiles > 2 {
		t.Errorf("the server saw %d files at once, want at most 2", s.maxFiles)
	}
}

func TestRestartResume(t *testing.T) {
	const size = 6 * testChunk
	tests := []struct {
		name       string
		conns      int
		chunk      int64
		stallAfter int64 // the first response hangs after this many bytes
		stopAt     int64 // bytes on disk when the app closes
		lastRange  string
	}{
		{"one stream", 1, size, 100000, 100000, "bytes=100000-393215"},
		{"parallel chunks", 4, testChunk, 10000, 5*testChunk + 10000, "bytes=10000-65535"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, sum := payload(size, uint64(11+i))
			s := newTestServer(t)
			u := s.add("/f", &fileSpec{data: data, stallAfter: tc.stallAfter, stalls: 1})
			stateDir := t.TempDir()
			dest := filepath.Join(t.TempDir(), "m.gguf")
			req := Request{ID: "repo/m.gguf@main", URL: u, Size: size, SHA256: sum, Dest: dest, Meta: map[string]string{"repo": "repo"}}
			opts := func(o *Options) { o.Connections = tc.conns; o.ChunkSize = tc.chunk }

			m1 := newManager(t, stateDir, opts)
			j1, err := m1.Start(req)
			if err != nil {
				t.Fatal(err)
			}
			waitFor(t, j1, "the stall", func(p Progress) bool { return p.Done == tc.stopAt })
			if err := m1.Close(); err != nil {
				t.Fatal(err)
			}
			if err := j1.Wait(context.Background()); !errors.Is(err, ErrClosed) {
				t.Errorf("Wait after Close = %v, want ErrClosed", err)
			}
			if _, err := m1.Start(req); !errors.Is(err, ErrClosed) {
				t.Errorf("Start after Close = %v, want ErrClosed", err)
			}
			noFile(t, dest)
			served := s.served.Load()

			m2 := newManager(t, stateDir, opts)
			jobs := m2.Jobs()
			if len(jobs) != 1 {
				t.Fatalf("restored %d jobs, want 1", len(jobs))
			}
			p := jobs[0].Progress()
			if p.State != Paused || p.Done != tc.stopAt || p.Total != size {
				t.Errorf("restored progress %+v, want Paused at %d/%d", p, tc.stopAt, size)
			}
			if r := jobs[0].Request(); r.Meta["repo"] != "repo" || r.Dest != dest || r.Header != nil {
				t.Errorf("restored request %+v", r)
			}
			j2, err := m2.Start(req)
			if err != nil {
				t.Fatal(err)
			}
			if j2 != jobs[0] {
				t.Error("Start with the same ID made a new job")
			}
			if err := wait(t, j2); err != nil {
				t.Fatal(err)
			}
			checkDest(t, dest, data)
			if again := s.served.Load() - served; again != size-tc.stopAt {
				t.Errorf("the second run fetched %d bytes, want %d", again, size-tc.stopAt)
			}
			if rs := s.requests("/f"); rs[len(rs)-1].rng != tc.lastRange {
				t.Errorf("the resumed request asked for %q, want %q", rs[len(rs)-1].rng, tc.lastRange)
			}
			noFile(t, j2.statePath())
			noFile(t, j2.partPath())
		})
	}
}

// TestRestartChangedFile checks that a restored job whose file changed
// (another size or hash in the new request) starts afresh.
func TestRestartChangedFile(t *testing.T) {
	old, oldSum := payload(3*testChunk, 20)
	data, sum := payload(3*testChunk+5, 21)
	s := newTestServer(t)
	u := s.add("/old", &fileSpec{data: old, stallAfter: 1000, stalls: 1})
	s.add("/new", &fileSpec{data: data})
	stateDir := t.TempDir()
	dest := filepath.Join(t.TempDir(), "m.gguf")
	m1 := newManager(t, stateDir, func(o *Options) { o.Connections = 1 })
	j1, err := m1.Start(Request{ID: "m", URL: u, Size: int64(len(old)), SHA256: oldSum, Dest: dest})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, j1, "1000 bytes", func(p Progress) bool { return p.Done == 1000 })
	m1.Close()
	m2 := newManager(t, stateDir, nil)
	j2, err := m2.Start(Request{ID: "m", URL: s.URL + "/new", Size: int64(len(data)), SHA256: sum, Dest: dest})
	if err != nil {
		t.Fatal(err)
	}
	if err := wait(t, j2); err != nil {
		t.Fatal(err)
	}
	checkDest(t, dest, data)
}

// TestPauseThenResumeAtOnce checks that a Resume right after Pause, before
// the job has stopped, is not lost.
func TestPauseThenResumeAtOnce(t *testing.T) {
	data, sum := payload(3*testChunk, 22)
	s := newTestServer(t)
	u := s.add("/f", &fileSpec{data: data, stallAfter: 1000, stalls: 1})
	m := newManager(t, "", func(o *Options) { o.Connections = 1 })
	dest := filepath.Join(t.TempDir(), "m.gguf")
	j, err := m.Start(Request{ID: "m", URL: u, Size: int64(len(data)), SHA256: sum, Dest: dest})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, j, "1000 bytes", func(p Progress) bool { return p.Done == 1000 })
	j.Pause()
	j.Resume()
	if err := wait(t, j); err != nil {
		t.Fatal(err)
	}
	checkDest(t, dest, data)
}

// TestChangesAndForget checks that the manager signals a new job, its
// end and its forgetting, that Forget drops only finished jobs, and that
// Close ends the subscription.
func TestChangesAndForget(t *testing.T) {
	data, sum := payload(2*testChunk, 31)
	s := newTestServer(t)
	u := s.add("/f", &fileSpec{data: data})
	m := newManager(t, "", nil)
	changes, stop := m.Changes()
	defer stop()
	j, err := m.Start(Request{ID: "m", URL: u, Size: int64(len(data)), SHA256: sum, Dest: filepath.Join(t.TempDir(), "m")})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := <-changes; !ok {
		t.Fatal("no signal for the new job")
	}
	if err := wait(t, j); err != nil {
		t.Fatal(err)
	}
	// Drain what the download signalled; the last state is Done.
	for drained := false; !drained; {
		select {
		case <-changes:
		default:
			drained = true
		}
	}
	if m.Forget("nope") {
		t.Error("Forget of an unknown job said it forgot it")
	}
	if !m.Forget("m") {
		t.Fatal("Forget of a finished job kept it")
	}
	if _, ok := <-changes; !ok {
		t.Fatal("no signal for the forgotten job")
	}
	if len(m.Jobs()) != 0 {
		t.Errorf("jobs after Forget: %d", len(m.Jobs()))
	}
	m.Close()
	for range changes {
	}
	late, stopLate := m.Changes()
	defer stopLate()
	if _, ok := <-late; ok {
		t.Error("Changes after Close gave an open channel")
	}
}

// TestForgetKeepsUnfinished checks that Forget leaves a paused job.
func TestForgetKeepsUnfinished(t *testing.T) {
	data, sum := payload(3*testChunk, 32)
	s := newTestServer(t)
	u := s.add("/f", &fileSpec{data: data, stallAfter: 1000, stalls: 1})
	m := newManager(t, "", func(o *Options) { o.Connections = 1 })
	j, err := m.Start(Request{ID: "m", URL: u, Size: int64(len(data)), SHA256: sum, Dest: filepath.Join(t.TempDir(), "m")})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, j, "1000 bytes", func(p Progress) bool { return p.Done == 1000 })
	j.Pause()
	waitFor(t, j, "the pause", func(p Progress) bool { return p.State == Paused })
	if m.Forget("m") || len(m.Jobs()) != 1 {
		t.Error("Forget dropped a paused job")
	}
}

// TestSlowSubscriber checks that a subscriber that never reads does not
// hold the download up, and gets the final event.
func TestSlowSubscriber(t *testing.T) {
	data, sum := payload(4*testChunk, 23)
	s := newTestServer(t)
	u := s.add("/f", &fileSpec{data: data})
	m := newManager(t, "", nil)
	j, err := m.Start(Request{ID: "m", URL: u, Size: int64(len(data)), SHA256: sum, Dest: filepath.Join(t.TempDir(), "m")})
	if err != nil {
		t.Fatal(err)
	}
	ch, stop := j.Subscribe()
	defer stop()
	if err := wait(t, j); err != nil {
		t.Fatal(err)
	}
	var last Progress
	for p := range ch {
		last = p
	}
	if last.State != Done || last.Done != int64(len(data)) {
		t.Errorf("last event %+v, want done", last)
	}
	stop() // twice is fine
}

func TestAutoResume(t *testing.T) {
	data, sum := payload(2*testChunk, 12)
	s := newTestServer(t)
	u := s.add("/f", &fileSpec{data: data, stallAfter: 10, stalls: 1})
	stateDir := t.TempDir()
	dest := filepath.Join(t.TempDir(), "m.gguf")
	m1 := newManager(t, stateDir, func(o *Options) { o.Connections = 1 })
	j1, err := m1.Start(Request{ID: "x", URL: u, Size: int64(len(data)), SHA256: sum, Dest: dest})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, j1, "10 bytes", func(p Progress) bool { return p.Done == 10 })
	m1.Close()
	m2 := newManager(t, stateDir, func(o *Options) { o.AutoResume = true })
	jobs := m2.Jobs()
	if len(jobs) != 1 {
		t.Fatalf("restored %d jobs", len(jobs))
	}
	if err := wait(t, jobs[0]); err != nil {
		t.Fatal(err)
	}
	checkDest(t, dest, data)
}

func TestPauseResumeCancel(t *testing.T) {
	data, sum := payload(4*testChunk, 5)
	s := newTestServer(t)
	u := s.add("/f", &fileSpec{data: data, stallAfter: 5000, stalls: 1})
	m := newManager(t, "", func(o *Options) { o.Connections = 1 })
	dest := filepath.Join(t.TempDir(), "m.gguf")
	j, err := m.Start(Request{ID: "p", URL: u, Size: int64(len(data)), SHA256: sum, Dest: dest})
	if err != nil {
		t.Fatal(err)
	}
	if j2, _ := m.Start(Request{ID: "p", URL: u, Size: int64(len(data)), SHA256: sum, Dest: dest}); j2 != j {
		t.Error("Start with a running job's ID made a new job")
	}
	waitFor(t, j, "5000 bytes", func(p Progress) bool { return p.Done == 5000 })
	j.Pause()
	waitFor(t, j, "paused", func(p Progress) bool { return p.State == Paused })
	if _, err := os.Stat(j.statePath()); err != nil {
		t.Errorf("no state while paused: %v", err)
	}
	if _, err := os.Stat(j.partPath()); err != nil {
		t.Errorf("no partial file while paused: %v", err)
	}
	noFile(t, dest)
	j.Resume()
	if err := wait(t, j); err != nil {
		t.Fatal(err)
	}
	checkDest(t, dest, data)
	if got := s.served.Load(); got != int64(len(data)) {
		t.Errorf("served %d bytes for a paused and resumed %d-byte file", got, len(data))
	}

	t.Run("cancel a running job", func(t *testing.T) {
		u := s.add("/g", &fileSpec{data: data, stallAfter: 5000, stalls: 1})
		dest := filepath.Join(t.TempDir(), "g.gguf")
		j, err := m.Start(Request{ID: "g", URL: u, Size: int64(len(data)), SHA256: sum, Dest: dest})
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, j, "5000 bytes", func(p Progress) bool { return p.Done == 5000 })
		j.Cancel()
		if err := wait(t, j); !errors.Is(err, ErrCancelled) {
			t.Fatalf("Wait = %v, want ErrCancelled", err)
		}
		if p := j.Progress(); p.State != Cancelled {
			t.Errorf("state %v, want cancelled", p.State)
		}
		noFile(t, j.partPath())
		noFile(t, j.statePath())
		noFile(t, dest)
		for _, k := range m.Jobs() {
			if k == j {
				t.Error("Jobs() still lists the cancelled job")
			}
		}
	})
	t.Run("cancel a paused job", func(t *testing.T) {
		u := s.add("/h", &fileSpec{data: data, stallAfter: 5000, stalls: 1})
		j, err := m.Start(Request{ID: "h", URL: u, Size: int64(len(data)), SHA256: sum, Dest: filepath.Join(t.TempDir(), "h")})
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, j, "5000 bytes", func(p Progress) bool { return p.Done == 5000 })
		j.Pause()
		waitFor(t, j, "paused", func(p Progress) bool { return p.State == Paused })
		j.Cancel()
		if err := wait(t, j); !errors.Is(err, ErrCancelled) {
			t.Fatalf("Wait = %v, want ErrCancelled", err)
		}
		noFile(t, j.partPath())
		noFile(t, j.statePath())
	})
	t.Run("pause and cancel a queued job", func(t *testing.T) {
		gate := make(chan struct{})
		m := newManager(t, "", func(o *Options) { o.MaxActive = 1 })
		u := s.add("/busy", &fileSpec{data: data, gate: gate})
		busy, _ := m.Start(Request{ID: "busy", URL: u, Size: int64(len(data)), Dest: filepath.Join(t.TempDir(), "busy")})
		<-s.arrived
		q, _ := m.Start(Request{ID: "q", URL: u, Size: int64(len(data)), Dest: filepath.Join(t.TempDir(), "q")})
		if st := q.Progress().State; st != Queued {
			t.Fatalf("state %v, want queued", st)
		}
		q.Pause()
		if st := q.Progress().State; st != Paused {
			t.Fatalf("state %v, want paused", st)
		}
		q.Cancel()
		if err := wait(t, q); !errors.Is(err, ErrCancelled) {
			t.Fatalf("Wait = %v", err)
		}
		noFile(t, q.statePath())
		close(gate)
		if err := wait(t, busy); err != nil {
			t.Fatal(err)
		}
	})
}

// TestDestNeverPartial checks at every progress event, through a cut
// connection and a checksum retry, that Dest is absent until Done.
func TestDestNeverPartial(t *testing.T) {
	data, sum := payload(8*testChunk, 9)
	s := newTestServer(t)
	u := s.add("/f", &fileSpec{data: data, cutAfter: 4096, cuts: 2, flipAt: 100, flips: 1})
	m := newManager(t, "", nil)
	dest := filepath.Join(t.TempDir(), "lib", "m.gguf")
	j, err := m.Start(Request{ID: "d", URL: u, Size: int64(len(data)), SHA256: sum, Dest: dest})
	if err != nil {
		t.Fatal(err)
	}
	ch, stop := j.Subscribe()
	defer stop()
	events, states := 0, map[State]bool{}
	for p := range ch {
		events++
		states[p.State] = true
		fi, err := os.Stat(dest)
		switch {
		case p.State != Done && err == nil:
			t.Fatalf("%s exists in state %v", dest, p.State)
		case p.State == Done && (err != nil || fi.Size() != int64(len(data))):
			t.Fatalf("done, but %s: %v", dest, err)
		}
		if p.Done > p.Total || p.Total != int64(len(data)) {
			t.Errorf("progress %+v out of bounds", p)
		}
	}
	if err := wait(t, j); err != nil {
		t.Fatal(err)
	}
	if !states[Done] || !states[Verifying] {
		t.Errorf("the events showed states %v, want verifying and done among them", states)
	}
	checkDest(t, dest, data)
}

func TestDestExists(t *testing.T) {
	data, sum := payload(2*testChunk, 4)
	s := newTestServer(t)
	u := s.add("/f", &fileSpec{data: data})
	dir := t.TempDir()
	tests := []struct {
		name     string
		content  []byte
		hash     string
		requests int
	}{
		{"right size and hash", data, sum, 0},
		{"right size, no hash given", data, "", 0},
		{"right size, wrong bytes", bytes.Repeat([]byte{1}, len(data)), sum, 2},
		{"wrong size", data[:10], sum, 2},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(s.requests("/f"))
			dest := filepath.Join(dir, string(rune('a'+i)))
			if err := os.WriteFile(dest, tc.content, 0o644); err != nil {
				t.Fatal(err)
			}
			m := newManager(t, "", nil)
			j, err := m.Start(Request{ID: "e", URL: u, Size: int64(len(data)), SHA256: tc.hash, Dest: dest})
			if err != nil {
				t.Fatal(err)
			}
			if err := wait(t, j); err != nil {
				t.Fatal(err)
			}
			checkDest(t, dest, data)
			noFile(t, j.statePath())
			noFile(t, j.partPath())
			if got := len(s.requests("/f")) - before; got != tc.requests {
				t.Errorf("%d requests, want %d", got, tc.requests)
			}
		})
	}
}

func TestStartValidates(t *testing.T) {
	m := newManager(t, "", nil)
	tests := []struct {
		name string
		req  Request
	}{
		{"no ID", Request{URL: "http://x/f", Dest: "/tmp/x"}},
		{"not http", Request{ID: "a", URL: "file:///etc/passwd", Dest: "/tmp/x"}},
		{"no dest", Request{ID: "a", URL: "http://x/f"}},
		{"negative size", Request{ID: "a", URL: "http://x/f", Dest: "/tmp/x", Size: -1}},
		{"bad hash", Request{ID: "a", URL: "http://x/f", Dest: "/tmp/x", SHA256: "abc"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := m.Start(tc.req); err == nil || !strings.HasPrefix(err.Error(), "download: ") {
				t.Errorf("Start = %v, want a download: error", err)
			}
		})
	}
	if _, err := New(Options{}); err == nil {
		t.Error("New without StateDir succeeded")
	}
}

func TestParseContentRange(t *testing.T) {
	tests := []struct {
		in                string
		first, last, size int64
		ok                bool
	}{
		{"bytes 0-99/1000", 0, 99, 1000, true},
		{"bytes 900-999/1000", 900, 999, 1000, true},
		{"bytes 5-9/*", 5, 9, -1, true},
		{"bytes 5-9/9", 0, 0, 0, false},
		{"bytes 9-5/100", 0, 0, 0, false},
		{"bytes */100", 0, 0, 0, false},
		{"items 0-1/2", 0, 0, 0, false},
		{"", 0, 0, 0, false},
	}
	for _, tc := range tests {
		f, l, s, err := parseContentRange(tc.in)
		if (err == nil) != tc.ok || (tc.ok && (f != tc.first || l != tc.last || s != tc.size)) {
			t.Errorf("parseContentRange(%q) = %d, %d, %d, %v", tc.in, f, l, s, err)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"3", 3 * time.Second},
		{"-1", 0},
		{"soon", 0},
		{now.Add(time.Minute).Format(http.TimeFormat), time.Minute},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0},
	}
	for _, tc := range tests {
		if got := retryAfter(tc.in, now); got != tc.want {
			t.Errorf("retryAfter(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestBackoff(t *testing.T) {
	m := newManager(t, "", func(o *Options) { o.Backoff = time.Second; o.MaxBackoff = 8 * time.Second })
	for n := 1; n < 70; n++ {
		d := m.backoff(n, 0)
		ceil := min(time.Second<<min(n-1, 30), 8*time.Second)
		if d < ceil/2 || d > ceil {
			t.Errorf("backoff(%d) = %v, want within [%v, %v]", n, d, ceil/2, ceil)
		}
	}
	if d := m.backoff(1, 42*time.Second); d != 42*time.Second {
		t.Errorf("backoff with Retry-After 42s = %v", d)
	}
}

// TestStalledResponse checks that a response that stops sending is
// dropped and the rest fetched again.
func TestStalledResponse(t *testing.T) {
	data, sum := payload(3*testChunk, 24)
	s := newTestServer(t)
	u := s.add("/f", &fileSpec{data: data, stallAfter: 3000, stalls: 2})
	m := newManager(t, "", func(o *Options) { o.Connections = 1 })
	m.stall = 20 * time.Millisecond
	dest := filepath.Join(t.TempDir(), "m.gguf")
	j, err := m.Start(Request{ID: "m", URL: u, Size: int64(len(data)), SHA256: sum, Dest: dest})
	if err != nil {
		t.Fatal(err)
	}
	if err := wait(t, j); err != nil {
		t.Fatal(err)
	}
	checkDest(t, dest, data)
	if p := j.Progress(); p.Attempts < 2 {
		t.Errorf("Attempts = %d, want at least 2", p.Attempts)
	}
}

// TestStateActive names the states of a job under way.
func TestStateActive(t *testing.T) {
	for _, tc := range []struct {
		s    State
		want bool
	}{{Queued, true}, {Running, true}, {Verifying, true}, {Paused, false}, {Done, false}, {Failed, false}, {Cancelled, false}} {
		if got := tc.s.Active(); got != tc.want {
			t.Errorf("%v.Active() = %v, want %v", tc.s, got, tc.want)
		}
	}
}

// TestTwoProcesses runs one download in two managers sharing a state
// folder, as two `saji pull`s do: the second waits for the first's lock,
// fetches nothing and ends with the first's verified file; cancelling a
// job that waits leaves the other's files alone.
func TestTwoProcesses(t *testing.T) {
	const size = 6 * testChunk
	data, sum := payload(size, 41)
	s := newTestServer(t)
	gate := make(chan struct{})
	u := s.add("/f", &fileSpec{data: data, gate: gate})
	stateDir := t.TempDir()
	dest := filepath.Join(t.TempDir(), "m.gguf")
	req := Request{ID: "repo/m.gguf@main", URL: u, Size: size, SHA256: sum, Dest: dest}

	m1 := newManager(t, stateDir, nil)
	j1, err := m1.Start(req)
	if err != nil {
		t.Fatal(err)
	}
	<-s.arrived // the first holds its lock and is fetching
	m2 := newManager(t, stateDir, nil)
	j2, err := m2.Start(req)
	if err != nil {
		t.Fatal(err)
	}
	m3 := newManager(t, stateDir, nil)
	j3, err := m3.Start(req)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * lockPoll) // both wait on the lock
	j3.Cancel()
	if err := wait(t, j3); !errors.Is(err, ErrCancelled) {
		t.Errorf("the cancelled waiter: %v", err)
	}
	if _, err := os.Stat(j1.partPath()); err != nil {
		t.Errorf("cancelling a waiting job removed the running one's part file: %v", err)
	}
	close(gate)
	if err := wait(t, j1); err != nil {
		t.Fatal(err)
	}
	if err := wait(t, j2); err != nil {
		t.Fatalf("the second: %v", err)
	}
	checkDest(t, dest, data)
	if got := s.served.Load(); got != size {
		t.Errorf("the server sent %d bytes, want %d (the file once)", got, size)
	}
	for _, p := range []string{j1.partPath(), j1.statePath(), j1.lockPath()} {
		noFile(t, p)
	}
}

// TestRestoreKeepsFreshTemps: a new manager removes the temporary state
// files of writes cut short, but not one another process is writing now.
func TestRestoreKeepsFreshTemps(t *testing.T) {
	dir := t.TempDir()
	fresh := filepath.Join(dir, ".state-1.tmp")
	stale := filepath.Join(dir, ".state-2.tmp")
	for _, p := range []string{fresh, stale} {
		if err := os.WriteFile(p, []byte("{"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * staleTempAge)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	newManager(t, dir, nil)
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("the fresh temporary file is gone: %v", err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale temporary file is still there: %v", err)
	}
}
