package chat

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"
)

func TestZZDiff(t *testing.T) {
	in := os.Getenv("CHAT_DIFF_IN")
	if in == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(in)
	var cases []struct{ Src, Ctx string }
	json.Unmarshal(data, &cases)
	var outs []string
	for _, c := range cases {
		tm, err := ParseWithOptions(c.Src, Options{Now: func() time.Time { return time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC) }})
		if err != nil {
			outs = append(outs, "ERR "+err.Error())
			continue
		}
		ctx := c.Ctx
		if ctx == "" {
			ctx = "{}"
		}
		v, err := DecodeJSON([]byte(ctx))
		if err != nil {
			outs = append(outs, "BADCTX")
			continue
		}
		out, err := tm.Render(context.Background(), v)
		if err != nil {
			outs = append(outs, "ERR "+err.Error())
			continue
		}
		outs = append(outs, "OK "+out)
	}
	b, _ := json.Marshal(outs)
	os.WriteFile(os.Getenv("CHAT_DIFF_OUT"), b, 0o644)
}
