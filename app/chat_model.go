package app

// The chat's model picker: the models of the library, the one a
// conversation uses, and loading it before the first message.

import (
	"errors"
	"slices"

	"saji/app/store"
	"saji/engine/library"
	"saji/engine/runner"
)

// refreshModels reloads the model picker's options from the library:
// the models that can be used, the default one first chosen for a new
// chat.
func (v *chatView) refreshModels() {
	entries, err := v.u.core.Library().List()
	if err != nil {
		v.u.core.log.Warn("app: listing models", "err", err)
	}
	var names []string
	def := ""
	for _, e := range entries {
		if e.Err != nil {
			continue
		}
		names = append(names, e.Name)
		if e.Default {
			def = e.Name
		}
	}
	v.models.Options = names
	if def == "" && len(names) > 0 {
		def = names[0]
	}
	if v.conv == nil && (v.draft.Model == "" || !slices.Contains(names, v.draft.Model)) {
		v.setDraftModel(def)
	}
	v.showModel()
	v.models.Refresh()
	if len(names) > 0 && v.u.win.Canvas().Focused() == nil {
		v.u.win.Canvas().Focus(v.entry)
	}
}

// showModel shows the open conversation's model in the picker.
func (v *chatView) showModel() {
	model := v.draft.Model
	if v.conv != nil {
		model = v.conv.Model
	}
	v.selecting = true
	defer func() { v.selecting = false }()
	if model == "" || !slices.Contains(v.models.Options, model) {
		// A model gone from the library stays named, so the person sees
		// what the conversation used.
		v.models.Selected = model
		v.models.Refresh()
		return
	}
	v.models.SetSelected(model)
}

// modelChosen saves the picker's choice on the conversation.
func (v *chatView) modelChosen(name string) {
	if v.selecting {
		return
	}
	if v.conv == nil {
		v.setDraftModel(name)
		return
	}
	if err := v.u.core.Store().SetModel(v.conv.ID, name); err != nil {
		v.u.showError("Could not change the model", err)
		return
	}
	v.conv.Model = name
	v.preload(name)
}

// setDraftModel makes name the new chat's model and, unless the person
// changed them, its settings the model's preset.
func (v *chatView) setDraftModel(name string) {
	v.draft.Model = name
	if v.draftEdited || name == "" {
		return
	}
	e, err := v.u.core.Library().Get(name)
	if err != nil {
		return
	}
	v.draft.System, v.draft.Settings = presetSettings(e.Preset)
}

// presetSettings turns a library preset into a conversation's settings.
func presetSettings(p library.Preset) (string, store.Settings) {
	st := store.Settings{MaxTokens: p.MaxTokens, Context: p.Context}
	if p.Temperature != nil {
		st.Temperature = *p.Temperature
	}
	if p.TopP != nil {
		st.TopP = *p.TopP
	}
	return p.System, st
}

// openModel chats with the library model name: it is chosen in the
// picker (in a new chat unless the open one is empty), the entry takes
// the focus, and the model loads in the background.
func (v *chatView) openModel(name string) {
	if v.conv != nil && len(v.msgs) > 0 {
		v.newChat()
	}
	if v.conv == nil {
		v.draftEdited = false
		v.setDraftModel(name)
	} else {
		v.selecting = true
		v.modelChosenStored(name)
		v.selecting = false
	}
	v.showModel()
	v.u.win.Canvas().Focus(v.entry)
	v.preload(name)
}

// modelChosenStored saves name as the open conversation's model.
func (v *chatView) modelChosenStored(name string) {
	if err := v.u.core.Store().SetModel(v.conv.ID, name); err != nil {
		v.u.core.log.Warn("app: saving the conversation's model", "err", err)
		return
	}
	v.conv.Model = name
}

// preload loads model name in the background, saying so under the
// messages, so the first reply starts sooner.
func (v *chatView) preload(name string) {
	if name == "" || v.loading[name] {
		return
	}
	if v.u.core.Loaded(name) {
		return
	}
	v.loading[name] = true
	v.setStatus("Loading "+name+"...", true)
	v.bg.run(func() func() {
		_, err := v.u.core.LoadModel(name)
		return func() {
			delete(v.loading, name)
			if errors.Is(err, runner.ErrClosed) {
				// The settings reopened the engine meanwhile: the
				// first reply loads the model in the new one.
				v.setStatus("", false)
				return
			}
			if err != nil {
				v.u.core.log.Warn("app: loading a model", "model", name, "err", err)
				v.setStatus(replyError(name, err), false)
				return
			}
			v.setStatus("", false)
		}
	})
}
