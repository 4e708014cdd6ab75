package app

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"saji/engine/model"
)

func TestWelcomeMachineSentence(t *testing.T) {
	tests := []struct {
		m    machineInfo
		want string
	}{
		{machineInfo{Total: 24 * gibibyte, Available: gibibyte * 91 / 10, Cores: 8},
			"This computer has 24 GB of memory, 9.1 GB free, and 8 processor cores: it runs models up to about 8B parameters at Q4_K_M comfortably."},
		{machineInfo{Total: 64 * gibibyte, Available: 40 * gibibyte, Cores: 12},
			"This computer has 64 GB of memory, 40 GB free, and 12 processor cores: it runs models up to about 32B parameters at Q4_K_M comfortably."},
		{machineInfo{Total: 8 * gibibyte, Available: 3 * gibibyte},
			"This computer has 8.0 GB of memory, 3.0 GB free: it runs models up to about 3B parameters at Q4_K_M comfortably."},
		{machineInfo{Total: 4 * gibibyte, Available: gibibyte / 4, Cores: 2},
			"This computer has 4.0 GB of memory, 0.2 GB free, and 2 processor cores: that is little free memory for a language model. Close some programs, or start with the smallest model (0.5B parameters)."},
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
	if got, want := qwen15B.URL(), "https://huggingface.co/Qwen/Qwen2.5-1.5B-Instruct-GGUF/resolve/main/qwen2.5-1.5b-instruct-q4_k_m.gguf"; got != want {
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
	if !strings.Contains(want, "GB of memory") || !strings.Contains(want, "GB free") {
		t.Errorf("sentence %q lacks the memory figures", want)
	}
	if !hasLabel(v.content, want) {
		t.Errorf("no label says %q", want)
	}
	offer := "Recommended to start: " + v.model.Title + " (Q4_K_M), about " + downloadSizeText(v.model.Size) +
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

func TestWelcomeDownload(t *testing.T) {
	srv := newModelServer(t, nil)
	t.Setenv("HF_ENDPOINT", srv.URL)
	u := newTestUI(t, &fakeGen{})
	v := u.welcome.(*welcomeView)
	test.Tap(v.download)
	waitFor(t, "the download", func() bool { return v.Phase() == phaseDone || v.Phase() == phaseFailed })
	if v.Phase() == phaseFailed {
		t.Fatalf("download failed: %s", v.message.Text)
	}
	want := "/" + v.model.Repo + "/resolve/main/" + v.model.File
	if paths := srv.Paths(); len(paths) != 1 || paths[0] != want {
		t.Errorf("requests %q, want %q", paths, want)
	}
	list, err := u.core.Library().List()
	if err != nil || len(list) != 1 || list[0].Name != v.model.Name() || list[0].Err != nil {
		t.Fatalf("library: %+v, %v", list, err)
	}
	if v.Visible() {
		t.Error("the welcome view still shows with a model in the library")
	}
	if u.tabs.SelectedIndex() != tabChat {
		t.Errorf("tab %d selected, want the chat", u.tabs.SelectedIndex())
	}
	if u.core.Settings().Welcomed {
		t.Error("a download set Welcomed; only Skip does")
	}
}

func TestWelcomeDownloadFails(t *testing.T) {
	srv := newModelServer(t, nil)
	srv.setServe(func(w http.ResponseWriter, _ *http.Request, _ []byte) { http.NotFound(w, nil) })
	t.Setenv("HF_ENDPOINT", srv.URL)
	u := newTestUI(t, &fakeGen{})
	v := u.welcome.(*welcomeView)
	test.Tap(v.download)
	waitFor(t, "the download to fail", func() bool { return v.Phase() == phaseFailed || v.Phase() == phaseDone })
	if v.Phase() != phaseFailed {
		t.Fatal("a 404 download succeeded")
	}
	if !v.message.Visible() || !strings.Contains(v.message.Text, "does not have this file") {
		t.Errorf("message %q (visible %v)", v.message.Text, v.message.Visible())
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

func TestWelcomeRateMeter(t *testing.T) {
	var r rateMeter
	t0 := time.Unix(1000, 0)
	if text, frac, ok := r.update(t0, 0, 100_000_000); !ok || frac != 0 || text != "0 KB of 100 MB" {
		t.Errorf("first: %q %v %v", text, frac, ok)
	}
	if _, _, ok := r.update(t0.Add(50*time.Millisecond), 1_000_000, 100_000_000); ok {
		t.Error("an update 50 ms after the last one shows")
	}
	text, frac, ok := r.update(t0.Add(2*time.Second), 20_000_000, 100_000_000)
	if !ok || frac != 0.2 || text != "20 MB of 100 MB · 10 MB/s · about 8 s left" {
		t.Errorf("after 2 s: %q %v %v", text, frac, ok)
	}
	if text, _, ok := r.update(t0.Add(2*time.Second+time.Millisecond), 100_000_000, 100_000_000); !ok || !strings.HasPrefix(text, "100 MB of 100 MB") {
		t.Errorf("the end always shows: %q %v", text, ok)
	}
	if text, frac, _ := (&rateMeter{}).update(t0, 5_000_000, -1); frac != -1 || text != "5.0 MB" {
		t.Errorf("unknown total: %q %v", text, frac)
	}
}

func TestWelcomeETA(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{300 * time.Millisecond, "about 1 s left"},
		{45 * time.Second, "about 45 s left"},
		{150 * time.Second, "about 3 min left"},
		{80 * time.Minute, "about 1 h 20 min left"},
	}
	for _, tt := range tests {
		if got := etaText(tt.d); got != tt.want {
			t.Errorf("%v: %q, want %q", tt.d, got, tt.want)
		}
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

func TestWelcomeDownloadResumes(t *testing.T) {
	srv := newModelServer(t, nil)
	srv.setServe(halfThenClose)
	t.Setenv("HF_ENDPOINT", srv.URL)
	u := newTestUI(t, &fakeGen{})
	v := u.welcome.(*welcomeView)
	test.Tap(v.download)
	waitFor(t, "the download to break off", func() bool { return v.Phase() == phaseFailed || v.Phase() == phaseDone })
	if v.Phase() != phaseFailed || v.download.Text != "Resume the download" || !strings.Contains(v.message.Text, "broke off") {
		t.Fatalf("phase %d, button %q, message %q", v.Phase(), v.download.Text, v.message.Text)
	}
	srv.setServe(nil)
	test.Tap(v.download)
	waitFor(t, "the resumed download", func() bool { return v.Phase() == phaseDone || v.Phase() == phaseFailed })
	if v.Phase() != phaseDone || v.Visible() {
		t.Fatalf("phase %d, message %q, welcome visible %v", v.Phase(), v.message.Text, v.Visible())
	}
	if r := srv.Ranges(); len(r) != 2 || !strings.HasPrefix(r[1], "bytes=") {
		t.Errorf("ranges %q, want the second request to resume", r)
	}
}
