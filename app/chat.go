package app

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"saji/app/store"
	"saji/engine/chat"
	"saji/engine/library"
	"saji/engine/server"
)

// Timing of a streamed reply.
const (
	// redrawEvery is the most often a streaming reply is redrawn.
	redrawEvery = 60 * time.Millisecond
	// saveEvery is the most often a streaming reply is written to the
	// conversation database before its end.
	saveEvery = 500 * time.Millisecond
)

// titleLen is the length, in characters, of a new conversation's title
// taken from its first message.
const titleLen = 40

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
	sendBtn     *widget.Button
	stopBtn     *widget.Button
	status      *widget.Label
	statusBar   *widget.ProgressBarInfinite

	replies map[int64]*reply // streaming replies by conversation ID
	notes   map[int64]string // an error shown at the end of a conversation
	stopped map[int64]bool   // replies the person stopped, by message ID
	loading map[string]bool  // models being preloaded
}

// newChatView builds the chat and opens a new chat.
func newChatView(u *ui) *chatView {
	v := &chatView{u: u, views: map[int64]*messageView{}, replies: map[int64]*reply{},
		notes: map[int64]string{}, stopped: map[int64]bool{}, loading: map[string]bool{}}
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
	v.entry.SetPlaceHolder("Message (Enter sends, Shift+Enter starts a new line)")
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
	bottom := container.NewVBox(v.status, v.statusBar,
		container.NewBorder(nil, nil, nil, container.NewVBox(v.sendBtn, v.stopBtn), v.entry))
	right := container.NewBorder(top, bottom, nil, nil, v.scroll)

	split := container.NewHSplit(left, right)
	split.SetOffset(0.24)
	v.content = split
	v.resetDraft("")
	v.render()
	v.updateControls()
	v.reloadList()
	return v
}

// listTitle is a conversation's line in the list.
func listTitle(c store.Conversation) string {
	if c.Title == "" {
		return "Untitled"
	}
	return c.Title
}

// refreshModels reloads the model picker's options from the library:
// the models that can be used, the default one first chosen for a new
// chat.
func (v *chatView) refreshModels() {
	entries, err := v.u.core.Library().List()
	if err != nil {
		v.u.core.log.Warn("app: listing models", "err", err)
	}
	var names []string
	def := ""
	for _, e := range entries {
		if e.Err != nil {
			continue
		}
		names = append(names, e.Name)
		if e.Default {
			def = e.Name
		}
	}
	v.models.Options = names
	if def == "" && len(names) > 0 {
		def = names[0]
	}
	if v.conv == nil && (v.draft.Model == "" || !slices.Contains(names, v.draft.Model)) {
		v.setDraftModel(def)
	}
	v.showModel()
	v.models.Refresh()
	if len(names) > 0 && v.u.win.Canvas().Focused() == nil {
		v.u.win.Canvas().Focus(v.entry)
	}
}

// showModel shows the open conversation's model in the picker.
func (v *chatView) showModel() {
	model := v.draft.Model
	if v.conv != nil {
		model = v.conv.Model
	}
	v.selecting = true
	defer func() { v.selecting = false }()
	if model == "" || !slices.Contains(v.models.Options, model) {
		// A model gone from the library stays named, so the person sees
		// what the conversation used.
		v.models.Selected = model
		v.models.Refresh()
		return
	}
	v.models.SetSelected(model)
}

// modelChosen saves the picker's choice on the conversation.
func (v *chatView) modelChosen(name string) {
	if v.selecting {
		return
	}
	if v.conv == nil {
		v.setDraftModel(name)
		return
	}
	if err := v.u.core.Store().SetModel(v.conv.ID, name); err != nil {
		v.u.showError("Could not change the model", err)
		return
	}
	v.conv.Model = name
	v.preload(name)
}

