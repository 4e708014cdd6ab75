package app

import (
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
)

// shotReply is a reply with what a chat draws: headings, a table, code,
// math, lists, a quote and links.
const shotReply = "## Quantization levels\n\n" +
	"When you **quantize** a model with `llama-quantize`, pick a type such as Q4_K_M; the files are at https://huggingface.co/saji/models.\n\n" +
	"| Type | Size | Quality |\n|:--|--:|:-:|\n| Q4_K_M | 4.1 GB | good |\n| Q5_K_S | 4.8 GB | better |\n| Q8_0 | 7.2 GB | best |\n\n" +
	"```go\n// add returns the sum.\nfunc add(a, b int) int {\n\treturn a + b + 1\n}\n```\n\n" +
	"The energy is $E = mc^2$, and the sum:\n\n$$\n\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}\n$$\n\n" +
	"1. Download the model\n2. Pick a level\n   - smaller is faster\n   - larger is better\n\n" +
	"> Tip: see [the docs](https://example.com/docs) before you start.\n\n---\n\nIt costs $5 and $10 a month, *no more*."

// TestChatReplyScreenshot draws a conversation with shotReply in the
// chat at 800×600 and 1280×800, dark and light; with SAJI_SHOTS set to a
// folder, the pictures are written there.
func TestChatReplyScreenshot(t *testing.T) {
	dir := os.Getenv("SAJI_SHOTS")
	for _, variant := range []string{themeDark, themeLight} {
		u := chatUI(t, &fakeGen{})
		applyTheme(u.app, variant)
		st := u.core.Store()
		c, err := st.NewConversation("Quantization", "tiny-chat")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.AddMessage(c.ID, "user", "Which level should I pick?"); err != nil {
			t.Fatal(err)
		}
		m, err := st.AddMessage(c.ID, "assistant", shotReply)
		if err != nil {
			t.Fatal(err)
		}
		m.Content, m.Done = shotReply, true
		if err := st.UpdateMessage(m); err != nil {
			t.Fatal(err)
		}
		chatLocked(u, func() {
			u.tabs.SelectIndex(tabChat)
			u.chat.openConversation(c.ID)
		})
		for _, size := range []fyne.Size{{Width: 800, Height: 600}, {Width: 1280, Height: 800}} {
			u.win.Resize(size)
			for _, end := range []string{"top", "bottom"} {
				chatLocked(u, func() {
					if end == "top" {
						u.chat.scroll.ScrollToTop()
					} else {
						u.chat.scroll.ScrollToBottom()
					}
				})
				shot := u.win.Canvas().Capture()
				if shot.Bounds().Dx() == 0 {
					t.Fatal("empty capture")
				}
				if dir == "" {
					continue
				}
				name := fmt.Sprintf("chat-reply-%s-%dx%d-%s.png", variant, int(size.Width), int(size.Height), end)
				f, err := os.Create(filepath.Join(dir, name))
				if err != nil {
					t.Fatal(err)
				}
				err = png.Encode(f, shot)
				if cerr := f.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}
