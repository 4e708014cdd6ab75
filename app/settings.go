package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"saji/engine/hardware"
	"saji/engine/library"
	"saji/engine/offload"
	"saji/engine/scheduler"
)

// contextChoices are the context lengths the settings offer.
var contextChoices = []int{2048, 4096, 8192, 16384, 32768}

// themeChoices are the theme select's options and their Settings.Theme
// names.
var themeChoices = []struct{ Option, Name string }{
	{"System", themeSystem},
	{"Light", themeLight},
	{"Dark", themeDark},
}

// maxThreads bounds the threads setting.
const maxThreads = 1024

// maxPromptCacheGiB bounds the prompt cache's size setting.
const maxPromptCacheGiB = 1 << 14

// The GPU layers setting's words for offload.Auto and 0, and its bound
// (more layers than any model has).
const (
	gpuAuto      = "Auto"
	gpuOff       = "Off"
	maxGPULayers = 1 << 16
)

// settingsView edits Settings: the models folder, the threads, GPU layers
// and context models load with, the theme, and whether the server starts
// at launch.
// Save stores them off the UI goroutine, since a change may unload the
// models.
type settingsView struct {
	u       *ui
	content fyne.CanvasObject

	folder      *widget.Entry
	browse      *widget.Button
	threads     *widget.Entry
	gpuLayers   *widget.SelectEntry
	context     *widget.Select
	theme       *widget.Select
	startServer *widget.Check
	keepInTray  *widget.Check // tray.go
	atLogin     *widget.Check // autostart.go
	updateFeed  *widget.Entry // update.go
	promptCache *widget.Check
	promptSize  *widget.Entry // GiB
	draft       *widget.Check
	saveButton  *widget.Button
	status      *widget.Label

	saving worker // a save in progress, until it is shown (saving.wait)
}

// settingsForm holds the form's values as the person entered them.
type settingsForm struct {
	Folder, Threads, GPULayers, Context, Theme string
	StartServer                                bool
	KeepInTray, AtLogin                        bool
	UpdateFeed                                 string
	PromptCache                                bool
	PromptCacheGiB                             string
	SpeculativeDraft                           bool
}