// setDraftModel makes name the new chat's model and, unless the person
// changed them, its settings the model's preset.
func (v *chatView) setDraftModel(name string) {
	v.draft.Model = name
	if v.draftEdited || name == "" {
		return
	}
	e, err := v.u.core.Library().Get(name)
	if err != nil {
		return
	}
	v.draft.System, v.draft.Settings = presetSettings(e.Preset)
}

// presetSettings turns a library preset into a conversation's settings.
func presetSettings(p library.Preset) (string, store.Settings) {
	st := store.Settings{MaxTokens: p.MaxTokens, Context: p.Context}
	if p.Temperature != nil {
		st.Temperature = *p.Temperature
	}
	if p.TopP != nil {
		st.TopP = *p.TopP
	}
	return p.System, st
}

// openModel chats with the library model name: it is chosen in the
// picker (in a new chat unless the open one is empty), the entry takes
// the focus, and the model loads in the background.
func (v *chatView) openModel(name string) {
	if v.conv != nil && len(v.msgs) > 0 {
		v.newChat()
	}
	if v.conv == nil {
		v.draftEdited = false
		v.setDraftModel(name)
	} else {
		v.selecting = true
		v.modelChosenStored(name)
		v.selecting = false
	}
	v.showModel()
	v.u.win.Canvas().Focus(v.entry)
	v.preload(name)
}

// modelChosenStored saves name as the open conversation's model.
func (v *chatView) modelChosenStored(name string) {
	if err := v.u.core.Store().SetModel(v.conv.ID, name); err != nil {
		v.u.core.log.Warn("app: saving the conversation's model", "err", err)
		return
	}
	v.conv.Model = name
}

// preload loads model name in the background, saying so under the
// messages, so the first reply starts sooner.
func (v *chatView) preload(name string) {
	if name == "" || v.loading[name] {
		return
	}
	if v.u.core.Loaded(name) {
		return
	}
	v.loading[name] = true
	v.setStatus("Loading "+name+"...", true)
	v.bg.run(func() func() {
		_, err := v.u.core.LoadModel(name)
		return func() {
			delete(v.loading, name)
			if err != nil {
				v.u.core.log.Warn("app: loading a model", "model", name, "err", err)
				v.setStatus(replyError(name, err), false)
				return
			}
			v.setStatus("", false)
		}
	})
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
	v.scroll.ScrollToBottom()
}

// modelName is the name shown over the open conversation's replies.
func (v *chatView) modelName() string {
	if v.conv != nil && v.conv.Model != "" {
		return v.conv.Model
	}
	return "Assistant"
}

// send sends the entry's text: the user message is stored, then a reply
// streams. A new chat is stored first, titled after the message.
func (v *chatView) send() {
	text := strings.TrimSpace(v.entry.Text)
	if text == "" || v.streaming() {
		return
	}
	model := v.draft.Model
	if v.conv != nil {
		model = v.conv.Model
	}
	if model == "" {
		v.setStatus("Choose a model first: add one in the Library, then pick it above.", false)
		return
	}
	st := v.u.core.Store()
	if v.conv == nil {
		c, err := st.NewConversation(titleFrom(text), model)
		if err == nil {
			err = st.UpdateSettings(c.ID, v.draft.System, v.draft.Settings)
			c.System, c.Settings = v.draft.System, v.draft.Settings
		}
		if err != nil {
			v.u.showError("Could not start the conversation", err)
			return
		}
		v.conv = &c
	}
	if _, err := st.AddMessage(v.conv.ID, "user", text); err != nil {
		v.u.showError("Could not save the message", err)
		return
	}
	v.entry.SetText("")
	v.startReply()
	v.reloadList()
}

// titleFrom makes a conversation title of its first message: the first
// titleLen characters of its first line.
func titleFrom(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) <= titleLen {
		return text
	}
	r := []rune(text)[:titleLen]
	return strings.TrimSpace(string(r)) + "…"
}

