package app

import (
	"reflect"
	"testing"
)

func TestChatSplitMessage(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []block
	}{
		{"empty", "", nil},
		{"blank", "\n \n", nil},
		{"prose sections", "Hello **there**.\n\nSecond paragraph.", []block{{Text: "Hello **there**."}, {Text: "Second paragraph."}}},
		{"one paragraph", "Hello\nthere.", []block{{Text: "Hello\nthere."}}},
		{"loose list stays", "- a\n\n- b\n\n  more b\n\n1. c\n\n2. d", []block{{Text: "- a\n\n- b\n\n  more b\n\n1. c\n\n2. d"}}},
		{"paragraph after list", "- a\n- b\n\nThen.", []block{{Text: "- a\n- b"}, {Text: "Then."}}},
		{"table section", "Sizes:\n\n| a | b |\n|---|---|\n| 1 | 2 |", []block{{Text: "Sizes:"}, {Text: "| a | b |\n|---|---|\n| 1 | 2 |"}}},
		{"display math", "So:\n$$\nx^2\n$$\nDone.", []block{{Text: "So:"}, {Math: true, Text: "x^2"}, {Text: "Done."}}},
		{"display math one line", "$$E = mc^2$$", []block{{Math: true, Text: "E = mc^2"}}},
		{"bracket math", "\\[\n\\frac{a}{b}\n\\]", []block{{Math: true, Text: "\\frac{a}{b}"}}},
		{"math streaming", "Then $$\\sum", []block{{Text: "Then $$\\sum"}}},
		{"math block streaming", "$$\n\\sum_i", []block{{Math: true, Text: "\\sum_i"}}},
		{"inline display math is prose", "$$a$$ and b", []block{{Text: "$$a$$ and b"}}},
		{"code only", "```go\nfmt.Println(1)\n```", []block{{Code: true, Lang: "go", Text: "fmt.Println(1)"}}},
		{"prose code prose", "Run this:\n\n```sh\nls -l\necho hi\n```\n\nThen look.",
			[]block{{Text: "Run this:"}, {Code: true, Lang: "sh", Text: "ls -l\necho hi"}, {Text: "Then look."}}},
		{"no language", "```\nplain\n```", []block{{Code: true, Text: "plain"}}},
		{"info string", "```python title=x.py\npass\n```", []block{{Code: true, Lang: "python", Text: "pass"}}},
		{"tilde fence", "~~~\na ``` b\n~~~", []block{{Code: true, Text: "a ``` b"}}},
		{"longer fence holds shorter", "````md\n```go\nx\n```\n````", []block{{Code: true, Lang: "md", Text: "```go\nx\n```"}}},
		{"closing with info is content", "```\n```go\n```", []block{{Code: true, Text: "```go"}}},
		{"unterminated while streaming", "Here:\n```py\ndef f():\n    return", []block{{Text: "Here:"}, {Code: true, Lang: "py", Text: "def f():\n    return", Open: true}}},
		{"fence just opened", "Here:\n```py", []block{{Text: "Here:"}, {Code: true, Lang: "py", Open: true}}},
		{"partial fence is prose", "Here:\n``", []block{{Text: "Here:\n``"}}},
		{"inline triple backticks", "Use ```x``` inline.", []block{{Text: "Use ```x``` inline."}}},
		{"indented in a list", "1. Step:\n   ```js\n   let a = 1;\n     nested();\n   ```\n2. Done",
			[]block{{Text: "1. Step:"}, {Code: true, Lang: "js", Text: "let a = 1;\n  nested();"}, {Text: "2. Done"}}},
		{"empty code block", "```\n```", []block{{Code: true}}},
		{"blank lines kept in code", "```\na\n\nb\n```", []block{{Code: true, Text: "a\n\nb"}}},
		{"two blocks", "```a\n1\n```\n```b\n2\n```", []block{{Code: true, Lang: "a", Text: "1"}, {Code: true, Lang: "b", Text: "2"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := splitMessage(tt.in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("splitMessage(%q)\n got %+v\nwant %+v", tt.in, got, tt.want)
			}
		})
	}
}
