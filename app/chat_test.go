package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"saji/app/store"
	"saji/engine/chat"
	"saji/engine/library"
	"saji/engine/runner"
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
	case *widget.RichText:
		for _, s := range o.Segments {
			b.WriteString(s.Textual() + "\n")
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

func TestChatCodeCopy(t *testing.T) {
	gen := &fakeGen{Chunks: []string{"Try:\n```sh\nls -l\n```\n"}}
	u := chatUI(t, gen)
	chatSend(u, "list files")
	chatWaitShown(t, u, "tokens/s")
	chatWaitIdle(t, u)
	var copyBtn *widget.Button
	chatLocked(u, func() {
		for _, mv := range u.chat.views {
			for _, p := range mv.parts {
				if p.code {
					copyBtn = chatButton(p.obj, "Copy")
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

func TestChatStop(t *testing.T) {
	gen := &fakeGen{Chunks: []string{"Partial", " never"}, Step: make(chan struct{})}
	u := chatUI(t, gen)
	chatSend(u, "tell me")
	chatWaitRequests(t, gen, 1)
	gen.Step <- struct{}{}
	chatWaitShown(t, u, "Partial")
	chatLocked(u, func() { test.Tap(u.chat.stopBtn) })
	chatWaitShown(t, u, "Stopped.")
	chatWaitIdle(t, u)
	_, msgs := chatOpenMessages(t, u)
	if len(msgs) != 2 || msgs[1].Content != "Partial" || !msgs[1].Done {
		t.Fatalf("stored after Stop: %+v", msgs)
	}
	if s := chatShown(u); strings.Contains(s, "never") || !strings.Contains(s, "Partial") {
		t.Errorf("after Stop the messages show:\n%s", s)
	}
	chatLocked(u, func() {
		if !u.chat.sendBtn.Visible() || u.chat.sendBtn.Disabled() {
			t.Error("Send is not back after Stop")
		}
	})
}

func TestChatRegenerate(t *testing.T) {
	gen := &fakeGen{Chunks: []string{"An answer."}}
	u := chatUI(t, gen)
	chatSend(u, "first question")
	chatWaitRequests(t, gen, 1)
	chatWaitIdle(t, u)
	chatSend(u, "second question")
	chatWaitRequests(t, gen, 2)
	chatWaitIdle(t, u)
	var regen *widget.Button
	chatLocked(u, func() { regen = chatButton(u.chat.msgBox, "Regenerate") })
	if regen == nil {
		t.Fatal("no Regenerate button")
	}
	chatLocked(u, func() { test.Tap(regen) })
	reqs := chatWaitRequests(t, gen, 3)
	chatWaitIdle(t, u)
	want := []string{"user: first question", "assistant: An answer.", "user: second question"}
	if got := chatRoles(reqs[2].Messages); !reflect.DeepEqual(got, want) {
		t.Errorf("regenerated request %q, want %q", got, want)
	}
	_, msgs := chatOpenMessages(t, u)
	if len(msgs) != 4 || msgs[3].Role != "assistant" || !msgs[3].Done {
		t.Errorf("stored after Regenerate: %+v", msgs)
	}
}

func TestChatEditAndResend(t *testing.T) {
	gen := &fakeGen{Chunks: []string{"Sure."}}
	u := chatUI(t, gen)
	chatSend(u, "first")
	chatWaitRequests(t, gen, 1)
	chatWaitIdle(t, u)
	chatSend(u, "second")
	chatWaitRequests(t, gen, 2)
	chatWaitIdle(t, u)
	_, msgs := chatOpenMessages(t, u)
	chatLocked(u, func() { u.chat.editAndResend(msgs[0].ID, "first, edited") })
	reqs := chatWaitRequests(t, gen, 3)
	chatWaitIdle(t, u)
	if got, want := chatRoles(reqs[2].Messages), []string{"user: first, edited"}; !reflect.DeepEqual(got, want) {
		t.Errorf("resent request %q, want %q", got, want)
	}
	_, msgs = chatOpenMessages(t, u)
	if len(msgs) != 2 || msgs[0].Content != "first, edited" || msgs[1].Content != "Sure." {
		t.Errorf("stored after edit: %+v", msgs)
	}
	// The Edit button opens a dialog holding the message.
	var edit *widget.Button
	chatLocked(u, func() { edit = chatButton(u.chat.msgBox, "Edit") })
	if edit == nil {
		t.Fatal("no Edit button")
	}
	chatLocked(u, func() { test.Tap(edit) })
	if u.win.Canvas().Overlays().Top() == nil {
		t.Error("Edit opened no dialog")
	}
}

func TestChatConversations(t *testing.T) {
	gen := &fakeGen{Chunks: []string{"ok"}}
	u := chatUI(t, gen)
	v := u.chat
	chatSend(u, "alpha message")
	chatWaitIdle(t, u)
	alpha, _ := chatOpenMessages(t, u)
	chatLocked(u, func() { test.Tap(chatButton(v.content.(*container.Split).Leading, "New")) })
	chatLocked(u, func() {
		if v.conv != nil || len(v.msgs) != 0 {
			t.Errorf("New left conversation %v open", v.conv)
		}
	})
	chatSend(u, "beta message")
	chatWaitIdle(t, u)
	beta, _ := chatOpenMessages(t, u)
	titles := func() []string {
		var out []string
		chatLocked(u, func() {
			for _, c := range v.convs {
				out = append(out, c.Title)
			}
		})
		return out
	}
	if got, want := titles(), []string{"beta message", "alpha message"}; !reflect.DeepEqual(got, want) {
		t.Errorf("list %q, want %q (most recent first)", got, want)
	}
	chatLocked(u, func() {
		if v.conv == nil || v.conv.ID != v.convs[0].ID {
			t.Errorf("open conversation %v, want the first of the list", v.conv)
		}
	})

	// Opening another conversation from the list.
	chatLocked(u, func() { v.list.Select(1) })
	chatLocked(u, func() {
		if v.conv == nil || v.conv.ID != alpha.ID {
			t.Errorf("selecting row 1 opened %v, want %d", v.conv, alpha.ID)
		}
	})
	chatWaitShown(t, u, "alpha message")

	// Search.
	chatLocked(u, func() { v.search.SetText("ALPHA") })
	if got, want := titles(), []string{"alpha message"}; !reflect.DeepEqual(got, want) {
		t.Errorf("search: %q, want %q", got, want)
	}
	chatLocked(u, func() { v.search.SetText("") })

	// Rename.
	chatLocked(u, func() { v.rename(alpha.ID, "Renamed") })
	if got, want := titles(), []string{"beta message", "Renamed"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after rename: %q, want %q", got, want)
	}
	chatLocked(u, func() {
		if v.title.Text != "Renamed" {
			t.Errorf("header %q after rename", v.title.Text)
		}
		test.Tap(v.renameBtn)
	})
	if u.win.Canvas().Overlays().Top() == nil {
		t.Error("Rename opened no dialog")
	}
	chatLocked(u, func() { u.win.Canvas().Overlays().Top().Hide() })

	// Delete, confirmed in its dialog.
	chatLocked(u, func() { test.Tap(v.deleteBtn) })
	top := u.win.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("Delete asked nothing")
	}
	del := chatButton(top, "Delete")
	if del == nil {
		t.Fatal("the confirmation has no Delete button")
	}
	chatLocked(u, func() { test.Tap(del) })
	if got, want := titles(), []string{"beta message"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after delete: %q, want %q", got, want)
	}
	chatLocked(u, func() {
		if v.conv != nil {
			t.Errorf("the deleted conversation stays open: %v", v.conv)
		}
	})
	if _, _, err := u.core.Store().Conversation(alpha.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deleted conversation: %v", err)
	}
	if _, _, err := u.core.Store().Conversation(beta.ID); err != nil {
		t.Errorf("the other conversation: %v", err)
	}
}

// chatWriter opens path for writing as a file dialog would.
func chatWriter(path string) (fyne.URIWriteCloser, error) {
	return storage.Writer(storage.NewFileURI(path))
}

// chatReadFile returns the content of path.
func chatReadFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestChatExport(t *testing.T) {
	gen := &fakeGen{Chunks: []string{"Exported reply"}}
	u := chatUI(t, gen)
	chatSend(u, "to export")
	chatWaitIdle(t, u)
	c, _ := chatOpenMessages(t, u)
	for _, format := range []string{"md", "json"} {
		path := filepath.Join(t.TempDir(), "out."+format)
		w, err := chatWriter(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := u.chat.writeExport(c.ID, format, w); err != nil {
			t.Fatal(err)
		}
		data := chatReadFile(t, path)
		if !strings.Contains(data, "Exported reply") {
			t.Errorf("%s export lacks the reply:\n%s", format, data)
		}
		if format == "json" && !strings.Contains(data, `"messages"`) {
			t.Errorf("json export:\n%s", data)
		}
	}
	chatLocked(u, func() { u.chat.exportAs("md") })
	if u.win.Canvas().Overlays().Top() == nil {
		t.Error("export opened no dialog")
	}
}

func TestChatSettings(t *testing.T) {
	gen := &fakeGen{Chunks: []string{"ok"}}
	c := newTestCore(t)
	e, err := c.Library().Import(context.Background(), tinyModel(t), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	temp := float32(0.3)
	if err := c.Library().SetPreset(e.Name, library.Preset{System: "Be brief.", Temperature: &temp, MaxTokens: 77}); err != nil {
		t.Fatal(err)
	}
	u := chatUIOver(t, c, gen)
	v := u.chat
	chatSend(u, "one")
	req := chatWaitRequests(t, gen, 1)[0]
	chatWaitIdle(t, u)
	if req.System != "Be brief." || req.Settings != (store.Settings{Temperature: 0.3, MaxTokens: 77}) {
		t.Errorf("new chat's request: system %q, settings %+v; want the preset", req.System, req.Settings)
	}
	want := store.Settings{Temperature: 1.2, TopP: 0.9, MaxTokens: 64, Context: 200}
	chatLocked(u, func() { v.setSettings("Answer in French.", want) })
	chatSend(u, "two")
	req = chatWaitRequests(t, gen, 2)[1]
	chatWaitIdle(t, u)
	if req.System != "Answer in French." || req.Settings != want {
		t.Errorf("request: system %q, settings %+v; want %+v", req.System, req.Settings, want)
	}
	conv, _ := chatOpenMessages(t, u)
	if conv.System != "Answer in French." || conv.Settings != want {
		t.Errorf("stored settings %q %+v", conv.System, conv.Settings)
	}
	// A new chat's settings apply when it is stored.
	chatLocked(u, func() {
		v.newChat()
		v.setSettings("", store.Settings{TopP: 0.5})
	})
	chatSend(u, "three")
	req = chatWaitRequests(t, gen, 3)[2]
	chatWaitIdle(t, u)
	if req.System != "" || req.Settings != (store.Settings{TopP: 0.5}) {
		t.Errorf("edited new chat's request: %q %+v", req.System, req.Settings)
	}
	// The dialog opens with the conversation's values.
	chatLocked(u, func() { v.showSettings() })
	if u.win.Canvas().Overlays().Top() == nil {
		t.Error("settings opened no dialog")
	}
}

func TestChatModelPicker(t *testing.T) {
	gen := &fakeGen{Chunks: []string{"ok"}}
	c := newTestCore(t)
	for range 2 {
		if _, err := c.Library().Import(context.Background(), tinyModel(t), true, nil); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := c.Library().List()
	if len(entries) != 2 {
		t.Fatalf("%d models", len(entries))
	}
	second := entries[1].Name
	if err := c.Library().SetDefault(second); err != nil {
		t.Fatal(err)
	}
	u := newUI(test.NewTempApp(t), c, gen)
	t.Cleanup(func() { u.win.Close() })
	v := u.chat
	chatLocked(u, func() {
		if v.models.Selected != second || len(v.models.Options) != 2 {
			t.Errorf("picker %q of %q, want the default %q", v.models.Selected, v.models.Options, second)
		}
	})
	chatSend(u, "hello")
	chatWaitIdle(t, u)
	first := entries[0].Name
	chatLocked(u, func() { v.models.SetSelected(first) })
	conv, _ := chatOpenMessages(t, u)
	if conv.Model != first {
		t.Errorf("stored model %q, want %q", conv.Model, first)
	}
	chatSend(u, "again")
	if req := chatWaitRequests(t, gen, 2)[1]; req.Model != first {
		t.Errorf("request model %q, want %q", req.Model, first)
	}
	chatWaitIdle(t, u)
	// openModel starts a new chat (this one has messages), focused, and
	// loads the model.
	chatLocked(u, func() {
		u.win.Canvas().Unfocus()
		v.openModel(second)
	})
	chatLocked(u, func() {
		if v.conv != nil || v.models.Selected != second {
			t.Errorf("openModel: conversation %v, picker %q", v.conv, v.models.Selected)
		}
		if u.win.Canvas().Focused() != v.entry {
			t.Error("openModel left the entry unfocused")
		}
	})
	waitFor(t, "the model to load", func() bool {
		loaded := false
		chatLocked(u, func() { loaded = !v.status.Visible() && len(v.loading) == 0 })
		return loaded
	})
	if !chatHasModel(c.Runner(), second) {
		t.Errorf("openModel did not load %s", second)
	}
}

// chatHasModel reports whether srv has model name loaded.
func chatHasModel(srv *runner.Runner, name string) bool {
	for _, m := range srv.Models() {
		if m.Name == name {
			return true
		}
	}
	return false
}

func TestChatPersistence(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "chats.db")
	open := func() *core {
		a := test.NewTempApp(t)
		a.Preferences().SetString(prefModelsDir, filepath.Join(dir, "models"))
		a.Preferences().SetInt(prefThreads, 2)
		a.Preferences().SetInt(prefContext, 256)
		c, err := newCore(coreOptions{Prefs: a.Preferences(), DBPath: db})
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

// chatErrGen fails every reply with err, after text.
type chatErrGen struct {
	text string
	err  error
}

func (g chatErrGen) Generate(_ context.Context, _ ReplyRequest, emit func(Update)) (ReplyStats, error) {
	if g.text != "" {
		emit(Update{Text: g.text})
	}
	return ReplyStats{}, g.err
}

func TestChatErrors(t *testing.T) {
	for _, tt := range []struct {
		name, text string
		err        error
		want       string
		kept       int // messages stored
	}{
		{"context", "", fmt.Errorf("x: %w", runner.ErrContextLength), "too long for the model's context", 1},
		{"missing model", "", fmt.Errorf("x: %w", runner.ErrModelNotFound), "not in the library", 1},
		{"after some text", "Half", errors.New("disk on fire"), "The reply failed: disk on fire", 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			u := chatUI(t, chatErrGen{text: tt.text, err: tt.err})
			chatSend(u, "question")
			chatWaitShown(t, u, tt.want)
			chatWaitIdle(t, u)
			_, msgs := chatOpenMessages(t, u)
			if len(msgs) != tt.kept {
				t.Errorf("%d messages stored, want %d: %+v", len(msgs), tt.kept, msgs)
			}
			if tt.kept == 1 && !strings.Contains(chatShown(u), "[Try again]") {
				t.Errorf("no Try again:\n%s", chatShown(u))
			}
		})
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

func TestChatTwoConversationsStream(t *testing.T) {
	gen := &fakeGen{Chunks: []string{"reply"}, Step: make(chan struct{})}
	u := chatUI(t, gen)
	v := u.chat
	chatSend(u, "first chat")
	chatWaitRequests(t, gen, 1)
	first, _ := chatOpenMessages(t, u)
	chatLocked(u, func() { v.newChat() })
	chatLocked(u, func() {
		if !v.sendBtn.Visible() || v.stopBtn.Visible() {
			t.Error("a new chat cannot send while another conversation streams")
		}
	})
	chatSend(u, "second chat")
	chatWaitRequests(t, gen, 2)
	chatLocked(u, func() {
		if len(v.replies) != 2 {
			t.Errorf("%d replies streaming, want 2", len(v.replies))
		}
		v.openConversation(first.ID)
		if v.sendBtn.Visible() || !v.stopBtn.Visible() {
			t.Error("the first conversation does not show its reply streaming")
		}
	})
	gen.Step <- struct{}{}
	gen.Step <- struct{}{}
	chatWaitIdle(t, u)
	chatWaitShown(t, u, "tokens/s")
	convs := chatConvs(u)
	if len(convs) != 2 {
		t.Fatalf("%d conversations, want 2", len(convs))
	}
	for _, c := range convs {
		_, msgs, err := u.core.Store().Conversation(c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) != 2 || msgs[1].Content != "reply" || !msgs[1].Done {
			t.Errorf("conversation %q: %+v", c.Title, msgs)
		}
	}
}

// chatConvs returns the conversation list.
func chatConvs(u *ui) []store.Conversation {
	var out []store.Conversation
	chatLocked(u, func() { out = append(out, u.chat.convs...) })
	return out
}
