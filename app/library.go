package app

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"saji/engine/gguf"
	"saji/engine/library"
	"saji/engine/model"
	"saji/engine/runner"
	"saji/engine/scheduler"
	"saji/engine/units"
)

// emptyLibraryText is what the library view says while it holds no model.
const emptyLibraryText = "Drop a .gguf file here or use Import."

// errFolder is the error of a dropped folder.
var errFolder = errors.New("app: a folder, not a model file")

// progressEvery is the least time between two redraws of the copy's
// progress (the last one always shows).
const progressEvery = 100 * time.Millisecond

// libraryView lists the local models, acts on the selected one (chat,
// default, preset, reveal, delete) and imports dropped or picked files.
//
// Its widgets and the fields marked "UI" belong to the UI goroutine; the
// import queue and what tests read across goroutines are under mu.
type libraryView struct {
	u       *ui
	content fyne.CanvasObject
	body    *fyne.Container // laid out again when the bottom panels show or hide

	folder  *widget.Label // where the library folder is
	status  *widget.Label // the outcome of the last import or action
	list    *widget.List
	empty   fyne.CanvasObject
	entries []library.Entry // UI: as listed
	current string          // UI: the selected model's name, "" for none

	importBtn, chatBtn, defaultBtn, presetBtn, quantizeBtn, revealBtn, deleteBtn *widget.Button

	importBox   *fyne.Container // shown while an import runs
	importTitle *widget.Label
	importBar   *widget.ProgressBar
	importInfo  *widget.Label
	cancelBtn   *widget.Button

	// choose asks whether to copy the model e into the library (copy) or
	// add it by reference; ok false skips it. It runs on the UI goroutine
	// and answers once, from any goroutine. Default: a dialog.
	choose func(e library.Entry, answer func(copy, ok bool))
	// confirm asks a yes/no question whose yes button says action.
	// Default: a dialog.
	confirm func(title, message, action string, answer func(bool))
	// openURL opens a folder in the file manager. Default: u.app.OpenURL.
	openURL func(*url.URL) error
	// copyHook, when set, is called on the import goroutine with each
	// progress report of a copy, before the view shows it (tests).
	copyHook func(done, total int64)

	bg worker // background work in flight (wait)

	mu        sync.Mutex
	queue     []string           // paths waiting to be imported
	importing bool               // a goroutine works through queue
	cancel    context.CancelFunc // of the import in progress
	cancelled bool               // Cancel was pressed during this batch
	lastError string             // the text of the last error shown
	progress  float64            // the fraction the bar showed last

	// importDialog and importEntry are pickFiles' dialog and its paths
	// (UI; tests fill them).
	importDialog *dialog.ConfirmDialog
	importEntry  *widget.Entry
}

