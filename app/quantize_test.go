package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"saji/engine/library"
	"saji/engine/synth"
	"saji/engine/units"
)

// f32Model adds a tiny F32 model to u's library (by reference) and
// returns its entry.
func f32Model(t *testing.T, u *ui) library.Entry {
	t.Helper()
	src := filepath.Join(t.TempDir(), "tiny-f32.gguf")
	if err := synth.WriteTiny(context.Background(), src, "f32", 7); err != nil {
		t.Fatal(err)
	}
	e, err := u.core.Library().Import(context.Background(), src, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e.FileType != "F32" {
		t.Fatalf("the source is %s", e.FileType)
	}
	return e
}

func TestQuantizeDialog(t *testing.T) {
	u := newTestUI(t, &fakeGen{})
	src := f32Model(t, u)
	lib := u.core.Library()
	for _, typ := range []string{"Q8_0", "Q4_K_M"} {
		q := quantizeDialog(u, src)
		q.typeSel.SetSelected(typ)
		want := "tiny-" + typ
		if q.name.Text != want {
			t.Errorf("%s: the name proposed is %q, want %q", typ, q.name.Text, want)
		}
		if est := estimateSize(src, typ); est <= 0 || est >= src.Size || !strings.Contains(q.estimate.Text, units.Bytes(est)) {
			t.Errorf("%s: estimate %q (%d of %d)", typ, q.estimate.Text, est, src.Size)
		}
		test.Tap(q.startBtn)
		q.wait()
		outcome, msg, _ := q.state()
		if outcome != "done" {
			t.Fatalf("%s: %s: %s", typ, outcome, msg)
		}
		e, err := lib.Get(want)
		if err != nil || e.Err != nil || e.ByReference || e.FileType != typ || e.Size >= src.Size {
			t.Fatalf("%s: library entry %+v, %v", typ, e, err)
		}
		if !strings.Contains(u.library.status.Text, want+" was created") {
			t.Errorf("the library says %q", u.library.status.Text)
		}
	}
	if n := len(u.library.entries); n != 3 {
		t.Errorf("the library view lists %d models, want 3", n)
	}

	// The same name again is refused before any work.
	q := quantizeDialog(u, src)
	q.typeSel.SetSelected("Q8_0")
	test.Tap(q.startBtn)
	if !strings.Contains(q.status.Text, "already in the library") {
		t.Errorf("a taken name says %q", q.status.Text)
	}
	q.name.SetText("bad/name")
	test.Tap(q.startBtn)
	if !strings.Contains(q.status.Text, "cannot contain") {
		t.Errorf("a bad name says %q", q.status.Text)
	}
}

func TestQuantizeCancel(t *testing.T) {
	u := newTestUI(t, &fakeGen{})
	src := f32Model(t, u)
	q := quantizeDialog(u, src)
	q.typeSel.SetSelected("Q4_K_M")
	q.name.SetText("tiny-cancelled")
	started, release := make(chan struct{}), make(chan struct{})
	first := true
	q.progressHook = func(done, total int64) {
		if first {
			first = false
			close(started)
			<-release
		}
	}
	test.Tap(q.startBtn)
	<-started
	if q.closeBtn.Text != "Cancel" || !q.startBtn.Disabled() {
		t.Errorf("while running: close button %q, start disabled %v", q.closeBtn.Text, q.startBtn.Disabled())
	}
	test.Tap(q.closeBtn)
	close(release)
	q.wait()
	outcome, msg, _ := q.state()
	if outcome != "cancelled" || !strings.Contains(msg, "Nothing was left behind") {
		t.Fatalf("outcome %s: %s", outcome, msg)
	}
	if _, err := u.core.Library().Get("tiny-cancelled"); !errors.Is(err, library.ErrNotFound) {
		t.Errorf("a cancelled run is in the library: %v", err)
	}
	des, _ := os.ReadDir(u.core.Library().Dir())
	for _, de := range des {
		if strings.Contains(de.Name(), "cancelled") {
			t.Errorf("a cancelled run left %s", de.Name())
		}
	}
	if q.closeBtn.Text != "Close" || q.startBtn.Disabled() {
		t.Error("after cancelling, the dialog is not ready again")
	}
}

// TestLibraryQuantizeButton checks that the library offers Quantize...
// for unquantized models only.
func TestLibraryQuantizeButton(t *testing.T) {
	u := newTestUI(t, &fakeGen{})
	src := f32Model(t, u)
	if _, err := u.core.Library().Import(context.Background(), tinyModel(t), false, nil); err != nil {
		t.Fatal(err)
	}
	u.modelsChanged()
	v := u.library
	v.selectModel(src.Name)
	if v.quantizeBtn.Disabled() {
		t.Error("Quantize... is disabled for an F32 model")
	}
	v.selectModel("tiny-chat")
	if !v.quantizeBtn.Disabled() {
		t.Error("Quantize... is enabled for a Q8_0 model")
	}
}

func TestQuantizeHelpers(t *testing.T) {
	for _, tc := range []struct{ name, typ, want string }{
		{"llama-F16", "Q4_K_M", "llama-Q4_K_M"},
		{"model.bf16", "Q8_0", "model-Q8_0"},
		{"F16", "Q8_0", "F16-Q8_0"},
		{"plain", "Q2_K", "plain-Q2_K"},
	} {
		if got := defaultQuantizeName(tc.name, tc.typ); got != tc.want {
			t.Errorf("defaultQuantizeName(%q, %s) = %q, want %q", tc.name, tc.typ, got, tc.want)
		}
	}
	e := library.Entry{FileType: "F16", Size: 16_000}
	if got := estimateSize(e, "Q8_0"); got != 8_500 {
		t.Errorf("estimate of Q8_0 from F16: %d", got)
	}
	for ft, ok := range map[string]bool{"F32": true, "F16": true, "BF16": true, "Q8_0": false, "": false} {
		if canQuantize(library.Entry{FileType: ft}) != ok {
			t.Errorf("canQuantize(%q) != %v", ft, ok)
		}
	}
}
