package app

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"saji/engine/synth"
)

// TestChatSpeculative imports a tiny model and a copy of it at a quarter
// of its size (the same vocabulary) into the library: a reply of the big
// one is drafted by the small one (Settings' speculative decoding is on by
// default), and its line says how many drafted tokens were kept.
func TestChatSpeculative(t *testing.T) {
	c := newTestCore(t)
	dir := t.TempDir()
	var names []string
	for _, typ := range []string{"f32", "q4_0"} {
		p := filepath.Join(dir, "tiny-"+typ+".gguf")
		if err := synth.WriteTiny(context.Background(), p, typ, 5); err != nil {
			t.Fatal(err)
		}
		e, err := c.Library().Import(context.Background(), p, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, e.Name)
	}
	u := newUI(test.NewTempApp(t), c, c)
	t.Cleanup(func() { u.win.Close() })
	u.chat.refreshModels()
	chatLocked(u, func() { u.chat.setDraftModel(names[0]) })
	chatSend(u, "the cat sat on the mat")
	chatWaitIdle(t, u)
	_, msgs := chatOpenMessages(t, u)
	if len(msgs) != 2 {
		t.Fatalf("stored %d messages %+v", len(msgs), msgs)
	}
	if r := msgs[1]; r.DraftTokens == 0 || r.AcceptedTokens > r.DraftTokens {
		t.Errorf("the reply %+v: %d of %d draft tokens kept", r, r.AcceptedTokens, r.DraftTokens)
	}
	if s := chatShown(u); !strings.Contains(s, "drafted tokens kept") {
		t.Errorf("the chat shows no drafts:\n%s", s)
	}
}
