package flow

import (
	"context"
	"errors"
)

// errNoAgents is returned until agent support is wired into the engine.
var errNoAgents = errors.New("agent and crew actions need a model: configure one with flow.WithLLM")

func (e *Engine) compileAgent(def *Definition, method string, a *Action) (execFn, error) {
	return func(ctx context.Context, r *run, sc *scope, trigger any) (any, error) {
		return nil, errNoAgents
	}, nil
}

func (e *Engine) compileCrew(def *Definition, method string, a *Action) (execFn, error) {
	return func(ctx context.Context, r *run, sc *scope, trigger any) (any, error) {
		return nil, errNoAgents
	}, nil
}
