package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"saji/engine/download"
	"saji/engine/fit"
	"saji/engine/hub"
	"saji/engine/hub/hubtest"
	"saji/engine/library"
)

// TestLevelStatus checks what a level offers from the jobs and the
// library's sources.
func TestLevelStatus(t *testing.T) {
	const repo, rev = "acme/M-GGUF", "c1"
	q := hub.Quant{Name: "Q4_K_M", Files: []hub.File{
		{Path: "q4/M-Q4_K_M-00001-of-00002.gguf", SHA256: "aa"},
		{Path: "q4/M-Q4_K_M-00002-of-00002.gguf", SHA256: "bb"},
	}}
	src := func(file, rev, sha string) library.Source {
		return library.Source{Repo: repo, Revision: rev, File: file, SHA256: sha}
	}
	both := map[string]library.Source{
		"M-Q4_K_M-00001-of-00002.gguf": src(q.Files[0].Path, rev, "aa"),
		"M-Q4_K_M-00002-of-00002.gguf": src(q.Files[1].Path, rev, "bb"),
	}
	folder := map[string]int64{"M-Q4_K_M-00001-of-00002.gguf": 10, "M-Q4_K_M-00002-of-00002.gguf": 10}
	job := func(file string, st download.State) levelJob {
		return levelJob{Repo: repo, File: file, Commit: rev, State: st}
	}
	tests := []struct {
		name       string
		cannotRun  bool
		incomplete bool
		jobs       []levelJob
		sources    map[string]library.Source
		folder     map[string]int64
		want       levelState
	}{
		{"nothing", false, false, nil, nil, nil, levelDownload},
		{"cannot run", true, false, nil, both, folder, levelCannotRun},
		{"incomplete", false, true, nil, nil, nil, levelIncomplete},
		{"both shards from here", false, false, nil, both, folder, levelInLibrary},
		{"same files at a later commit", false, false, nil, map[string]library.Source{
			"M-Q4_K_M-00001-of-00002.gguf": src(q.Files[0].Path, "c0", "aa"),
			"M-Q4_K_M-00002-of-00002.gguf": src(q.Files[1].Path, "c0", "bb"),
		}, folder, levelInLibrary},
		{"changed file at another commit", false, false, nil, map[string]library.Source{
			"M-Q4_K_M-00001-of-00002.gguf": src(q.Files[0].Path, "c0", "old"),
			"M-Q4_K_M-00002-of-00002.gguf": src(q.Files[1].Path, rev, "bb"),
		}, folder, levelNameTaken},
		{"same name from another repository", false, false, nil, map[string]library.Source{
			"M-Q4_K_M-00001-of-00002.gguf": {Repo: "zeta/M-GGUF", Revision: rev, File: q.Files[0].Path},
		}, map[string]int64{"M-Q4_K_M-00001-of-00002.gguf": 10}, levelNameTaken},
		{"same name, origin unknown", false, false, nil, nil, map[string]int64{"M-Q4_K_M-00002-of-00002.gguf": 10}, levelNameTaken},
		{"one shard running", false, false, []levelJob{job(q.Files[0].Path, download.Running)}, nil, nil, levelDownloading},
		{"one shard queued, one paused", false, false, []levelJob{job(q.Files[0].Path, download.Queued),
			job(q.Files[1].Path, download.Paused)}, nil, nil, levelPaused},
		{"one shard failed", false, false, []levelJob{job(q.Files[0].Path, download.Done),
			job(q.Files[1].Path, download.Failed)}, nil, nil, levelFailed},
		{"finished but deleted", false, false, []levelJob{job(q.Files[0].Path, download.Done),
			job(q.Files[1].Path, download.Done)}, nil, nil, levelDownload},
		{"another repository's job", false, false, []levelJob{{Repo: "zeta/M-GGUF", File: q.Files[0].Path, State: download.Paused}},
			nil, nil, levelDownload},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := levelStatus(q, repo, rev, tt.cannotRun, tt.incomplete, tt.jobs, tt.sources, tt.folder); got != tt.want {
				t.Errorf("levelStatus = %d, want %d", got, tt.want)
			}
		})
	}
	for s := levelDownload; s <= levelNameTaken; s++ {
		text, acts := levelAction(s)
		if text == "" || acts != (s == levelDownload || s == levelPaused || s == levelFailed) {
			t.Errorf("levelAction(%d) = %q, %v", s, text, acts)
		}
	}
}

