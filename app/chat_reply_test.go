package app

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"saji/app/store"
	"saji/engine/runner"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// chatStopAfterOne sends text, lets gen stream its first chunk, then
// taps Stop and waits until the reply says it was stopped.
func chatStopAfterOne(t *testing.T, gen *fakeGen, text string) *ui {
	t.Helper()
	u := chatUI(t, gen)
	chatSend(u, text)
	chatWaitRequests(t, gen, 1)
	gen.Step <- struct{}{}
	chatWaitShown(t, u, gen.Chunks[0])
	chatLocked(u, func() { test.Tap(u.chat.stopBtn) })
	chatWaitShown(t, u, "Stopped by you.")
	chatWaitIdle(t, u)
	return u
}

func TestChatStop(t *testing.T) {
	gen := &fakeGen{Chunks: []string{"Partial", " never"}, Step: make(chan struct{})}
	u := chatStopAfterOne(t, gen, "tell me")
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

// TestChatThinking streams a thinking model's reply: its reasoning shows
// in a collapsed block above the answer, titled with how long it has
// thought, is stored apart from the answer, and is not sent back to the
// model with the conversation.
func TestChatThinking(t *testing.T) {
	gen := &fakeGen{Thoughts: []string{"Let me see.", " Two and two."}, Chunks: []string{"Four."}, Step: make(chan struct{})}
	u := chatUI(t, gen)
	chatSend(u, "2+2?")
	chatWaitRequests(t, gen, 1)
	gen.Step <- struct{}{}
	chatWaitShown(t, u, "{Thinking...")
	if s := chatShown(u); strings.Contains(s, "Let me see.") {
		t.Errorf("the reasoning is not collapsed while it streams:\n%s", s)
	}
	gen.Step <- struct{}{}
	gen.Step <- struct{}{}
	chatWaitShown(t, u, "Four.")
	chatWaitIdle(t, u)
	_, msgs := chatOpenMessages(t, u)
	if len(msgs) != 2 || msgs[1].Content != "Four." || msgs[1].Reasoning != "Let me see. Two and two." ||
		msgs[1].ReasoningTokens != 2 || msgs[1].ReasoningSeconds != 1.5 {
		t.Fatalf("stored reply: %+v", msgs)
	}
	chatWaitShown(t, u, "{Thought for 1.5 s · 2 tokens}")
	var acc *widget.Accordion
	chatLocked(u, func() { acc = chatAccordion(u.chat.msgBox) })
	if acc == nil {
		t.Fatal("no reasoning block")
	}
	chatLocked(u, func() { acc.Open(0) })
	chatWaitShown(t, u, "Let me see. Two and two.")

	chatSend(u, "and 3+3?")
	reqs := chatWaitRequests(t, gen, 2)
	for range 3 {
		gen.Step <- struct{}{}
	}
	chatWaitIdle(t, u)
	want := []string{"user: 2+2?", "assistant: Four.", "user: and 3+3?"}
	if got := chatRoles(reqs[1].Messages); !reflect.DeepEqual(got, want) {
		t.Errorf("second request %q, want %q", got, want)
	}
}

// chatAccordion returns the first visible accordion under o.
func chatAccordion(o fyne.CanvasObject) *widget.Accordion {
	if o == nil || !o.Visible() {
		return nil
	}
	switch o := o.(type) {
	case *widget.Accordion:
		return o
	case *container.Scroll:
		return chatAccordion(o.Content)
	case *fyne.Container:
		for _, c := range o.Objects {
			if a := chatAccordion(c); a != nil {
				return a
			}
		}
	}
	return nil
}

// TestChatVersions regenerates a reply and edits a message: both keep the
// old version, reachable with ‹ ›, and a stopped reply's mark never shows
// on the reply that streams after it.
func TestChatVersions(t *testing.T) {
	gen := &fakeGen{Chunks: []string{"An", " answer."}, Step: make(chan struct{}, 8)}
	u := chatStopAfterOne(t, gen, "question")
	_, first := chatOpenMessages(t, u)
	// Regenerate: while the new version streams, nothing says Stopped.
	chatLocked(u, func() { u.chat.regenerate() })
	chatWaitRequests(t, gen, 2)
	if s := chatShown(u); strings.Contains(s, "Stopped") || strings.Contains(s, "0 tokens") {
		t.Errorf("a streaming reply shows a stopped mark:\n%s", s)
	}
	gen.Step <- struct{}{}
	gen.Step <- struct{}{}
	chatWaitIdle(t, u)
	_, msgs := chatOpenMessages(t, u)
	if len(msgs) != 2 || msgs[1].ID == first[1].ID || msgs[1].Version != 2 || msgs[1].Versions != 2 {
		t.Fatalf("after Regenerate: %+v", msgs)
	}
	chatWaitShown(t, u, "2/2")
	chatLocked(u, func() { u.chat.showVersion(first[1].ID) })
	_, msgs = chatOpenMessages(t, u)
	if msgs[1].ID != first[1].ID || msgs[1].Content != "An" {
		t.Fatalf("the first version: %+v", msgs[1])
	}
	chatWaitShown(t, u, "1/2")
	chatWaitShown(t, u, "Stopped by you.")

	// Edit: a new branch; the old message and its replies stay.
	chatLocked(u, func() { u.chat.editAndResend(msgs[0].ID, "question, edited") })
	chatWaitRequests(t, gen, 3)
	gen.Step <- struct{}{}
	gen.Step <- struct{}{}
	chatWaitIdle(t, u)
	_, msgs = chatOpenMessages(t, u)
	if len(msgs) != 2 || msgs[0].Content != "question, edited" || msgs[0].Version != 2 {
		t.Fatalf("after the edit: %+v", msgs)
	}
	chatLocked(u, func() { u.chat.showVersion(msgs[0].Siblings[0]) })
	_, msgs = chatOpenMessages(t, u)
	if len(msgs) != 2 || msgs[0].Content != "question" || msgs[1].Versions != 2 {
		t.Errorf("the old branch: %+v", msgs)
	}
}

// TestChatLengthContinue shows a reply cut by the length limit as such,
// and Continue goes on writing the same message.
func TestChatLengthContinue(t *testing.T) {
	gen := &fakeGen{Chunks: []string{"Part one."}, Finish: "length"}
	u := chatUI(t, gen)
	chatSend(u, "write")
	chatWaitRequests(t, gen, 1)
	chatWaitIdle(t, u)
	chatWaitShown(t, u, "Cut at the reply length limit")
	_, msgs := chatOpenMessages(t, u)
	if msgs[1].Finish != "length" {
		t.Fatalf("finish %q", msgs[1].Finish)
	}
	var more *widget.Button
	chatLocked(u, func() { more = chatButton(u.chat.msgBox, "Continue") })
	if more == nil {
		t.Fatal("no Continue button")
	}
	gen.Finish = ""
	chatLocked(u, func() { test.Tap(more) })
	reqs := chatWaitRequests(t, gen, 2)
	chatWaitIdle(t, u)
	if r := reqs[1]; !r.Continue || len(r.Messages) != 2 || r.Messages[1].Content != "Part one." {
		t.Errorf("continue request %+v", r)
	}
	_, after := chatOpenMessages(t, u)
	if len(after) != 2 || after[1].ID != msgs[1].ID || after[1].Content != "Part one.Part one." || after[1].Finish != "" || after[1].Tokens != 2 {
		t.Errorf("continued reply %+v", after[1])
	}
	if s := chatShown(u); strings.Contains(s, "Cut at") {
		t.Errorf("the finished reply still says it was cut:\n%s", s)
	}
}

// TestReplyFooter checks the line under a reply for each way it ends.
func TestReplyFooter(t *testing.T) {
	done := store.Message{Done: true, Tokens: 3, TokensPerSecond: 10}
	for _, tt := range []struct {
		m    store.Message
		live bool
		want string
	}{
		{store.Message{}, true, ""},
		{store.Message{Finish: store.FinishStopped}, true, ""},
		{store.Message{}, false, "Interrupted: this reply did not finish."},
		{store.Message{Done: true, Finish: store.FinishStopped}, false, "Stopped by you."},
		{store.Message{Done: true, Finish: store.FinishContext}, false, "Cut: the reply filled the room the context leaves it."},
		{store.Message{Done: true, Finish: store.FinishError}, false, "Stopped by an error."},
		{done, false, statsLine(done)},
	} {
		if got := replyFooter(tt.m, tt.live); got != tt.want {
			t.Errorf("replyFooter(%+v, %v) = %q, want %q", tt.m, tt.live, got, tt.want)
		}
	}
	for _, tt := range []struct {
		stopped bool
		err     error
		finish  string
		want    string
	}{
		{true, nil, "stop", store.FinishStopped},
		{false, runner.ErrContextLength, "", store.FinishContext},
		{false, errors.New("x"), "", store.FinishError},
		{false, nil, "length", store.FinishLength},
		{false, nil, "context", store.FinishContext},
		{false, nil, "stop", ""},
	} {
		if got := finishOf(tt.stopped, tt.err, tt.finish); got != tt.want {
			t.Errorf("finishOf(%v, %v, %q) = %q, want %q", tt.stopped, tt.err, tt.finish, got, tt.want)
		}
	}
}
