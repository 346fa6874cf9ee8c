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
		all[i].ID = MakeID(all[i].Level, all[i].Name)
		all[i].Transport = transportOf(all[i])
	}
	sortCatalogue(all)
	return all
}

// sortCatalogue orders rules by catalogue row, with the rules added from the spec (row 0) last in
// name order, so that `sentinel rules list` reads like the digest.
// (slices, not sort.SliceStable: its reflective swap of a 200-byte Rule was a tenth of
// `sentinel rules list`.)
func sortCatalogue(rs []Rule) {
	slices.SortStableFunc(rs, func(x, y Rule) int {
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
}
