// Package durable holds what running a flow on a durable-execution engine
// (DBOS Transact, Temporal) needs from Troupe, with no engine imported:
// the codec that turns every effect's request and result into bytes an
// engine records, and the size limits such engines impose.
//
// Effects are named by [flow.Effect.Key]. A live run passes its effects
// through [Codec.Interceptor], which returns the decoded copy of every
// result, so a first run and a replay from recorded bytes see identical
// values. Engine adapters live in their own Go modules (durable/dbos), so
// this package and its importers never link an engine.
package durable
