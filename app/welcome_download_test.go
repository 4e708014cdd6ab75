package app

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"saji/engine/download"
)

// welcomeDownload taps the welcome view's download button and waits until
// the download stands in one of phases.
func welcomeDownload(t *testing.T, v *welcomeView, what string, phases ...downloadPhase) {
	t.Helper()
	v.locked(func() { test.Tap(v.download) })
	waitFor(t, what, func() bool { return slices.Contains(phases, v.Phase()) })
}

// welcomeText returns what the view's message says and its download
// button reads.
func welcomeText(v *welcomeView) (message, button string) {
	v.locked(func() { message, button = v.message.Text, v.download.Text })
	return message, button
}

// waitWelcomeHidden waits until the welcome view hides (the model opened
// in the chat).
func waitWelcomeHidden(t *testing.T, v *welcomeView) {
	t.Helper()
	waitFor(t, "the model in the chat", func() bool {
		hidden := false
		v.locked(func() { hidden = !v.Visible() })
		return hidden
	})
}

func TestWelcomeDownload(t *testing.T) {
	srv := newModelServer(t, nil)
	t.Setenv("HF_ENDPOINT", srv.URL)
	u := newTestUI(t, &fakeGen{})
	v := u.welcome.(*welcomeView)
	welcomeDownload(t, v, "the download", phaseDone, phaseFailed)
	if v.Phase() == phaseFailed {
		msg, _ := welcomeText(v)
		t.Fatalf("download failed: %s", msg)
	}
	waitWelcomeHidden(t, v)
	want := "/" + v.model.Repo + "/resolve/main/" + v.model.File
	if paths := srv.Paths(); len(paths) != 2 || paths[0] != "HEAD "+want || paths[1] != "GET "+want {
		t.Errorf("requests %q, want a HEAD then a GET of %q", paths, want)
	}
	list, err := u.core.Library().List()
	if err != nil || len(list) != 1 || list[0].Name != v.model.Name() || list[0].Err != nil {
		t.Fatalf("library: %+v, %v", list, err)
	}
	if u.tabs.SelectedIndex() != tabChat {
		t.Errorf("tab %d selected, want the chat", u.tabs.SelectedIndex())
	}
	if u.core.Settings().Welcomed {
		t.Error("a download set Welcomed; only Skip does")
	}
	// The download is a job of the manager, as Discover's are.
	m, err := u.core.Downloads()
	if err != nil {
		t.Fatal(err)
	}
	if jobs := m.Jobs(); len(jobs) != 1 || jobs[0].Progress().State != download.Done {
		t.Errorf("download manager jobs %v, want the finished download", jobs)
	}
}

func TestWelcomeDownloadFails(t *testing.T) {
	tests := []struct {
		name string
		// missing answers 404 to the HEAD (Stat) too; else only to GET.
		missing bool
		want    string
	}{
		{"no such file", true, "has no model called Qwen/"},
		{"gone after the question", false, "The file is no longer on Hugging Face"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newModelServer(t, nil)
			srv.setServe(func(w http.ResponseWriter, r *http.Request, data []byte) {
				if r.Method == http.MethodHead && !tt.missing {
					serveModel(w, r, data)
					return
				}
				http.NotFound(w, r)
			})
			t.Setenv("HF_ENDPOINT", srv.URL)
			u := newTestUI(t, &fakeGen{})
			v := u.welcome.(*welcomeView)
			welcomeDownload(t, v, "the download to fail", phaseFailed, phaseDone)
			if v.Phase() != phaseFailed {
				t.Fatal("a 404 download succeeded")
			}
			v.locked(func() {
				if !v.message.Visible() || !strings.Contains(v.message.Text, tt.want) {
					t.Errorf("message %q (visible %v), want %q", v.message.Text, v.message.Visible(), tt.want)
				}
				if !v.Visible() || v.running.Visible() || v.download.Disabled() || v.skip.Disabled() {
					t.Error("after a failure the view should show, without progress, with its buttons enabled")
				}
				if !hasLabel(v.content, "Or drop a GGUF file you already have onto this window.") {
					t.Error("the drop hint went away")
				}
				if v.download.Text != "Download again" {
					t.Errorf("button %q after a failure with nothing to resume", v.download.Text)
				}
			})
			if list, _ := u.core.Library().List(); len(list) != 0 {
				t.Errorf("library holds %d models after a failed download", len(list))
			}
		})
	}
}

