package store

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// ExportMarkdown writes a conversation as a Markdown document: a title, a
// line of metadata, the system prompt and one section per message.
func (s *Store) ExportMarkdown(id int64, w io.Writer) error {
	c, msgs, err := s.Conversation(id)
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", oneLine(c.Title))
	if c.Model != "" {
		fmt.Fprintf(&b, "- Model: %s\n", oneLine(c.Model))
	}
	fmt.Fprintf(&b, "- Created: %s\n", c.Created.Format(time.RFC3339))
	fmt.Fprintf(&b, "- Updated: %s\n", c.Updated.Format(time.RFC3339))
	if c.System != "" {
		fmt.Fprintf(&b, "\n## System prompt\n\n%s\n", strings.TrimRight(c.System, "\n"))
	}
	for _, m := range msgs {
		fmt.Fprintf(&b, "\n## %s\n\n", roleTitle(m.Role))
		if m.Reasoning != "" {
			// A collapsed block, as the app shows it, in the HTML that
			// Markdown renderers keep.
			fmt.Fprintf(&b, "<details><summary>%s</summary>\n\n%s\n\n</details>\n\n", m.ThoughtSummary(), strings.TrimRight(m.Reasoning, "\n"))
		}
		if m.Content != "" {
			fmt.Fprintf(&b, "%s\n", strings.TrimRight(m.Content, "\n"))
		}
		if !m.Done {
			if m.Content != "" {
				b.WriteString("\n")
			}
			b.WriteString("*(reply interrupted)*\n")
		}
		if m.Role == "assistant" && m.Tokens > 0 {
			fmt.Fprintf(&b, "\n*%d tokens, %.1f tokens/s, %.2f s to first token*\n", m.Tokens, m.TokensPerSecond, m.TTFTSeconds)
		}
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("store: export markdown %d: %w", id, err)
	}
	return nil
}

// oneLine keeps a heading or list item on one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// roleTitle is the section heading for a role: "user" becomes "User".
func roleTitle(role string) string {
	if role == "" {
		return "Message"
	}
	r, n := utf8.DecodeRuneInString(role)
	return string(unicode.ToUpper(r)) + role[n:]
}

// exportedConversation is the JSON export: the conversation and its messages.
type exportedConversation struct {
	Conversation
	Messages []Message `json:"messages"`
}

// ExportJSON writes a conversation and its messages as one indented JSON
// object; times are RFC 3339 in UTC.
func (s *Store) ExportJSON(id int64, w io.Writer) error {
	c, msgs, err := s.Conversation(id)
	if err != nil {
		return err
	}
	if msgs == nil {
		msgs = []Message{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(exportedConversation{Conversation: c, Messages: msgs}); err != nil {
		return fmt.Errorf("store: export json %d: %w", id, err)
	}
	return nil
}
