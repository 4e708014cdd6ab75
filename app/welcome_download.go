package app

// The welcome view's download of the recommended model: a job of the
// download manager, followed and shown as Discover's are.

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"

	"fyne.io/fyne/v2/widget"

	"saji/engine/download"
	"saji/engine/hub"
	"saji/engine/library"
	"saji/engine/model"
)

// downloadPhase is where the welcome view's download stands.
type downloadPhase int

const (
	phaseIdle downloadPhase = iota
	phaseRunning
	phasePaused
	phaseFailed
	phaseDone
)

// setPhase records where the download stands.
func (v *welcomeView) setPhase(p downloadPhase) {
	v.mu.Lock()
	v.phase = p
	v.mu.Unlock()
}

// Phase returns where the download stands (safe from any goroutine).
func (v *welcomeView) Phase() downloadPhase {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.phase
}

// startDownload starts (or resumes) the download of the recommended model
// into the library as a job of the download manager, showing its
// progress.
func (v *welcomeView) startDownload() {
	if v.starting || (v.job != nil && v.job.Progress().State.Active()) {
		return
	}
	v.starting = true
	v.download.Disable()
	v.skip.Disable()
	v.message.Hide()
	v.progress.SetValue(0)
	v.status.SetText("Connecting to Hugging Face...")
	v.pause.Disable()
	v.cancel.Disable()
	v.running.Show()
	v.relayout()
	v.setPhase(phaseRunning)

	client, dir, old := v.u.discover.client(), v.u.core.Library().Dir(), v.job
	v.work.run(func() func() {
		j, text := v.startJob(client, dir, old)
		return func() {
			v.starting = false
			if j == nil {
				v.stopped(phaseFailed, text, widget.DangerImportance, false)
				return
			}
			v.job = j
			v.pause.Enable()
			v.cancel.Enable()
			v.follow(j)
		}
	})
}

// startJob queues the download: it resumes old (a paused or failed job of
// this view) with a fresh token, or asks the hub about the file (a gated
// or missing file says so here, plainly) and starts a job pinned to the
// commit the hub names. On failure text says why, for people.
func (v *welcomeView) startJob(client *hub.Client, dir string, old *download.Job) (*download.Job, string) {
	m, err := v.u.core.Downloads()
	if err != nil {
		return nil, userMessage(err)
	}
	var req download.Request
	if old != nil {
		req = old.Request()
		req.Header = client.Header()
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), hubTimeout)
		defer cancel()
		meta, err := client.Stat(ctx, v.model.Repo, "", v.model.File)
		if err != nil {
			return nil, hubMessage(err, client, v.model.Repo)
		}
		rev := cmp.Or(meta.Commit, "main")
		req = download.Request{
			ID:     v.model.Repo + "/" + v.model.File + "@" + rev,
			URL:    v.model.URL(client, rev),
			Header: client.Header(),
			Size:   meta.Size,
			SHA256: meta.SHA256,
			Dest:   filepath.Join(dir, v.model.File),
			Meta:   map[string]string{"repo": v.model.Repo, "quant": v.model.Level, "file": v.model.File, "commit": rev},
		}
	}
	j, err := m.Start(req)
	if err != nil {
		return nil, downloadErrorText(err, client)
	}
	return j, ""
}

// follow shows j's progress until it ends, pauses or fails: a goroutine
// reads its events and keeps the newest, and one redraw at a time shows
// it.
func (v *welcomeView) follow(j *download.Job) {
	events, stop := j.Subscribe()
	latest := newUILatest(&v.work, func(p download.Progress) { v.show(j, p) })
	v.work.run(func() func() {
		defer stop()
		for p := range events {
			latest.post(p)
		}
		latest.post(j.Progress())
		return nil
	})
}

