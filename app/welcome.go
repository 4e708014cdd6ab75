package app

// The first-run view: shown over the chat while the library is empty and
// the person has not dismissed it. It says what this computer can run,
// offers a one-click download of a small recommended model, reminds that
// a GGUF file can be dropped onto the window, and can be skipped.

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/shirou/gopsutil/v3/mem"

	"saji/engine/download"
	"saji/engine/fit"
	"saji/engine/hardware"
	"saji/engine/hub"
	"saji/engine/model"
	"saji/engine/scheduler"
	"saji/engine/units"
)

// machineInfo is what the welcome view says about this computer.
type machineInfo struct {
	// Total and Available are the memory in bytes (Available: what
	// programs can use now without swapping). Zero when unknown.
	Total, Available uint64
	// Cores is the number of physical CPU cores.
	Cores int
}

// probeMachine reads the memory (gopsutil) and the physical cores.
func probeMachine() machineInfo {
	m := machineInfo{Cores: hardware.PhysicalCores()}
	if vm, err := mem.VirtualMemory(); err == nil {
		m.Total, m.Available = vm.Total, vm.Available
	} else {
		slog.Warn("app: reading the memory size", "err", err)
	}
	return m
}

// modelFit is one row of the memory table: a model size class and the
// memory it needs at Q4_K_M.
type modelFit struct {
	Size string // "8B"
	Need uint64 // bytes
}

// gibibyte is 2^30 bytes, the unit modelFits' estimates and
// recommendModel's threshold are counted in (they show in decimal units,
// as every size).
const gibibyte = 1 << 30

// modelFits plans engine/fit's size classes as the app loads models (its
// scheduler settings at the default context, on the CPU): the memory each
// needs. The answer never changes, so it is planned once.
var modelFits = sync.OnceValue(func() []modelFit {
	var fits []modelFit
	req := fit.SchedulerRequest(Settings{}.scheduler(), 0)
	for _, c := range fit.Classes {
		p, err := fit.PlanFor(c.Shape(), hardware.Machine{}, req)
		if err != nil {
			continue
		}
		fits = append(fits, modelFit{Size: c.Name, Need: uint64(p.Breakdown.Total)})
	}
	return fits
})

// largestFit returns the index in fits of the largest size that fits in
// avail bytes, or -1 when none does.
func largestFit(fits []modelFit, avail uint64) int {
	best := -1
	for i, f := range fits {
		if f.Need <= avail {
			best = i
		}
	}
	return best
}

// machineSentence says what m can run, in one or two sentences.
func machineSentence(m machineInfo) string {
	if m.Total == 0 {
		return "Saji could not read this computer's memory size. Small models (1.5B to 3B parameters) run on most computers."
	}
	have := fmt.Sprintf("This computer has %s of memory, %s free", units.Bytes(int64(m.Total)), units.Bytes(int64(m.Available)))
	if m.Cores > 0 {
		have += fmt.Sprintf(", and %d processor cores", m.Cores)
	}
	fits := modelFits()
	i := largestFit(fits, m.Available)
	if i < 0 {
		return have + ": that is little free memory for a language model. Close some programs, or start with the smallest model (0.5B parameters)."
	}
	return fmt.Sprintf("%s: it runs models up to about %s parameters at Q4_K_M comfortably.", have, fits[i].Size)
}

// recommendedModel is a small instruct model offered on first run.
type recommendedModel struct {
	// Title is the model's name for people.
	Title string
	// Repo and File locate it on Hugging Face.
	Repo, File string
	// Arch is its GGUF architecture (one engine/model registers).
	Arch string
	// Size is its approximate size in bytes (the server gives the exact
	// one).
	Size    int64
	License string
}

// Name is the model's name in the library: the file name without .gguf.
func (m recommendedModel) Name() string { return strings.TrimSuffix(m.File, ".gguf") }

// URL is its download address at revision ("" for main), under
// client's endpoint.
func (m recommendedModel) URL(client *hub.Client, revision string) string {
	return client.FileURL(m.Repo, revision, m.File)
}

