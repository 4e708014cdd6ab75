package app

// Number fields of the settings and preset forms: blank means "use the
// default", anything else must be a number in range.

import (
	"fmt"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
)

// formatFloat writes an optional number ("" for nil).
func formatFloat(x *float32) string {
	if x == nil {
		return ""
	}
	return strconv.FormatFloat(float64(*x), 'g', -1, 32)
}

// formatInt writes a count ("" for zero, unset).
func formatInt(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// parseFloat reads an optional number (nil for blank); the text has been
// checked.
func parseFloat(s string) *float32 {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	x, err := strconv.ParseFloat(s, 32)
	if err != nil {
		return nil
	}
	f := float32(x)
	return &f
}

// parseInt reads an optional count (0 for blank); the text has been
// checked.
func parseInt(s string) int {
	n, _ := strconv.Atoi(strings.TrimSpace(s))
	return n
}

// formError is a form field's error, a sentence shown under the field.
type formError string

func (e formError) Error() string { return string(e) }

// checkFloat accepts blank or a number from lo to hi.
func checkFloat(lo, hi float64) func(string) error {
	return func(s string) error {
		s = strings.TrimSpace(s)
		if s == "" {
			return nil
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || x < lo || x > hi {
			return formError(fmt.Sprintf("Enter a number from %g to %g, or leave it blank.", lo, hi))
		}
		return nil
	}
}

// checkInt accepts blank or a whole number from lo to hi.
func checkInt(lo, hi int) func(string) error {
	return func(s string) error {
		s = strings.TrimSpace(s)
		if s == "" {
			return nil
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < lo || n > hi {
			return formError(fmt.Sprintf("Enter a whole number from %s to %s, or leave it blank.", groupDigits(int64(lo)), groupDigits(int64(hi))))
		}
		return nil
	}
}

// valueOf returns *f, or 0 for nil (unset).
func valueOf(f *float32) float32 {
	if f == nil {
		return 0
	}
	return *f
}

// formField is a setting's name and its hint, worded once for every form
// that has it: the settings, a conversation's settings and a model's
// preset.
type formField struct{ Label, Hint string }

// The settings that several forms have.
var (
	fieldSystem      = formField{"System prompt", "Instructions the model reads before the conversation."}
	fieldTemperature = formField{"Temperature", "0 to 2. Lower is steadier, higher is more varied."}
	fieldTopP        = formField{"Top-p", "0 to 1. Keeps only the likeliest words that add up to this share."}
	fieldMaxTokens   = formField{"Max tokens", "The longest reply, in tokens."}
	fieldContext     = formField{"Context length", "How many tokens of a conversation the model keeps in mind. Longer takes more memory."}
)

// The placeholders of blank fields: what a blank field means.
const (
	blankDefault = "Default"
	blankNoLimit = "No limit"
	blankNone    = "None"
)

// item returns f as a form row holding w, with hint in place of f's when
// hint is not "".
func (f formField) item(w fyne.CanvasObject, hint string) *widget.FormItem {
	if hint == "" {
		hint = f.Hint
	}
	return &widget.FormItem{Text: f.Label, Widget: w, HintText: hint}
}

// confirmAction asks before an action, in the one pattern of Saji's
// confirmations: Cancel, and a button named by the action's verb
// ("Delete", "Remove"), in the danger colour when it cannot be undone.
func confirmAction(win fyne.Window, title, message, verb string, danger bool, do func()) dialog.Dialog {
	d := dialog.NewConfirm(title, message, func(ok bool) {
		if ok {
			do()
		}
	}, win)
	d.SetConfirmText(verb)
	d.SetDismissText("Cancel")
	if danger {
		d.SetConfirmImportance(widget.DangerImportance)
	}
	d.Show()
	return d
}
