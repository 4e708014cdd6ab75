package app

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

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
			"This computer has 24 GB of memory, 9.1 GB free, and 8 processor cores: it runs models up to about 8B parameters at Q4_K_M comfortably."},
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
