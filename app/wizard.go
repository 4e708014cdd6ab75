package app

// The fit wizard, "What can this computer run?": it shows the machine
// (processor, memory, GPUs or why there are none, memory speed), asks what
// the person wants to do (chat, coding, long documents), and recommends
// well-known models with the quantization level that fits, each with the
// fit planner's breakdown and a button that opens it in Discover. It works
// offline: the candidates' shapes and sizes are built in.

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"saji/engine/fit"
	"saji/engine/hardware"
	"saji/engine/hub"
	"saji/engine/units"
)

// useCase is what the person wants a model for.
type useCase int

const (
	useChat useCase = iota
	useCoding
	useLong
)

// useCases are the wizard's choices: the label and the context each is
// planned for.
var useCases = []struct {
	label   string
	context int
	hint    string
}{
	useChat:   {"Chat", 4096, "Conversations and questions, planned for 4K tokens of context (a few pages)."},
	useCoding: {"Coding", 8192, "Writing and explaining code, planned for 8K tokens of context (a few source files)."},
	useLong:   {"Long documents", 32768, "Reading and summarising long texts, planned for 32K tokens of context (a short book chapter)."},
}

// useCaseOf returns the use case with the given label (chat when none).
func useCaseOf(label string) useCase {
	for i, u := range useCases {
		if u.label == label {
			return useCase(i)
		}
	}
	return useChat
}

// candidate is a well-known instruct model in GGUF with its architecture
// and its files' sizes.
//
// The shapes come from each model's config.json on Hugging Face (and the
// same keys in its GGUF header: block_count, attention.head_count(_kv),
// key_length, embedding_length, feed_forward_length, the vocabulary's
// length, context_length, attention.sliding_window); the sizes are those
// the repositories list for their Q4_K_M and Q8_0 files, rounded to the
// megabyte. They could not be checked against the hub when this was
// written (no network): they are the published figures as remembered,
// and the planner's verdicts are not sensitive to a few percent.
type candidate struct {
	Title string
	// Repo is the GGUF repository on Hugging Face.
	Repo string
	Arch string
	// Layers, Heads, KVHeads, HeadDim, Embd, FFN, Vocab and Context are
	// the architecture's shape (Context: the training context).
	Layers, Heads, KVHeads, HeadDim, Embd, FFN, Vocab, Context int
	// Tied: the embeddings serve as the output head (no output.weight).
	Tied bool
	// SlidingWindow is Gemma 3's local attention window (every sixth
	// layer attends globally).
	SlidingWindow int
	// BPE: the tokenizer has merges (about one per token).
	BPE bool
	// Q4, Q8 are the Q4_K_M and Q8_0 files' sizes in bytes.
	Q4, Q8 int64
	// Uses are the use cases it is recommended for.
	Uses []useCase
}

// mbytes is 10^6 bytes, as file sizes are published.
const mbytes = 1_000_000

var (
	chatLong = []useCase{useChat, useLong}
	coding   = []useCase{useCoding}
)

