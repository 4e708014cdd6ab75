package cli

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"saji/engine/download"
	"saji/engine/fit"
	"saji/engine/hardware"
	"saji/engine/hub"
	"saji/engine/library"
	"saji/engine/model"
	"saji/engine/units"
)

// pullEnv is what saji pull takes from the machine; the zero value means
// the real machine, and tests stand in for parts of it.
type pullEnv struct {
	// stateDir holds the download manager's state and partial files
	// ("": downloads in Saji's XDG data folder).
	stateDir string
	// memory reads the RAM (nil: hardware.ReadMemory).
	memory func() (hardware.Memory, error)
	// freeSpace is download.Options.FreeSpace (nil: the real disk).
	freeSpace func(dir string) (uint64, error)
	// backoff is download.Options.Backoff (0: its default).
	backoff time.Duration
	// exit ends the process with a status (nil: os.Exit); an interrupted
	// pull exits 130, as a shell reports a command ended by Ctrl-C.
	exit func(code int)
	// terminal forces the progress display (nil: a bar when stderr is a
	// terminal, lines every 10% otherwise).
	terminal *bool
	// describe reads a level's shape from its first file's header (nil:
	// fit.DescribeSplitURL, with HTTP Range requests).
	describe func(ctx context.Context, client *http.Client, url string, header http.Header, total int64) (fit.ModelShape, error)
}

// errInterrupted is what an interrupted pull returns when exit returns
// (only in tests: os.Exit does not).
var errInterrupted = errors.New("pull: interrupted")

// exitInterrupted is the status of a command ended by SIGINT (128+2).
const exitInterrupted = 130

// newPullCmd is 'saji pull REPO[:QUANT]'.
func newPullCmd() *cobra.Command { return newPullCmdWith(pullEnv{}) }

// pullFlags are saji pull's options.
type pullFlags struct {
	modelsDir   string
	list        bool
	mmproj      bool
	revision    string
	connections int
}

func newPullCmdWith(env pullEnv) *cobra.Command {
	var fl pullFlags
	cmd := &cobra.Command{
		Use:   "pull REPO[:QUANT]",
		Short: "Download a GGUF model from Hugging Face into the library",
		Long: "Download a model's GGUF file(s) at one quantization level from a Hugging Face\n" +
			"repository into the library, showing each level's size and whether it fits\n" +
			"this machine's memory. Without QUANT, the level recommended for the free\n" +
			"memory is taken. The download resumes where it stopped when the same command\n" +
			"runs again (after Ctrl-C, a dropped connection or a restart), and the file\n" +
			"enters the library only once its sha256 matches the repository's.\n\n" +
			"HF_ENDPOINT sets the hub (default https://huggingface.co); HF_TOKEN is the\n" +
			"access token gated and private repositories need.",
		Example: "  saji pull bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M\n" +
			"  saji pull hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF --list\n" +
			"  saji pull https://huggingface.co/unsloth/gemma-3-4b-it-GGUF --mmproj",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("pull: want one REPO[:QUANT], got %d argument(s)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			if fl.connections < 1 {
				return fmt.Errorf("pull: --connections must be 1 or more, not %d", fl.connections)
			}
			repo, level, err := hub.Parse(args[0])
			if err != nil {
				return fmt.Errorf("pull: %w", err)
			}
			terminal := writesToTerminal(cmd.ErrOrStderr())
			if env.terminal != nil {
				terminal = *env.terminal
			}
			p := &puller{
				env: env, fl: fl, repo: repo, level: level,
				client: hub.NewClient(),
				out:    cmd.OutOrStdout(),
				ui:     &pullUI{w: cmd.ErrOrStderr(), terminal: terminal},
			}
			p.fl.modelsDir = cmp.Or(p.fl.modelsDir, library.ModelsDir())
			p.fl.revision = cmp.Or(p.fl.revision, "main")
			return p.run(ctx)
		},
	}
	f := cmd.Flags()
	f.StringVar(&fl.modelsDir, "models-dir", "", "the library folder to download into (default "+library.ModelsDir()+")")
	f.BoolVar(&fl.list, "list", false, "print the repository's quantization levels and exit")
	f.BoolVar(&fl.mmproj, "mmproj", false, "also download the multimodal projector (mmproj) file")
	f.StringVar(&fl.revision, "revision", "main", "the branch, tag or commit to download from")
	f.IntVar(&fl.connections, "connections", download.DefaultConnections, "parallel connections per file")
	return cmd
}