// TestLevelWords checks the one-line verdict, the recommendation's
// sentence and the indicator's line.
func TestLevelWords(t *testing.T) {
	p := fit.Plan{Verdict: fit.Verdict{Kind: fit.CPUOnly}, DecodeTokensPerSec: 9.2}
	if s, _ := levelVerdict(p); s != "Fits · ~9.2 tok/s" {
		t.Errorf("verdict %q", s)
	}
	p.DecodeTokensPerSec = 1.5
	if s, imp := levelVerdict(p); s != "Slow · ~1.5 tok/s" || imp != widget.WarningImportance {
		t.Errorf("slow verdict %q", s)
	}
	p.DecodeTokensPerSec = 9.2
	// Past the trained context, the row says what the wizard and the
	// recommendation say (the details say the rest).
	p.Model.ContextTrain, p.Request.Context = 2048, 4096
	if s, _ := levelVerdict(p); s != "Fits · ~9.2 tok/s" {
		t.Errorf("verdict past the trained context %q", s)
	}
	p.Verdict.Tight = true
	if s, _ := levelVerdict(p); s != "Tight · ~9.2 tok/s" {
		t.Errorf("tight verdict %q", s)
	}
	if s, _ := levelVerdict(fit.Plan{Verdict: fit.Verdict{Kind: fit.WontFit}}); s != "Too big" {
		t.Errorf("no-fit verdict %q", s)
	}
	for _, s := range []string{
		recommendWhy("Q4_K_M", 8<<30, true, &p),
		recommendWhy("Q4_K_M", 0, true, nil),
		recommendWhy("Q2_K", 1<<30, false, nil),
	} {
		if !strings.HasSuffix(s, ".") || strings.Contains(s, ". ") || !strings.Contains(s, "Q") || strings.Contains(s, "\n") {
			t.Errorf("recommendation %q is not one sentence", s)
		}
	}
	if s := recommendWhy("Q4_K_M", 8<<30, true, &p); !strings.Contains(s, "9.2 tokens a second") || !strings.Contains(s, "free") {
		t.Errorf("recommendation %q says neither speed nor memory", s)
	}
	for _, tt := range []struct {
		active         int
		done, total    int64
		percent, files string
	}{
		{0, 0, 0, "", ""},
		{1, 50, 200, "25%", "1 file"},
		{3, 10, 0, "0%", "3 files"},
	} {
		percent, files, ok := indicatorText(tt.active, tt.done, tt.total)
		if percent != tt.percent || files != tt.files || ok != (tt.percent != "") {
			t.Errorf("indicatorText(%d, %d, %d) = %q, %q, %v", tt.active, tt.done, tt.total, percent, files, ok)
		}
	}
}

// levelOf returns the snapshot's row of level.
func levelOf(t *testing.T, v *discoverView, level string) quantRow {
	t.Helper()
	for _, r := range v.snapshot().Levels {
		if r.Name == level {
			return r
		}
	}
	t.Fatalf("no level %s", level)
	return quantRow{}
}

// TestDiscoverLevelFollowsDownload checks that the quant table follows a
// download without being opened again: Downloading while it runs, the
// sidebar's indicator meanwhile, In library once done (and no Downloading
// line left), Download again once the model is deleted; and that Clear
// finished takes the finished row away.
func TestDiscoverLevelFollowsDownload(t *testing.T) {
	_, u, id := startSlowDownload(t, 256<<10)
	v := u.discover
	if r := levelOf(t, v, "Q2_K"); r.Action != "Download" || !r.Enabled {
		t.Fatalf("a level not downloaded: %+v", r)
	}
	waitFor(t, "Downloading", func() bool { r := levelOf(t, v, "Q4_K_M"); return r.Action == "Downloading..." && !r.Enabled })
	waitFor(t, "the indicator", func() bool {
		var ok bool
		v.locked(func() {
			ok = v.indicator.content.Visible() && v.indicator.files.Text == "1 file" && strings.HasSuffix(v.indicator.percent.Text, "%")
		})
		return ok
	})
	v.locked(func() {
		u.tabs.SelectIndex(tabLibrary)
		test.Tap(v.indicator.button)
		if u.tabs.SelectedIndex() != tabDiscover {
			t.Errorf("the indicator opened tab %d", u.tabs.SelectedIndex())
		}
	})
	waitJob(t, v, id, "the end", func(r jobRow) bool { return r.State == download.Done })
	waitFor(t, "In library", func() bool { return levelOf(t, v, "Q4_K_M").Action == "In library" })
	if s := v.snapshot(); strings.Contains(s.Note, "Downloading") {
		t.Errorf("the note still says %q", s.Note)
	}
	waitFor(t, "the indicator to go", func() bool {
		var gone bool
		v.locked(func() { gone = !v.indicator.content.Visible() })
		return gone
	})
	// Deleting the model makes the level downloadable again.
	v.locked(func() {
		if err := u.core.Library().Delete("Tiny-Chat-Q4_K_M"); err != nil {
			t.Fatal(err)
		}
		u.modelsChanged()
	})
	if r := levelOf(t, v, "Q4_K_M"); r.Action != "Download" || !r.Enabled || r.InLibrary {
		t.Errorf("after deleting the model: %+v", r)
	}
	v.locked(func() {
		if !v.clearBtn.Visible() {
			t.Fatal("no Clear finished")
		}
		test.Tap(v.clearBtn)
		if len(v.rows) != 0 || v.clearBtn.Visible() {
			t.Errorf("after Clear finished: %d rows", len(v.rows))
		}
	})
	if m := u.core.openDownloads(); m == nil || len(m.Jobs()) != 0 {
		t.Error("the manager kept the cleared job")
	}
}

