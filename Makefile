# Saji's build and test entry points. `make run` opens the app; `make test`
# runs everything CI runs. Both install the Debian packages they need when
# they are missing (as root, or through sudo).

GO        ?= go
BIN       ?= bin/saji
SHOT      ?= bin/smoke-window.png

# Debian packages: cgo + OpenGL/X11 headers for Fyne; Xvfb, X utilities and
# xdotool and ImageMagick for the window smoke test; qemu for the arm64 tests,
# with arm64's dynamic loader for the binaries that use purego (it dlopens
# the GPU drivers, so those binaries are dynamically linked even without cgo);
# clang-14 regenerates the CUDA kernels' PTX (checked against the committed
# one) and g++ builds the CUDA emulator that runs them on the CPU in tests.
DEB_BUILD := gcc pkg-config libgl1-mesa-dev xorg-dev
DEB_TEST  := $(DEB_BUILD) xvfb x11-utils xdotool imagemagick libgl1-mesa-dri qemu-user-static libc6-arm64-cross clang-14 g++
# The installers: mingw-w64 cross-compiles the Windows GUI with cgo (its
# windres compiles the icon, manifest and version resource), nsis makes the
# installer, wine runs the .exe's checks; dpkg-dev (dpkg-shlibdeps),
# appstream and desktop-file-utils make and check the .deb, and debootstrap
# the clean Debian 12 root it is installed into.
# The Wine check also opens the app's window under Xvfb (.ci/xapp.sh).
# Chromium opens `saji loadtest --report`'s page headless (the report step);
# it rides along here because deps-package installs in the background.
DEB_PACKAGE := $(DEB_BUILD) gcc-mingw-w64-x86-64-posix nsis wine wine64 zip unzip xz-utils dpkg-dev appstream desktop-file-utils debootstrap xvfb x11-utils imagemagick libgl1-mesa-dri chromium

# Version stamping: the packages and `saji version` carry the version (git
# describe, .ci/version), the commit and the build date.
VERSION    := $(shell ./.ci/version 2>/dev/null || echo dev)
COMMIT     := $(shell git rev-parse HEAD 2>/dev/null)
BUILD_DATE := $(shell date -u -d "@$${SOURCE_DATE_EPOCH:-$$(date +%s)}" +%Y-%m-%dT%H:%M:%SZ)
export GO_LDFLAGS := -X saji/internal/cli.Version=$(VERSION) -X saji/internal/cli.Commit=$(COMMIT) -X saji/internal/cli.BuildDate=$(BUILD_DATE)

# Packages that do not import Fyne: cross-built for darwin and windows and
# tested on arm64 under qemu. ENGINE_PKGS, but for RACE_SKIP, also run
# under the race detector.
NOGUI_PKGS  = $(shell ./.ci/nogui-packages || echo NOGUI_PACKAGES_FAILED)
ENGINE_PKGS = ./engine/... ./kernels/... ./internal/...
# The race detector leaves out quantization and the Metal backend's
# emulator: single-threaded arithmetic over the CPU backend's thread pool
# (which kernels/cpu runs under the detector) that took 61 and 48 s of the
# step's 503.
RACE_SKIP   = saji/engine/quantize saji/kernels/metal
RACE_PKGS   = $(filter-out $(RACE_SKIP),$(shell $(GO) list $(ENGINE_PKGS)))
# The arm64 tests are the packages whose code or numbers can differ by
# architecture (the CPU kernels, quantization, the models, sampling,
# tokenizers, the scheduler and runner over them): the HTTP dialects, the
# command line, the GPU backends' emulators, the downloads, the library,
# the app's store and the tools are pure Go with nothing arm64-specific,
# tested natively and under the race detector; under emulation the first
# two alone took fifteen minutes of CI.
ARM64_SKIP  = saji/engine/server saji/internal/cli saji/kernels/metal saji/kernels/cuda saji/kernels/cuda/emu \
	saji/internal/loadtest saji/internal/instance saji/internal/autostart saji/engine/download saji/engine/library \
	saji/engine/hub saji/app/store saji/packaging/iconset saji/internal/tools/%
ARM64_PKGS  = $(filter-out $(ARM64_SKIP),$(NOGUI_PKGS))

.PHONY: run build test deps-build deps-test deps-package vet lint unit probe race arm64 cross clients smoke package report fit clean

