package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/schema"
)

// TestToolArgumentIsFullyDescribed checks that the model sees the whole
// description of lookup_order's argument, commas included.
func TestToolArgumentIsFullyDescribed(t *testing.T) {
	s, err := schema.Reflect(orderQuery{})
	require.NoError(t, err)
	prop := s["properties"].(map[string]any)["order_id"].(map[string]any)
	assert.Equal(t, "The order number, such as A-1001", prop["description"])
}
