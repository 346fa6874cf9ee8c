package rules

// catalog returns the registry's rules in catalogue order. The rules themselves live in the
// catalog_*.go files, one per spec area.
func catalog() []Rule {
	return nil
}
