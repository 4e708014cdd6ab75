package app

// How a message is drawn: its text as Markdown with code blocks, its
// status while it streams and its figures once done; editing one.

import (
	"fmt"
	"image/color"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"saji/app/store"
	"saji/engine/scheduler"
)

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

// messageView draws one message: who wrote it, its text as Markdown with
// code blocks, and a line under it (status and progress while a reply
// streams, its figures once done).
type messageView struct {
	v        *chatView
	msg      store.Message
	box      *fyne.Container
	body     *mdView
	status   *widget.Label
	progress *widget.ProgressBar
	footer   *widget.Label
	// thinking is the reply's reasoning, collapsed above the answer;
	// thought is its text.
	thinking *widget.Accordion
	thought  *widget.Label
}

// newMessageView draws m; last marks the conversation's last reply,
// which can be regenerated. While a reply streams (streaming) messages
// have no buttons: they cannot be edited or regenerated until it ends.
func (v *chatView) newMessageView(m store.Message, streaming, last bool) *messageView {
	user := m.Role == "user"
	mv := &messageView{v: v, msg: m, body: newMDView(user, func(s string) { v.u.app.Clipboard().SetContent(s) })}
	who := v.modelName()
	if user {
		who = "You"
	}
	header := widget.NewLabelWithStyle(who, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	mv.status = widget.NewLabel("")
	mv.status.Importance = widget.LowImportance
	mv.status.Hide()
	mv.progress = newProgressBar()
	mv.progress.Hide()
	mv.footer = widget.NewLabel("")
	mv.footer.Importance = widget.LowImportance
	mv.footer.Wrapping = fyne.TextWrapWord
	mv.thought = widget.NewLabel("")
	mv.thought.Wrapping = fyne.TextWrapWord
	mv.thought.Importance = widget.LowImportance
	mv.thinking = widget.NewAccordion(widget.NewAccordionItem("", mv.thought))
	mv.thinking.Hide()
	if m.Reasoning != "" {
		mv.showReasoning(m.Reasoning, m.ThoughtSummary())
	}
	mv.setText(m.Content)

	var actions []fyne.CanvasObject
	if bar := v.versionBar(m, streaming); bar != nil {
		actions = append(actions, bar)
	}
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
		if last && m.Done && m.Finish == store.FinishLength {
			more := widget.NewButtonWithIcon("Continue", theme.MediaPlayIcon(), func() { v.continueReply(mv.msg) })
			more.Importance = widget.LowImportance
			actions = append(actions, more)
		}
		live := v.conv != nil && v.replies[v.conv.ID] != nil && v.replies[v.conv.ID].msg.ID == m.ID
		mv.footer.SetText(replyFooter(m, live))
	}
	mv.footer.Hidden = mv.footer.Text == ""
	if streaming {
		actions = nil
	}
	under := container.NewBorder(nil, nil, nil, container.NewHBox(actions...), mv.footer)
	inner := container.NewVBox(header, mv.thinking)
	if pics := v.messagePictures(m.Images); pics != nil {
		inner.Add(pics)
	}
	inner.Objects = append(inner.Objects, mv.body.Box, mv.status, mv.progress, under)
	if user {
		bg := newThemedRect(colorNameUserBubble, "", theme.InputRadiusSize()*2)
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
	line := fmt.Sprintf("%d %s · %.1f tokens/s · %.2f s to first token", m.Tokens, tokens, m.TokensPerSecond, m.TTFTSeconds)
	if m.DraftTokens > 0 {
		// Speculative decoding: the share of the draft model's tokens kept.
		rate := scheduler.Usage{DraftTokens: m.DraftTokens, AcceptedTokens: m.AcceptedTokens}.AcceptanceRate()
		line += fmt.Sprintf(" · %.0f%% of %d drafted tokens kept", 100*rate, m.DraftTokens)
	}
	return line
}

// setText draws text; a streaming reply re-renders only its blocks that
// changed.
func (mv *messageView) setText(text string) {
	mv.msg.Content = text
	mv.body.SetText(text)
}

// setReasoning draws a streaming reply's reasoning so far: live while the
// model is still thinking, which it has done for took.
func (mv *messageView) setReasoning(text string, live bool, took time.Duration) {
	if text == "" {
		return
	}
	title := fmt.Sprintf("Thought for %.1f s", took.Seconds())
	if live {
		title = fmt.Sprintf("Thinking... %.0f s", took.Seconds())
	}
	mv.showReasoning(text, title)
}

// showReasoning shows the collapsible reasoning block, titled title.
func (mv *messageView) showReasoning(text, title string) {
	mv.msg.Reasoning = text
	item := mv.thinking.Items[0]
	if text = strings.TrimSpace(text); item.Title != title || mv.thought.Text != text {
		item.Title = title
		mv.thought.SetText(text)
		mv.thinking.Refresh()
	}
	mv.thinking.Show()
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
