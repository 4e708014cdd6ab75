package app

// Exporting a conversation to a Markdown or JSON file.

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
)

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
