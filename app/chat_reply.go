package app

// The chat's replies: sending a message, and a reply streaming from the
// generator into its conversation, redrawn as it grows.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"saji/app/store"
	"saji/engine/chat"
	"saji/engine/library"
	"saji/engine/model"
	"saji/engine/runner"
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

// send sends the entry's text and the pictures attached: the user
// message is stored, then a reply streams. A new chat is stored first,
// titled after the message.
func (v *chatView) send() {
	text := strings.TrimSpace(v.entry.Text)
	if (text == "" && len(v.attached) == 0) || v.streaming() {
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
		title := titleFrom(text)
		if title == "" {
			title = "Picture"
		}
		c, err := st.NewConversation(title, model)
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
	images := make([][]byte, len(v.attached))
	for i, a := range v.attached {
		images[i] = a.data
	}
	if _, err := st.AddMessage(v.conv.ID, "user", text, images...); err != nil {
		v.u.showError("Could not save the message", err)
		return
	}
	v.entry.SetText("")
	v.attached = nil
	v.showAttached()
	v.startReply()
	v.reloadList()
}

// replyMessages are the turns of msgs the model reads: the user's and the
// assistant's with text or pictures.
func replyMessages(msgs []store.Message) ([]chat.Message, error) {
	var out []chat.Message
	for _, m := range msgs {
		if (m.Role == "user" || m.Role == "assistant") && (m.Content != "" || len(m.Images) > 0) {
			cm, err := chatMessage(m.Role, m.Content, m.Images)
			if err != nil {
				return nil, err
			}
			out = append(out, cm)
		}
	}
	return out, nil
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

// startReply adds an empty assistant message after the last message of
// the branch shown and streams the reply to the messages before it.
func (v *chatView) startReply() { v.startReplyAfter(-1) }

// startReplyAfter streams a reply to the branch shown up to message
// parent (-1: all of it): after an earlier message, the reply is a new
// version of the one there (Regenerate), which stays reachable.
func (v *chatView) startReplyAfter(parent int64) {
	c := *v.conv
	st := v.u.core.Store()
	_, msgs, err := st.Conversation(c.ID)
	if err != nil {
		v.u.showError("Could not read the conversation", err)
		return
	}
	if parent >= 0 {
		i := slices.IndexFunc(msgs, func(m store.Message) bool { return m.ID == parent })
		if i < 0 {
			return
		}
		msgs = msgs[:i+1]
	}
	req := ReplyRequest{Model: c.Model, System: c.System, Settings: c.Settings}
	if req.Messages, err = replyMessages(msgs); err != nil {
		v.u.showError("Could not read the conversation", err)
		return
	}
	var am store.Message
	if parent >= 0 {
		am, err = st.AddMessageAfter(c.ID, parent, "assistant", "")
	} else {
		am, err = st.AddMessage(c.ID, "assistant", "")
	}
	if err != nil {
		v.u.showError("Could not save the reply", err)
		return
	}
	v.stream(c, am, req)
}

// stream streams the reply req asks for into the assistant message am of
// conversation c.
func (v *chatView) stream(c store.Conversation, am store.Message, req ReplyRequest) {
	delete(v.notes, c.ID)
	ctx, cancel := context.WithCancel(context.Background())
	r := &reply{v: v, convID: c.ID, model: c.Model, msg: am, cancel: cancel, started: time.Now()}
	if req.Continue {
		// The reply goes on: its text, figures and time so far stay.
		r.text.WriteString(am.Content)
		r.reasoning.WriteString(am.Reasoning)
		r.before = am
	}
	v.replies[c.ID] = r
	v.setStatus("", false)
	v.reloadMessages()
	v.updateControls()
	go r.run(ctx, req)
}

// continueReply goes on writing reply m, which the length limit cut: the
// same message grows.
func (v *chatView) continueReply(m store.Message) {
	if v.conv == nil || v.streaming() || m.Role != "assistant" {
		return
	}
	i := slices.IndexFunc(v.msgs, func(x store.Message) bool { return x.ID == m.ID })
	if i < 0 {
		return
	}
	c := *v.conv
	req := ReplyRequest{Model: c.Model, System: c.System, Settings: c.Settings, Continue: true}
	var err error
	if req.Messages, err = replyMessages(v.msgs[:i+1]); err != nil {
		v.u.showError("Could not read the conversation", err)
		return
	}
	m.Done, m.Finish = false, ""
	v.stream(c, m, req)
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

// regenerate writes a new version of the last reply: a reply to the user
// message before it, shown with ‹ › to go back to the old one.
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
	v.startReplyAfter(v.msgs[i].ID)
}

// editAndResend makes a new version of user message id with text, a new
// branch of the conversation from there, and streams the reply to it;
// the old message and what followed it stay reachable with ‹ ›.
func (v *chatView) editAndResend(id int64, text string) {
	text = strings.TrimSpace(text)
	if v.conv == nil || v.streaming() {
		return
	}
	i := slices.IndexFunc(v.msgs, func(m store.Message) bool { return m.ID == id })
	if i < 0 || v.msgs[i].Role != "user" || (text == "" && len(v.msgs[i].Images) == 0) {
		return
	}
	if _, err := v.u.core.Store().AddMessageAfter(v.conv.ID, v.msgs[i].ParentID, "user", text, v.msgs[i].Images...); err != nil {
		v.u.showError("Could not resend the message", err)
		return
	}
	v.startReply()
}

// showVersion shows version id of a message (‹ ›), with the newest
// branch after it.
func (v *chatView) showVersion(id int64) {
	if v.conv == nil || v.streaming() {
		return
	}
	if err := v.u.core.Store().ShowVersion(v.conv.ID, id); err != nil {
		v.u.showError("Could not show that version", err)
		return
	}
	v.reloadMessages()
	v.updateControls()
}

// versionBar is the ‹ 1/2 › of a message with versions (nil for one
// without): the buttons show the one before and after.
func (v *chatView) versionBar(m store.Message, streaming bool) fyne.CanvasObject {
	if m.Versions < 2 || m.Version < 1 || len(m.Siblings) != m.Versions {
		return nil
	}
	prev := widget.NewButtonWithIcon("", theme.NavigateBackIcon(), func() { v.showVersion(m.Siblings[m.Version-2]) })
	next := widget.NewButtonWithIcon("", theme.NavigateNextIcon(), func() { v.showVersion(m.Siblings[m.Version]) })
	prev.Importance, next.Importance = widget.LowImportance, widget.LowImportance
	if m.Version == 1 || streaming {
		prev.Disable()
	}
	if m.Version == m.Versions || streaming {
		next.Disable()
	}
	return container.NewHBox(prev, widget.NewLabel(fmt.Sprintf("%d/%d", m.Version, m.Versions)), next)
}

// replyFooter is the line under reply m: why it ended and its figures.
// The reply still streaming (live) has none: the status line speaks
// for it.
func replyFooter(m store.Message, live bool) string {
	stats := ""
	if m.Tokens > 0 {
		stats = statsLine(m)
	}
	switch {
	case live:
		return ""
	case m.Finish != "":
		return strings.TrimSpace(finishText(m.Finish) + " " + stats)
	case !m.Done:
		return "Interrupted: this reply did not finish."
	}
	return stats
}

// finishText says why a reply ended, for its footer.
func finishText(finish string) string {
	switch finish {
	case store.FinishStopped:
		return "Stopped by you."
	case store.FinishLength:
		return "Cut at the reply length limit (the conversation's settings)."
	case store.FinishContext:
		return "Cut: the reply filled the room the context leaves it."
	case store.FinishError:
		return "Stopped by an error."
	}
	return ""
}

// finishOf says why a reply ended, for the store: stopped by the person,
// failed (err), or the generator's finish ("length", "context").
func finishOf(stopped bool, err error, finish string) string {
	switch {
	case stopped:
		return store.FinishStopped
	case errors.Is(err, runner.ErrContextLength):
		return store.FinishContext
	case err != nil:
		return store.FinishError
	case finish == "length":
		return store.FinishLength
	case finish == "context":
		return store.FinishContext
	}
	return ""
}

// replyError says in a sentence why a reply from the model called name failed.
func replyError(name string, err error) string {
	switch {
	case errors.Is(err, runner.ErrModelNotFound), errors.Is(err, library.ErrNotFound):
		return "The model " + name + " is not in the library any more. Choose another one above."
	case errors.Is(err, runner.ErrContextLength):
		return "This conversation is too long for the model's context. Start a new chat, or raise the context length in the conversation's settings."
	case errors.Is(err, library.ErrTruncated):
		return "Saji could not load " + name + ": its file ends too soon, as an interrupted download does."
	case errors.Is(err, library.ErrNotGGUF), errors.Is(err, library.ErrMalformed), errors.Is(err, library.ErrUnsupportedArch),
		errors.Is(err, model.ErrUnsupportedType):
		return "Saji could not load " + name + ": " + userMessage(err)
	case errors.Is(err, runner.ErrBadRequest):
		// The runner's reason, as the API gives it: a picture to a model
		// that cannot see, ...
		return "The reply failed: " + strings.TrimPrefix(err.Error(), runner.ErrBadRequest.Error()+": ")
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
	// before is the message a continued reply started from (zero for a
	// new reply): its figures add to the new ones.
	before store.Message

	mu        sync.Mutex
	text      strings.Builder
	reasoning strings.Builder
	thinking  time.Time // when the reasoning started (zero: none yet)
	answered  time.Time // when the answer started after it
	status    string
	done      int
	total     int
	pending   bool // a redraw is scheduled
	saved     time.Time
	finished  bool
	view      *messageView // where it shows (UI goroutine only)
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
	if up.Reasoning != "" && r.thinking.IsZero() {
		r.thinking = time.Now()
	}
	r.reasoning.WriteString(up.Reasoning)
	if up.Text != "" && !r.thinking.IsZero() && r.answered.IsZero() {
		r.answered = time.Now()
	}
	if up.Text != "" || up.Reasoning != "" {
		r.text.WriteString(up.Text)
		r.status, r.done, r.total = "", 0, 0
	} else if up.Status != "" {
		r.status, r.done, r.total = up.Status, up.Done, up.Total
	}
	var save *store.Message
	if (up.Text != "" || up.Reasoning != "") && time.Since(r.saved) >= saveEvery {
		r.saved = time.Now()
		m := r.msg
		m.Content, m.Reasoning = r.text.String(), r.reasoning.String()
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
	reasoning, took := r.reasoning.String(), time.Since(r.thinking)
	if !r.answered.IsZero() {
		took = r.answered.Sub(r.thinking)
	}
	r.mu.Unlock()
	mv.setReasoning(reasoning, text == "", took)
	mv.setText(text)
	switch {
	case status != "":
		mv.setStatus(status, done, total)
	case text == "" && reasoning == "":
		mv.setStatus("Waiting for the model...", 0, 0)
	default:
		mv.setStatus("", 0, 0)
	}
}

// follow runs f, which grows the messages, and keeps the view at the
// bottom if it was there.
func (v *chatView) follow(f func()) {
	atBottom := v.atEnd()
	f()
	if atBottom {
		v.scrollToEnd()
	}
}

// run generates the reply and stores it when it ends.
func (r *reply) run(ctx context.Context, req ReplyRequest) {
	st := r.v.u.core.Store()
	stats, err := r.v.u.gen.Generate(ctx, req, r.emit)
	defer r.cancel()
	r.mu.Lock()
	r.finished = true
	text, reasoning := r.text.String(), r.reasoning.String()
	r.mu.Unlock()
	stopped := r.stopped.Load() || (err != nil && ctx.Err() != nil)
	if stopped {
		err = nil
	}
	m := r.msg
	m.Content, m.Done = text, true
	m.Tokens, m.TokensPerSecond, m.TTFTSeconds = stats.Tokens, stats.TokensPerSecond, stats.TTFT.Seconds()
	m.Reasoning, m.ReasoningTokens, m.ReasoningSeconds = reasoning, stats.ReasoningTokens, stats.ReasoningTime.Seconds()
	m.DraftTokens, m.AcceptedTokens = stats.DraftTokens, stats.AcceptedTokens
	if b := r.before; b.ID != 0 {
		m.Tokens += b.Tokens
		m.DraftTokens, m.AcceptedTokens = m.DraftTokens+b.DraftTokens, m.AcceptedTokens+b.AcceptedTokens
		m.TTFTSeconds, m.ReasoningTokens, m.ReasoningSeconds = b.TTFTSeconds, m.ReasoningTokens+b.ReasoningTokens, m.ReasoningSeconds+b.ReasoningSeconds
	}
	m.Finish = finishOf(stopped, err, stats.Finish)
	var saveErr error
	if err != nil && text == "" && reasoning == "" {
		// Nothing to keep: the reply goes (an older version of it shows),
		// the error stays on screen.
		saveErr = st.DeleteMessage(r.convID, r.msg.ID)
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
