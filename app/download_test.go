package app

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"saji/engine/library"
)

// modelServer serves one file over HTTP, recording the Range header of
// each request; serve, when set, answers instead of http.ServeContent.
type modelServer struct {
	*httptest.Server
	data []byte

	mu     sync.Mutex
	ranges []string
	paths  []string
	serve  func(w http.ResponseWriter, r *http.Request, data []byte)
}

// newModelServer serves data (the tiny model when nil) at every path.
func newModelServer(t *testing.T, data []byte) *modelServer {
	t.Helper()
	if data == nil {
		data = tinyBytes(t)
	}
	s := &modelServer{data: data}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.ranges = append(s.ranges, r.Header.Get("Range"))
		s.paths = append(s.paths, r.URL.Path)
		serve := s.serve
		s.mu.Unlock()
		if serve != nil {
			serve(w, r, s.data)
			return
		}
		http.ServeContent(w, r, "model.gguf", time.Time{}, bytes.NewReader(s.data))
	}))
	t.Cleanup(s.Close)
	return s
}

// setServe replaces the handler.
func (s *modelServer) setServe(f func(w http.ResponseWriter, r *http.Request, data []byte)) {
	s.mu.Lock()
	s.serve = f
	s.mu.Unlock()
}

// Ranges returns the Range headers received so far ("" for none).
func (s *modelServer) Ranges() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ranges...)
}

// Paths returns the paths requested so far.
func (s *modelServer) Paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.paths...)
}

