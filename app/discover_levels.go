package app

// The Discover view's repository: its details and the quant table, with
// each level's verdict (engine/fit's size-based one, then its plan from
// the level's header) and the recommended level.

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"saji/engine/download"
	"saji/engine/fit"
	"saji/engine/hardware"
	"saji/engine/hub"
	"saji/engine/model"
	"saji/engine/units"
)

// repoDetails is what openRepo fetches about a repository.
type repoDetails struct {
	info     hub.ModelInfo
	card     hub.Card
	levels   []hub.Quant
	mmproj   []hub.File
	rows     []quantRow
	mem      hardware.Memory
	memKnown bool
	why      string // why the recommended level is (hub.RecommendReason)
	err      error
}

// openRepo shows the repository id: its details and the quant table,
// fetched off the UI goroutine.
func (v *discoverView) openRepo(id string) {
	v.mu.Lock()
	v.repoSeq++
	seq := v.repoSeq
	v.snap.Repo, v.snap.RepoLoaded, v.snap.RepoError, v.snap.Levels, v.snap.Gated = id, false, "", nil, false
	v.mu.Unlock()
	v.repo, v.commit = id, ""
	v.detailTitle.SetText(id)
	v.detailInfo.SetText("Reading the model's files...")
	v.detailCard.SetText("")
	v.detailCard.Hide()
	v.detailLink.Hide()
	v.setNote("", false)
	v.quantTable.RemoveAll()
	v.fitCells, v.levels, v.details = nil, nil, repoDetails{}
	v.recommend.Hide()
	v.mmprojNote.Hide()
	// The levels come first, in view at 800x600; the card after them.
	v.detailBox.Objects = []fyne.CanvasObject{v.detailTitle, v.detailInfo, v.detailNote, v.recommend, v.quantTable,
		v.mmprojNote, v.detailLink, v.detailCard}
	v.detailBox.Refresh()

	client := v.client()
	v.bg.run(func() func() {
		d := v.fetchRepo(client, id)
		return func() {
			v.mu.Lock()
			stale := seq != v.repoSeq
			v.mu.Unlock()
			if !stale {
				v.showRepo(client, id, d)
			}
			// The plans fill the quant table showRepo built.
			v.bg.run(func() func() {
				v.planLevels(client, id, seq, d)
				return nil
			})
		}
	})
}

// fitCell is the quant table's verdict cell of a level: the plain RAM
// check at first, the fit planner's verdict once the level's header has
// been read, with a button that shows the plan's breakdown.
type fitCell struct {
	name     *widget.Label
	label    *widget.Label
	details  *widget.Button
	mark     *widget.Label // "Recommended"
	download *widget.Button
	plan     *fit.Plan
	state    levelState // what download offers
}

// planConcurrency is how many levels' headers are read at once.
const planConcurrency = 3

// planLevels reads the header of each level's first file with Range
// requests (a few megabytes at most), plans it on this machine (one
// shared detection; the memory as fetchRepo read it) for the context of
// the settings, and puts the verdict in the quant table. A level whose
// header cannot be read keeps the size-based verdict (fit.PlanSize).
// It is work of bg: it reads planConcurrency headers at once, and each
// verdict shows (bg.do) as it comes.
func (v *discoverView) planLevels(client *hub.Client, id string, seq int, d repoDetails) {
	if d.err != nil || len(d.levels) == 0 {
		return
	}
	stale := func() bool {
		v.mu.Lock()
		defer v.mu.Unlock()
		return seq != v.repoSeq || v.closed
	}
	ctx, cancel := context.WithTimeout(context.Background(), hubTimeout)
	defer cancel()
	machine, err := v.u.core.Machine(ctx)
	if err != nil {
		return
	}
	if d.memKnown {
		machine.Memory = d.mem
	}
	req := fit.Desktop(v.u.core.Settings().Context)
	sem := make(chan struct{}, planConcurrency)
	var wg sync.WaitGroup
	for i, q := range d.levels {
		if q.Incomplete || len(q.Files) == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if stale() {
				return
			}
			shape, err := describeLevel(ctx, client, id, d.info.SHA, q)
			var re *model.RunError
			if errors.As(err, &re) {
				v.bg.do(func() {
					if !stale() {
						v.showCannotRun(i, re.Reason)
					}
				})
				return
			}
			if err != nil {
				v.u.core.log.Debug("app: reading a level's header", "repo", id, "level", q.Name, "err", err)
				return
			}
			p, err := fit.PlanFor(shape, machine, req)
			if err != nil {
				v.u.core.log.Debug("app: planning a level", "repo", id, "level", q.Name, "err", err)
				return
			}
			v.bg.do(func() {
				if !stale() {
					v.showPlan(i, p)
				}
			})
		}()
	}
	wg.Wait()
}