func newLibraryView(u *ui) *libraryView {
	v := &libraryView{u: u}
	v.choose = v.askCopy
	v.confirm = v.askConfirm
	v.openURL = func(l *url.URL) error { return u.app.OpenURL(l) }

	title := widget.NewLabelWithStyle("Library", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.SizeName = theme.SizeNameSubHeadingText
	v.importBtn = widget.NewButtonWithIcon("Import...", theme.ContentAddIcon(), v.pickFiles)
	v.importBtn.Importance = widget.HighImportance
	v.folder = widget.NewLabel("")
	v.folder.Truncation = fyne.TextTruncateEllipsis
	v.folder.SizeName = theme.SizeNameCaptionText
	v.folder.Selectable = true
	hint := widget.NewLabel("Drop .gguf files anywhere on the window to add them.")
	hint.SizeName = theme.SizeNameCaptionText
	hint.Importance = widget.LowImportance

	v.chatBtn = widget.NewButtonWithIcon("Chat", chatIcon(), v.chatSelected)
	v.defaultBtn = widget.NewButtonWithIcon("Make default", theme.ConfirmIcon(), v.defaultSelected)
	v.presetBtn = widget.NewButtonWithIcon("Preset...", theme.DocumentCreateIcon(), v.presetSelected)
	v.revealBtn = widget.NewButtonWithIcon("Show in folder", theme.FolderOpenIcon(), v.revealSelected)
	v.quantizeBtn = widget.NewButtonWithIcon("Quantize...", theme.ViewRestoreIcon(), func() {
		if e, ok := v.selected(); ok {
			quantizeDialog(v.u, e)
		}
	})
	v.deleteBtn = widget.NewButtonWithIcon("Delete...", theme.DeleteIcon(), v.deleteSelected)
	v.deleteBtn.Importance = widget.DangerImportance
	actions := container.NewHBox(v.chatBtn, v.defaultBtn, v.presetBtn, v.quantizeBtn, v.revealBtn, layout.NewSpacer(), v.deleteBtn)

	v.list = widget.NewList(func() int { return len(v.entries) }, newModelRow, func(i widget.ListItemID, o fyne.CanvasObject) {
		if i >= 0 && i < len(v.entries) {
			setModelRow(o, v.entries[i])
		}
	})
	v.list.OnSelected = func(i widget.ListItemID) {
		if i >= 0 && i < len(v.entries) {
			v.current = v.entries[i].Name
		}
		v.updateActions()
	}
	v.list.OnUnselected = func(widget.ListItemID) {
		v.current = ""
		v.updateActions()
	}
	empty := widget.NewLabelWithStyle(emptyLibraryText, fyne.TextAlignCenter, fyne.TextStyle{})
	empty.Importance = widget.LowImportance
	v.empty = container.NewCenter(empty)

	v.importTitle = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	v.importTitle.Truncation = fyne.TextTruncateEllipsis
	v.importBar = newProgressBar()
	v.importInfo = widget.NewLabel("")
	v.cancelBtn = widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), v.cancelImport)
	v.importBox = container.NewVBox(widget.NewSeparator(),
		container.NewBorder(nil, nil, nil, v.cancelBtn, v.importTitle), v.importBar, v.importInfo)
	v.importBox.Hide()
	v.status = widget.NewLabel("")
	v.status.Wrapping = fyne.TextWrapWord
	v.status.Hide()

	top := container.NewVBox(
		container.NewBorder(nil, nil, nil, v.importBtn, title),
		v.folder, hint, actions, widget.NewSeparator())
	bottom := container.NewVBox(v.status, v.importBox)
	v.body = container.NewBorder(top, bottom, nil, nil, container.NewStack(v.list, v.empty))
	v.content = container.NewPadded(v.body)
	v.updateActions()
	return v
}

// newModelRow is the list's row template: the name and its marks, the
// details, the path (or why the model cannot be used).
func newModelRow() fyne.CanvasObject {
	name := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	name.Truncation = fyne.TextTruncateEllipsis
	def := widget.NewLabel("Default")
	def.Importance = widget.SuccessImportance
	ref := widget.NewLabel("By reference")
	ref.Importance = widget.MediumImportance
	ref.TextStyle.Italic = true
	details := widget.NewLabel("")
	details.Truncation = fyne.TextTruncateEllipsis
	path := widget.NewLabel("")
	path.Truncation = fyne.TextTruncateEllipsis
	path.SizeName = theme.SizeNameCaptionText
	path.Importance = widget.LowImportance
	return container.NewVBox(
		container.NewBorder(nil, nil, nil, container.NewHBox(ref, def), name),
		details, path)
}

// setModelRow fills a row made by newModelRow with e.
func setModelRow(o fyne.CanvasObject, e library.Entry) {
	box := o.(*fyne.Container)
	head := box.Objects[0].(*fyne.Container)
	name := head.Objects[0].(*widget.Label)
	marks := head.Objects[1].(*fyne.Container)
	ref, def := marks.Objects[0].(*widget.Label), marks.Objects[1].(*widget.Label)
	details, path := box.Objects[1].(*widget.Label), box.Objects[2].(*widget.Label)

	name.SetText(e.Name)
	setVisible(ref, e.ByReference)
	setVisible(def, e.Default)
	if e.Err != nil {
		details.Importance = widget.DangerImportance
		details.SetText("Cannot be used: " + userMessage(e.Err))
	} else {
		details.Importance = widget.MediumImportance
		details.SetText(modelDetails(e))
	}
	path.SetText(e.Path)
}

// setVisible shows or hides o.
func setVisible(o fyne.CanvasObject, show bool) {
	if show {
		o.Show()
	} else {
		o.Hide()
	}
}

