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
)

// prefHFToken is the preference that keeps the Hugging Face access token
// typed into the view.
const prefHFToken = "hf_token"

// hubTimeout bounds one search or one repository's listing.
const hubTimeout = 60 * time.Second

// searchLimit is the most results a search lists.
const searchLimit = 50

// Where the split between the search and details and the Downloads
// panel stands: low with no download (the note alone), higher with
// downloads (a row and its progress line in view at 800x600).
const (
	splitNoDownloads   = 0.85
	splitWithDownloads = 0.6
)

// fitDownloadsPanel sizes the Downloads panel for its rows: small while
// there is no download, taller once there is one. A split the person
// moved stays where they put it.
func (v *discoverView) fitDownloadsPanel() {
	switch {
	case len(v.rows) == 0 && v.body.Offset == splitWithDownloads:
		v.body.SetOffset(splitNoDownloads)
	case len(v.rows) > 0 && v.body.Offset == splitNoDownloads:
		v.body.SetOffset(splitWithDownloads)
	}
}

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
	InLibrary   bool // every file of the level was downloaded from this repository
	// Action is the level's button ("Download", "Resume", "In library"...)
	// and Enabled whether it acts: levelStatus's answer, kept current.
	Action  string
	Enabled bool
	// Fit is the fit planner's verdict ("fits in RAM, up to 32K context,
	// ~9 tok/s") once the level's header was read, and Plan the plan
	// behind it; until then (or when the header cannot be read) the
	// column shows Verdict, the planner's size-based fallback.
	Fit  string
	Plan *fit.Plan
	// CannotRun says why Saji cannot run the level ("" when it can): by
	// its name (fit.LevelRunnable) at first, by its header once read.
	CannotRun string
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
	Recommend   string            // why the recommended level is ("" for none)
	Alerts      int               // errors shown in a dialog
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
	recommend   *widget.Label // why the recommended level is
	quantTable  *fyne.Container
	mmprojNote  *widget.Label
	repo        string      // UI: the repository shown
	fitCells    []*fitCell  // UI: the quant table's verdict cells, by level
	commit      string      // UI: its commit, downloads are pinned to it
	levels      []hub.Quant // UI: the quant table's levels
	details     repoDetails // UI: what the quant table was built from

	jobsBox    *fyne.Container
	jobsScroll *container.Scroll
	body       *container.Split // the search and details over the Downloads panel
	jobsNote   *widget.Label
	clearBtn   *widget.Button
	rows       map[string]*jobRowView // UI: by job ID

	// indicator is the sidebar's line of the downloads under way.
	indicator *downloadsIndicator

	// memory reads the machine's memory (tests fake it).
	memory func() (hardware.Memory, error)
	// now is the clock of the "3 days ago" texts.
	now func() time.Time

	// bg runs the searches, listings and starts of downloads (wait);
	// follow runs the goroutines that follow jobs, which end with the
	// jobs or with close. They are apart because a paused job is
	// followed until it ends, which wait must not wait for, and because
	// close waits for follow on the UI goroutine: follow's work only
	// posts its updates (do), never waits for them.
	bg, follow worker
	// uiMu is held by every update from bg and follow: the test driver
	// runs them on the goroutine that makes them, and tests take it
	// (locked) to tap buttons while downloads run.
	uiMu sync.Mutex

	mu        sync.Mutex
	shown     bool // the view has been shown (the first search ran)
	closed    bool
	searchSeq int
	repoSeq   int
	watched   map[*download.Job]bool
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
	}
	v.bg.lock, v.follow.lock = &v.uiMu, &v.uiMu
	u.core.downloadsOpened = v.followManager
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
	longest := ""
	for i, c := range sortChoices {
		labels[i] = c.label
		if len(c.label) > len(longest) {
			longest = c.label
		}
	}
	v.sortSel = widget.NewSelect(labels, func(string) {
		if v.wasShown() {
			v.search()
		}
	})
	// A select is as wide as its placeholder, which never shows here (a
	// sort is always chosen): the longest label keeps each one whole.
	v.sortSel.PlaceHolder = longest
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
	v.recommend = widget.NewLabel("")
	v.recommend.Wrapping = fyne.TextWrapWord
	v.recommend.Hide()
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
	v.jobsScroll = container.NewVScroll(v.jobsBox)
	dlTitle := widget.NewLabelWithStyle("Downloads", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	v.clearBtn = widget.NewButtonWithIcon("Clear finished", theme.DeleteIcon(), v.clearFinished)
	v.clearBtn.Importance = widget.LowImportance
	v.clearBtn.Hide()
	downloads := container.NewBorder(container.NewVBox(widget.NewSeparator(),
		container.NewBorder(nil, nil, nil, v.clearBtn, dlTitle)), nil, nil, nil, v.jobsScroll)
	v.body = container.NewVSplit(split, downloads)
	v.body.Offset = splitNoDownloads
	body := v.body
	v.indicator = newDownloadsIndicator(u)

	top := container.NewVBox(container.NewBorder(nil, nil, nil, v.tokenBtn, title), hint, searchRow)
	v.content = newVisibilityWatch(container.NewPadded(container.NewBorder(top, nil, nil, nil, body)), v.visibilityChanged)
	return v
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

// wait blocks until the searches, listings and starts of downloads begun
// so far have ended and shown their outcome (not the downloads: close
// ends following them).
func (v *discoverView) wait() { v.bg.wait() }

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
	v.follow.wait()
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
