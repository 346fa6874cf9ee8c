package report

import (
	"bytes"
	"io"
	"testing"
)

// BenchmarkRender renders a result the size of a full registry scan (~250 rules, every level and
// status) in each format, the work every `sentinel probe` and `findings export` ends with.
func BenchmarkRender(b *testing.B) {
	r := bigResult(250)
	for _, f := range Formats() {
		b.Run(f, func(b *testing.B) {
			rd, err := New(f, &Options{SARIFAnchor: "cmd/server/main.go"})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := rd.Render(io.Discard, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecode reads back the canonical JSON of the same result, what export does first.
func BenchmarkDecode(b *testing.B) {
	data, err := MarshalCanonical(bigResult(250))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Decode(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}
