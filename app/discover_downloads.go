package app

// The Discover view's downloads: starting a level's, the downloads list
// with its progress, pause, resume, cancel and retry, and the messages of
// hub and download errors.

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
	"syscall"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"saji/engine/download"
	"saji/engine/hub"
	"saji/engine/library"
	"saji/engine/model"
	"saji/engine/units"
)

// download starts the download of every file of the level q of the
// repository shown into the library folder.
func (v *discoverView) download(q hub.Quant) {
	repo, commit := v.repo, v.commit
	if repo == "" || len(q.Files) == 0 {
		return
	}
	dir := v.u.core.Library().Dir()
	client := v.client()
	// A level whose header planLevels has read and planned runs.
	checked := false
	v.mu.Lock()
	for _, r := range v.snap.Levels {
		checked = checked || (r.Name == q.Name && r.Size == q.Size && r.Plan != nil)
	}
	v.mu.Unlock()
	v.setNote("Starting the download of "+q.Name+"...", false)
	v.bg.run(func() func() {
		jobs, err := v.startLevel(client, repo, commit, dir, q, checked)
		return func() {
			for _, j := range jobs {
				v.track(j)
			}
			v.refreshLevels()
			if err != nil {
				// Shown where the person looks, whatever the pane's scroll.
				v.setNote("Saji could not download "+q.Name+". "+err.Error(), true)
				v.alert("Saji could not download "+q.Name, err.Error())
				return
			}
			// The level's button and the Downloads list say the rest.
			v.setNote("", false)
		}
	})
}

// startLevel asks the hub about the level's first file (a gated or
// missing repository says so here, plainly), reads its header unless
// checked says it was (a model Saji cannot run is refused before a byte
// of it is downloaded) and queues a download per file, with the
// repository's vision projector (the one saji pull --mmproj takes) unless
// the folder has it already: the library pairs it with the model. The
// error's text is for people.
func (v *discoverView) startLevel(client *hub.Client, repo, commit, dir string, q hub.Quant, checked bool) ([]*download.Job, error) {
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
	// The header says, before a byte is downloaded, whether Saji can run
	// the level; one that cannot be read is left to the library's check.
	var re *model.RunError
	if !checked {
		if _, err := describeLevel(ctx, client, repo, commit, q); errors.As(err, &re) {
			return nil, errors.New("Saji cannot run it yet: " + re.Reason + ".")
		}
	}
	m, err := v.u.core.Downloads()
	if err != nil {
		return nil, errors.New(userMessage(err))
	}
	files := q.Files
	if pj, ok := hub.PickMMProj(q.MMProj); ok {
		if _, err := os.Stat(filepath.Join(dir, path.Base(pj.Path))); err != nil {
			files = append(files[:len(files):len(files)], pj)
		}
	}
	var jobs []*download.Job
	for _, f := range files {
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
	v.bg.run(func() func() {
		m, err := v.u.core.Downloads()
		var jobs []*download.Job
		if err == nil {
			jobs = m.Jobs()
		}
		return func() {
			if err != nil {
				v.jobsNote.SetText("Saji could not open the list of downloads. " + userMessage(err))
				v.jobsNote.Importance = widget.DangerImportance
				v.jobsNote.Show()
				return
			}
			for _, j := range jobs {
				v.track(j)
			}
		}
	})
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
		// The newest download comes first, in view.
		v.jobsBox.Objects = append([]fyne.CanvasObject{row.box}, v.jobsBox.Objects...)
		v.jobsBox.Refresh()
		v.jobsScroll.ScrollToTop()
		v.jobsNote.Hide()
		v.fitDownloadsPanel()
	}
	row.job = j
	p := j.Progress()
	row.show(p)
	v.record(id, row, p)
	v.watch(j)
}

// watch follows j's progress events until it ends (once per job), as
// work of follow: the newest progress shows through one redraw at a time
// (uiLatest).
func (v *discoverView) watch(j *download.Job) {
	v.mu.Lock()
	defer v.mu.Unlock() // close waits for follow once closed is set
	if v.watched[j] || v.closed {
		return
	}
	v.watched[j] = true
	events, stop := j.Subscribe()
	id := j.ID()
	latest := newUILatest(&v.follow, func(p download.Progress) { v.showProgress(id, p) })
	v.follow.run(func() func() {
		defer stop()
		for p := range events {
			latest.post(p)
		}
		v.mu.Lock()
		delete(v.watched, j) // a retried job is followed again
		v.mu.Unlock()
		latest.post(j.Progress())
		return nil // close waits for follow on the UI goroutine
	})
}

// showProgress shows the progress p of the job id in its row, removes the
// row of a cancelled job and announces a finished one to the library.
// Once the view is closed it draws nothing.
func (v *discoverView) showProgress(id string, p download.Progress) {
	v.mu.Lock()
	closed := v.closed
	v.mu.Unlock()
	row := v.rows[id]
	if closed || row == nil {
		return
	}
	if p.State == download.Cancelled {
		v.dropRow(id, row)
		return
	}
	row.show(p)
	v.record(id, row, p)
	if p.State == download.Done && !row.announced {
		row.announced = true
		v.recordSource(row.job)
		v.u.modelsChanged()
		v.mu.Lock()
		v.snap.Finished++
		v.mu.Unlock()
	}
}

