package rules

import (
	"cmp"
	"slices"
	"strings"
)

// catalog returns the registry's rules in catalogue order, with their IDs filled in. The rules
// themselves live in the catalog_<area>.go files, one per primary area, so that a change to one area
// reads as one small diff. IDs are derived here from level and name rather than written by hand, so
// an ID can never disagree with its level. The transport a rule binds is derived here too
// (transportOf), so that one table, not 200 literals, says which rules are HTTP-only.
func catalog() []Rule {
	parts := [][]Rule{
		catalogJSONRPC(), catalogErrors(), catalogMeta(), catalogStateless(), catalogVersioning(),
		catalogTransport(), catalogSSE(), catalogHeaders(), catalogSecurity(), catalogCancellation(),
		catalogDeprecations(), catalogDiscover(), catalogCaching(), catalogTools(), catalogResources(),
		catalogPrompts(), catalogCompletion(), catalogMRTR(), catalogSubscriptions(), catalogLogging(),
		catalogProgress(), catalogAuth(), catalogIntermediary(), catalogStdio(),
	}
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	all := make([]Rule, 0, n)
	for _, p := range parts {
		all = append(all, p...)
	}
	for i := range all {
		r := &all[i]
		r.ID = MakeID(r.Level, r.Name)
		r.Transport = transportOf(*r)
	}
	sortCatalogue(all)
	return all
}

// sortCatalogue orders rules by catalogue row, with the rules added from the spec (row 0) last in
// name order, so that `sentinel rules list` reads like the digest. It sorts positions and moves
// each 200-byte Rule once: sorting the Rules themselves (reflectively, with sort.SliceStable) was
// a tenth of `sentinel rules list`, and the merge sort's deep, wide frames grew the goroutine
// stack, each growth a walk of every frame.
func sortCatalogue(rs []Rule) {
	order := make([]int, len(rs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		x, y := &rs[i], &rs[j]
		a, b := x.Catalogue, y.Catalogue
		switch {
		case a == 0 && b == 0:
			return strings.Compare(x.Name, y.Name)
		case a == 0:
			return 1
		case b == 0:
			return -1
		}
		return cmp.Compare(a, b)
	})
	sorted := make([]Rule, len(rs))
	for k, i := range order {
		sorted[k] = rs[i]
	}
	copy(rs, sorted)
}
