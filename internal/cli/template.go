package cli

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/cobra"

	"saji/engine/chat"
	"saji/engine/gguf"
)

// newTemplateCmd is 'saji template': render a chat template for a
// conversation, as Hugging Face's apply_chat_template would.
func newTemplateCmd() *cobra.Command {
	var model, templateFile, contextFile, now string
	cmd := &cobra.Command{
		Use:   "template (-m FILE.gguf | --template FILE.jinja) --context CONTEXT.json",
		Short: "Render a chat template for a conversation",
		Long: "Render a chat template (the Jinja program a model carries under\n" +
			"tokenizer.chat_template, or a .jinja file) with the variables in a JSON file and\n" +
			"print the prompt exactly, with no newline added.\n\n" +
			"The context is a JSON object of template variables, the shape Hugging Face's\n" +
			"apply_chat_template passes: messages, tools, documents, add_generation_prompt,\n" +
			"bos_token, eos_token and any extra keyword arguments (enable_thinking, ...).\n" +
			"A key that is absent is undefined in the template; a null one is none.\n\n" +
			"With -m, the template comes from the model (ChatML when it has none) and\n" +
			"bos_token/eos_token default to the model's tokens when the context lacks them.",
		Example: "  saji template -m model.gguf --context chat.json\n" +
			"  saji template --template tmpl.jinja --context - < chat.json",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (model == "") == (templateFile == "") {
				return errors.New("template: give either a model (-m FILE) or a template (--template FILE)")
			}
			if contextFile == "" {
				return errors.New("template: a context is required (--context FILE, or - for standard input)")
			}
			vars, err := readContext(cmd, contextFile)
			if err != nil {
				return err
			}
			var src string
			if model != "" {
				var bos, eos string
				if src, bos, eos, err = modelTemplate(model); err != nil {
					return err
				}
				if src == "" {
					slog.Warn("the model has no chat template; using ChatML", "model", model)
					src = chat.ChatMLSource
				}
				vars = vars.WithTokens(bos, eos)
			} else {
				b, err := os.ReadFile(templateFile)
				if err != nil {
					return fmt.Errorf("template: %w", err)
				}
				src = string(b)
			}
			opts := chat.Options{}
			if now != "" {
				t, err := time.Parse(time.RFC3339, now)
				if err != nil {
					return fmt.Errorf("template: --now: %w", err)
				}
				opts.Now = func() time.Time { return t }
			}
			tmpl, err := chat.ParseWithOptions(src, opts)
			if err != nil {
				return fmt.Errorf("template: %w", err)
			}
			out, err := tmpl.Render(cmd.Context(), vars)
			if err != nil {
				return fmt.Errorf("template: %w", err)
			}
			_, err = io.WriteString(cmd.OutOrStdout(), out)
			return err
		},
	}
	f := cmd.Flags()
	f.StringVarP(&model, "model", "m", "", "GGUF model `FILE` whose tokenizer.chat_template to render")
	f.StringVar(&templateFile, "template", "", "Jinja template `FILE` to render")
	f.StringVar(&contextFile, "context", "", "JSON `FILE` of template variables (- for standard input)")
	f.StringVar(&now, "now", "", "fix the clock strftime_now reads (RFC 3339 `TIME`, such as 2026-01-15T12:00:00Z)")
	return cmd
}

// readContext decodes the context JSON object, keeping its key order.
func readContext(cmd *cobra.Command, path string) (chat.Vars, error) {
	var data []byte
	var err error
	if path == "-" {
		data, err = io.ReadAll(cmd.InOrStdin())
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return chat.Vars{}, fmt.Errorf("template: context: %w", err)
	}
	vars, err := chat.DecodeVars(data)
	if err != nil {
		return chat.Vars{}, fmt.Errorf("template: context %s: %w", path, err)
	}
	return vars, nil
}

// modelTemplate reads a model's chat template and the text of its BOS
// and EOS tokens ("" for what the model lacks).
func modelTemplate(path string) (src, bos, eos string, err error) {
	f, err := gguf.Open(path)
	if err != nil {
		return "", "", "", fmt.Errorf("template: %w", err)
	}
	defer f.Close()
	src, err = f.String(gguf.KeyChatTemplate)
	if err != nil && !errors.Is(err, gguf.ErrNotFound) {
		return "", "", "", fmt.Errorf("template: %w", err)
	}
	tokens, err := f.Strings(gguf.KeyTokens)
	if err != nil {
		return src, "", "", nil // no vocabulary: no default tokens
	}
	token := func(key string) string {
		id, err := f.Uint(key)
		if err != nil || id >= uint64(len(tokens)) {
			return ""
		}
		return tokens[id]
	}
	return src, token(gguf.KeyBOSTokenID), token(gguf.KeyEOSTokenID), nil
}
