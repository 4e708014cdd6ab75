package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"saji/engine/synth"
)

// TestRunChatThinks checks that saji run prints a thinking model's
// reasoning as it comes: a model whose template opens a <think> block
// (and that never closes it) still shows what it writes.
func TestRunChatThinks(t *testing.T) {
	p := filepath.Join(t.TempDir(), "thinker.gguf")
	if err := synth.WriteChat(context.Background(), p, "q8_0", synth.ThinkingTemplate,
		[]string{"<|im_start|>", "<|im_end|>", "<think>", "</think>"}, 5); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := runCmd(t, "the cat\n", "run", "-m", p, "-n", "6", "--temp", "0")
	if err != nil {
		t.Fatal(err)
	}
	if len(replyStats.FindAllString(errOut, -1)) != 1 || strings.TrimSpace(out) == "" {
		t.Errorf("the reasoning is not shown: stdout %q, stderr:\n%s", out, errOut)
	}
}
