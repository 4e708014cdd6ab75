package app

// The Discover view: search Hugging Face for GGUF models, see a
// repository's quantization levels with their size, whether each fits
// this computer's memory and which one Saji recommends, download one into
// the library, and follow the downloads (also those an earlier run left
// unfinished) with pause, resume, cancel and retry.
//
// The network is touched only once the view is first shown: the app
// starts without it. The endpoint is HF_ENDPOINT's (hub.NewClient); the
// access token for gated models is the one saved in this view's "Access
// token" dialog (the app's preferences), else HF_TOKEN.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
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
)

// prefHFToken is the preference that keeps the Hugging Face access token
// typed into the view.
const prefHFToken = "hf_token"

// hubTimeout bounds one search or one repository's listing.
const hubTimeout = 60 * time.Second

// searchLimit is the most results a search lists.
const searchLimit = 50

// sortChoices are the sort picker's labels and the hub's sort keys.
var sortChoices = []struct{ label, key string }{
	{"Most downloaded", "downloads"},
	{"Most liked", "likes"},
	{"Recently updated", "updated"},
	{"Trending", "trending"},
}

// sortKey returns the hub's sort key for a picker label.
func sortKey(label string) string {
	for _, c := range sortChoices {
		if c.label == label {
			return c.key
		}
	}
	return "downloads"
}

// quantRow is one row of the quant table, as tests read it.
type quantRow struct {
	Name        string
	Size        int64
	Shards      int
	Incomplete  bool
	Verdict     fit.Verdict
	HasVerdict  bool // the memory could be read
	Recommended bool
	InLibrary   bool // every file of the level is in the library folder
	// Fit is the fit planner's verdict ("fits in RAM, up to 32K context,
	// ~9 tok/s") once the level's header was read, and Plan the plan
	// behind it; until then (or when the header cannot be read) the
	// column shows Verdict, the planner's size-based fallback.
	Fit  string
	Plan *fit.Plan
}

// jobRow is one row of the downloads list, as tests read it.
type jobRow struct {
	State       download.State
	Done, Total int64
	Error       string // the plain message of a failed job
	Quant, File string
}

// discoverSnapshot is what the view shows, kept under mu for tests (the
// test driver runs fyne.Do on the calling goroutine, so tests must not
// read the widgets while background work may still change them).
type discoverSnapshot struct {
	Searches    int      // searches that ended
	Results     []string // the ids listed
	SearchError string
	Repo        string // the repository shown ("" for none)
	RepoLoaded  bool   // its details arrived (or failed)
	RepoError   string
	Gated       bool
	Levels      []quantRow
	MMProj      []string
	Note        string // the last message about a download's start
	NoteError   bool
	Jobs        map[string]jobRow // by job ID
	Finished    int               // jobs seen done since the view opened
}

// discoverView is the Discover tab. Its widgets and the fields marked UI
// belong to the UI goroutine; what goroutines share is under mu.
type discoverView struct {
	u       *ui
	content fyne.CanvasObject

	query       *widget.Entry
	sortSel     *widget.Select
	searchBtn   *widget.Button
	tokenBtn    *widget.Button
	results     []hub.ModelSummary // UI: as listed
	resultsList *widget.List
	resultsNote *widget.Label

	detailBox   *fyne.Container
	detailTitle *widget.Label
	detailInfo  *widget.Label
	detailCard  *widget.Label
	detailLink  *widget.Hyperlink
	detailNote  *widget.Label // gated repositories, errors, the outcome of Download
	quantTable  *fyne.Container
	mmprojNote  *widget.Label
	repo        string     // UI: the repository shown
	fitCells    []*fitCell // UI: the quant table's verdict cells, by level
	commit      string     // UI: its commit, downloads are pinned to it

	jobsBox  *fyne.Container
	jobsNote *widget.Label
	rows     map[string]*jobRowView // UI: by job ID

	// memory reads the machine's memory (tests fake it).
	memory func() (hardware.Memory, error)
	// now is the clock of the "3 days ago" texts.
	now func() time.Time

	// uiMu serialises the view's updates that background work posts
	// through do: the test driver runs fyne.Do at once on the calling
	// goroutine, so two goroutines would otherwise draw at the same time.
	// Tests take it (locked) to tap buttons while downloads run.
	uiMu     sync.Mutex
	busy     sync.WaitGroup // searches and listings in flight
	watchers sync.WaitGroup // the goroutines that follow jobs

	mu        sync.Mutex
	shown     bool // the view has been shown (the first search ran)
	closed    bool
	searchSeq int
	repoSeq   int
	watched   map[*download.Job]bool
	latest    map[string]download.Progress // the newest progress per job ID
	dirty     map[string]bool
	pending   bool // a flush of dirty is queued
	snap      discoverSnapshot
}