// show draws the job's progress p, as Discover's list does, and ends the
// download when p is final or paused.
func (v *welcomeView) show(j *download.Job, p download.Progress) {
	if v.job != j {
		return // a job this view has since replaced
	}
	total := cmp.Or(p.Total, j.Request().Size)
	if total > 0 {
		v.progress.SetValue(float64(p.Done) / float64(total))
	}
	v.status.SetText(progressText(p, total))
	v.pause.Enable()
	v.pause.Show()
	if p.State == download.Verifying {
		v.pause.Hide()
	}
	switch p.State {
	case download.Done:
		if v.Phase() != phaseDone {
			v.setPhase(phaseDone) // importing; later events change nothing
			v.imported(j.Request().Dest)
		}
	case download.Paused:
		v.stopped(phasePaused, "The download is paused. Resume it to continue where it stopped.", widget.MediumImportance, p.Done > 0)
	case download.Failed:
		text := "The download failed."
		if p.Err != nil {
			slog.Warn("app: first-run download failed", "err", p.Err)
			text = downloadErrorText(p.Err, v.u.discover.client())
		}
		v.stopped(phaseFailed, text, widget.DangerImportance, p.Done > 0)
	case download.Cancelled:
		v.job = nil
		v.stopped(phaseFailed, "The download was cancelled.", widget.MediumImportance, false)
	}
}

// imported adds the downloaded file at path to the library, off the UI
// goroutine: on success the model opens in the chat and the view hides; a
// file that is not a model Saji can use is removed and the reason shows
// here.
func (v *welcomeView) imported(path string) {
	lib := v.u.core.Library()
	v.work.run(func() func() {
		e, err := lib.Import(context.Background(), path, false, nil)
		text := ""
		if err != nil {
			text = "Saji could not add the model to the library. " + userMessage(err)
			if _, verr := library.Validate(path); verr != nil {
				os.Remove(path)
				text = invalidDownloadMessage(verr)
			}
		}
		return func() {
			if err != nil {
				slog.Warn("app: first-run download not added", "path", path, "err", err)
				v.job = nil
				v.stopped(phaseFailed, text, widget.DangerImportance, false)
				return
			}
			v.running.Hide()
			v.download.Enable()
			v.skip.Enable()
			v.u.modelsChanged()
			v.u.tabs.SelectIndex(tabChat)
			v.u.chat.openModel(e.Name)
		}
	})
}

// stopped shows why the download stopped (text, of importance imp) with
// the button to resume it (resumable: a part is kept) or start again.
func (v *welcomeView) stopped(phase downloadPhase, text string, imp widget.Importance, resumable bool) {
	if v.Phase() == phase && v.message.Text == text && v.message.Visible() {
		return
	}
	v.running.Hide()
	v.download.Enable()
	v.skip.Enable()
	v.message.SetText(text)
	v.message.Importance = imp
	v.message.Show()
	v.download.SetText("Download again")
	if resumable {
		v.download.SetText("Resume the download")
	}
	v.relayout()
	v.setPhase(phase)
}

// pauseDownload pauses the download; its partial file stays for a resume.
func (v *welcomeView) pauseDownload() {
	if v.job != nil {
		v.status.SetText("Pausing...")
		v.pause.Disable()
		v.job.Pause()
	}
}

// cancelDownload cancels the download and drops its partial file.
func (v *welcomeView) cancelDownload() {
	if v.job != nil {
		v.status.SetText("Cancelling...")
		v.pause.Disable()
		v.cancel.Disable()
		v.job.Cancel()
	}
}

// invalidDownloadMessage explains a downloaded file that the library
// rejected.
func invalidDownloadMessage(err error) string {
	switch {
	case errors.Is(err, library.ErrTruncated):
		return "The downloaded file is incomplete: it ends too soon. Download it again."
	case errors.Is(err, library.ErrUnsupportedArch):
		return "The downloaded model is of a kind Saji cannot run yet."
	case errors.Is(err, model.ErrUnsupportedType):
		return userMessage(err)
	default:
		return "The downloaded file is not a model Saji can read: it may be damaged. Download it again."
	}
}