// candidates are the models the wizard considers, smallest first within a
// family.
var candidates = []candidate{
	{Title: "Qwen2.5 0.5B Instruct", Repo: "Qwen/Qwen2.5-0.5B-Instruct-GGUF", Arch: "qwen2",
		Layers: 24, Heads: 14, KVHeads: 2, HeadDim: 64, Embd: 896, FFN: 4864, Vocab: 151936, Context: 32768,
		Tied: true, BPE: true, Q4: 491 * mbytes, Q8: 676 * mbytes, Uses: chatLong},
	{Title: "Llama 3.2 1B Instruct", Repo: "bartowski/Llama-3.2-1B-Instruct-GGUF", Arch: "llama",
		Layers: 16, Heads: 32, KVHeads: 8, HeadDim: 64, Embd: 2048, FFN: 8192, Vocab: 128256, Context: 131072,
		Tied: true, BPE: true, Q4: 808 * mbytes, Q8: 1321 * mbytes, Uses: chatLong},
	{Title: "Qwen2.5 1.5B Instruct", Repo: "Qwen/Qwen2.5-1.5B-Instruct-GGUF", Arch: "qwen2",
		Layers: 28, Heads: 12, KVHeads: 2, HeadDim: 128, Embd: 1536, FFN: 8960, Vocab: 151936, Context: 32768,
		Tied: true, BPE: true, Q4: 1117 * mbytes, Q8: 1894 * mbytes, Uses: chatLong},
	{Title: "Llama 3.2 3B Instruct", Repo: "bartowski/Llama-3.2-3B-Instruct-GGUF", Arch: "llama",
		Layers: 28, Heads: 24, KVHeads: 8, HeadDim: 128, Embd: 3072, FFN: 8192, Vocab: 128256, Context: 131072,
		Tied: true, BPE: true, Q4: 2019 * mbytes, Q8: 3421 * mbytes, Uses: chatLong},
	{Title: "Qwen2.5 3B Instruct", Repo: "Qwen/Qwen2.5-3B-Instruct-GGUF", Arch: "qwen2",
		Layers: 36, Heads: 16, KVHeads: 2, HeadDim: 128, Embd: 2048, FFN: 11008, Vocab: 151936, Context: 32768,
		Tied: true, BPE: true, Q4: 2104 * mbytes, Q8: 3616 * mbytes, Uses: chatLong},
	{Title: "Gemma 3 4B Instruct", Repo: "bartowski/google_gemma-3-4b-it-GGUF", Arch: "gemma3",
		Layers: 34, Heads: 8, KVHeads: 4, HeadDim: 256, Embd: 2560, FFN: 10240, Vocab: 262144, Context: 131072,
		Tied: true, SlidingWindow: 1024, Q4: 2489 * mbytes, Q8: 4130 * mbytes, Uses: chatLong},
	{Title: "Qwen2.5 7B Instruct", Repo: "Qwen/Qwen2.5-7B-Instruct-GGUF", Arch: "qwen2",
		Layers: 28, Heads: 28, KVHeads: 4, HeadDim: 128, Embd: 3584, FFN: 18944, Vocab: 152064, Context: 32768,
		BPE: true, Q4: 4683 * mbytes, Q8: 8099 * mbytes, Uses: chatLong},
	{Title: "Gemma 3 12B Instruct", Repo: "bartowski/google_gemma-3-12b-it-GGUF", Arch: "gemma3",
		Layers: 48, Heads: 16, KVHeads: 8, HeadDim: 256, Embd: 3840, FFN: 15360, Vocab: 262144, Context: 131072,
		Tied: true, SlidingWindow: 1024, Q4: 7301 * mbytes, Q8: 12510 * mbytes, Uses: chatLong},
	{Title: "Llama 3.3 70B Instruct", Repo: "bartowski/Llama-3.3-70B-Instruct-GGUF", Arch: "llama",
		Layers: 80, Heads: 64, KVHeads: 8, HeadDim: 128, Embd: 8192, FFN: 28672, Vocab: 128256, Context: 131072,
		BPE: true, Q4: 42520 * mbytes, Q8: 74980 * mbytes, Uses: chatLong},
	{Title: "Qwen2.5 Coder 1.5B Instruct", Repo: "Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF", Arch: "qwen2",
		Layers: 28, Heads: 12, KVHeads: 2, HeadDim: 128, Embd: 1536, FFN: 8960, Vocab: 151936, Context: 32768,
		Tied: true, BPE: true, Q4: 1117 * mbytes, Q8: 1894 * mbytes, Uses: coding},
	{Title: "Qwen2.5 Coder 7B Instruct", Repo: "Qwen/Qwen2.5-Coder-7B-Instruct-GGUF", Arch: "qwen2",
		Layers: 28, Heads: 28, KVHeads: 4, HeadDim: 128, Embd: 3584, FFN: 18944, Vocab: 152064, Context: 32768,
		BPE: true, Q4: 4683 * mbytes, Q8: 8099 * mbytes, Uses: coding},
	{Title: "Qwen2.5 Coder 14B Instruct", Repo: "Qwen/Qwen2.5-Coder-14B-Instruct-GGUF", Arch: "qwen2",
		Layers: 48, Heads: 40, KVHeads: 8, HeadDim: 128, Embd: 5120, FFN: 13824, Vocab: 152064, Context: 32768,
		BPE: true, Q4: 8988 * mbytes, Q8: 15700 * mbytes, Uses: coding},
}

