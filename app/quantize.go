package app

// The library's Quantize... dialog: a person with an F32, F16 or BF16
// model picks a smaller type, and Saji writes the converted model into the
// library folder (engine/quantize), with progress and Cancel.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"saji/engine/hub"
	"saji/engine/library"
	"saji/engine/quantize"
	"saji/engine/units"
)

// quantizeTypes are the types the dialog offers, from the largest files
// to the smallest.
var quantizeTypes = []string{"Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "Q4_0", "IQ4_NL", "Q3_K_M", "Q2_K"}

// defaultQuantizeType is the type the dialog starts with: the usual best
// trade of size and quality.
const defaultQuantizeType = "Q4_K_M"

// quantizeTypeHints say what each type is for, under the type picker.
var quantizeTypeHints = map[string]string{
	"Q8_0":   "Nearly the original's quality, about half the size of F16.",
	"Q6_K":   "Very close to the original's quality.",
	"Q5_K_M": "High quality, a little smaller than Q6_K.",
	"Q4_K_M": "The usual choice: good quality at about a third of F16's size.",
	"Q4_0":   "A simple 4-bit type, fast on most hardware.",
	"IQ4_NL": "A 4-bit type that keeps a little more quality than Q4_0.",
	"Q3_K_M": "Small, with a noticeable loss of quality.",
	"Q2_K":   "The smallest; quality drops a lot. For when nothing else fits.",
}

// canQuantize says whether e is a model the dialog can convert: one whose
// weights are still F32, F16 or BF16.
func canQuantize(e library.Entry) bool {
	return sourceBits(e.FileType) > 0
}

// sourceBits is the bits per weight of an unquantized file type, 0 for
// any other.
func sourceBits(fileType string) float64 {
	switch strings.ToUpper(fileType) {
	case "F32":
		return 32
	case "F16", "BF16":
		return 16
	}
	return 0
}

// estimateSize is about the size of e converted to target: its size scaled
// by the bits per weight of the two types.
func estimateSize(e library.Entry, target string) int64 {
	src, dst := sourceBits(e.FileType), (hub.Quant{Name: target}).Bits()
	if src == 0 || dst == 0 || e.Size <= 0 {
		return 0
	}
	return int64(float64(e.Size) * dst / src)
}

// defaultQuantizeName is the output's name the dialog proposes: the
// model's name with the type, "<name>-<TYPE>" (a trailing -F16 or similar
// of the source's name is dropped).
func defaultQuantizeName(name, target string) string {
	base := name
	for _, suffix := range []string{"-F32", "-F16", "-BF16", ".F32", ".F16", ".BF16", "_F32", "_F16", "_BF16"} {
		if len(base) > len(suffix) && strings.EqualFold(base[len(base)-len(suffix):], suffix) {
			base = base[:len(base)-len(suffix)]
			break
		}
	}
	return base + "-" + target
}

// checkModelName says in a sentence why name cannot name a new model
// file in the library, or returns "".
func checkModelName(name string) string {
	switch {
	case name == "":
		return "Give the new model a name."
	case strings.HasPrefix(name, "."):
		return "A name cannot start with a dot."
	case strings.ContainsAny(name, `/\:*?"<>|`) || strings.ContainsRune(name, 0):
		return `A name cannot contain / \ : * ? " < > or |.`
	case len(name) > 200:
		return "The name is too long."
	}
	return ""
}

// quantizer is one Quantize dialog. Its widgets belong to the UI
// goroutine; the run's state that tests read is under mu.
type quantizer struct {
	u     *ui
	entry library.Entry
	dlg   *dialog.CustomDialog

	typeSel  *widget.Select
	typeHint *widget.Label
	name     *widget.Entry
	estimate *widget.Label
	bar      *widget.ProgressBar
	status   *widget.Label
	startBtn *widget.Button
	closeBtn *widget.Button // "Close" while idle, "Cancel" while running

	named bool // UI: the person edited the name, so a type change keeps it

	// progressHook, when set, is called on the conversion's goroutine with
	// each progress report before the dialog shows it (tests).
	progressHook func(done, total int64)

	bg     worker             // the conversion, until its outcome shows
	redraw *uiLatest[float64] // the bar, one redraw at a time

	mu       sync.Mutex
	running  bool
	cancel   context.CancelFunc
	progress float64 // the fraction done
	outcome  string  // "done", "cancelled" or "failed" once a run ended
	message  string  // what the status line says after the run
}

// quantizeDialog opens the Quantize dialog for the library model e and
// returns it.
func quantizeDialog(u *ui, e library.Entry) *quantizer {
	q := &quantizer{u: u, entry: e}
	q.redraw = newUILatest(&q.bg, q.showProgress)
	q.typeHint = widget.NewLabel("")
	q.typeHint.Wrapping = fyne.TextWrapWord
	q.typeHint.Importance = widget.LowImportance
	q.estimate = widget.NewLabel("")
	q.name = widget.NewEntry()
	q.name.OnChanged = func(string) { q.named = true }
	q.typeSel = widget.NewSelect(quantizeTypes, q.typeChanged)
	q.bar = newProgressBar()
	q.bar.Hide()
	q.status = widget.NewLabel("")
	q.status.Wrapping = fyne.TextWrapWord
	q.status.Hide()

	intro := widget.NewLabel(fmt.Sprintf("%s keeps its weights as %s (%s). A smaller type makes a new model that "+
		"needs less memory and runs faster, at some cost in quality. The original stays in the library.",
		e.Name, strings.ToUpper(e.FileType), units.Bytes(e.Size)))
	intro.Wrapping = fyne.TextWrapWord
	form := widget.NewForm(
		widget.NewFormItem("Type", container.NewVBox(q.typeSel, q.typeHint)),
		widget.NewFormItem("Name", q.name),
		widget.NewFormItem("Size", q.estimate),
	)
	content := container.NewVBox(intro, form, q.bar, q.status)

	q.startBtn = widget.NewButtonWithIcon("Quantize", theme.ConfirmIcon(), q.start)
	q.startBtn.Importance = widget.HighImportance
	q.closeBtn = widget.NewButton("Close", q.closeOrCancel)
	q.dlg = dialog.NewCustomWithoutButtons("Quantize "+e.Name, content, u.win)
	q.dlg.SetButtons([]fyne.CanvasObject{q.closeBtn, q.startBtn})
	q.typeSel.SetSelected(defaultQuantizeType)
	q.named = false
	q.dlg.Resize(fyne.NewSize(600, 420))
	q.dlg.Show()
	return q
}

// typeChanged updates the hint, the estimate and (unless the person
// chose one) the name for the type t.
func (q *quantizer) typeChanged(t string) {
	q.typeHint.SetText(quantizeTypeHints[t])
	if n := estimateSize(q.entry, t); n > 0 {
		q.estimate.SetText("about " + units.Bytes(n) + " (now " + units.Bytes(q.entry.Size) + ")")
	} else {
		q.estimate.SetText("")
	}
	if !q.named {
		q.name.SetText(defaultQuantizeName(q.entry.Name, t))
		q.named = false
	}
}

// setStatus shows text under the form; danger colours it as an error.
func (q *quantizer) setStatus(text string, danger bool) {
	q.status.Importance = widget.MediumImportance
	if danger {
		q.status.Importance = widget.DangerImportance
	}
	q.status.SetText(text)
	setVisible(q.status, text != "")
}

// setRunning switches the dialog between its form and its progress.
func (q *quantizer) setRunning(on bool) {
	enable(q.typeSel, !on)
	enable(q.name, !on)
	enable(q.startBtn, !on)
	enable(q.closeBtn, true)
	if on {
		q.closeBtn.SetText("Cancel")
		q.bar.SetValue(0)
		q.bar.Show()
	} else {
		q.closeBtn.SetText("Close")
		q.bar.Hide()
	}
}

// start checks the name and converts the model off the UI goroutine.
func (q *quantizer) start() {
	target := q.typeSel.Selected
	name := strings.TrimSpace(q.name.Text)
	if why := checkModelName(name); why != "" {
		q.setStatus(why, true)
		return
	}
	ft, err := quantize.ParseFileType(target)
	if err != nil {
		q.setStatus("Saji cannot write "+target+" models.", true)
		return
	}
	lib := q.u.core.Library()
	out := filepath.Join(lib.Dir(), name+".gguf")
	if _, err := lib.Get(name); err == nil {
		q.setStatus("A model called "+name+" is already in the library. Choose another name.", true)
		return
	}
	if _, err := os.Stat(out); err == nil {
		q.setStatus("A file called "+name+".gguf is already in the library folder. Choose another name.", true)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	q.mu.Lock()
	if q.running {
		q.mu.Unlock()
		cancel()
		return
	}
	q.running, q.cancel, q.outcome, q.progress = true, cancel, "", 0
	q.mu.Unlock()
	q.setRunning(true)
	q.setStatus("Converting "+q.entry.Name+" to "+target+"...", false)

	threads := q.u.core.Settings().Threads
	in := q.entry.Path
	q.bg.run(func() func() {
		defer cancel()
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return q.finish(name, target, quantize.Result{}, fmt.Errorf("app: the models folder: %w", err))
		}
		res, err := quantize.Quantize(ctx, in, out, quantize.Options{FileType: ft, Threads: threads, Progress: q.report})
		return q.finish(name, target, res, err)
	})
}

// report is the conversion's progress callback: it keeps the fraction and
// posts it to the bar.
func (q *quantizer) report(done, total int64) {
	if q.progressHook != nil {
		q.progressHook(done, total)
	}
	frac := 1.0
	if total > 0 {
		frac = float64(done) / float64(total)
	}
	q.mu.Lock()
	q.progress = frac
	q.mu.Unlock()
	q.redraw.post(frac)
}

// showProgress shows the fraction f done on the bar while a run lasts.
func (q *quantizer) showProgress(f float64) {
	q.mu.Lock()
	running := q.running
	q.mu.Unlock()
	if running {
		q.bar.SetValue(f)
	}
}

// finish returns the update that shows how the run of the model name
// ended.
func (q *quantizer) finish(name, target string, res quantize.Result, err error) func() {
	var outcome, msg string
	switch {
	case err == nil:
		outcome = "done"
		msg = fmt.Sprintf("%s was created as %s: %s, from %s.", name, target, units.Bytes(res.OutBytes), units.Bytes(res.InBytes))
	case errors.Is(err, context.Canceled):
		outcome = "cancelled"
		msg = "The conversion was cancelled. Nothing was left behind."
	default:
		outcome = "failed"
		msg = "Saji could not convert " + q.entry.Name + ". " + quantizeMessage(err)
	}
	return func() {
		q.mu.Lock()
		q.running, q.cancel = false, nil
		q.mu.Unlock()
		q.setRunning(false)
		if outcome == "done" {
			q.dlg.Hide()
			q.u.modelsChanged()
			q.u.library.setStatus(msg)
			q.u.library.selectModel(name)
		} else {
			q.setStatus(msg, outcome == "failed")
		}
		// The outcome is set last: a test that sees it may read the widgets.
		q.mu.Lock()
		q.outcome, q.message = outcome, msg
		q.mu.Unlock()
	}
}

// quantizeMessage says in plain words why a conversion failed.
func quantizeMessage(err error) string {
	switch {
	case errors.Is(err, quantize.ErrQuantized):
		return "Its weights are already quantized; converting them again would lose quality. Start from an F16, BF16 or F32 file."
	case errors.Is(err, syscall.ENOSPC):
		return "There is not enough free disk space for the new model. Free some space and try again."
	}
	return userMessage(err)
}

// closeOrCancel cancels a running conversion, or closes the dialog.
func (q *quantizer) closeOrCancel() {
	q.mu.Lock()
	cancel := q.cancel
	q.mu.Unlock()
	if cancel == nil {
		q.dlg.Hide()
		return
	}
	q.closeBtn.Disable()
	q.setStatus("Cancelling...", false)
	cancel() // last: the conversion's goroutine may touch the widgets from here on
}

// state returns the last run's outcome ("" while none ended), its
// message and the progress, for tests.
func (q *quantizer) state() (outcome, message string, progress float64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.outcome, q.message, q.progress
}

// wait blocks until the current run (if any) has ended and shown its
// outcome.
func (q *quantizer) wait() { q.bg.wait() }
