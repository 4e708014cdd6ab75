package app

// The first-run view: shown over the chat while the library is empty and
// the person has not dismissed it. It says what this computer can run,
// offers a one-click download of a small recommended model, reminds that
// a GGUF file can be dropped onto the window, and can be skipped.

import (
	"context"
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
	"saji/engine/units"
)

// probeMachine reads the memory (gopsutil) and the physical cores at
// once; the full description (the memory speed, the GPUs) comes later from
// core.Machine.
func probeMachine() hardware.Machine {
	m := hardware.Machine{CPU: hardware.CPU{Cores: hardware.PhysicalCores()}}
	if vm, err := mem.VirtualMemory(); err == nil {
		m.Memory = hardware.Memory{Total: vm.Total, Available: vm.Available}
	} else {
		slog.Warn("app: reading the memory size", "err", err)
	}
	return m
}

// gibibyte is 2^30 bytes, recommendModel's threshold.
const gibibyte = 1 << 30

// sizePlan is one of engine/fit's size classes (a Llama-like model at
// Q4_K_M) planned on a machine.
type sizePlan struct {
	Size string // "8B"
	Plan fit.Plan
}

// planSizes plans fit.Classes on m for a conversation, as the wizard
// plans its chat models (fit.Desktop at the chat's context), so that the
// two say the same of a model of the same size.
func planSizes(m hardware.Machine) []sizePlan {
	var out []sizePlan
	for _, c := range fit.Classes {
		p, err := fit.PlanFor(c.Shape(), m, fit.Desktop(useCases[useChat].context))
		if err != nil {
			continue
		}
		out = append(out, sizePlan{Size: c.Name, Plan: p})
	}
	return out
}

// paceWords says a plan's pace in a few words for the welcome's table:
// "fits, about 12 tokens/s", "slow, about 1.5 tokens/s", "needs more free
// memory".
func paceWords(p fit.Plan) string {
	speed := ""
	if tps := p.DecodeTokensPerSec; tps > 0 {
		speed = ", " + fit.SpeedText(tps)
	}
	switch p.Pace() {
	case fit.Comfortable:
		return "fits" + speed
	case fit.Slow:
		return "slow" + speed
	}
	return "needs more free memory"
}

// machineSentence says what m can run, in one or two sentences, from the
// planner's paces (fit.Plan.Pace): the largest size that runs
// comfortably, and the larger ones that run slowly.
func machineSentence(m hardware.Machine) string {
	if m.Memory.Total == 0 {
		return "Saji could not read this computer's memory size. Small models (1.5B to 3B parameters) run on most computers."
	}
	have := fmt.Sprintf("This computer has %s of memory, %s free", units.Bytes(int64(m.Memory.Total)), units.Bytes(int64(m.Memory.Available)))
	if m.CPU.Cores > 0 {
		have += fmt.Sprintf(", and %d processor cores", m.CPU.Cores)
	}
	plans := planSizes(m)
	comfy, runs := -1, -1 // the largest comfortable size, the largest that fits
	for i, sp := range plans {
		switch sp.Plan.Pace() {
		case fit.Comfortable:
			comfy, runs = i, i
		case fit.Slow:
			runs = i
		}
	}
	if runs < 0 {
		return have + ": that is little free memory for a language model. Close some programs, or start with the smallest model (0.5B parameters)."
	}
	speed := func(i int) string {
		if tps := plans[i].Plan.DecodeTokensPerSec; tps > 0 {
			return " (" + fit.SpeedText(tps) + ")"
		}
		return ""
	}
	if comfy < 0 {
		return fmt.Sprintf("%s: models up to about %s parameters fit, but run slowly here, even the smallest%s.",
			have, plans[runs].Size, speed(0))
	}
	if p := plans[comfy].Plan; p.DecodeTokensPerSec == 0 && p.Verdict.Kind == fit.CPUOnly {
		// The memory speed is not known (yet): say what fits, not how
		// fast it runs.
		return fmt.Sprintf("%s: it has room for models up to about %s parameters at Q4_K_M.", have, plans[runs].Size)
	}
	s := fmt.Sprintf("%s: it runs models up to about %s parameters at Q4_K_M comfortably%s.", have, plans[comfy].Size, speed(comfy))
	if runs > comfy {
		s += fmt.Sprintf(" Larger ones, up to %s, run slowly%s.", plans[runs].Size, speed(runs))
	}
	return s
}

