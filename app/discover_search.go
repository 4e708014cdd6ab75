package app

// The Discover view's search: the query, the results list and its rows.

import (
	"context"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"saji/engine/hub"
)

// search runs the query off the UI goroutine and lists the results.
func (v *discoverView) search() {
	opts := hub.SearchOptions{
		Query:    strings.TrimSpace(v.query.Text),
		Sort:     sortKey(v.sortSel.Selected),
		Limit:    searchLimit,
		GGUFOnly: true,
	}
	v.mu.Lock()
	v.searchSeq++
	seq := v.searchSeq
	v.mu.Unlock()
	v.resultsNote.Importance = widget.LowImportance
	v.resultsNote.SetText("Searching Hugging Face...")
	v.resultsNote.Show()
	client := v.client()
	v.bg.run(func() func() {
		ctx, cancel := context.WithTimeout(context.Background(), hubTimeout)
		defer cancel()
		res, err := client.Search(ctx, opts)
		msg := ""
		if err != nil {
			msg = "Saji could not search Hugging Face. " + hubMessage(err, client, "")
		}
		return func() {
			v.mu.Lock()
			stale := seq != v.searchSeq
			v.mu.Unlock()
			if stale {
				return
			}
			switch {
			case err != nil:
				v.resultsNote.Importance = widget.DangerImportance
				v.resultsNote.SetText(msg)
				v.resultsNote.Show()
			case len(res) == 0:
				v.resultsNote.Importance = widget.LowImportance
				v.resultsNote.SetText("No GGUF models match \"" + opts.Query + "\". Try fewer or other words.")
				v.resultsNote.Show()
			default:
				v.resultsNote.Hide()
			}
			if err == nil {
				v.results = res
				v.resultsList.UnselectAll()
				v.resultsList.Refresh()
				v.resultsList.ScrollToTop()
			}
			ids := make([]string, len(v.results))
			for i, r := range v.results {
				ids[i] = r.ID
			}
			v.mu.Lock()
			v.snap.Searches++
			v.snap.Results, v.snap.SearchError = ids, msg
			v.mu.Unlock()
		}
	})
}

// newResultRow is the results list's row template: the id and a gated
// mark, then the figures.
func newResultRow() fyne.CanvasObject {
	name := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	name.Truncation = fyne.TextTruncateEllipsis
	gated := widget.NewLabel("Gated")
	gated.Importance = widget.WarningImportance
	details := widget.NewLabel("")
	details.Truncation = fyne.TextTruncateEllipsis
	details.SizeName = theme.SizeNameCaptionText
	return container.NewVBox(container.NewBorder(nil, nil, nil, gated, name), details)
}

// setResultRow fills a row made by newResultRow with m.
func (v *discoverView) setResultRow(o fyne.CanvasObject, m hub.ModelSummary) {
	box := o.(*fyne.Container)
	head := box.Objects[0].(*fyne.Container)
	head.Objects[0].(*widget.Label).SetText(m.ID)
	setVisible(head.Objects[1], m.Gated)
	box.Objects[1].(*widget.Label).SetText(resultDetails(m, v.now()))
}

// resultDetails is a search result's line of figures.
func resultDetails(m hub.ModelSummary, now time.Time) string {
	parts := []string{
		plural(m.Downloads, "download", "downloads"),
		plural(m.Likes, "like", "likes"),
	}
	if !m.LastModified.IsZero() {
		parts = append(parts, "updated "+timeAgo(m.LastModified, now))
	}
	return strings.Join(parts, " · ")
}

// plural writes n with the singular or plural noun: "1 like", "12,345
// downloads".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return groupDigits(int64(n)) + " " + many
}

// timeAgo says how long before now t was: "just now", "5 minutes ago",
// "yesterday", "3 days ago", "2 months ago", "4 years ago".
func timeAgo(t, now time.Time) string {
	d := now.Sub(t)
	day := 24 * time.Hour
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute", "minutes") + " ago"
	case d < day:
		return plural(int(d/time.Hour), "hour", "hours") + " ago"
	case d < 2*day:
		return "yesterday"
	case d < 60*day:
		return plural(int(d/day), "day", "days") + " ago"
	case d < 365*day:
		return plural(int(d/(30*day)), "month", "months") + " ago"
	}
	return plural(int(d/(365*day)), "year", "years") + " ago"
}
