package app

import (
	"bytes"
	"context"
	"image"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"saji/engine/gguf"
	"saji/engine/imagefile/imagetest"
	"saji/engine/synth"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"
)

// writePicture writes a w×h PNG picture at dir/name and returns its path.
func writePicture(t *testing.T, dir, name string, w, h int) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, imagetest.PNG(t, w, h), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// chatAttached waits until n pictures are attached to the next message.
func chatAttached(t *testing.T, u *ui, n int) {
	t.Helper()
	waitFor(t, "the pictures to attach", func() bool {
		got := 0
		chatLocked(u, func() { got = len(u.chat.attached) })
		return got == n
	})
}

// images counts the pictures drawn under o.
func images(o fyne.CanvasObject) int {
	switch o := o.(type) {
	case *canvas.Image:
		return 1
	case *fyne.Container:
		n := 0
		for _, c := range o.Objects {
			if c.Visible() {
				n += images(c)
			}
		}
		return n
	}
	return 0
}

// TestChatDropPicture drops a picture on the window: it is attached to
// the next message (not imported as a model), shows in the composer, goes
// with the message to the model as an image part, is stored with it, and
// shows in the message; the reply streams.
func TestChatDropPicture(t *testing.T) {
	gen := &fakeGen{Chunks: []string{"A ", "blue ", "square."}}
	u := chatUI(t, gen)
	entries, _ := u.core.Library().List()
	pic := writePicture(t, t.TempDir(), "square.png", 5, 4)
	u.dropped([]fyne.URI{storage.NewFileURI(pic)})
	chatAttached(t, u, 1)
	chatLocked(u, func() {
		if u.tabs.SelectedIndex() != tabChat {
			t.Errorf("tab %d selected, want the chat", u.tabs.SelectedIndex())
		}
		if !u.chat.attachBox.Visible() || images(u.chat.attachBox) != 1 {
			t.Errorf("the composer shows %d pictures", images(u.chat.attachBox))
		}
	})
	if after, _ := u.core.Library().List(); len(after) != len(entries) {
		t.Errorf("the picture went to the library: %d entries, had %d", len(after), len(entries))
	}
	chatSend(u, "What is this?")
	req := chatWaitRequests(t, gen, 1)[0]
	chatWaitShown(t, u, "A blue square.")
	chatWaitIdle(t, u)
	if len(req.Messages) != 1 {
		t.Fatalf("messages %+v", req.Messages)
	}
	parts := req.Messages[0].Parts
	if len(parts) != 2 || parts[0].Type != "image" || parts[0].Image == nil || parts[0].Image.Width() != 5 ||
		parts[1].Type != "text" || parts[1].Text != "What is this?" {
		t.Errorf("parts %+v", parts)
	}
	c, msgs := chatOpenMessages(t, u)
	want, _ := os.ReadFile(pic)
	if len(msgs) != 2 || len(msgs[0].Images) != 1 || !bytes.Equal(msgs[0].Images[0], want) {
		t.Fatalf("stored %+v", msgs)
	}
	if c.Title != "What is this?" {
		t.Errorf("title %q", c.Title)
	}
	chatLocked(u, func() {
		if len(u.chat.attached) != 0 || u.chat.attachBox.Visible() {
			t.Errorf("the composer still holds %d pictures", len(u.chat.attached))
		}
		if n := images(u.chat.msgBox); n != 1 {
			t.Errorf("the messages show %d pictures, want 1", n)
		}
	})

	// A picture alone is a message; an edit keeps the picture.
	u.dropped([]fyne.URI{storage.NewFileURI(pic)})
	chatAttached(t, u, 1)
	chatLocked(u, func() { u.chat.send() })
	reqs := chatWaitRequests(t, gen, 2)
	chatWaitIdle(t, u)
	if m := reqs[1].Messages[2]; len(m.Parts) != 2 || m.Parts[0].Image == nil || m.Parts[1].Text != "" {
		t.Errorf("a picture alone: %+v", m)
	}
	_, msgs = chatOpenMessages(t, u)
	chatLocked(u, func() { u.chat.editAndResend(msgs[2].ID, "And this?") })
	reqs = chatWaitRequests(t, gen, 3)
	chatWaitIdle(t, u)
	if m := reqs[2].Messages[2]; len(m.Parts) != 2 || m.Parts[0].Image == nil || m.Parts[1].Text != "And this?" {
		t.Errorf("the edited message: %+v", m)
	}
}

