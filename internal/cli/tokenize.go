package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"saji/engine/tokenizer"
)

// newTokenizeCmd is 'saji tokenize': text on standard input to token ids.
func newTokenizeCmd() *cobra.Command {
	var model string
	var special, parseSpecial, pieces bool
	cmd := &cobra.Command{
		Use:   "tokenize -m FILE",
		Short: "Tokenize standard input with a model's vocabulary",
		Long: "Tokenize the UTF-8 text on standard input with the vocabulary of a GGUF model\n" +
			"(the whole input, trailing newline included) and print the token ids on one\n" +
			"line, separated by spaces. The ids are those llama.cpp's llama_tokenize gives.\n\n" +
			"--special adds the tokens the vocabulary asks for (such as BOS); --parse-special\n" +
			"turns the text of control tokens (such as <|eot_id|>) into those tokens.\n" +
			"--pieces prints one token per line instead: the id, a tab and the token's text\n" +
			"as a quoted Go string, so that spaces and partial characters are visible.",
		Example: "  echo -n 'Hello world' | saji tokenize -m model.gguf\n" +
			"  saji tokenize -m model.gguf --special --parse-special --pieces < prompt.txt",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if model == "" {
				return errors.New("tokenize: a model is required (-m FILE)")
			}
			tk, err := tokenizer.Open(model)
			if err != nil {
				return err
			}
			text, err := io.ReadAll(cmd.InOrStdin())
			if err != nil {
				return fmt.Errorf("tokenize: reading standard input: %w", err)
			}
			if !utf8.Valid(text) {
				return fmt.Errorf("tokenize: the input is not valid UTF-8 (first bad byte at offset %d)", firstInvalidUTF8(text))
			}
			ids := tk.Encode(string(text), special, parseSpecial)
			w := bufio.NewWriter(cmd.OutOrStdout())
			if pieces {
				for _, id := range ids {
					fmt.Fprintf(w, "%d\t%q\n", id, tk.TokenToPiece(id, true))
				}
			} else {
				var line []byte
				for i, id := range ids {
					if i > 0 {
						line = append(line, ' ')
					}
					line = strconv.AppendInt(line, int64(id), 10)
				}
				line = append(line, '\n')
				w.Write(line)
			}
			return w.Flush()
		},
	}
	f := cmd.Flags()
	f.StringVarP(&model, "model", "m", "", "GGUF model (or vocabulary) `FILE`")
	f.BoolVar(&special, "special", false, "add the special tokens the vocabulary asks for (BOS, EOS, ...)")
	f.BoolVar(&parseSpecial, "parse-special", false, "parse the text of control tokens as those tokens")
	f.BoolVar(&pieces, "pieces", false, "print each token as id<TAB>quoted piece, one per line")
	return cmd
}

// firstInvalidUTF8 returns the offset of the first byte that does not start
// a valid UTF-8 sequence.
func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}