// puller is one run of saji pull.
type puller struct {
	env    pullEnv
	fl     pullFlags
	repo   string
	level  string // "" for the recommended one
	client *hub.Client
	out    io.Writer // the table and the outcome
	ui     *pullUI   // progress and notes (stderr)
}

// pullFile is one file to fetch.
type pullFile struct {
	hub.File
	dest string
	id   string
	url  string
}

func (p *puller) run(ctx context.Context) error {
	files, err := p.client.Files(ctx, p.repo, p.fl.revision)
	if err != nil {
		return p.hubError(ctx, err)
	}
	levels := hub.Group(files)
	if len(levels) == 0 {
		return fmt.Errorf("pull: %s has no GGUF files (Saji runs GGUF models; look for a repository with GGUF in its name)", p.repo)
	}
	mem, memErr := p.readMemory()
	rec, recOK := recommend(levels, mem, memErr)
	if p.fl.list || p.level == "" {
		p.printTable(levels, mem, memErr, rec, recOK)
	}
	if p.fl.list {
		return nil
	}

	var q hub.Quant
	if p.level == "" {
		if len(rec.Files) == 0 {
			for _, l := range levels {
				if err := fit.LevelRunnable(l.Name); err != nil {
					return fmt.Errorf("pull: %s has no level Saji can run: %w", p.repo, err)
				}
			}
			return fmt.Errorf("pull: every level of %s is missing shards", p.repo)
		}
		q = rec
		fmt.Fprintln(p.out, pickReason(rec, recOK, mem, memErr))
	} else {
		var ok bool
		if q, ok = hub.Find(levels, p.level); !ok {
			return fmt.Errorf("pull: %s has no %s level; it has %s", p.repo, p.level, levelNames(levels))
		}
		if err := fit.LevelRunnable(q.Name); err != nil {
			return fmt.Errorf("pull: not downloading %s of %s: %w", q.Name, p.repo, err)
		}
		if memErr == nil && levelPlan(q, mem).Verdict.Kind == fit.WontFit {
			p.ui.notef("warning: %s (%s) needs about %s of memory and this machine has %s; it will not run well",
				q.Name, units.Bytes(q.Size), units.Bytes(fit.SizeNeed(q.Size)), units.Bytes(int64(mem.Total)))
		}
	}
	if q.Incomplete {
		return fmt.Errorf("pull: %s of %s is missing shards: the repository has %d of its %d files", q.Name, p.repo, len(q.Files), q.Shards)
	}
	want := q.Files
	if p.fl.mmproj {
		if pj, ok := hub.PickMMProj(q.MMProj); ok {
			want = append(want[:len(want):len(want)], pj)
		} else {
			p.ui.notef("note: %s has no projector (mmproj) file", p.repo)
		}
	}

	var todo []pullFile
	var total int64
	for _, f := range want {
		dest := filepath.Join(p.fl.modelsDir, path2base(f.Path))
		ok, err := p.present(ctx, f, dest)
		if err != nil {
			return err
		}
		if !ok {
			todo = append(todo, pullFile{File: f, dest: dest})
			total += f.Size
		}
	}
	first := filepath.Join(p.fl.modelsDir, path2base(q.Files[0].Path))
	if len(todo) == 0 {
		fmt.Fprintf(p.out, "%s is already in the library (%s)\n", p.libraryName(first), first)
		return nil
	}
	// The hub says which commit the revision is at; the download is pinned
	// to it, so a resumed download never mixes two versions of a file.
	for i := range todo {
		f := &todo[i]
		meta, err := p.client.Stat(ctx, p.repo, p.fl.revision, f.Path)
		if err != nil {
			return p.hubError(ctx, err)
		}
		commit := cmp.Or(meta.Commit, p.fl.revision)
		f.Size = cmp.Or(f.Size, meta.Size)
		f.SHA256 = cmp.Or(f.SHA256, meta.SHA256)
		f.id = p.repo + "/" + f.Path + "@" + commit
		f.url = p.client.FileURL(p.repo, commit, f.Path)
	}
	if err := p.download(ctx, q, todo, total); err != nil {
		return err
	}
	entry := p.libraryName(first)
	fmt.Fprintf(p.out, "Added %s to the library (%s)\n", entry, first)
	if len(want) > len(q.Files) {
		pj := want[len(want)-1]
		fmt.Fprintf(p.out, "Its projector is %s\n", filepath.Join(p.fl.modelsDir, path2base(pj.Path)))
	}
	return nil
}