// modelDetails is the line that describes a usable model: architecture,
// parameters, quantization, size, context, and that it can see when a
// vision projector is paired with it.
func modelDetails(e library.Entry) string {
	var parts []string
	if e.Arch != "" {
		parts = append(parts, e.Arch)
	}
	if e.Parameters > 0 {
		parts = append(parts, humanCount(e.Parameters)+" parameters")
	}
	if e.FileType != "" {
		parts = append(parts, e.FileType)
	}
	if e.Size > 0 {
		parts = append(parts, units.Bytes(e.Size))
	}
	if e.ContextLength > 0 {
		parts = append(parts, groupDigits(int64(e.ContextLength))+"-token context")
	}
	if e.Shards > 1 {
		parts = append(parts, fmt.Sprintf("%d files", e.Shards))
	}
	if e.Projector != "" {
		parts = append(parts, "sees images ("+filepath.Base(e.Projector)+")")
	}
	return strings.Join(parts, " · ")
}

// humanCount writes a count as people read parameter counts: "1.2 B",
// "135 M", "7.5 K".
func humanCount(n int64) string {
	return humanUnits(float64(n), 1000, []string{"", " K", " M", " B", " T"})
}

// humanUnits scales v down by base until it is below base and writes it
// with the matching unit: one decimal below 10, none from 10.
func humanUnits(v, base float64, units []string) string {
	i := 0
	for v >= base && i < len(units)-1 {
		v /= base
		i++
	}
	if i == 0 {
		return strconv.FormatFloat(v, 'f', 0, 64) + units[0]
	}
	if v < 9.95 {
		return strconv.FormatFloat(v, 'f', 1, 64) + units[i]
	}
	return strconv.FormatFloat(v, 'f', 0, 64) + units[i]
}

// groupDigits writes n with thousands separators: "131,072".
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// refresh lists the library again and shows it. Listing reads the
// headers of files it has not seen (metadata only) and is otherwise a
// stat per model.
func (v *libraryView) refresh() {
	lib := v.u.core.Library()
	entries, err := lib.List()
	if err != nil {
		v.setStatus("Saji could not list the library. " + userMessage(err))
	}
	v.show(lib.Dir(), entries)
}

// show puts entries on screen, keeping the selection by name.
func (v *libraryView) show(dir string, entries []library.Entry) {
	v.folder.SetText("Models are kept in " + dir)
	v.entries = entries
	setVisible(v.empty, len(entries) == 0)
	v.list.Refresh()
	sel := v.current
	v.current = ""
	v.list.UnselectAll()
	for i, e := range entries {
		if e.Name == sel {
			v.list.Select(i)
			break
		}
	}
	v.updateActions()
}

// selectModel selects the model called name in the list, if listed.
func (v *libraryView) selectModel(name string) {
	for i, e := range v.entries {
		if e.Name == name {
			v.list.Select(i)
			v.list.ScrollTo(i)
			return
		}
	}
	v.current = name // a refresh in flight will select it
}

// selected returns the selected model's entry.
func (v *libraryView) selected() (library.Entry, bool) {
	for _, e := range v.entries {
		if e.Name == v.current && v.current != "" {
			return e, true
		}
	}
	return library.Entry{}, false
}

// updateActions enables the actions that apply to the selection.
func (v *libraryView) updateActions() {
	e, ok := v.selected()
	usable := ok && e.Err == nil
	enable(v.chatBtn, usable)
	enable(v.defaultBtn, usable && !e.Default)
	enable(v.presetBtn, usable)
	enable(v.quantizeBtn, usable && canQuantize(e))
	enable(v.revealBtn, ok)
	enable(v.deleteBtn, ok)
}

// enable enables or disables w.
func enable(w fyne.Disableable, on bool) {
	if on {
		w.Enable()
	} else {
		w.Disable()
	}
}

// setStatus shows text under the list ("" hides it).
func (v *libraryView) setStatus(text string) {
	v.status.SetText(text)
	setVisible(v.status, text != "")
	v.relayout()
}

// relayout lays the view out again after its panels showed or hid.
func (v *libraryView) relayout() {
	v.importBox.Refresh()
	v.body.Refresh()
}

// wait blocks until the background work started so far (imports,
// listings, changes) has ended and shown its outcome.
func (v *libraryView) wait() { v.bg.wait() }

// lastErrorText returns the text of the last error the view showed.
func (v *libraryView) lastErrorText() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.lastError
}

// showError shows text in an error dialog and remembers it.
func (v *libraryView) showError(text string) {
	v.mu.Lock()
	v.lastError = text
	v.mu.Unlock()
	dialog.NewError(errors.New(text), v.u.win).Show()
}