// TestChatPictureBlind sends a picture to the tiny model, which has no
// vision projector: the runner's reason shows in the chat.
func TestChatPictureBlind(t *testing.T) {
	u := chatUI(t, nil)
	u.dropped([]fyne.URI{storage.NewFileURI(writePicture(t, t.TempDir(), "a.png", 3, 3))})
	chatAttached(t, u, 1)
	chatSend(u, "What is this?")
	chatWaitShown(t, u, "cannot see images")
	chatWaitIdle(t, u)
	if s := chatShown(u); !strings.Contains(s, "The reply failed: model \"tiny-chat\" cannot see images (1 in the request): it has no vision projector (mmproj)") {
		t.Errorf("the chat shows:\n%s", s)
	}
}

func TestChatAttachErrors(t *testing.T) {
	u := chatUI(t, &fakeGen{})
	dir := t.TempDir()
	fake := filepath.Join(dir, "notes.png")
	os.WriteFile(fake, []byte("not a picture"), 0o644)
	u.chat.attachPaths([]string{fake, filepath.Join(dir, "gone.jpg")})
	waitFor(t, "the status", func() bool {
		s := ""
		chatLocked(u, func() { s = u.chat.status.Text })
		return strings.Contains(s, "notes.png: not a JPEG, PNG, WebP or GIF picture") && strings.Contains(s, "gone.jpg:")
	})
	var paths []string
	for range maxAttached + 2 {
		paths = append(paths, writePicture(t, dir, "p.png", 2, 2))
	}
	u.chat.attachPaths(paths)
	chatAttached(t, u, maxAttached)
	chatLocked(u, func() {
		if !strings.Contains(u.chat.status.Text, "at most 8 pictures") {
			t.Errorf("status %q", u.chat.status.Text)
		}
		u.chat.detach(0)
		if len(u.chat.attached) != maxAttached-1 || images(u.chat.attachBox) != maxAttached-1 {
			t.Errorf("after removing one: %d attached", len(u.chat.attached))
		}
	})
}

