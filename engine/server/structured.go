package server

import (
	"bytes"
	"encoding/json"
	"fmt"

	"saji/engine/runner"
)

// grammarFields reads llama-server's grammar (GBNF text) and json_schema
// (a JSON Schema object) into g; the runner's Start checks them.
func grammarFields(grammar string, schema json.RawMessage, g *runner.Request) error {
	b := bytes.TrimSpace(schema)
	hasSchema := len(b) > 0 && string(b) != "null" // {} is a schema: any value
	switch {
	case grammar != "" && hasSchema:
		return &apiError{status: 400, typ: "invalid_request_error", param: "grammar", msg: "grammar and json_schema together: give one"}
	case grammar != "":
		g.Grammar = grammar
	case hasSchema:
		if b[0] != '{' {
			return &apiError{status: 400, typ: "invalid_request_error", param: "json_schema", msg: "json_schema must be a JSON Schema object"}
		}
		g.JSON, g.JSONSchema = true, schema
	}
	return nil
}

// responseFormat reads OpenAI's response_format into g; the runner's Start
// checks the schema.
func responseFormat(raw json.RawMessage, g *runner.Request) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if g.Grammar != "" || g.JSON {
		var rf struct{ Type string }
		if json.Unmarshal(raw, &rf) == nil && (rf.Type == "json_object" || rf.Type == "json_schema") {
			return &apiError{status: 400, typ: "invalid_request_error", param: "response_format", msg: "response_format and grammar or json_schema together: give one"}
		}
	}
	var rf struct {
		Type       string          `json:"type"`
		Schema     json.RawMessage `json:"schema"` // llama-server: json_object with a schema
		JSONSchema *struct {
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
		} `json:"json_schema"`
	}
	if err := json.Unmarshal(raw, &rf); err != nil {
		return &apiError{status: 400, typ: "invalid_request_error", param: "response_format", msg: "response_format must be an object with a type"}
	}
	switch rf.Type {
	case "", "text":
	case "json_object":
		g.JSON = true
		if present(rf.Schema) {
			g.JSONSchema = rf.Schema
		}
	case "json_schema":
		if rf.JSONSchema == nil || len(rf.JSONSchema.Schema) == 0 {
			return &apiError{status: 400, typ: "invalid_request_error", param: "response_format", msg: "json_schema needs a schema"}
		}
		g.JSON, g.JSONSchema = true, rf.JSONSchema.Schema
	default:
		return &apiError{status: 400, typ: "invalid_request_error", param: "response_format",
			msg: fmt.Sprintf("response_format type %q: text, json_object or json_schema", rf.Type)}
	}
	return nil
}

// ollamaFormat reads Ollama's format ("json" or a JSON schema) into g; the
// runner's Start checks the schema.
func ollamaFormat(raw json.RawMessage, g *runner.Request) error {
	if !present(raw) {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "" {
			return nil
		}
		if s != "json" {
			return badRequest("format %q: \"json\" or a JSON schema", s)
		}
		g.JSON = true
		return nil
	}
	g.JSON, g.JSONSchema = true, raw
	return nil
}
