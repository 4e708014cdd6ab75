package app

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"saji/app/store"
	"saji/engine/chat"
)

// chatUI returns a main window whose library holds the tiny model (by
// reference, not loaded), chosen in the chat's picker; gen writes the
// replies.
func chatUI(t *testing.T, gen Generator) *ui {
	t.Helper()
	return chatUIOver(t, newTestCore(t), gen)
}

// chatUIOver is chatUI over core c.
func chatUIOver(t *testing.T, c *core, gen Generator) *ui {
	t.Helper()
	if gen == nil {
		gen = c
	}
	if _, err := c.Library().Import(context.Background(), tinyModel(t), false, nil); err != nil {
		t.Fatal(err)
	}
	u := newUI(test.NewTempApp(t), c, gen)
	t.Cleanup(func() { u.win.Close() })
	u.chat.refreshModels()
	if u.chat.draft.Model == "" {
		t.Fatal("no model chosen for a new chat")
	}
	return u
}

// chatLocked runs f holding the chat's lock, as the UI goroutine would.
func chatLocked(u *ui, f func()) {
	u.chat.mu.Lock()
	defer u.chat.mu.Unlock()
	f()
}

// chatSend types text into the message entry and presses Enter.
func chatSend(u *ui, text string) {
	chatLocked(u, func() {
		test.Type(u.chat.entry, text)
		u.chat.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	})
}

// chatShown returns the visible text of the messages, one piece a line.
func chatShown(u *ui) string {
	var b strings.Builder
	chatLocked(u, func() { chatVisibleText(u.chat.msgBox, &b) })
	return b.String()
}

// chatVisibleText writes the text of o's visible labels, rich texts and
// buttons to b.
func chatVisibleText(o fyne.CanvasObject, b *strings.Builder) {
	if o == nil || !o.Visible() {
		return
	}
	switch o := o.(type) {
	case *widget.Label:
		b.WriteString(o.Text + "\n")
	case *widget.Button:
		b.WriteString("[" + o.Text + "]\n")
	case *mdText:
		b.WriteString(o.String() + "\n")
	case *widget.RichText:
		for _, s := range o.Segments {
			b.WriteString(s.Textual() + "\n")
		}
	case *widget.Accordion:
		for _, it := range o.Items {
			b.WriteString("{" + it.Title + "}\n")
			if it.Open {
				chatVisibleText(it.Detail, b)
			}
		}
	case *container.Scroll:
		chatVisibleText(o.Content, b)
	case *fyne.Container:
		for _, c := range o.Objects {
			chatVisibleText(c, b)
		}
	}
}

// chatWaitShown waits until the messages show want.
func chatWaitShown(t *testing.T, u *ui, want string) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%q in the messages", want), func() bool { return strings.Contains(chatShown(u), want) })
}

// chatWaitIdle waits until no reply streams.
func chatWaitIdle(t *testing.T, u *ui) {
	t.Helper()
	waitFor(t, "the reply to end", func() bool {
		idle := false
		chatLocked(u, func() { idle = len(u.chat.replies) == 0 })
		return idle
	})
}

// chatWaitRequests waits until gen has seen n requests and returns them.
func chatWaitRequests(t *testing.T, gen *fakeGen, n int) []ReplyRequest {
	t.Helper()
	waitFor(t, fmt.Sprintf("%d requests", n), func() bool { return len(gen.Requests()) >= n })
	return gen.Requests()
}

// chatOpenMessages returns the open conversation's stored messages.
func chatOpenMessages(t *testing.T, u *ui) (store.Conversation, []store.Message) {
	t.Helper()
	var id int64
	chatLocked(u, func() {
		if u.chat.conv != nil {
			id = u.chat.conv.ID
		}
	})
	if id == 0 {
		t.Fatal("no conversation is open")
	}
	c, msgs, err := u.core.Store().Conversation(id)
	if err != nil {
		t.Fatal(err)
	}
	return c, msgs
}

// chatRoles sums up messages as "role: content" lines.
func chatRoles(msgs []chat.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Role+": "+m.Content)
	}
	return out
}

