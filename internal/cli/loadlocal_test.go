package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"saji/engine/scheduler"
)

// TestLoadtestLocal drives the in-process scheduler: every request
// completes with the asked lengths, the shared prefix is served from the
// prefix cache, and the KV cache figures are reported.
func TestLoadtestLocal(t *testing.T) {
	path := tinyModel(t)
	out, err := runWithInput(t, "", "loadtest", "--model", path, "--requests", "5", "--concurrency", "1",
		"--prompt-len", "8", "--output-len", "6", "--shared-prefix", "40", "--threads", "2", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Completed    int      `json:"completed"`
		Failed       int      `json:"failed"`
		TotalInput   int      `json:"total_input_tokens"`
		TotalOutput  int      `json:"total_output_tokens"`
		Notes        []string `json:"notes"`
		MeanTTFTms   float64  `json:"mean_ttft_ms"`
		Endpoint     string   `json:"endpoint"`
		MaxConcurent *int     `json:"max_concurrency"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if s.Completed != 5 || s.Failed != 0 || s.TotalOutput != 30 {
		t.Errorf("completed %d, failed %d, output tokens %d", s.Completed, s.Failed, s.TotalOutput)
	}
	// BOS + 40 + 8 tokens each: the prefix's first two blocks (32 tokens) come
	// from the cache for the last four.
	if s.TotalInput != 5*49 {
		t.Errorf("input tokens %d, want %d", s.TotalInput, 5*49)
	}
	notes := strings.Join(s.Notes, "\n")
	for _, want := range []string{"128 of 245 prompt tokens served from the cache", "KV cache utilisation", "shared prefix: TTFT of the first request"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}

// TestLocalFlagsProfile checks the scheduler settings of serve's and the
// in-process load test's flags: the serving profile of --parallel full
// contexts (4 by default, as llama-server's -np), or a --kv-budget.
func TestLocalFlagsProfile(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		parallel int
		kvBytes  int64
	}{
		{nil, scheduler.DefaultParallel, 0},
		{[]string{"--parallel", "2"}, 2, 0},
		{[]string{"--parallel", "1"}, 1, 0},
		{[]string{"--kv-budget", "64"}, scheduler.DefaultParallel, 64 << 20},
	} {
		var l localFlags
		fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
		l.register(fs, "")
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		cfg := l.scheduler()
		if cfg.Parallel != tc.parallel || cfg.KVBytes != tc.kvBytes || cfg.MaxSeqs != scheduler.DefaultMaxSeqs {
			t.Errorf("%v: %+v", tc.args, cfg)
		}
	}
}
