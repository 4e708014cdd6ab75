// Package cli is Saji's command line: the root command, which opens the
// desktop app when it is given no arguments, and the headless subcommands
// (gguf, version, and the serving and model commands as they arrive).
//
// The package does not import the GUI toolkit: the caller passes the
// function that opens the app, so every subcommand builds and runs on a
// machine without a display or cgo.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"saji/engine/imagefile"
	"saji/internal/instance"
)

// Version, Commit and BuildDate describe the build. The packaging step
// (make package, .ci/stamp) sets them at link time with
// -ldflags "-X saji/internal/cli.Version=0.1.0 -X saji/internal/cli.Commit=…
// -X saji/internal/cli.BuildDate=2026-12-05T06:00:00Z"; BuildCommit and
// BuildTime fall back to what the go command recorded for other builds.
var (
	// Version is the release, from git describe ("dev" when unstamped).
	Version = "dev"
	// Commit is the full hash of the commit built.
	Commit = ""
	// BuildDate is when the binary was built, in RFC 3339, UTC.
	BuildDate = ""
)

// BuildCommit returns the commit built: Commit, else the revision the go
// command stamped (with "+dirty" for a modified tree), else "unknown".
func BuildCommit() string {
	if Commit != "" {
		return Commit
	}
	if rev := buildSetting("vcs.revision"); rev != "" {
		if buildSetting("vcs.modified") == "true" {
			rev += "+dirty"
		}
		return rev
	}
	return "unknown"
}

// BuildTime returns BuildDate, else the time of the commit the go command
// stamped, else "unknown".
func BuildTime() string {
	if BuildDate != "" {
		return BuildDate
	}
	if t := buildSetting("vcs.time"); t != "" {
		return t
	}
	return "unknown"
}

// buildSetting returns the go command's build setting key, or "".
func buildSetting(key string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == key {
				return s.Value
			}
		}
	}
	return ""
}

// Options configures the command line.
type Options struct {
	// OpenApp opens the desktop app and returns when its window closes. It
	// runs when Saji is started without a subcommand; models are the GGUF
	// files given with --model or as arguments, to open the app with (the
	// first is loaded for the chat). inst is this process's claim on the
	// single instance, whose later launches' files the app opens (nil when
	// InstanceDir is empty); the root command closes it after OpenApp.
	OpenApp func(ctx context.Context, models []string, inst *instance.Server) error
	// InstanceDir makes the app single-instance: a launch that finds an
	// app running in this folder hands it its models and exits (see
	// package instance). Empty: every launch opens an app. The headless
	// commands ignore it.
	InstanceDir string
	// Stdout and Stderr default to the process's streams.
	Stdout, Stderr io.Writer
}

// NewRootCommand builds the root command and its subcommands.
func NewRootCommand(opts Options) *cobra.Command {
	var verbose bool
	var model string
	root := &cobra.Command{
		Use:   "saji",
		Short: "Saji runs large language models on your own machine",
		Long: "Saji runs large language models on your own machine.\n\n" +
			"With no arguments it opens the desktop app; the subcommands work headless.",
		// The arguments may be .gguf files to open, or pictures for the
		// chat's next message (what a file manager's "Open with Saji"
		// passes); anything else is an unknown command.
		Args: func(cmd *cobra.Command, args []string) error {
			for _, a := range args {
				if !strings.EqualFold(filepath.Ext(a), ".gguf") && !imagefile.IsPicturePath(a) {
					return fmt.Errorf("unknown command %q for %q", a, cmd.CommandPath())
				}
			}
			return nil
		},
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       Version,
		PersistentPreRun: func(cmd *cobra.Command, _ []string) {
			level := slog.LevelWarn
			if verbose {
				level = slog.LevelDebug
			}
			slog.SetDefault(slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level})))
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var models []string
			if model != "" {
				models = append(models, model)
			}
			models = append(models, args...)
			if opts.OpenApp == nil {
				return errors.New("this build of saji has no desktop app; see 'saji --help' for the headless commands")
			}
			inst, handed, err := claimInstance(cmd.Context(), opts.InstanceDir, models)
			if err != nil || handed {
				return err
			}
			if inst != nil {
				defer inst.Close()
			}
			return opts.OpenApp(cmd.Context(), models, inst)
		},
	}
	root.Flags().StringVarP(&model, "model", "m", "", "open the app with this GGUF model file loaded")
	root.PersistentFlags().BoolVarP(&verbose, "verbose", "v", false, "log debug detail to standard error")
	if opts.Stdout != nil {
		root.SetOut(opts.Stdout)
	}
	if opts.Stderr != nil {
		root.SetErr(opts.Stderr)
	}
	root.AddCommand(newVersionCmd(), newGGUFCmd(), newTokenizeCmd(), newTemplateCmd(), newEvalCmd(), newPerplexityCmd(), newRunCmd(), newBenchCmd(), newLoadtestCmd(), newServeCmd(), newQuantizeCmd(), newPullCmd())
	root.AddCommand(newFitCmd())
	root.AddCommand(newHWProbeCmd())
	return root
}

