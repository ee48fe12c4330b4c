// Package flow loads, validates, builds and runs declarative agent flows in
// CrewAI's crewai.flow/v1 format, and flows built in Go.
//
// # Definitions
//
// A Definition comes from YAML or JSON (Load, Parse) or from Go code (New,
// the Builder). Either way it is validated the same way: errors stop a
// definition from loading, with every problem at once as Diagnostics (file,
// line, column, path, message); warnings (a listen naming no method, an
// unreachable method, an unknown key) do not, and are kept in
// Definition.Warnings. A built definition writes back to the format
// (Definition.YAML, Definition.JSON).
//
// # Running
//
// An Engine holds what definitions refer to by name (code handlers, tools,
// guardrails, models, stores), given as options to NewEngine. Compile turns
// a Definition into a Program, which runs, streams and resumes it any
// number of times, concurrently; Engine.Run, Stream and Resume compile on
// first use and keep recently used programs in a bounded cache.
//
// A run works like CrewAI's: the start methods run first (concurrently when
// there are several); when a method completes, the methods listening to it
// run; a router's output names an event (an outcome) that other methods
// listen to. A listen condition is one event or an and/or of conditions:
// an and fires once every event it names happened since it last fired, an
// or fires on the first of them (alternatives that race for an or are
// cancelled when one wins). The listeners of one event run concurrently,
// on the calling goroutine and on the engine's worker goroutines; a chain
// of single listeners runs in one loop. Methods read and write the run's
// State, and read earlier outputs as outputs.<method> in ${...} templates
// and CEL expressions. A failing method cancels its running siblings
// through their context and fails the run with a *MethodError; when the
// caller's context ends, Run returns within CancelGrace even if some
// method ignores its context.
//
// # Events and interceptors
//
// Every run reports Events (WithEvents, Program.Stream): flow, method,
// agent, model, tool, task and guardrail events, numbered in order, each
// pointing at its enclosing event (a model call at its agent, an agent at
// its method), so that they form a tree that maps onto trace spans. An
// Interceptor (WithInterceptor) wraps every side effect with a stable
// Effect: each method's action, and each model and tool call an agent
// makes, and each memory read and write it has the engine make, for
// tracing, budgets, replays and durable execution. For replay, WithClock,
// WithIDSource and WithModelRetries replace the clock, the run ids and the
// providers' retries, and a call an interceptor answers from its record
// reports a finished event marked Replayed.
//
// # Persistence and human feedback
//
// Methods with human_feedback ask a FeedbackProvider; PendingProvider
// pauses the run instead, and Resume continues it later, in any process
// with the same store.Store. Runs with persist save a snapshot after every
// method, so a run whose process died continues from its last completed
// method. A run or resume claims its stored run first, so one process at a
// time continues it.
//
// # Where to start reading
//
// definition.go and action.go hold the format's Go model; load.go and
// decode*.go read it, validate*.go check it, builder*.go build it in Go,
// marshal*.go write it back. engine.go and program.go are the entry points
// of a run; compile.go turns a definition into a Program; run.go,
// schedule.go and execute.go are the scheduler (fenced performance work:
// see the benchmarks in bench_engine_test.go before changing them);
// exec.go, agents.go and crews.go run actions; persist.go, resume.go and
// feedback.go keep runs across processes.
//
// flow imports action, cel, schema, llm, memory, store and internal
// packages; it must not import provider SDKs (llm/openai, llm/anthropic),
// storage drivers or the CLI.
package flow
