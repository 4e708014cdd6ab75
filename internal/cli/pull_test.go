package cli

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"saji/engine/download"
	"saji/engine/fit"
	"saji/engine/hardware"
	"saji/engine/hub"
	"saji/engine/hub/hubtest"
	"saji/engine/library"
	"saji/engine/synth"
	"saji/engine/synth/synthtest"
)

// TestMain removes the models synthtest wrote once the tests end.
func TestMain(m *testing.M) { synthtest.Main(m) }

const tinyRepo = "saji-test/Tiny-GGUF"

// tinyGGUF holds the tiny model in Q8_0 and Q4_K_M, written once for all
// the tests: file name -> bytes.
var tinyGGUF = sync.OnceValues(func() (map[string][]byte, error) {
	dir, err := os.MkdirTemp("", "pull-test-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	files := map[string][]byte{}
	for _, ft := range []string{"q8_0", "q4_k_m"} {
		name := "Tiny-" + strings.ToUpper(ft) + ".gguf"
		p := filepath.Join(dir, name)
		if err := synth.WriteTiny(context.Background(), p, ft, 5); err != nil {
			return nil, err
		}
		if files[name], err = os.ReadFile(p); err != nil {
			return nil, err
		}
	}
	return files, nil
})

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// pullSetup is a fake hub with the tiny repository, empty models and
// state folders, and a machine with 24 GB of free memory.
type pullSetup struct {
	t              *testing.T
	hub            *hubtest.Hub
	files          map[string][]byte
	models, states string
	env            pullEnv
	exit           int // the status an interrupted pull exited with
}

func newPullSetup(t *testing.T) *pullSetup {
	t.Helper()
	files, err := tinyGGUF()
	if err != nil {
		t.Fatal(err)
	}
	s := &pullSetup{t: t, hub: hubtest.New(t), files: files, exit: -1}
	s.hub.AddRepo(tinyRepo, files, hubtest.RepoOptions{})
	t.Setenv("HF_ENDPOINT", s.hub.URL)
	t.Setenv("HF_TOKEN", "")
	t.Setenv("HUGGING_FACE_HUB_TOKEN", "")
	dir := t.TempDir()
	s.models, s.states = filepath.Join(dir, "models"), filepath.Join(dir, "downloads")
	off := false
	s.env = pullEnv{
		stateDir: s.states,
		memory:   func() (hardware.Memory, error) { return hardware.Memory{Total: 32e9, Available: 24e9}, nil },
		backoff:  time.Millisecond,
		exit:     func(code int) { s.exit = code },
		terminal: &off,
	}
	return s
}

// pullResult is what one saji pull printed and returned.
type pullResult struct {
	stdout, stderr string
	err            error
}

// pull runs saji pull with args and --models-dir.
func (s *pullSetup) pull(args ...string) pullResult {
	return s.pullCtx(context.Background(), &syncBuffer{}, args...)
}

func (s *pullSetup) pullCtx(ctx context.Context, stderr *syncBuffer, args ...string) pullResult {
	s.t.Helper()
	var stdout bytes.Buffer
	cmd := newPullCmdWith(s.env)
	cmd.SetOut(&stdout)
	cmd.SetErr(stderr)
	cmd.SetArgs(append(args, "--models-dir", s.models))
	err := cmd.ExecuteContext(ctx)
	return pullResult{stdout.String(), stderr.String(), err}
}

// cdnGets returns the CDN's GET requests for a file's blob.
func (s *pullSetup) cdnGets(name string) []hubtest.Request {
	var out []hubtest.Request
	for _, r := range s.hub.Requests() {
		if r.Server == "cdn" && r.Method == "GET" && strings.Contains(r.Query, "file="+name) {
			out = append(out, r)
		}
	}
	return out
}

// checkLanded checks that the models folder holds name with the repo's
// bytes, that the library lists it as usable, and that no partial state
// is left.
func (s *pullSetup) checkLanded(name string) {
	s.t.Helper()
	got, err := os.ReadFile(filepath.Join(s.models, name))
	if err != nil {
		s.t.Fatal(err)
	}
	if !bytes.Equal(got, s.files[name]) {
		s.t.Fatalf("%s: %d bytes differ from the repository's %d", name, len(got), len(s.files[name]))
	}
	lib, err := library.Open(s.models)
	if err != nil {
		s.t.Fatal(err)
	}
	list, err := lib.List()
	if err != nil {
		s.t.Fatal(err)
	}
	found := false
	for _, e := range list {
		if e.Name == strings.TrimSuffix(name, ".gguf") {
			found = true
			if e.Err != nil {
				s.t.Errorf("library entry %s: %v", e.Name, e.Err)
			}
		}
	}
	if !found {
		s.t.Errorf("library lists %v, not %s", list, name)
	}
	if left, _ := filepath.Glob(filepath.Join(s.states, "*")); len(left) > 0 {
		s.t.Errorf("state left behind: %v", left)
	}
}

// TestPullQuant pulls a named level, checks where it lands and that the
// CDN never saw the token, then pulls it again.
func TestPullQuant(t *testing.T) {
	s := newPullSetup(t)
	r := s.pull(tinyRepo + ":q4_k_m")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	want := "Added Tiny-Q4_K_M to the library (" + filepath.Join(s.models, "Tiny-Q4_K_M.gguf") + ")\n"
	if r.stdout != want {
		t.Errorf("stdout %q, want %q", r.stdout, want)
	}
	for _, line := range []string{"Downloading Q4_K_M of saji-test/Tiny-GGUF: 1.5 MB in 1 file", "pull: 100% (1.5 MB of 1.5 MB)", "sha256 verified"} {
		if !strings.Contains(r.stderr, line) {
			t.Errorf("stderr lacks %q:\n%s", line, r.stderr)
		}
	}
	s.checkLanded("Tiny-Q4_K_M.gguf")
	if gets := s.cdnGets("Tiny-Q8_0.gguf"); len(gets) > 0 {
		t.Errorf("Q8_0 fetched too: %v", gets)
	}

	before := len(s.hub.Requests())
	r = s.pull("hf.co/" + tinyRepo + ":Q4_K_M")
	if r.err != nil {
		t.Fatal(r.err)
	}
	if want := "Tiny-Q4_K_M is already in the library (" + filepath.Join(s.models, "Tiny-Q4_K_M.gguf") + ")\n"; r.stdout != want {
		t.Errorf("second pull: stdout %q, want %q", r.stdout, want)
	}
	for _, req := range s.hub.Requests()[before:] {
		if req.Server == "cdn" {
			t.Errorf("second pull fetched %v", req)
		}
	}
}

// TestPullRecommended pulls without a level: the table is printed and the
// pick depends on the free memory.
func TestPullRecommended(t *testing.T) {
	q4 := fit.SizeNeed(1525248)
	tests := []struct {
		name      string
		mem       hardware.Memory
		pick      string
		reason    string
		marked    bool
		verdictQ8 string
	}{
		{"plenty", hardware.Memory{Total: 32e9, Available: 24e9}, "Q8_0", "the largest that fits 24 GB of free memory comfortably", true, "fits"},
		{"snug", hardware.Memory{Total: 2e9, Available: uint64(q4 + 500_000)}, "Q4_K_M", "the usual best trade of size and quality", true, "tight"},
		{"none", hardware.Memory{Total: 300e6, Available: 100e6}, "Q4_K_M", "the smallest level: none fits 100 MB of free memory", false, "too big"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newPullSetup(t)
			s.env.memory = func() (hardware.Memory, error) { return tt.mem, nil }
			r := s.pull(tinyRepo)
			if r.err != nil {
				t.Fatalf("%v\n%s", r.err, r.stderr)
			}
			if !strings.Contains(r.stdout, "Picked "+tt.pick+": ") && !strings.Contains(r.stdout, "Picked "+tt.pick+", ") {
				t.Errorf("no pick of %s in\n%s", tt.pick, r.stdout)
			}
			if !strings.Contains(r.stdout, tt.reason) {
				t.Errorf("no %q in\n%s", tt.reason, r.stdout)
			}
			if got := strings.Contains(r.stdout, "<- recommended"); got != tt.marked {
				t.Errorf("recommended mark shown %v, want %v:\n%s", got, tt.marked, r.stdout)
			}
			if !regexp.MustCompile(`(?m)^Q8_0 +2\.7 MB +1 +` + tt.verdictQ8 + `\b`).MatchString(r.stdout) {
				t.Errorf("no Q8_0 row with %q in\n%s", tt.verdictQ8, r.stdout)
			}
			s.checkLanded("Tiny-" + tt.pick + ".gguf")
		})
	}
}