// newDiscoverView builds the view; it reaches the network only once shown.
func newDiscoverView(u *ui) *discoverView {
	v := &discoverView{
		u:       u,
		rows:    map[string]*jobRowView{},
		memory:  hardware.ReadMemory,
		now:     time.Now,
		watched: map[*download.Job]bool{},
		latest:  map[string]download.Progress{},
		dirty:   map[string]bool{},
	}
	v.snap.Jobs = map[string]jobRow{}

	title := widget.NewLabelWithStyle("Discover", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.SizeName = theme.SizeNameSubHeadingText
	hint := widget.NewLabel("Models in GGUF format from Hugging Face. Pick one to see which of its files fit this computer.")
	hint.SizeName = theme.SizeNameCaptionText
	hint.Importance = widget.LowImportance
	hint.Wrapping = fyne.TextWrapWord
	v.tokenBtn = widget.NewButtonWithIcon("Access token...", theme.AccountIcon(), v.editToken)

	v.query = widget.NewEntry()
	v.query.SetPlaceHolder("Search models, e.g. qwen2.5 1.5b instruct")
	v.query.OnSubmitted = func(string) { v.search() }
	labels := make([]string, len(sortChoices))
	for i, c := range sortChoices {
		labels[i] = c.label
	}
	v.sortSel = widget.NewSelect(labels, func(string) {
		if v.wasShown() {
			v.search()
		}
	})
	v.sortSel.SetSelected(sortChoices[0].label)
	v.searchBtn = widget.NewButtonWithIcon("Search", theme.SearchIcon(), v.search)
	v.searchBtn.Importance = widget.HighImportance
	searchRow := container.NewBorder(nil, nil, nil, container.NewHBox(v.sortSel, v.searchBtn), v.query)

	v.resultsNote = widget.NewLabel("")
	v.resultsNote.Wrapping = fyne.TextWrapWord
	v.resultsNote.Hide()
	v.resultsList = widget.NewList(func() int { return len(v.results) }, newResultRow, func(i widget.ListItemID, o fyne.CanvasObject) {
		if i >= 0 && i < len(v.results) {
			v.setResultRow(o, v.results[i])
		}
	})
	v.resultsList.OnSelected = func(i widget.ListItemID) {
		if i >= 0 && i < len(v.results) {
			v.openRepo(v.results[i].ID)
		}
	}
	left := container.NewBorder(v.resultsNote, nil, nil, nil, v.resultsList)

	v.detailTitle = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	v.detailTitle.Wrapping = fyne.TextWrapBreak
	v.detailInfo = widget.NewLabel("")
	v.detailInfo.Wrapping = fyne.TextWrapWord
	v.detailCard = widget.NewLabel("")
	v.detailCard.Wrapping = fyne.TextWrapWord
	v.detailLink = widget.NewHyperlink("Open on Hugging Face", nil)
	v.detailLink.Hide()
	v.detailNote = widget.NewLabel("")
	v.detailNote.Wrapping = fyne.TextWrapWord
	v.detailNote.Hide()
	v.quantTable = container.NewVBox()
	v.mmprojNote = widget.NewLabel("")
	v.mmprojNote.Wrapping = fyne.TextWrapWord
	v.mmprojNote.Importance = widget.LowImportance
	v.mmprojNote.Hide()
	placeholder := widget.NewLabel("Pick a model on the left to see its files, their sizes, and which of them fit this computer.")
	placeholder.Wrapping = fyne.TextWrapWord
	placeholder.Importance = widget.LowImportance
	v.detailBox = container.NewVBox(placeholder)
	right := container.NewVScroll(container.NewPadded(v.detailBox))

	split := container.NewHSplit(left, right)
	split.Offset = 0.38

	v.jobsNote = widget.NewLabel("No downloads.")
	v.jobsNote.Importance = widget.LowImportance
	v.jobsBox = container.NewVBox(v.jobsNote)
	dlTitle := widget.NewLabelWithStyle("Downloads", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	downloads := container.NewBorder(container.NewVBox(widget.NewSeparator(), dlTitle), nil, nil, nil,
		container.NewVScroll(v.jobsBox))
	body := container.NewVSplit(split, downloads)
	body.Offset = 0.68

	top := container.NewVBox(container.NewBorder(nil, nil, nil, v.tokenBtn, title), hint, searchRow)
	v.content = newVisibilityWatch(container.NewPadded(container.NewBorder(top, nil, nil, nil, body)), v.visibilityChanged)
	return v
}

// do runs f on the UI goroutine, one update of this view at a time.
// f must not call do itself.
func (v *discoverView) do(f func()) {
	fyne.Do(func() {
		v.uiMu.Lock()
		defer v.uiMu.Unlock()
		f()
	})
}

// locked runs f while no background update of the view runs (tests).
func (v *discoverView) locked(f func()) {
	v.uiMu.Lock()
	defer v.uiMu.Unlock()
	f()
}

// snapshot returns a copy of what the view shows.
func (v *discoverView) snapshot() discoverSnapshot {
	v.mu.Lock()
	defer v.mu.Unlock()
	s := v.snap
	s.Results = append([]string(nil), s.Results...)
	s.Levels = append([]quantRow(nil), s.Levels...)
	s.MMProj = append([]string(nil), s.MMProj...)
	s.Jobs = make(map[string]jobRow, len(v.snap.Jobs))
	for k, r := range v.snap.Jobs {
		s.Jobs[k] = r
	}
	return s
}

// wait blocks until the searches and listings started so far have ended
// and shown their outcome.
func (v *discoverView) wait() { v.busy.Wait() }

// wasShown says whether the view has been shown.
func (v *discoverView) wasShown() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.shown
}

// visibilityChanged runs the first search and lists the downloads the
// first time the tab shows.
func (v *discoverView) visibilityChanged(visible bool) {
	if !visible {
		return
	}
	v.mu.Lock()
	first := !v.shown && !v.closed
	v.shown = true
	v.mu.Unlock()
	if first {
		v.search()
		v.loadDownloads()
	}
}

// close stops following the downloads and closes the download manager
// (their state stays on disk for the next run). The view draws nothing
// after it returns.
func (v *discoverView) close() {
	v.mu.Lock()
	v.closed = true
	v.mu.Unlock()
	v.u.core.closeDownloads() // ends every subscription
	v.watchers.Wait()
}

// client returns a hub client for HF_ENDPOINT with the token saved in the
// preferences, else HF_TOKEN's.
func (v *discoverView) client() *hub.Client {
	c := hub.NewClient()
	if t := v.savedToken(); t != "" {
		c.Token = t
	}
	return c
}

// savedToken is the access token saved in the preferences ("" for none).
func (v *discoverView) savedToken() string {
	if p := v.u.core.prefs; p != nil {
		return strings.TrimSpace(p.String(prefHFToken))
	}
	return ""
}

// editToken asks for the Hugging Face access token that gated models need.
func (v *discoverView) editToken() {
	entry := widget.NewPasswordEntry()
	entry.SetPlaceHolder("hf_...")
	entry.SetText(v.savedToken())
	help := widget.NewLabel("Some models are gated: their authors ask you to accept a licence on the model's " +
		"page on Hugging Face first. After accepting it, create an access token (Settings > Access Tokens on " +
		"huggingface.co, \"Read\" is enough) and paste it here. Saji keeps it in its preferences on this " +
		"computer and sends it to Hugging Face only. Leave it blank to use HF_TOKEN from the environment.")
	help.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustomConfirm("Hugging Face access token", "Save", "Cancel",
		container.NewVBox(help, entry), func(save bool) {
			if !save || v.u.core.prefs == nil {
				return
			}
			v.u.core.prefs.SetString(prefHFToken, strings.TrimSpace(entry.Text))
		}, v.u.win)
	d.Resize(fyne.NewSize(560, 320))
	d.Show()
}

// search runs the query off the UI goroutine and lists the results.
func (v *discoverView) search() {
	opts := hub.SearchOptions{
		Query:    strings.TrimSpace(v.query.Text),
		Sort:     sortKey(v.sortSel.Selected),
		Limit:    searchLimit,
		GGUFOnly: true,
	}
	v.mu.Lock()
	v.searchSeq++
	seq := v.searchSeq
	v.mu.Unlock()
	v.resultsNote.Importance = widget.LowImportance
	v.resultsNote.SetText("Searching Hugging Face...")
	v.resultsNote.Show()
	client := v.client()
	v.busy.Add(1)
	go func() {
		defer v.busy.Done()
		ctx, cancel := context.WithTimeout(context.Background(), hubTimeout)
		defer cancel()
		res, err := client.Search(ctx, opts)
		msg := ""
		if err != nil {
			msg = "Saji could not search Hugging Face. " + hubMessage(err, client, "")
		}
		v.do(func() {
			v.mu.Lock()
			stale := seq != v.searchSeq
			v.mu.Unlock()
			if stale {
				return
			}
			switch {
			case err != nil:
				v.resultsNote.Importance = widget.DangerImportance
				v.resultsNote.SetText(msg)
				v.resultsNote.Show()
			case len(res) == 0:
				v.resultsNote.Importance = widget.LowImportance
				v.resultsNote.SetText("No GGUF models match \"" + opts.Query + "\". Try fewer or other words.")
				v.resultsNote.Show()
			default:
				v.resultsNote.Hide()
			}
			if err == nil {
				v.results = res
				v.resultsList.UnselectAll()
				v.resultsList.Refresh()
				v.resultsList.ScrollToTop()
			}
			ids := make([]string, len(v.results))
			for i, r := range v.results {
				ids[i] = r.ID
			}
			v.mu.Lock()
			v.snap.Searches++
			v.snap.Results, v.snap.SearchError = ids, msg
			v.mu.Unlock()
		})
	}()
}

// newResultRow is the results list's row template: the id and a gated
// mark, then the figures.
func newResultRow() fyne.CanvasObject {
	name := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	name.Truncation = fyne.TextTruncateEllipsis
	gated := widget.NewLabel("Gated")
	gated.Importance = widget.WarningImportance
	details := widget.NewLabel("")
	details.Truncation = fyne.TextTruncateEllipsis
	details.SizeName = theme.SizeNameCaptionText
	return container.NewVBox(container.NewBorder(nil, nil, nil, gated, name), details)
}

// setResultRow fills a row made by newResultRow with m.
func (v *discoverView) setResultRow(o fyne.CanvasObject, m hub.ModelSummary) {
	box := o.(*fyne.Container)
	head := box.Objects[0].(*fyne.Container)
	head.Objects[0].(*widget.Label).SetText(m.ID)
	setVisible(head.Objects[1], m.Gated)
	box.Objects[1].(*widget.Label).SetText(resultDetails(m, v.now()))
}

// resultDetails is a search result's line of figures.
func resultDetails(m hub.ModelSummary, now time.Time) string {
	parts := []string{
		plural(m.Downloads, "download", "downloads"),
		plural(m.Likes, "like", "likes"),
	}
	if !m.LastModified.IsZero() {
		parts = append(parts, "updated "+timeAgo(m.LastModified, now))
	}
	return strings.Join(parts, " · ")
}

// plural writes n with the singular or plural noun: "1 like", "12,345
// downloads".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return groupDigits(int64(n)) + " " + many
}

