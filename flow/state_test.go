package flow_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/troupe-dev/troupe/flow"
)

type order struct {
	ID    string   `json:"id"`
	Items []string `json:"items"`
	Total int      `json:"total"`
}

// TestStateHoldsWhatCELReads stores Go values with State.Set and
// State.Update and reads them from CEL, as a handler's output is read.
func TestStateHoldsWhatCELReads(t *testing.T) {
	cases := []struct {
		name  string
		store func(s *flow.State)
		expr  string
		want  any
	}{
		{"struct with Set", func(s *flow.State) { s.Set("order", order{ID: "A1", Items: []string{"pen"}, Total: 3}) },
			"state.order.id + ':' + state.order.items[0] + ':' + string(state.order.total)", "A1:pen:3"},
		{"pointer to struct with Set", func(s *flow.State) { s.Set("order", &order{ID: "A2"}) },
			"state.order.id", "A2"},
		{"int with Set", func(s *flow.State) { s.Set("n", 4) }, "state.n * 2", int64(8)},
		{"string slice with Set", func(s *flow.State) { s.Set("tags", []string{"a", "b"}) }, "size(state.tags)", int64(2)},
		{"struct with Update", func(s *flow.State) {
			s.Update(func(m map[string]any) { m["order"] = order{ID: "A3"} })
		}, "state.order.id", "A3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			def, err := flow.New("Stateful").
				Method("store", flow.Go(func(_ context.Context, in flow.Input) (any, error) {
					c.store(in.State)
					return nil, nil
				})).Start().
				Method("read", flow.Expr(c.expr)).ListenTo("store").
				Build()
			require.NoError(t, err)
			res, err := flow.NewEngine().Run(context.Background(), def, nil)
			require.NoError(t, err)
			assert.Equal(t, c.want, res.Output)
		})
	}
}

func TestStateSetStoresJSONData(t *testing.T) {
	var got any
	def, err := flow.New("Stateful").
		Method("store", flow.Go(func(_ context.Context, in flow.Input) (any, error) {
			in.State.Set("order", order{ID: "A1", Items: []string{"pen"}, Total: 3})
			got = in.State.Value("order")
			return nil, nil
		})).Start().Build()
	require.NoError(t, err)
	_, err = flow.NewEngine().Run(context.Background(), def, nil)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"id": "A1", "items": []any{"pen"}, "total": int64(3)}, got)
}

func TestStateUpdateStoresJSONData(t *testing.T) {
	var got any
	def, err := flow.New("Stateful").
		Method("store", flow.Go(func(_ context.Context, in flow.Input) (any, error) {
			in.State.Update(func(m map[string]any) { m["order"] = order{ID: "A1", Total: 3} })
			got = in.State.Value("order")
			return nil, nil
		})).Start().Build()
	require.NoError(t, err)
	res, err := flow.NewEngine().Run(context.Background(), def, nil)
	require.NoError(t, err)
	want := map[string]any{"id": "A1", "items": nil, "total": int64(3)}
	assert.Equal(t, want, got)
	assert.Equal(t, want, res.State["order"], "Value converted it in the state")
}