// background runs work off the UI goroutine, then done (if not nil) on
// it, or an error dialog titled what.
func (v *libraryView) background(what string, work func() error, done func()) {
	v.bg.run(func() func() {
		err := work()
		return func() {
			if err != nil {
				v.showError(what + ".\n\n" + userMessage(err))
			} else if done != nil {
				done()
			}
			v.u.modelsChanged()
		}
	})
}

// chatSelected opens the selected model in the chat.
func (v *libraryView) chatSelected() {
	e, ok := v.selected()
	if !ok {
		return
	}
	v.u.tabs.SelectIndex(tabChat)
	v.u.chat.openModel(e.Name)
}

// defaultSelected makes the selected model the default one.
func (v *libraryView) defaultSelected() {
	e, ok := v.selected()
	if !ok {
		return
	}
	lib := v.u.core.Library()
	v.background("Saji could not make "+e.Name+" the default model",
		func() error { return lib.SetDefault(e.Name) },
		func() { v.setStatus(e.Name + " is now the default model.") })
}

// revealSelected opens the folder that holds the selected model's file.
func (v *libraryView) revealSelected() {
	e, ok := v.selected()
	if !ok {
		return
	}
	dir := filepath.Dir(e.Path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		v.showError("Saji could not open the folder " + dir + ".\n\nIt is no longer there: it was moved or deleted.")
		return
	}
	if err := v.openURL(folderURL(dir)); err != nil {
		v.showError("Saji could not open the folder " + dir + ".\n\n" + userMessage(err))
	}
}

// folderURL is the file:// URL of the folder dir, spelled as Fyne spells
// file URIs on this system.
func folderURL(dir string) *url.URL {
	if l, err := url.Parse(storage.NewFileURI(dir).String()); err == nil {
		return l
	}
	return &url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}
}

// deleteSelected asks, then deletes the selected model (or forgets a
// reference).
func (v *libraryView) deleteSelected() {
	e, ok := v.selected()
	if !ok {
		return
	}
	title, action, msg := "Delete "+e.Name+"?", "Delete", ""
	if e.ByReference {
		title, action = "Remove "+e.Name+" from the library?", "Remove"
		msg = "Saji forgets this model. Its file stays where it is:\n" + e.Path
	} else {
		size := ""
		if e.Size > 0 {
			size = " (" + units.Bytes(e.Size) + ")"
		}
		msg = "The model's file" + size + " is deleted from the library folder. This cannot be undone."
	}
	v.confirm(title, msg, action, func(yes bool) {
		if !yes {
			return
		}
		lib := v.u.core.Library()
		v.background("Saji could not delete "+e.Name, func() error {
			// A loaded model keeps its file mapped: close it first.
			v.u.core.Runner().Unload(e.Name)
			return lib.Delete(e.Name)
		}, func() {
			if v.current == e.Name {
				v.current = ""
			}
			if e.ByReference {
				v.setStatus(e.Name + " was removed from the library. Its file is still at " + e.Path + ".")
			} else {
				v.setStatus(e.Name + " was deleted.")
			}
		})
	})
}

// askConfirm is the default confirm: a dialog.
func (v *libraryView) askConfirm(title, message, action string, answer func(bool)) {
	d := dialog.NewConfirm(title, message, answer, v.u.win)
	d.SetConfirmText(action)
	d.SetDismissText("Cancel")
	d.SetConfirmImportance(widget.DangerImportance)
	d.Show()
}

// presetSelected opens the preset dialog of the selected model.
func (v *libraryView) presetSelected() {
	e, ok := v.selected()
	if !ok {
		return
	}
	f := newPresetForm(e)
	d := dialog.NewForm("Preset for "+e.Name, "Save", "Cancel", f.items(), func(save bool) {
		if save {
			v.savePreset(e.Name, f)
		}
	}, v.u.win)
	d.Resize(fyne.NewSize(560, 460))
	d.Show()
}

// savePreset stores the preset the form holds for the model name.
func (v *libraryView) savePreset(name string, f *presetForm) {
	p, err := f.preset()
	if err != nil {
		v.showError("Saji could not save the preset of " + name + ".\n\n" + userMessage(err))
		return
	}
	lib := v.u.core.Library()
	v.background("Saji could not save the preset of "+name,
		func() error { return lib.SetPreset(name, p) },
		func() { v.setStatus("The preset of " + name + " was saved.") })
}

// presetForm edits a library.Preset: blank fields leave the defaults.
type presetForm struct {
	maxContext int // the model's trained context (0: unknown)

	system, temperature, topP, maxTokens, context *widget.Entry
}