// tinyBytes returns the tiny model's contents.
func tinyBytes(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(tinyModel(t))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// halfThenClose sends the full Content-Length but only the first half of
// data, then drops the connection.
func halfThenClose(w http.ResponseWriter, _ *http.Request, data []byte) {
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(http.StatusOK)
	w.Write(data[:len(data)/2])
	w.(http.Flusher).Flush()
	panic(http.ErrAbortHandler)
}

// halfThenWait sends half of data, then waits for the client to go away.
func halfThenWait(w http.ResponseWriter, r *http.Request, data []byte) {
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(http.StatusOK)
	w.Write(data[:len(data)/2])
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}

// checkFiles checks what dir holds for the model name: the final file
// (equal to want) or not, and the .part or not.
func checkFiles(t *testing.T, dir, name string, want []byte, part bool) {
	t.Helper()
	got, err := os.ReadFile(filepath.Join(dir, name+".gguf"))
	switch {
	case want == nil && err == nil:
		t.Errorf("%s.gguf exists", name)
	case want != nil && err != nil:
		t.Errorf("%s.gguf: %v", name, err)
	case want != nil && !bytes.Equal(got, want):
		t.Errorf("%s.gguf differs from the served file (%d bytes, want %d)", name, len(got), len(want))
	}
	if _, err := os.Stat(filepath.Join(dir, "."+name+".part")); (err == nil) != part {
		t.Errorf(".%s.part exists: %v, want %v", name, err == nil, part)
	}
}

func TestDownloadComplete(t *testing.T) {
	srv := newModelServer(t, nil)
	dir := filepath.Join(t.TempDir(), "models")
	var last, lastTotal int64
	calls := 0
	path, err := downloadModel(context.Background(), srv.URL+"/Qwen/x/resolve/main/m.gguf", dir, "m", func(done, total int64) {
		if done < last {
			t.Errorf("progress went back from %d to %d", last, done)
		}
		last, lastTotal = done, total
		calls++
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "m.gguf"); path != want {
		t.Errorf("path %q, want %q", path, want)
	}
	checkFiles(t, dir, "m", srv.data, false)
	if n := int64(len(srv.data)); calls < 2 || last != n || lastTotal != n {
		t.Errorf("progress: %d calls, last %d/%d, want %d/%d", calls, last, lastTotal, n, n)
	}
	if _, err := library.Validate(path); err != nil {
		t.Error(err)
	}
	lib, err := library.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	e, err := lib.Import(context.Background(), path, false, nil)
	if err != nil || e.Name != "m" || e.ByReference {
		t.Errorf("import: %+v, %v", e, err)
	}
	if list, _ := lib.List(); len(list) != 1 {
		t.Errorf("library lists %d models, want 1", len(list))
	}

	// Downloading it again finds it in place without asking the server.
	n := len(srv.Ranges())
	if _, err := downloadModel(context.Background(), srv.URL+"/m.gguf", dir, "m", nil); err != nil {
		t.Fatal(err)
	}
	if len(srv.Ranges()) != n {
		t.Error("a model already downloaded was fetched again")
	}
}

func TestDownloadResume(t *testing.T) {
	srv := newModelServer(t, nil)
	dir := t.TempDir()
	srv.setServe(halfThenClose)
	_, err := downloadModel(context.Background(), srv.URL+"/m.gguf", dir, "m", nil)
	if err == nil {
		t.Fatal("an interrupted transfer succeeded")
	}
	if msg := downloadMessage(err); !strings.Contains(msg, "continue where it stopped") {
		t.Errorf("message %q does not mention resuming", msg)
	}
	checkFiles(t, dir, "m", nil, true)
	st, err := os.Stat(filepath.Join(dir, ".m.part"))
	if err != nil || st.Size() == 0 || st.Size() > int64(len(srv.data)/2) {
		t.Fatalf("part file: %v, %v; want up to %d bytes", st, err, len(srv.data)/2)
	}

	srv.setServe(nil)
	var first int64 = -1
	if _, err := downloadModel(context.Background(), srv.URL+"/m.gguf", dir, "m", func(done, total int64) {
		if first < 0 {
			first = done
		}
	}); err != nil {
		t.Fatal(err)
	}
	checkFiles(t, dir, "m", srv.data, false)
	ranges := srv.Ranges()
	if want := "bytes=" + strconv.FormatInt(st.Size(), 10) + "-"; len(ranges) != 2 || ranges[1] != want {
		t.Errorf("requests' ranges %q, want the second to be %q", ranges, want)
	}
	if first != st.Size() {
		t.Errorf("resumed progress starts at %d, want %d", first, st.Size())
	}
}

func TestDownloadRangeIgnored(t *testing.T) {
	srv := newModelServer(t, nil)
	dir := t.TempDir()
	// A leftover that is not even the file's beginning: a server that
	// answers 200 to the Range request must start the file over.
	if err := os.WriteFile(filepath.Join(dir, ".m.part"), bytes.Repeat([]byte{'x'}, 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	srv.setServe(func(w http.ResponseWriter, _ *http.Request, data []byte) { w.Write(data) })
	if _, err := downloadModel(context.Background(), srv.URL+"/m.gguf", dir, "m", nil); err != nil {
		t.Fatal(err)
	}
	checkFiles(t, dir, "m", srv.data, false)
	if r := srv.Ranges(); len(r) != 1 || r[0] != "bytes=1000-" {
		t.Errorf("ranges %q", r)
	}
}

func TestDownloadLeftoverComplete(t *testing.T) {
	// The .part holds the whole file (the app stopped before renaming):
	// the server answers 416 to bytes=SIZE-, and the file is kept.
	srv := newModelServer(t, nil)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".m.part"), srv.data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := downloadModel(context.Background(), srv.URL+"/m.gguf", dir, "m", nil); err != nil {
		t.Fatal(err)
	}
	checkFiles(t, dir, "m", srv.data, false)
	if r := srv.Ranges(); len(r) != 1 {
		t.Errorf("ranges %q, want one request", r)
	}
}

func TestDownloadInvalid(t *testing.T) {
	data := tinyBytes(t)
	corrupt := append([]byte("XXXX"), data[4:]...)
	tests := []struct {
		name string
		body []byte
		is   error
	}{
		{"truncated", data[:len(data)/2], library.ErrTruncated},
		{"not gguf", corrupt, library.ErrNotGGUF},
		{"html page", []byte("<html>Sign in</html>"), library.ErrNotGGUF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newModelServer(t, tt.body)
			dir := t.TempDir()
			_, err := downloadModel(context.Background(), srv.URL+"/m.gguf", dir, "m", nil)
			if !errors.Is(err, tt.is) {
				t.Fatalf("error %v, want %v", err, tt.is)
			}
			if msg := downloadMessage(err); strings.Contains(msg, "library:") || strings.Contains(msg, "app:") {
				t.Errorf("message %q is not plain", msg)
			}
			checkFiles(t, dir, "m", nil, false)
		})
	}
}

func TestDownloadHTTPErrors(t *testing.T) {
	tests := []struct {
		code int
		want string
	}{
		{http.StatusNotFound, "does not have this file"},
		{http.StatusUnauthorized, "refused the download"},
		{http.StatusForbidden, "refused the download"},
		{http.StatusServiceUnavailable, "having trouble"},
		{http.StatusInternalServerError, "having trouble"},
		{http.StatusTeapot, "HTTP 418"},
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.code), func(t *testing.T) {
			srv := newModelServer(t, nil)
			srv.setServe(func(w http.ResponseWriter, _ *http.Request, _ []byte) { http.Error(w, "no", tt.code) })
			dir := t.TempDir()
			_, err := downloadModel(context.Background(), srv.URL+"/m.gguf", dir, "m", nil)
			if err == nil || !strings.HasPrefix(err.Error(), "app: ") {
				t.Fatalf("error %v, want one prefixed app:", err)
			}
			msg := downloadMessage(err)
			if !strings.Contains(msg, tt.want) || !strings.HasPrefix(msg, "Hugging Face (127.0.0.1:") {
				t.Errorf("message %q, want it to name Hugging Face and contain %q", msg, tt.want)
			}
			checkFiles(t, dir, "m", nil, false)
		})
	}
}

func TestDownloadOffline(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	_, err = downloadModel(context.Background(), "http://"+addr+"/m.gguf", dir, "m", nil)
	want := "Saji could not reach Hugging Face (" + addr + "). Check the internet connection, or drop a GGUF file you already have onto this window."
	if got := downloadMessage(err); got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	checkFiles(t, dir, "m", nil, false)
}

