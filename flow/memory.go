package flow

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/troupe-dev/troupe/action"
	"github.com/troupe-dev/troupe/memory"
	"github.com/troupe-dev/troupe/memory/knowledge"
)

// WithMemory gives runs a memory. Each flow sees the part under
// /flow/<name>; agents and crews with memory: true recall from it before a
// task and remember its result, and code handlers reach it as
// Input.Memory. Without it, a definition with config.memory or
// memory: true gets a memory kept in this engine's process.
func WithMemory(m *memory.Memory) Option { return func(e *Engine) { e.memory = m } }

// flowMemory returns the memory of def, or nil when memory is off for it.
func (e *Engine) flowMemory(def *Definition) (*memory.Memory, error) {
	if e.memory == nil && !def.UsesMemory() {
		return nil, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.memory == nil {
		m, err := memory.New(memory.NewInMemoryStore())
		if err != nil {
			return nil, err
		}
		e.memory = m
	}
	return e.memory.Sub(memoryRoot(def)), nil
}

// memoryRoot is the scope a flow's memory is rooted at: config.memory's
// root_scope (CrewAI's Memory) or root_path (its MemoryScope) when given,
// else /flow/<name>.
func memoryRoot(def *Definition) string {
	for _, k := range []string{"root_scope", "root_path"} {
		if s, ok := def.Config.Memory[k].(string); ok && s != "" {
			return s
		}
	}
	return memory.FlowScope(def.Name)
}

// UsesMemory reports whether the definition asks for memory: config.memory,
// or an agent or crew with memory: true.
func (def *Definition) UsesMemory() bool {
	if def.Config.Memory != nil {
		return true
	}
	for _, m := range def.Methods {
		if a := m.Do; a != nil {
			if a.Agent != nil && truthy(a.Agent.Extra["memory"]) {
				return true
			}
			if a.Crew != nil && truthy(a.Crew.Extra["memory"]) {
				return true
			}
		}
	}
	return false
}

func truthy(v any) bool { b, _ := v.(bool); return b }

// agentMemory lets an agent recall and remember through a flow's memory.
// It files what it remembers itself (scope, categories, importance), so
// remembering costs no model call.
// Its reads and writes are effects (EffectMemory) of the method that runs
// the agent, passed through the engine's interceptors.
type agentMemory struct {
	e     *Engine
	m     *memory.Memory
	scope string
}

func (a agentMemory) Recall(ctx context.Context, query string) ([]string, error) {
	v, err := a.e.memoryEffect(ctx, "recall", func(ctx context.Context) (any, error) { return a.recall(ctx, query) })
	if err != nil {
		return nil, err
	}
	switch v := v.(type) {
	case []string:
		return v, nil
	case []any: // a record decoded generically
		out := make([]string, len(v))
		for i, s := range v {
			out[i] = fmt.Sprint(s)
		}
		return out, nil
	case nil:
		return nil, nil
	}
	return nil, fmt.Errorf("flow: an interceptor returned %T for a memory recall; want []string", v)
}

func (a agentMemory) recall(ctx context.Context, query string) ([]string, error) {
	matches, err := a.m.Recall(ctx, memory.Query{Text: query, Limit: 5})
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(matches))
	for _, mt := range matches {
		out = append(out, mt.Record.Content)
	}
	return out, nil
}

func (a agentMemory) Remember(ctx context.Context, text string) error {
	_, err := a.e.memoryEffect(ctx, "remember", func(ctx context.Context) (any, error) {
		_, err := a.m.Remember(ctx, memory.Item{Content: text, Scope: a.scope, Categories: []string{"task_result"},
			Importance: memory.Importance(0.5)})
		return nil, err
	})
	return err
}

// memoryEffect runs next, a memory read or write of an agent, through the
// engine's interceptors as the next EffectMemory of ctx's scope.
func (e *Engine) memoryEffect(ctx context.Context, name string, next func(context.Context) (any, error)) (any, error) {
	sc, ok := ctx.Value(effectScopeKey{}).(*effectScope)
	if !ok || len(e.intercept) == 0 {
		return next(ctx)
	}
	eff := sc.call
	eff.Kind, eff.Name, eff.Scope = EffectMemory, name, sc.scope
	eff.Index = int(sc.memory.Add(1))
	return e.intercepted(ctx, eff, next)
}

// withMemory sets spec.Memory when the agent (or its crew) asks for it.
func (r *run) withMemory(spec *action.AgentSpec, wanted bool) {
	if wanted && r.mem != nil {
		spec.Memory = agentMemory{e: r.e, m: r.mem, scope: "/agent/" + memory.Slug(spec.Role)}
	}
}

// knowledgeContext searches an agent's or crew's knowledge_sources for the
// task and returns the prompt block, or "". Files and folders resolve
// against the flow's folder and must stay inside it or the engine's
// WithFileRoots.
func (r *run) knowledgeContext(ctx context.Context, sources any, query string) (string, error) {
	list, ok := sources.([]any)
	if !ok || len(list) == 0 {
		return "", nil
	}
	base, err := knowledge.New(memory.LexicalEmbedder{})
	if err != nil {
		return "", err
	}
	var srcs []knowledge.Source
	for i, s := range list {
		switch v := s.(type) {
		case string:
			src, err := r.knowledgePath(i, v)
			if err != nil {
				return "", err
			}
			srcs = append(srcs, src)
		case map[string]any:
			if text, ok := v["text"].(string); ok {
				srcs = append(srcs, knowledge.Text(fmt.Sprintf("source %d", i), text))
			} else if p, ok := v["path"].(string); ok {
				src, err := r.knowledgePath(i, p)
				if err != nil {
					return "", err
				}
				srcs = append(srcs, src)
			} else {
				return "", fmt.Errorf("knowledge_sources[%d]: use a path or {text: ...} / {path: ...}", i)
			}
		default:
			return "", fmt.Errorf("knowledge_sources[%d]: use a path or {text: ...} / {path: ...}", i)
		}
	}
	if err := base.Add(ctx, srcs...); err != nil {
		var se *sourceError
		if !errors.As(err, &se) { // it names its entry itself
			err = fmt.Errorf("knowledge_sources: %w", err)
		}
		return "", err
	}
	res, err := base.Search(ctx, query, 3, 0.1)
	if err != nil {
		return "", fmt.Errorf("knowledge_sources: %w", err)
	}
	if len(res) == 0 {
		return "", nil
	}
	return knowledge.Format(res), nil
}

// sourceError is the error of the i-th knowledge_sources entry.
type sourceError struct {
	i   int
	err error
}

func (e *sourceError) Error() string { return fmt.Sprintf("knowledge_sources[%d]: %v", e.i, e.err) }
func (e *sourceError) Unwrap() error { return e.err }

// knowledgePath is the source of the i-th knowledge_sources entry, a file
// or a folder, confined to the flow's folder and the engine's file roots.
func (r *run) knowledgePath(i int, p string) (knowledge.Source, error) {
	dir, err := fileBase(r.p.def)
	if err != nil {
		return nil, err
	}
	within := knowledge.Within(append([]string{dir}, r.e.fileRoots...)...)
	src := knowledge.File(p, within)
	if strings.HasSuffix(p, "/") || filepath.Ext(p) == "" {
		src = knowledge.Folder(p, within)
	}
	return knowledge.SourceFunc(func(ctx context.Context) ([]knowledge.Document, error) {
		docs, err := src.Documents(ctx)
		if err != nil {
			return nil, &sourceError{i: i, err: fileRootsHint(err)}
		}
		return docs, nil
	}), nil
}
