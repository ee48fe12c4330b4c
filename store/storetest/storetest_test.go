package storetest

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestFullSetsEveryField keeps the round trip complete: a field added to
// store.Snapshot or store.PendingFeedback fails here until full sets it.
func TestFullSetsEveryField(t *testing.T) {
	snap := full()
	for _, v := range []reflect.Value{reflect.ValueOf(snap).Elem(), reflect.ValueOf(snap.Pending).Elem(), reflect.ValueOf(snap.Journal[1])} {
		for i := range v.NumField() {
			assert.Falsef(t, v.Field(i).IsZero(), "full() leaves %s.%s unset", v.Type().Name(), v.Type().Field(i).Name)
		}
	}
}