// The recommended models: Qwen2.5 Instruct at Q4_K_M, 1.5B, or 0.5B for
// computers with less than 4 GB of memory.
var (
	qwen15B = recommendedModel{Title: "Qwen2.5 1.5B Instruct", Repo: "Qwen/Qwen2.5-1.5B-Instruct-GGUF",
		File: "qwen2.5-1.5b-instruct-q4_k_m.gguf", Arch: "qwen2", Size: 1_120_000_000, License: "Apache-2.0"}
	qwen05B = recommendedModel{Title: "Qwen2.5 0.5B Instruct", Repo: "Qwen/Qwen2.5-0.5B-Instruct-GGUF",
		File: "qwen2.5-0.5b-instruct-q4_k_m.gguf", Arch: "qwen2", Size: 491_000_000, License: "Apache-2.0"}
)

// recommendModel picks the first-run model for a computer with total
// bytes of memory (0: unknown).
func recommendModel(total uint64) recommendedModel {
	if total > 0 && total < 4*gibibyte {
		return qwen05B
	}
	return qwen15B
}

// welcomeView is the first-run view. Its widgets are touched on the UI
// goroutine only. The download is a job of the download manager, as
// Discover's are (it shows in Discover's list too); the view follows its
// progress off the UI goroutine (work) and redraws through uiLatest.
type welcomeView struct {
	widget.BaseWidget
	u       *ui
	machine machineInfo
	model   recommendedModel

	bg       *themedRect
	content  fyne.CanvasObject
	scroll   *container.Scroll
	memory   *widget.Label
	download *widget.Button
	skip     *widget.Button
	pause    *widget.Button
	cancel   *widget.Button
	progress *widget.ProgressBar
	status   *widget.Label // bytes done of total, speed, time left
	message  *widget.Label // why the download stopped
	running  *fyne.Container

	job      *download.Job // UI: the download, once started
	starting bool          // UI: the job is being started
	work     worker        // starting, following and importing the download
	// uiMu is held by every update from work: the test driver runs them
	// on the goroutine that makes them, and tests take it (locked) to
	// read the widgets and tap buttons meanwhile.
	uiMu sync.Mutex

	mu    sync.Mutex // guards phase, which tests read from their goroutine
	phase downloadPhase
}

// newWelcomeView builds the first-run view of u.
func newWelcomeView(u *ui) fyne.CanvasObject {
	v := &welcomeView{u: u, machine: probeMachine()}
	v.work.lock = &v.uiMu
	v.model = recommendModel(v.machine.Total)
	v.ExtendBaseWidget(v)
	v.build()
	return v
}