// TestPullList prints the table and downloads nothing.
func TestPullList(t *testing.T) {
	s := newPullSetup(t)
	r := s.pull(tinyRepo, "--list")
	if r.err != nil {
		t.Fatal(r.err)
	}
	want := "saji-test/Tiny-GGUF (this machine: 24 GB of memory free of 32 GB)\n" +
		"LEVEL   SIZE    FILES  FIT\n" +
		"Q4_K_M  1.5 MB  1      fits\n" +
		"Q8_0    2.7 MB  1      fits  <- recommended\n"
	if r.stdout != want {
		t.Errorf("stdout\n%s\nwant\n%s", r.stdout, want)
	}
	for _, req := range s.hub.Requests() {
		if req.Server == "cdn" || strings.Contains(req.Path, "/resolve/") {
			t.Errorf("--list fetched %v", req)
		}
	}
	if _, err := os.Stat(s.models); !os.IsNotExist(err) {
		t.Errorf("--list created the models folder (%v)", err)
	}
}

// TestPullRegistered runs saji pull --list through the root command.
func TestPullRegistered(t *testing.T) {
	newPullSetup(t)
	stdout, stderr, err := runCmd(t, "", "pull", tinyRepo, "--list")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "Q8_0") || !strings.Contains(stdout, "LEVEL") {
		t.Errorf("stdout %q", stdout)
	}
}

