package app

import (
	"context"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"saji/engine/fit"
	"saji/engine/hardware"
	"saji/engine/hub"
	"saji/engine/model"
	"saji/engine/units"
)

func TestWelcomeMachineSentence(t *testing.T) {
	const gb = 1_000_000_000 // memory shows in decimal units, as every size
	machine := func(total, avail uint64, cores int, bandwidth float64) hardware.Machine {
		return hardware.Machine{CPU: hardware.CPU{Cores: cores, Threads: cores}, Bandwidth: bandwidth,
			Memory: hardware.Memory{Total: total, Available: avail}}
	}
	tests := []struct {
		m    hardware.Machine
		want string
	}{
		{machine(24*gb, gb*91/10, 8, 0),
			"This computer has 24 GB of memory, 9.1 GB free, and 8 processor cores: it has room for models up to about 8B parameters at Q4_K_M."},
		// The machine: 2 cores, where 32B fits but crawls.
		{machine(24*gb, 23*gb, 2, 25e9),
			"This computer has 24 GB of memory, 23 GB free, and 2 processor cores: it runs models up to about 3B parameters at Q4_K_M comfortably (about 9.9 tokens/s). Larger ones, up to 32B, run slowly (about 1.2 tokens/s)."},
		{machine(64*gb, 40*gb, 12, 200e9),
			"This computer has 64 GB of memory, 40 GB free, and 12 processor cores: it runs models up to about 32B parameters at Q4_K_M comfortably (about 9.6 tokens/s)."},
		{machine(8*gb, 3*gb, 0, 0),
			"This computer has 8.0 GB of memory, 3.0 GB free: it has room for models up to about 3B parameters at Q4_K_M."},
		{machine(8*gb, 6*gb, 2, 2e9),
			"This computer has 8.0 GB of memory, 6.0 GB free, and 2 processor cores: models up to about 8B parameters fit, but run slowly here, even the smallest (about 2.1 tokens/s)."},
		{machine(4*gibibyte, gibibyte/4, 2, 10e9),
			"This computer has 4.3 GB of memory, 268 MB free, and 2 processor cores: that is little free memory for a language model. Close some programs, or start with the smallest model (0.5B parameters)."},
		{hardware.Machine{}, "Saji could not read this computer's memory size. Small models (1.5B to 3B parameters) run on most computers."},
	}
	for _, tt := range tests {
		if got := machineSentence(tt.m); got != tt.want {
			t.Errorf("%+v:\n got %q\nwant %q", tt.m, got, tt.want)
		}
	}
}

func TestWelcomeRecommendedModel(t *testing.T) {
	q8 := qwen15B
	q8.Level, q8.File, q8.Size = "Q8_0", "qwen2.5-1.5b-instruct-q8_0.gguf", 1894*mbytes
	q05q8 := qwen05B
	q05q8.Level, q05q8.File, q05q8.Size = "Q8_0", "qwen2.5-0.5b-instruct-q8_0.gguf", 676*mbytes
	tests := []struct {
		total, avail uint64
		want         recommendedModel
	}{
		{0, 0, qwen15B},
		{2 * gibibyte, gibibyte, qwen05B},
		{4*gibibyte - 1, 3 * gibibyte, q05q8},
		{4 * gibibyte, 3 * gibibyte, qwen15B},
		// Q8_0 fits twice over: hub.Recommend takes it, as Discover and
		// the wizard do.
		{64 * gibibyte, 40 * gibibyte, q8},
	}
	for _, tt := range tests {
		m := hardware.Machine{Memory: hardware.Memory{Total: tt.total, Available: tt.avail}}
		if got := recommendModel(m); got != tt.want {
			t.Errorf("%d bytes, %d free: %s %s, want %s %s", tt.total, tt.avail, got.Title, got.Level, tt.want.Title, tt.want.Level)
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
	if v.machine.Memory.Total == 0 {
		t.Skip("gopsutil cannot read the memory here")
	}
	want := machineSentence(v.machine)
	if !strings.Contains(want, "B of memory") || !strings.Contains(want, "B free") {
		t.Errorf("sentence %q lacks the memory figures", want)
	}
	if !hasLabel(v.content, want) {
		t.Errorf("no label says %q", want)
	}
	offer := "Recommended to start: " + v.model.Title + " (" + v.model.Level + "), about " + units.Bytes(v.model.Size) +
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

// TestAdviceAgrees shows the first-run page and the wizard on the issue's
// machine (2 cores, where a 12B model fits but writes about 1.5 tokens a
// second): they name the same level for the same model with the same
// verdict, and neither calls a slow model comfortable.
func TestAdviceAgrees(t *testing.T) {
	u := newTestUI(t, &fakeGen{})
	m := hardware.Machine{CPU: hardware.CPU{Model: "Test CPU", Cores: 2, Threads: 2}, Bandwidth: 12e9,
		Memory: hardware.Memory{Total: 24 * gib, Available: 22 * gib}}
	u.core.detect = func(context.Context) (hardware.Machine, error) { return m, nil }
	v := u.welcome.(*welcomeView)
	v.describe()
	waitFor(t, "the welcome's verdict", func() bool {
		shown := false
		v.locked(func() { shown = v.offerFit.Visible() })
		return shown
	})
	var offer, verdict, sentence string
	var level string
	v.locked(func() { offer, verdict, sentence, level = v.offer.Text, v.offerFit.Text, v.memory.Text, v.model.Level })
	w := u.showWizard()
	waitFor(t, "the machine", func() bool { return w.snapshot().Known })
	found := false
	for _, p := range w.snapshot().Picks {
		if p.Title == v.model.Title {
			found = true
			if p.Level != level || p.Verdict != verdict {
				t.Errorf("the welcome offers %s at %s (%q), the wizard %s (%q)", p.Title, level, verdict, p.Level, p.Verdict)
			}
		}
		if p.Title == "Gemma 3 12B Instruct" && !strings.HasPrefix(p.Verdict, "Runs, slowly: about ") {
			t.Errorf("12B on 2 cores: %q", p.Verdict)
		}
		comfortable := strings.HasPrefix(p.Verdict, "Fits")
		if c, ok := (recommendedModel{Repo: p.Repo}).candidate(); ok {
			plan, err := fit.PlanFor(c.shape(p.Level), m, fit.Desktop(useCases[useChat].context))
			if err != nil || comfortable != (plan.Pace() == fit.Comfortable) {
				t.Errorf("%s %s: %q, pace %d", p.Title, p.Level, p.Verdict, plan.Pace())
			}
		}
	}
	if !found {
		t.Errorf("the wizard does not list the welcome's %s", v.model.Title)
	}
	if !strings.Contains(offer, "("+level+")") {
		t.Errorf("offer %q does not name %s", offer, level)
	}
	// The page's sentence calls comfortable only what the planner does.
	if !strings.Contains(sentence, "comfortably (about ") || !strings.Contains(sentence, "run slowly (about ") {
		t.Errorf("sentence %q", sentence)
	}
}