// download fetches files with a download manager, showing the progress,
// until they are all in the library or ctx ends (which pauses them).
func (p *puller) download(ctx context.Context, q hub.Quant, files []pullFile, total int64) error {
	stateDir := cmp.Or(p.env.stateDir, library.DownloadsDir())
	m, err := download.New(download.Options{
		StateDir:    stateDir,
		Connections: p.fl.connections,
		FreeSpace:   p.env.freeSpace,
		Backoff:     p.env.backoff,
		Logger:      slog.New(&pullLog{ui: p.ui, next: slog.Default().Handler()}),
	})
	if err != nil {
		return fmt.Errorf("pull: %w", err)
	}
	defer m.Close()

	// What a previous run left: its bytes count as done; a stopped
	// download of another commit of the same file is dropped.
	var resumed int64
	for _, j := range m.Jobs() {
		for _, f := range files {
			if j.ID() == f.id {
				resumed += j.Progress().Done
			} else if strings.HasPrefix(j.ID(), p.repo+"/"+f.Path+"@") {
				j.Cancel()
			}
		}
	}
	if resumed == 0 {
		if err := p.checkHeader(ctx, q, files); err != nil {
			return err
		}
	}
	what := "1 file"
	if len(files) > 1 {
		what = fmt.Sprintf("%d files", len(files))
	}
	p.ui.notef("Downloading %s of %s: %s in %s, into %s", q.Name, p.repo, units.Bytes(total), what, p.fl.modelsDir)
	if resumed > 0 && total > 0 {
		p.ui.notef("Resuming at %d%% (%s already here)", percent(resumed, total), units.Bytes(resumed))
	}
	p.ui.begin(q.Name, resumed, total)

	hdr := p.client.Header()
	jobs := make([]*download.Job, len(files))
	for i, f := range files {
		j, err := m.Start(download.Request{
			ID: f.id, URL: f.url, Header: hdr, Size: f.Size, SHA256: f.SHA256, Dest: f.dest,
			Meta: map[string]string{"repo": p.repo, "file": f.Path, "quant": q.Name},
		})
		if err != nil {
			return fmt.Errorf("pull: %w", err)
		}
		jobs[i] = j
	}
	type result struct {
		i   int
		err error
	}
	results := make(chan result, len(jobs))
	for i, j := range jobs {
		go func() { results <- result{i, j.Wait(context.Background())} }() // ends by m.Close at the latest
	}
	tick := time.NewTicker(barInterval)
	defer tick.Stop()
	verifying := map[int]bool{}
	var meter rateMeter
	for left := len(jobs); left > 0; {
		select {
		case <-ctx.Done():
			m.Close() // pauses the jobs, saving their state
			done, _ := sumProgress(jobs)
			p.ui.end(false)
			p.ui.notef("Interrupted at %d%%: run the same command again to resume.", percent(done, total))
			return p.interrupted()
		case r := <-results:
			left--
			if r.err != nil {
				m.Close()
				p.ui.end(false)
				return p.downloadError(q, files[r.i], total, r.err)
			}
		case <-tick.C:
			for i, j := range jobs {
				if !verifying[i] && j.Progress().State == download.Verifying {
					verifying[i] = true
					p.ui.notef("verifying sha256%s", fileSuffix(files, i))
				}
			}
			done, rate := sumProgress(jobs)
			p.ui.progress(done, total, meter.rate(time.Now(), done, rate))
		}
	}
	p.ui.progress(total, total, 0)
	p.ui.end(true)
	for i := range files {
		if files[i].SHA256 != "" { // also after a "verifying sha256" note
			p.ui.notef("sha256 verified%s", fileSuffix(files, i))
		}
	}
	return nil
}

