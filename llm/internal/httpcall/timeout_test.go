package httpcall

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/troupe-dev/troupe/llm"
)

func TestTimeoutsForConfig(t *testing.T) {
	tests := []struct {
		name   string
		option Timeouts
		cfg    time.Duration // llm.Config.Timeout, from the definition
		want   Timeouts
	}{
		{"defaults", Timeouts{}, 0, Timeouts{Call: llm.DefaultTimeout, Idle: llm.DefaultStreamIdleTimeout}},
		{"definition", Timeouts{}, 30 * time.Second, Timeouts{Call: 30 * time.Second, Idle: 30 * time.Second}},
		{"long definition keeps the idle default", Timeouts{}, time.Hour, Timeouts{Call: time.Hour, Idle: llm.DefaultStreamIdleTimeout}},
		{"option", Timeouts{Call: 5 * time.Minute, Idle: time.Minute}, 0, Timeouts{Call: 5 * time.Minute, Idle: time.Minute}},
		{"definition wins over the option", Timeouts{Call: 5 * time.Minute, Idle: time.Minute}, 30 * time.Second, Timeouts{Call: 30 * time.Second, Idle: 30 * time.Second}},
		{"no call bound", Timeouts{Call: -1}, 0, Timeouts{Call: 0, Idle: llm.DefaultStreamIdleTimeout}},
		{"no bound at all", Timeouts{Call: -1, Idle: -1}, 0, Timeouts{}},
		{"definition over no call bound", Timeouts{Call: -1, Idle: -1}, 30 * time.Second, Timeouts{Call: 30 * time.Second, Idle: 30 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.option.ForConfig(llm.Config{Timeout: tt.cfg}))
		})
	}
}
