package sample_test

import (
	"fmt"

	"saji/engine/sample"
)

func ExampleSampler() {
	p := sample.Defaults()
	p.Temperature = 0 // greedy, for a reproducible example
	p.RepeatPenalty = 1.5
	s, err := sample.New(p)
	if err != nil {
		panic(err)
	}
	logits := []float32{0.5, 2.0, 1.8, -1}
	for range 3 {
		tok, err := s.Next(logits) // samples and accepts into the penalty window
		if err != nil {
			panic(err)
		}
		fmt.Print(tok, " ")
	}
	fmt.Println()
	// Output: 1 2 1
}

func ExampleStopMatcher() {
	m, err := sample.NewStopMatcher([]string{"</answer>"})
	if err != nil {
		panic(err)
	}
	for _, piece := range []string{"42", " </", "ans", "wer> ignored"} {
		emit, stopped := m.Push(piece)
		fmt.Printf("%q %v\n", emit, stopped)
	}
	// Output:
	// "42" false
	// " " false
	// "" false
	// "" true
}

func ExampleLogProbs() {
	lp, err := sample.NewLogProbs([]float32{1, 3, 2})
	if err != nil {
		panic(err)
	}
	for _, t := range lp.Top(2, nil) {
		fmt.Printf("%d %.4f\n", t.ID, t.LogProb)
	}
	// Output:
	// 1 -0.4076
	// 2 -1.4076
}

// A tool call constrained to a wrapper around the tool's arguments
// schema: the schema's rules are prefixed so that they cannot clash with
// the wrapper's, or with another tool's.
func ExampleSchemaRules() {
	args, err := sample.SchemaRules([]byte(`{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}`), "weather-")
	if err != nil {
		panic(err)
	}
	src := "root ::= " + sample.GrammarLiteral(`{"name": "get_weather", "arguments": `) + " weather-root \"}\"\n" + args
	g, err := sample.ParseGrammar(src)
	if err != nil {
		panic(err)
	}
	c := sample.NewGrammarConstraint(g)
	fmt.Println(c.Allows(`{"name": "get_weather", "arguments": {"city": "Oslo"}}`), c.Allows(`{"name": "get_time"`))
	if err := c.Advance(`{"name": "get_weather", "arguments": {"city": "Oslo"}}`); err != nil {
		panic(err)
	}
	fmt.Println(c.Complete())
	// Output:
	// true false
	// true
}
