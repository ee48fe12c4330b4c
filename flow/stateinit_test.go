package flow

import (
	"encoding/binary"
	"fmt"
	"regexp"
	"testing"
)

func TestIDsAreUUIDv4(t *testing.T) {
	re := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	a, b := newIDs(), newIDs()
	for i := range 2000 {
		id := a.next()
		if i%2 == 1 {
			id = b.next()
		}
		if !re.MatchString(id) {
			t.Fatalf("id %q, not a version 4 UUID", id)
		}
		if seen[id] {
			t.Fatalf("id %q repeated", id)
		}
		seen[id] = true
	}
}

func TestFormatUUIDLayout(t *testing.T) {
	got := formatUUID(0x0123456789abcdef, 0xfedcba9876543210)
	if want := "01234567-89ab-4def-bedc-ba9876543210"; got != want {
		t.Fatalf("formatUUID = %s, want %s", got, want)
	}
}

func TestHex8(t *testing.T) {
	for _, v := range []uint32{0, 1, 9, 10, 15, 16, 0x89abcdef, 0xffffffff, 0x0123a5f0} {
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], hex8(v))
		if got, want := string(b[:]), fmt.Sprintf("%08x", v); got != want {
			t.Errorf("hex8(%#x) = %q, want %q", v, got, want)
		}
	}
}
