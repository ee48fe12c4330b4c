package openai

import (
	"encoding/base64"
	"fmt"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/troupe-dev/troupe/llm"
)

// passThrough lists the Extra keys (from the definition or the request)
// sent as they are.
var passThrough = [...]string{
	"frequency_penalty", "presence_penalty", "reasoning_effort", "logit_bias", "logprobs",
	"top_logprobs", "user", "service_tier", "parallel_tool_calls", "store", "metadata",
	"prompt_cache_key", "verbosity", "n",
}

// params translates req (with the configuration's defaults) into the SDK's
// parameters.
func (m *Model) params(req *llm.Request) (sdk.ChatCompletionNewParams, error) {
	var p sdk.ChatCompletionNewParams
	if err := req.Validate(); err != nil {
		return p, err
	}
	p.Model = m.model
	if req.Model != "" {
		p.Model = req.Model
	}
	msgs, err := messages(req.Messages)
	if err != nil {
		return p, err
	}
	p.Messages = msgs
	if len(req.Tools) > 0 {
		p.Tools = make([]sdk.ChatCompletionToolUnionParam, len(req.Tools))
		for i, t := range req.Tools {
			p.Tools[i] = sdk.ChatCompletionFunctionTool(functionDef(t))
		}
	}
	switch req.ToolChoice {
	case "":
	case llm.ToolChoiceAuto, llm.ToolChoiceNone, llm.ToolChoiceRequired:
		p.ToolChoice.OfAuto = sdk.String(req.ToolChoice)
	default:
		p.ToolChoice = sdk.ToolChoiceOptionFunctionToolChoice(sdk.ChatCompletionNamedToolChoiceFunctionParam{Name: req.ToolChoice})
	}
	if rs := req.ResponseSchema; rs != nil {
		name := rs.Name
		if name == "" {
			name = "response"
		}
		js := shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: name, Schema: rs.Schema}
		if rs.Strict {
			js.Strict = sdk.Bool(true)
		}
		p.ResponseFormat.OfJSONSchema = &shared.ResponseFormatJSONSchemaParam{JSONSchema: js}
	}
	if t := pick(req.Temperature, m.cfg.Temperature); t != nil {
		p.Temperature = sdk.Float(*t)
	}
	if t := pick(req.TopP, m.cfg.TopP); t != nil {
		p.TopP = sdk.Float(*t)
	}
	if s := pick(req.Seed, m.cfg.Seed); s != nil {
		p.Seed = sdk.Int(*s)
	}
	maxTokens := req.MaxTokens
	if maxTokens == 0 {
		maxTokens = m.cfg.MaxTokens
	}
	if maxTokens > 0 {
		// OpenAI deprecated max_tokens (o-series models reject it); other
		// servers mostly know only max_tokens.
		if m.call.Provider == llm.ProviderOpenAI {
			p.MaxCompletionTokens = sdk.Int(int64(maxTokens))
		} else {
			p.MaxTokens = sdk.Int(int64(maxTokens))
		}
	}
	if stop := m.stops(req); len(stop) > 0 && supportsStop(string(p.Model)) {
		p.Stop.OfStringArray = stop
	}
	if extra := m.extra(req); extra != nil {
		p.SetExtraFields(extra)
	}
	return p, nil
}

func pick[T any](a, b *T) *T {
	if a != nil {
		return a
	}
	return b
}

// stops merges the request's stop sequences with the configuration's.
func (m *Model) stops(req *llm.Request) []string {
	if len(m.cfg.Stop) == 0 {
		return req.Stop
	}
	if len(req.Stop) == 0 {
		return m.cfg.Stop
	}
	out := append([]string(nil), req.Stop...)
	for _, s := range m.cfg.Stop {
		dup := false
		for _, t := range out {
			dup = dup || s == t
		}
		if !dup {
			out = append(out, s)
		}
	}
	return out
}

// supportsStop reports whether the model accepts the stop parameter; the
// reasoning models (o1, o3, o4, gpt-5) do not, and are cut client-side.
func supportsStop(model string) bool {
	m := strings.ToLower(model)
	for _, p := range [...]string{"o1", "o3", "o4", "gpt-5"} {
		if strings.HasPrefix(m, p) {
			return false
		}
	}
	return true
}

// extra collects the pass-through keys of the configuration and request.
func (m *Model) extra(req *llm.Request) map[string]any {
	var out map[string]any
	for _, src := range [...]map[string]any{m.cfg.Extra, req.Extra} {
		for _, k := range passThrough {
			if v, ok := src[k]; ok && v != nil {
				if out == nil {
					out = make(map[string]any, 4)
				}
				out[k] = v
			}
		}
	}
	return out
}