// TestPullErrors covers the failures a person must understand.
func TestPullErrors(t *testing.T) {
	tests := []struct {
		name  string
		setup func(s *pullSetup)
		arg   string
		is    error
		words []string
	}{
		{name: "missing level", arg: tinyRepo + ":Q2_K",
			words: []string{"saji-test/Tiny-GGUF has no Q2_K level; it has Q4_K_M, Q8_0"}},
		{name: "no repository", arg: "saji-test/Nope-GGUF", is: hub.ErrNotFound,
			words: []string{"saji-test/Nope-GGUF", "not found"}},
		{name: "no gguf", arg: "saji-test/Safetensors",
			setup: func(s *pullSetup) {
				s.hub.AddRepo("saji-test/Safetensors", map[string][]byte{"model.safetensors": []byte("x")}, hubtest.RepoOptions{})
			},
			words: []string{"has no GGUF files"}},
		{name: "offline", arg: tinyRepo,
			setup: func(s *pullSetup) { s.t.Setenv("HF_ENDPOINT", "http://127.0.0.1:1") },
			words: []string{"can't reach 127.0.0.1:1", "HF_ENDPOINT"}},
		{name: "disk full", arg: tinyRepo + ":Q8_0", is: download.ErrDiskFull,
			setup: func(s *pullSetup) {
				s.env.freeSpace = func(string) (uint64, error) { return 1 << 20, nil }
			},
			words: []string{"not enough disk space for Q8_0 (2.7 MB to download)", "needed", "1.0 MB free"}},
		{name: "corrupted twice", arg: tinyRepo + ":Q8_0", is: download.ErrChecksum,
			setup: func(s *pullSetup) {
				s.env.describe = noHeader
				s.hub.Corrupt("/"+tinyRepo+"/resolve/main/Tiny-Q8_0.gguf", 2)
			},
			words: []string{"Tiny-Q8_0.gguf failed its sha256 check twice"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newPullSetup(t)
			if tt.setup != nil {
				tt.setup(s)
			}
			r := s.pull(tt.arg)
			if r.err == nil {
				t.Fatalf("no error; stdout %q", r.stdout)
			}
			if tt.is != nil && !errors.Is(r.err, tt.is) {
				t.Errorf("%v is not %v", r.err, tt.is)
			}
			for _, w := range tt.words {
				if !strings.Contains(r.err.Error(), w) {
					t.Errorf("error %q lacks %q", r.err, w)
				}
			}
			if got, _ := filepath.Glob(filepath.Join(s.models, "*.gguf")); len(got) > 0 {
				t.Errorf("models folder holds %v", got)
			}
		})
	}
}

// unrunnableGGUF returns the bytes of synthtest.Unrunnable's model (a
// weight in Q1_0, which no kernel computes with).
func unrunnableGGUF() ([]byte, error) {
	p, err := synthtest.Unrunnable()
	if err != nil {
		return nil, err
	}
	return os.ReadFile(p)
}