// fileSuffix names file i of several in a note (nothing for a single file).
func fileSuffix(files []pullFile, i int) string {
	if len(files) < 2 {
		return ""
	}
	return " of " + path2base(files[i].Path)
}

// sumProgress adds up the jobs' bytes and rates: a job that is being verified or
// is done counts as complete.
func sumProgress(jobs []*download.Job) (done int64, rate float64) {
	for _, j := range jobs {
		pr := j.Progress()
		switch pr.State {
		case download.Verifying, download.Done:
			done += pr.Total
		default:
			done += pr.Done
			if pr.State == download.Running {
				rate += pr.Rate
			}
		}
	}
	return done, rate
}

// rateMeter measures the transfer rate over the last few seconds of
// progress samples: the manager's smoothed rate starts low, and saji pull
// shows the bytes of all the files together.
type rateMeter struct {
	samples []rateSample
}

type rateSample struct {
	t    time.Time
	done int64
}

// rateWindow is how far back the rate looks.
const rateWindow = 3 * time.Second

// rate records done at now and returns the bytes a second over the
// window, or fallback until a quarter of a second has been seen.
func (r *rateMeter) rate(now time.Time, done int64, fallback float64) float64 {
	if n := len(r.samples); n > 0 && done < r.samples[n-1].done {
		r.samples = r.samples[:0] // a file is being fetched again
	}
	r.samples = append(r.samples, rateSample{now, done})
	for len(r.samples) > 2 && now.Sub(r.samples[1].t) >= rateWindow {
		r.samples = r.samples[1:]
	}
	first := r.samples[0]
	dt := now.Sub(first.t)
	if dt < rateWindow/12 {
		return fallback
	}
	return float64(done-first.done) / dt.Seconds()
}

// checkHeader reads the header of the level's first file with HTTP Range
// requests, as saji fit --model does, and refuses a model Saji cannot run
// (model.RunError) before a byte of it is downloaded. A header that cannot
// be read (a server without Range requests, a file that is not GGUF) is
// left to the download and the library's own check. A resumed download
// was checked when it started.
func (p *puller) checkHeader(ctx context.Context, q hub.Quant, files []pullFile) error {
	if len(files) == 0 || files[0].Path != q.Files[0].Path {
		return nil // the first file is already here
	}
	describe := p.env.describe
	if describe == nil {
		describe = fit.DescribeSplitURL
	}
	_, err := describe(ctx, p.client.HTTPClient(), files[0].url, p.client.Header(), q.Size)
	var re *model.RunError
	if errors.As(err, &re) {
		return fmt.Errorf("pull: not downloading %s of %s: %w", q.Name, p.repo, re)
	}
	return nil
}

// interrupted ends an interrupted pull with status 130.
func (p *puller) interrupted() error {
	exit := p.env.exit
	if exit == nil {
		exit = os.Exit
	}
	exit(exitInterrupted)
	return errInterrupted
}

// present reports whether dest already holds f: the right size and sha256.
func (p *puller) present(ctx context.Context, f hub.File, dest string) (bool, error) {
	fi, err := os.Stat(dest)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != f.Size {
		return false, nil
	}
	if f.SHA256 == "" {
		return true, nil
	}
	p.ui.notef("checking the sha256 of %s, already in the models folder", dest)
	sum, err := fileSHA256(ctx, dest)
	if err != nil {
		if ctx.Err() != nil {
			p.ui.notef("Interrupted.")
			return false, p.interrupted()
		}
		return false, nil
	}
	if !strings.EqualFold(sum, f.SHA256) {
		p.ui.notef("%s differs from the repository's file: downloading it again", dest)
		return false, nil
	}
	return true, nil
}