// startReply adds an empty assistant message to the open conversation
// and streams the reply to the messages before it.
func (v *chatView) startReply() {
	c := *v.conv
	delete(v.notes, c.ID)
	st := v.u.core.Store()
	_, msgs, err := st.Conversation(c.ID)
	if err != nil {
		v.u.showError("Could not read the conversation", err)
		return
	}
	req := ReplyRequest{Model: c.Model, System: c.System, Settings: c.Settings}
	for _, m := range msgs {
		if (m.Role == "user" || m.Role == "assistant") && m.Content != "" {
			req.Messages = append(req.Messages, chat.Message{Role: m.Role, Content: m.Content})
		}
	}
	am, err := st.AddMessage(c.ID, "assistant", "")
	if err != nil {
		v.u.showError("Could not save the reply", err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &reply{v: v, convID: c.ID, model: c.Model, msg: am, cancel: cancel, started: time.Now()}
	v.replies[c.ID] = r
	v.setStatus("", false)
	v.reloadMessages()
	v.updateControls()
	go r.run(ctx, req)
}

// stop cancels the open conversation's reply; its text so far stays.
func (v *chatView) stop() {
	if v.conv == nil {
		return
	}
	if r := v.replies[v.conv.ID]; r != nil {
		r.stopped.Store(true)
		r.cancel()
	}
}

// regenerate replaces the last reply with a new one: the messages after
// the user message before it go, and a reply to it streams.
func (v *chatView) regenerate() {
	if v.conv == nil || v.streaming() {
		return
	}
	i := len(v.msgs) - 1
	for i >= 0 && v.msgs[i].Role != "user" {
		i--
	}
	if i < 0 {
		return
	}
	if err := v.u.core.Store().TruncateAfter(v.conv.ID, v.msgs[i].ID); err != nil {
		v.u.showError("Could not regenerate the reply", err)
		return
	}
	v.startReply()
}

// editAndResend replaces user message id's text with text, drops the
// messages after it and streams a new reply.
func (v *chatView) editAndResend(id int64, text string) {
	text = strings.TrimSpace(text)
	if v.conv == nil || v.streaming() || text == "" {
		return
	}
	i := slices.IndexFunc(v.msgs, func(m store.Message) bool { return m.ID == id })
	if i < 0 || v.msgs[i].Role != "user" {
		return
	}
	st := v.u.core.Store()
	m := v.msgs[i]
	m.Content = text
	err := st.TruncateAfter(v.conv.ID, id)
	if err == nil {
		err = st.UpdateMessage(m)
	}
	if err != nil {
		v.u.showError("Could not resend the message", err)
		return
	}
	v.startReply()
}

// showEdit opens a dialog to edit user message m and send it again.
func (v *chatView) showEdit(m store.Message) {
	e := widget.NewMultiLineEntry()
	e.Wrapping = fyne.TextWrapWord
	e.SetText(m.Content)
	e.SetMinRowsVisible(6)
	d := dialog.NewCustomConfirm("Edit message", "Send", "Cancel", e, func(ok bool) {
		if ok {
			v.editAndResend(m.ID, e.Text)
		}
	}, v.u.win)
	d.Resize(fyne.NewSize(560, 320))
	d.Show()
	v.u.win.Canvas().Focus(e)
}

// setSettings stores the open conversation's system prompt and settings
// (a new chat keeps them until it is stored).
func (v *chatView) setSettings(system string, st store.Settings) {
	if v.conv == nil {
		v.draft.System, v.draft.Settings = system, st
		v.draftEdited = true
		return
	}
	if err := v.u.core.Store().UpdateSettings(v.conv.ID, system, st); err != nil {
		v.u.showError("Could not save the settings", err)
		return
	}
	v.conv.System, v.conv.Settings = system, st
}

// showSettings opens the open conversation's settings.
func (v *chatView) showSettings() {
	c := v.draft
	if v.conv != nil {
		c = *v.conv
	}
	system := widget.NewMultiLineEntry()
	system.Wrapping = fyne.TextWrapWord
	system.SetMinRowsVisible(4)
	system.SetText(c.System)
	system.SetPlaceHolder("How the model should answer (optional)")
	num := func(val string, hint string, valid func(string) error) *widget.Entry {
		e := widget.NewEntry()
		e.SetText(val)
		e.SetPlaceHolder(hint)
		e.Validator = valid
		return e
	}
	fmtF := func(f float32) string {
		if f == 0 {
			return ""
		}
		return strconv.FormatFloat(float64(f), 'g', -1, 32)
	}
	fmtI := func(n int) string {
		if n == 0 {
			return ""
		}
		return strconv.Itoa(n)
	}
	temp := num(fmtF(c.Settings.Temperature), "model default", checkFloat(0, 2))
	topP := num(fmtF(c.Settings.TopP), "model default", checkFloat(0, 1))
	maxTok := num(fmtI(c.Settings.MaxTokens), "model default", checkInt(0, 1<<30))
	ctxLen := num(fmtI(c.Settings.Context), "model default", checkInt(0, 1<<30))
	items := []*widget.FormItem{
		{Text: "System prompt", Widget: system},
		{Text: "Temperature", Widget: temp, HintText: "0 to 2: higher is more varied"},
		{Text: "Top-p", Widget: topP, HintText: "0 to 1"},
		{Text: "Max tokens", Widget: maxTok, HintText: "Longest reply"},
		{Text: "Context length", Widget: ctxLen, HintText: "Tokens of the conversation the model reads"},
	}
	d := dialog.NewForm("Conversation settings", "Save", "Cancel", items, func(ok bool) {
		if !ok {
			return
		}
		st := store.Settings{
			Temperature: valueOf(parseFloat(temp.Text)),
			TopP:        valueOf(parseFloat(topP.Text)),
			MaxTokens:   parseInt(maxTok.Text),
			Context:     parseInt(ctxLen.Text),
		}
		v.setSettings(system.Text, st)
	}, v.u.win)
	d.Resize(fyne.NewSize(520, 480))
	d.Show()
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
	d.Resize(fyne.NewSize(420, 160))
	d.Show()
	v.u.win.Canvas().Focus(e)
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
	d := dialog.NewConfirm("Delete conversation", "Delete “"+title+"” and all of its messages? This cannot be undone.",
		func(ok bool) {
			if ok {
				v.deleteConversation(id)
			}
		}, v.u.win)
	d.SetConfirmText("Delete")
	d.SetConfirmImportance(widget.DangerImportance)
	d.Show()
}

// showExportMenu offers the open conversation's export formats.
func (v *chatView) showExportMenu() {
	if v.conv == nil {
		return
	}
	menu := fyne.NewMenu("",
		fyne.NewMenuItem("Export as Markdown...", func() { v.exportAs("md") }),
		fyne.NewMenuItem("Export as JSON...", func() { v.exportAs("json") }))
	pos := v.u.app.Driver().AbsolutePositionForObject(v.export).Add(fyne.NewPos(0, v.export.Size().Height))
	widget.ShowPopUpMenuAtPosition(menu, v.u.win.Canvas(), pos)
}

// exportAs saves the open conversation as Markdown ("md") or JSON
// ("json") where the person chooses.
func (v *chatView) exportAs(format string) {
	if v.conv == nil {
		return
	}
	id, name := v.conv.ID, fileName(v.conv.Title)+"."+format
	d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil {
			v.u.showError("Could not export the conversation", err)
			return
		}
		if w == nil {
			return // cancelled
		}
		v.bg.run(func() func() {
			if err := v.writeExport(id, format, w); err != nil {
				return func() { v.u.showError("Could not export the conversation", err) }
			}
			return nil
		})
	}, v.u.win)
	d.SetFileName(name)
	d.Show()
}