// recommendedModel is a small instruct model offered on first run.
type recommendedModel struct {
	// Title is the model's name for people.
	Title string
	// Repo and File locate it on Hugging Face.
	Repo, File string
	// Arch is its GGUF architecture (one engine/model registers).
	Arch string
	// Level is the file's quantization level.
	Level string
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

// The recommended models, Qwen2.5 Instruct, 1.5B, or 0.5B for computers
// with less than 4 GB of memory, at Q4_K_M; recommendModel picks their
// level as Discover and the wizard do.
var (
	qwen15B = recommendedModel{Title: "Qwen2.5 1.5B Instruct", Repo: "Qwen/Qwen2.5-1.5B-Instruct-GGUF",
		File: "qwen2.5-1.5b-instruct-q4_k_m.gguf", Arch: "qwen2", Level: "Q4_K_M", Size: 1_117_000_000, License: "Apache-2.0"}
	qwen05B = recommendedModel{Title: "Qwen2.5 0.5B Instruct", Repo: "Qwen/Qwen2.5-0.5B-Instruct-GGUF",
		File: "qwen2.5-0.5b-instruct-q4_k_m.gguf", Arch: "qwen2", Level: "Q4_K_M", Size: 491_000_000, License: "Apache-2.0"}
)

// candidate returns the wizard's description of m (its shape and its
// levels' sizes), or false.
func (m recommendedModel) candidate() (candidate, bool) {
	for _, c := range candidates {
		if c.Repo == m.Repo {
			return c, true
		}
	}
	return candidate{}, false
}

// recommendModel picks the first-run model for machine m (its memory
// unknown when Total is 0), at the level hub.Recommend picks for its
// free memory (recommendLevel, as the wizard and Discover), Q4_K_M when
// none fits or the memory is unknown.
func recommendModel(m hardware.Machine) recommendedModel {
	r := qwen15B
	if total := m.Memory.Total; total > 0 && total < 4*gibibyte {
		r = qwen05B
	}
	c, ok := r.candidate()
	if !ok || m.Memory.Total == 0 {
		return r
	}
	if level, ok := recommendLevel(c, m); ok && level == "Q8_0" {
		r.Level, r.Size = level, c.Q8
		r.File = strings.TrimSuffix(r.File, "q4_k_m.gguf") + "q8_0.gguf"
	}
	return r
}

// welcomeView is the first-run view. Its widgets are touched on the UI
// goroutine only. The download is a job of the download manager, as
// Discover's are (it shows in Discover's list too); the view follows its
// progress off the UI goroutine (work) and redraws through uiLatest.
type welcomeView struct {
	widget.BaseWidget
	u       *ui
	machine hardware.Machine // what is known of it so far
	model   recommendedModel

	bg       *themedRect
	content  fyne.CanvasObject
	scroll   *container.Scroll
	memory   *widget.Label
	table    *fyne.Container // the size classes and how they run here
	offer    *widget.Label   // the recommended model
	offerFit *widget.Label   // its verdict
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
	v.model = recommendModel(v.machine)
	v.ExtendBaseWidget(v)
	v.build()
	return v
}

// describe asks for the full description of this computer (core.Machine:
// the memory speed, the GPUs; a second or so) while the view shows, and
// then says what it runs (setMachine). The app calls it once its window
// exists (ui.start).
func (v *welcomeView) describe() {
	if !v.Visible() {
		return
	}
	v.work.run(func() func() {
		m, err := v.u.core.Machine(context.Background())
		if err != nil || m.Memory.Total == 0 {
			return nil
		}
		return func() { v.setMachine(m) }
	})
}

// setMachine says what m, the full description of this computer (its
// memory speed, its GPUs), runs: the sentence, the table and the
// recommended model's verdict, in the wizard's words.
func (v *welcomeView) setMachine(m hardware.Machine) {
	v.machine = m
	v.memory.SetText(machineSentence(m))
	if v.job == nil && !v.starting {
		// The level can change with what the full description says of
		// the memory.
		v.model = recommendModel(m)
		v.offer.SetText(offerText(v.model))
	}
	v.fillTable()
	if c, ok := v.model.candidate(); ok && m.Memory.Total > 0 {
		if p, err := fit.PlanFor(c.shape(v.model.Level), m, fit.Desktop(useCases[useChat].context)); err == nil {
			text, imp := verdictLine(p)
			v.offerFit.Text, v.offerFit.Importance = text, imp
			v.offerFit.Refresh()
			v.offerFit.Show()
		}
	}
	v.relayout()
}

// offerText says which model the view offers to download.
func offerText(m recommendedModel) string {
	return fmt.Sprintf("Recommended to start: %s (%s), about %s, licence %s, from Hugging Face (%s).",
		m.Title, m.Level, units.Bytes(m.Size), m.License, m.Repo)
}

// fillTable lists the size classes, the memory each needs and how it
// runs on the machine known so far.
func (v *welcomeView) fillTable() {
	v.table.RemoveAll()
	v.table.Add(welcomeBold("Model size"))
	v.table.Add(welcomeBold("Memory it needs"))
	v.table.Add(welcomeBold("Here"))
	for _, sp := range planSizes(v.machine) {
		now := ""
		if v.machine.Memory.Total > 0 {
			now = paceWords(sp.Plan)
		}
		v.table.Add(widget.NewLabel(sp.Size))
		v.table.Add(widget.NewLabel("about " + units.Bytes(sp.Plan.Breakdown.Total)))
		v.table.Add(widget.NewLabel(now))
	}
	v.table.Refresh()
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
	v.table = container.NewGridWithColumns(3)
	v.fillTable()
	estimate := welcomeLabel(fmt.Sprintf("These are estimates for Q4_K_M models with a conversation of %d tokens; longer conversations need more.", useCases[useChat].context))
	estimate.TextStyle.Italic = true

	m := v.model
	v.offer = welcomeLabel(offerText(m))
	offer := v.offer
	v.offerFit = welcomeLabel("")
	v.offerFit.Hide()
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
		v.offerFit,
		container.NewCenter(v.download),
		v.running,
		v.message,
		drop,
		container.NewCenter(v.skip),
		widget.NewSeparator(),
		v.table,
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
