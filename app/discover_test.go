package app

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"saji/engine/download"
	"saji/engine/fit"
	"saji/engine/hardware"
	"saji/engine/hub"
	"saji/engine/hub/hubtest"
	"saji/engine/library"
	"saji/engine/synth"
	"saji/engine/synth/synthtest"
	"saji/engine/units"
)

// The fake hub's repositories.
const (
	tinyRepo  = "acme/Tiny-Chat-GGUF"
	gatedRepo = "acme/Gated-GGUF"
	otherRepo = "zeta/Other-GGUF"
	tinyQ4    = "Tiny-Chat-Q4_K_M.gguf"
)

// discoverHub starts a fake hub as HF_ENDPOINT with three repositories:
// tinyRepo (levels Q2_K, Q4_K_M — the tiny model, a real one — Q8_0 and
// F16, plus a projector), a gated one and another. It returns the hub and
// the size of the Q4_K_M file.
func discoverHub(t *testing.T) (*hubtest.Hub, int64) {
	t.Helper()
	h := hubtest.New(t)
	t.Setenv("HF_ENDPOINT", h.URL)
	t.Setenv("HF_TOKEN", "")
	t.Setenv("HUGGING_FACE_HUB_TOKEN", "")
	model, err := os.ReadFile(tinyModel(t))
	if err != nil {
		t.Fatal(err)
	}
	n := len(model)
	h.AddRepo(tinyRepo, map[string][]byte{
		"Tiny-Chat-Q2_K.gguf":       randomBytes(t, n/3),
		tinyQ4:                      model,
		"Tiny-Chat-Q8_0.gguf":       randomBytes(t, 3*n),
		"Tiny-Chat-F16.gguf":        randomBytes(t, 10*n),
		"mmproj-Tiny-Chat-F16.gguf": randomBytes(t, 1000),
	}, hubtest.RepoOptions{Downloads: 5000, Likes: 40, License: "apache-2.0", BaseModel: "acme/Tiny-Chat",
		Card: "---\nlicense: apache-2.0\n---\n# Tiny Chat\n\nA tiny chat model for tests.\n"})
	h.AddRepo(gatedRepo, map[string][]byte{"Gated-Q4_K_M.gguf": randomBytes(t, 2000)},
		hubtest.RepoOptions{Gated: true, Downloads: 100, Likes: 900, License: "other"})
	h.AddRepo(otherRepo, map[string][]byte{"Other-Q4_0.gguf": randomBytes(t, 100)},
		hubtest.RepoOptions{Downloads: 10, Likes: 5})
	return h, int64(n)
}

// randomBytes returns n random bytes.
func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	rand.Read(b)
	return b
}

// fakeMemory is a machine on which a file of q4 bytes fits, one three
// times larger is tight and one ten times larger too big.
func fakeMemory(q4 int64) func() (hardware.Memory, error) {
	return func() (hardware.Memory, error) {
		return hardware.Memory{Available: uint64(fit.SizeNeed(q4 * 2)), Total: uint64(fit.SizeNeed(q4 * 5))}, nil
	}
}

// newDiscoverUI returns a main window whose downloads keep their state in
// dir ("" for a temporary folder) and whose memory is fakeMemory(q4).
func newDiscoverUI(t *testing.T, dir string, q4 int64) *ui {
	t.Helper()
	u := newTestUI(t, &fakeGen{})
	if dir == "" {
		dir = t.TempDir()
	}
	u.core.downloadsDir = dir
	u.discover.memory = fakeMemory(q4)
	t.Cleanup(u.discover.wait)
	return u
}

// showDiscover selects the Discover tab and waits for the first search.
func showDiscover(t *testing.T, u *ui) {
	t.Helper()
	v := u.discover
	v.locked(func() { u.tabs.SelectIndex(tabDiscover) })
	waitFor(t, "the first search", func() bool { return v.snapshot().Searches >= 1 })
}

// openDiscoverRepo shows id's details and waits for them.
func openDiscoverRepo(t *testing.T, v *discoverView, id string) discoverSnapshot {
	t.Helper()
	v.locked(func() { v.openRepo(id) })
	waitFor(t, "the repository's details", func() bool { s := v.snapshot(); return s.Repo == id && s.RepoLoaded })
	return v.snapshot()
}

