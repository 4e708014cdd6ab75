package cli

import (
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"saji/engine/gguf"
	"saji/engine/synth"
)

// visionFiles writes the tiny Gemma 3 vision model (a vocabulary with its
// markers), its projector as mmproj-*.gguf beside it, and a PNG picture,
// and returns their paths.
func visionFiles(t *testing.T) (model, proj, img string) {
	t.Helper()
	dir := t.TempDir()
	model = filepath.Join(dir, "model.gguf")
	if err := synth.WriteVisionModel(context.Background(), model, "tiny-gemma3-vision", gguf.FileTypeMostlyQ8_0, 1, ""); err != nil {
		t.Fatal(err)
	}
	vs, _ := synth.LookupVisionShape("tiny-gemma3-vision")
	proj = filepath.Join(dir, "mmproj-model.gguf")
	if err := synth.WriteProjector(context.Background(), proj, vs, 1); err != nil {
		t.Fatal(err)
	}
	img = filepath.Join(dir, "picture.png")
	f, err := os.Create(img)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, synth.Picture(40, 30)); err != nil {
		t.Fatal(err)
	}
	return model, proj, img
}

// TestRunImage runs 'saji run' with a picture: with --mmproj, with the
// projector found beside the model, and the refusals of a file that is
// not a picture and of a projector that is not one.
func TestRunImage(t *testing.T) {
	model, proj, img := visionFiles(t)
	for _, tt := range []struct {
		name string
		args []string
		want string // in stderr; "" for success
	}{
		{"--mmproj", []string{"--mmproj", proj, "--image", img}, ""},
		{"beside the model", []string{"--image", img}, ""},
		{"not a picture", []string{"--image", model}, "not a JPEG"},
		{"a missing picture", []string{"--image", img + ".none"}, "no such file"},
		{"not a projector", []string{"--mmproj", model, "--image", img}, "vision projector"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"run", "-m", model, "-n", "3", "--temp", "0"}, tt.args...)
			out, errs, status := run(t, Options{}, append(args, "the <start_of_image> cat")...)
			if tt.want != "" {
				if status == 0 || !strings.Contains(errs, tt.want) {
					t.Errorf("status %d, stderr %q, want an error saying %q", status, errs, tt.want)
				}
				return
			}
			if status != 0 || out == "" {
				t.Errorf("status %d, stdout %q, stderr %q", status, out, errs)
			}
		})
	}
}

// TestRunImageChat chats about a picture with a model whose template (the
// default ChatML) writes nothing for image parts: the picture goes with
// the first message, at its marker's text, and two turns run.
func TestRunImageChat(t *testing.T) {
	model, _, img := visionFiles(t)
	out, errs, err := runCmd(t, "what is this?\nand that?\n", "run", "-m", model, "--image", img, "-n", "2", "--temp", "0")
	if err != nil {
		t.Fatalf("%v; stderr %q", err, errs)
	}
	if out == "" {
		t.Errorf("no reply; stderr %q", errs)
	}
}
