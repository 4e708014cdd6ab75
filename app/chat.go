package app

import (
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"saji/app/store"
)

// chatView is the chat: the conversation list on the left; the messages,
// the model picker and the message entry on the right. A reply streams
// on its own goroutine and is redrawn at most every redrawEvery.
//
// All fields but mu and bg are the UI goroutine's. Callbacks from other
// goroutines reach the view through bg (bg.do, or the update of bg.run),
// which holds mu: the real
// driver runs them on the UI goroutine, and the test driver runs them at
// once on the calling goroutine, where mu keeps them apart from a test's
// reads.
type chatView struct {
	u       *ui
	content fyne.CanvasObject

	mu sync.Mutex
	bg worker // off the UI goroutine; its updates hold mu

	// The conversation list.
	search                       *widget.Entry
	renameEntry                  *widget.Entry // the Rename dialog's, while shown (tests)
	list                         *widget.List
	convs                        []store.Conversation
	renameBtn, deleteBtn, export *widget.Button
	selecting                    bool // the view, not a person, changes a selection

	// The open conversation: conv, or a new chat (conv == nil) with the
	// model and settings of draft, stored when its first message is sent.
	conv        *store.Conversation
	draft       store.Conversation
	draftEdited bool // the person changed the new chat's settings
	msgs        []store.Message
	views       map[int64]*messageView // by message ID
	msgBox      *fyne.Container
	scroll      *container.Scroll
	title       *widget.Label

	// The model picker, settings and the message entry.
	models      *widget.Select
	settingsBtn *widget.Button
	entry       *chatEntry
	attachBtn   *widget.Button
	attachBox   *fyne.Container // the attached pictures' thumbnails
	attached    []attachment    // pictures for the next message
	thumbs      thumbCache      // the messages' thumbnails
	sendBtn     *widget.Button
	stopBtn     *widget.Button
	status      *widget.Label
	statusBar   *widget.ProgressBarInfinite

	replies map[int64]*reply // streaming replies by conversation ID
	notes   map[int64]string // an error shown at the end of a conversation
	loading map[string]bool  // models being preloaded
}

