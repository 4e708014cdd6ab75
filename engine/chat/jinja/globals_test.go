package jinja

import (
	"context"
	"testing"
	"time"
)

func TestStrftimeNow(t *testing.T) {
	now := time.Date(2026, 3, 5, 9, 7, 3, 0, time.UTC)
	tmpl, err := Parse(`{{ strftime_now("%Y-%m-%d %H:%M:%S|%d %b %Y|%B %d, %Y|%-d %A %I%p %j|%y %e %%") }}`,
		Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	out, err := tmpl.Render(context.Background(), nil)
	if want := "2026-03-05 09:07:03|05 Mar 2026|March 05, 2026|5 Thursday 09AM 064|26  5 %"; err != nil || out != want {
		t.Errorf("got %q, %v; want %q", out, err, want)
	}
	// The default clock is the real one.
	tmpl, _ = Parse(`{{ strftime_now("%Y") }}`, Options{})
	if out, err := tmpl.Render(context.Background(), nil); err != nil || out != time.Now().Format("2006") {
		t.Errorf("real clock: %q, %v", out, err)
	}
}