// newPresetForm returns a form holding e's preset.
func newPresetForm(e library.Entry) *presetForm {
	f := &presetForm{maxContext: e.ContextLength}
	f.system = widget.NewMultiLineEntry()
	f.system.Wrapping = fyne.TextWrapWord
	f.system.SetMinRowsVisible(4)
	f.system.SetPlaceHolder(blankNone)
	f.system.SetText(e.Preset.System)
	number := func(text, placeholder string, check func(string) error) *widget.Entry {
		w := widget.NewEntry()
		w.SetPlaceHolder(placeholder)
		w.SetText(text)
		w.Validator = check
		return w
	}
	f.temperature = number(formatFloat(e.Preset.Temperature), blankDefault, checkFloat(0, 2))
	f.topP = number(formatFloat(e.Preset.TopP), blankDefault, checkFloat(0, 1))
	f.maxTokens = number(formatInt(e.Preset.MaxTokens), blankNoLimit, checkInt(0, 1<<30))
	ctxMax := 1 << 30
	if f.maxContext > 0 {
		ctxMax = f.maxContext
	}
	f.context = number(formatInt(e.Preset.Context), blankDefault+": the app's setting", checkInt(0, ctxMax))
	return f
}

// items returns the form's rows.
func (f *presetForm) items() []*widget.FormItem {
	// A form's hint is one line that does not wrap: what a blank field
	// means is its placeholder's to say.
	ctxHint := ""
	if f.maxContext > 0 {
		ctxHint = fmt.Sprintf("%s At most %s.", fieldContext.Hint, groupDigits(int64(f.maxContext)))
	}
	return []*widget.FormItem{
		fieldSystem.item(f.system, "Instructions the model reads before every conversation with it."),
		fieldTemperature.item(f.temperature, ""),
		fieldTopP.item(f.topP, ""),
		fieldMaxTokens.item(f.maxTokens, ""),
		fieldContext.item(f.context, ctxHint),
	}
}

// preset returns the preset the form holds.
func (f *presetForm) preset() (library.Preset, error) {
	p := library.Preset{System: strings.TrimSpace(f.system.Text)}
	for _, w := range []*widget.Entry{f.temperature, f.topP, f.maxTokens, f.context} {
		if err := w.Validator(w.Text); err != nil {
			return library.Preset{}, err
		}
	}
	p.Temperature = parseFloat(f.temperature.Text)
	p.TopP = parseFloat(f.topP.Text)
	p.MaxTokens = parseInt(f.maxTokens.Text)
	p.Context = parseInt(f.context.Text)
	return p, nil
}

// pickFiles asks which models to import: paths typed or pasted (one a
// line; a folder stands for its GGUF files), or picked one at a time with
// the file and folder dialogs; Import imports them all (importPaths).
func (v *libraryView) pickFiles() {
	paths := widget.NewMultiLineEntry()
	paths.SetPlaceHolder("/path/to/model.gguf\n~/Downloads (every GGUF file in it)")
	paths.SetMinRowsVisible(5)
	paths.Wrapping = fyne.TextWrapOff
	add := func(p string) {
		text := strings.TrimRight(paths.Text, "\n")
		if text != "" {
			text += "\n"
		}
		paths.SetText(text + p)
	}
	fileBtn := widget.NewButtonWithIcon("Add a file...", theme.FileIcon(), func() {
		d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
			if err != nil {
				v.showError("Saji could not open the file.\n\n" + userMessage(err))
				return
			}
			if r != nil {
				add(r.URI().Path())
				r.Close()
			}
		}, v.u.win)
		d.SetFilter(storage.NewExtensionFileFilter([]string{".gguf", ".GGUF"}))
		if home, err := os.UserHomeDir(); err == nil {
			if loc, err := storage.ListerForURI(storage.NewFileURI(filepath.Join(home, "Downloads"))); err == nil {
				d.SetLocation(loc)
			}
		}
		d.Resize(fyne.NewSize(860, 580))
		d.Show()
	})
	folderBtn := widget.NewButtonWithIcon("Add a folder...", theme.FolderOpenIcon(), func() {
		d := dialog.NewFolderOpen(func(l fyne.ListableURI, err error) {
			if err == nil && l != nil {
				add(l.Path())
			}
		}, v.u.win)
		d.Resize(fyne.NewSize(860, 580))
		d.Show()
	})
	help := widget.NewLabel("Type or paste the paths of GGUF files, one a line, or add them below. A folder adds every model in it.")
	help.Wrapping = fyne.TextWrapWord
	body := container.NewBorder(help, container.NewHBox(fileBtn, folderBtn), nil, nil, paths)
	d := dialog.NewCustomConfirm("Import models", "Import", "Cancel", body, func(ok bool) {
		if !ok {
			return
		}
		files, missing := importTargets(paths.Text)
		if len(missing) > 0 {
			v.showError("Saji found no model at:\n\n" + strings.Join(missing, "\n"))
		}
		v.importPaths(files)
	}, v.u.win)
	d.Resize(fyne.NewSize(640, 360))
	v.importDialog, v.importEntry = d, paths
	d.Show()
	v.u.win.Canvas().Focus(paths)
}

