package app

import (
	"context"
	"testing"

	"saji/engine/runner"

	"fyne.io/fyne/v2/test"
)

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

// TestChatPreloadClosedRunner checks that a preload whose runner closed
// under it (the settings reopened the engine) clears the status quietly:
// the first reply loads the model in the new runner.
func TestChatPreloadClosedRunner(t *testing.T) {
	u := chatUI(t, &fakeGen{Chunks: []string{"Hi"}})
	name := u.chat.draft.Model
	if err := u.core.Runner().Close(); err != nil {
		t.Fatal(err)
	}
	chatLocked(u, func() { u.chat.preload(name) })
	u.chat.bg.wait()
	chatLocked(u, func() {
		if u.chat.status.Visible() || u.chat.status.Text != "" {
			t.Errorf("status %q after a preload the runner's close ended", u.chat.status.Text)
		}
	})
}