// timeAgo says how long before now t was: "just now", "5 minutes ago",
// "yesterday", "3 days ago", "2 months ago", "4 years ago".
func timeAgo(t, now time.Time) string {
	d := now.Sub(t)
	day := 24 * time.Hour
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute", "minutes") + " ago"
	case d < day:
		return plural(int(d/time.Hour), "hour", "hours") + " ago"
	case d < 2*day:
		return "yesterday"
	case d < 60*day:
		return plural(int(d/day), "day", "days") + " ago"
	case d < 365*day:
		return plural(int(d/(30*day)), "month", "months") + " ago"
	}
	return plural(int(d/(365*day)), "year", "years") + " ago"
}

// repoDetails is what openRepo fetches about a repository.
type repoDetails struct {
	info     hub.ModelInfo
	card     hub.Card
	levels   []hub.Quant
	mmproj   []hub.File
	rows     []quantRow
	mem      hardware.Memory
	memKnown bool
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
	v.mmprojNote.Hide()
	v.detailBox.Objects = []fyne.CanvasObject{v.detailTitle, v.detailInfo, v.detailLink, v.detailCard,
		v.detailNote, v.quantTable, v.mmprojNote}
	v.detailBox.Refresh()

	client := v.client()
	dir := v.u.core.Library().Dir()
	v.busy.Add(1)
	go func() {
		defer v.busy.Done()
		d := v.fetchRepo(client, id, dir)
		v.do(func() {
			v.mu.Lock()
			stale := seq != v.repoSeq
			v.mu.Unlock()
			if !stale {
				v.showRepo(client, id, d)
			}
		})
		v.planLevels(client, id, seq, d)
	}()
}