// Bits per weight of the tensors llama.cpp's Q4_K_M and Q8_0 files keep
// outside the blocks: the token embeddings (Q4_K, or Q8_0) and the output
// head (Q6_K, or Q8_0), in bits per 256 weights.
const (
	q4EmbdBits, q4OutputBits = 144 * 8, 210 * 8
	q8Bits                   = 272 * 8
)

// shape builds the planner's shape of c at level "Q4_K_M" or "Q8_0": the
// embeddings and the head at the level's types, the rest of the file
// spread evenly over the layers.
func (c candidate) shape(level string) fit.ModelShape {
	size, embdBits, outBits := c.Q4, int64(q4EmbdBits), int64(q4OutputBits)
	if level == "Q8_0" {
		size, embdBits, outBits = c.Q8, q8Bits, q8Bits
	}
	ft := map[string]string{"Q4_K_M": "Q4_K - Medium", "Q8_0": "Q8_0"}[level]
	s := fit.ModelShape{Arch: c.Arch, Name: c.Title, FileType: ft, Layers: c.Layers, Heads: c.Heads,
		HeadDim: c.HeadDim, ValueDim: c.HeadDim, Embd: c.Embd, FFN: c.FFN, Vocab: c.Vocab, ContextTrain: c.Context,
		FileSize: size, TiedOutput: c.Tied, TokenizerEntries: c.Vocab}
	if c.BPE {
		s.TokenizerEntries = 2 * c.Vocab
	}
	weights := int64(c.Vocab) * int64(c.Embd)
	s.EmbdBytes = weights * embdBits / 256 / 8
	s.OutputBytes = int64(c.Embd) * 4 // the output norm
	if !c.Tied {
		s.OutputBytes += weights * outBits / 256 / 8
	}
	// The header (metadata, vocabulary) is a few megabytes of the file.
	layers := size - s.EmbdBytes - s.OutputBytes - int64(s.TokenizerEntries)*16
	for i := range c.Layers {
		s.KVHeads = append(s.KVHeads, c.KVHeads)
		s.LayerBytes = append(s.LayerBytes, layers/int64(c.Layers))
		if c.SlidingWindow > 0 {
			s.SlidingWindow = c.SlidingWindow
			s.SWA = append(s.SWA, i%6 < 5)
		}
	}
	return s
}

// quants are c's levels as the hub lists a repository's, for
// hub.Recommend.
func (c candidate) quants() []hub.Quant {
	var qs []hub.Quant
	for _, level := range []string{"Q4_K_M", "Q8_0"} {
		size := c.Q4
		if level == "Q8_0" {
			size = c.Q8
		}
		qs = append(qs, hub.Quant{Name: level, Size: size, Shards: 1, Files: []hub.File{{Path: level + ".gguf", Size: size}}})
	}
	return qs
}

// modelPick is a recommendation: a candidate at the level hub.Recommend
// picks, and its plan.
type modelPick struct {
	Candidate candidate
	Level     string
	Plan      fit.Plan
}

// recommendLevel picks the level of c to download on machine m as
// Discover does for a repository (hub.RecommendReason over the free
// memory and the memory speed, from the files' sizes), so that the
// wizard, Discover and the first-run page name the same level; false
// when none fits.
func recommendLevel(c candidate, m hardware.Machine) (string, bool) {
	avail := m.Memory.Available
	if avail == 0 {
		avail = m.Memory.Total
	}
	q, ok, _ := hub.RecommendReason(c.quants(), int64(min(avail, 1<<62)), fit.SizeNeed, fit.LevelRunnable, fastOn(m.Bandwidth))
	return q.Name, ok
}