func functionDef(t llm.ToolSpec) shared.FunctionDefinitionParam {
	params := t.Parameters
	if params == nil {
		params = map[string]any{"type": "object", "properties": map[string]any{}}
	}
	f := shared.FunctionDefinitionParam{Name: t.Name, Parameters: shared.FunctionParameters(params)}
	if t.Description != "" {
		f.Description = sdk.String(t.Description)
	}
	if t.Strict {
		f.Strict = sdk.Bool(true)
	}
	return f
}

// messages translates the conversation.
func messages(in []llm.Message) ([]sdk.ChatCompletionMessageParamUnion, error) {
	out := make([]sdk.ChatCompletionMessageParamUnion, 0, len(in))
	for i := range in {
		msg := &in[i]
		var u sdk.ChatCompletionMessageParamUnion
		switch msg.Role {
		case llm.RoleSystem:
			u.OfSystem = &sdk.ChatCompletionSystemMessageParam{}
			u.OfSystem.Content.OfString = sdk.String(msg.Text())
		case llm.RoleUser:
			u.OfUser = &sdk.ChatCompletionUserMessageParam{}
			if onlyText(msg.Parts) {
				u.OfUser.Content.OfString = sdk.String(msg.Text())
				break
			}
			parts, err := contentParts(msg.Parts)
			if err != nil {
				return nil, fmt.Errorf("openai: messages[%d]: %w", i, err)
			}
			u.OfUser.Content.OfArrayOfContentParts = parts
		case llm.RoleAssistant:
			a := &sdk.ChatCompletionAssistantMessageParam{}
			if text := msg.Text(); text != "" || len(msg.ToolCalls) == 0 {
				a.Content.OfString = sdk.String(text)
			}
			if len(msg.ToolCalls) > 0 {
				a.ToolCalls = make([]sdk.ChatCompletionMessageToolCallUnionParam, len(msg.ToolCalls))
				for j, c := range msg.ToolCalls {
					args := string(c.Arguments)
					if args == "" {
						args = "{}"
					}
					a.ToolCalls[j].OfFunction = &sdk.ChatCompletionMessageFunctionToolCallParam{
						ID:       c.ID,
						Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: args},
					}
				}
			}
			u.OfAssistant = a
		case llm.RoleTool:
			u.OfTool = &sdk.ChatCompletionToolMessageParam{ToolCallID: msg.ToolCallID}
			u.OfTool.Content.OfString = sdk.String(msg.Text())
		}
		out = append(out, u)
	}
	return out, nil
}

func onlyText(parts []llm.Part) bool {
	for _, p := range parts {
		if p.Kind != llm.PartText && p.Kind != "" {
			return false
		}
	}
	return true
}

// contentParts translates a user message with images or files.
func contentParts(parts []llm.Part) ([]sdk.ChatCompletionContentPartUnionParam, error) {
	out := make([]sdk.ChatCompletionContentPartUnionParam, 0, len(parts))
	for j, p := range parts {
		var u sdk.ChatCompletionContentPartUnionParam
		switch p.Kind {
		case llm.PartText, "":
			u.OfText = &sdk.ChatCompletionContentPartTextParam{Text: p.Text}
		case llm.PartImage:
			url := p.URL
			if url == "" {
				url = dataURL(p)
			}
			u.OfImageURL = &sdk.ChatCompletionContentPartImageParam{ImageURL: sdk.ChatCompletionContentPartImageImageURLParam{URL: url}}
		case llm.PartFile:
			if len(p.Data) == 0 {
				return nil, fmt.Errorf("parts[%d]: a file part needs inline data (Chat Completions takes no file URLs)", j)
			}
			u.OfFile = &sdk.ChatCompletionContentPartFileParam{File: sdk.ChatCompletionContentPartFileFileParam{
				FileData: sdk.String(dataURL(p)),
				Filename: sdk.String("document"),
			}}
		default:
			return nil, fmt.Errorf("parts[%d]: unknown part kind %q", j, p.Kind)
		}
		out = append(out, u)
	}
	return out, nil
}

func dataURL(p llm.Part) string {
	mt := p.MIMEType
	if mt == "" {
		mt = "application/octet-stream"
	}
	return "data:" + mt + ";base64," + base64.StdEncoding.EncodeToString(p.Data)
}
