package agent

import "encoding/json"

// JSONSchema returns a JSON Schema (draft 2020-12) of agent files, for
// editors. It checks a file's shape; Check checks everything.
func JSONSchema() ([]byte, error) {
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	duration := map[string]any{"type": "string", "pattern": `^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`, "description": "a duration such as 10s, 2m or 1m30s"}
	names := map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
	tool := map[string]any{
		"oneOf": []any{
			map[string]any{"type": "string"},
			map[string]any{
				"type": "object", "additionalProperties": false, "required": []any{"name"},
				"properties": map[string]any{
					"name":       str("the tool's name in the registry"),
					"approval":   map[string]any{"enum": []any{ApprovalRequired, ApprovalNone}},
					"timeout":    duration,
					"max_calls":  map[string]any{"type": "integer", "minimum": 1},
					"parameters": map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "the argument names the tool takes, checked against the registered tool"},
				},
			},
		},
	}
	state := map[string]any{
		"type": []any{"object", "null"}, "additionalProperties": false,
		"properties": map[string]any{
			"tools": names,
			"on":    map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
			"final": map[string]any{"type": "boolean"},
		},
	}
	fields := map[string]any{
		"name":          map[string]any{"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
		"description":   str("what the agent is for"),
		"system_prompt": str("the system message; ${...} CEL templates read inputs"),
		"model": map[string]any{
			"type": "object", "additionalProperties": false, "required": []any{"model_name"},
			"properties": map[string]any{
				"model_name":  str("a model string such as openai/gpt-4o-mini"),
				"api_type":    map[string]any{"enum": []any{"chat_completions", "responses", "messages"}},
				"temperature": map[string]any{"type": "number", "minimum": 0, "maximum": 2},
				"max_tokens":  map[string]any{"type": "integer", "minimum": 1},
			},
		},
		"tools":            map[string]any{"type": "array", "items": tool},
		"max_steps":        map[string]any{"type": "integer", "minimum": 1},
		"timeout":          duration,
		"tool_timeout":     duration,
		"repeat_detection": map[string]any{"type": "boolean"},
		"max_result_chars": map[string]any{"type": "integer", "minimum": 100},
		"error_policy": map[string]any{
			"type": "object", "additionalProperties": false,
			"properties": map[string]any{
				"max_retries":      map[string]any{"type": "integer", "minimum": 0},
				"on_error":         map[string]any{"enum": []any{string(OnErrorFail), string(OnErrorFallback), string(OnErrorNotifyHuman)}},
				"fallback_message": map[string]any{"type": "string"},
			},
		},
		"state_machine": map[string]any{
			"type": "object", "additionalProperties": false, "required": []any{"initial", "states"},
			"properties": map[string]any{
				"initial": map[string]any{"type": "string"},
				"states":  map[string]any{"type": "object", "additionalProperties": state},
				"events":  map[string]any{"type": "object", "additionalProperties": map[string]any{"type": []any{"string", "null"}}},
			},
		},
		"handoffs": names,
	}
	// agentFields is the agent mapping: complete under agent:, partial
	// under overrides: (where nothing is required).
	agentFields := func(required ...any) map[string]any {
		props := make(map[string]any, len(fields))
		for k, v := range fields {
			props[k] = v
		}
		m := map[string]any{"type": "object", "additionalProperties": false, "properties": props}
		if len(required) == 0 {
			model := make(map[string]any)
			for k, v := range fields["model"].(map[string]any) {
				if k != "required" {
					model[k] = v
				}
			}
			props["model"] = model
		} else {
			m["required"] = required
		}
		return m
	}
	doc := map[string]any{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"$id":     "https://troupe.dev/schema/troupe.agent.v1.json",
		"title":   "Troupe agent file (" + SchemaID + ")",
		"type":    "object", "additionalProperties": false,
		"properties": map[string]any{
			"schema":    map[string]any{"const": SchemaID},
			"agent":     agentFields("name", "system_prompt", "model", "max_steps"),
			"extends":   str("the path (relative to this file) or registered name of a base agent"),
			"overrides": agentFields(),
		},
		"oneOf": []any{
			map[string]any{"required": []any{"agent"}, "not": map[string]any{"required": []any{"extends"}}},
			map[string]any{"required": []any{"extends"}},
		},
	}
	return json.MarshalIndent(doc, "", "  ")
}
