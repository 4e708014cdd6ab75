package jinja

import (
	"context"
	"os"
	"testing"

	"saji/internal/refdata"
)

// BenchmarkParse compiles a large real template.
func BenchmarkParse(b *testing.B) {
	src, err := os.ReadFile(refdata.Path(b, "templates/openai-gpt-oss-120b.jinja"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Parse(string(src), Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoop(b *testing.B) {
	t, err := Parse(`{% for i in range(10000) %}{% endfor %}`, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := t.Render(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
	}
}