// fileSHA256 hashes a file, stopping when ctx ends.
func fileSHA256(ctx context.Context, path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	buf := make([]byte, 1<<20)
	for {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		n, err := f.Read(buf)
		h.Write(buf[:n])
		if err == io.EOF {
			return hex.EncodeToString(h.Sum(nil)), nil
		}
		if err != nil {
			return "", err
		}
	}
}

// libraryName is the library's name for the model at path (its file name
// without .gguf when the library cannot say), with a note when Saji cannot
// load it.
func (p *puller) libraryName(path string) string {
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	lib, err := library.Open(p.fl.modelsDir)
	if err != nil {
		return name
	}
	e, err := lib.Get(name)
	if err != nil {
		return name
	}
	if e.Err != nil {
		p.ui.notef("note: Saji cannot load %s: %v", e.Name, e.Err)
	}
	return e.Name
}

func (p *puller) readMemory() (hardware.Memory, error) {
	if p.env.memory != nil {
		return p.env.memory()
	}
	return hardware.ReadMemory()
}

// hubError turns an error of the hub client into words a person can act on.
func (p *puller) hubError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		p.ui.notef("Interrupted.")
		return p.interrupted()
	}
	if errors.Is(err, hub.ErrGated) || errors.Is(err, hub.ErrNotFound) ||
		errors.Is(err, hub.ErrUnauthorized) || errors.Is(err, hub.ErrUnavailable) {
		return fmt.Errorf("pull: %w", err) // hub's messages say what to do
	}
	if isNetworkError(err) {
		return p.offline(err)
	}
	return fmt.Errorf("pull: %w", err)
}

// offline is the error about a hub that cannot be reached.
func (p *puller) offline(err error) error {
	host := cmp.Or(p.client.Endpoint, hub.DefaultEndpoint)
	if u, perr := url.Parse(host); perr == nil && u.Host != "" {
		host = u.Host
	}
	how := "check the network connection"
	if os.Getenv("HF_ENDPOINT") != "" {
		how = "check the network connection and HF_ENDPOINT"
	}
	return fmt.Errorf("pull: can't reach %s: %s (%w)", host, how, err)
}

// downloadError explains why the download of f failed.
func (p *puller) downloadError(q hub.Quant, f pullFile, total int64, err error) error {
	switch {
	case errors.Is(err, download.ErrDiskFull):
		return fmt.Errorf("pull: not enough disk space for %s (%s to download): %w", q.Name, units.Bytes(total), err)
	case errors.Is(err, download.ErrChecksum):
		return fmt.Errorf("pull: %s failed its sha256 check twice, so it was discarded; try again later: %w", path2base(f.Path), err)
	case errors.Is(err, download.ErrHTTP):
		var he *download.HTTPError
		if errors.As(err, &he) && (he.StatusCode == 401 || he.StatusCode == 403) {
			return fmt.Errorf("pull: %s refused the download: if the model is gated, accept its licence on its page and set HF_TOKEN (%w)", p.repo, err)
		}
		return fmt.Errorf("pull: %w", err)
	case isNetworkError(err):
		return p.offline(err)
	}
	return fmt.Errorf("pull: %s: %w", path2base(f.Path), err)
}

// isNetworkError reports whether err is a failure to reach a server (no
// connection, DNS, a timeout) rather than an answer.
func isNetworkError(err error) bool {
	var ue *url.Error
	var ne net.Error
	return errors.As(err, &ue) || errors.As(err, &ne)
}

// recommend is the level the table marks and a pull without QUANT takes.
// Without a memory reading it is the usual Q4_K_M (or hub.Recommend's pick
// for a large machine).
func recommend(levels []hub.Quant, mem hardware.Memory, memErr error) (hub.Quant, bool) {
	if memErr != nil {
		if q, ok := hub.Find(levels, "Q4_K_M"); ok && !q.Incomplete && fit.LevelRunnable(q.Name) == nil {
			return q, true
		}
		return hub.Recommend(levels, 1<<40, fit.SizeNeed, fit.LevelRunnable)
	}
	return hub.Recommend(levels, int64(min(mem.Available, 1<<62)), fit.SizeNeed, fit.LevelRunnable)
}