// tapDownload taps the quant table's button of level (Download, Resume
// or Retry).
func tapDownload(t *testing.T, v *discoverView, level string) {
	t.Helper()
	v.locked(func() {
		for _, c := range v.fitCells {
			if c != nil && c.name.Text == level {
				test.Tap(c.download)
				return
			}
		}
		t.Fatalf("no row for %s in the quant table", level)
	})
}

// startDownload opens tinyRepo in Discover with a hub that sends
// bytesPerSec (0: at full speed) and taps Q4_K_M's Download. It returns
// the hub, the window, the job's ID and the size of the file.
func startDownload(t *testing.T, bytesPerSec int64) (*hubtest.Hub, *ui, string, int64) {
	t.Helper()
	h, q4 := discoverHub(t)
	if bytesPerSec > 0 {
		h.Throttle(bytesPerSec)
	}
	u := newDiscoverUI(t, "", q4)
	showDiscover(t, u)
	openDiscoverRepo(t, u.discover, tinyRepo)
	tapDownload(t, u.discover, "Q4_K_M")
	return h, u, jobID(h, tinyQ4), q4
}

// startSlowDownload is startDownload with a hub slow enough to act on
// the download (seconds for the whole file), once its first bytes came.
func startSlowDownload(t *testing.T, bytesPerSec int64) (*hubtest.Hub, *ui, string) {
	t.Helper()
	h, u, id, _ := startDownload(t, bytesPerSec)
	waitJob(t, u.discover, id, "bytes", func(r jobRow) bool { return r.State == download.Running && r.Done > 0 })
	return h, u, id
}

// jobID is the download ID of a file of tinyRepo.
func jobID(h *hubtest.Hub, file string) string {
	return tinyRepo + "/" + file + "@" + h.Commit(tinyRepo)
}

// waitJob waits until the job id is in the list and cond holds for it.
func waitJob(t *testing.T, v *discoverView, id, what string, cond func(jobRow) bool) jobRow {
	t.Helper()
	var r jobRow
	waitFor(t, what, func() bool {
		var ok bool
		r, ok = v.snapshot().Jobs[id]
		return ok && cond(r)
	})
	return r
}

// tapRow taps one of the job id's buttons while no update draws.
func tapRow(t *testing.T, v *discoverView, id string, pick func(*jobRowView) *widget.Button) {
	t.Helper()
	v.locked(func() {
		row := v.rows[id]
		if row == nil {
			t.Fatalf("no row for %s", id)
		}
		test.Tap(pick(row))
	})
}

func TestDiscoverNoNetworkAtLaunch(t *testing.T) {
	h, q4 := discoverHub(t)
	u := newDiscoverUI(t, "", q4)
	if n := len(h.Requests()); n != 0 {
		t.Fatalf("the app made %d requests to the hub before the view showed", n)
	}
	u.discover.locked(func() { u.tabs.SelectIndex(tabLibrary) })
	if n := len(h.Requests()); n != 0 {
		t.Fatalf("another tab made %d requests to the hub", n)
	}
}

func TestDiscoverSearch(t *testing.T) {
	h, q4 := discoverHub(t)
	u := newDiscoverUI(t, "", q4)
	v := u.discover
	showDiscover(t, u)
	s := v.snapshot()
	if want := []string{tinyRepo, gatedRepo, otherRepo}; !slices.Equal(s.Results, want) || s.SearchError != "" {
		t.Fatalf("first results %v (error %q), want the most downloaded first %v", s.Results, s.SearchError, want)
	}
	var q string
	for _, r := range h.Requests() {
		if r.Path == "/api/models" {
			q = r.Query
		}
	}
	if !strings.Contains(q, "gguf") || !strings.Contains(q, "sort=downloads") {
		t.Errorf("the first search asked %q, want GGUF models by downloads", q)
	}

	// Sorting by likes searches again.
	v.locked(func() { v.sortSel.SetSelected("Most liked") })
	waitFor(t, "the sorted search", func() bool { return v.snapshot().Searches >= 2 })
	if got := v.snapshot().Results; len(got) != 3 || got[0] != gatedRepo {
		t.Errorf("by likes %v, want %s first", got, gatedRepo)
	}

	// A query, submitted with the button.
	v.locked(func() {
		v.query.SetText("other")
		test.Tap(v.searchBtn)
	})
	waitFor(t, "the query's results", func() bool { return v.snapshot().Searches >= 3 })
	if got := v.snapshot().Results; !slices.Equal(got, []string{otherRepo}) {
		t.Errorf("query other: %v", got)
	}
	// And with Enter, matching nothing.
	v.locked(func() {
		v.query.SetText("no such model")
		v.query.OnSubmitted(v.query.Text)
	})
	waitFor(t, "the empty results", func() bool { return v.snapshot().Searches >= 4 })
	v.locked(func() {
		if !strings.Contains(v.resultsNote.Text, "No GGUF models match") || !v.resultsNote.Visible() {
			t.Errorf("no results says %q", v.resultsNote.Text)
		}
	})
}