// Main runs the command line with args (without the program name) and
// returns the process exit status. Interrupts cancel the command's context.
func Main(args []string, opts Options) int {
	if os.Getenv("GOGC") == "" {
		// A model's weights live outside the Go heap and its activations
		// are recycled layer to layer, so the heap holds little garbage;
		// the default pacing (a heap goal of twice the live heap) would
		// still add tens of megabytes to the resident memory for nothing.
		debug.SetGCPercent(gcPercent)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	// The commands run on a goroutine of their own and only the app runs on
	// the caller's. The GUI toolkit locks the main goroutine to the main OS
	// thread (its event loop must own it), and an engine whose thread pool
	// is driven from a locked goroutine pays an OS thread switch each time
	// that goroutine yields: a two-thread decode ran a third slower there.
	type appCall struct {
		ctx    context.Context
		models []string
		inst   *instance.Server
		done   chan error
	}
	calls := make(chan appCall)
	openApp := opts.OpenApp
	if openApp != nil {
		opts.OpenApp = func(ctx context.Context, models []string, inst *instance.Server) error {
			c := appCall{ctx: ctx, models: models, inst: inst, done: make(chan error, 1)}
			calls <- c
			return <-c.done
		}
	}
	root := NewRootCommand(opts)
	root.SetArgs(llamaArgs(args))
	status := make(chan int, 1)
	go func() {
		if err := root.ExecuteContext(ctx); err != nil {
			fmt.Fprintln(root.ErrOrStderr(), "saji:", err)
			status <- 1
			return
		}
		status <- 0
	}()
	for {
		select {
		case c := <-calls:
			c.done <- openApp(c.ctx, c.models, c.inst)
		case s := <-status:
			return s
		}
	}
}

// claimInstance claims the single instance in dir for the app about to
// open, or hands models to the app running there (handed). No claim is
// made for an empty dir, and a folder that cannot hold one is logged: the
// app opens without it. An app that holds the claim but does not answer is
// an error, since a second app would fight it over the port and the
// database.
func claimInstance(ctx context.Context, dir string, models []string) (inst *instance.Server, handed bool, err error) {
	if dir == "" {
		return nil, false, nil
	}
	inst, err = instance.Claim(ctx, dir, models)
	switch {
	case errors.Is(err, instance.ErrNotAnswering):
		return nil, false, fmt.Errorf("%w; close it, or wait for it to finish starting", err)
	case err != nil:
		slog.Warn("cli: the app opens without the single-instance check", "err", err)
		return nil, false, nil
	case inst == nil:
		slog.Info("cli: handed the models to the running app", "models", models)
		return nil, true, nil
	}
	return inst, false, nil
}

// gcPercent is the garbage collector's target (GOGC) unless the
// environment sets one.
const gcPercent = 25

// BuildInfo says which Saji this is.
type BuildInfo struct {
	// Version is Version; Commit and Date the commit it was built from
	// and when, "" when unknown.
	Version, Commit, Date string
}

// Build returns this binary's version, commit and build date (BuildCommit,
// BuildTime), "" where unknown.
func Build() BuildInfo {
	known := func(s string) string {
		if s == "unknown" {
			return ""
		}
		return s
	}
	return BuildInfo{Version: Version, Commit: known(BuildCommit()), Date: known(BuildTime())}
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print Saji's version and build details",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "saji   %s\n", Version)
			fmt.Fprintf(w, "commit %s\n", BuildCommit())
			fmt.Fprintf(w, "built  %s\n", BuildTime())
			fmt.Fprintf(w, "go     %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}