// fastOn is hub.RecommendReason's fast for a machine whose memory reads
// bandwidth bytes a second (0: not measured): fit.FastEnough.
func fastOn(bandwidth float64) func(hub.Quant) bool {
	return func(q hub.Quant) bool { return fit.FastEnough(q.Size, bandwidth) }
}

// recommendModels returns, for use on machine m, each candidate at the
// level recommendLevel picks when its plan fits without crowding the
// memory (fast or slow: the verdict says which), in the candidates'
// order, and the number of candidates left out because none fits.
func recommendModels(m hardware.Machine, use useCase) ([]modelPick, int) {
	var picks []modelPick
	left := 0
	for _, c := range candidates {
		if !containsUse(c.Uses, use) {
			continue
		}
		level, ok := recommendLevel(c, m)
		if !ok {
			left++
			continue
		}
		p, err := fit.PlanFor(c.shape(level), m, fit.Desktop(useCases[use].context))
		if err != nil || p.Pace() >= fit.Tight {
			left++
			continue
		}
		picks = append(picks, modelPick{Candidate: c, Level: level, Plan: p})
	}
	return picks, left
}

func containsUse(us []useCase, u useCase) bool {
	for _, x := range us {
		if x == u {
			return true
		}
	}
	return false
}

// contextText writes a context length as people say it: "32K", "4K",
// "1,500".
func contextText(n int) string {
	if n >= 1024 && n%1024 == 0 || n >= 10240 {
		return fmt.Sprintf("%dK", n/1024)
	}
	return groupDigits(int64(n))
}

// paceImportance is the colour of a pace: comfortable models in green,
// slow and tight ones in the warning colour, too big in red.
func paceImportance(p fit.Pace) widget.Importance {
	switch p {
	case fit.Comfortable:
		return widget.SuccessImportance
	case fit.TooBig:
		return widget.DangerImportance
	}
	return widget.WarningImportance
}

// verdictLine says a plan's verdict in one sentence (fit.Plan.Advice:
// "Fits: about 12 tokens/s, 5.1 GB of 23 GB free."), with its colour
// (paceImportance). The rest, a context past the model's training among
// it, is in the plan's details (fit.Plan.Explain) behind the info button.
func verdictLine(p fit.Plan) (string, widget.Importance) {
	return p.Advice(), paceImportance(p.Pace())
}

// machineLines describe m for people, a line each.
func machineLines(m hardware.Machine) []string {
	var lines []string
	cpuName := m.CPU.Model
	if cpuName == "" {
		cpuName = "Unknown processor"
	}
	c := cpuName
	if m.CPU.Cores > 0 {
		c += fmt.Sprintf(", %d cores", m.CPU.Cores)
		if m.CPU.Threads > m.CPU.Cores {
			c += fmt.Sprintf(" (%d threads)", m.CPU.Threads)
		}
	}
	lines = append(lines, "Processor: "+c)
	if m.Memory.Total > 0 {
		lines = append(lines, fmt.Sprintf("Memory: %s, %s free now", units.Bytes(int64(m.Memory.Total)), units.Bytes(int64(m.Memory.Available))))
	} else {
		lines = append(lines, "Memory: Saji could not read its size.")
	}
	for _, g := range m.GPUs {
		kind := "memory"
		if g.Unified {
			kind = "shared memory"
		}
		lines = append(lines, fmt.Sprintf("GPU: %s, %s of %s free (%s)", g.Name, units.Bytes(int64(g.Free)), units.Bytes(int64(g.Total)), kind))
	}
	if len(m.GPUs) == 0 {
		lines = append(lines, "GPU: none that Saji can use; models run on the processor.")
	}
	if m.Bandwidth > 0 {
		lines = append(lines, fmt.Sprintf("Memory speed: %s (it bounds how fast a model writes)", units.Rate(m.Bandwidth)))
	} else {
		lines = append(lines, "Memory speed: not measured, so no speeds are predicted.")
	}
	return lines
}