func TestDiscoverQuantTable(t *testing.T) {
	_, q4 := discoverHub(t)
	u := newDiscoverUI(t, "", q4)
	v := u.discover
	showDiscover(t, u)
	v.locked(func() { v.resultsList.Select(0) })
	waitFor(t, "the details", func() bool { s := v.snapshot(); return s.Repo == tinyRepo && s.RepoLoaded })
	s := v.snapshot()
	if s.RepoError != "" || s.Gated {
		t.Fatalf("error %q gated %v", s.RepoError, s.Gated)
	}
	type want struct {
		name    string
		size    int64
		verdict string
		rec     bool
	}
	wants := []want{
		{"Q2_K", q4 / 3, "fits", false},
		{"Q4_K_M", q4, "fits", true},
		{"Q8_0", 3 * q4, "tight", false},
		{"F16", 10 * q4, "too big", false},
	}
	if len(s.Levels) != len(wants) {
		t.Fatalf("levels %+v", s.Levels)
	}
	for i, w := range wants {
		got := s.Levels[i]
		if got.Name != w.name || got.Size != w.size || !got.HasVerdict || got.Verdict.Word() != w.verdict || got.Recommended != w.rec || got.Shards != 1 {
			t.Errorf("level %d: %+v, want %+v", i, got, w)
		}
	}
	if !slices.Equal(s.MMProj, []string{"mmproj-Tiny-Chat-F16.gguf"}) {
		t.Errorf("projectors %v", s.MMProj)
	}
	v.locked(func() {
		for _, text := range []string{"Recommended", "Fits", "Tight", "Too big", "Q4_K_M", units.Bytes(q4)} {
			if !findLabel(v.quantTable, text) {
				t.Errorf("the quant table shows no %q", text)
			}
		}
		if !strings.Contains(v.detailCard.Text, "A tiny chat model for tests.") || !strings.Contains(v.detailCard.Text, "apache-2.0") {
			t.Errorf("card %q", v.detailCard.Text)
		}
		if !strings.Contains(v.mmprojNote.Text, "mmproj-Tiny-Chat-F16.gguf") || !v.mmprojNote.Visible() {
			t.Errorf("projector note %q", v.mmprojNote.Text)
		}
		if !strings.Contains(v.detailInfo.Text, "5,000 downloads") {
			t.Errorf("info %q", v.detailInfo.Text)
		}
	})
}

