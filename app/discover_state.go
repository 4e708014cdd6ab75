package app

// The Discover view's one source of state: what each level of the quant
// table offers comes from the download manager's jobs and the library's
// record of where its files came from (repository, revision and path),
// never from a file name alone, and it is worked out again on every
// change of either: a job's start, progress, pause or end (the manager's
// Changes) and a change of the library (ui.modelsChanged).

import (
	"fmt"
	"path"
	"strings"

	"fyne.io/fyne/v2/widget"

	"saji/engine/download"
	"saji/engine/fit"
	"saji/engine/hub"
	"saji/engine/library"
	"saji/engine/units"
)

// levelState is what a level of the quant table offers.
type levelState int

// The states of a level, in the order levelStatus decides them.
const (
	levelDownload    levelState = iota // nothing of it here: Download
	levelCannotRun                     // Saji cannot run it
	levelIncomplete                    // the repository lacks some of its files
	levelInLibrary                     // every file came from this repository
	levelFailed                        // a download of it failed: Retry
	levelPaused                        // a download of it is paused: Resume
	levelDownloading                   // a download of it runs or waits
	levelNameTaken                     // a file of its name came from elsewhere
)

// levelJob is what levelStatus needs of a download job.
type levelJob struct {
	Repo, File, Commit string
	State              download.State
}

// levelStatus works out what level q of repo (shown at commit) offers,
// from the jobs of the download manager, the recorded sources of the
// library folder's files (library.Sources) and the sizes of the files in
// that folder by name (folder). cannotRun and incomplete come from the
// quant table's row.
func levelStatus(q hub.Quant, repo, commit string, cannotRun, incomplete bool,
	jobs []levelJob, sources map[string]library.Source, folder map[string]int64) levelState {
	switch {
	case cannotRun:
		return levelCannotRun
	case incomplete || len(q.Files) == 0:
		return levelIncomplete
	}
	inLibrary, taken := true, false
	var failed, paused, active bool
	for _, f := range q.Files {
		base := path.Base(f.Path)
		src, ok := sources[base]
		from := ok && src.Repo == repo && src.File == f.Path &&
			(src.Revision == commit || (src.SHA256 != "" && strings.EqualFold(src.SHA256, f.SHA256)))
		if !from {
			inLibrary = false
			if _, there := folder[base]; there {
				taken = true
			}
		}
		for _, j := range jobs {
			if j.Repo != repo || j.File != f.Path {
				continue
			}
			switch {
			case j.State == download.Failed:
				failed = true
			case j.State == download.Paused:
				paused = true
			case j.State.Active():
				active = true
			}
		}
	}
	switch {
	case inLibrary:
		return levelInLibrary
	case failed:
		return levelFailed
	case paused:
		return levelPaused
	case active:
		return levelDownloading
	case taken:
		return levelNameTaken
	}
	return levelDownload
}

// levelAction is the text of a level's button in state s, and whether
// the button acts.
func levelAction(s levelState) (string, bool) {
	switch s {
	case levelCannotRun:
		return "Can't run", false
	case levelIncomplete:
		return "Incomplete", false
	case levelInLibrary:
		return "In library", false
	case levelFailed:
		return "Retry", true
	case levelPaused:
		return "Resume", true
	case levelDownloading:
		return "Downloading...", false
	case levelNameTaken:
		return "Name taken", false
	}
	return "Download", true
}

// levelVerdict is a level's fit in one short line for the quant table,
// with its colour: the planner's pace (fit.Plan.Pace, which the welcome
// page and the wizard say too: "Slow" below a comfortable speed) and the
// speed; the detail is behind the cell's info button. A context past the
// model's trained one is said there, as the wizard says it: it is not a
// matter of memory, which "Tight" names.
func levelVerdict(p fit.Plan) (string, widget.Importance) {
	pace := p.Pace()
	s := map[fit.Pace]string{fit.Comfortable: "Fits", fit.Slow: "Slow", fit.Tight: "Tight", fit.TooBig: "Too big"}[pace]
	if pace == fit.TooBig {
		return s, paceImportance(pace)
	}
	if p.Verdict.Kind == fit.PartialGPU {
		s += ", part on GPU"
	}
	if p.DecodeTokensPerSec > 0 {
		s += " · " + speedText(p.DecodeTokensPerSec)
	}
	return s, paceImportance(pace)
}

// recommendWhy explains in one sentence why level is recommended on a
// machine with free bytes of memory (0: unknown), with the speed its plan
// predicts when there is one (nil before its header is read), and whether
// it fits at all.
func recommendWhy(level string, free int64, fits bool, p *fit.Plan) string {
	if !fits {
		return fmt.Sprintf("None of these files fits the memory this computer has free; %s is the smallest that Saji runs.", level)
	}
	s := fmt.Sprintf("Saji recommends %s: the best quality of these files that fits", level)
	if free > 0 {
		s += " the " + units.Bytes(free) + " of memory free now"
	} else {
		s += " this computer"
	}
	if p != nil && p.DecodeTokensPerSec >= 10 {
		s += fmt.Sprintf(", at about %.0f tokens a second", p.DecodeTokensPerSec)
	} else if p != nil && p.DecodeTokensPerSec > 0 {
		s += fmt.Sprintf(", at about %.1f tokens a second", p.DecodeTokensPerSec)
	}
	return s + "."
}

// speedText writes a decode speed short, for the quant table: "~9 tok/s",
// "~0.6 tok/s" (fit.SpeedText is the sentence's form).
func speedText(tps float64) string {
	if tps >= 10 {
		return fmt.Sprintf("~%.0f tok/s", tps)
	}
	return fmt.Sprintf("~%.1f tok/s", tps)
}