// describeLevel reads the shape of level q of repo at rev from its first
// file's header (the bytes of a split model's other shards spread over
// the layers).
func describeLevel(ctx context.Context, client *hub.Client, repo, rev string, q hub.Quant) (fit.ModelShape, error) {
	return fit.DescribeSplitURL(ctx, client.HTTPClient(), client.FileURL(repo, rev, q.Files[0].Path), client.Header(), q.Size)
}

// showPlan puts the plan of level i in the quant table.
func (v *discoverView) showPlan(i int, p fit.Plan) {
	if i >= len(v.fitCells) || v.fitCells[i] == nil {
		return
	}
	c := v.fitCells[i]
	text, imp := levelVerdict(p)
	c.label.Text, c.label.Importance = text, imp
	c.label.Refresh()
	c.plan = &p
	c.details.Show()
	v.mu.Lock()
	if i < len(v.snap.Levels) {
		v.snap.Levels[i].Fit, v.snap.Levels[i].Plan = text, &p
	}
	v.mu.Unlock()
	v.showRecommendation()
}

// showRecommendation explains the recommended level in a sentence above
// the quant table: the planner's reason (hub.RecommendReason, as the
// first-run page says it) or recommendWhy, with its planned speed once
// known.
func (v *discoverView) showRecommendation() {
	text := ""
	for i, r := range v.details.rows {
		if !r.Recommended || i >= len(v.fitCells) || v.fitCells[i] == nil || v.fitCells[i].state == levelCannotRun {
			continue
		}
		free := int64(0)
		if v.details.memKnown {
			free = int64(v.details.mem.Available)
		}
		text = recommendWhy(r.Name, free, true, v.fitCells[i].plan)
		if v.details.why != "" {
			// The planner's own reason, as the first-run page gives it.
			text = v.details.why
			if p := v.fitCells[i].plan; p != nil && p.DecodeTokensPerSec > 0 {
				text += " Expect " + fit.SpeedText(p.DecodeTokensPerSec) + "."
			}
		}
	}
	v.recommend.SetText(text)
	setVisible(v.recommend, text != "")
	v.mu.Lock()
	v.snap.Recommend = text
	v.mu.Unlock()
}

// showCannotRun marks level i of the quant table as one Saji cannot run,
// for reason (a model.RunError's): its download is refused.
func (v *discoverView) showCannotRun(i int, reason string) {
	if i >= len(v.fitCells) || v.fitCells[i] == nil {
		return
	}
	c := v.fitCells[i]
	c.label.Text, c.label.Importance = cannotRunText, widget.DangerImportance
	c.label.Refresh()
	c.details.Hide()
	c.mark.Hide()
	if i < len(v.details.rows) {
		v.details.rows[i].CannotRun, v.details.rows[i].Recommended = reason, false
	}
	v.mu.Lock()
	if i < len(v.snap.Levels) {
		v.snap.Levels[i].CannotRun, v.snap.Levels[i].Recommended = reason, false
	}
	v.mu.Unlock()
	v.refreshLevels()
	v.showRecommendation()
}

// cannotRunText is the verdict of a level Saji cannot run.
const cannotRunText = "Saji can't run this yet"

// showBreakdown shows how a level's plan comes about: the verdict as the
// wizard says it (a sentence of its own), then the planner's lines.
func (v *discoverView) showBreakdown(level string, p *fit.Plan) {
	line, _ := verdictLine(*p)
	l := widget.NewLabel(line + "\n\n" + strings.Join(p.Explain(), "\n"))
	l.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustom("How "+level+" fits this computer", "Close", container.NewVScroll(l), v.u.win)
	d.Resize(fyne.NewSize(640, 460))
	d.Show()
}

