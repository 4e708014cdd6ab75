package chat

import (
	"context"
	"sync"
	"testing"
)

// TestConcurrentRenders shares one parsed template between goroutines
// (run under -race).
func TestConcurrentRenders(t *testing.T) {
	tmpl, err := Parse(`{% set ns = namespace(n=0) %}{% for m in messages %}{% set ns.n = ns.n + 1 %}{{ m.content|upper }}{{ [1, 2]|map('string')|join }}{% endfor %}{{ ns.n }}`)
	if err != nil {
		t.Fatal(err)
	}
	r := longConversation(20)
	want, err := tmpl.RenderMessages(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				out, err := tmpl.RenderMessages(context.Background(), r)
				if err != nil || out != want {
					t.Errorf("concurrent render differs: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
}