// writeExport writes conversation id to w as format and closes w.
func (v *chatView) writeExport(id int64, format string, w fyne.URIWriteCloser) error {
	st := v.u.core.Store()
	var err error
	if format == "json" {
		err = st.ExportJSON(id, w)
	} else {
		err = st.ExportMarkdown(id, w)
	}
	if cerr := w.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("app: %w", cerr)
	}
	return err
}

// fileName makes a title a safe file name.
func fileName(title string) string {
	name := strings.Map(func(r rune) rune {
		if strings.ContainsRune(`/\:*?"<>|`, r) || r < ' ' {
			return '-'
		}
		return r
	}, strings.TrimSpace(title))
	if name == "" {
		return "conversation"
	}
	return name
}

// replyError says in a sentence why a reply from model failed.
func replyError(model string, err error) string {
	switch {
	case errors.Is(err, server.ErrModelNotFound), errors.Is(err, library.ErrNotFound):
		return "The model " + model + " is not in the library any more. Choose another one above."
	case errors.Is(err, server.ErrContextLength):
		return "This conversation is too long for the model's context. Start a new chat, or raise the context length in the conversation's settings."
	case errors.Is(err, library.ErrTruncated):
		return "Saji could not load " + model + ": its file ends too soon, as an interrupted download does."
	case errors.Is(err, library.ErrNotGGUF), errors.Is(err, library.ErrMalformed), errors.Is(err, library.ErrUnsupportedArch):
		return "Saji could not load " + model + ": " + userMessage(err)
	}
	return "The reply failed: " + userMessage(err)
}