# MODEL=FILE.gguf opens the app with that model loaded.
run: deps-build
	$(GO) run . $(if $(MODEL),--model "$(MODEL)")

build: deps-build
	@mkdir -p $(dir $(BIN))
	$(GO) build -ldflags "$(GO_LDFLAGS)" -o $(BIN) .

test: deps-test vet lint unit probe race arm64 cross clients smoke package report fit  # .ci/run lists the same steps
	@echo "make test: all checks passed"

deps-build:
	@./.ci/apt-ensure $(DEB_BUILD)
	@./.ci/go-ensure

deps-test:
	@./.ci/apt-ensure $(DEB_TEST)
	@./.ci/go-ensure

# The packaging tools and the clean Debian 12 root for the .deb's check:
# network-bound, so .ci/run starts this in the background after deps-test.
deps-package:
	@./.ci/apt-ensure $(DEB_PACKAGE)
	@./.ci/go-ensure
	@./.ci/debian-root bin/.debian12-root

vet:
	@echo "== gofmt and go vet"
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) vet ./...

lint:
	@echo "== staticcheck"
	$(GO) tool staticcheck ./...

unit:
	@echo "== go test"
	$(GO) test -count=1 ./...

# The probes of issue #23, as an attacker and a careless user would send
# them: nothing a file, a page or a request sends may crash Saji, hang it
# or leak from it (the bounds are listed in ARCHITECTURE.md). A short fuzz
# pass, PROBE_FUZZTIME each, over GGUF headers (gguf FuzzOpen), templates
# through the interpreter (jinja FuzzParseRender) and down a model's path
# with the real limits (chat FuzzTemplate), and mutants of the tiny model
# through load and a short generation (runner FuzzLoadMutant), each seeded
# with the hostile shapes; random mutants of that model, PROBE_MUTANTS of
# them (runner TestLoadMutants: blind where the fuzzer is guided, it found
# a hang the fuzzer had not); the HTTP abuse against the production server,
# each case's status and goroutines and open files back to their baseline
# (server TestAbuse); two `saji pull`s of one file as two processes,
# PROBE_ROUNDS rounds (cli TestPullTwoProcesses). The 60 s soak runs in
# `clients`. A fuzz failure leaves its input under the package's
# testdata/fuzz: commit it with the fix, as the regression test. The long
# runs of the issue's closing note: make probe PROBE_FUZZTIME=10m
# PROBE_MUTANTS=10m PROBE_ROUNDS=20.
PROBE_FUZZTIME ?= 10s
PROBE_MUTANTS  ?= 15s
PROBE_ROUNDS   ?= 3
PROBE_FUZZ      = GO="$(GO)" sh .ci/fuzz $(PROBE_FUZZTIME)

probe:
	@echo "== probes (#23): fuzz GGUF headers, templates and model mutants ($(PROBE_FUZZTIME) each), random model mutants ($(PROBE_MUTANTS)), the HTTP abuse, two pulls as two processes"
	$(PROBE_FUZZ) '^FuzzOpen$$' ./engine/gguf
	$(PROBE_FUZZ) '^FuzzParseRender$$' ./engine/chat/jinja
	$(PROBE_FUZZ) '^FuzzTemplate$$' ./engine/chat
	$(PROBE_FUZZ) '^FuzzLoadMutant$$' ./engine/runner
	SAJI_MUTANTS=$(PROBE_MUTANTS) $(GO) test -count=1 -timeout 30m -run '^TestLoadMutants$$' ./engine/runner
	$(GO) test -count=1 -run '^TestAbuse$$' ./engine/server
	SAJI_PULL_ROUNDS=$(PROBE_ROUNDS) $(GO) test -count=1 -run '^TestPullTwoProcesses$$' ./internal/cli

race:
	@echo "== go test -race -short (engine, kernels): the detector slows the kernels tenfold"
	$(GO) test -count=1 -race -short $(RACE_PKGS)

arm64:
	@echo "== arm64 tests under qemu (-short: emulation is ~10x slower)"
	QEMU_LD_PREFIX=/usr/aarch64-linux-gnu CGO_ENABLED=0 GOARCH=arm64 $(GO) test -count=1 -short -timeout 20m -exec qemu-aarch64-static $(ARM64_PKGS)
	@echo "== arm64 kernels on a CPU without the dot-product extension (Cortex-A53)"
	QEMU_LD_PREFIX=/usr/aarch64-linux-gnu QEMU_CPU=cortex-a53 CGO_ENABLED=0 GOARCH=arm64 $(GO) test -count=1 -short -exec qemu-aarch64-static ./kernels/cpu