func TestPastedPaths(t *testing.T) {
	dir := t.TempDir()
	a, b := writePicture(t, dir, "a.png", 1, 1), writePicture(t, dir, "b.JPG", 1, 1)
	text := filepath.Join(dir, "c.txt")
	os.WriteFile(text, []byte("x"), 0o644)
	tests := []struct {
		name, text string
		want       []string
	}{
		{"a path", a, []string{a}},
		{"file URIs", "file://" + a + "\r\nfile://" + b + "\n", []string{a, b}},
		{"text", "hello", nil},
		{"a path and text", a + "\nhello", nil},
		{"not a picture", text, nil},
		{"missing", filepath.Join(dir, "gone.png"), nil},
		{"relative", "a.png", nil},
		{"a folder", dir + "/x.png/..", nil},
		{"empty", "", nil},
	}
	for _, c := range tests {
		if got := pastedPaths(c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestChatPaste pastes the path of a picture (what a file manager's copy
// gives Fyne's text clipboard): it is attached, not typed; other text is
// typed.
func TestChatPaste(t *testing.T) {
	u := chatUI(t, &fakeGen{})
	pic := writePicture(t, t.TempDir(), "a.png", 2, 2)
	clip := test.NewClipboard()
	clip.SetContent("file://" + pic)
	chatLocked(u, func() { u.chat.entry.TypedShortcut(&fyne.ShortcutPaste{Clipboard: clip}) })
	chatAttached(t, u, 1)
	clip.SetContent("hello")
	chatLocked(u, func() {
		u.chat.entry.TypedShortcut(&fyne.ShortcutPaste{Clipboard: clip})
		if u.chat.entry.Text != "hello" {
			t.Errorf("entry %q", u.chat.entry.Text)
		}
	})
}

func TestShrink(t *testing.T) {
	for _, c := range []struct{ w, h, side, ww, wh int }{
		{10, 5, 20, 10, 5}, {400, 100, 200, 200, 50}, {100, 400, 200, 50, 200}, {1000, 1, 100, 100, 1},
	} {
		got := shrink(image.NewRGBA(image.Rect(0, 0, c.w, c.h)), c.side).Bounds()
		if got.Dx() != c.ww || got.Dy() != c.wh {
			t.Errorf("%d×%d within %d: %d×%d, want %d×%d", c.w, c.h, c.side, got.Dx(), got.Dy(), c.ww, c.wh)
		}
	}
}

// TestOpenPicture opens a picture as a launch or a later launch's handover
// does ("Open with Saji"): it goes with the chat's next message.
func TestOpenPicture(t *testing.T) {
	u := chatUI(t, &fakeGen{})
	u.openModels([]string{writePicture(t, t.TempDir(), "a.webp.png", 2, 2)})
	chatAttached(t, u, 1)
}

// visionModel writes Saji's tiny Gemma 3 that can see (random weights) and
// its projector, mmproj-tiny-vision.gguf, beside it in a folder of their
// own, and returns the model's path.
func visionModel(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "tiny-vision.gguf")
	err := synth.WriteVisionPair(context.Background(), path, filepath.Join(dir, "mmproj-tiny-vision.gguf"), "tiny-gemma3-vision", gguf.FileTypeMostlyQ8_0, 1)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// textRecorder is the real engine's Generator, recording the text of
// each update it streams.
type textRecorder struct {
	Generator
	mu    sync.Mutex
	texts []string
}

func (g *textRecorder) Generate(ctx context.Context, req ReplyRequest, emit func(Update)) (ReplyStats, error) {
	return g.Generator.Generate(ctx, req, func(up Update) {
		if up.Text != "" {
			g.mu.Lock()
			g.texts = append(g.texts, up.Text)
			g.mu.Unlock()
		}
		emit(up)
	})
}

// TestChatPictureSeen drops a picture into a chat with a tiny model that
// can see, through the app's real engine: the library pairs the model with
// the projector beside it, the picture goes with the question, and the
// reply streams in pieces and is stored.
func TestChatPictureSeen(t *testing.T) {
	c := newTestCore(t)
	e, err := c.Library().Import(context.Background(), visionModel(t), false, nil)
	if err == nil {
		e, err = c.Library().Get(e.Name)
	}
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(e.Projector) != "mmproj-tiny-vision.gguf" {
		t.Fatalf("the model's projector: %q", e.Projector)
	}
	gen := &textRecorder{Generator: c}
	u := newUI(test.NewTempApp(t), c, gen)
	t.Cleanup(func() { u.win.Close() })
	u.chat.refreshModels()
	chatLocked(u, func() {
		if u.chat.draft.Model != e.Name {
			t.Fatalf("the new chat's model is %q, want %q", u.chat.draft.Model, e.Name)
		}
	})
	u.dropped([]fyne.URI{storage.NewFileURI(writePicture(t, t.TempDir(), "square.png", 64, 48))})
	chatAttached(t, u, 1)
	chatSend(u, "What is in this picture?")
	chatWaitIdle(t, u)
	_, msgs := chatOpenMessages(t, u)
	if len(msgs) != 2 || len(msgs[0].Images) != 1 {
		t.Fatalf("stored %d messages %+v", len(msgs), msgs)
	}
	reply := msgs[1]
	gen.mu.Lock()
	texts := gen.texts
	gen.mu.Unlock()
	if reply.Role != "assistant" || !reply.Done || reply.Tokens < 2 || reply.Content == "" || strings.Join(texts, "") != reply.Content || len(texts) < 2 {
		t.Fatalf("the reply %+v, streamed as %q", reply, texts)
	}
	if s := chatShown(u); strings.Contains(s, "The reply failed") || strings.Contains(s, "cannot see") {
		t.Errorf("the chat shows:\n%s", s)
	}
	chatLocked(u, func() {
		if n := images(u.chat.msgBox); n != 1 {
			t.Errorf("the messages show %d pictures, want 1", n)
		}
	})
}