// reply is a reply streaming into a conversation. The generation
// goroutine feeds it through emit; redraws go to the UI through bg.do, at
// most every redrawEvery.
type reply struct {
	v       *chatView
	convID  int64
	model   string
	msg     store.Message // the assistant message; its ID picks the row
	cancel  context.CancelFunc
	started time.Time
	stopped atomic.Bool // the person stopped it

	mu       sync.Mutex
	text     strings.Builder
	status   string
	done     int
	total    int
	pending  bool // a redraw is scheduled
	saved    time.Time
	finished bool
	view     *messageView // where it shows (UI goroutine only)
}

// emit takes one update of the generator: text is added, a status is
// kept, a redraw is scheduled if none is, and the text is saved every
// saveEvery.
func (r *reply) emit(up Update) {
	r.mu.Lock()
	if r.finished {
		r.mu.Unlock()
		return
	}
	if up.Text != "" {
		r.text.WriteString(up.Text)
		r.status, r.done, r.total = "", 0, 0
	} else if up.Status != "" {
		r.status, r.done, r.total = up.Status, up.Done, up.Total
	}
	var save *store.Message
	if up.Text != "" && time.Since(r.saved) >= saveEvery {
		r.saved = time.Now()
		m := r.msg
		m.Content = r.text.String()
		save = &m
	}
	schedule := !r.pending
	r.pending = true
	r.mu.Unlock()
	if schedule {
		time.AfterFunc(redrawEvery, r.redraw)
	}
	if save != nil {
		if err := r.v.u.core.Store().UpdateMessage(*save); err != nil {
			r.v.u.core.log.Warn("app: saving a reply", "err", err)
		}
	}
}

// redraw shows the reply's text and status so far.
func (r *reply) redraw() {
	r.v.bg.do(func() {
		r.mu.Lock()
		r.pending = false
		finished := r.finished
		r.mu.Unlock()
		if !finished && r.view != nil {
			r.v.follow(func() { r.show(r.view) })
		}
	})
}

// show draws the reply so far into mv (UI goroutine).
func (r *reply) show(mv *messageView) {
	r.view = mv
	r.mu.Lock()
	text, status, done, total := r.text.String(), r.status, r.done, r.total
	r.mu.Unlock()
	mv.setText(text)
	switch {
	case status != "":
		mv.setStatus(status, done, total)
	case text == "":
		mv.setStatus("Waiting for the model...", 0, 0)
	default:
		mv.setStatus("", 0, 0)
	}
}

// follow runs f, which grows the messages, and keeps the view at the
// bottom if it was there.
func (v *chatView) follow(f func()) {
	atBottom := v.scroll.Offset.Y >= v.msgBox.MinSize().Height-v.scroll.Size().Height-2*theme.Padding()-40
	f()
	if atBottom {
		v.scroll.ScrollToBottom()
	}
}