// build lays the view out.
func (v *welcomeView) build() {
	logo := canvas.NewImageFromResource(Icon())
	logo.FillMode = canvas.ImageFillContain
	logo.SetMinSize(fyne.NewSquareSize(72))

	title := widget.NewLabelWithStyle("Welcome to Saji", fyne.TextAlignCenter, fyne.TextStyle{Bold: true})
	title.SizeName = theme.SizeNameHeadingText
	intro := welcomeLabel("Saji runs language models on this computer: what you write stays here. To start chatting, it needs a model.")

	v.memory = welcomeLabel(machineSentence(v.machine))
	table := container.NewGridWithColumns(3,
		welcomeBold("Model size"), welcomeBold("Memory it needs"), welcomeBold("Now"))
	for _, f := range modelFits() {
		now := "needs more free memory"
		if v.machine.Total == 0 {
			now = ""
		} else if f.Need <= v.machine.Available {
			now = "fits"
		}
		table.Add(widget.NewLabel(f.Size))
		table.Add(widget.NewLabel("about " + units.Bytes(int64(f.Need))))
		table.Add(widget.NewLabel(now))
	}
	estimate := welcomeLabel(fmt.Sprintf("These are estimates for Q4_K_M models with a conversation of %d tokens; longer conversations need more.", scheduler.DefaultContext))
	estimate.TextStyle.Italic = true

	m := v.model
	offer := welcomeLabel(fmt.Sprintf("Recommended to start: %s (Q4_K_M), about %s, licence %s, from Hugging Face (%s).",
		m.Title, units.Bytes(m.Size), m.License, m.Repo))
	v.download = widget.NewButtonWithIcon("Download "+m.Title, theme.DownloadIcon(), v.startDownload)
	v.download.Importance = widget.HighImportance

	v.progress = newProgressBar()
	v.status = widget.NewLabel("")
	v.pause = widget.NewButtonWithIcon("Pause", theme.MediaPauseIcon(), v.pauseDownload)
	v.cancel = widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), v.cancelDownload)
	v.running = container.NewVBox(v.progress, container.NewBorder(nil, nil, nil, container.NewHBox(v.pause, v.cancel), v.status))
	v.running.Hide()

	v.message = welcomeLabel("")
	v.message.Importance = widget.DangerImportance
	v.message.Hide()
	if !slices.Contains(model.Architectures(), m.Arch) {
		// Not expected (qwen2 is registered), but never offer a model
		// that could not run.
		offer.Hide()
		v.download.Hide()
	}

	fitBtn := widget.NewButtonWithIcon("What can this computer run?", theme.ComputerIcon(), func() { v.u.showWizard() })
	drop := welcomeLabel("Or drop a GGUF file you already have onto this window.")
	drop.Alignment = fyne.TextAlignCenter
	v.skip = widget.NewButton("Skip", v.skipWelcome)
	v.skip.Importance = widget.LowImportance

	column := container.NewVBox(
		layout.NewSpacer(),
		container.NewCenter(logo),
		title,
		intro,
		widget.NewSeparator(),
		v.memory,
		offer,
		container.NewCenter(v.download),
		v.running,
		v.message,
		drop,
		container.NewCenter(v.skip),
		widget.NewSeparator(),
		table,
		estimate,
		container.NewCenter(fitBtn),
		layout.NewSpacer(),
	)
	v.bg = newThemedRect(theme.ColorNameBackground, "", 0)
	v.scroll = container.NewVScroll(container.New(welcomeColumn{width: 620}, column))
	v.content = container.NewStack(v.bg, v.scroll)
}

// relayout lays the column out again after parts of it showed or hid.
func (v *welcomeView) relayout() {
	if c, ok := v.scroll.Content.(*fyne.Container); ok {
		c.Objects[0].Refresh()
	}
	v.scroll.Refresh()
}

// welcomeLabel returns a label that wraps its text at word boundaries.
func welcomeLabel(text string) *widget.Label {
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	return l
}

// welcomeBold returns a bold label.
func welcomeBold(text string) *widget.Label {
	return widget.NewLabelWithStyle(text, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
}

// CreateRenderer implements fyne.Widget.
func (v *welcomeView) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(v.content)
}

// welcomeColumn centres its objects in a column at most width wide.
type welcomeColumn struct{ width float32 }

func (l welcomeColumn) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	w := min(size.Width, l.width)
	for _, o := range objs {
		o.Resize(fyne.NewSize(w, size.Height))
		o.Move(fyne.NewPos((size.Width-w)/2, 0))
	}
}

func (l welcomeColumn) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var s fyne.Size
	for _, o := range objs {
		s = s.Max(o.MinSize())
	}
	return s
}

// locked runs f while no update from the view's work runs (tests).
func (v *welcomeView) locked(f func()) {
	v.uiMu.Lock()
	defer v.uiMu.Unlock()
	f()
}

// skipWelcome dismisses the view for good (Settings.Welcomed).
func (v *welcomeView) skipWelcome() {
	s := v.u.core.Settings()
	s.Welcomed = true
	if err := v.u.core.SetSettings(s); err != nil {
		v.u.showError("Could not save the settings", err)
	}
	v.Hide()
	v.u.modelsChanged()
}
