package flow

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"

	"github.com/troupe-dev/troupe/internal/yamlsyntax"
)

// Load reads and validates a definition file (YAML or JSON). On failure the
// error is a Diagnostics listing every problem with its line and column.
// Warnings do not stop loading; they are in the definition's Warnings.
func Load(path string, opts ...LoadOption) (*Definition, error) {
	def, diags := CheckFile(path, opts...)
	if diags.HasErrors() {
		return nil, diags
	}
	return def, nil
}

// Parse reads and validates a definition from memory. source names it in
// diagnostics (a file name, or "" for none). Warnings do not stop parsing;
// they are in the definition's Warnings.
func Parse(data []byte, source string, opts ...LoadOption) (*Definition, error) {
	def, diags := Check(data, source, opts...)
	if diags.HasErrors() {
		return nil, diags
	}
	return def, nil
}

// CheckFile is Load that returns every diagnostic, errors and warnings,
// together with the definition as far as it could be read (nil when the
// document itself could not be read).
func CheckFile(path string, opts ...LoadOption) (*Definition, Diagnostics) {
	data, err := os.ReadFile(path)
	if err != nil {
		cause := err
		var pe *fs.PathError
		if errors.As(err, &pe) {
			cause = pe.Err
		}
		return nil, Diagnostics{{File: path, Severity: SeverityError, Code: "read_error",
			Message: fmt.Sprintf("cannot read the definition: %v", cause)}}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	if isBlank(data) {
		return nil, Diagnostics{{File: path, Line: 1, Column: 1, Severity: SeverityError, Code: "empty",
			Message: "Flow declaration file is empty: " + abs}}
	}
	def, diags := check(data, path, newLoadOptions(opts))
	if def != nil {
		def.Dir = filepath.Dir(abs)
	}
	return def, diags
}

// Check is Parse that returns every diagnostic, errors and warnings,
// together with the definition as far as it could be read.
func Check(data []byte, source string, opts ...LoadOption) (*Definition, Diagnostics) {
	if isBlank(data) {
		return nil, Diagnostics{{File: source, Line: 1, Column: 1, Severity: SeverityError, Code: "empty",
			Message: "Flow declaration contents are empty"}}
	}
	return check(data, source, newLoadOptions(opts))
}

// isBlank reports whether data is empty or white space only, as Python's
// str.strip() sees it.
func isBlank(data []byte) bool {
	return len(bytes.TrimFunc(data, func(r rune) bool {
		return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f
	})) == 0
}

var yamlLine = regexp.MustCompile(`^line \d+: `)

func check(data []byte, source string, o loadOptions) (*Definition, Diagnostics) {
	doc, err := parseDocument(data, o.aliasLimit(len(data)))
	var ee *expansionError
	if errors.As(err, &ee) {
		return nil, Diagnostics{{File: source, Line: ee.pos.Line, Column: ee.pos.Column, Severity: SeverityError,
			Code: "too_large", Message: ee.msg}}
	}
	if err != nil {
		// The parser's line numbers are unreliable; say where the text
		// stops parsing instead, and drop its "line N: " prefix.
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		msg = yamlLine.ReplaceAllString(msg, "")
		var p Pos
		var de *docError
		if errors.As(err, &de) {
			p = Pos{de.line, 1}
		} else if line, col, ok := yamlsyntax.Locate(data); ok {
			p = Pos{line, col}
		}
		return nil, Diagnostics{{File: source, Line: p.Line, Column: p.Column, Severity: SeverityError, Code: "syntax",
			Message: "cannot parse the document: " + msg}}
	}
	root := doc.root
	if root.kind != mapNode {
		return nil, Diagnostics{{File: source, Line: root.line, Column: root.column, Severity: SeverityError,
			Code: "not_mapping", Message: fmt.Sprintf("Flow declaration must contain a mapping, got %s", root.describe())}}
	}
	d := newDecoder(source, data, root)
	if len(doc.dups) > 0 {
		d.reportDuplicates(root, doc.dups)
	}
	if len(doc.bigInts) > 0 {
		d.reportBigInts(root, doc.bigInts)
	}
	def := d.definition(root)
	def.Source = source
	def.pos = d.pos
	d.validate(def)
	d.diags.sort()
	def.Warnings = d.diags.Warnings()
	return def, d.diags
}

// reportDuplicates warns about keys written twice in one mapping: PyYAML
// keeps the last value without a word, which hides mistakes.
func (d *decoder) reportDuplicates(root *node, dups []dupKey) {
	at := make(map[*node]string, len(dups))
	var walk func(path string, n *node)
	walk = func(path string, n *node) {
		switch n.kind {
		case mapNode:
			if _, ok := at[n]; !ok {
				at[n] = path
			}
			for i, k := range n.keys {
				walk(join(path, k), n.vals[i])
			}
		case seqNode:
			for i, it := range n.items {
				walk(index(path, i), it)
			}
		}
	}
	walk("", root)
	// A mapping repeated through an alias repeats its duplicates: report
	// each written key once.
	seen := make(map[dupKey]bool, len(dups))
	for _, dk := range dups {
		path, ok := at[dk.in]
		k := dupKey{key: dk.key, pos: dk.pos}
		if !ok || seen[k] {
			continue
		}
		seen[k] = true
		d.diags = append(d.diags, Diagnostic{File: d.file, Line: dk.pos.Line, Column: dk.pos.Column,
			Path: join(path, dk.key), Severity: SeverityWarning, Code: "duplicate_key",
			Message: fmt.Sprintf("key %q is written more than once in this mapping; the last value wins", dk.key)})
	}
}

// reportBigInts reports the integers too large for an int64: PyYAML reads
// them as Python ints, which Troupe cannot hold. Reading them as text or as
// a rounded float would change them silently, so they are errors, each
// reported once (an alias repeats its anchor's nodes) with its path.
func (d *decoder) reportBigInts(root *node, bigInts []bigIntAt) {
	// todo maps the place of each integer to its path, once found.
	todo := make(map[Pos]string, len(bigInts))
	for _, b := range bigInts {
		todo[b.pos] = ""
	}
	var walk func(path string, n *node)
	walk = func(path string, n *node) {
		switch n.kind {
		case mapNode:
			for i, k := range n.keys {
				kp := join(path, k)
				if p, ok := todo[n.keyPos[i]]; ok && p == "" {
					todo[n.keyPos[i]] = kp
				}
				walk(kp, n.vals[i])
			}
		case seqNode:
			for i, it := range n.items {
				walk(index(path, i), it)
			}
		default:
			if p, ok := todo[n.pos()]; ok && p == "" && n.outOfRange() {
				todo[n.pos()] = path
			}
		}
	}
	walk("", root)
	for _, b := range bigInts {
		p, ok := todo[b.pos]
		if !ok {
			continue
		}
		delete(todo, b.pos)
		d.diags = append(d.diags, Diagnostic{File: d.file, Line: b.pos.Line, Column: b.pos.Column,
			Path: p, Severity: SeverityError, Code: "int_range",
			Message: fmt.Sprintf("integer %s does not fit in 64 bits (%d to %d); quote it to keep it as text, or write it with a decimal point to make it a float", b.text, math.MinInt64, math.MaxInt64)})
	}
}

func (d *decoder) definition(n *node) *Definition {
	f := d.fields("", n, extraIgnore, "schema", "schema_=schema", "name", "description", "state",
		"config", "persist", "conversational", "methods")
	def := &Definition{Schema: SchemaV1, Config: Config{MaxMethodCalls: DefaultMaxMethodCalls}}
	if v, ok := f["schema"]; ok {
		s, isStr := v.value.(string)
		if !isStr || s != SchemaV1 {
			d.errorf("schema", "literal_error", "Input should be 'crewai.flow/v1' [type=literal_error]; got %s", pyRepr(v.data()))
		}
	}
	if v, ok := d.required("", f, "name"); ok {
		def.Name = d.str("name", v)
	}
	def.Description = d.optStr("description", f["description"])
	if v, ok := f["state"]; ok && !v.isNull() {
		def.State = d.state("state", v)
	}
	if v, ok := f["config"]; ok && !v.isNull() {
		def.Config = d.config("config", v)
	}
	if v, ok := f["persist"]; ok && !v.isNull() {
		def.Persist = d.persist("persist", v)
	}
	if v, ok := f["conversational"]; ok && !v.isNull() {
		def.Conversational = d.conversational("conversational", v)
	}
	if v, ok := f["methods"]; ok && !v.isNull() && d.isMap("methods", v, "methods") {
		for i, name := range v.keys {
			p := join("methods", name)
			d.pos[p] = v.keyPos[i]
			if m := d.method(p, name, v.vals[i]); m != nil {
				def.Methods = append(def.Methods, m)
			}
		}
	}
	return def
}

var stateTypes = map[StateType][]string{
	"dict":        {"type", "default"},
	"json_schema": {"type", "json_schema", "default"},
	"pydantic":    {"type", "ref", "json_schema", "default"},
	"unknown":     {"type", "ref", "default"},
}

func (d *decoder) state(path string, n *node) *StateSpec {
	if !d.isMap(path, n, "state") {
		return nil
	}
	t, ok := n.get("type")
	if !ok {
		d.errorf(join(path, "type"), "union_tag_not_found", "Unable to extract tag using discriminator 'type' [type=union_tag_not_found]: add type: dict, json_schema, pydantic or unknown")
		return nil
	}
	str, _ := t.value.(string)
	kind := StateType(str)
	known, ok := stateTypes[kind]
	if !ok {
		d.errorf(join(path, "type"), "union_tag_invalid", "Input tag %s found using 'type' does not match any of the expected tags: 'dict', 'json_schema', 'pydantic', 'unknown' [type=union_tag_invalid]", pyRepr(t.data()))
		return nil
	}
	f := d.fields(path, n, extraForbid, known...)
	s := &StateSpec{Type: kind}
	if v, ok := f["default"]; ok && !v.isNull() {
		s.Default = d.anyMap(join(path, "default"), v, "state.default")
	}
	if v, ok := f["json_schema"]; ok && !v.isNull() {
		s.JSONSchema = d.anyMap(join(path, "json_schema"), v, "state.json_schema")
	} else if kind == "json_schema" {
		if !ok {
			d.errorf(join(path, "json_schema"), "missing", "Field required [type=missing]: json_schema state needs a json_schema")
		} else {
			d.errorf(join(path, "json_schema"), "dict_type", "Input should be a valid dictionary [type=dict_type]: json_schema must be a mapping")
		}
	}
	s.Ref = d.optStr(join(path, "ref"), f["ref"])
	return s
}

func (d *decoder) config(path string, n *node) Config {
	c := Config{MaxMethodCalls: DefaultMaxMethodCalls}
	if !d.isMap(path, n, "config") {
		return c
	}
	f := d.fields(path, n, extraIgnore, "tracing", "stream", "memory", "input_provider",
		"suppress_flow_events", "max_method_calls", "defer_trace_finalization", "checkpoint", "budgets")
	c.Tracing = d.optBool(join(path, "tracing"), f["tracing"])
	if v := f["stream"]; v != nil {
		c.Stream = d.boolean(join(path, "stream"), v)
	}
	c.Memory = d.anyMap(join(path, "memory"), f["memory"], "config.memory")
	c.InputProvider = d.optStr(join(path, "input_provider"), f["input_provider"])
	if v := f["suppress_flow_events"]; v != nil {
		c.SuppressFlowEvents = d.boolean(join(path, "suppress_flow_events"), v)
	}
	if v := f["max_method_calls"]; v != nil {
		if i := d.optInt(join(path, "max_method_calls"), v); i != nil {
			c.MaxMethodCalls = *i
		}
	}
	if v := f["budgets"]; v != nil && !v.isNull() {
		c.Budgets = d.budgets(join(path, "budgets"), v)
	}
	if v := f["defer_trace_finalization"]; v != nil {
		c.DeferTraceFinalization = d.boolean(join(path, "defer_trace_finalization"), v)
	}
	if v := f["checkpoint"]; v != nil && !v.isNull() {
		p := join(path, "checkpoint")
		switch v.kind {
		case mapNode:
			m := d.anyMap(p, v, "config.checkpoint")
			loc, _ := m["location"].(string)
			if loc == "" {
				loc = "./.checkpoints"
			}
			c.Checkpoint = &Checkpoint{Location: loc, Settings: m}
		default:
			if d.boolean(p, v) {
				c.Checkpoint = &Checkpoint{Location: "./.checkpoints"}
			}
		}
	}
	return c
}

func (d *decoder) persist(path string, n *node) *Persist {
	if !d.isMap(path, n, "persist") {
		return nil
	}
	f := d.fields(path, n, extraIgnore, "enabled", "verbose", "persistence")
	p := &Persist{}
	if v := f["enabled"]; v != nil {
		p.Enabled = d.boolean(join(path, "enabled"), v)
	}
	if v := f["verbose"]; v != nil {
		p.Verbose = d.boolean(join(path, "verbose"), v)
	}
	if v := f["persistence"]; v != nil && !v.isNull() {
		p.Backend = d.anyMap(join(path, "persistence"), v, "persist.persistence")
	}
	return p
}

func (d *decoder) humanFeedback(path string, n *node) *HumanFeedback {
	if !d.isMap(path, n, "human_feedback") {
		return nil
	}
	f := d.fields(path, n, extraIgnore, "message", "emit", "llm", "default_outcome", "metadata",
		"provider", "learn", "learn_source", "learn_strict")
	h := &HumanFeedback{LearnSource: "hitl", LLM: &LLMConfig{Model: DefaultFeedbackLLM, Short: true}}
	if v, ok := d.required(path, f, "message"); ok {
		h.Message = d.str(join(path, "message"), v)
	}
	h.Emit = d.strList(join(path, "emit"), f["emit"])
	if v, ok := f["llm"]; ok {
		h.LLM = d.llm(join(path, "llm"), v)
	}
	h.DefaultOutcome = d.optStr(join(path, "default_outcome"), f["default_outcome"])
	h.Metadata = d.anyMap(join(path, "metadata"), f["metadata"], "human_feedback.metadata")
	if v := f["provider"]; v != nil && !v.isNull() {
		h.Provider = d.str(join(path, "provider"), v)
	}
	if v := f["learn"]; v != nil {
		h.Learn = d.boolean(join(path, "learn"), v)
	}
	if v := f["learn_source"]; v != nil {
		h.LearnSource = d.str(join(path, "learn_source"), v)
	}
	if v := f["learn_strict"]; v != nil {
		h.LearnStrict = d.boolean(join(path, "learn_strict"), v)
	}
	return h
}

func (d *decoder) conversational(path string, n *node) *Conversational {
	if !d.isMap(path, n, "conversational") {
		return nil
	}
	c := &Conversational{Enabled: true, Settings: d.anyMap(path, n, "conversational")}
	if v, ok := n.get("enabled"); ok {
		c.Enabled = d.boolean(join(path, "enabled"), v)
	}
	return c
}

// llm decodes a model string or an LLM definition; null and "" give nil.
func (d *decoder) llm(path string, n *node) *LLMConfig {
	if n.isNull() {
		return nil
	}
	if s, ok := n.value.(string); ok && n.kind == scalarNode {
		if s == "" {
			return nil
		}
		return &LLMConfig{Model: s, Short: true}
	}
	if n.kind != mapNode {
		d.errorf(path, "llm_type", "an LLM is a model string (openai/gpt-4o-mini) or a mapping with model, got %s", n.describe())
		return nil
	}
	f := d.fields(path, n, extraAllow, "model", "max_tokens")
	d.warnUnknownKeys(path, n, llmBlock)
	c := &LLMConfig{}
	if v, ok := d.required(path, f, "model"); ok {
		c.Model = d.str(join(path, "model"), v)
	}
	c.MaxTokens = d.optInt(join(path, "max_tokens"), f["max_tokens"])
	c.Settings = extras(n, map[string]*node{"model": nil, "max_tokens": nil})
	return c
}
