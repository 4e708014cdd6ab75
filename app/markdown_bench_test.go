package app

import (
	"fmt"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"

	"saji/app/store"
)

// longReply returns a Markdown reply of about n tokens (a token is a
// word or a piece of punctuation with its space, about 4 characters, as
// models stream them): paragraphs, a list, a table and code in turn.
func longReply(n int) []string {
	parts := []string{
		"## Step %d\n\nWhen you **quantize** a model with `llama-quantize`, pick a type such as Q4_K_M; the file lands in https://example.com/models and the log says *done*. ",
		"The quality drops a little, and the speed grows, as the table shows.\n\n",
		"- first, download the model\n- then pick a level\n  1. small\n  2. large\n\n",
		"| Type | Size | Quality |\n|:--|--:|:-:|\n| Q4_K_M | 4.1 GB | good |\n| Q8_0 | 7.2 GB | best |\n\n",
		"```go\nfunc add(a, b int) int {\n\treturn a + b // the sum\n}\n```\n\n",
		"Math: $e^{i\\pi} + 1 = 0$ holds.\n\n",
	}
	var toks []string
	for i := 0; len(toks) < n; i++ {
		text := parts[i%len(parts)]
		if strings.Contains(text, "%d") {
			text = fmt.Sprintf(text, i/len(parts)+1)
		}
		for text != "" && len(toks) < n {
			j := strings.IndexAny(text[1:], " \n")
			if j < 0 {
				toks = append(toks, text)
				break
			}
			toks = append(toks, text[:j+1])
			text = text[j+1:]
		}
	}
	return toks
}

// BenchmarkStreamReply measures the cost of drawing a 2,000-token reply
// as it streams: the message is redrawn with its text after every token
// and laid out at a chat's width. The figure to read is ns/token.
func BenchmarkStreamReply(b *testing.B) {
	test.NewTempApp(b)
	toks := longReply(2000)
	for b.Loop() {
		mv := (&chatView{}).newMessageView(store.Message{Role: "assistant"}, true, true)
		w := test.NewWindow(container.NewVScroll(mv.box))
		w.Resize(fyne.NewSize(800, 600))
		var text strings.Builder
		for _, t := range toks {
			text.WriteString(t)
			mv.setText(text.String())
			mv.box.Resize(fyne.NewSize(760, mv.box.MinSize().Height))
		}
		w.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(toks)), "ns/token")
}
