package app

import (
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

func TestChatCodeCopy(t *testing.T) {
	gen := &fakeGen{Chunks: []string{"Try:\n```sh\nls -l\n```\n"}}
	u := chatUI(t, gen)
	chatSend(u, "list files")
	chatWaitShown(t, u, "tokens/s")
	chatWaitIdle(t, u)
	var copyBtn *widget.Button
	chatLocked(u, func() {
		for _, mv := range u.chat.views {
			for _, o := range mv.body.Box.Objects {
				if b := chatButton(o, "Copy"); b != nil {
					copyBtn = b
				}
			}
		}
	})
	if copyBtn == nil {
		t.Fatal("no code block with a Copy button")
	}
	chatLocked(u, func() { test.Tap(copyBtn) })
	if got := u.app.Clipboard().Content(); got != "ls -l" {
		t.Errorf("clipboard %q, want %q", got, "ls -l")
	}
}
