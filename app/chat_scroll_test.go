package app

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
)

// TestChatEndsAtTheBottom streams a long reply in a narrow window: when
// it ends, the view shows its end (the stop reason and the reply's
// buttons), as it followed the reply while it streamed. A paragraph made
// anew is one line tall until it is laid out at the view's width, so the
// view scrolled to the bottom of a list far shorter than the one drawn
// and stayed near the reply's start.
func TestChatEndsAtTheBottom(t *testing.T) {
	story := strings.Repeat("Once upon a time a little cat wanted to fly over the big green park with her friends. ", 40)
	gen := &fakeGen{Chunks: []string{story[:len(story)/2], story[len(story)/2:], "\n\nThe end."}}
	u := chatUI(t, gen)
	u.win.Resize(fyne.NewSize(800, 600))
	chatSend(u, "Tell me a story.")
	chatWaitRequests(t, gen, 1)
	chatWaitIdle(t, u)
	chatWaitShown(t, u, "The end.")
	chatLocked(u, func() {
		v := u.chat
		content := v.msgBox.MinSize().Height
		if content <= v.scroll.Size().Height {
			t.Fatalf("the messages (%v tall) fit the view (%v): the test needs a longer reply", content, v.scroll.Size().Height)
		}
		if bottom := v.scroll.Offset.Y + v.scroll.Size().Height; bottom < content-1 {
			t.Errorf("the view ends at %v of the messages' %v: the reply's end is out of view", bottom, content)
		}
	})
}