// TestPullUnrunnable refuses a level Saji cannot run before downloading
// it: by its header (read with HTTP Range) whether named or recommended,
// and by its name alone, which the recommendation never picks.
func TestPullUnrunnable(t *testing.T) {
	const repo = "saji-test/Unrunnable-GGUF"
	bad, err := unrunnableGGUF()
	if err != nil {
		t.Fatal(err)
	}
	header := "pull: not downloading Q4_K_M of " + repo + ": model: blk.0.ffn_up.weight is Q1_0, a type Saji cannot compute with yet"
	named := synthtest.UnrunnableLevel()
	tests := []struct {
		name   string
		level  string // the level the repository offers besides Q8_0 ("": none)
		only   bool   // without Q8_0
		arg    string
		mem    float64 // free memory, GB
		err    string  // the error ("": none)
		picked string  // the level a pull without QUANT takes
	}{
		{name: "header, named", level: "Q4_K_M", arg: repo + ":Q4_K_M", mem: 24, err: header},
		{name: "header, recommended", level: "Q4_K_M", arg: repo, mem: 0.5e-3, err: header},
		{name: "name", level: named, arg: repo + ":" + named, mem: 24,
			err: "pull: not downloading " + named + " of " + repo + ": model: " + named + " files are mostly "},
		{name: "name, not recommended", level: named, arg: repo, mem: 0.5e-3, picked: "Q8_0"},
		{name: "name, no other level", level: named, only: true, arg: repo, mem: 24,
			err: "pull: " + repo + " has no level Saji can run: model: " + named + " files are mostly "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.level == "" {
				t.Skip("every IQ, TQ and MXFP4 type has a kernel")
			}
			s := newPullSetup(t)
			file := "Unrunnable-" + tt.level + ".gguf"
			files := map[string][]byte{file: bad}
			if !tt.only {
				files["Unrunnable-Q8_0.gguf"] = s.files["Tiny-Q8_0.gguf"]
			}
			s.hub.AddRepo(repo, files, hubtest.RepoOptions{})
			s.env.memory = func() (hardware.Memory, error) {
				return hardware.Memory{Total: 32e9, Available: uint64(tt.mem * 1e9)}, nil
			}
			r := s.pull(tt.arg)
			if tt.err == "" {
				if r.err != nil || !strings.Contains(r.stdout, "Picked "+tt.picked) {
					t.Fatalf("error %v, stdout:\n%s", r.err, r.stdout)
				}
				if !regexp.MustCompile(`(?m)^` + tt.level + ` .* can't run$`).MatchString(r.stdout) {
					t.Errorf("no can't run row of %s in\n%s", tt.level, r.stdout)
				}
				return
			}
			if r.err == nil || !strings.HasPrefix(r.err.Error(), tt.err) {
				t.Fatalf("error %v, want %q", r.err, tt.err)
			}
			if got, _ := filepath.Glob(filepath.Join(s.models, "*.gguf")); len(got) > 0 {
				t.Errorf("models folder holds %v", got)
			}
			for _, g := range s.cdnGets(file) {
				if g.Range == "" {
					t.Errorf("more than the header fetched: %v", g)
				}
			}
		})
	}
}

// TestPullGated needs HF_TOKEN for a gated repository, which the CDN
// never sees.
func TestPullGated(t *testing.T) {
	s := newPullSetup(t)
	const gated = "saji-test/Gated-GGUF"
	s.hub.AddRepo(gated, s.files, hubtest.RepoOptions{Gated: true})
	s.hub.SetToken("hf_good")

	r := s.pull(gated + ":Q4_K_M")
	if !errors.Is(r.err, hub.ErrGated) {
		t.Fatalf("error %v, want a gated one", r.err)
	}
	for _, w := range []string{"accept the licence", s.hub.URL + "/" + gated, "set HF_TOKEN"} {
		if !strings.Contains(r.err.Error(), w) {
			t.Errorf("error %q lacks %q", r.err, w)
		}
	}

	t.Setenv("HF_TOKEN", "hf_good")
	if r = s.pull(gated + ":Q4_K_M"); r.err != nil {
		t.Fatalf("with the token: %v\n%s", r.err, r.stderr)
	}
	s.checkLanded("Tiny-Q4_K_M.gguf")
	sawToken := false
	for _, req := range s.hub.Requests() {
		if req.Server == "cdn" && req.Auth {
			t.Errorf("the CDN got the token: %v", req)
		}
		if req.Server == "hub" && req.Auth && strings.Contains(req.Path, "/resolve/") {
			sawToken = true
		}
	}
	if !sawToken {
		t.Error("the hub never got the token")
	}
}