// TestDiscoverInLibraryByOrigin checks that a file of the same name taken
// from another repository does not make a level "In library".
func TestDiscoverInLibraryByOrigin(t *testing.T) {
	h, q4 := discoverHub(t)
	model, err := os.ReadFile(tinyModel(t))
	if err != nil {
		t.Fatal(err)
	}
	const twin = "acme/Twin-GGUF"
	h.AddRepo(twin, map[string][]byte{tinyQ4: model}, hubtest.RepoOptions{})
	u := newDiscoverUI(t, "", q4)
	v := u.discover
	showDiscover(t, u)
	openDiscoverRepo(t, v, tinyRepo)
	tapDownload(t, v, "Q4_K_M")
	waitJob(t, v, jobID(h, tinyQ4), "the download", func(r jobRow) bool { return r.State == download.Done })
	waitFor(t, "In library", func() bool { return levelOf(t, v, "Q4_K_M").Action == "In library" })
	openDiscoverRepo(t, v, twin)
	if r := levelOf(t, v, "Q4_K_M"); r.InLibrary || r.Action != "Name taken" || r.Enabled {
		t.Errorf("the twin repository's level: %+v", r)
	}
	// A file put in the folder by hand has no origin either.
	if err := os.WriteFile(filepath.Join(u.core.Library().Dir(), "Other-Q4_0.gguf"), make([]byte, 100), 0o644); err != nil {
		t.Fatal(err)
	}
	openDiscoverRepo(t, v, otherRepo)
	if r := levelOf(t, v, "Q4_0"); r.InLibrary {
		t.Errorf("a file of the same name and size counts as downloaded: %+v", r)
	}
}

// TestDiscoverPausedLevelResumes checks that a paused download's level
// offers Resume, which resumes it, and that a second Download's error is
// shown in a dialog.
func TestDiscoverPausedLevelResumes(t *testing.T) {
	_, u, id := startSlowDownload(t, 256<<10)
	v := u.discover
	tapRow(t, v, id, func(r *jobRowView) *widget.Button { return r.pauseBtn })
	paused := waitJob(t, v, id, "the pause", func(r jobRow) bool { return r.State == download.Paused })
	waitFor(t, "Resume", func() bool { r := levelOf(t, v, "Q4_K_M"); return r.Action == "Resume" && r.Enabled })
	tapDownload(t, v, "Q4_K_M")
	waitJob(t, v, id, "the resumed transfer", func(r jobRow) bool { return r.State == download.Running && r.Done > paused.Done })
	tapRow(t, v, id, func(r *jobRowView) *widget.Button { return r.cancelBtn })
	waitFor(t, "the cancelled row to go", func() bool { _, ok := v.snapshot().Jobs[id]; return !ok })

	// A file of the level's name is in the folder: the error shows in a
	// dialog, not only above the table.
	if err := os.WriteFile(filepath.Join(u.core.Library().Dir(), "Tiny-Chat-Q8_0.gguf"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	v.locked(func() { v.download(v.levels[2]) })
	waitFor(t, "the refusal", func() bool { return v.snapshot().NoteError })
	if s := v.snapshot(); s.Alerts != 1 {
		t.Errorf("%d dialogs for the refusal %q", s.Alerts, s.Note)
	}
}
