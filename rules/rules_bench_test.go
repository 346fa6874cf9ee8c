package rules

import "testing"

func BenchmarkValidateRegistry(b *testing.B) {
	all := All()
	b.ReportAllocs()
	for b.Loop() {
		if errs := Validate(all); len(errs) != 0 {
			b.Fatal(errs)
		}
	}
}

func BenchmarkLookupByName(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := Lookup("origin-invalid-403"); !ok {
			b.Fatal("not found")
		}
	}
}

func BenchmarkClosest(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = Closest("origin-invalid-404", 3)
	}
}
