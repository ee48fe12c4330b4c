package schema

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSchemaIsSafeForConcurrentUse(t *testing.T) {
	s, err := CompileState(orderSchema)
	require.NoError(t, err)
	good := obj("customer", obj("name", "Ada"), "items", []any{obj("sku", "A", "qty", "2")})
	bad := obj("customer", obj("name", 1), "items", []any{}, "zzz", 1)

	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.Conform(good); err != nil {
				errs[i] = err
				return
			}
			if s.Validate(bad) == nil {
				errs[i] = assert.AnError
			}
			_ = s.Defaults()
			_, _ = s.Closest("itme")
		}()
	}
	wg.Wait()
	for _, err := range errs {
		assert.NoError(t, err)
	}
}
