package main

import (
	"io"
	"strings"
	"testing"
)

// TestPeerRequest checks that llama-server is asked to read every prompt
// whole: a prefix reused from its cache would be another chunking than
// Saji's, and other logits.
func TestPeerRequest(t *testing.T) {
	r := peerRequest("hi", 3)
	if r["cache_prompt"] != false {
		t.Errorf("cache_prompt = %v, want false", r["cache_prompt"])
	}
	if r["n_probs"] != 5 || r["temperature"] != 0 || r["n_predict"] != 3 {
		t.Errorf("request %v", r)
	}
}

// TestReadPeerStream reads llama-server's streamed events: a token held
// back inside a UTF-8 character comes without probabilities (tokens 0 and
// 1 below end "ϝ", sent with token 1), and pieces that are not whole
// characters become "".
func TestReadPeerStream(t *testing.T) {
	stream := strings.Join([]string{
		`data: {"content":"ϝ","tokens_predicted":2,"completion_probabilities":[{"id":160,"token":"ϝ","bytes":[207,157],"logprob":-3.5,` +
			`"top_logprobs":[{"id":160,"token":"�","bytes":[157],"logprob":-3.5},{"id":471,"token":"U","bytes":[85],"logprob":-3.9},` +
			`{"id":639,"token":" ","bytes":[32,226,128],"logprob":-5}]}]}`,
		``,
		`data: {"content":" a","tokens_predicted":3,"completion_probabilities":[{"id":7,"token":" a","bytes":[32,97],"logprob":-1,` +
			`"top_logprobs":[{"id":7,"token":" a","bytes":[32,97],"logprob":-1}]}]}`,
		`data: {"content":"","stop":true,"tokens_predicted":3}`,
	}, "\n")
	steps, err := readPeerStream(strings.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 3 {
		t.Fatalf("%d steps, want 3: %+v", len(steps), steps)
	}
	if !steps[0].Missing {
		t.Errorf("step 0 = %+v, want Missing", steps[0])
	}
	if s := steps[1]; s.Missing || s.Token != "" || s.LogProb != -3.5 || s.Top["U"] != -3.9 || len(keys(s.Top)) != 1 {
		t.Errorf("step 1 = %+v, want token \"\" (a piece of a character) and U alone among the keys", s)
	}
	if s := steps[2]; s.Token != " a" || s.Top[" a"] != -1 {
		t.Errorf("step 2 = %+v", s)
	}
}

// TestCompare checks the verdicts on one prompt's steps.
func TestCompare(t *testing.T) {
	top := func(kv ...any) map[string]float64 {
		m := map[string]float64{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1].(float64)
		}
		return m
	}
	saji := []step{
		{Token: " a", LogProb: -1, Top: top(" a", -1.0, " b", -2.0)},
		{Token: "\ufffd", LogProb: -3, Top: top("\ufffd", -3.0, "x", -4.0)},
	}
	for _, c := range []struct {
		name string
		peer []step
		want bool
	}{
		{"equal", []step{
			{Token: " a", LogProb: -1, Top: top(" a", -1.0, " b", -2.0)},
			{Token: "", LogProb: -3, Top: top("", -3.0, "x", -4.0)},
		}, true},
		{"within tolerance", []step{
			{Token: " a", LogProb: -1.001, Top: top(" a", -1.001, " b", -2.0)},
		}, true},
		{"beyond tolerance", []step{
			{Token: " a", LogProb: -1.01, Top: top(" a", -1.01, " b", -2.0)},
		}, false},
		{"another token", []step{
			{Token: " b", LogProb: -1, Top: top(" a", -1.0, " b", -2.0)},
		}, false},
		{"another top-5", []step{
			{Token: " a", LogProb: -1, Top: top(" a", -1.0, " c", -2.0)},
		}, false},
		{"a piece of a character of another probability", []step{
			{Token: " a", LogProb: -1, Top: top(" a", -1.0, " b", -2.0)},
			{Token: "", LogProb: -2.5, Top: top("", -2.5, "x", -4.0)},
		}, false},
		{"a step without probabilities", []step{
			{Missing: true},
			{Token: "", LogProb: -3, Top: top("", -3.0, "x", -4.0)},
		}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := compare(io.Discard, "p", saji, c.peer, 2, 2e-3); got != c.want {
				t.Errorf("compare = %v, want %v", got, c.want)
			}
		})
	}
}
