package app

// The chat's replies: sending a message, and a reply streaming from the
// generator into its conversation, redrawn as it grows.

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"fyne.io/fyne/v2/theme"

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
	var saveErr error
	if err != nil && text == "" && reasoning == "" {
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
