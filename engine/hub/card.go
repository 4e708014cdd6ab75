package hub

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Card is the summary of a model card (the repository's README.md).
type Card struct {
	// Summary is the card's first paragraph(s) of prose as plain text,
	// about 600 characters at most.
	Summary string
	// License and BaseModel come from the card's YAML front matter.
	License   string
	BaseModel string
}

// summaryLen is about how long Card.Summary gets.
const summaryLen = 600

// maxCardBytes is the most of a README.md that Card reads.
const maxCardBytes = 1 << 20

// Card fetches a repository's README.md and summarizes it. A repository
// without a README.md has an empty Card and no error.
func (c *Client) Card(ctx context.Context, repo string) (Card, error) {
	if err := checkRepo(repo); err != nil {
		return Card{}, err
	}
	ctx, cancel := withTimeout(ctx)
	defer cancel()
	resp, err := c.get(ctx, c.FileURL(repo, "main", "README.md"), repo)
	if err != nil {
		var e *Error
		if errors.As(err, &e) && e.Code == "EntryNotFound" {
			return Card{}, nil
		}
		return Card{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxCardBytes))
	if err != nil {
		return Card{}, fmt.Errorf("hub: %s: reading README.md: %w", repo, err)
	}
	return ParseCard(string(b)), nil
}

// ParseCard summarizes a model card's Markdown: License and BaseModel from
// its YAML front matter, and the first paragraphs of prose with headings,
// images, HTML, code, tables and link targets left out.
func ParseCard(md string) Card {
	md = strings.ReplaceAll(md, "\r\n", "\n")
	var card Card
	body := md
	if front, rest, ok := frontMatter(md); ok {
		body = rest
		card.License = yamlValue(front, "license")
		card.BaseModel = yamlValue(front, "base_model")
	}
	card.Summary = summarize(body, summaryLen)
	return card
}

// frontMatter splits "---\nYAML\n---\nrest".
func frontMatter(md string) (front, rest string, ok bool) {
	if !strings.HasPrefix(md, "---\n") {
		return "", md, false
	}
	s := md[len("---\n"):]
	for off := 0; off <= len(s); {
		line, after, found := strings.Cut(s[off:], "\n")
		if strings.TrimRight(line, " \t") == "---" || strings.TrimRight(line, " \t") == "..." {
			return s[:off], after, true
		}
		if !found {
			break
		}
		off += len(line) + 1
	}
	return "", md, false
}

// yamlValue returns a top-level key's scalar value, or the first item of
// its list (block or flow style), unquoted.
func yamlValue(front, key string) string {
	lines := strings.Split(front, "\n")
	for i, l := range lines {
		k, v, ok := strings.Cut(l, ":")
		if !ok || k != key {
			continue
		}
		v = strings.TrimSpace(v)
		if v == "" || v == "|" || v == ">" {
			for _, next := range lines[i+1:] {
				t := strings.TrimSpace(next)
				if t == "" || strings.HasPrefix(t, "#") {
					continue
				}
				if item, ok := strings.CutPrefix(t, "- "); ok {
					return unquote(item)
				}
				break
			}
			return ""
		}
		if strings.HasPrefix(v, "[") {
			v = strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")
			v, _, _ = strings.Cut(v, ",")
		}
		return unquote(v)
	}
	return ""
}

// unquote strips YAML quotes and a trailing comment.
func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') {
		if end := strings.IndexByte(s[1:], s[0]); end >= 0 {
			return s[1 : 1+end]
		}
	}
	if i := strings.Index(s, " #"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

var (
	reImage      = regexp.MustCompile(`!\[[^\]]*\]\([^)]*\)`)
	reLinkedImg  = regexp.MustCompile(`\[\s*!\[[^\]]*\]\([^)]*\)\s*\]\([^)]*\)`)
	reLink       = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	reRefLink    = regexp.MustCompile(`\[([^\]]*)\]\[[^\]]*\]`)
	reHTMLTag    = regexp.MustCompile(`</?[A-Za-z][^>]*>`)
	reHTMLCmt    = regexp.MustCompile(`(?s)<!--.*?-->`)
	reEmphasis   = regexp.MustCompile(`(\*\*|__|~~)(.+?)(\*\*|__|~~)`)
	reCode       = regexp.MustCompile("`([^`]*)`")
	reSpaces     = regexp.MustCompile(`[ \t]+`)
	reListMarker = regexp.MustCompile(`^\s*(?:[-*+]|\d+[.)])\s+`)
	reRefDef     = regexp.MustCompile(`^\s*\[[^\]]+\]:\s*\S+`)
)

// summarize returns the first paragraphs of prose of a Markdown body as
// plain text, cut near limit characters on a word boundary.
func summarize(body string, limit int) string {
	body = reHTMLCmt.ReplaceAllString(body, "")
	var paras []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			p := strings.TrimSpace(reSpaces.ReplaceAllString(strings.Join(cur, " "), " "))
			if p != "" && hasWords(p) {
				paras = append(paras, p)
			}
			cur = nil
		}
	}
	fence := ""
	for _, line := range strings.Split(body, "\n") {
		t := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		switch {
		case strings.HasPrefix(t, "```"), strings.HasPrefix(t, "~~~"):
			flush()
			fence = t[:3]
			continue
		case t == "", strings.HasPrefix(t, "#"), strings.HasPrefix(t, "|"),
			strings.HasPrefix(t, "---"), strings.HasPrefix(t, "==="), strings.HasPrefix(t, "***"),
			strings.HasPrefix(t, ">"), reRefDef.MatchString(t),
			strings.HasPrefix(line, "    "), strings.HasPrefix(line, "\t"):
			// Blank lines, headings, tables, rules, quotes, reference
			// definitions and indented code end a paragraph and are dropped.
			flush()
			continue
		}
		if reListMarker.MatchString(line) {
			flush() // list items are paragraphs of their own
			t = reListMarker.ReplaceAllString(line, "")
		}
		t = plain(t)
		if t == "" {
			flush()
			continue
		}
		cur = append(cur, t)
		if reListMarker.MatchString(line) {
			flush()
		}
	}
	flush()

	var sb strings.Builder
	for _, p := range paras {
		if sb.Len() > 0 {
			if sb.Len()+2+len(p) > limit {
				break
			}
			sb.WriteString("\n\n")
		}
		sb.WriteString(p)
		if sb.Len() >= limit*2/3 {
			break
		}
	}
	return cut(sb.String(), limit)
}