func TestDownloadOfflineMessage(t *testing.T) {
	u, _ := url.Parse(defaultHFEndpoint + "/Qwen/x/resolve/main/m.gguf")
	want := "Saji could not reach Hugging Face (huggingface.co). Check the internet connection, or drop a GGUF file you already have onto this window."
	for _, cause := range []error{
		&net.DNSError{Err: "no such host", Name: "huggingface.co", IsNotFound: true},
		&net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")},
		&url.Error{Op: "Get", URL: u.String(), Err: &timeoutError{}},
	} {
		if got := downloadMessage(downloadTransferError(context.Background(), u, cause)); got != want {
			t.Errorf("%v: message %q", cause, got)
		}
	}
}

// timeoutError is a net.Error that timed out.
type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

func TestDownloadCancel(t *testing.T) {
	srv := newModelServer(t, nil)
	srv.setServe(halfThenWait)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := downloadModel(ctx, srv.URL+"/m.gguf", dir, "m", func(done, total int64) {
		if done > 0 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	checkFiles(t, dir, "m", nil, true)

	// The next download resumes from the kept part.
	srv.setServe(nil)
	if _, err := downloadModel(context.Background(), srv.URL+"/m.gguf", dir, "m", nil); err != nil {
		t.Fatal(err)
	}
	checkFiles(t, dir, "m", srv.data, false)
	if r := srv.Ranges(); len(r) != 2 || !strings.HasPrefix(r[1], "bytes=") {
		t.Errorf("ranges %q, want the second request to resume", r)
	}
}

func TestDownloadStalled(t *testing.T) {
	srv := newModelServer(t, nil)
	srv.setServe(halfThenWait)
	dir := t.TempDir()
	d := newDownloader()
	d.stall = 50 * time.Millisecond
	_, err := d.download(context.Background(), srv.URL+"/m.gguf", dir, "m", nil)
	if !errors.Is(err, errStalled) || !strings.Contains(downloadMessage(err), "sent nothing") {
		t.Fatalf("error %v, want a stall", err)
	}
	checkFiles(t, dir, "m", nil, true)
}

func TestDownloadDiskFull(t *testing.T) {
	srv := newModelServer(t, nil)
	dir := t.TempDir()
	d := newDownloader()
	d.free = func(string) (uint64, error) { return 1000, nil }
	_, err := d.download(context.Background(), srv.URL+"/m.gguf", dir, "m", nil)
	if !errors.Is(err, library.ErrDiskFull) || !strings.Contains(downloadMessage(err), "not enough free disk space") {
		t.Fatalf("error %v, want a full disk", err)
	}
	checkFiles(t, dir, "m", nil, false)
}

func TestDownloadBadName(t *testing.T) {
	for _, name := range []string{"", ".hidden", "a/b", `a\b`, "../x"} {
		if _, err := downloadModel(context.Background(), "http://127.0.0.1:1/m", t.TempDir(), name, nil); err == nil {
			t.Errorf("name %q accepted", name)
		}
	}
}

func TestDownloadEndpoint(t *testing.T) {
	t.Setenv("HF_ENDPOINT", "")
	if got, want := hfFileURL("Qwen/R", "f.gguf"), "https://huggingface.co/Qwen/R/resolve/main/f.gguf"; got != want {
		t.Errorf("default %q, want %q", got, want)
	}
	t.Setenv("HF_ENDPOINT", "http://127.0.0.1:9/")
	if got, want := hfFileURL("Qwen/R", "f.gguf"), "http://127.0.0.1:9/Qwen/R/resolve/main/f.gguf"; got != want {
		t.Errorf("HF_ENDPOINT %q, want %q", got, want)
	}
}

func TestDownloadContentRange(t *testing.T) {
	tests := []struct {
		in          string
		start, size int64
		ok          bool
	}{
		{"bytes 100-199/200", 100, 200, true},
		{"bytes */200", -1, 200, true},
		{"bytes 0-0/1", 0, 1, true},
		{"", 0, 0, false},
		{"bytes 100-199/*", 0, 0, false},
		{"items 1-2/3", 0, 0, false},
		{"bytes x-1/3", 0, 0, false},
	}
	for _, tt := range tests {
		start, size, ok := parseContentRange(tt.in)
		if ok != tt.ok || (ok && (start != tt.start || size != tt.size)) {
			t.Errorf("%q: %d %d %v, want %d %d %v", tt.in, start, size, ok, tt.start, tt.size, tt.ok)
		}
	}
}

func TestDownloadSizeText(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{500, "1 KB"},
		{250_000, "0.2 MB"},
		{491_000_000, "491 MB"},
		{1_120_000_000, "1.1 GB"},
		{21_000_000_000, "21 GB"},
	}
	for _, tt := range tests {
		if got := downloadSizeText(tt.n); got != tt.want {
			t.Errorf("%d: %q, want %q", tt.n, got, tt.want)
		}
	}
}
