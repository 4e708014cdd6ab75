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

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"saji/engine/download"
	"saji/engine/hub"
	"saji/engine/model"
	"saji/engine/units"
)

func TestWelcomeMachineSentence(t *testing.T) {
	const gb = 1_000_000_000 // memory shows in decimal units, as every size
	tests := []struct {
		m    machineInfo
		want string
	}{
		{machineInfo{Total: 24 * gb, Available: gb * 91 / 10, Cores: 8},
			"This computer has 24 GB of memory, 9.1 GB free, and 8 processor cores: it runs models up to about 7-8B parameters at Q4_K_M comfortably."},
		{machineInfo{Total: 64 * gb, Available: 40 * gb, Cores: 12},
			"This computer has 64 GB of memory, 40 GB free, and 12 processor cores: it runs models up to about 32B parameters at Q4_K_M comfortably."},
		{machineInfo{Total: 8 * gb, Available: 3 * gb},
			"This computer has 8.0 GB of memory, 3.0 GB free: it runs models up to about 3B parameters at Q4_K_M comfortably."},
		{machineInfo{Total: 4 * gibibyte, Available: gibibyte / 4, Cores: 2},
			"This computer has 4.3 GB of memory, 268 MB free, and 2 processor cores: that is little free memory for a language model. Close some programs, or start with the smallest model (0.5B parameters)."},
		{machineInfo{}, "Saji could not read this computer's memory size. Small models (1.5B to 3B parameters) run on most computers."},
	}
	for _, tt := range tests {
		if got := machineSentence(tt.m); got != tt.want {
			t.Errorf("%+v:\n got %q\nwant %q", tt.m, got, tt.want)
		}
	}
}

func TestWelcomeRecommendedModel(t *testing.T) {
	tests := []struct {
		total uint64
		want  recommendedModel
	}{
		{0, qwen15B},
		{2 * gibibyte, qwen05B},
		{4*gibibyte - 1, qwen05B},
		{4 * gibibyte, qwen15B},
		{64 * gibibyte, qwen15B},
	}
	for _, tt := range tests {
		if got := recommendModel(tt.total); got != tt.want {
			t.Errorf("%d bytes: %s, want %s", tt.total, got.Title, tt.want.Title)
		}
	}
	for _, m := range []recommendedModel{qwen05B, qwen15B} {
		if !slices.Contains(model.Architectures(), m.Arch) {
			t.Errorf("%s is a %s model, which Saji does not run (%v)", m.Title, m.Arch, model.Architectures())
		}
		if m.License != "Apache-2.0" || m.Size <= 0 || !strings.HasSuffix(m.File, ".gguf") {
			t.Errorf("%+v", m)
		}
	}
	t.Setenv("HF_ENDPOINT", "")
	if got, want := qwen15B.URL(hub.NewClient(), ""), "https://huggingface.co/Qwen/Qwen2.5-1.5B-Instruct-GGUF/resolve/main/qwen2.5-1.5b-instruct-q4_k_m.gguf"; got != want {
		t.Errorf("URL %q, want %q", got, want)
	}
	if got := qwen15B.Name(); got != "qwen2.5-1.5b-instruct-q4_k_m" {
		t.Errorf("name %q", got)
	}
}

func TestWelcomeShowsMachine(t *testing.T) {
	u := newTestUI(t, &fakeGen{})
	v := u.welcome.(*welcomeView)
	if !v.Visible() {
		t.Fatal("the welcome view is hidden over an empty library")
	}
	if v.machine.Total == 0 {
		t.Skip("gopsutil cannot read the memory here")
	}
	want := machineSentence(v.machine)
	if !strings.Contains(want, "B of memory") || !strings.Contains(want, "B free") {
		t.Errorf("sentence %q lacks the memory figures", want)
	}
	if !hasLabel(v.content, want) {
		t.Errorf("no label says %q", want)
	}
	offer := "Recommended to start: " + v.model.Title + " (Q4_K_M), about " + units.Bytes(v.model.Size) +
		", licence Apache-2.0, from Hugging Face (" + v.model.Repo + ")."
	if !hasLabel(v.content, offer) {
		t.Errorf("no label says %q", offer)
	}
	if !hasLabel(v.content, "Or drop a GGUF file you already have onto this window.") {
		t.Error("no drop hint")
	}
	// It renders headless without trouble.
	if img := u.win.Canvas().Capture(); img.Bounds().Dx() == 0 {
		t.Error("empty capture")
	}
}

