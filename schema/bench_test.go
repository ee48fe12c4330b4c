package schema

import (
	"encoding/json"
	"testing"
)

var benchState = obj(
	"title", "CounterState",
	"type", "object",
	"properties", obj(
		"count", obj("type", "integer", "default", int64(0)),
		"label", obj("type", "string", "default", "none"),
		"topic", obj("type", "string"),
		"score", obj("type", "number"),
		"tags", obj("type", "array", "items", obj("type", "string")),
	),
	"required", []any{"topic"},
)

func mustCompileState(b *testing.B) *Schema {
	b.Helper()
	s, err := CompileState(benchState)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func BenchmarkCompileState(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := CompileState(benchState); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	s := mustCompileState(b)
	v := obj("id", "run-1", "count", int64(3), "label", "x", "topic", "AI", "score", 0.5, "tags", []any{"a", "b"})
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Validate(v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateInvalid(b *testing.B) {
	s := mustCompileState(b)
	v := obj("count", "not-a-number", "topic", "AI", "extra", int64(1))
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Validate(v); err == nil {
			b.Fatal("want error")
		}
	}
}

func BenchmarkCoerce(b *testing.B) {
	s := mustCompileState(b)
	v := obj("count", "5", "label", "x", "topic", "AI", "score", "0.5", "tags", []any{"a"})
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Coerce(v)
	}
}

func BenchmarkConformJSON(b *testing.B) {
	s, err := Compile(For[searchArgs]())
	if err != nil {
		b.Fatal(err)
	}
	raw := json.RawMessage(`{"query":"ai agents","limit":5,"tags":["x","y"],"filter":{"lang":"en"}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.ConformJSON(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkClosest(b *testing.B) {
	names := []string{"prospect_email", "company", "lead_name", "audience", "topic", "research_depth"}
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := ClosestMatch("prospect_emai", names, 0.7); !ok {
			b.Fatal("no match")
		}
	}
}

func BenchmarkReflect(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if For[searchArgs]() == nil {
			b.Fatal("nil schema")
		}
	}
}
