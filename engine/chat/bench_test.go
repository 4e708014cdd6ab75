package chat

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"saji/internal/refdata"
)

// longConversation returns a system prompt and n user/assistant turns.
func longConversation(n int) Request {
	msgs := []Message{{Role: "system", Content: "You are a helpful assistant."}}
	for i := 0; i < n; i++ {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		msgs = append(msgs, Message{Role: role, Content: fmt.Sprintf("Message %d: the quick brown fox jumps over the lazy dog, again and again.", i)})
	}
	return Request{Messages: msgs, AddGenerationPrompt: true, BOSToken: "<s>", EOSToken: "</s>"}
}

// BenchmarkRender100Messages renders a 100-message conversation with a
// few real templates (compiled once).
func BenchmarkRender100Messages(b *testing.B) {
	dir := refdata.Path(b, "templates")
	r := longConversation(100)
	for _, name := range []string{"Qwen-Qwen3-0.6B.jinja", "meta-llama-Llama-3.1-8B-Instruct.jinja", "openai-gpt-oss-120b.jinja"} {
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		t, err := Parse(string(src))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := t.RenderMessages(context.Background(), r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