func TestDiscoverDownload(t *testing.T) {
	h, u, id, q4 := startDownload(t, 0)
	v := u.discover
	r := waitJob(t, v, id, "the download", func(r jobRow) bool { return r.State == download.Done || r.State == download.Failed })
	if r.State != download.Done || r.Done != q4 || r.Quant != "Q4_K_M" || r.File != tinyQ4 {
		t.Fatalf("job %+v", r)
	}
	waitFor(t, "the announcement", func() bool { return v.snapshot().Finished >= 1 })
	lib := u.core.Library()
	e, err := lib.Get("Tiny-Chat-Q4_K_M")
	if err != nil || e.Err != nil || e.ByReference || e.Size != q4 {
		t.Fatalf("library entry %+v, %v", e, err)
	}
	// The repository's projector came with it, and pairs with it.
	waitFor(t, "the projector", func() bool {
		e, _ = lib.Get("Tiny-Chat-Q4_K_M")
		return e.Projector != ""
	})
	if filepath.Base(e.Projector) != "mmproj-Tiny-Chat-F16.gguf" {
		t.Errorf("projector %q", e.Projector)
	}
	v.locked(func() {
		if !slices.ContainsFunc(u.library.entries, func(e library.Entry) bool { return e.Name == "Tiny-Chat-Q4_K_M" }) {
			t.Errorf("the library view lists %v", u.library.entries)
		}
		row := v.rows[id]
		if !row.chatBtn.Visible() || row.pauseBtn.Visible() || row.cancelBtn.Visible() {
			t.Error("a finished download offers Chat only")
		}
		if !strings.Contains(row.info.Text, "in the library") {
			t.Errorf("finished row says %q", row.info.Text)
		}
	})
	// The token never went to the CDN, and the download asked the hub
	// about the file first.
	for _, r := range h.Requests() {
		if r.Server == "cdn" && r.Auth {
			t.Errorf("the CDN got a token: %+v", r)
		}
	}
	// The level is now in the library: its button says so.
	openDiscoverRepo(t, v, otherRepo)
	s := openDiscoverRepo(t, v, tinyRepo)
	if !s.Levels[1].InLibrary {
		t.Errorf("Q4_K_M not marked in the library: %+v", s.Levels[1])
	}
	// Chat opens the model in the chat.
	tapRow(t, v, id, func(r *jobRowView) *widget.Button { return r.chatBtn })
	if u.tabs.SelectedIndex() != tabChat {
		t.Errorf("Chat selected tab %d", u.tabs.SelectedIndex())
	}
}

// TestDiscoverUnrunnable marks the levels Saji cannot run and refuses
// their download: one by its header (read with HTTP Range), whose mark
// and button go, and one by its name, which is never recommended.
func TestDiscoverUnrunnable(t *testing.T) {
	h, q4 := discoverHub(t)
	const repo = "acme/Unrunnable-GGUF"
	bad := filepath.Join(t.TempDir(), "q1.gguf")
	if err := synth.WriteUnrunnable(context.Background(), bad); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(bad)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"Unrunnable-Q4_K_M.gguf": b}
	named := synthtest.UnrunnableLevel()
	if named != "" {
		files["Unrunnable-"+named+".gguf"] = randomBytes(t, int(q4/3))
	}
	h.AddRepo(repo, files, hubtest.RepoOptions{})
	u := newDiscoverUI(t, "", q4)
	v := u.discover
	showDiscover(t, u)
	openDiscoverRepo(t, v, repo)
	level := func(name string) quantRow {
		for _, r := range v.snapshot().Levels {
			if r.Name == name {
				return r
			}
		}
		t.Fatalf("no level %s", name)
		return quantRow{}
	}
	waitFor(t, "Q4_K_M's header", func() bool { return level("Q4_K_M").CannotRun != "" })
	if r := level("Q4_K_M"); r.CannotRun != "blk.0.ffn_up.weight is Q1_0, a type Saji cannot compute with yet" || r.Recommended {
		t.Errorf("Q4_K_M: %+v", r)
	}
	if named != "" {
		if r := level(named); !strings.HasPrefix(r.CannotRun, named+" files are mostly ") || r.Recommended {
			t.Errorf("%s: %+v", named, r)
		}
	}
	v.locked(func() {
		if !findLabel(v.quantTable, cannotRunText) {
			t.Error("the quant table does not mark the levels Saji cannot run")
		}
		for _, c := range v.fitCells {
			if c.mark.Visible() {
				t.Errorf("%s recommended", c.name.Text)
			}
			if !c.download.Disabled() {
				t.Errorf("%q can be downloaded", c.download.Text)
			}
		}
	})
	// A download asked for before the header was read reads it first.
	levels, err := v.client().Files(context.Background(), repo, "main")
	if err != nil {
		t.Fatal(err)
	}
	q, _ := hub.Find(hub.Group(levels), "Q4_K_M")
	jobs, err := v.startLevel(v.client(), repo, h.Commit(repo), t.TempDir(), q, false)
	if want := "Saji cannot run it yet: blk.0.ffn_up.weight is Q1_0, a type Saji cannot compute with yet."; err == nil || err.Error() != want || len(jobs) != 0 {
		t.Errorf("startLevel: %d jobs, %v; want %q", len(jobs), err, want)
	}
}

