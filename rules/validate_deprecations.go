package rules

import (
	"errors"
	"fmt"
	"strings"
)

// Errors ValidateDeprecations reports, wrapped with the entry's key.
var (
	ErrDepKey         = errors.New("key is empty, not kebab-case, or used twice")
	ErrDepText        = errors.New("name, source or replacement is empty")
	ErrDepURL         = errors.New("spec URL is not a known spec page")
	ErrDepDates       = errors.New("dates are missing or out of order")
	ErrDepWindow      = errors.New("earliest removal comes before the end of the policy window")
	ErrDepShortWindow = errors.New("window shorter than the policy allows")
	ErrDepEvidence    = errors.New("evidence is missing, or has an empty or duplicate kind")
	ErrDepRule        = errors.New("related rule does not exist")
)

// ValidateDeprecations checks the deprecation and removal registries against the lifecycle policy
// and the rule set: dates in order, removal no earlier than the window allows (12 months, or three
// for grandfathered features), evidence kinds present and unique per entry, and every related rule
// name defined in rs. It returns one error per problem, nil when all is sound.
func ValidateDeprecations(ds []Deprecation, rms []Removal, rs []Rule) []error {
	var errs []error
	names := map[string]bool{}
	for _, r := range rs {
		names[r.Name] = true
	}
	keys := map[string]bool{}
	fail := func(key string, err error, detail string) {
		errs = append(errs, fmt.Errorf("deprecation registry %q: %w%s", key, err, suffix(detail)))
	}
	common := func(key, name, source, url, replacement string, ev []Evidence, related []string) {
		if !kebab().MatchString(key) || keys[key] {
			fail(key, ErrDepKey, "")
		}
		keys[key] = true
		if strings.TrimSpace(name) == "" || strings.TrimSpace(source) == "" || strings.TrimSpace(replacement) == "" {
			fail(key, ErrDepText, "")
		}
		if detail, err := checkURL(url); err != nil {
			fail(key, ErrDepURL, detail)
		}
		kinds := map[string]bool{}
		if len(ev) == 0 {
			fail(key, ErrDepEvidence, "none listed")
		}
		for _, e := range ev {
			if !strings.Contains(e.Kind, ":") || strings.TrimSpace(e.Description) == "" || kinds[e.Kind] {
				fail(key, ErrDepEvidence, e.Kind)
			}
			kinds[e.Kind] = true
		}
		for _, n := range related {
			if !names[n] {
				fail(key, ErrDepRule, n)
			}
		}
	}
	for _, d := range ds {
		common(d.Key, d.Name, d.Source, d.SpecURL, d.Replacement, d.Evidence, d.Rules)
		if d.DeprecatedIn.IsZero() || d.WindowStart.IsZero() || d.EarliestRemoval.IsZero() ||
			d.WindowStart.Before(d.DeprecatedIn) || !d.EarliestRemoval.After(d.DeprecatedIn) {
			fail(d.Key, ErrDepDates, "")
		}
		minWindow := PolicyWindowMonths
		if d.Grandfathered {
			minWindow = GrandfatherWindowMonths
		}
		if d.WindowMonths < minWindow {
			fail(d.Key, ErrDepShortWindow, fmt.Sprintf("%d months", d.WindowMonths))
		}
		if end := d.WindowStart.AddDate(0, d.WindowMonths, 0); d.EarliestRemoval.Before(end) {
			fail(d.Key, ErrDepWindow, fmt.Sprintf("%s before %s", d.EarliestRemoval.Format("2006-01-02"), end.Format("2006-01-02")))
		}
	}
	for _, r := range rms {
		common(r.Key, r.Name, r.Source, r.SpecURL, r.Replacement, r.Evidence, r.Rules)
	}
	return errs
}

func suffix(detail string) string {
	if detail == "" {
		return ""
	}
	return ": " + detail
}
