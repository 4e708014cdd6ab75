package server

import (
	"context"
	"testing"

	"saji/engine/runner"
	"saji/engine/scheduler"
)

// TestSpeculativeUsage serves the tiny model with prompt lookup: a
// completion's usage counts the accepted and rejected draft tokens,
// llama-server's timings its draft_n, and /metrics the same totals. The
// requests are greedy: sampled at the APIs' default temperature of 1, a
// reply now and then repeated no token of its prompt, and so drafted
// nothing (one run in forty failed).
func TestSpeculativeUsage(t *testing.T) {
	path, err := tinyPath()
	if err != nil {
		t.Fatal(err)
	}
	m, err := runner.Load(context.Background(), path, runner.LoadOptions{Name: "tiny", Threads: 2,
		Scheduler: scheduler.Config{Context: 128, MaxSeqs: 4}, Speculative: runner.Speculative{Lookup: true}})
	if err != nil {
		t.Fatal(err)
	}
	s := New(Config{})
	s.Runner().Add(m)
	hs := serveTest(t, s)
	prompt := `"the cat sat on the mat, the cat sat on the mat, the cat sat on the"`
	status, v := post(t, hs.URL+"/v1/completions", `{"model":"tiny","prompt":`+prompt+`,"max_tokens":20,"ignore_eos":true,"temperature":0}`)
	if status != 200 {
		t.Fatalf("status %d: %v", status, v)
	}
	d, ok := v["usage"].(map[string]any)["completion_tokens_details"].(map[string]any)
	if !ok {
		t.Fatalf("no completion_tokens_details in %v", v["usage"])
	}
	accepted, rejected := d["accepted_prediction_tokens"].(float64), d["rejected_prediction_tokens"].(float64)
	if accepted+rejected == 0 {
		t.Errorf("no draft tokens in %v", d)
	}
	status, v = post(t, hs.URL+"/completion", `{"prompt":`+prompt+`,"n_predict":20,"ignore_eos":true,"temperature":0}`)
	if status != 200 {
		t.Fatalf("status %d: %v", status, v)
	}
	timings := v["timings"].(map[string]any)
	if timings["draft_n"] == nil || timings["draft_n_accepted"].(float64) > timings["draft_n"].(float64) {
		t.Errorf("timings %v", timings)
	}
	settle(t, m.Scheduler(), func(st scheduler.Stats) bool { return st.Running == 0 })
	fams := scrape(t, hs.URL)
	tiny := map[string]string{"model_name": "tiny"}
	wantDraft := accepted + rejected + timings["draft_n"].(float64)
	wantAccepted := accepted + timings["draft_n_accepted"].(float64)
	if got := value(fams, metricDraftTokens, tiny); got != wantDraft {
		t.Errorf("%s = %v, want %v", metricDraftTokens, got, wantDraft)
	}
	if got := value(fams, metricAccepted, tiny); got != wantAccepted {
		t.Errorf("%s = %v, want %v", metricAccepted, got, wantAccepted)
	}
}
