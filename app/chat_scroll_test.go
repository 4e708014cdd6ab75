package app

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
)

// chatAtEnd fails t unless the chat's messages are scrolled to their end.
func chatAtEnd(t *testing.T, u *ui, when string) {
	t.Helper()
	chatLocked(u, func() {
		v := u.chat
		content := v.msgBox.MinSize().Height
		if content <= v.scroll.Size().Height {
			t.Fatalf("%s: the messages (%v tall) fit the view (%v): the test needs a longer reply", when, content, v.scroll.Size().Height)
		}
		if bottom := v.scroll.Offset.Y + v.scroll.Size().Height; bottom < content-1 {
			t.Errorf("%s: the view ends at %v of the messages' %v: the reply's end is out of view", when, bottom, content)
		}
	})
}

// TestChatEndsAtTheBottom streams a long reply: when it ends, the view
// shows its end (the stop reason and the reply's buttons), as it followed
// the reply while it streamed, and it stays there when the line under the
// messages shows and when the window narrows. A paragraph made anew is
// one line tall until it is laid out at the view's width, so the view
// scrolled to the bottom of a list far shorter than the one drawn and
// stayed near the reply's start; a view made shorter or narrower kept its
// offset, so the end went out of view.
func TestChatEndsAtTheBottom(t *testing.T) {
	story := strings.Repeat("Once upon a time a little cat wanted to fly over the big green park with her friends. ", 40)
	gen := &fakeGen{Chunks: []string{story[:len(story)/2], story[len(story)/2:], "\n\nThe end."}}
	u := chatUI(t, gen)
	u.win.Resize(fyne.NewSize(1280, 800))
	chatSend(u, "Tell me a story.")
	chatWaitRequests(t, gen, 1)
	chatWaitIdle(t, u)
	chatWaitShown(t, u, "The end.")
	chatAtEnd(t, u, "the reply ended")
	chatLocked(u, func() { u.chat.setStatus("This model wrote about 37 tokens/s.", false) })
	chatAtEnd(t, u, "a status line showed")
	u.win.Resize(fyne.NewSize(800, 600))
	chatAtEnd(t, u, "the window narrowed")
}