# The client scripts run on the Node.js 22 that npm ci installs (the pinned
# node package: openai 7 and ai 7 need Node.js 22, Debian 12 ships 18);
# the system's node and npm only run npm ci. SAJI_CLIENT_CHECKS selects
# checks by name or by the feature they need (@main, @schema, ...),
# SAJI_CLIENT_SKIP leaves some out (engine/server/testdata/clients/checks.mjs).
clients:
	@echo "== the API driven by the official npm clients (openai, ollama, ai, LangChain, Anthropic) against scripted fixture models, and a 60 s soak of 64 clients"
	@./.ci/node-ensure
	cd engine/server/testdata/clients && npm ci --no-audit --no-fund --loglevel=error
	SAJI_CLIENT_TESTS=1 SAJI_SOAK=60s $(GO) test -count=1 -run 'TestRealClients|TestSoak' -v ./engine/server

cross:
	@echo "== cross-build darwin/arm64 and windows/amd64 (packages without Fyne), and the Metal backend for Intel Macs"
	CGO_ENABLED=0 GOOS=darwin GOARCH=arm64 $(GO) build $(NOGUI_PKGS)
	CGO_ENABLED=0 GOOS=darwin GOARCH=amd64 $(GO) vet ./kernels/...
	CGO_ENABLED=0 GOOS=windows GOARCH=amd64 $(GO) build $(NOGUI_PKGS)
	CGO_ENABLED=0 GOOS=darwin GOARCH=arm64 $(GO) vet $(NOGUI_PKGS)
	CGO_ENABLED=0 GOOS=windows GOARCH=amd64 $(GO) vet $(NOGUI_PKGS)

smoke: build
	@echo "== window smoke test under Xvfb: send a message with xdotool, wait for the reply"
	$(GO) run ./internal/tools/tinymodel bin/tiny-chat.gguf
	./.ci/smoke-window $(BIN) bin/tiny-chat.gguf $(SHOT)

# Every installer into bin/, each checked: the Linux tarball (installs in
# ~/.local and uninstalls), the .deb (installed into a clean Debian 12 root,
# where saji runs), and the Windows installer and portable zip (the .exe's
# headless commands, the installer, the uninstaller and the window run
# under Wine).
# WIN_GUI=1 (the default) builds the Windows app itself, the GUI through
# mingw-w64's cgo, and opens its window under Wine. .ci/run sets WIN_GUI=0:
# the cold cgo build of Fyne for Windows (656 CPU seconds measured) would
# take CI past its 30 minutes, so CI packages the headless commands
# (internal/tools/headless, no cgo) through the same resources, zip,
# installer and Wine checks.
WIN_GUI ?= 1
package: build deps-package
	@echo "== packages: Linux tarball and .deb, Windows installer and zip, each installed and run"
	./.ci/package-linux $(BIN) bin/saji-linux-amd64.tar.xz
	$(GO) run ./internal/tools/tinymodel bin/tiny-chat.gguf
	./.ci/check-deb "$$(./.ci/package-deb $(BIN) bin)" bin/tiny-chat.gguf bin/.debian12-root
	$(if $(filter 1,$(WIN_GUI)),,SAJI_WIN_MAIN=./internal/tools/headless CGO_ENABLED=0) ./.ci/package-windows bin
	$(if $(filter 1,$(WIN_GUI)),WINE_WINDOW=1) ./.ci/check-wine bin bin/tiny-chat.gguf

# The unit step skips the browser test under CI=true; here Chromium is
# installed, and SAJI_BROWSER_TEST=1 makes its absence a failure.
report: deps-package
	@echo "== the load-test report opened in headless Chromium: the charts draw"
	SAJI_BROWSER_TEST=1 $(GO) test -count=1 -run '^TestReportInBrowser$$' ./internal/loadtest

fit:
	@echo "== the fit planner against reality: resident memory of the synthetic llama-1b Q4_K_M within 10% of its prediction"
	./.ci/fit-check

clean:
	rm -rf bin
