package app

// A conversation's settings: its system prompt and sampling.

import (
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"saji/app/store"
)

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
	system.SetPlaceHolder(blankNone)
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
	temp := num(fmtF(c.Settings.Temperature), blankDefault, checkFloat(0, 2))
	topP := num(fmtF(c.Settings.TopP), blankDefault, checkFloat(0, 1))
	maxTok := num(formatInt(c.Settings.MaxTokens), blankNoLimit, checkInt(0, 1<<30))
	ctxLen := num(formatInt(c.Settings.Context), blankDefault+": the model's preset or the app's setting", checkInt(0, 1<<30))
	items := []*widget.FormItem{
		fieldSystem.item(system, "Instructions the model reads before this conversation."),
		fieldTemperature.item(temp, ""),
		fieldTopP.item(topP, ""),
		fieldMaxTokens.item(maxTok, ""),
		fieldContext.item(ctxLen, ""),
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
