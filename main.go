// Saji is a desktop app for running large language models on your own
// machine. With no arguments it opens the app; with a subcommand it works
// headless (see 'saji --help').
package main

import (
	"context"
	"os"

	"saji/app"
	"saji/internal/cli"
	"saji/internal/instance"
)

func main() {
	open := func(ctx context.Context, models []string, inst *instance.Server) error {
		b := cli.Build()
		return app.Run(ctx, app.Options{Models: models, Instance: inst, Version: b.Version, Commit: b.Commit, BuildDate: b.Date})
	}
	os.Exit(cli.Main(os.Args[1:], cli.Options{OpenApp: open, InstanceDir: instance.Dir()}))
}
