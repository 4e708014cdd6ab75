package app

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
)

func TestChatShiftEnterNewLine(t *testing.T) {
	gen := &fakeGen{}
	u := chatUI(t, gen)
	e := u.chat.entry
	chatLocked(u, func() {
		test.Type(e, "line one")
		e.KeyDown(&fyne.KeyEvent{Name: desktop.KeyShiftLeft})
		e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
		e.KeyUp(&fyne.KeyEvent{Name: desktop.KeyShiftLeft})
		test.Type(e, "line two")
	})
	chatLocked(u, func() {
		if e.Text != "line one\nline two" {
			t.Errorf("entry %q, want two lines", e.Text)
		}
	})
	if n := len(gen.Requests()); n != 0 {
		t.Fatalf("Shift+Enter sent %d requests", n)
	}
	chatLocked(u, func() { e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEnter}) })
	req := chatWaitRequests(t, gen, 1)[0]
	if got := req.Messages[0].Content; got != "line one\nline two" {
		t.Errorf("sent %q", got)
	}
	chatWaitIdle(t, u)
}