// newSettingsView lays out the settings form with the current settings.
func newSettingsView(u *ui) *settingsView {
	v := &settingsView{u: u}
	v.folder = widget.NewEntry()
	v.browse = widget.NewButtonWithIcon("Choose...", theme.FolderOpenIcon(), v.chooseFolder)
	v.threads = widget.NewEntry()
	v.threads.Validator = func(s string) error { _, err := parseThreads(s); return err }
	v.gpuLayers = widget.NewSelectEntry([]string{gpuAuto, gpuOff})
	v.gpuLayers.Validator = func(s string) error { _, err := parseGPULayers(s); return err }
	v.context = widget.NewSelect(nil, nil)
	opts := make([]string, 0, len(themeChoices))
	for _, c := range themeChoices {
		opts = append(opts, c.Option)
	}
	v.theme = widget.NewSelect(opts, nil)
	v.startServer = widget.NewCheck("Start the server when Saji opens", nil)
	v.keepInTray = widget.NewCheck("Closing the window while the server runs keeps Saji in the tray", nil)
	v.atLogin = widget.NewCheck("Start Saji when I log in", nil)
	v.updateFeed = newUpdateFeedEntry()
	v.promptCache = widget.NewCheck("Keep conversations' prompt cache on disk", nil)
	v.promptSize = widget.NewEntry()
	v.promptSize.Validator = func(s string) error { _, err := parsePromptCacheGiB(s); return err }
	v.draft = widget.NewCheck("Draft with a smaller model of the same family", nil)
	v.saveButton = widget.NewButtonWithIcon("Save", theme.DocumentSaveIcon(), v.save)
	v.saveButton.Importance = widget.HighImportance
	v.status = widget.NewLabel("")
	v.status.Wrapping = fyne.TextWrapWord

	cores := hardware.PhysicalCores()
	threadsHelp := widget.NewLabel(fmt.Sprintf("0 picks them for you: this computer has %d physical cores.", cores))
	threadsHelp.Wrapping = fyne.TextWrapWord
	contextHelp := widget.NewLabel(fieldContext.Hint)
	contextHelp.Wrapping = fyne.TextWrapWord
	folderHelp := widget.NewLabel("Where the library keeps its models. Changing it unloads the loaded models.")
	folderHelp.Wrapping = fyne.TextWrapWord
	gpuHelp := widget.NewLabel("How many of a model's layers run on the graphics card. Auto puts as many as fit; " +
		"Off keeps models on the CPU; a number puts that many (the last ones). Without a usable GPU, models run on the CPU.")
	gpuHelp.Wrapping = fyne.TextWrapWord
	cacheHelp := widget.NewLabel("Reopening a long conversation continues at once instead of reading it all again. " +
		"The cache holds at most this many GiB; the least recently used conversations go first.")
	cacheHelp.Wrapping = fyne.TextWrapWord
	draftHelp := widget.NewLabel("When the library holds a model of the same vocabulary at most a quarter of the size, " +
		"it proposes the next tokens and the chosen model checks them several at a time: the same replies, sooner, " +
		"for the small model's memory. The reply's line says how many of its tokens were kept.")
	draftHelp.Wrapping = fyne.TextWrapWord

	form := widget.NewForm(
		widget.NewFormItem("Models folder", container.NewBorder(nil, nil, nil, v.browse, v.folder)),
		widget.NewFormItem("", folderHelp),
		widget.NewFormItem("CPU threads", v.threads),
		widget.NewFormItem("", threadsHelp),
		widget.NewFormItem("GPU layers", v.gpuLayers),
		widget.NewFormItem("", gpuHelp),
		widget.NewFormItem(fieldContext.Label, v.context),
		widget.NewFormItem("", contextHelp),
		widget.NewFormItem("Prompt cache", v.promptCache),
		widget.NewFormItem("Cache size (GiB)", v.promptSize),
		widget.NewFormItem("", cacheHelp),
		widget.NewFormItem("Speculative decoding", v.draft),
		widget.NewFormItem("", draftHelp),
		widget.NewFormItem("Theme", v.theme),
		widget.NewFormItem("Server", v.startServer),
		widget.NewFormItem("", v.keepInTray),
		widget.NewFormItem("Login", v.atLogin),
		widget.NewFormItem("Updates", v.updateFeed),
	)
	heading := widget.NewLabelWithStyle("Settings", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	v.content = container.NewVScroll(container.NewPadded(container.NewVBox(
		heading, form, container.NewHBox(v.saveButton), v.status,
	)))
	v.load(u.core.Settings())
	return v
}

// load shows s in the form.
func (v *settingsView) load(s Settings) {
	v.folder.SetText(s.ModelsDir)
	v.threads.SetText(strconv.Itoa(s.Threads))
	v.gpuLayers.SetText(gpuLayersText(s.GPULayers))
	ctx := s.Context
	if ctx <= 0 {
		ctx = scheduler.DefaultContext
	}
	choices := slices.Clone(contextChoices)
	if !slices.Contains(choices, ctx) {
		choices = append(choices, ctx)
		slices.Sort(choices)
	}
	opts := make([]string, len(choices))
	for i, c := range choices {
		opts[i] = strconv.Itoa(c)
	}
	v.context.SetOptions(opts)
	v.context.SetSelected(strconv.Itoa(ctx))
	v.theme.SetSelected(themeOption(s.Theme))
	v.startServer.SetChecked(s.StartServer)
	v.keepInTray.SetChecked(s.KeepInTray)
	v.atLogin.SetChecked(startsAtLogin(v.u.core.log))
	v.updateFeed.SetText(s.UpdateFeed)
	v.promptCache.SetChecked(s.PromptCache)
	v.promptSize.SetText(strconv.Itoa(s.PromptCacheGiB))
	v.draft.SetChecked(s.SpeculativeDraft)
}

// themeOption returns the select option of a theme name.
func themeOption(name string) string {
	for _, c := range themeChoices {
		if c.Name == name {
			return c.Option
		}
	}
	return themeChoices[0].Option
}

// form returns what the form holds.
func (v *settingsView) form() settingsForm {
	return settingsForm{
		Folder:      v.folder.Text,
		Threads:     v.threads.Text,
		GPULayers:   v.gpuLayers.Text,
		Context:     v.context.Selected,
		Theme:       v.theme.Selected,
		StartServer: v.startServer.Checked,
		KeepInTray:  v.keepInTray.Checked,
		AtLogin:     v.atLogin.Checked,
		UpdateFeed:  v.updateFeed.Text,
		PromptCache: v.promptCache.Checked,
		// The size as entered.
		PromptCacheGiB:   v.promptSize.Text,
		SpeculativeDraft: v.draft.Checked,
	}
}

// parseThreads reads the threads setting.
func parseThreads(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 || n > maxThreads {
		return 0, fmt.Errorf("app: the threads must be a whole number from 0 to %d", maxThreads)
	}
	return n, nil
}

// parsePromptCacheGiB reads the prompt cache's size setting, in GiB
// (nothing: the default).
func parsePromptCacheGiB(s string) (int, error) {
	if strings.TrimSpace(s) == "" {
		return defaultPromptCacheGiB, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 || n > maxPromptCacheGiB {
		return 0, fmt.Errorf("app: the prompt cache size must be a whole number of GiB from 1 to %d", maxPromptCacheGiB)
	}
	return n, nil
}

// gpuLayersText is the GPU layers setting as the form shows it.
func gpuLayersText(n int) string {
	switch {
	case n < 0:
		return gpuAuto
	case n == 0:
		return gpuOff
	}
	return strconv.Itoa(n)
}

// parseGPULayers reads the GPU layers setting: Auto (or -1, or nothing),
// Off (or 0), or a number of layers.
func parseGPULayers(s string) (int, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "" || strings.EqualFold(s, gpuAuto) || s == "-1":
		return offload.Auto, nil
	case strings.EqualFold(s, gpuOff):
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > maxGPULayers {
		return 0, fmt.Errorf("app: the GPU layers must be Auto, Off or a whole number of layers, not %q", s)
	}
	return n, nil
}

// apply returns s with the form's values, or a message saying what is
// wrong with them.
func (f settingsForm) apply(s Settings) (Settings, string) {
	dir := strings.TrimSpace(f.Folder)
	switch {
	case dir == "":
		return s, "Choose a folder for the models."
	case !filepath.IsAbs(dir):
		return s, fmt.Sprintf("The models folder must be a full path, such as %s, not %q.", library.ModelsDir(), dir)
	}
	threads, err := parseThreads(f.Threads)
	if err != nil {
		return s, fmt.Sprintf("CPU threads must be a whole number from 0 (automatic) to %d, not %q.", maxThreads, f.Threads)
	}
	gpuLayers, err := parseGPULayers(f.GPULayers)
	if err != nil {
		return s, fmt.Sprintf("GPU layers must be Auto, Off or a number of layers, not %q.", f.GPULayers)
	}
	ctx, err := strconv.Atoi(f.Context)
	if err != nil || ctx <= 0 {
		return s, "Choose a context length."
	}
	cacheGiB, err := parsePromptCacheGiB(f.PromptCacheGiB)
	if err != nil {
		return s, fmt.Sprintf("The prompt cache size must be a whole number of GiB from 1 to %d, not %q.", maxPromptCacheGiB, f.PromptCacheGiB)
	}
	feed, problem := parseFeedURL(f.UpdateFeed)
	if problem != "" {
		return s, problem
	}
	name := themeSystem
	for _, c := range themeChoices {
		if c.Option == f.Theme {
			name = c.Name
		}
	}
	s.ModelsDir = filepath.Clean(dir)
	s.Threads = threads
	s.GPULayers = gpuLayers
	s.Context = ctx
	s.Theme = name
	s.StartServer = f.StartServer
	s.KeepInTray = f.KeepInTray
	s.UpdateFeed = feed
	s.PromptCache = f.PromptCache
	s.PromptCacheGiB = cacheGiB
	s.SpeculativeDraft = f.SpeculativeDraft
	return s, ""
}

// chooseFolder picks the models folder with the folder dialog.
func (v *settingsView) chooseFolder() {
	d := dialog.NewFolderOpen(func(dir fyne.ListableURI, err error) {
		if err != nil || dir == nil {
			return
		}
		v.folder.SetText(dir.Path())
	}, v.u.win)
	if v.u.win.Canvas().Size().Width > 0 {
		d.Resize(v.u.win.Canvas().Size().Subtract(fyne.NewSize(80, 80)))
	}
	d.Show()
}

// save checks the form and stores it off the UI goroutine (a change of
// folder, threads, GPU layers or context unloads the models), then
// confirms it.
func (v *settingsView) save() {
	f := v.form()
	if _, msg := f.apply(Settings{}); msg != "" {
		v.status.Importance = widget.DangerImportance
		v.status.SetText(msg)
		return
	}
	v.saveButton.Disable()
	v.status.Importance = widget.MediumImportance
	v.status.SetText("Saving...")
	v.saving.run(func() func() {
		old := v.u.core.Settings()
		s, _ := f.apply(old)
		problem := ""
		if s.ModelsDir != old.ModelsDir {
			problem = modelsDirProblem(s.ModelsDir)
		}
		if problem == "" {
			if err := v.u.core.SetSettings(s); err != nil {
				problem = "Saji could not save the settings: " + userMessage(err)
			}
		}
		if err := setStartAtLogin(f.AtLogin); problem == "" && err != nil {
			problem = "Saji could not change its start at login: " + userMessage(err)
		}
		return func() {
			v.saveButton.Enable()
			if problem != "" {
				v.status.Importance = widget.DangerImportance
				v.status.SetText(problem)
				return
			}
			applyTheme(v.u.app, s.Theme)
			v.status.Importance = widget.SuccessImportance
			v.status.SetText("Saved.")
			if s.ModelsDir != old.ModelsDir {
				v.u.modelsChanged()
			}
		}
	})
}

// modelsDirProblem makes dir if needed and says, in plain words, why it
// cannot hold the models ("" if it can).
func modelsDirProblem(dir string) string {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return dir + " is a file, not a folder. Choose a folder for the models."
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		if errors.Is(err, os.ErrPermission) {
			return "Saji is not allowed to create or use the folder " + dir + ". Choose another one."
		}
		return "Saji could not create the folder " + dir + ": " + err.Error()
	}
	return ""
}