// importTargets reads the import dialog's text: one path a line, "~"
// for the home folder, a folder for its GGUF files (a split model by its
// first shard). It returns the files to import and the lines that name
// nothing usable.
func importTargets(text string) (files, missing []string) {
	home, _ := os.UserHomeDir()
	for _, line := range strings.Split(text, "\n") {
		p := strings.Trim(strings.TrimSpace(line), `"'`)
		if p == "" {
			continue
		}
		if home != "" && (p == "~" || strings.HasPrefix(p, "~/")) {
			p = filepath.Join(home, p[1:])
		}
		st, err := os.Stat(p)
		switch {
		case err != nil:
			missing = append(missing, p)
		case st.IsDir():
			des, err := os.ReadDir(p)
			n := len(files)
			for _, de := range des {
				name := de.Name()
				if err != nil || de.IsDir() || !strings.EqualFold(filepath.Ext(name), ".gguf") || strings.HasPrefix(name, ".") {
					continue
				}
				if m := shardRE.FindStringSubmatch(name); m != nil && m[1] != "00001" {
					continue
				}
				files = append(files, filepath.Join(p, name))
			}
			if len(files) == n {
				missing = append(missing, p)
			}
		default:
			files = append(files, p)
		}
	}
	return files, missing
}

// importPaths adds the model files at paths to the library, one after
// another (after those already waiting), off the UI goroutine: each is
// validated, the person chooses to copy it or add it by reference, and a
// copy shows its progress and can be cancelled. Files that cannot be
// added are named in one dialog at the end.
func (v *libraryView) importPaths(paths []string) {
	if len(paths) == 0 {
		return
	}
	v.mu.Lock()
	v.queue = append(v.queue, paths...)
	v.cancelled = false
	start := !v.importing
	if start {
		v.importing = true
	}
	v.mu.Unlock()
	if start {
		v.bg.run(v.importLoop)
	}
}

// importFailure is a file that could not be added.
type importFailure struct {
	path string
	err  error
}

// importLoop imports the queued paths until the queue is empty, and
// returns the update that hides the import's progress.
func (v *libraryView) importLoop() func() {
	var failed []importFailure
	for {
		v.mu.Lock()
		if len(v.queue) == 0 || v.cancelled {
			if len(failed) == 0 {
				v.queue, v.importing = nil, false
				v.mu.Unlock()
				break
			}
			v.mu.Unlock()
			v.reportFailures(failed)
			failed = nil
			continue // files may have been dropped meanwhile
		}
		path := v.queue[0]
		v.queue = v.queue[1:]
		left := len(v.queue)
		v.mu.Unlock()
		if err := v.importOne(path, left); err != nil && !errors.Is(err, context.Canceled) {
			failed = append(failed, importFailure{path, err})
		}
	}
	return func() {
		v.importBox.Hide()
		v.relayout()
	}
}

// reportFailures shows the files that could not be added, and why.
func (v *libraryView) reportFailures(failed []importFailure) {
	var text string
	if len(failed) == 1 {
		text = "Saji could not add " + filepath.Base(failed[0].path) + ".\n\n" + userMessage(failed[0].err)
	} else {
		lines := []string{fmt.Sprintf("Saji could not add %d files.", len(failed))}
		for _, f := range failed {
			lines = append(lines, filepath.Base(f.path)+": "+userMessage(f.err))
		}
		text = strings.Join(lines, "\n\n")
	}
	v.bg.do(func() { v.showError(text) })
}