// machineDetails are what machineLines leave out for people: the CPU's
// instruction sets and why no GPU is used, as the detection says them.
func machineDetails(m hardware.Machine) string {
	var lines []string
	if len(m.CPU.Features) > 0 {
		lines = append(lines, "Instruction sets: "+strings.ToUpper(strings.Join(m.CPU.Features, ", ")))
	}
	lines = append(lines, m.Notes...)
	return strings.Join(lines, "\n")
}

// wizardPick is one recommendation as the wizard shows it (for tests).
type wizardPick struct {
	Title, Repo, Level string
	Verdict            string
	Kind               fit.VerdictKind
	Breakdown          string
}

// wizardSnapshot is what the wizard shows, for tests.
type wizardSnapshot struct {
	Known   bool // the machine is known (detection finished)
	Machine string
	Use     string
	Picks   []wizardPick
	Left    int
}

// wizard is the "What can this computer run?" dialog. Its widgets belong
// to the UI goroutine; the machine's detection runs off it (bg).
type wizard struct {
	u       *ui
	content fyne.CanvasObject
	dlg     dialog.Dialog

	machineText *widget.Label
	techText    *widget.Label     // machineDetails
	tech        *widget.Accordion // techText, closed
	measuring   *fyne.Container
	use         *widget.RadioGroup
	useHint     *widget.Label
	picks       *fyne.Container
	machine     hardware.Machine // UI
	known       bool             // UI
	bg          worker           // the machine's detection, until it shows

	mu   sync.Mutex
	snap wizardSnapshot
}

// newWizard builds the wizard of u; start detects the machine.
func newWizard(u *ui) *wizard {
	w := &wizard{u: u}
	intro := widget.NewLabel("Saji plans each model from its own architecture: the weights, the memory its context " +
		"needs, the working buffers, and the speed this computer's memory allows.")
	intro.Wrapping = fyne.TextWrapWord
	head := func(s string) *widget.Label {
		return widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	}
	w.machineText = widget.NewLabel("Looking at this computer...")
	w.machineText.Wrapping = fyne.TextWrapWord
	w.techText = widget.NewLabel("")
	w.techText.Wrapping = fyne.TextWrapWord
	w.tech = widget.NewAccordion(widget.NewAccordionItem("Technical details", w.techText))
	w.tech.Hide()
	bar := widget.NewProgressBarInfinite()
	w.measuring = container.NewVBox(widget.NewLabel("Measuring the memory speed (about a second)..."), bar)
	labels := make([]string, len(useCases))
	for i, c := range useCases {
		labels[i] = c.label
	}
	w.useHint = widget.NewLabel("")
	w.useHint.Wrapping = fyne.TextWrapWord
	w.useHint.Importance = widget.LowImportance
	w.use = widget.NewRadioGroup(labels, func(string) { w.refresh() })
	w.use.Horizontal = true
	w.use.Required = true
	w.picks = container.NewVBox()
	w.content = container.NewVScroll(container.NewPadded(container.NewVBox(
		intro,
		head("This computer"), w.machineText, w.tech, w.measuring,
		widget.NewSeparator(),
		head("What would you like to do?"), w.use, w.useHint,
		widget.NewSeparator(),
		head("Models that fit"), w.picks,
	)))
	w.use.SetSelected(useCases[useChat].label)
	return w
}

// start detects the machine (once per app: core.Machine) off the UI
// goroutine and shows it.
func (w *wizard) start() {
	w.bg.run(func() func() {
		m, err := w.u.core.Machine(context.Background())
		return func() {
			w.measuring.Hide()
			if err != nil {
				w.machineText.SetText("Saji could not look at this computer: " + userMessage(err))
				return
			}
			w.machine, w.known = m, true
			w.machineText.SetText(strings.Join(machineLines(m), "\n"))
			if d := machineDetails(m); d != "" {
				w.techText.SetText(d)
				w.tech.Show()
			}
			w.refresh()
		}
	})
}

