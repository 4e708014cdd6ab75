package app

import (
	"context"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"saji/internal/instance"
)

// windowLog is a window that records being hidden, shown and closed.
type windowLog struct {
	fyne.Window
	hidden, shown, closed, focused int
}

func (w *windowLog) Hide()         { w.hidden++; w.Window.Hide() }
func (w *windowLog) Show()         { w.shown++; w.Window.Show() }
func (w *windowLog) Close()        { w.closed++ }
func (w *windowLog) RequestFocus() { w.focused++; w.Window.RequestFocus() }

// TestHandoverImportsTheModel hands a model file to the running app as a
// second launch does: it lands in the library, opens in the chat, and the
// window comes to the front.
func TestHandoverImportsTheModel(t *testing.T) {
	u := newTestUI(t, &fakeGen{})
	win := &windowLog{Window: u.win}
	u.win = win
	dir := t.TempDir()
	inst, err := instance.Claim(context.Background(), dir, nil)
	if err != nil || inst == nil {
		t.Fatal(inst, err)
	}
	u.serveInstance(inst)
	defer inst.Close()

	model := tinyModel(t)
	if second, err := instance.Claim(context.Background(), dir, []string{model}); second != nil || err != nil {
		t.Fatalf("the second launch: %v, %v; want a handover", second, err)
	}
	deadline := time.Now().Add(time.Minute) // a hang, not a slow machine
	for {
		entries, _ := u.core.Library().List()
		if len(entries) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the handed-over model never reached the library")
		}
		time.Sleep(10 * time.Millisecond)
	}
	u.bg.wait()
	entries, _ := u.core.Library().List()
	var model0 string
	chatLocked(u, func() { model0 = u.chat.draft.Model })
	if model0 != entries[0].Name {
		t.Errorf("the chat's model is %q, want the handed-over %q", model0, entries[0].Name)
	}
	if u.tabs.SelectedIndex() != tabChat {
		t.Errorf("tab %d shows, want the chat", u.tabs.SelectedIndex())
	}
	if win.shown == 0 || win.focused == 0 {
		t.Errorf("the window was shown %d and focused %d times, want both", win.shown, win.focused)
	}
}