// levelPlan is engine/fit's verdict on a level by its size.
func levelPlan(q hub.Quant, mem hardware.Memory) fit.Plan {
	return fit.PlanSize(q.Size, hardware.Machine{Memory: mem})
}

// pickReason says why a pull without QUANT took q.
func pickReason(q hub.Quant, ok bool, mem hardware.Memory, memErr error) string {
	if memErr != nil {
		return fmt.Sprintf("Picked %s: the usual choice (the memory size is unknown: %v)", q.Name, memErr)
	}
	free := units.Bytes(int64(mem.Available))
	switch b := q.Bits(); {
	case !ok:
		return fmt.Sprintf("Picked %s, the smallest level: none fits %s of free memory, so it will run slowly if at all", q.Name, free)
	case b >= 5.5 || b == 0:
		return fmt.Sprintf("Picked %s: the largest that fits %s of free memory comfortably", q.Name, free)
	case b >= 4:
		return fmt.Sprintf("Picked %s: the usual best trade of size and quality, and it fits %s of free memory", q.Name, free)
	default:
		return fmt.Sprintf("Picked %s: the largest that fits %s of free memory", q.Name, free)
	}
}

// printTable prints the levels with their sizes and fit verdicts.
func (p *puller) printTable(levels []hub.Quant, mem hardware.Memory, memErr error, rec hub.Quant, recOK bool) {
	if memErr != nil {
		fmt.Fprintf(p.out, "%s (memory unknown: %v)\n", p.repo, memErr)
	} else {
		fmt.Fprintf(p.out, "%s (this machine: %s of memory free of %s)\n", p.repo, units.Bytes(int64(mem.Available)), units.Bytes(int64(mem.Total)))
	}
	tw := tabwriter.NewWriter(p.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "LEVEL\tSIZE\tFILES\tFIT")
	for _, q := range levels {
		verdict := "?"
		switch {
		case fit.LevelRunnable(q.Name) != nil:
			verdict = "can't run"
		case memErr == nil:
			verdict = levelPlan(q, mem).Verdict.Word()
		}
		files := fmt.Sprint(len(q.Files))
		if q.Incomplete {
			files = fmt.Sprintf("%d of %d", len(q.Files), q.Shards)
		}
		row := fmt.Sprintf("%s\t%s\t%s\t%s", q.Name, units.Bytes(q.Size), files, verdict)
		if recOK && q.Name == rec.Name && !q.Incomplete {
			row += "\t<- recommended"
		}
		fmt.Fprintln(tw, row)
	}
	tw.Flush()
	if len(levels) > 0 {
		for _, pj := range levels[0].MMProj {
			fmt.Fprintf(p.out, "projector: %s (%s), fetched with --mmproj\n", path2base(pj.Path), units.Bytes(pj.Size))
		}
	}
}

// levelNames lists the levels' names: "Q4_K_M, Q8_0".
func levelNames(levels []hub.Quant) string {
	names := make([]string, len(levels))
	for i, q := range levels {
		names[i] = q.Name
	}
	return strings.Join(names, ", ")
}

// path2base is the file name of a repository path.
func path2base(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

// percent is done of total in whole percent, rounded down.
func percent(done, total int64) int {
	if total <= 0 {
		return 0
	}
	return int(min(max(done*100/total, 0), 100))
}

// pullUI shows a pull's progress on stderr: a bar redrawn in place on a
// terminal, a line every 10% otherwise, and notes between them.
type pullUI struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	label    string
	drawn    bool // the bar is on the current line (terminal)
	tenth    int  // the last 10% step printed (not a terminal)
}

// begin starts the progress of label (a level) at done of total bytes.
func (u *pullUI) begin(label string, done, total int64) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.label = label
	u.tenth = percent(done, total) / 10
}

// notef prints a line, above the bar on a terminal.
func (u *pullUI) notef(format string, args ...any) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.clearLocked()
	fmt.Fprintf(u.w, format+"\n", args...)
}