// refresh lists the recommendations for the machine and the use chosen.
func (w *wizard) refresh() {
	use := useCaseOf(w.use.Selected)
	w.useHint.SetText(useCases[use].hint + " One conversation at a time.")
	w.picks.RemoveAll()
	snap := wizardSnapshot{Known: w.known, Machine: w.machineText.Text, Use: useCases[use].label}
	if !w.known {
		w.picks.Add(widget.NewLabel("Waiting for the machine's description..."))
		w.setSnap(snap)
		return
	}
	picks, left := recommendModels(w.machine, use)
	snap.Left = left
	if len(picks) == 0 {
		l := widget.NewLabel("None of the models Saji knows fits this computer's free memory now. Close some programs, " +
			"or look for smaller models in Discover.")
		l.Wrapping = fyne.TextWrapWord
		w.picks.Add(l)
	}
	for _, p := range picks {
		text, imp := verdictLine(p.Plan)
		breakdown := strings.Join(p.Plan.Explain(), "\n")
		snap.Picks = append(snap.Picks, wizardPick{Title: p.Candidate.Title, Repo: p.Candidate.Repo, Level: p.Level,
			Verdict: text, Kind: p.Plan.Verdict.Kind, Breakdown: breakdown})
		w.picks.Add(w.pickCard(p, text, imp, breakdown))
	}
	if left > 0 {
		l := widget.NewLabel(fmt.Sprintf("%s need more memory than this computer has free.",
			plural(left, "larger model", "larger models")))
		l.Importance = widget.LowImportance
		w.picks.Add(l)
	}
	w.picks.Refresh()
	w.setSnap(snap)
}

// pickCard draws a recommendation: the model, level and size, the
// verdict, the breakdown (shown on demand) and Open in Discover.
func (w *wizard) pickCard(p modelPick, verdict string, imp widget.Importance, breakdown string) fyne.CanvasObject {
	title := widget.NewLabelWithStyle(p.Candidate.Title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	info := widget.NewLabel(fmt.Sprintf("%s · %s download · %s", p.Level, units.Bytes(p.Plan.Model.FileSize), p.Candidate.Repo))
	info.Truncation = fyne.TextTruncateEllipsis
	v := widget.NewLabel(verdict)
	v.Importance = imp
	details := widget.NewLabel(breakdown)
	details.Wrapping = fyne.TextWrapWord
	details.SizeName = theme.SizeNameCaptionText
	details.Hide()
	var more *widget.Button
	more = widget.NewButtonWithIcon("Details", theme.InfoIcon(), func() {
		setVisible(details, !details.Visible())
		if details.Visible() {
			more.SetText("Hide details")
		} else {
			more.SetText("Details")
		}
		w.picks.Refresh()
	})
	repo := p.Candidate.Repo
	open := widget.NewButtonWithIcon("Open in Discover", theme.SearchIcon(), func() {
		if w.dlg != nil {
			w.dlg.Hide()
		}
		w.u.openInDiscover(repo)
	})
	return container.NewVBox(
		container.NewBorder(nil, nil, nil, container.NewHBox(more, open), container.NewVBox(title, info)),
		v, details, widget.NewSeparator())
}

func (w *wizard) setSnap(s wizardSnapshot) {
	w.mu.Lock()
	w.snap = s
	w.mu.Unlock()
}

// snapshot returns what the wizard shows.
func (w *wizard) snapshot() wizardSnapshot {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.snap
	s.Picks = append([]wizardPick(nil), s.Picks...)
	return s
}

// showWizard opens the wizard over the main window.
func (u *ui) showWizard() *wizard {
	w := newWizard(u)
	w.dlg = dialog.NewCustom("What can this computer run?", "Close", w.content, u.win)
	w.dlg.Resize(fyne.NewSize(760, 640))
	w.dlg.Show()
	w.start()
	return w
}

// openInDiscover switches to the Discover tab, searches for repo and shows
// its quant table.
func (u *ui) openInDiscover(repo string) {
	d := u.discover
	shown := d.wasShown()
	d.query.SetText(repo)
	u.tabs.SelectIndex(tabDiscover) // the first showing searches for the query
	if shown {
		d.search()
	}
	d.openRepo(repo)
}