// newChatView builds the chat and opens a new chat.
func newChatView(u *ui) *chatView {
	v := &chatView{u: u, views: map[int64]*messageView{}, replies: map[int64]*reply{},
		notes: map[int64]string{}, loading: map[string]bool{}}
	v.bg.lock = &v.mu

	v.search = widget.NewEntry()
	v.search.SetPlaceHolder("Search conversations")
	v.search.OnChanged = func(string) { v.reloadList() }
	v.list = widget.NewList(
		func() int { return len(v.convs) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("Conversation")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			if i < len(v.convs) {
				o.(*widget.Label).SetText(listTitle(v.convs[i]))
			}
		})
	v.list.OnSelected = func(i widget.ListItemID) {
		if v.selecting || i >= len(v.convs) {
			return
		}
		v.openConversation(v.convs[i].ID)
	}
	newBtn := widget.NewButtonWithIcon("New", theme.ContentAddIcon(), v.newChat)
	newBtn.Importance = widget.HighImportance
	v.renameBtn = widget.NewButtonWithIcon("", theme.DocumentCreateIcon(), v.showRename)
	v.deleteBtn = widget.NewButtonWithIcon("", theme.DeleteIcon(), v.confirmDelete)
	v.export = widget.NewButtonWithIcon("", theme.DocumentSaveIcon(), v.showExportMenu)
	left := container.NewBorder(
		container.NewVBox(container.NewBorder(nil, nil, nil, container.NewHBox(v.renameBtn, v.deleteBtn, v.export), newBtn), v.search),
		nil, nil, nil, v.list)

	v.title = widget.NewLabelWithStyle("New chat", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	v.title.Truncation = fyne.TextTruncateEllipsis
	v.models = widget.NewSelect(nil, v.modelChosen)
	v.models.PlaceHolder = "Choose a model"
	v.settingsBtn = widget.NewButtonWithIcon("", theme.SettingsIcon(), v.showSettings)
	top := container.NewBorder(nil, nil, nil, container.NewHBox(v.models, v.settingsBtn), v.title)

	v.msgBox = container.NewVBox()
	v.scroll = container.NewVScroll(v.msgBox)

	v.entry = newChatEntry(u.app, v.send)
	v.entry.onPaste = v.pasted
	v.entry.SetPlaceHolder("Message (Enter sends, Shift+Enter starts a new line)")
	v.attachBtn = widget.NewButtonWithIcon("", theme.FileImageIcon(), v.pickPictures)
	v.attachBox = container.NewHBox()
	v.attachBox.Hide()
	v.sendBtn = widget.NewButtonWithIcon("Send", theme.MailSendIcon(), v.send)
	v.sendBtn.Importance = widget.HighImportance
	v.stopBtn = widget.NewButtonWithIcon("Stop", theme.MediaStopIcon(), v.stop)
	v.stopBtn.Importance = widget.DangerImportance
	v.stopBtn.Hide()
	v.status = widget.NewLabel("")
	v.status.Wrapping = fyne.TextWrapWord
	v.status.Hide()
	v.statusBar = widget.NewProgressBarInfinite()
	v.statusBar.Hide()
	bottom := container.NewVBox(v.status, v.statusBar, v.attachBox,
		container.NewBorder(nil, nil, nil, container.NewVBox(v.sendBtn, v.stopBtn, v.attachBtn), v.entry))
	right := container.NewBorder(top, bottom, nil, nil, container.New(endPinLayout{v}, v.scroll))

	split := container.NewHSplit(left, right)
	split.SetOffset(0.24)
	v.content = split
	v.resetDraft("")
	v.render()
	v.updateControls()
	v.reloadList()
	return v
}

// setStatus shows text above the entry ("" hides it), with a busy bar
// when busy.
func (v *chatView) setStatus(text string, busy bool) {
	v.status.SetText(text)
	v.status.Hidden = text == ""
	v.status.Refresh()
	if busy {
		v.statusBar.Show()
		v.statusBar.Start()
	} else {
		v.statusBar.Stop()
		v.statusBar.Hide()
	}
}

// reloadMessages reads the open conversation again and redraws it.
func (v *chatView) reloadMessages() {
	if v.conv == nil {
		v.render()
		return
	}
	c, msgs, err := v.u.core.Store().Conversation(v.conv.ID)
	if err != nil {
		v.u.core.log.Warn("app: reading a conversation", "err", err)
		return
	}
	v.conv, v.msgs = &c, msgs
	v.render()
}

// updateControls shows Send or Stop and enables what applies to the open
// conversation.
func (v *chatView) updateControls() {
	streaming := v.streaming()
	if streaming {
		v.sendBtn.Hide()
		v.sendBtn.Disable()
		v.stopBtn.Show()
	} else {
		v.stopBtn.Hide()
		v.sendBtn.Enable()
		v.sendBtn.Show()
	}
	for _, b := range []*widget.Button{v.renameBtn, v.deleteBtn, v.export} {
		if v.conv == nil {
			b.Disable()
		} else {
			b.Enable()
		}
	}
	if v.conv != nil {
		v.title.SetText(listTitle(*v.conv))
	} else {
		v.title.SetText("New chat")
	}
}

// streaming reports whether the open conversation has a reply streaming.
func (v *chatView) streaming() bool {
	return v.conv != nil && v.replies[v.conv.ID] != nil
}

// render draws the open conversation's messages, the streaming reply
// (if any) and its note, and scrolls to the end.
func (v *chatView) render() {
	clear(v.views)
	for _, r := range v.replies {
		r.view = nil // replies of other conversations stream unseen
	}
	var objs []fyne.CanvasObject
	var r *reply
	if v.conv != nil {
		r = v.replies[v.conv.ID]
	}
	lastAssistant := -1
	for i, m := range v.msgs {
		if m.Role == "assistant" {
			lastAssistant = i
		}
	}
	for i, m := range v.msgs {
		if m.Role != "user" && m.Role != "assistant" {
			continue
		}
		mv := v.newMessageView(m, r != nil, i == lastAssistant && i == len(v.msgs)-1)
		v.views[m.ID] = mv
		if r != nil && r.msg.ID == m.ID {
			r.show(mv)
		}
		objs = append(objs, mv.box)
	}
	if v.conv == nil && len(v.msgs) == 0 {
		hint := widget.NewLabel("Type a message below to start a new chat.")
		hint.Alignment = fyne.TextAlignCenter
		hint.Importance = widget.LowImportance
		objs = append(objs, hint)
	}
	if v.conv != nil && r == nil {
		if note := v.notes[v.conv.ID]; note != "" {
			l := widget.NewLabel(note)
			l.Wrapping = fyne.TextWrapWord
			l.Importance = widget.DangerImportance
			objs = append(objs, l)
			if n := len(v.msgs); n > 0 && v.msgs[n-1].Role == "user" {
				objs = append(objs, container.NewHBox(widget.NewButtonWithIcon("Try again", theme.ViewRefreshIcon(), v.regenerate)))
			}
		}
	}
	v.msgBox.Objects = objs
	v.msgBox.Refresh()
	v.scrollToEnd()
}

// atEnd tells whether the messages are scrolled to their end (or within
// a line of it), as laid out now.
func (v *chatView) atEnd() bool {
	return v.scroll.Offset.Y >= v.msgBox.MinSize().Height-v.scroll.Size().Height-2*theme.Padding()-40
}

// endPinLayout lays out the chat's scroll, keeping it at the messages'
// end when it was there: a view made shorter (the line under it showing)
// or narrower (the text taller) kept its offset, and the end of the
// reply went out of view.
type endPinLayout struct{ v *chatView }

// Layout implements fyne.Layout.
func (l endPinLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	s := l.v.scroll
	pin := s.Size() != size && l.v.atEnd()
	s.Move(fyne.NewPos(0, 0))
	s.Resize(size)
	if pin {
		l.v.scrollToEnd()
	}
}

// MinSize implements fyne.Layout.
func (l endPinLayout) MinSize(objs []fyne.CanvasObject) fyne.Size { return l.v.scroll.MinSize() }

// scrollToEnd scrolls the messages to their end. They are laid out at
// the view's width first (a paragraph made anew is one line tall until
// then, so the scroll measured a list far shorter than the one drawn and
// stopped near the start of a long reply), then sized to the height that
// width needs, which the scroll reads.
func (v *chatView) scrollToEnd() {
	if w := v.scroll.Size().Width; w > 0 {
		v.msgBox.Resize(fyne.NewSize(w, v.msgBox.MinSize().Height))
		v.msgBox.Resize(fyne.NewSize(w, v.msgBox.MinSize().Height))
	}
	v.scroll.ScrollToBottom()
}

// modelName is the name shown over the open conversation's replies.
func (v *chatView) modelName() string {
	if v.conv != nil && v.conv.Model != "" {
		return v.conv.Model
	}
	return "Assistant"
}