// TestWelcomeDownloadInvalid checks that a downloaded file the library
// cannot use is removed, saying why plainly.
func TestWelcomeDownloadInvalid(t *testing.T) {
	data := tinyBytes(t)
	tests := []struct {
		name string
		body []byte
		want string
	}{
		{"not gguf", append([]byte("XXXX"), data[4:]...), "not a model Saji can read"},
		{"html page", []byte("<html>Sign in</html>"), "not a model Saji can read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newModelServer(t, tt.body)
			t.Setenv("HF_ENDPOINT", srv.URL)
			u := newTestUI(t, &fakeGen{})
			v := u.welcome.(*welcomeView)
			welcomeDownload(t, v, "the download to fail", phaseFailed)
			if msg, _ := welcomeText(v); !strings.Contains(msg, tt.want) || strings.Contains(msg, "library:") {
				t.Errorf("message %q, want %q", msg, tt.want)
			}
			if _, err := os.Stat(filepath.Join(u.core.Library().Dir(), v.model.File)); err == nil {
				t.Error("the unusable file stayed in the library folder")
			}
			if list, _ := u.core.Library().List(); len(list) != 0 {
				t.Errorf("library holds %d models after an unusable download", len(list))
			}
		})
	}
}

// startHalfDownload starts the welcome view's download from a server that
// sends half the file, then waits, and waits until bytes arrived.
func startHalfDownload(t *testing.T) (*ui, *welcomeView, *modelServer) {
	t.Helper()
	srv := newModelServer(t, nil)
	srv.setServe(halfThenWait)
	t.Setenv("HF_ENDPOINT", srv.URL)
	u := newTestUI(t, &fakeGen{})
	v := u.welcome.(*welcomeView)
	v.locked(func() { test.Tap(v.download) })
	waitFor(t, "half the file", func() bool {
		var done int64
		v.locked(func() {
			if v.job != nil {
				done = v.job.Progress().Done
			}
		})
		return done > 0
	})
	return u, v, srv
}

// TestWelcomeDownloadPauseResume pauses the download halfway, then
// resumes it from where it stopped with a Range request.
func TestWelcomeDownloadPauseResume(t *testing.T) {
	_, v, srv := startHalfDownload(t)
	v.locked(func() { test.Tap(v.pause) })
	waitFor(t, "the pause", func() bool { return v.Phase() == phasePaused })
	if msg, btn := welcomeText(v); btn != "Resume the download" || !strings.Contains(msg, "paused") {
		t.Fatalf("button %q, message %q", btn, msg)
	}
	srv.setServe(nil)
	welcomeDownload(t, v, "the resumed download", phaseDone, phaseFailed)
	if v.Phase() != phaseDone {
		msg, _ := welcomeText(v)
		t.Fatalf("phase %d, message %q", v.Phase(), msg)
	}
	waitWelcomeHidden(t, v)
	if r := srv.Ranges(); len(r) < 2 || !strings.HasPrefix(r[len(r)-1], "bytes=") || r[len(r)-1] == "bytes=0-" {
		t.Errorf("ranges %q, want the last request to resume", r)
	}
}

// TestWelcomeDownloadCancel checks that Cancel drops a download with its
// partial data.
func TestWelcomeDownloadCancel(t *testing.T) {
	u, v, _ := startHalfDownload(t)
	v.locked(func() { test.Tap(v.cancel) })
	waitFor(t, "the cancel", func() bool { return v.Phase() == phaseFailed })
	if msg, btn := welcomeText(v); btn != "Download again" || msg != "The download was cancelled." {
		t.Errorf("button %q, message %q", btn, msg)
	}
	if left, _ := os.ReadDir(u.core.downloadsDir); len(left) != 0 {
		t.Errorf("a cancelled download left %d files in its state folder", len(left))
	}
}

// modelServer serves one file over HTTP, recording the method and path,
// and the Range header, of each request; serve, when set, answers instead
// of serveModel.
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
		if r.Method == http.MethodGet {
			s.ranges = append(s.ranges, r.Header.Get("Range"))
		}
		s.paths = append(s.paths, r.Method+" "+r.URL.Path)
		serve := s.serve
		s.mu.Unlock()
		if serve == nil {
			serve = serveModel
		}
		serve(w, r, s.data)
	}))
	t.Cleanup(s.Close)
	return s
}

// serveModel answers with data, honouring Range and HEAD.
func serveModel(w http.ResponseWriter, r *http.Request, data []byte) {
	http.ServeContent(w, r, "model.gguf", time.Time{}, bytes.NewReader(data))
}

// setServe replaces the handler.
func (s *modelServer) setServe(f func(w http.ResponseWriter, r *http.Request, data []byte)) {
	s.mu.Lock()
	s.serve = f
	s.mu.Unlock()
}

// Ranges returns the Range headers of the GET requests so far ("" for
// none).
func (s *modelServer) Ranges() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ranges...)
}

// Paths returns the requests so far, "METHOD /path".
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

// halfThenWait answers a HEAD in full, and a GET with half of data, then
// waits for the client to go away.
func halfThenWait(w http.ResponseWriter, r *http.Request, data []byte) {
	if r.Method == http.MethodHead {
		serveModel(w, r, data)
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(http.StatusOK)
	w.Write(data[:len(data)/2])
	w.(http.Flusher).Flush()
	<-r.Context().Done()
}