// run generates the reply and stores it when it ends.
func (r *reply) run(ctx context.Context, req ReplyRequest) {
	st := r.v.u.core.Store()
	stats, err := r.v.u.gen.Generate(ctx, req, r.emit)
	defer r.cancel()
	r.mu.Lock()
	r.finished = true
	text := r.text.String()
	r.mu.Unlock()
	stopped := r.stopped.Load() || (err != nil && ctx.Err() != nil)
	if stopped {
		err = nil
	}
	m := r.msg
	m.Content, m.Done = text, true
	m.Tokens, m.TokensPerSecond, m.TTFTSeconds = stats.Tokens, stats.TokensPerSecond, stats.TTFT.Seconds()
	var saveErr error
	if err != nil && text == "" {
		// Nothing to keep: the reply goes, the error stays on screen.
		_, msgs, cerr := st.Conversation(r.convID)
		saveErr = cerr
		if cerr == nil {
			if i := slices.IndexFunc(msgs, func(x store.Message) bool { return x.ID == r.msg.ID }); i > 0 {
				saveErr = st.TruncateAfter(r.convID, msgs[i-1].ID)
			}
		}
	} else {
		saveErr = st.UpdateMessage(m)
	}
	log := r.v.u.core.log
	switch {
	case err != nil:
		log.Warn("app: reply failed", "model", r.model, "tokens", stats.Tokens, "err", err)
	case stopped:
		log.Info("app: reply stopped", "model", r.model, "tokens", stats.Tokens)
	default:
		log.Info("app: reply finished", "model", r.model, "tokens", stats.Tokens,
			"tokens_per_second", stats.TokensPerSecond, "ttft_ms", stats.TTFT.Milliseconds(), "finish", stats.Finish)
	}
	if saveErr != nil && !errors.Is(saveErr, store.ErrNotFound) { // not found: deleted meanwhile
		log.Warn("app: saving a reply", "err", saveErr)
	}
	r.v.bg.do(func() {
		v := r.v
		if v.replies[r.convID] != r {
			return // the conversation was deleted
		}
		delete(v.replies, r.convID)
		if stopped {
			v.stopped[r.msg.ID] = true
		}
		if err != nil {
			v.notes[r.convID] = replyError(r.model, err)
		}
		if v.conv != nil && v.conv.ID == r.convID {
			v.reloadMessages()
			v.updateControls()
			if stats.Fit != nil && len(v.loading) == 0 {
				// The fit planner's check after the model's first reply.
				v.setStatus(fitCheckText(stats.Fit), false)
			}
		}
		v.reloadList()
	})
}

// messageView draws one message: who wrote it, its text as Markdown with
// code blocks, and a line under it (status and progress while a reply
// streams, its figures once done).
type messageView struct {
	v        *chatView
	msg      store.Message
	box      *fyne.Container
	body     *fyne.Container
	parts    []blockView
	status   *widget.Label
	progress *widget.ProgressBar
	footer   *widget.Label
}

// blockView draws one block of a message.
type blockView struct {
	code  bool
	plain bool // prose shown as typed, not as Markdown
	rich  *widget.RichText
	lang  *widget.Label
	text  *string // the code, for its Copy button
	obj   fyne.CanvasObject
}

