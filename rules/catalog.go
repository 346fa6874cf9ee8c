package rules

import "sort"

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
	var all []Rule
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
func sortCatalogue(rs []Rule) {
	sort.SliceStable(rs, func(i, j int) bool {
		a, b := rs[i].Catalogue, rs[j].Catalogue
		switch {
		case a == 0 && b == 0:
			return rs[i].Name < rs[j].Name
		case a == 0:
			return false
		case b == 0:
			return true
		}
		return a < b
	})
}
