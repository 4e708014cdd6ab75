// Saji is a desktop app for running large language models on your own
// machine. With no arguments it opens the app; with a subcommand it works
// headless (see 'saji --help').
package main

import (
	"context"
	"os"

	"saji/app"
	"saji/internal/cli"
)

func main() {
	open := func(ctx context.Context, models []string) error {
		return app.Run(ctx, app.Options{Models: models})
	}
	os.Exit(cli.Main(os.Args[1:], cli.Options{OpenApp: open}))
}
