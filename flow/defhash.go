package flow

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
)

// defHash is a definition's fingerprint, stored in every snapshot so that
// Resume can tell an edited definition. It is computed on first use: only
// runs that save need it.
type defHash struct {
	once sync.Once
	sum  string
}

// of returns the fingerprint of def, the definition h belongs to.
func (h *defHash) of(def *Definition) string {
	h.once.Do(func() { h.sum = def.Hash() })
	return h.sum
}

// Hash fingerprints the definition's content (32 hex digits): its
// canonical JSON document, in which key order, comments and layout of the
// source no longer show, so that any change to what the flow does changes
// the hash. A definition that cannot be written out (a Go function body
// without a ref) is fingerprinted by its structure: methods, triggers and
// action kinds. Snapshots record it, so that Resume can tell an edited
// definition; durable engines bind their deployments' versions to it.
//
// Hash computes it anew on every call; a definition is not to be changed
// while runs use it.
func (d *Definition) Hash() string {
	doc, err := d.JSON()
	if err != nil {
		doc = []byte(structure(d))
	}
	sum := sha256.Sum256(doc)
	return hex.EncodeToString(sum[:16])
}

// structure describes the methods, their triggers and their action kinds.
func structure(def *Definition) string {
	var b strings.Builder
	b.WriteString(def.Name)
	for _, m := range def.Methods {
		fmt.Fprintf(&b, "\n%s|%v|%s|%s|%v|%v", m.Name, m.Start.Always, describeCondition(m.Start.When),
			describeCondition(m.Listen), m.IsRouter(), m.Events())
		if m.Do != nil {
			fmt.Fprintf(&b, "|%s|%s", m.Do.Call, m.Do.Ref)
		}
		if hf := m.HumanFeedback; hf != nil {
			fmt.Fprintf(&b, "|hf:%v:%s", hf.Emit, hf.DefaultOutcome)
		}
	}
	return b.String()
}