// clearLocked removes the bar from the current line; u.mu is held.
func (u *pullUI) clearLocked() {
	if u.drawn {
		fmt.Fprint(u.w, "\r\x1b[K")
		u.drawn = false
	}
}

// progress shows done of total bytes at rate bytes a second.
func (u *pullUI) progress(done, total int64, rate float64) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.terminal {
		fmt.Fprintf(u.w, "\r%s\x1b[K", renderPullBar(u.label, done, total, rate))
		u.drawn = true
		return
	}
	if total <= 0 {
		return
	}
	pc := percent(done, total)
	if pc/10 > u.tenth {
		u.tenth = pc / 10
		line := fmt.Sprintf("pull: %d%% (%s of %s)", pc, units.Bytes(done), units.Bytes(total))
		if rate > 0 && done < total {
			line += ", " + units.Rate(rate)
		}
		fmt.Fprintln(u.w, line)
	}
}

// end leaves the bar's line as it is: complete, or where it stopped.
func (u *pullUI) end(bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.drawn {
		fmt.Fprintln(u.w)
		u.drawn = false
	}
}

// pullBarWidth is the number of cells of saji pull's bar.
const pullBarWidth = 24

// renderPullBar formats
// "Q4_K_M  [#######-----------------]  30%  243 MB / 808 MB  21 MB/s  ETA 27s".
func renderPullBar(label string, done, total int64, rate float64) string {
	frac := 0.0
	if total > 0 {
		frac = min(max(float64(done)/float64(total), 0), 1)
	}
	fill := int(frac * pullBarWidth)
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s  [%s%s]  %3d%%  %s / %s", label, strings.Repeat("#", fill), strings.Repeat("-", pullBarWidth-fill),
		percent(done, total), units.Bytes(done), units.Bytes(total))
	if rate > 0 && done < total {
		fmt.Fprintf(&sb, "  %s  ETA %s", units.Rate(rate), formatPullETA(time.Duration(float64(total-done)/rate*float64(time.Second))))
	}
	return sb.String()
}

// formatPullETA formats a time left: "22s", "3m04s", "1h02m".
func formatPullETA(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	switch {
	case s >= 3600:
		return fmt.Sprintf("%dh%02dm", s/3600, s/60%60)
	case s >= 60:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	default:
		return fmt.Sprintf("%ds", s)
	}
}

// pullLog is the download manager's logger during a pull: its retries
// and checksum failures become notes a person reads; everything else goes
// to the command's logger.
type pullLog struct {
	ui   *pullUI
	next slog.Handler
}

func (h *pullLog) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelInfo || h.next.Enabled(ctx, l)
}

func (h *pullLog) Handle(ctx context.Context, r slog.Record) error {
	attrs := map[string]slog.Value{}
	r.Attrs(func(a slog.Attr) bool {
		attrs[a.Key] = a.Value
		return true
	})
	switch {
	case r.Message == "download: retrying":
		msg := "the transfer was interrupted"
		if e, ok := attrs["err"]; ok {
			msg += " (" + e.String() + ")"
		}
		if off, ok := attrs["offset"]; ok && off.Kind() == slog.KindInt64 {
			msg += " at " + units.Bytes(off.Int64())
		}
		h.ui.notef("%s; resuming from there", msg)
		return nil
	case strings.HasPrefix(r.Message, "download: checksum mismatch"):
		h.ui.notef("the sha256 of the downloaded file does not match: fetching it again")
		return nil
	case r.Level < slog.LevelWarn && !h.next.Enabled(ctx, slog.LevelDebug):
		return nil // the manager's own news, for --verbose
	case !h.next.Enabled(ctx, r.Level):
		return nil
	}
	h.ui.mu.Lock()
	defer h.ui.mu.Unlock()
	h.ui.clearLocked()
	return h.next.Handle(ctx, r)
}

func (h *pullLog) WithAttrs(as []slog.Attr) slog.Handler {
	return &pullLog{ui: h.ui, next: h.next.WithAttrs(as)}
}

func (h *pullLog) WithGroup(name string) slog.Handler {
	return &pullLog{ui: h.ui, next: h.next.WithGroup(name)}
}
