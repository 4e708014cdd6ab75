package app

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"

	"saji/app/store"
)

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
		t.Fatal("Rename opened no dialog")
	}
	// Enter in the title renames and closes the dialog.
	chatLocked(u, func() {
		v.renameEntry.SetText("By Enter")
		v.renameEntry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	})
	if got := titles(); !slices.Contains(got, "By Enter") {
		t.Errorf("Enter in Rename: titles %q", got)
	}
	if top := u.win.Canvas().Overlays().Top(); top != nil {
		t.Error("Enter left the Rename dialog open")
		chatLocked(u, func() { top.Hide() })
	}

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
