package binrec

import (
	"errors"
	"math"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	var e Encoder
	e.Uint(0)
	e.Uint(math.MaxUint64)
	e.Int(-1)
	e.Int(math.MinInt64)
	e.Int(math.MaxInt64)
	e.String("")
	e.String("héllo\x00world")
	e.Bool(true)
	e.Bool(false)
	e.Uint(2) // a count of two strings
	e.String("a")
	e.String("b")

	d := Decoder{S: string(e.B)}
	if got := d.Uint(); got != 0 {
		t.Errorf("Uint = %d", got)
	}
	if got := d.Uint(); got != math.MaxUint64 {
		t.Errorf("Uint = %d", got)
	}
	for _, want := range []int64{-1, math.MinInt64, math.MaxInt64} {
		if got := d.Int(); got != want {
			t.Errorf("Int = %d, want %d", got, want)
		}
	}
	if got := d.String(); got != "" {
		t.Errorf("String = %q", got)
	}
	if got := d.String(); got != "héllo\x00world" {
		t.Errorf("String = %q", got)
	}
	if !d.Bool() || d.Bool() {
		t.Error("Bool values differ")
	}
	if n := d.Count(); n != 2 {
		t.Errorf("Count = %d", n)
	}
	if a, b := d.String(), d.String(); a != "a" || b != "b" {
		t.Errorf("strings after count = %q %q", a, b)
	}
	if d.Err() != nil || d.Rest() != 0 {
		t.Errorf("err %v, %d bytes left", d.Err(), d.Rest())
	}
}

// Every way a cache file can be cut or corrupted ends in ErrCorrupt, with
// zero values, and never a panic or a huge allocation.
func TestDamagedInput(t *testing.T) {
	var e Encoder
	e.String("a string of some length")
	e.Int(-12345)
	e.Bool(true)
	full := string(e.B)
	for cut := 0; cut < len(full); cut++ {
		d := Decoder{S: full[:cut]}
		if _, _, last := d.String(), d.Int(), d.Bool(); last {
			t.Errorf("cut at %d: the last read returned data", cut)
		}
		if !errors.Is(d.Err(), ErrCorrupt) {
			t.Errorf("cut at %d: err %v, want ErrCorrupt", cut, d.Err())
		}
	}

	var big Encoder
	big.Uint(1 << 60) // a count (or string length) far beyond the bytes left
	big.String("x")
	d := Decoder{S: string(big.B)}
	if n := d.Count(); n != 0 || !errors.Is(d.Err(), ErrCorrupt) {
		t.Errorf("huge count: %d, %v", n, d.Err())
	}
	d = Decoder{S: string(big.B)}
	if s := d.String(); s != "" || !errors.Is(d.Err(), ErrCorrupt) {
		t.Errorf("huge string length: %q, %v", s, d.Err())
	}

	// An overlong varint (eleven continuation bytes) is refused.
	d = Decoder{S: "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"}
	if d.Uint(); !errors.Is(d.Err(), ErrCorrupt) {
		t.Errorf("overlong varint: %v", d.Err())
	}
	// The first error sticks: later reads return zero values.
	if d.Bool() || d.String() != "" || d.Int() != 0 {
		t.Error("reads after an error returned data")
	}
}

// A record reads back as written, a changed byte does not, and reading one
// allocates nothing: a warm listing reads one per session.
func TestRecordAt(t *testing.T) {
	b := AppendRecord(nil, []byte("payload of a record"))
	b = append(b, "next"...)
	s := string(b)
	n, p, ok := RecordAt(s)
	if !ok || p != "payload of a record" || s[n:] != "next" {
		t.Fatalf("RecordAt = %d %q %v", n, p, ok)
	}
	bad := []byte(s)
	bad[len(bad)-6] ^= 1
	if _, _, ok := RecordAt(string(bad)); ok {
		t.Error("a changed byte read back as the record")
	}
	if _, _, ok := RecordAt(s[:10]); ok {
		t.Error("a cut record read back")
	}
	if a := testing.AllocsPerRun(100, func() { RecordAt(s) }); a != 0 {
		t.Errorf("RecordAt allocates %v times a call", a)
	}
}
