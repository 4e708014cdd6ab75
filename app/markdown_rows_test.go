package app

// The chat-rendering defects of issue 22, reproduced on a message drawn
// by the Fyne test driver at a width: its laid-out rows of text.

import (
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"

	"saji/app/store"
)

// placedText is a text object drawn at an absolute position.
type placedText struct {
	text string
	x, y float32
	w    float32
}

// drawnTexts collects the visible text objects under o, at their
// absolute positions (o at at).
func drawnTexts(o fyne.CanvasObject, at fyne.Position, out *[]placedText) {
	if o == nil || !o.Visible() {
		return
	}
	pos := at.Add(o.Position())
	switch o := o.(type) {
	case *canvas.Text:
		if o.Text != "" {
			*out = append(*out, placedText{text: o.Text, x: pos.X, y: pos.Y, w: fyne.MeasureText(o.Text, o.TextSize, o.TextStyle).Width})
		}
	case *fyne.Container:
		for _, c := range o.Objects {
			drawnTexts(c, pos, out)
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(o).Objects() {
			drawnTexts(c, pos, out)
		}
	}
}

// drawnRows returns the rows of text under o: the text objects grouped
// by their top, joined left to right, with a space only where the
// objects leave a gap.
func drawnRows(o fyne.CanvasObject) []string {
	var texts []placedText
	drawnTexts(o, fyne.NewPos(-o.Position().X, -o.Position().Y), &texts)
	sort.SliceStable(texts, func(i, j int) bool {
		if d := texts[i].y - texts[j].y; d > 2 || d < -2 {
			return texts[i].y < texts[j].y
		}
		return texts[i].x < texts[j].x
	})
	var rows []string
	var cur strings.Builder
	lastY, lastEnd := float32(-1e9), float32(0)
	for _, t := range texts {
		if d := t.y - lastY; d > 2 || d < -2 {
			if cur.Len() > 0 {
				rows = append(rows, cur.String())
			}
			cur.Reset()
			lastY = t.y
		} else if t.x > lastEnd+1 {
			cur.WriteByte(' ')
		}
		cur.WriteString(t.text)
		lastEnd = t.x + t.w
	}
	if cur.Len() > 0 {
		rows = append(rows, cur.String())
	}
	return rows
}

// drawReply draws a finished reply of text in a scrolling window width
// wide (as the chat shows it) and returns its rows.
func drawReply(t *testing.T, text string, width float32) []string {
	t.Helper()
	u := newTestUI(t, &fakeGen{})
	mv := u.chat.newMessageView(store.Message{Role: "assistant", Content: text, Done: true}, false, false)
	w := test.NewWindow(container.NewVScroll(mv.box))
	t.Cleanup(w.Close)
	w.Resize(fyne.NewSize(width, 600))
	return drawnRows(mv.box)
}

// mixedReply is a reply whose paragraphs mix styles, as models write.
const mixedReply = "Ciao! Ecco il **gelato al melone**! When you quantize a model with `llama-quantize` " +
	"you pick a type such as Q4_K_M or Q5_K_S, and the file lands in https://huggingface.co/saji/models when " +
	"the download finishes. When it is done, open the **Library** tab, pick the model and *start a chat* with it.\n\n" +
	"When the reply streams, the text wraps by words and never breaks in the middle of one."

// mixedWords are mixedReply's words as they read.
var mixedWords = strings.Fields(strings.NewReplacer("**", "", "`", "", "*", "").Replace(mixedReply))

func TestChatReplyWrapsByWords(t *testing.T) {
	for _, width := range []float32{220, 300, 420, 560, 800} {
		rows := drawReply(t, mixedReply, width)
		var got []string
		for _, r := range rows {
			if r == "Assistant" || r == "Copy" {
				continue
			}
			if n := utf8.RuneCountInString(strings.TrimSpace(r)); n == 1 {
				t.Errorf("width %v: a row of one character %q (the text collapsed)\nrows %q", width, r, rows)
				break
			}
			got = append(got, strings.Fields(r)...)
		}
		got = joinBrokenWords(got)
		for _, w := range got {
			if !slices.Contains(mixedWords, w) {
				t.Errorf("width %v: %q is not a word of the reply (a word broke or a space came in)\nrows %q", width, w, rows)
				break
			}
		}
		if len(got) != len(mixedWords) {
			t.Errorf("width %v: %d words drawn, want %d\nrows %q", width, len(got), len(mixedWords), rows)
		}
	}
}

func TestChatReplyNoInsertedSpaces(t *testing.T) {
	rows := strings.Join(drawReply(t, mixedReply, 2000), "\n")
	for _, want := range []string{"melone!", "Q4_K_M", "Q5_K_S,", "https://huggingface.co/saji/models", "Ciao!"} {
		if !strings.Contains(rows, want) {
			t.Errorf("%q not drawn whole in\n%s", want, rows)
		}
	}
}

func TestChatReplyTableNotPipes(t *testing.T) {
	reply := "Levels:\n\n| Type | Size | Quality |\n|:-----|-----:|:-------:|\n| Q4_K_M | 4.1 GB | good |\n| Q8_0 | 7.2 GB | best |\n"
	rows := drawReply(t, reply, 800)
	for _, r := range rows {
		if strings.Contains(r, "|") {
			t.Fatalf("the table shows as raw pipes: %q", rows)
		}
	}
	joined := strings.Join(rows, "\n")
	for _, want := range []string{"Type", "Q4_K_M", "7.2 GB", "best"} {
		if !strings.Contains(joined, want) {
			t.Errorf("%q not drawn in %q", want, rows)
		}
	}
}

// joinBrokenWords joins the pieces of a word that had to break because
// it is wider than a row (a long URL), and only of such a word.
func joinBrokenWords(words []string) []string {
	var out []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		for i+1 < len(words) && strings.Contains(w, "://") && !slices.Contains(mixedWords, w) {
			i++
			w += words[i]
		}
		out = append(out, w)
	}
	return out
}