// fitCell is the quant table's verdict cell of a level: the plain RAM
// check at first, the fit planner's verdict once the level's header has
// been read, with a button that shows the plan's breakdown.
type fitCell struct {
	label   *widget.Label
	details *widget.Button
	plan    *fit.Plan
}

// planConcurrency is how many levels' headers are read at once.
const planConcurrency = 3

// planLevels reads the header of each level's first file with Range
// requests (a few megabytes at most), plans it on this machine (one
// shared detection; the memory as fetchRepo read it) for the context of
// the settings, and puts the verdict in the quant table. A level whose
// header cannot be read keeps the size-based verdict (fit.PlanSize).
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
			if err != nil {
				v.u.core.log.Debug("app: reading a level's header", "repo", id, "level", q.Name, "err", err)
				return
			}
			p, err := fit.PlanFor(shape, machine, req)
			if err != nil {
				v.u.core.log.Debug("app: planning a level", "repo", id, "level", q.Name, "err", err)
				return
			}
			v.do(func() {
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
	text, imp := verdictLine(p)
	c.label.Text, c.label.Importance = text, imp
	c.label.Refresh()
	c.plan = &p
	c.details.Show()
	v.mu.Lock()
	if i < len(v.snap.Levels) {
		v.snap.Levels[i].Fit, v.snap.Levels[i].Plan = text, &p
	}
	v.mu.Unlock()
}

// showBreakdown shows how a level's plan comes about.
func (v *discoverView) showBreakdown(level string, p *fit.Plan) {
	l := widget.NewLabel(strings.Join(p.Explain(), "\n"))
	l.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustom("How "+level+" fits this computer", "Close", container.NewVScroll(l), v.u.win)
	d.Resize(fyne.NewSize(640, 460))
	d.Show()
}

// fetchRepo reads a repository's metadata, card and files and works out
// the quant table against this computer's memory and the library folder
// dir.
func (v *discoverView) fetchRepo(client *hub.Client, id, dir string) repoDetails {
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
	rec, ok := hub.Recommend(d.levels, int64(d.mem.Available), func(q hub.Quant) int64 { return fit.SizeNeed(q.Size) })
	for _, q := range d.levels {
		r := quantRow{Name: q.Name, Size: q.Size, Shards: q.Shards, Incomplete: q.Incomplete,
			HasVerdict: d.memKnown, Recommended: d.memKnown && ok && q.Name == rec.Name && !q.Incomplete}
		if d.memKnown {
			r.Verdict = fit.PlanSize(q.Size, hardware.Machine{Memory: d.mem}).Verdict
		}
		r.InLibrary = len(q.Files) > 0
		for _, f := range q.Files {
			if st, err := os.Stat(filepath.Join(dir, path.Base(f.Path))); err != nil || st.Size() != f.Size {
				r.InLibrary = false
			}
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
		v.fillQuantTable(d)
	}
	names := make([]string, len(d.mmproj))
	for i, f := range d.mmproj {
		names[i] = path.Base(f.Path)
	}
	v.detailBox.Refresh()
	v.mu.Lock()
	v.snap.RepoLoaded, v.snap.RepoError, v.snap.Levels, v.snap.Gated, v.snap.MMProj = true, errText, d.rows, d.info.Gated, names
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

// fillQuantTable builds the quant table: level, size, files, fit,
// recommendation, and a Download button per level.
func (v *discoverView) fillQuantTable(d repoDetails) {
	v.quantTable.RemoveAll()
	v.fitCells = make([]*fitCell, len(d.levels))
	if len(d.levels) == 0 {
		v.setNote("This repository has no GGUF model files Saji can download.", false)
		return
	}
	head := func(s string) fyne.CanvasObject {
		l := widget.NewLabelWithStyle(s, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		return l
	}
	v.quantTable.Add(container.NewGridWithColumns(5, head("Level"), head("Size"), head("Memory"), head(""), head("")))
	for i, q := range d.levels {
		r := d.rows[i]
		name := widget.NewLabel(q.Name)
		name.Truncation = fyne.TextTruncateEllipsis
		size := humanBytes(q.Size)
		switch {
		case q.Incomplete:
			size += fmt.Sprintf(" (%d of %d files)", len(q.Files), q.Shards)
		case q.Shards > 1:
			size += fmt.Sprintf(" (%d files)", q.Shards)
		}
		sizeL := widget.NewLabel(size)
		sizeL.Truncation = fyne.TextTruncateEllipsis
		fit := widget.NewLabel("Unknown")
		fit.Importance = widget.LowImportance
		if r.HasVerdict {
			fit.Text, fit.Importance = verdictText(r.Verdict)
			fit.Refresh()
		}
		fit.Wrapping = fyne.TextWrapWord
		cell := &fitCell{label: fit}
		cell.details = widget.NewButtonWithIcon("", theme.InfoIcon(), func() {
			if cell.plan != nil {
				v.showBreakdown(q.Name, cell.plan)
			}
		})
		cell.details.Hide()
		v.fitCells[i] = cell
		mark := widget.NewLabel("")
		if r.Recommended {
			mark.SetText("Recommended")
			mark.Importance = widget.HighImportance
			mark.TextStyle.Bold = true
			mark.Refresh()
		}
		btn := widget.NewButtonWithIcon("Download", theme.DownloadIcon(), func() { v.download(q) })
		switch {
		case q.Incomplete:
			btn.SetText("Incomplete")
			btn.Disable()
		case r.InLibrary:
			btn.SetText("In library")
			btn.Disable()
		case r.Recommended:
			btn.Importance = widget.HighImportance
		}
		v.quantTable.Add(container.NewGridWithColumns(5, name, sizeL, container.NewBorder(nil, nil, nil, cell.details, fit), mark, btn))
	}
	why := "Memory: whether the model fits the memory this computer has free now (Tight: it fits once other programs close)."
	if d.memKnown {
		why = fmt.Sprintf("Memory: whether the model fits the %s this computer has free now, of %s (Tight: it fits once other programs close).",
			memoryText(d.mem.Available), memoryText(d.mem.Total))
	}
	why += fmt.Sprintf(" Once each file's header is read, Saji plans it for a %s-token context, one conversation at a time: "+
		"the verdict, the longest context that fits and the speed to expect; the i button shows the numbers.",
		contextText(v.u.core.Settings().Context))
	note := widget.NewLabel(why)
	note.Wrapping = fyne.TextWrapWord
	note.SizeName = theme.SizeNameCaptionText
	note.Importance = widget.LowImportance
	v.quantTable.Add(note)
	if len(d.mmproj) > 0 {
		var names []string
		for _, f := range d.mmproj {
			names = append(names, path.Base(f.Path)+" ("+humanBytes(f.Size)+")")
		}
		v.mmprojNote.SetText("This repository also has an image projector for vision input (" + strings.Join(names, ", ") +
			"). Saji downloads the model itself; the projector is not needed for chat.")
		v.mmprojNote.Show()
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

// download starts the download of every file of the level q of the
// repository shown into the library folder.
func (v *discoverView) download(q hub.Quant) {
	repo, commit := v.repo, v.commit
	if repo == "" || len(q.Files) == 0 {
		return
	}
	dir := v.u.core.Library().Dir()
	client := v.client()
	v.setNote("Starting the download of "+q.Name+"...", false)
	v.busy.Add(1)
	go func() {
		defer v.busy.Done()
		jobs, err := v.startLevel(client, repo, commit, dir, q)
		v.do(func() {
			for _, j := range jobs {
				v.track(j)
			}
			if err != nil {
				v.setNote("Saji could not download "+q.Name+". "+err.Error(), true)
				return
			}
			v.setNote(fmt.Sprintf("Downloading %s (%s) into the library. Follow it under Downloads below.", q.Name, humanBytes(q.Size)), false)
		})
	}()
}

// startLevel asks the hub about the level's first file (a gated or
// missing repository says so here, plainly) and queues a download per
// file. The error's text is for people.
func (v *discoverView) startLevel(client *hub.Client, repo, commit, dir string, q hub.Quant) ([]*download.Job, error) {
	ctx, cancel := context.WithTimeout(context.Background(), hubTimeout)
	defer cancel()
	for _, f := range q.Files {
		dest := filepath.Join(dir, path.Base(f.Path))
		if _, err := os.Stat(dest); err == nil {
			return nil, errors.New("A file called " + path.Base(f.Path) + " is already in the library folder.")
		}
	}
	if _, err := client.Stat(ctx, repo, commit, q.Files[0].Path); err != nil {
		return nil, errors.New(hubMessage(err, client, repo))
	}
	m, err := v.u.core.Downloads()
	if err != nil {
		return nil, errors.New(userMessage(err))
	}
	var jobs []*download.Job
	for _, f := range q.Files {
		j, err := m.Start(download.Request{
			ID:     repo + "/" + f.Path + "@" + commit,
			URL:    client.FileURL(repo, commit, f.Path),
			Header: client.Header(),
			Size:   f.Size,
			SHA256: f.SHA256,
			Dest:   filepath.Join(dir, path.Base(f.Path)),
			Meta:   map[string]string{"repo": repo, "quant": q.Name, "file": f.Path, "commit": commit},
		})
		if err != nil {
			return jobs, errors.New(downloadErrorText(err, client))
		}
		jobs = append(jobs, j)
	}
	return jobs, nil
}

// loadDownloads lists the download manager's jobs, those an earlier run
// left unfinished included (they are restored paused).
func (v *discoverView) loadDownloads() {
	v.busy.Add(1)
	go func() {
		defer v.busy.Done()
		m, err := v.u.core.Downloads()
		var jobs []*download.Job
		if err == nil {
			jobs = m.Jobs()
		}
		v.do(func() {
			if err != nil {
				v.jobsNote.SetText("Saji could not open the list of downloads. " + userMessage(err))
				v.jobsNote.Importance = widget.DangerImportance
				v.jobsNote.Show()
				return
			}
			for _, j := range jobs {
				v.track(j)
			}
		})
	}()
}

// track shows the job j in the downloads list (replacing a row of the
// same ID from a manager since closed) and follows its progress. It runs
// on the UI goroutine.
func (v *discoverView) track(j *download.Job) {
	id := j.ID()
	row := v.rows[id]
	if row == nil {
		row = newJobRowView(v)
		v.rows[id] = row
		v.jobsBox.Add(row.box)
		v.jobsNote.Hide()
	}
	row.job = j
	p := j.Progress()
	row.show(p)
	v.record(id, row, p)
	v.watch(j)
}

// watch follows j's progress events until it ends (once per job).
func (v *discoverView) watch(j *download.Job) {
	v.mu.Lock()
	if v.watched[j] || v.closed {
		v.mu.Unlock()
		return
	}
	v.watched[j] = true
	v.mu.Unlock()
	events, stop := j.Subscribe()
	v.watchers.Add(1)
	go func() {
		defer v.watchers.Done()
		defer stop()
		for p := range events {
			v.post(j, p)
		}
		v.mu.Lock()
		delete(v.watched, j) // a retried job is followed again
		v.mu.Unlock()
		v.post(j, j.Progress())
	}()
}

// post records a job's progress and queues one redraw for all the
// progress that arrives meanwhile.
func (v *discoverView) post(j *download.Job, p download.Progress) {
	v.mu.Lock()
	if v.closed {
		v.mu.Unlock()
		return
	}
	v.latest[j.ID()] = p
	v.dirty[j.ID()] = true
	queue := !v.pending
	v.pending = true
	v.mu.Unlock()
	if queue {
		v.do(v.flush)
	}
}

// flush shows the progress posted since the last flush.
func (v *discoverView) flush() {
	v.mu.Lock()
	v.pending = false
	changed := make(map[string]download.Progress, len(v.dirty))
	for id := range v.dirty {
		changed[id] = v.latest[id]
	}
	clear(v.dirty)
	v.mu.Unlock()
	finished := false
	for id, p := range changed {
		row := v.rows[id]
		if row == nil {
			continue
		}
		if p.State == download.Cancelled {
			v.jobsBox.Remove(row.box)
			delete(v.rows, id)
			if len(v.rows) == 0 {
				v.jobsNote.SetText("No downloads.")
				v.jobsNote.Importance = widget.LowImportance
				v.jobsNote.Show()
			}
			v.mu.Lock()
			delete(v.snap.Jobs, id)
			v.mu.Unlock()
			continue
		}
		if p.State == download.Done && !row.announced {
			row.announced = true
			finished = true
		}
		row.show(p)
		v.record(id, row, p)
	}
	if finished {
		v.u.modelsChanged()
		v.mu.Lock()
		v.snap.Finished++
		v.mu.Unlock()
	}
}

// record keeps a row's state for tests.
func (v *discoverView) record(id string, row *jobRowView, p download.Progress) {
	r := jobRow{State: p.State, Done: p.Done, Total: p.Total}
	if row.job != nil {
		meta := row.job.Request().Meta
		r.Quant, r.File = meta["quant"], meta["file"]
	}
	if p.State == download.Failed && p.Err != nil {
		r.Error = downloadErrorText(p.Err, v.client())
	}
	v.mu.Lock()
	v.snap.Jobs[id] = r
	v.mu.Unlock()
}

// resumeJob resumes a paused or failed job through the manager, with a
// fresh token (a job restored from disk has none), and follows it again.
func (v *discoverView) resumeJob(j *download.Job) {
	client := v.client()
	v.busy.Add(1)
	go func() {
		defer v.busy.Done()
		req := j.Request()
		if strings.HasPrefix(req.URL, strings.TrimRight(client.Endpoint, "/")+"/") {
			req.Header = client.Header()
		}
		m, err := v.u.core.Downloads()
		var nj *download.Job
		if err == nil {
			nj, err = m.Start(req)
		}
		v.do(func() {
			if err != nil {
				v.setNote("Saji could not resume "+path.Base(req.Dest)+". "+downloadErrorText(err, client), true)
				return
			}
			v.track(nj)
		})
	}()
}

// shardRE matches a split model's shard file name.
var shardRE = regexp.MustCompile(`-(\d{5})-of-(\d{5})\.gguf$`)

// modelNameOf returns the library name of a downloaded file, and whether
// it is a model one can chat with (a single file or a split model's first
// shard).
func modelNameOf(dest string) (string, bool) {
	base := filepath.Base(dest)
	if !strings.HasSuffix(strings.ToLower(base), ".gguf") || hub.IsMMProj(base) {
		return "", false
	}
	if m := shardRE.FindStringSubmatch(base); m != nil && m[1] != "00001" {
		return "", false
	}
	return base[:len(base)-len(".gguf")], true
}

// jobRowView is one row of the downloads list.
type jobRowView struct {
	v         *discoverView
	job       *download.Job // UI
	announced bool          // UI: its completion was announced

	box                                     *fyne.Container
	name, level, info, errText              *widget.Label
	bar                                     *widget.ProgressBar
	pauseBtn, resumeBtn, cancelBtn, chatBtn *widget.Button
}

// newJobRowView builds an empty row.
func newJobRowView(v *discoverView) *jobRowView {
	r := &jobRowView{v: v}
	r.name = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	r.name.Truncation = fyne.TextTruncateEllipsis
	r.level = widget.NewLabel("")
	r.level.SizeName = theme.SizeNameCaptionText
	r.level.Truncation = fyne.TextTruncateEllipsis
	r.info = widget.NewLabel("")
	r.errText = widget.NewLabel("")
	r.errText.Wrapping = fyne.TextWrapWord
	r.errText.Importance = widget.DangerImportance
	r.errText.Hide()
	r.bar = widget.NewProgressBar()
	r.pauseBtn = widget.NewButtonWithIcon("Pause", theme.MediaPauseIcon(), func() {
		if r.job != nil {
			r.job.Pause()
		}
	})
	r.resumeBtn = widget.NewButtonWithIcon("Resume", theme.MediaPlayIcon(), func() {
		if r.job != nil {
			r.resumeBtn.Disable()
			v.resumeJob(r.job)
		}
	})
	r.cancelBtn = widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), func() {
		if r.job != nil {
			r.cancelBtn.Disable()
			r.job.Cancel()
		}
	})
	r.chatBtn = widget.NewButtonWithIcon("Chat", theme.MailComposeIcon(), func() {
		if r.job == nil {
			return
		}
		if name, ok := modelNameOf(r.job.Request().Dest); ok {
			v.u.tabs.SelectIndex(tabChat)
			v.u.chat.openModel(name)
		}
	})
	r.chatBtn.Importance = widget.HighImportance
	buttons := container.NewHBox(r.pauseBtn, r.resumeBtn, r.cancelBtn, r.chatBtn)
	r.box = container.NewVBox(
		container.NewBorder(nil, nil, nil, buttons, container.NewVBox(r.name, r.level)),
		r.bar, r.info, r.errText, widget.NewSeparator())
	return r
}

// show draws the job's progress p.
func (r *jobRowView) show(p download.Progress) {
	req := r.job.Request()
	r.name.SetText(filepath.Base(req.Dest))
	level := req.Meta["quant"]
	if repo := req.Meta["repo"]; repo != "" {
		if level != "" {
			level += " · "
		}
		level += repo
	}
	r.level.SetText(level)
	total := p.Total
	if total == 0 {
		total = req.Size
	}
	if total > 0 {
		r.bar.SetValue(float64(p.Done) / float64(total))
	} else {
		r.bar.SetValue(0)
	}
	r.info.SetText(progressText(p, total))
	failed := p.State == download.Failed
	if failed && p.Err != nil {
		r.errText.SetText(downloadErrorText(p.Err, r.v.client()))
	}
	setVisible(r.errText, failed)
	active := p.State == download.Queued || p.State == download.Running || p.State == download.Verifying
	setVisible(r.pauseBtn, active && p.State != download.Verifying)
	setVisible(r.resumeBtn, p.State == download.Paused || failed)
	r.resumeBtn.Enable()
	if failed {
		r.resumeBtn.SetText("Retry")
	} else {
		r.resumeBtn.SetText("Resume")
	}
	setVisible(r.cancelBtn, p.State != download.Done)
	r.cancelBtn.Enable()
	_, chat := modelNameOf(req.Dest)
	setVisible(r.chatBtn, p.State == download.Done && chat)
	r.box.Refresh()
}

// progressText is a download's line under its bar: bytes, rate, time
// left and state.
func progressText(p download.Progress, total int64) string {
	of := humanBytes(p.Done)
	if total > 0 {
		of += " of " + humanBytes(total)
	}
	switch p.State {
	case download.Queued:
		return of + " · waiting for another download to finish"
	case download.Running:
		s := of
		if p.Rate > 0 {
			s += " · " + humanBytes(int64(p.Rate)) + "/s"
		}
		if p.ETA >= time.Second {
			s += " · about " + humanDuration(p.ETA.Seconds()) + " left"
		}
		return s
	case download.Paused:
		return of + " · paused"
	case download.Verifying:
		return "Checking the file: " + of
	case download.Done:
		return humanBytes(total) + " · in the library"
	case download.Failed:
		return of + " · stopped"
	}
	return of
}

// hubMessage says in plain words why a request to the hub failed. repo
// names the repository when there is one.
func hubMessage(err error, client *hub.Client, repo string) string {
	host := client.Endpoint
	if u, perr := url.Parse(client.Endpoint); perr == nil && u.Host != "" {
		host = u.Host
	}
	page := "the model's page on Hugging Face"
	if repo != "" {
		page = strings.TrimRight(client.Endpoint, "/") + "/" + repo
	}
	var he *hub.Error
	switch {
	case errors.Is(err, context.Canceled):
		return "It was cancelled."
	case errors.Is(err, hub.ErrGated):
		if client.Token != "" {
			return "This model is gated, and the access token has no access to it yet. Accept the licence on " + page +
				" with the account the token belongs to (some authors approve requests by hand, which can take a while), then try again."
		}
		return "This model is gated: its authors ask everyone to accept their licence before downloading. Accept it on " + page +
			" while signed in to Hugging Face, then add an access token of that account with Access token... above (or set HF_TOKEN in the environment) and try again."
	case errors.Is(err, hub.ErrUnauthorized):
		if client.Token != "" {
			return "Hugging Face refused the access token. Check it with Access token... above (or HF_TOKEN in the environment)."
		}
		return "This model needs a Hugging Face access token. Add one with Access token... above (or set HF_TOKEN in the environment)."
	case errors.Is(err, hub.ErrNotFound):
		if repo != "" {
			return "Hugging Face has no model called " + repo + ", or it is private."
		}
		return "Hugging Face did not find it."
	case errors.Is(err, hub.ErrUnavailable):
		return "Hugging Face is not answering right now. Try again in a few minutes."
	case errors.As(err, &he):
		return fmt.Sprintf("Hugging Face answered with an error (HTTP %d). Try again later.", he.Status)
	case errors.Is(err, context.DeadlineExceeded), isTimeout(err):
		return "Saji could not reach Hugging Face (" + host + ") in time. Check the internet connection, then try again."
	case isOffline(err):
		return "Saji could not reach Hugging Face (" + host + "). Check the internet connection, then try again."
	}
	return strings.TrimPrefix(err.Error(), "hub: ")
}

// isOffline says whether err is a failure to reach a server: no network,
// no DNS, a refused or reset connection.
func isOffline(err error) bool {
	var op *net.OpError
	var dns *net.DNSError
	return errors.As(err, &op) || errors.As(err, &dns) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ENETUNREACH)
}

// isTimeout says whether err is a network timeout.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// downloadErrorText says in plain words why a download failed.
func downloadErrorText(err error, client *hub.Client) string {
	var he *download.HTTPError
	switch {
	case errors.Is(err, download.ErrDiskFull):
		return "There is not enough free disk space for this download. Free some space, then press Retry."
	case errors.Is(err, download.ErrChecksum):
		return "The file arrived damaged twice in a row (its checksum did not match what Hugging Face lists). Press Retry to fetch it again."
	case errors.Is(err, download.ErrClosed):
		return "The downloads were stopped. Press Retry to go on."
	case errors.As(err, &he):
		switch he.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden:
			return "Hugging Face refused the download: the model is gated or needs an access token. Accept its licence on the " +
				"model's page, add a token with Access token... above, then press Retry."
		case http.StatusNotFound:
			return "The file is no longer on Hugging Face: it was renamed or removed."
		}
		return fmt.Sprintf("Hugging Face answered with an error (HTTP %d). Press Retry later.", he.StatusCode)
	case errors.Is(err, hub.ErrGated), errors.Is(err, hub.ErrUnauthorized), errors.Is(err, hub.ErrNotFound),
		errors.Is(err, hub.ErrUnavailable), isOffline(err), isTimeout(err):
		return hubMessage(err, client, "")
	}
	s := err.Error()
	for _, p := range []string{"download: ", "app: "} {
		s = strings.TrimPrefix(s, p)
	}
	if s != "" {
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}