func TestDiscoverGated(t *testing.T) {
	h, q4 := discoverHub(t)
	u := newDiscoverUI(t, "", q4)
	v := u.discover
	showDiscover(t, u)
	s := openDiscoverRepo(t, v, gatedRepo)
	if !s.Gated || !strings.Contains(s.Note, "gated") {
		t.Fatalf("gated repository: gated %v, note %q", s.Gated, s.Note)
	}
	tapDownload(t, v, "Q4_K_M")
	waitFor(t, "the refusal", func() bool { return v.snapshot().NoteError })
	s = v.snapshot()
	for _, want := range []string{"gated", "accept their licence", h.URL + "/" + gatedRepo, "access token"} {
		if !strings.Contains(s.Note, want) {
			t.Errorf("gated message %q lacks %q", s.Note, want)
		}
	}
	if len(s.Jobs) != 0 {
		t.Errorf("a gated download was queued: %v", s.Jobs)
	}
	// With a token saved in the view, it downloads.
	u.core.prefs.SetString(prefHFToken, "hf_test")
	tapDownload(t, v, "Q4_K_M")
	id := gatedRepo + "/Gated-Q4_K_M.gguf@" + h.Commit(gatedRepo)
	r := waitJob(t, v, id, "the gated download", func(r jobRow) bool { return r.State == download.Done || r.State == download.Failed })
	if r.State != download.Done {
		t.Fatalf("with a token: %+v", r)
	}
}

func TestDiscoverOffline(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	t.Setenv("HF_ENDPOINT", "http://"+addr)
	u := newDiscoverUI(t, "", 1<<20)
	v := u.discover
	showDiscover(t, u)
	s := v.snapshot()
	if want := "Saji could not reach Hugging Face (" + addr + ")"; !strings.Contains(s.SearchError, want) {
		t.Fatalf("offline search says %q, want %q", s.SearchError, want)
	}
	s = openDiscoverRepo(t, v, tinyRepo)
	if !strings.Contains(s.RepoError, "could not reach Hugging Face") {
		t.Errorf("offline details say %q", s.RepoError)
	}
}

func TestDiscoverNotFound(t *testing.T) {
	_, q4 := discoverHub(t)
	u := newDiscoverUI(t, "", q4)
	s := openDiscoverRepo(t, u.discover, "acme/missing")
	if !strings.Contains(s.RepoError, "Hugging Face has no model called acme/missing") {
		t.Errorf("missing repository says %q", s.RepoError)
	}
}

func TestDiscoverPauseCancel(t *testing.T) {
	_, u, id := startSlowDownload(t, 256<<10)
	v := u.discover

	tapRow(t, v, id, func(r *jobRowView) *widget.Button { return r.pauseBtn })
	r := waitJob(t, v, id, "the pause", func(r jobRow) bool { return r.State == download.Paused })
	v.locked(func() {
		row := v.rows[id]
		if !row.resumeBtn.Visible() || row.pauseBtn.Visible() || !strings.Contains(row.info.Text, "paused") {
			t.Errorf("paused row: resume %v pause %v info %q", row.resumeBtn.Visible(), row.pauseBtn.Visible(), row.info.Text)
		}
	})
	tapRow(t, v, id, func(r *jobRowView) *widget.Button { return r.resumeBtn })
	waitJob(t, v, id, "the resumed transfer", func(r2 jobRow) bool { return r2.State == download.Running && r2.Done > r.Done })

	tapRow(t, v, id, func(r *jobRowView) *widget.Button { return r.cancelBtn })
	waitFor(t, "the cancelled row to go", func() bool { _, ok := v.snapshot().Jobs[id]; return !ok })
	dest := filepath.Join(u.core.Library().Dir(), tinyQ4)
	if _, err := os.Stat(dest); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a cancelled download left %s (%v)", dest, err)
	}
	left, _ := os.ReadDir(u.core.downloadsDir)
	if len(left) != 0 {
		t.Errorf("a cancelled download left its state: %v", left)
	}
	v.locked(func() {
		// What is left is the projector that came with the level, a
		// download of its own.
		for rid := range v.rows {
			if !strings.Contains(rid, "/mmproj-") {
				t.Errorf("the list still shows the cancelled download (%s)", rid)
			}
		}
	})
}