// newMessageView draws m; last marks the conversation's last reply,
// which can be regenerated. While a reply streams (streaming) messages
// have no buttons: they cannot be edited or regenerated until it ends.
func (v *chatView) newMessageView(m store.Message, streaming, last bool) *messageView {
	mv := &messageView{v: v, msg: m, body: container.NewVBox()}
	user := m.Role == "user"
	who := v.modelName()
	if user {
		who = "You"
	}
	header := widget.NewLabelWithStyle(who, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	mv.status = widget.NewLabel("")
	mv.status.Importance = widget.LowImportance
	mv.status.Hide()
	mv.progress = widget.NewProgressBar()
	mv.progress.Hide()
	mv.footer = widget.NewLabel("")
	mv.footer.Importance = widget.LowImportance
	mv.footer.Wrapping = fyne.TextWrapWord
	mv.setText(m.Content)

	var actions []fyne.CanvasObject
	if user {
		edit := widget.NewButtonWithIcon("Edit", theme.DocumentCreateIcon(), func() { v.showEdit(mv.msg) })
		edit.Importance = widget.LowImportance
		actions = append(actions, edit)
	} else {
		cp := widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() { v.u.app.Clipboard().SetContent(mv.msg.Content) })
		cp.Importance = widget.LowImportance
		actions = append(actions, cp)
		if last {
			regen := widget.NewButtonWithIcon("Regenerate", theme.ViewRefreshIcon(), v.regenerate)
			regen.Importance = widget.LowImportance
			actions = append(actions, regen)
		}
		switch {
		case v.stopped[m.ID]:
			mv.footer.SetText("Stopped. " + statsLine(m))
		case !m.Done && (v.conv == nil || v.replies[v.conv.ID] == nil || v.replies[v.conv.ID].msg.ID != m.ID):
			mv.footer.SetText("Interrupted: this reply did not finish.")
		case m.Done && m.Tokens > 0:
			mv.footer.SetText(statsLine(m))
		}
	}
	mv.footer.Hidden = mv.footer.Text == ""
	if streaming {
		actions = nil
	}
	under := container.NewBorder(nil, nil, nil, container.NewHBox(actions...), mv.footer)
	inner := container.NewVBox(header, mv.body, mv.status, mv.progress, under)
	if user {
		bg := canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
		bg.CornerRadius = theme.InputRadiusSize() * 2
		gap := canvas.NewRectangle(color.Transparent)
		gap.SetMinSize(fyne.NewSize(48, 0))
		mv.box = container.NewBorder(nil, nil, gap, nil, container.NewStack(bg, container.NewPadded(inner)))
	} else {
		mv.box = container.NewPadded(inner)
	}
	return mv
}

// statsLine is a finished reply's figures.
func statsLine(m store.Message) string {
	tokens := "tokens"
	if m.Tokens == 1 {
		tokens = "token"
	}
	return fmt.Sprintf("%d %s · %.1f tokens/s · %.2f s to first token", m.Tokens, tokens, m.TokensPerSecond, m.TTFTSeconds)
}

// setText draws text, reusing the blocks already drawn where they are
// still of the same kind (a streaming reply only grows at its end).
func (mv *messageView) setText(text string) {
	mv.msg.Content = text
	blocks := splitMessage(text)
	for i, b := range blocks {
		if i < len(mv.parts) && mv.parts[i].code == b.Code {
			mv.parts[i].update(b)
			continue
		}
		mv.parts = append(mv.parts[:i], mv.v.newBlockView(b, mv.msg.Role == "user"))
	}
	mv.parts = mv.parts[:len(blocks)]
	objs := make([]fyne.CanvasObject, len(mv.parts))
	for i, p := range mv.parts {
		objs[i] = p.obj
	}
	if len(objs) != len(mv.body.Objects) || !slices.Equal(objs, mv.body.Objects) {
		mv.body.Objects = objs
		mv.body.Refresh()
	}
}

// setStatus shows what happens before the first token; total > 0 adds a
// progress bar. An empty status hides both.
func (mv *messageView) setStatus(status string, done, total int) {
	if mv.status.Text != status {
		mv.status.SetText(status)
	}
	mv.status.Hidden = status == ""
	mv.status.Refresh()
	if status != "" && total > 0 {
		mv.progress.Max = float64(total)
		mv.progress.SetValue(float64(done))
		mv.progress.Show()
	} else {
		mv.progress.Hide()
	}
}