// fetchRepo reads a repository's metadata, card and files and works out
// the quant table against this computer's memory (what the library holds
// of it is levelStatus's, kept current by refreshLevels).
func (v *discoverView) fetchRepo(client *hub.Client, id string) repoDetails {
	ctx, cancel := context.WithTimeout(context.Background(), hubTimeout)
	defer cancel()
	var d repoDetails
	d.info, d.err = client.Model(ctx, id)
	if d.err != nil {
		return d
	}
	rev := d.info.SHA
	if rev == "" {
		rev = "main"
	}
	d.info.SHA = rev
	files, err := client.Files(ctx, id, rev)
	if err != nil {
		d.err = err
		return d
	}
	d.card, _ = client.Card(ctx, id) // the summary is a nicety
	d.levels = hub.Group(files)
	for _, f := range files {
		if strings.HasSuffix(strings.ToLower(f.Path), ".gguf") && hub.IsMMProj(f.Path) {
			d.mmproj = append(d.mmproj, f)
		}
	}
	if m, err := v.memory(); err == nil && m.Total > 0 {
		d.mem, d.memKnown = m, true
	}
	// Before the headers are read, the planner's size-based fallback
	// answers (planLevels replaces it level by level).
	m, _ := v.u.core.MachineKnown()
	rec, ok, why := hub.RecommendReason(d.levels, int64(d.mem.Available), fit.SizeNeed, fit.LevelRunnable, fastOn(m.Bandwidth))
	if d.memKnown && ok {
		d.why = "Recommended: " + why
	}
	for _, q := range d.levels {
		r := quantRow{Name: q.Name, Size: q.Size, Shards: q.Shards, Incomplete: q.Incomplete,
			HasVerdict: d.memKnown, Recommended: d.memKnown && ok && q.Name == rec.Name && !q.Incomplete}
		var re *model.RunError
		if errors.As(fit.LevelRunnable(q.Name), &re) {
			r.CannotRun = re.Reason
		}
		if d.memKnown {
			r.Verdict = fit.PlanSize(q.Size, hardware.Machine{Memory: d.mem}).Verdict
		}
		d.rows = append(d.rows, r)
	}
	return d
}

// showRepo puts a repository's details on screen.
func (v *discoverView) showRepo(client *hub.Client, id string, d repoDetails) {
	errText := ""
	if d.err != nil {
		errText = "Saji could not read this model's files. " + hubMessage(d.err, client, id)
		v.detailInfo.SetText("")
		v.setNote(errText, true)
	} else {
		v.commit = d.info.SHA
		v.detailInfo.SetText(repoInfoLine(d.info, v.now()))
		if card := cardText(d.info, d.card); card != "" {
			v.detailCard.SetText(card)
			v.detailCard.Show()
		}
		if l, err := url.Parse(strings.TrimRight(client.Endpoint, "/") + "/" + id); err == nil {
			v.detailLink.SetURL(l)
			v.detailLink.Show()
		}
		if d.info.Gated {
			v.setNote("This model is gated: its authors ask everyone to accept their licence before downloading. "+
				"Accept it on the model's page while signed in to Hugging Face, then add an access token of that "+
				"account with Access token... above (or set HF_TOKEN in the environment).", false)
		}
	}
	names := make([]string, len(d.mmproj))
	for i, f := range d.mmproj {
		names[i] = path.Base(f.Path)
	}
	v.mu.Lock()
	v.snap.Levels = append([]quantRow(nil), d.rows...)
	v.mu.Unlock()
	if d.err == nil {
		v.fillQuantTable(d)
	}
	v.detailBox.Refresh()
	v.mu.Lock()
	v.snap.RepoLoaded, v.snap.RepoError, v.snap.Gated, v.snap.MMProj = true, errText, d.info.Gated, names
	v.mu.Unlock()
}

// repoInfoLine is a repository's line of facts.
func repoInfoLine(m hub.ModelInfo, now time.Time) string {
	var parts []string
	if g := m.GGUF; g != nil {
		if g.Architecture != "" {
			parts = append(parts, g.Architecture)
		}
		if g.Parameters > 0 {
			parts = append(parts, humanCount(g.Parameters)+" parameters")
		}
		if g.ContextLength > 0 {
			parts = append(parts, groupDigits(int64(g.ContextLength))+"-token context")
		}
	}
	parts = append(parts, plural(m.Downloads, "download", "downloads"), plural(m.Likes, "like", "likes"))
	if !m.LastModified.IsZero() {
		parts = append(parts, "updated "+timeAgo(m.LastModified, now))
	}
	return strings.Join(parts, " · ")
}

