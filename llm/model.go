package llm

import "strings"

// Canonical provider names returned by [ParseModel].
const (
	ProviderOpenAI    = "openai"
	ProviderAnthropic = "anthropic"
	ProviderGemini    = "gemini"
	ProviderAzure     = "azure"
	ProviderBedrock   = "bedrock"
	ProviderOllama    = "ollama"
)

// ParseModel splits a CrewAI model string into provider and model name.
//
// "openai/gpt-4o" gives ("openai", "gpt-4o"); the provider is lower-cased and
// CrewAI's aliases are folded (claude -> anthropic, azure_openai -> azure,
// google -> gemini, aws -> bedrock, ollama_chat -> ollama). Unknown prefixes
// are kept as given ("openrouter/meta-llama/llama-3" gives ("openrouter",
// "meta-llama/llama-3")). A bare name is given the provider its family
// belongs to: claude-* is anthropic, gemini-* is gemini, Bedrock ids such as
// "anthropic.claude-3-haiku-20240307-v1:0" are bedrock, and everything else
// (gpt-*, o1, o3-mini, ...) is openai, as in CrewAI.
func ParseModel(s string) (provider, model string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", ""
	}
	if i := strings.IndexByte(s, '/'); i >= 0 {
		prefix, rest := strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1:])
		if prefix != "" {
			return NormalizeProvider(prefix), rest
		}
		s = rest
	}
	return inferProvider(s), s
}

// NormalizeProvider returns the canonical spelling of a provider name:
// lower-cased, with CrewAI's aliases folded (claude -> anthropic, ...).
func NormalizeProvider(name string) string {
	name = strings.TrimSpace(name)
	if hasUpper(name) {
		name = strings.ToLower(name)
	}
	switch name {
	case "claude":
		return ProviderAnthropic
	case "azure_openai":
		return ProviderAzure
	case "google":
		return ProviderGemini
	case "aws":
		return ProviderBedrock
	case "ollama_chat":
		return ProviderOllama
	}
	return name
}

// inferProvider guesses the provider of a bare model name.
func inferProvider(model string) string {
	m := model
	if hasUpper(m) {
		m = strings.ToLower(m)
	}
	switch {
	case strings.HasPrefix(m, "claude"):
		return ProviderAnthropic
	case strings.HasPrefix(m, "gemini") || strings.HasPrefix(m, "gemma"):
		return ProviderGemini
	case isBedrockID(m):
		return ProviderBedrock
	}
	return ProviderOpenAI
}

// isBedrockID reports whether m looks like a Bedrock model id
// ("vendor.model", optionally with a region prefix such as "us.").
func isBedrockID(m string) bool {
	for _, region := range [...]string{"us.", "eu.", "apac.", "global."} {
		if strings.HasPrefix(m, region) {
			m = m[len(region):]
			break
		}
	}
	for _, vendor := range [...]string{"anthropic.", "amazon.", "meta.", "mistral.", "cohere.", "ai21.", "deepseek.", "qwen.", "writer."} {
		if strings.HasPrefix(m, vendor) {
			return true
		}
	}
	return false
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			return true
		}
	}
	return false
}