// importOne validates, asks about, and imports the file at path; left
// files wait after it. A file the person skipped is no error; one they
// cancelled is an error wrapping context.Canceled.
func (v *libraryView) importOne(path string, left int) error {
	base := filepath.Base(path)
	if st, err := os.Stat(path); err != nil {
		return fmt.Errorf("app: %w", err)
	} else if st.IsDir() {
		return fmt.Errorf("%w: %s", errFolder, path)
	}
	if !strings.EqualFold(filepath.Ext(path), ".gguf") {
		return fmt.Errorf("app: %s does not end in .gguf: %w", path, library.ErrNotGGUF)
	}
	waiting := ""
	if left > 0 {
		waiting = fmt.Sprintf(" (%d more waiting)", left)
	}
	v.bg.do(func() {
		v.importTitle.SetText("Checking " + base + "..." + waiting)
		v.importBar.Hide()
		v.importInfo.Hide()
		v.cancelBtn.Hide()
		v.importBox.Show()
		v.relayout()
	})
	e, err := library.Validate(path)
	if err != nil {
		return err
	}
	lib := v.u.core.Library()
	doCopy := false
	if filepath.Dir(e.Path) != lib.Dir() {
		type reply struct{ copy, ok bool }
		answers := make(chan reply, 1)
		v.bg.do(func() {
			v.choose(e, func(c, ok bool) {
				select {
				case answers <- reply{c, ok}:
				default:
				}
			})
		})
		a := <-answers
		if !a.ok {
			return nil
		}
		doCopy = a.copy
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	v.mu.Lock()
	if v.cancelled {
		v.mu.Unlock()
		return context.Canceled
	}
	v.cancel = cancel
	v.mu.Unlock()
	defer func() {
		v.mu.Lock()
		v.cancel = nil
		v.mu.Unlock()
	}()

	var progress func(done, total int64)
	if doCopy {
		v.bg.do(func() {
			v.importTitle.SetText("Copying " + base + " into the library" + waiting)
			v.importBar.SetValue(0)
			v.importBar.Show()
			v.importInfo.SetText("Starting...")
			v.importInfo.Show()
			v.cancelBtn.Enable()
			v.cancelBtn.Show()
			v.relayout()
		})
		progress = v.copyProgress()
	} else {
		v.bg.do(func() { v.importTitle.SetText("Adding " + base + waiting + "...") })
	}
	entry, err := lib.Import(ctx, path, doCopy, progress)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			v.bg.do(func() {
				v.setStatus("The copy of " + base + " was cancelled. Nothing was left behind.")
			})
		}
		return err
	}
	v.bg.do(func() {
		how := "by reference: Saji reads it from " + e.Path + "."
		if doCopy {
			how = "as a copy in the library folder."
		}
		v.setStatus(entry.Name + " was added " + how)
		v.u.modelsChanged()
		v.selectModel(entry.Name)
	})
	return nil
}

// copyProgress returns the progress callback of one copy: it redraws the
// bar, the bytes done and the speed at most every progressEvery.
func (v *libraryView) copyProgress() func(done, total int64) {
	var start, last time.Time
	return func(done, total int64) {
		if v.copyHook != nil {
			v.copyHook(done, total)
		}
		now := time.Now()
		if start.IsZero() {
			start = now
		}
		if done < total && done > 0 && now.Sub(last) < progressEvery {
			return
		}
		last = now
		frac := 1.0
		if total > 0 {
			frac = float64(done) / float64(total)
		}
		info := units.Bytes(done) + " of " + units.Bytes(total)
		if secs := now.Sub(start).Seconds(); secs > 0.2 && done > 0 {
			rate := float64(done) / secs
			info += " · " + units.Rate(rate)
			if left := float64(total-done) / rate; left >= 1 && done < total {
				info += " · about " + humanDuration(left) + " left"
			}
		}
		v.bg.do(func() {
			v.importBar.SetValue(frac)
			v.importInfo.SetText(info)
			v.mu.Lock()
			v.progress = frac
			v.mu.Unlock()
		})
	}
}

// humanDuration writes a number of seconds as "12 s" or "3 min".
func humanDuration(secs float64) string {
	if secs < 90 {
		return strconv.Itoa(int(secs+0.5)) + " s"
	}
	return strconv.Itoa(int(secs/60+0.5)) + " min"
}

// lastProgress returns the fraction the copy's bar showed last.
func (v *libraryView) lastProgress() float64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.progress
}