// welcomeDownload taps the welcome view's download button and waits until
// the download stands in one of phases.
func welcomeDownload(t *testing.T, v *welcomeView, what string, phases ...downloadPhase) {
	t.Helper()
	test.Tap(v.download)
	waitFor(t, what, func() bool { return slices.Contains(phases, v.Phase()) })
}

func TestWelcomeDownload(t *testing.T) {
	srv := newModelServer(t, nil)
	t.Setenv("HF_ENDPOINT", srv.URL)
	u := newTestUI(t, &fakeGen{})
	v := u.welcome.(*welcomeView)
	welcomeDownload(t, v, "the download", phaseDone, phaseFailed)
	if v.Phase() == phaseFailed {
		t.Fatalf("download failed: %s", v.message.Text)
	}
	waitFor(t, "the model in the chat", func() bool { return !v.Visible() })
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
			if !v.message.Visible() || !strings.Contains(v.message.Text, tt.want) {
				t.Errorf("message %q (visible %v), want %q", v.message.Text, v.message.Visible(), tt.want)
			}
			if !v.Visible() || v.running.Visible() || v.download.Disabled() || v.skip.Disabled() {
				t.Error("after a failure the view should show, without progress, with its buttons enabled")
			}
			if !hasLabel(v.content, "Or drop a GGUF file you already have onto this window.") {
				t.Error("the drop hint went away")
			}
			if list, _ := u.core.Library().List(); len(list) != 0 {
				t.Errorf("library holds %d models after a failed download", len(list))
			}
			if v.download.Text != "Download again" {
				t.Errorf("button %q after a failure with nothing to resume", v.download.Text)
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
			if !strings.Contains(v.message.Text, tt.want) || strings.Contains(v.message.Text, "library:") {
				t.Errorf("message %q, want %q", v.message.Text, tt.want)
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

func TestWelcomeSkip(t *testing.T) {
	u := newTestUI(t, &fakeGen{})
	v := u.welcome.(*welcomeView)
	if !v.Visible() || u.core.Settings().Welcomed {
		t.Fatal("a new app should show the welcome")
	}
	test.Tap(v.skip)
	if v.Visible() {
		t.Error("Skip left the welcome view showing")
	}
	if !u.core.Settings().Welcomed {
		t.Error("Skip did not set Welcomed")
	}
	u.modelsChanged()
	if v.Visible() {
		t.Error("the welcome came back after Skip")
	}
	// Welcomed persists: a core over the same preferences starts with it.
	if !loadSettings(u.core.prefs).Welcomed {
		t.Error("Welcomed was not saved")
	}
}

// hasLabel reports whether o, looked into through containers and
// scrolls, contains a label whose text is text.
func hasLabel(o fyne.CanvasObject, text string) bool {
	switch o := o.(type) {
	case *widget.Label:
		return o.Text == text
	case *container.Scroll:
		return hasLabel(o.Content, text)
	case *fyne.Container:
		for _, c := range o.Objects {
			if hasLabel(c, text) {
				return true
			}
		}
	}
	return false
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
	test.Tap(v.download)
	waitFor(t, "half the file", func() bool {
		var done int64
		fyne.DoAndWait(func() {
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
	fyne.DoAndWait(func() { test.Tap(v.pause) })
	waitFor(t, "the pause", func() bool { return v.Phase() == phasePaused })
	if v.download.Text != "Resume the download" || !strings.Contains(v.message.Text, "paused") {
		t.Fatalf("button %q, message %q", v.download.Text, v.message.Text)
	}
	srv.setServe(nil)
	welcomeDownload(t, v, "the resumed download", phaseDone, phaseFailed)
	if v.Phase() != phaseDone {
		t.Fatalf("phase %d, message %q", v.Phase(), v.message.Text)
	}
	waitFor(t, "the model in the chat", func() bool { return !v.Visible() })
	if r := srv.Ranges(); len(r) < 2 || !strings.HasPrefix(r[len(r)-1], "bytes=") || r[len(r)-1] == "bytes=0-" {
		t.Errorf("ranges %q, want the last request to resume", r)
	}
}

// TestWelcomeDownloadCancel checks that Cancel drops a download with its
// partial data.
func TestWelcomeDownloadCancel(t *testing.T) {
	u, v, _ := startHalfDownload(t)
	fyne.DoAndWait(func() { test.Tap(v.cancel) })
	waitFor(t, "the cancel", func() bool { return v.Phase() == phaseFailed })
	if v.download.Text != "Download again" || v.message.Text != "The download was cancelled." {
		t.Errorf("button %q, message %q", v.download.Text, v.message.Text)
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