// newBlockView draws block b; plain prose keeps its line breaks and
// shows no Markdown (what a person typed shows as typed).
func (v *chatView) newBlockView(b block, plain bool) blockView {
	if !b.Code {
		rt := widget.NewRichText()
		rt.Wrapping = fyne.TextWrapWord
		bv := blockView{rich: rt, obj: rt, plain: plain}
		bv.update(b)
		return bv
	}
	text := b.Text
	bv := blockView{code: true, text: &text}
	bv.rich = widget.NewRichText(&widget.TextSegment{Style: widget.RichTextStyleCodeBlock, Text: b.Text})
	bv.lang = widget.NewLabelWithStyle(b.Lang, fyne.TextAlignLeading, fyne.TextStyle{Italic: true})
	bv.lang.Importance = widget.LowImportance
	cp := widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() { v.u.app.Clipboard().SetContent(*bv.text) })
	cp.Importance = widget.LowImportance
	bg := canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
	bg.CornerRadius = theme.InputRadiusSize()
	bg.StrokeColor = theme.Color(theme.ColorNameInputBorder)
	bg.StrokeWidth = 1
	body := container.NewBorder(container.NewBorder(nil, nil, bv.lang, cp), nil, nil, nil, container.NewHScroll(bv.rich))
	bv.obj = container.NewStack(bg, container.NewPadded(body))
	return bv
}

// update redraws the block with b's text.
func (bv *blockView) update(b block) {
	if !bv.code && bv.plain {
		bv.rich.Segments = []widget.RichTextSegment{&widget.TextSegment{Style: widget.RichTextStyleParagraph, Text: b.Text}}
		bv.rich.Refresh()
		return
	}
	if !bv.code {
		bv.rich.ParseMarkdown(b.Text)
		return
	}
	if *bv.text == b.Text && bv.lang.Text == b.Lang {
		return
	}
	*bv.text = b.Text
	bv.lang.SetText(b.Lang)
	seg := bv.rich.Segments[0].(*widget.TextSegment)
	seg.Text = b.Text
	bv.rich.Refresh()
}

// chatEntry is the message entry: several lines, Enter sends and
// Shift+Enter starts a new line.
type chatEntry struct {
	widget.Entry
	app    fyne.App
	onSend func()
	shift  bool // a Shift key is down, as KeyDown and KeyUp tell
}

// newChatEntry returns an entry that calls onSend on Enter.
func newChatEntry(a fyne.App, onSend func()) *chatEntry {
	e := &chatEntry{app: a, onSend: onSend}
	e.MultiLine = true
	e.Wrapping = fyne.TextWrapWord
	e.ExtendBaseWidget(e)
	e.SetMinRowsVisible(3)
	return e
}

// KeyDown notes Shift.
func (e *chatEntry) KeyDown(k *fyne.KeyEvent) {
	if k.Name == desktop.KeyShiftLeft || k.Name == desktop.KeyShiftRight {
		e.shift = true
	}
	e.Entry.KeyDown(k)
}

// KeyUp notes Shift.
func (e *chatEntry) KeyUp(k *fyne.KeyEvent) {
	if k.Name == desktop.KeyShiftLeft || k.Name == desktop.KeyShiftRight {
		e.shift = false
	}
	e.Entry.KeyUp(k)
}

// shiftDown reports whether Shift is held: the desktop driver knows (a
// Shift released while the window was not focused never reaches KeyUp);
// otherwise what KeyDown and KeyUp said.
func (e *chatEntry) shiftDown() bool {
	if e.app != nil {
		if d, ok := e.app.Driver().(desktop.Driver); ok {
			return d.CurrentKeyModifiers()&fyne.KeyModifierShift != 0
		}
	}
	return e.shift
}

// TypedKey sends on Enter and inserts a new line on Shift+Enter.
func (e *chatEntry) TypedKey(k *fyne.KeyEvent) {
	if (k.Name == fyne.KeyReturn || k.Name == fyne.KeyEnter) && !e.shiftDown() {
		if e.onSend != nil {
			e.onSend()
		}
		return
	}
	e.Entry.TypedKey(k)
}
