package flow

import (
	"fmt"
	"slices"
	"strings"
)

// Agent, crew, task and LLM blocks take any key, as in CrewAI, whose
// definitions allow extra keys and hand them to crewai.Agent, Task, Crew
// or LLM. Troupe warns about a key that is none of those models' fields
// and no Troupe extension: it is usually a typo (respone_schema), and it
// would be ignored. The field lists are CrewAI's pydantic model fields
// (crewai 1.15.17); runtime-only fields are listed apart because CrewAI
// rejects them in a definition.

// blockKeys are the keys one kind of block accepts.
type blockKeys struct {
	// what names the block in messages ("agent", "task", ...); crewai
	// says what CrewAI does with a key it does not know.
	what, crewai string
	// known are the accepted keys, sorted; runtime are CrewAI fields that
	// only CrewAI itself sets, which a definition may not.
	known, runtime []string
}

func newBlockKeys(what, crewai string, known, runtime []string) *blockKeys {
	b := &blockKeys{what: what, crewai: crewai, known: slices.Clone(known), runtime: slices.Clone(runtime)}
	slices.Sort(b.known)
	b.known = slices.Compact(b.known)
	slices.Sort(b.runtime)
	return b
}

func (b *blockKeys) isKnown(k string) bool {
	_, ok := slices.BinarySearch(b.known, k)
	return ok
}

var (
	agentBlock = newBlockKeys("agent", "CrewAI rejects it as an unsupported field", []string{
		// crewai BaseAgent
		"entity_type", "role", "goal", "backstory", "config", "cache", "verbose", "max_rpm",
		"allow_delegation", "tools", "max_iter", "tool_failure_policy", "agent_executor", "i18n",
		"llm", "max_tokens", "knowledge_sources", "security_config", "checkpoint", "callbacks",
		"knowledge_config", "apps", "mcps", "memory", "skills",
		// crewai Agent
		"max_execution_time", "step_callback", "use_system_prompt", "function_calling_llm",
		"system_template", "prompt_template", "response_template", "allow_code_execution",
		"respect_context_window", "max_retry_limit", "multimodal", "inject_date", "date_format",
		"code_execution_mode", "planning_config", "planning", "reasoning", "max_reasoning_attempts",
		"embedder", "from_repository", "guardrail", "guardrail_max_retries", "a2a", "executor_class",
		// the flow definition's agent blocks
		"settings", "type", "name", "input", "response_format",
		// Troupe
		"response_schema",
	}, []string{
		"id", "crew", "cache_handler", "tools_handler", "tools_results", "knowledge",
		"knowledge_storage", "adapted_agent", "agent_knowledge_context", "crew_knowledge_context",
		"knowledge_search_query", "execution_context", "checkpoint_kickoff_event_id",
	})

	taskBlock = newBlockKeys("task", "CrewAI rejects it as an unsupported field", []string{
		// crewai Task (and ConditionalTask's condition)
		"name", "prompt_context", "description", "expected_output", "config", "callback", "agent",
		"context", "async_execution", "output_json", "output_pydantic", "response_model",
		"output_file", "create_directory", "tools", "input_files", "security_config",
		"human_input", "markdown", "converter_cls", "guardrail", "guardrails", "max_retries",
		"guardrail_max_retries", "tool_failure_policy", "allow_crewai_trigger_context", "condition",
		// the flow definition's task blocks
		"type",
		// Troupe
		"response_schema",
	}, []string{
		"id", "used_tools", "tools_errors", "delegations", "output", "processed_by_agents",
		"retry_count", "start_time", "end_time", "checkpoint_original_description",
		"checkpoint_original_expected_output",
	})

	crewBlock = newBlockKeys("crew", "CrewAI rejects it as an unsupported field", []string{
		// crewai Crew
		"entity_type", "name", "cache", "tool_failure_policy", "tasks", "agents", "process",
		"verbose", "memory", "embedder", "manager_llm", "manager_agent", "function_calling_llm",
		"config", "share_crew", "step_callback", "task_callback", "before_kickoff_callbacks",
		"after_kickoff_callbacks", "stream", "max_rpm", "prompt_file", "trained_agents_file",
		"output_log_file", "planning", "planning_llm", "knowledge_sources", "chat_llm",
		"knowledge", "skills", "security_config", "checkpoint", "tracing",
		// the flow definition's crew blocks; mcps as on agents
		"inputs", "mcps",
	}, []string{
		"id", "usage_metrics", "task_execution_output_json_files", "execution_logs",
		"token_usage", "execution_context", "checkpoint_inputs", "checkpoint_train",
		"checkpoint_kickoff_event_id",
	})

	llmBlock = newBlockKeys("LLM", "CrewAI passes it on to the model library", []string{
		// crewai BaseLLM and LLM
		"model", "temperature", "top_p", "max_tokens", "stream", "seed", "frequency_penalty",
		"presence_penalty", "n", "api_key", "base_url", "provider", "prefer_upload", "stop",
		"stop_sequences", "additional_params", "timeout", "max_completion_tokens", "logit_bias",
		"response_format", "logprobs", "top_logprobs", "api_base", "api_version", "callbacks",
		"reasoning_effort", "interceptor", "thinking", "context_window_size", "custom_openai",
		"is_litellm",
		// crewai's native provider classes
		"organization", "project", "max_retries", "default_headers", "default_query",
		"client_params", "api", "instructions", "store", "previous_response_id", "include",
		"builtin_tools", "parse_tool_outputs", "auto_chain", "auto_chain_reasoning", "tool_search",
		"endpoint", "credential_scopes", "aws_access_key_id", "aws_secret_access_key",
		"aws_session_token", "region_name", "top_k", "guardrail_config",
		"additional_model_request_fields", "additional_model_response_field_paths", "location",
		"max_output_tokens", "safety_settings", "use_vertexai", "thinking_config", "account_url",
		"account_identifier", "database", "schema_name", "warehouse", "role",
		// request parameters Troupe passes to the providers
		"user", "service_tier", "parallel_tool_calls", "metadata", "prompt_cache_key", "verbosity",
	}, nil)
)

// warnUnknownKeys warns about every key of the mapping n at path that the
// block does not accept, with the closest accepted key as a hint.
func (d *decoder) warnUnknownKeys(path string, n *node, b *blockKeys) {
	for i, k := range n.keys {
		if b.isKnown(k) {
			continue
		}
		kp := join(path, k)
		d.pos[kp] = n.keyPos[i]
		if _, runtime := slices.BinarySearch(b.runtime, k); runtime {
			d.warnf(kp, "unknown_key", "%q is a field CrewAI sets itself while it runs; a definition cannot set it (CrewAI rejects it as a runtime-only field) and Troupe ignores it", k)
			continue
		}
		hint := ""
		if c := closest(k, b.known); c != "" {
			hint = fmt.Sprintf(" Did you mean %q?", c)
		}
		d.warnf(kp, "unknown_key", "unknown key %q is ignored: it is not %s field of CrewAI or Troupe (%s).%s", k, article(b.what), b.crewai, hint)
	}
}

// warnUnknownLLMKeys checks the keys of an LLM given as a mapping.
func (d *decoder) warnUnknownLLMKeys(path string, n *node) {
	if n != nil && n.kind == mapNode {
		d.warnUnknownKeys(path, n, llmBlock)
	}
}

// article puts "a" or "an" before a block name.
func article(what string) string {
	if strings.ContainsRune("aeiouAEIOU", rune(what[0])) || what == "LLM" {
		return "an " + what
	}
	return "a " + what
}
