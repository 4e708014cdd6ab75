package app

// The chat's conversation list: listing, opening, starting, renaming and
// deleting conversations.

import (
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"saji/app/store"
)

// listTitle is a conversation's line in the list.
func listTitle(c store.Conversation) string {
	if c.Title == "" {
		return "Untitled"
	}
	return c.Title
}

// reloadList reloads the conversation list for the search text and
// highlights the open conversation.
func (v *chatView) reloadList() {
	convs, err := v.u.core.Store().Conversations(strings.TrimSpace(v.search.Text))
	if err != nil {
		v.u.core.log.Warn("app: listing conversations", "err", err)
	}
	v.convs = convs
	v.list.Refresh()
	v.selecting = true
	defer func() { v.selecting = false }()
	if v.conv != nil {
		if i := slices.IndexFunc(v.convs, func(c store.Conversation) bool { return c.ID == v.conv.ID }); i >= 0 {
			v.list.Select(i)
			return
		}
	}
	v.list.UnselectAll()
}

// newChat opens a new, empty chat with the picker's model and its preset.
func (v *chatView) newChat() {
	model := v.draft.Model
	if v.conv != nil {
		model = v.conv.Model
	}
	v.resetDraft(model)
	v.setStatus("", false)
	v.render()
	v.reloadList()
	v.updateControls()
	v.u.win.Canvas().Focus(v.entry)
}

// resetDraft makes the open conversation a new chat with model.
func (v *chatView) resetDraft(model string) {
	v.conv = nil
	v.msgs = nil
	v.draft = store.Conversation{}
	v.draftEdited = false
	v.setDraftModel(model)
	v.showModel()
}

// openConversation shows conversation id.
func (v *chatView) openConversation(id int64) {
	c, msgs, err := v.u.core.Store().Conversation(id)
	if err != nil {
		v.u.showError("Could not open the conversation", err)
		v.reloadList()
		return
	}
	v.conv, v.msgs = &c, msgs
	v.showModel()
	v.render()
	v.reloadList()
	v.updateControls()
	v.u.win.Canvas().Focus(v.entry)
}

// rename retitles conversation id.
func (v *chatView) rename(id int64, title string) {
	title = strings.TrimSpace(title)
	if title == "" {
		return
	}
	if err := v.u.core.Store().Rename(id, title); err != nil {
		v.u.showError("Could not rename the conversation", err)
		return
	}
	if v.conv != nil && v.conv.ID == id {
		v.conv.Title = title
	}
	v.reloadList()
	v.updateControls()
}

// showRename asks for the open conversation's new title.
func (v *chatView) showRename() {
	if v.conv == nil {
		return
	}
	id := v.conv.ID
	e := widget.NewEntry()
	e.SetText(v.conv.Title)
	d := dialog.NewForm("Rename conversation", "Rename", "Cancel", []*widget.FormItem{{Text: "Title", Widget: e}}, func(ok bool) {
		if ok {
			v.rename(id, e.Text)
		}
	}, v.u.win)
	e.OnSubmitted = func(string) { d.Submit() } // Enter renames
	d.Resize(fyne.NewSize(420, 160))
	d.Show()
	v.u.win.Canvas().Focus(e)
	v.renameEntry = e
}

// deleteConversation deletes conversation id, stopping its reply; a new
// chat opens if it was the open one.
func (v *chatView) deleteConversation(id int64) {
	if r := v.replies[id]; r != nil {
		r.cancel()
		delete(v.replies, id)
	}
	if err := v.u.core.Store().Delete(id); err != nil {
		v.u.showError("Could not delete the conversation", err)
		return
	}
	delete(v.notes, id)
	if v.conv != nil && v.conv.ID == id {
		v.newChat()
		return
	}
	v.reloadList()
}

// confirmDelete asks before deleting the open conversation.
func (v *chatView) confirmDelete() {
	if v.conv == nil {
		return
	}
	id, title := v.conv.ID, listTitle(*v.conv)
	confirmAction(v.u.win, "Delete conversation", "Delete “"+title+"” and all of its messages? This cannot be undone.",
		"Delete", true, func() { v.deleteConversation(id) })
}
