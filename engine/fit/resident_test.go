package fit

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/shirou/gopsutil/v3/process"

	"saji/engine/gguf"
	"saji/engine/hardware"
	"saji/engine/model"
	"saji/engine/scheduler"
	"saji/engine/tokenizer"
)

// residentModel is the model of the resident-memory test: $SAJI_FIT_MODEL
// or the synthetic llama-1b Q4_K_M (go run ./internal/tools/synthmodel
// -shape llama-1b -type q4_k_m -vocab VOCAB.gguf -o
// /tmp/synth/llama-1b-q4_k_m.gguf writes it in a few minutes; .ci/fit-check
// does).
func residentModel(t *testing.T) string {
	p := os.Getenv("SAJI_FIT_MODEL")
	if p == "" {
		p = "/tmp/synth/llama-1b-q4_k_m.gguf"
	}
	if _, err := os.Stat(p); err != nil {
		t.Skipf("no model for the resident memory test (%v): set SAJI_FIT_MODEL or write %s with internal/tools/synthmodel", err, p)
	}
	return p
}

const (
	residentCtx   = 2048
	residentGen   = 16
	childEnv      = "SAJI_FIT_CHILD"
	residentToken = "fit-resident:"
)

// TestResidentMemory loads the model in a child process (this test binary
// again), runs a short generation so that every weight is read, and checks
// that the child's resident set is within 10% of the plan's prediction.
func TestResidentMemory(t *testing.T) {
	if path := os.Getenv(childEnv); path != "" {
		residentChild(t, path)
		return
	}
	if testing.Short() {
		t.Skip("loads a 1B model")
	}
	if raceEnabled {
		t.Skip("the race detector's shadow memory inflates the resident set")
	}
	path := residentModel(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestResidentMemory$", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var rss, base int64
	var tokens int
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), residentToken); ok {
			if _, err := fmt.Sscan(rest, &rss, &base, &tokens); err != nil {
				t.Fatalf("child said %q: %v", line, err)
			}
		}
	}
	if rss == 0 {
		t.Fatalf("no measurement from the child:\n%s", out)
	}
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := Describe(f)
	if err != nil {
		t.Fatal(err)
	}
	p, err := PlanFor(s, hardware.Machine{}, Request{Context: residentCtx})
	if err != nil {
		t.Fatal(err)
	}
	want := p.ResidentAt(tokens)
	diff := float64(rss-want) / float64(want)
	t.Logf("%s, ctx %d, %d tokens stored: measured RSS %d MB (%d MB before loading), predicted %d MB (full pool %d MB): %+.1f%%",
		s.Name, residentCtx, tokens, rss>>20, base>>20, want>>20, p.Breakdown.Total>>20, 100*diff)
	if diff > 0.10 || diff < -0.10 {
		t.Errorf("measured %d bytes, predicted %d: off by %.1f%%", rss, want, 100*diff)
	}
}

// residentChild is the child's side: load, generate, report the RSS.
func residentChild(t *testing.T, path string) {
	base := rss(t)
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tk, err := tokenizer.FromGGUF(f)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.Load(context.Background(), f, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := scheduler.New(m, scheduler.Config{Context: residentCtx})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	prompt := tk.Encode("Once upon a time, in a land far away, there lived a", true, true)
	ch, err := s.Submit(context.Background(), scheduler.Request{Prompt: prompt, MaxTokens: residentGen, IgnoreEOS: true})
	if err != nil {
		t.Fatal(err)
	}
	n := len(prompt)
	for ev := range ch {
		if ev.Done {
			if ev.Err != nil {
				t.Fatal(ev.Err)
			}
			n += ev.Usage.CompletionTokens
		}
	}
	fmt.Printf("%s %d %d %d\n", residentToken, rss(t), base, n)
}

func rss(t *testing.T) int64 {
	p, err := process.NewProcess(int32(os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	mi, err := p.MemoryInfo()
	if err != nil {
		t.Fatal(err)
	}
	return int64(mi.RSS)
}
