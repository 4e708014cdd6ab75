package app

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"saji/engine/fit"
	"saji/engine/hardware"
)

// TestDiscoverBreakdownSentence opens a level's details: they start with
// the verdict as the wizard says it, one sentence ending in one full
// stop (a second was added: "39 MB of 24 GB free..").
func TestDiscoverBreakdownSentence(t *testing.T) {
	u := newDiscoverUI(t, "", 1<<20)
	const gb = 1_000_000_000
	p := fit.Plan{Model: fit.ModelShape{Layers: 4}, MaxContext: 2048, DecodeTokensPerSec: 604,
		Machine:   hardware.Machine{Memory: hardware.Memory{Total: 25 * gb, Available: 24 * gb}},
		Breakdown: fit.Breakdown{RAM: 39_000_000, Total: 39_000_000}, Verdict: fit.Verdict{Kind: fit.CPUOnly}}
	u.discover.locked(func() { u.discover.showBreakdown("Q8_0", &p) })
	var text string
	for _, o := range u.win.Canvas().Overlays().List() {
		walk(o, func(o fyne.CanvasObject) bool {
			if l, ok := o.(*widget.Label); ok && strings.Contains(l.Text, "free") {
				text = l.Text
				return true
			}
			return false
		})
	}
	if text == "" {
		t.Fatal("no details dialog with the verdict")
	}
	first, _, _ := strings.Cut(text, "\n")
	if want, _ := verdictLine(p); first != want {
		t.Errorf("the details start %q, want %q", first, want)
	}
}