func TestChatSendStreams(t *testing.T) {
	gen := &fakeGen{Chunks: []string{"Hello", " world", ", here is `code`:\n```go\nx := 1\n```\nDone."}, Step: make(chan struct{})}
	u := chatUI(t, gen)
	model := u.chat.draft.Model
	if u.win.Canvas().Focused() != u.chat.entry {
		t.Errorf("the message entry does not have the focus")
	}
	chatSend(u, "Hi there, please write some code for me, a long first message")
	req := chatWaitRequests(t, gen, 1)[0]
	if got, want := chatRoles(req.Messages), []string{"user: Hi there, please write some code for me, a long first message"}; !reflect.DeepEqual(got, want) {
		t.Errorf("request messages %q, want %q", got, want)
	}
	if req.Model != model {
		t.Errorf("request model %q, want %q", req.Model, model)
	}
	chatWaitShown(t, u, "Reading the prompt...")
	chatLocked(u, func() {
		if u.chat.entry.Text != "" {
			t.Errorf("entry still holds %q after sending", u.chat.entry.Text)
		}
		if u.chat.sendBtn.Visible() || !u.chat.stopBtn.Visible() {
			t.Errorf("while streaming: Send visible %v, Stop visible %v", u.chat.sendBtn.Visible(), u.chat.stopBtn.Visible())
		}
	})
	// Enter while a reply streams sends nothing.
	chatSend(u, "again")
	gen.Step <- struct{}{}
	gen.Step <- struct{}{}
	chatWaitShown(t, u, "Hello world")
	if s := chatShown(u); strings.Contains(s, "tokens/s") || strings.Contains(s, "Reading the prompt") {
		t.Errorf("mid-stream the messages show:\n%s", s)
	}
	gen.Step <- struct{}{}
	chatWaitShown(t, u, "tokens/s")
	chatWaitIdle(t, u)
	chatLocked(u, func() {
		if !findLabel(u.chat.msgBox, "You") || !findLabel(u.chat.msgBox, model) {
			t.Errorf("the messages are not headed by You and %s", model)
		}
	})
	s := chatShown(u)
	for _, want := range []string{"You", model, "x := 1", "[Copy]", "Done.", "3 tokens", "[Regenerate]"} {
		if !strings.Contains(s, want) {
			t.Errorf("the messages lack %q:\n%s", want, s)
		}
	}
	if n := len(gen.Requests()); n != 1 {
		t.Errorf("%d requests, want 1 (Enter while streaming must not send)", n)
	}
	c, msgs := chatOpenMessages(t, u)
	if c.Title != "Hi there, please write some code for me,…" {
		t.Errorf("title %q", c.Title)
	}
	if len(msgs) != 2 || msgs[1].Role != "assistant" || !msgs[1].Done || msgs[1].Tokens != 3 || msgs[1].TokensPerSecond != 42 {
		t.Fatalf("stored messages %+v", msgs)
	}
	if !strings.HasSuffix(msgs[1].Content, "Done.") {
		t.Errorf("stored reply %q", msgs[1].Content)
	}
	chatLocked(u, func() {
		if !u.chat.sendBtn.Visible() || u.chat.stopBtn.Visible() {
			t.Errorf("after the reply: Send visible %v, Stop visible %v", u.chat.sendBtn.Visible(), u.chat.stopBtn.Visible())
		}
		if u.chat.entry.Text != "again" {
			t.Errorf("the text typed while streaming is %q, want it kept", u.chat.entry.Text)
		}
	})
}

// chatButton returns the button with text inside o, or nil.
func chatButton(o fyne.CanvasObject, text string) *widget.Button {
	switch o := o.(type) {
	case *widget.Button:
		if o.Text == text {
			return o
		}
	case *container.Scroll:
		return chatButton(o.Content, text)
	case *fyne.Container:
		for _, c := range o.Objects {
			if b := chatButton(c, text); b != nil {
				return b
			}
		}
	case fyne.Widget:
		if r := test.WidgetRenderer(o); r != nil {
			for _, c := range r.Objects() {
				if b := chatButton(c, text); b != nil {
					return b
				}
			}
		}
	}
	return nil
}

func TestChatPersistence(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "chats.db")
	open := func() *core {
		a := test.NewTempApp(t)
		a.Preferences().SetString(prefModelsDir, filepath.Join(dir, "models"))
		a.Preferences().SetInt(prefThreads, 2)
		a.Preferences().SetInt(prefContext, 256)
		c, err := newCore(coreOptions{Prefs: a.Preferences(), DBPath: db, PromptCacheDir: filepath.Join(dir, "prompt-cache")})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := open()
	u := chatUIOver(t, c, &fakeGen{Chunks: []string{"Kept ", "reply"}})
	chatSend(u, "remember me")
	chatWaitShown(t, u, "tokens/s")
	chatWaitIdle(t, u)
	conv, _ := chatOpenMessages(t, u)
	c.Close()

	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	_, msgs, err := st.Conversation(conv.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || msgs[1].Content != "Kept reply" || !msgs[1].Done || msgs[1].Tokens != 2 ||
		msgs[1].TokensPerSecond != 42 || msgs[1].TTFTSeconds != 0.001 {
		t.Fatalf("reopened store: %+v", msgs)
	}
	// A reply a crash left unfinished.
	if _, err := st.AddMessage(conv.ID, "assistant", "half a"); err != nil {
		t.Fatal(err)
	}
	st.Close()

	c = open()
	t.Cleanup(func() { c.Close() })
	u = newUI(test.NewTempApp(t), c, &fakeGen{})
	t.Cleanup(func() { u.win.Close() })
	chatLocked(u, func() {
		if len(u.chat.convs) != 1 {
			t.Fatalf("%d conversations after restart", len(u.chat.convs))
		}
		u.chat.list.Select(0)
	})
	s := chatShown(u)
	for _, want := range []string{"remember me", "Kept reply", "2 tokens · 42.0 tokens/s · 0.00 s to first token", "half a", "Interrupted"} {
		if !strings.Contains(s, want) {
			t.Errorf("after restart the messages lack %q:\n%s", want, s)
		}
	}
}

func TestChatRealEngine(t *testing.T) {
	u := chatUI(t, nil)
	// A short reply: the test core's context is 256 tokens.
	chatLocked(u, func() { u.chat.setSettings("", store.Settings{MaxTokens: 32}) })
	chatSend(u, "Hello, tiny model")
	chatWaitShown(t, u, "tokens/s")
	chatWaitIdle(t, u)
	_, msgs := chatOpenMessages(t, u)
	if len(msgs) != 2 || !msgs[1].Done || msgs[1].Tokens == 0 {
		t.Fatalf("stored reply %+v", msgs)
	}
}

// chatConvs returns the conversation list.
func chatConvs(u *ui) []store.Conversation {
	var out []store.Conversation
	chatLocked(u, func() { out = append(out, u.chat.convs...) })
	return out
}