// rangeStart is where a "bytes=N-M" range starts (0 for none).
func rangeStart(r string) int64 {
	s, ok := strings.CutPrefix(r, "bytes=")
	if !ok {
		return 0
	}
	s, _, _ = strings.Cut(s, "-")
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// noHeader stands for a hub whose files' headers cannot be read.
func noHeader(context.Context, *http.Client, string, http.Header, int64) (fit.ModelShape, error) {
	return fit.ModelShape{}, errors.New("no header here")
}

// TestPullFaults: a dropped connection resumes within the run, corrupted
// bytes are fetched again.
func TestPullFaults(t *testing.T) {
	const path = "/" + tinyRepo + "/resolve/main/Tiny-Q8_0.gguf"
	// The header is not read (checkHeader), so that the faults hit the
	// download's transfers.
	t.Run("cut", func(t *testing.T) {
		s := newPullSetup(t)
		s.env.describe = noHeader
		s.hub.CutAfter(path, 100_000, 1)
		r := s.pull(tinyRepo + ":Q8_0")
		if r.err != nil {
			t.Fatalf("%v\n%s", r.err, r.stderr)
		}
		if !strings.Contains(r.stderr, "the transfer was interrupted") || !strings.Contains(r.stderr, "resuming from there") {
			t.Errorf("no note of the drop in\n%s", r.stderr)
		}
		s.checkLanded("Tiny-Q8_0.gguf")
		resumed := false
		for _, g := range s.cdnGets("Tiny-Q8_0.gguf") {
			resumed = resumed || rangeStart(g.Range) > 0
		}
		if !resumed {
			t.Errorf("no ranged request after the cut: %v", s.cdnGets("Tiny-Q8_0.gguf"))
		}
	})
	t.Run("corrupt", func(t *testing.T) {
		s := newPullSetup(t)
		s.env.describe = noHeader
		s.hub.Corrupt(path, 1)
		r := s.pull(tinyRepo + ":Q8_0")
		if r.err != nil {
			t.Fatalf("%v\n%s", r.err, r.stderr)
		}
		if !strings.Contains(r.stderr, "does not match: fetching it again") {
			t.Errorf("no note of the mismatch in\n%s", r.stderr)
		}
		s.checkLanded("Tiny-Q8_0.gguf")
		if gets := s.cdnGets("Tiny-Q8_0.gguf"); len(gets) < 2 {
			t.Errorf("fetched %d times, want 2: %v", len(gets), gets)
		}
	})
}

// TestPullInterruptResume cancels a slow pull (Ctrl-C), which exits 130
// with its state kept, and runs it again: the second run fetches only the
// rest.
func TestPullInterruptResume(t *testing.T) {
	s := newPullSetup(t)
	s.hub.Throttle(100_000)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &syncBuffer{}
	done := make(chan pullResult, 1)
	go func() { done <- s.pullCtx(ctx, stderr, tinyRepo+":Q4_K_M") }()
	var r pullResult
wait:
	for {
		select {
		case r = <-done:
			t.Fatalf("finished before the interruption: %v\n%s", r.err, r.stderr)
		case <-time.After(10 * time.Millisecond):
			if strings.Contains(stderr.String(), "pull: 1") { // 10% or more
				cancel()
				r = <-done
				break wait
			}
		}
	}
	if !errors.Is(r.err, errInterrupted) || s.exit != exitInterrupted {
		t.Fatalf("error %v, exit %d; want an interruption and 130", r.err, s.exit)
	}
	m := regexp.MustCompile(`Interrupted at (\d+)%: run the same command again to resume\.`).FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("no interruption line in\n%s", r.stderr)
	}
	if pc, _ := strconv.Atoi(m[1]); pc < 10 || pc >= 100 {
		t.Errorf("interrupted at %d%%", pc)
	}
	if _, err := os.Stat(filepath.Join(s.models, "Tiny-Q4_K_M.gguf")); !os.IsNotExist(err) {
		t.Fatalf("a partial file in the library (%v)", err)
	}
	first := len(s.cdnGets("Tiny-Q4_K_M.gguf"))

	s.hub.Throttle(0)
	r = s.pull(tinyRepo + ":Q4_K_M")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	if !strings.Contains(r.stderr, "Resuming at ") {
		t.Errorf("no resume note in\n%s", r.stderr)
	}
	s.checkLanded("Tiny-Q4_K_M.gguf")
	gets := s.cdnGets("Tiny-Q4_K_M.gguf")[first:]
	if len(gets) == 0 || rangeStart(gets[0].Range) == 0 {
		t.Errorf("the second run fetched from the start: %v", gets)
	}
}

