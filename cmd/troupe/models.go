package main

import (
	"os"

	"github.com/troupe-dev/troupe/flow"
	"github.com/troupe-dev/troupe/llm/providers"
)

// defaultModel is the model agents use when neither the definition nor
// TROUPE_MODEL / MODEL names one, as in CrewAI.
const defaultModel = "gpt-4o-mini"

// modelOptions configures real model providers from the environment (after
// ./.env is loaded): OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENAI_BASE_URL,
// TROUPE_MODEL, ... A missing key surfaces when the first agent runs.
func modelOptions() []flow.Option {
	model := providers.DefaultModel(os.Getenv)
	if model == "" {
		model = defaultModel
	}
	return []flow.Option{flow.WithModels(providers.Default(os.Getenv)), flow.WithDefaultModel(model)}
}