// plain strips Markdown and HTML markup from one line.
func plain(s string) string {
	s = reLinkedImg.ReplaceAllString(s, "")
	s = reImage.ReplaceAllString(s, "")
	s = reLink.ReplaceAllString(s, "$1")
	s = reRefLink.ReplaceAllString(s, "$1")
	s = reHTMLTag.ReplaceAllString(s, "")
	s = reEmphasis.ReplaceAllString(s, "$2")
	s = reCode.ReplaceAllString(s, "$1")
	s = strings.NewReplacer("&nbsp;", " ", "&amp;", "&", "&lt;", "<", "&gt;", ">", "&quot;", `"`, "&#39;", "'").Replace(s)
	return strings.TrimSpace(s)
}

// hasWords says whether a paragraph has a letter (not just badges'
// leftovers or punctuation).
func hasWords(p string) bool {
	return strings.IndexFunc(p, unicode.IsLetter) >= 0
}

// cut shortens s to at most limit bytes on a word boundary, adding "…".
func cut(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	for limit > 0 && !utf8.RuneStart(s[limit]) {
		limit--
	}
	s = s[:limit]
	if i := strings.LastIndexAny(s, " \n"); i > limit/2 {
		s = s[:i]
	}
	return strings.TrimRight(s, " \n,;:-") + "…"
}