// cardText is the card's summary with the licence and base model.
func cardText(m hub.ModelInfo, c hub.Card) string {
	var lines []string
	if c.Summary != "" {
		lines = append(lines, c.Summary)
	}
	var facts []string
	lic := m.License
	if lic == "" {
		lic = c.License
	}
	if lic != "" {
		facts = append(facts, "Licence: "+lic)
	}
	base := m.BaseModel
	if base == "" {
		base = c.BaseModel
	}
	if base != "" {
		facts = append(facts, "Based on "+base)
	}
	if len(facts) > 0 {
		lines = append(lines, strings.Join(facts, " · "))
	}
	return strings.Join(lines, "\n\n")
}

// verdictText names a verdict for the quant table, with its colour.
func verdictText(v fit.Verdict) (string, widget.Importance) {
	switch v.Word() {
	case "fits":
		return "Fits", widget.SuccessImportance
	case "tight":
		return "Tight", widget.WarningImportance
	}
	return "Too big", widget.DangerImportance
}

// fillQuantTable builds the quant table: per level a row with its name
// (and the Recommended mark), size, fit in one short line with the plan's
// detail behind an info button, and one button whose action levelStatus
// decides (refreshLevels keeps it current).
func (v *discoverView) fillQuantTable(d repoDetails) {
	v.quantTable.RemoveAll()
	v.fitCells = make([]*fitCell, len(d.levels))
	v.levels, v.details = d.levels, d
	if len(d.levels) == 0 {
		v.setNote("This repository has no GGUF model files Saji can download.", false)
		return
	}
	for i, q := range d.levels {
		r := d.rows[i]
		name := widget.NewLabelWithStyle(q.Name, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		name.Truncation = fyne.TextTruncateEllipsis
		size := units.Bytes(q.Size)
		switch {
		case q.Incomplete:
			size += fmt.Sprintf(" (%d of %d files)", len(q.Files), q.Shards)
		case q.Shards > 1:
			size += fmt.Sprintf(" (%d files)", q.Shards)
		}
		sizeL := widget.NewLabel(size)
		sizeL.SizeName = theme.SizeNameCaptionText
		fit := widget.NewLabel("Unknown")
		fit.Importance = widget.LowImportance
		if r.HasVerdict {
			fit.Text, fit.Importance = verdictText(r.Verdict)
		}
		if r.CannotRun != "" {
			fit.Text, fit.Importance = cannotRunText, widget.DangerImportance
		}
		fit.Truncation = fyne.TextTruncateEllipsis
		cell := &fitCell{name: name, label: fit}
		cell.details = widget.NewButtonWithIcon("", theme.InfoIcon(), func() {
			if cell.plan != nil {
				v.showBreakdown(q.Name, cell.plan)
			}
		})
		cell.details.Importance = widget.LowImportance
		cell.details.Hide()
		mark := widget.NewLabel("Recommended")
		mark.Importance = widget.HighImportance
		mark.TextStyle.Bold = true
		setVisible(mark, r.Recommended)
		btn := widget.NewButton("Download", func() { v.levelAction(i) })
		cell.mark, cell.download = mark, btn
		v.fitCells[i] = cell
		left := container.NewGridWrap(fyne.NewSize(110, name.MinSize().Height), name)
		info := container.NewVBox(container.NewHBox(sizeL, mark), container.NewBorder(nil, nil, nil, cell.details, fit))
		v.quantTable.Add(container.NewBorder(nil, widget.NewSeparator(), left, container.NewCenter(btn), info))
	}
	v.refreshLevels()
	v.showRecommendation()
	why := "The memory verdict compares each file with the memory this computer has free now (Tight: it fits once other programs close)."
	if d.memKnown {
		why = fmt.Sprintf("The memory verdict compares each file with the %s this computer has free now, of %s (Tight: it fits once other programs close).",
			units.Bytes(int64(d.mem.Available)), units.Bytes(int64(d.mem.Total)))
	}
	why += fmt.Sprintf(" Once a file's header is read, the verdict is Saji's plan for a %s-token context with the speed to expect; "+
		"the i button shows how it comes about.", contextText(v.u.core.Settings().Context))
	note := widget.NewLabel(why)
	note.Wrapping = fyne.TextWrapWord
	note.SizeName = theme.SizeNameCaptionText
	note.Importance = widget.LowImportance
	v.quantTable.Add(note)
	if len(d.mmproj) > 0 {
		var names []string
		for _, f := range d.mmproj {
			names = append(names, path.Base(f.Path)+" ("+units.Bytes(f.Size)+")")
		}
		pick, _ := hub.PickMMProj(d.mmproj)
		v.mmprojNote.SetText("This repository also has an image projector for vision input (" + strings.Join(names, ", ") +
			"). Saji downloads " + path.Base(pick.Path) + " with the model, so that it can see the pictures of a chat.")
		v.mmprojNote.Show()
	}
}

// refreshLevels sets every level's button from levelStatus: the download
// manager's jobs and the library's sources as they are now. It runs on the
// UI goroutine on every change of either.
func (v *discoverView) refreshLevels() {
	if len(v.levels) == 0 || len(v.fitCells) != len(v.levels) {
		return
	}
	jobs := v.levelJobs()
	lib := v.u.core.Library()
	sources := lib.Sources()
	folder := map[string]int64{}
	for _, q := range v.levels {
		for _, f := range q.Files {
			base := path.Base(f.Path)
			if st, err := os.Stat(filepath.Join(lib.Dir(), base)); err == nil {
				folder[base] = st.Size()
			}
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	for i, q := range v.levels {
		c := v.fitCells[i]
		r := v.details.rows[i]
		c.state = levelStatus(q, v.repo, v.commit, r.CannotRun != "", q.Incomplete, jobs, sources, folder)
		text, enabled := levelAction(c.state)
		c.download.SetText(text)
		c.download.Importance = widget.MediumImportance
		if enabled && r.Recommended && c.state == levelDownload {
			c.download.Importance = widget.HighImportance
		}
		if enabled {
			c.download.Enable()
		} else {
			c.download.Disable()
		}
		c.download.Refresh()
		if i < len(v.snap.Levels) {
			l := &v.snap.Levels[i]
			l.Action, l.Enabled, l.InLibrary = text, enabled, c.state == levelInLibrary
		}
	}
}

// levelJobs lists the download manager's jobs for levelStatus (none while
// the manager is not open).
func (v *discoverView) levelJobs() []levelJob {
	m := v.u.core.openDownloads()
	if m == nil {
		return nil
	}
	var out []levelJob
	for _, j := range m.Jobs() {
		meta := j.Request().Meta
		out = append(out, levelJob{Repo: meta["repo"], File: meta["file"], Commit: meta["commit"], State: j.Progress().State})
	}
	return out
}

// levelAction does what level i's button offers: download it, or resume
// (retry) its paused (failed) downloads.
func (v *discoverView) levelAction(i int) {
	if i >= len(v.levels) || i >= len(v.fitCells) {
		return
	}
	q := v.levels[i]
	switch v.fitCells[i].state {
	case levelDownload:
		v.download(q)
	case levelPaused, levelFailed:
		m := v.u.core.openDownloads()
		if m == nil {
			return
		}
		for _, j := range m.Jobs() {
			meta := j.Request().Meta
			st := j.Progress().State
			if meta["repo"] == v.repo && (st == download.Paused || st == download.Failed) &&
				slices.ContainsFunc(q.Files, func(f hub.File) bool { return f.Path == meta["file"] }) {
				v.resumeJob(j)
			}
		}
	}
}

// setNote shows text above the quant table ("" hides it); danger colours
// it as an error.
func (v *discoverView) setNote(text string, danger bool) {
	v.detailNote.Importance = widget.MediumImportance
	if danger {
		v.detailNote.Importance = widget.DangerImportance
	}
	v.detailNote.SetText(text)
	setVisible(v.detailNote, text != "")
	v.mu.Lock()
	v.snap.Note, v.snap.NoteError = text, danger
	v.mu.Unlock()
}