// TestPullShards downloads every shard of a level, and its projector with
// --mmproj.
func TestPullShards(t *testing.T) {
	s := newPullSetup(t)
	const repo = "saji-test/Split-GGUF"
	files := map[string][]byte{
		"Q4_K_M/Split-Q4_K_M-00001-of-00002.gguf": bytes.Repeat([]byte("a"), 300_000),
		"Q4_K_M/Split-Q4_K_M-00002-of-00002.gguf": bytes.Repeat([]byte("b"), 200_000),
		"Split-Q8_0.gguf":                         bytes.Repeat([]byte("c"), 900_000),
		"mmproj-Split-F16.gguf":                   bytes.Repeat([]byte("d"), 50_000),
	}
	s.hub.AddRepo(repo, files, hubtest.RepoOptions{})
	r := s.pull(repo+":Q4_K_M", "--mmproj")
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.stderr)
	}
	if !strings.Contains(r.stderr, "500 kB in 3 files") && !strings.Contains(r.stderr, "550 kB in 3 files") {
		t.Errorf("no size of three files in\n%s", r.stderr)
	}
	for p, data := range files {
		got, err := os.ReadFile(filepath.Join(s.models, path2base(p)))
		switch {
		case strings.Contains(p, "Q8_0"):
			if err == nil {
				t.Errorf("%s fetched", p)
			}
		case err != nil:
			t.Error(err)
		case !bytes.Equal(got, data):
			t.Errorf("%s: wrong bytes", p)
		}
	}
	if !strings.Contains(r.stdout, "Added Split-Q4_K_M-00001-of-00002 to the library") ||
		!strings.Contains(r.stdout, "Its projector is "+filepath.Join(s.models, "mmproj-Split-F16.gguf")) {
		t.Errorf("stdout %q", r.stdout)
	}
}

// TestRenderPullBar checks the terminal bar's line.
func TestRenderPullBar(t *testing.T) {
	tests := []struct {
		done, total int64
		rate        float64
		want        string
	}{
		{0, 808e6, 0, "Q4_K_M  [------------------------]    0%  0 B / 808 MB"},
		{340e6, 808e6, 21.3e6, "Q4_K_M  [##########--------------]   42%  340 MB / 808 MB  21 MB/s  ETA 22s"},
		{808e6, 808e6, 21.3e6, "Q4_K_M  [########################]  100%  808 MB / 808 MB"},
		{1e9, 5e9, 2e6, "Q4_K_M  [####--------------------]   20%  1.0 GB / 5.0 GB  2.0 MB/s  ETA 33m20s"},
	}
	for _, tt := range tests {
		if got := renderPullBar("Q4_K_M", tt.done, tt.total, tt.rate); got != tt.want {
			t.Errorf("renderPullBar(%d, %d, %g)\n got %q\nwant %q", tt.done, tt.total, tt.rate, got, tt.want)
		}
	}
}

func TestFormatPullETA(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"}, {22 * time.Second, "22s"}, {184 * time.Second, "3m04s"}, {3720 * time.Second, "1h02m"},
	}
	for _, tt := range tests {
		if got := formatPullETA(tt.d); got != tt.want {
			t.Errorf("formatPullETA(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// TestPullUILines checks the lines shown when stderr is not a terminal:
// one per 10% step, from where a resumed download starts.
func TestPullUILines(t *testing.T) {
	var b bytes.Buffer
	u := &pullUI{w: &b}
	u.begin("Q8_0", 250, 1000)
	for _, d := range []int64{250, 299, 300, 310, 550, 999, 1000} {
		u.progress(d, 1000, 2e6)
	}
	want := "pull: 30% (300 B of 1.0 kB), 2.0 MB/s\n" +
		"pull: 55% (550 B of 1.0 kB), 2.0 MB/s\n" +
		"pull: 99% (999 B of 1.0 kB), 2.0 MB/s\n" +
		"pull: 100% (1.0 kB of 1.0 kB)\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestRateMeter(t *testing.T) {
	var m rateMeter
	t0 := time.Unix(0, 0)
	if got := m.rate(t0, 0, 7); got != 7 {
		t.Errorf("first sample: %g, want the fallback", got)
	}
	if got := m.rate(t0.Add(time.Second), 1e6, 7); got != 1e6 {
		t.Errorf("after 1 s: %g, want 1e6", got)
	}
	m.rate(t0.Add(4*time.Second), 7e6, 7)
	if got := m.rate(t0.Add(5*time.Second), 9e6, 7); got != 2e6 {
		t.Errorf("window: %g, want 2e6", got)
	}
	if got := m.rate(t0.Add(6*time.Second), 0, 7); got != 7 {
		t.Errorf("after a restart: %g, want the fallback", got)
	}
}
