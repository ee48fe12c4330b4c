package anthropic

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/troupe-dev/troupe/llm"
)

// passThrough lists the Extra keys (from the definition or the request)
// sent as they are.
var passThrough = [...]string{"top_k", "metadata", "service_tier", "thinking"}

// params translates req (with the configuration's defaults) into the SDK's
// parameters and any per-call request options.
func (m *Model) params(req *llm.Request) (sdk.MessageNewParams, []option.RequestOption, error) {
	var p sdk.MessageNewParams
	if err := req.Validate(); err != nil {
		return p, nil, err
	}
	p.Model = m.model
	if req.Model != "" {
		p.Model = req.Model
	}
	p.MaxTokens = DefaultMaxTokens
	if req.MaxTokens > 0 {
		p.MaxTokens = int64(req.MaxTokens)
	} else if m.cfg.MaxTokens > 0 {
		p.MaxTokens = int64(m.cfg.MaxTokens)
	}
	system, msgs, err := messages(req.Messages)
	if err != nil {
		return p, nil, err
	}
	p.System, p.Messages = system, msgs
	if len(req.Tools) > 0 {
		p.Tools = make([]sdk.ToolUnionParam, len(req.Tools))
		for i, t := range req.Tools {
			p.Tools[i] = sdk.ToolUnionParam{OfTool: tool(t)}
		}
	}
	switch req.ToolChoice {
	case "":
	case llm.ToolChoiceAuto:
		p.ToolChoice.OfAuto = &sdk.ToolChoiceAutoParam{}
	case llm.ToolChoiceRequired:
		p.ToolChoice.OfAny = &sdk.ToolChoiceAnyParam{}
	case llm.ToolChoiceNone:
		p.ToolChoice.OfNone = &sdk.ToolChoiceNoneParam{}
	default:
		p.ToolChoice.OfTool = &sdk.ToolChoiceToolParam{Name: req.ToolChoice}
	}
	if rs := req.ResponseSchema; rs != nil {
		p.OutputConfig.Format = sdk.JSONOutputFormatParam{Schema: rs.Schema}
	}
	p.StopSequences = stops(req.Stop, m.cfg.Stop)
	extra := map[string]any{}
	if t := pick(req.Temperature, m.cfg.Temperature); t != nil {
		extra["temperature"] = *t
	}
	if t := pick(req.TopP, m.cfg.TopP); t != nil {
		extra["top_p"] = *t
	}
	for _, src := range [...]map[string]any{m.cfg.Extra, req.Extra} {
		for _, k := range passThrough {
			if v, ok := src[k]; ok && v != nil {
				extra[k] = v
			}
		}
	}
	if len(extra) > 0 {
		p.SetExtraFields(extra)
	}
	return p, nil, nil
}

func pick[T any](a, b *T) *T {
	if a != nil {
		return a
	}
	return b
}

// stops merges the request's stop sequences with the configuration's.
func stops(req, cfg []string) []string {
	if len(cfg) == 0 {
		return req
	}
	out := append([]string(nil), req...)
	for _, s := range cfg {
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

func tool(t llm.ToolSpec) *sdk.ToolParam {
	schema := sdk.ToolInputSchemaParam{}
	for k, v := range t.Parameters {
		switch k {
		case "type":
		case "properties":
			schema.Properties = v
		case "required":
			schema.Required = toStrings(v)
		default:
			if schema.ExtraFields == nil {
				schema.ExtraFields = make(map[string]any, 2)
			}
			schema.ExtraFields[k] = v
		}
	}
	if schema.Properties == nil {
		schema.Properties = map[string]any{}
	}
	tp := &sdk.ToolParam{Name: t.Name, InputSchema: schema}
	if t.Description != "" {
		tp.Description = sdk.String(t.Description)
	}
	return tp
}

func toStrings(v any) []string {
	switch v := v.(type) {
	case []string:
		return v
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// messages splits the conversation into the system prompt and the turns,
// merging consecutive turns of the same role (tool results are user turns)
// as the API requires alternation.
func messages(in []llm.Message) ([]sdk.TextBlockParam, []sdk.MessageParam, error) {
	var system []sdk.TextBlockParam
	out := make([]sdk.MessageParam, 0, len(in))
	for i := range in {
		msg := &in[i]
		var blocks []sdk.ContentBlockParamUnion
		user := true
		switch msg.Role {
		case llm.RoleSystem:
			if text := msg.Text(); text != "" {
				system = append(system, sdk.TextBlockParam{Text: text})
			}
			continue
		case llm.RoleUser:
			var err error
			if blocks, err = contentBlocks(msg.Parts); err != nil {
				return nil, nil, fmt.Errorf("anthropic: messages[%d]: %w", i, err)
			}
		case llm.RoleAssistant:
			user = false
			if text := msg.Text(); text != "" {
				blocks = append(blocks, sdk.NewTextBlock(text))
			}
			for _, c := range msg.ToolCalls {
				blocks = append(blocks, sdk.NewToolUseBlock(c.ID, toolInput(c.Arguments), c.Name))
			}
		case llm.RoleTool:
			blocks = append(blocks, sdk.NewToolResultBlock(msg.ToolCallID, msg.Text(), false))
		}
		if len(blocks) == 0 {
			continue
		}
		if n := len(out); n > 0 && (out[n-1].OfUser != nil) == user {
			if user {
				out[n-1].OfUser.Content = append(out[n-1].OfUser.Content, blocks...)
			} else {
				out[n-1].OfAssistant.Content = append(out[n-1].OfAssistant.Content, blocks...)
			}
			continue
		}
		if user {
			out = append(out, sdk.NewUserMessage(blocks...))
		} else {
			out = append(out, sdk.NewAssistantMessage(blocks...))
		}
	}
	return system, out, nil
}

// toolInput returns a call's arguments as the JSON object the API wants;
// arguments that are not a JSON object are sent as {}.
func toolInput(args json.RawMessage) any {
	if len(args) == 0 || args[0] != '{' || !json.Valid(args) {
		return json.RawMessage("{}")
	}
	return args
}

// contentBlocks translates a user message's parts.
func contentBlocks(parts []llm.Part) ([]sdk.ContentBlockParamUnion, error) {
	out := make([]sdk.ContentBlockParamUnion, 0, len(parts))
	for j, p := range parts {
		switch p.Kind {
		case llm.PartText, "":
			if p.Text != "" {
				out = append(out, sdk.NewTextBlock(p.Text))
			}
		case llm.PartImage:
			src := sdk.ImageBlockParamSourceUnion{}
			if p.URL != "" {
				src.OfURL = &sdk.URLImageSourceParam{URL: p.URL}
			} else {
				src.OfBase64 = &sdk.Base64ImageSourceParam{Data: base64.StdEncoding.EncodeToString(p.Data),
					MediaType: sdk.Base64ImageSourceMediaType(p.MIMEType)}
			}
			out = append(out, sdk.ContentBlockParamUnion{OfImage: &sdk.ImageBlockParam{Source: src}})
		case llm.PartFile:
			src := sdk.DocumentBlockParamSourceUnion{}
			if p.URL != "" {
				src.OfURL = &sdk.URLPDFSourceParam{URL: p.URL}
			} else {
				src.OfBase64 = &sdk.Base64PDFSourceParam{Data: base64.StdEncoding.EncodeToString(p.Data)}
			}
			out = append(out, sdk.ContentBlockParamUnion{OfDocument: &sdk.DocumentBlockParam{Source: src}})
		default:
			return nil, fmt.Errorf("parts[%d]: unknown part kind %q", j, p.Kind)
		}
	}
	return out, nil
}
