package app

import (
	"context"
	"testing"

	"saji/app/store"
	"saji/engine/library"
)

func TestChatSettings(t *testing.T) {
	gen := &fakeGen{Chunks: []string{"ok"}}
	c := newTestCore(t)
	e, err := c.Library().Import(context.Background(), tinyModel(t), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	temp := float32(0.3)
	if err := c.Library().SetPreset(e.Name, library.Preset{System: "Be brief.", Temperature: &temp, MaxTokens: 77}); err != nil {
		t.Fatal(err)
	}
	u := chatUIOver(t, c, gen)
	v := u.chat
	chatSend(u, "one")
	req := chatWaitRequests(t, gen, 1)[0]
	chatWaitIdle(t, u)
	if req.System != "Be brief." || req.Settings != (store.Settings{Temperature: 0.3, MaxTokens: 77}) {
		t.Errorf("new chat's request: system %q, settings %+v; want the preset", req.System, req.Settings)
	}
	want := store.Settings{Temperature: 1.2, TopP: 0.9, MaxTokens: 64, Context: 200}
	chatLocked(u, func() { v.setSettings("Answer in French.", want) })
	chatSend(u, "two")
	req = chatWaitRequests(t, gen, 2)[1]
	chatWaitIdle(t, u)
	if req.System != "Answer in French." || req.Settings != want {
		t.Errorf("request: system %q, settings %+v; want %+v", req.System, req.Settings, want)
	}
	conv, _ := chatOpenMessages(t, u)
	if conv.System != "Answer in French." || conv.Settings != want {
		t.Errorf("stored settings %q %+v", conv.System, conv.Settings)
	}
	// A new chat's settings apply when it is stored.
	chatLocked(u, func() {
		v.newChat()
		v.setSettings("", store.Settings{TopP: 0.5})
	})
	chatSend(u, "three")
	req = chatWaitRequests(t, gen, 3)[2]
	chatWaitIdle(t, u)
	if req.System != "" || req.Settings != (store.Settings{TopP: 0.5}) {
		t.Errorf("edited new chat's request: %q %+v", req.System, req.Settings)
	}
	// The dialog opens with the conversation's values.
	chatLocked(u, func() { v.showSettings() })
	if u.win.Canvas().Overlays().Top() == nil {
		t.Error("settings opened no dialog")
	}
}
