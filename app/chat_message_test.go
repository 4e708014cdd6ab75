package app

import (
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"saji/app/store"
)

func TestChatCodeCopy(t *testing.T) {
	gen := &fakeGen{Chunks: []string{"Try:\n```sh\nls -l\n```\n"}}
	u := chatUI(t, gen)
	chatSend(u, "list files")
	chatWaitShown(t, u, "tokens/s")
	chatWaitIdle(t, u)
	var copyBtn *widget.Button
	chatLocked(u, func() {
		for _, mv := range u.chat.views {
			for _, o := range mv.body.Box.Objects {
				if b := chatButton(o, "Copy"); b != nil {
					copyBtn = b
				}
			}
		}
	})
	if copyBtn == nil {
		t.Fatal("no code block with a Copy button")
	}
	chatLocked(u, func() { test.Tap(copyBtn) })
	if got := u.app.Clipboard().Content(); got != "ls -l" {
		t.Errorf("clipboard %q, want %q", got, "ls -l")
	}
}

func TestStatsLine(t *testing.T) {
	for _, tc := range []struct {
		m    store.Message
		want string
	}{
		{store.Message{Tokens: 1, TokensPerSecond: 12.34, TTFTSeconds: 0.5}, "1 token · 12.3 tokens/s · 0.50 s to first token"},
		{store.Message{Tokens: 40, TokensPerSecond: 20, TTFTSeconds: 1.25, DraftTokens: 48, AcceptedTokens: 31},
			"40 tokens · 20.0 tokens/s · 1.25 s to first token · 65% of 48 drafted tokens kept"},
	} {
		if got := statsLine(tc.m); got != tc.want {
			t.Errorf("statsLine(%+v) = %q, want %q", tc.m, got, tc.want)
		}
	}
}