// dropRow removes the row of the job id from the downloads list.
func (v *discoverView) dropRow(id string, row *jobRowView) {
	v.jobsBox.Remove(row.box)
	delete(v.rows, id)
	if len(v.rows) == 0 {
		v.jobsNote.SetText("No downloads.")
		v.jobsNote.Importance = widget.LowImportance
		v.jobsNote.Show()
		v.fitDownloadsPanel()
	}
	v.mu.Lock()
	delete(v.snap.Jobs, id)
	v.mu.Unlock()
}

// recordSource records in the library where the finished job j's file
// came from, when it came from a hub repository (its Meta says so).
func (v *discoverView) recordSource(j *download.Job) {
	req := j.Request()
	repo, file := req.Meta["repo"], req.Meta["file"]
	if repo == "" || file == "" {
		return
	}
	lib := v.u.core.Library()
	if filepath.Dir(req.Dest) != lib.Dir() {
		return // a library folder since changed in the settings
	}
	if _, err := os.Stat(req.Dest); err != nil {
		return // refused and removed (the welcome view's check)
	}
	src := library.Source{Repo: repo, Revision: req.Meta["commit"], File: file, SHA256: req.SHA256}
	if err := lib.SetSource(filepath.Base(req.Dest), src); err != nil {
		v.u.core.log.Warn("app: recording where a download came from", "file", req.Dest, "err", err)
	}
}

// followManager follows the download manager m from the moment it opens
// (core.downloadsOpened) until it closes: every change of its jobs
// (Changes) redraws, one redraw at a time, the downloads list, the quant
// table's buttons and the sidebar's indicator (managerChanged). It may
// not call core.Downloads (dlMu is held).
func (v *discoverView) followManager(m *download.Manager) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		return
	}
	changes, stop := m.Changes()
	latest := newUILatest(&v.follow, func(struct{}) { v.managerChanged(m) })
	v.follow.run(func() func() {
		defer stop()
		for range changes {
			latest.post(struct{}{})
		}
		return nil
	})
}

// managerChanged shows the state of m's jobs: a job the list lacks (one
// the welcome view or the API started) gets its row, and the quant
// table's buttons, the Clear finished button and the sidebar's indicator
// follow. It runs on the UI goroutine and draws nothing once closed.
func (v *discoverView) managerChanged(m *download.Manager) {
	v.mu.Lock()
	closed := v.closed
	v.mu.Unlock()
	if closed {
		return
	}
	jobs := m.Jobs()
	finished := false
	for _, j := range jobs {
		if r := v.rows[j.ID()]; r == nil || r.job != j {
			v.track(j)
		}
		finished = finished || j.Progress().State == download.Done
	}
	setVisible(v.clearBtn, finished)
	v.refreshLevels()
	v.indicator.show(jobs)
}

// clearFinished takes the finished downloads off the list (and out of
// the manager); their files stay in the library.
func (v *discoverView) clearFinished() {
	m := v.u.core.openDownloads()
	for id, row := range v.rows {
		if row.job == nil || row.job.Progress().State != download.Done {
			continue
		}
		if m != nil {
			m.Forget(id)
		}
		v.dropRow(id, row)
	}
	v.clearBtn.Hide()
}

// alert shows an error in a dialog, where the person looks whatever the
// view's scroll, and counts it for tests.
func (v *discoverView) alert(title, text string) {
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	d := dialog.NewCustom(title, "Close", l, v.u.win)
	d.Resize(fyne.NewSize(480, 220))
	d.Show()
	v.mu.Lock()
	v.snap.Alerts++
	v.mu.Unlock()
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
	v.bg.run(func() func() {
		req := j.Request()
		if strings.HasPrefix(req.URL, strings.TrimRight(client.Endpoint, "/")+"/") {
			req.Header = client.Header()
		}
		m, err := v.u.core.Downloads()
		var nj *download.Job
		if err == nil {
			nj, err = m.Start(req)
		}
		return func() {
			if err != nil {
				msg := downloadErrorText(err, client)
				v.setNote("Saji could not resume "+path.Base(req.Dest)+". "+msg, true)
				v.alert("Saji could not resume "+path.Base(req.Dest), msg)
				return
			}
			v.track(nj)
		}
	})
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
	r.level = widget.NewLabel("")
	r.level.SizeName = theme.SizeNameCaptionText
	r.level.Truncation = fyne.TextTruncateEllipsis
	r.info = widget.NewLabel("") // shown in the bar
	r.errText = widget.NewLabel("")
	r.errText.Wrapping = fyne.TextWrapWord
	r.errText.Importance = widget.DangerImportance
	r.errText.Hide()
	r.bar = newProgressBar()
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
	r.chatBtn = widget.NewButtonWithIcon("Chat", chatIcon(), func() {
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
	// The progress line is written in the bar: a row is two lines tall
	// (three when it failed), so that the panel shows it whole.
	r.bar.TextFormatter = func() string { return r.info.Text }
	r.box = container.NewVBox(
		container.NewBorder(nil, nil, r.name, buttons, r.level),
		r.bar, r.errText, widget.NewSeparator())
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
	active := p.State.Active()
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
	of := units.Bytes(p.Done)
	if total > 0 {
		of += " of " + units.Bytes(total)
	}
	switch p.State {
	case download.Queued:
		return of + " · waiting for another download to finish"
	case download.Running:
		s := of
		if p.Rate > 0 {
			s += " · " + units.Rate(p.Rate)
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
		return units.Bytes(total) + " · in the library"
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