// cancelImport stops the copy in progress and drops the files waiting.
func (v *libraryView) cancelImport() {
	v.mu.Lock()
	v.cancelled = true
	v.queue = nil
	cancel := v.cancel
	v.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	v.cancelBtn.Disable()
	v.importTitle.SetText("Cancelling...")
}

// askCopy is the default choose: a dialog offering a reference or a copy.
func (v *libraryView) askCopy(e library.Entry, answer func(copy, ok bool)) {
	size := ""
	if e.Size > 0 {
		size = " (" + units.Bytes(e.Size) + ")"
	}
	text := "How should Saji keep " + filepath.Base(e.Path) + size + "?\n\n" +
		"Add by reference: the file stays where it is, and Saji reads it from there. If you move or delete it, the model stops working.\n\n" +
		"Copy into the library: Saji keeps its own copy in " + v.u.core.Library().Dir() + ", and the original can be moved or deleted."
	if e.Shards > 1 {
		text += fmt.Sprintf("\n\nThis model is split into %d files, so it can only be added by reference.", e.Shards)
	}
	msg := widget.NewLabel(text)
	msg.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomWithoutButtons("Add "+e.Name+" to the library", msg, v.u.win)
	// The answer goes once the dialog is gone, whichever way it closes.
	var doCopy, ok bool
	pick := func(c bool) func() { return func() { doCopy, ok = c, true; d.Hide() } }
	cancel := widget.NewButton("Cancel", d.Hide)
	ref := widget.NewButtonWithIcon("Add by reference", theme.FileIcon(), pick(false))
	cp := widget.NewButtonWithIcon("Copy into the library", theme.ContentCopyIcon(), pick(true))
	cp.Importance = widget.HighImportance
	if e.Shards > 1 {
		cp.Disable()
		ref.Importance = widget.HighImportance
	}
	d.SetButtons([]fyne.CanvasObject{cancel, ref, cp})
	d.SetOnClosed(func() { answer(doCopy, ok) })
	d.Resize(fyne.NewSize(620, 300))
	d.Show()
}

// userMessage turns an error into plain sentences for people.
func userMessage(err error) string {
	var arch *library.ArchError
	var run *model.RunError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &run) && !errors.Is(err, model.ErrUnknownArch):
		return "Saji cannot run this model yet: " + run.Reason + "."
	case errors.As(err, &arch) && arch.Arch != "":
		return "Saji cannot run this model's architecture (" + arch.Arch + ") yet."
	case errors.Is(err, library.ErrUnsupportedArch):
		return "Saji cannot run this model: the file does not say which architecture it uses, or it is one Saji does not know yet."
	case errors.Is(err, errFolder):
		return "This is a folder. Drop the .gguf model file itself."
	case errors.Is(err, library.ErrProjector):
		return "This is a vision projector (mmproj), not a model: put it in the folder of its model, and the library pairs them."
	case errors.Is(err, library.ErrNotGGUF):
		return "This is not a GGUF model file."
	case errors.Is(err, library.ErrTruncated), errors.Is(err, gguf.ErrTruncated):
		return "The file ends too soon, as an interrupted download or copy does. Download it again."
	case errors.Is(err, library.ErrMalformed), errors.Is(err, gguf.ErrFormat):
		return "The file is damaged: it is a GGUF file, but its contents do not make sense. Download it again."
	case errors.Is(err, gguf.ErrUnsupported):
		return "This GGUF file uses a format Saji cannot read yet."
	case errors.Is(err, library.ErrDiskFull):
		return "There is not enough free disk space to copy this model. Free some space, or add the model by reference instead."
	case errors.Is(err, os.ErrNotExist):
		return "The file is no longer there: it was moved or deleted."
	case errors.Is(err, os.ErrPermission):
		return "Saji is not allowed to read this file. Check its permissions."
	case errors.Is(err, runner.ErrModelNotFound), errors.Is(err, library.ErrNotFound):
		return "This model is no longer in the library."
	case errors.Is(err, runner.ErrContextLength), errors.Is(err, scheduler.ErrContextOverflow):
		return "The conversation is too long for this model's context. Start a new chat, or raise the context length in the model's preset or in Settings."
	case errors.Is(err, scheduler.ErrTooLarge):
		return "This conversation needs more memory than is set aside for the model. Start a new chat, or lower the context length."
	case errors.Is(err, runner.ErrBusy):
		return "Every model slot is busy. Wait for a reply to finish, then try again."
	case errors.Is(err, context.Canceled):
		return "It was cancelled."
	}
	return err.Error()
}
