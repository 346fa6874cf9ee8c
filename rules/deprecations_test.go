package rules

import (
	"testing"
	"time"
)

func TestDeprecationRegistryValidatesClean(t *testing.T) {
	for _, err := range ValidateDeprecations(Deprecations(), Removals(), All()) {
		t.Error(err)
	}
}

func TestDeprecationsCoverTheSpecRegistry(t *testing.T) {
	want := map[string]time.Time{
		"roots":                       day(2027, time.July, 28),
		"sampling":                    day(2027, time.July, 28),
		"logging":                     day(2027, time.July, 28),
		"dynamic-client-registration": day(2027, time.July, 28),
		"include-context":             day(2027, time.July, 28),
		"http-sse":                    day(2026, time.September, 3),
	}
	got := map[string]bool{}
	for _, d := range Deprecations() {
		got[d.Key] = true
		w, ok := want[d.Key]
		if !ok {
			t.Errorf("unexpected deprecation %q", d.Key)
			continue
		}
		if !d.RemovableOn().Equal(w) {
			t.Errorf("%s removable on %s, want %s", d.Key, d.RemovableOn().Format(time.DateOnly), w.Format(time.DateOnly))
		}
	}
	for k := range want {
		if !got[k] {
			t.Errorf("deprecation %q missing", k)
		}
	}
}

func TestRemovalsIncludeTheHandshakeAndSessions(t *testing.T) {
	keys := map[string]bool{}
	for _, r := range Removals() {
		keys[r.Key] = true
	}
	for _, k := range []string{"initialize", "ping", "logging-set-level", "resources-subscribe", "get-stream", "sessions", "resumability", "retired-error-codes"} {
		if !keys[k] {
			t.Errorf("removal %q missing", k)
		}
	}
}

func TestValidateDeprecationsRejectsEachBrokenProperty(t *testing.T) {
	good := func() Deprecation { return Deprecations()[0] }
	goodRules := All()
	tests := []struct {
		name   string
		mutate func(*Deprecation)
		want   error
	}{
		{"empty key", func(d *Deprecation) { d.Key = "" }, ErrDepKey},
		{"no replacement", func(d *Deprecation) { d.Replacement = "" }, ErrDepText},
		{"URL off the spec", func(d *Deprecation) { d.SpecURL = "https://example.com/roots" }, ErrDepURL},
		{"removal before deprecation", func(d *Deprecation) { d.EarliestRemoval = d.DeprecatedIn.AddDate(0, -1, 0) }, ErrDepDates},
		{"removal inside the window", func(d *Deprecation) { d.EarliestRemoval = d.DeprecatedIn.AddDate(0, 11, 0) }, ErrDepWindow},
		{"window shorter than policy", func(d *Deprecation) {
			d.WindowMonths = 6
			d.EarliestRemoval = d.WindowStart.AddDate(0, 6, 0)
		}, ErrDepShortWindow},
		{"grandfathered window under three months", func(d *Deprecation) {
			d.Grandfathered, d.WindowMonths = true, 2
		}, ErrDepShortWindow},
		{"no evidence", func(d *Deprecation) { d.Evidence = nil }, ErrDepEvidence},
		{"evidence kind without a colon", func(d *Deprecation) { d.Evidence = []Evidence{{"logging", "declared"}} }, ErrDepEvidence},
		{"evidence kind twice", func(d *Deprecation) {
			d.Evidence = []Evidence{{EvidenceRootsRequest, "a"}, {EvidenceRootsRequest, "b"}}
		}, ErrDepEvidence},
		{"unknown related rule", func(d *Deprecation) { d.Rules = []string{"no-such-rule"} }, ErrDepRule},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := good()
			tt.mutate(&d)
			errs := ValidateDeprecations([]Deprecation{d}, nil, goodRules)
			if !containsErr(errs, tt.want) {
				t.Fatalf("ValidateDeprecations = %v, want %v", errs, tt.want)
			}
		})
	}
	t.Run("duplicate key across deprecation and removal", func(t *testing.T) {
		r := Removals()[0]
		r.Key = good().Key
		if errs := ValidateDeprecations([]Deprecation{good()}, []Removal{r}, goodRules); !containsErr(errs, ErrDepKey) {
			t.Fatalf("ValidateDeprecations = %v, want %v", errs, ErrDepKey)
		}
	})
}

func TestMonthsUntil(t *testing.T) {
	at := func(y int, m time.Month, d, h int) time.Time { return time.Date(y, m, d, h, 0, 0, 0, time.UTC) }
	tests := []struct {
		name     string
		from, to time.Time
		want     int
	}{
		{"same instant", at(2026, 7, 28, 0), at(2026, 7, 28, 0), 0},
		{"a day short of a month", at(2026, 7, 28, 0), at(2026, 8, 27, 0), 0},
		{"exactly a month", at(2026, 7, 28, 0), at(2026, 8, 28, 0), 1},
		{"an hour short of a month", at(2026, 7, 28, 12), at(2026, 8, 28, 11), 0},
		{"the policy window", ReleaseDate, day(2027, time.July, 28), 12},
		{"across a year end", at(2026, 11, 29, 0), at(2027, 7, 28, 0), 7},
		{"month end to a shorter month", at(2027, 1, 31, 0), at(2027, 2, 28, 0), 0},
		{"past dates count back", at(2026, 11, 29, 0), at(2026, 9, 3, 0), -2},
		{"other time zones are compared in UTC", time.Date(2026, 8, 1, 1, 0, 0, 0, time.FixedZone("X", 2*3600)), at(2026, 8, 31, 23), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MonthsUntil(tt.from, tt.to); got != tt.want {
				t.Fatalf("MonthsUntil(%s, %s) = %d, want %d", tt.from, tt.to, got, tt.want)
			}
		})
	}
}

func TestRelatedDeprecationsFindsLoggingRules(t *testing.T) {
	ds, _ := RelatedDeprecations("no-log-without-loglevel")
	if len(ds) != 1 || ds[0].Key != "logging" {
		t.Fatalf("RelatedDeprecations(no-log-without-loglevel) = %v, want the logging deprecation", ds)
	}
	if ds, rs := RelatedDeprecations("jsonrpc-envelope"); len(ds)+len(rs) != 0 {
		t.Fatalf("jsonrpc-envelope is tied to %v %v, want nothing", ds, rs)
	}
}