func TestDiscoverRestoredJobs(t *testing.T) {
	h, q4 := discoverHub(t)
	h.Throttle(256 << 10)
	dir := t.TempDir()
	u1 := newDiscoverUI(t, dir, q4)
	v1 := u1.discover
	showDiscover(t, u1)
	openDiscoverRepo(t, v1, tinyRepo)
	tapDownload(t, v1, "Q4_K_M")
	id := jobID(h, tinyQ4)
	waitJob(t, v1, id, "bytes", func(r jobRow) bool { return r.State == download.Running && r.Done > 0 })
	v1.close() // the app quits mid-download, as when its window closes
	v1.wait()

	// The next run lists it, paused where it stopped, and resumes it.
	u2 := newDiscoverUI(t, dir, q4)
	v2 := u2.discover
	showDiscover(t, u2)
	r := waitJob(t, v2, id, "the restored job", func(r jobRow) bool { return true })
	if r.State != download.Paused || r.Done <= 0 || r.Quant != "Q4_K_M" {
		t.Fatalf("restored job %+v", r)
	}
	h.Throttle(0)
	tapRow(t, v2, id, func(r *jobRowView) *widget.Button { return r.resumeBtn })
	r = waitJob(t, v2, id, "the resumed download", func(r jobRow) bool { return r.State == download.Done || r.State == download.Failed })
	if r.State != download.Done {
		t.Fatalf("resumed job %+v", r)
	}
	if st, err := os.Stat(filepath.Join(u1.core.Library().Dir(), tinyQ4)); err != nil || st.Size() != q4 {
		t.Errorf("the resumed download is not in the library: %v", err)
	}
	// It resumed with a Range request rather than from the start.
	ranged := false
	for _, r := range h.Requests() {
		if r.Server == "cdn" && strings.HasPrefix(r.Range, "bytes=") && !strings.HasPrefix(r.Range, "bytes=0-") {
			ranged = true
		}
	}
	if !ranged {
		t.Error("the restored download started over instead of resuming")
	}
}

func TestTimeAgo(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		ago  time.Duration
		want string
	}{
		{10 * time.Second, "just now"},
		{time.Minute, "1 minute ago"},
		{5 * time.Minute, "5 minutes ago"},
		{3 * time.Hour, "3 hours ago"},
		{30 * time.Hour, "yesterday"},
		{3 * 24 * time.Hour, "3 days ago"},
		{90 * 24 * time.Hour, "3 months ago"},
		{800 * 24 * time.Hour, "2 years ago"},
	} {
		if got := timeAgo(now.Add(-tc.ago), now); got != tc.want {
			t.Errorf("timeAgo(%v) = %q, want %q", tc.ago, got, tc.want)
		}
	}
}

func TestModelNameOf(t *testing.T) {
	for _, tc := range []struct {
		dest, name string
		ok         bool
	}{
		{"/m/Llama-Q4_K_M.gguf", "Llama-Q4_K_M", true},
		{"/m/big-Q8_0-00001-of-00003.gguf", "big-Q8_0-00001-of-00003", true},
		{"/m/big-Q8_0-00002-of-00003.gguf", "", false},
		{"/m/mmproj-model-f16.gguf", "", false},
		{"/m/README.md", "", false},
	} {
		name, ok := modelNameOf(tc.dest)
		if name != tc.name || ok != tc.ok {
			t.Errorf("modelNameOf(%s) = %q, %v", tc.dest, name, ok)
		}
	}
}

func TestDownloadMessages(t *testing.T) {
	c := &hub.Client{Endpoint: "https://hf.example"}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("download: x: %w", download.ErrDiskFull), "not enough free disk space"},
		{fmt.Errorf("download: x: %w", download.ErrChecksum), "arrived damaged"},
		{&download.HTTPError{StatusCode: http.StatusUnauthorized}, "gated or needs an access token"},
		{&download.HTTPError{StatusCode: http.StatusNotFound}, "no longer on Hugging Face"},
		{&download.HTTPError{StatusCode: http.StatusBadGateway}, "HTTP 502"},
		{&net.OpError{Op: "dial", Err: errors.New("refused")}, "could not reach Hugging Face (hf.example)"},
		{errors.New("download: something odd"), "Something odd."},
	} {
		if got := downloadErrorText(tc.err, c); !strings.Contains(got, tc.want) {
			t.Errorf("%v: %q, want %q in it", tc.err, got, tc.want)
		}
	}
}
