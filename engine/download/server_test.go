package download

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// fileSpec is a file the test server serves, with the faults to inject.
// The counters (cuts, flips, fail, stalls) are spent one per response.
type fileSpec struct {
	data []byte

	cutAfter int64 // cut the connection after this many body bytes...
	cuts     int   // ...in this many responses

	flipAt int64 // flip the byte at this file offset...
	flips  int   // ...in this many responses that carry it (-1: in all)

	fail       int    // answer failStatus this many times first
	failStatus int    // (default 503)
	retryAfter string // the Retry-After header of those answers

	status  int  // always answer this status (401, 404, ...)
	noRange bool // ignore Range: always 200 with the whole file

	stallAfter int64 // send this many bytes, then hang until the client leaves...
	stalls     int   // ...in this many responses

	gate chan struct{} // if set, hold every response until it is closed

	redirect string // if set, answer 302 to this base URL plus the path
	size     int64  // if set, claim this total size in Content-Range
}

// reqLog is one request the server saw.
type reqLog struct {
	path, rng, auth, custom string
}

// testServer is a range-capable HTTP file server with fault injection.
type testServer struct {
	*httptest.Server
	mu       sync.Mutex
	files    map[string]*fileSpec
	log      []reqLog
	served   atomic.Int64 // body bytes sent
	inflight map[string]int
	maxFiles int         // the most distinct files served at once
	arrived  chan string // the path of each request held by a gate
}

func newTestServer(t *testing.T) *testServer {
	s := &testServer{files: make(map[string]*fileSpec), inflight: make(map[string]int), arrived: make(chan string, 100)}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

// add serves spec at path and returns the file's URL.
func (s *testServer) add(path string, spec *fileSpec) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[path] = spec
	return s.URL + path
}

// requests returns the requests made for path.
func (s *testServer) requests(path string) []reqLog {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []reqLog
	for _, r := range s.log {
		if r.path == path {
			out = append(out, r)
		}
	}
	return out
}

func (s *testServer) handle(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.log = append(s.log, reqLog{path: r.URL.Path, rng: r.Header.Get("Range"), auth: r.Header.Get("Authorization"), custom: r.Header.Get("X-Custom")})
	spec := s.files[r.URL.Path]
	if spec == nil {
		s.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	if spec.redirect != "" {
		s.mu.Unlock()
		http.Redirect(w, r, spec.redirect+r.URL.Path, http.StatusFound)
		return
	}
	if spec.status != 0 {
		s.mu.Unlock()
		http.Error(w, "no", spec.status)
		return
	}
	if spec.fail > 0 {
		spec.fail--
		s.mu.Unlock()
		if spec.retryAfter != "" {
			w.Header().Set("Retry-After", spec.retryAfter)
		}
		st := spec.failStatus
		if st == 0 {
			st = http.StatusServiceUnavailable
		}
		http.Error(w, "busy", st)
		return
	}
	s.inflight[r.URL.Path]++
	s.maxFiles = max(s.maxFiles, len(s.inflight))
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.inflight[r.URL.Path]--; s.inflight[r.URL.Path] == 0 {
			delete(s.inflight, r.URL.Path)
		}
		s.mu.Unlock()
	}()
	if spec.gate != nil {
		s.arrived <- r.URL.Path
		select {
		case <-spec.gate:
		case <-r.Context().Done():
			return
		}
	}

	size := int64(len(spec.data))
	first, last := int64(0), size-1
	ranged := false
	if h := r.Header.Get("Range"); h != "" && !spec.noRange {
		a, b, ok := strings.Cut(strings.TrimPrefix(h, "bytes="), "-")
		f, err1 := strconv.ParseInt(a, 10, 64)
		l, err2 := strconv.ParseInt(b, 10, 64)
		if b == "" {
			l, err2 = size-1, nil
		}
		if !ok || err1 != nil || err2 != nil || f > l || f >= size {
			http.Error(w, "bad range", http.StatusRequestedRangeNotSatisfiable)
			return
		}
		first, last, ranged = f, min(l, size-1), true
	}
	body := append([]byte(nil), spec.data[first:last+1]...)

	s.mu.Lock()
	if spec.flips != 0 && spec.flipAt >= first && spec.flipAt <= last {
		body[spec.flipAt-first] ^= 0xff
		if spec.flips > 0 {
			spec.flips--
		}
	}
	cut, stall := int64(-1), int64(-1)
	if spec.cuts > 0 && spec.cutAfter < int64(len(body)) {
		spec.cuts--
		cut = spec.cutAfter
	}
	if spec.stalls > 0 && spec.stallAfter < int64(len(body)) {
		spec.stalls--
		stall = spec.stallAfter
	}
	s.mu.Unlock()

	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Header().Set("Accept-Ranges", "bytes")
	if ranged {
		total := size
		if spec.size != 0 {
			total = spec.size
		}
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", first, last, total))
		w.WriteHeader(http.StatusPartialContent)
	} else {
		w.WriteHeader(http.StatusOK)
	}
	switch {
	case cut >= 0:
		n, _ := w.Write(body[:cut])
		s.served.Add(int64(n))
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // drops the connection mid-body
	case stall >= 0:
		n, _ := w.Write(body[:stall])
		s.served.Add(int64(n))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		return
	}
	n, _ := w.Write(body)
	s.served.Add(int64(n))
}
