package wire

// Bounds on compiling a JSON Schema a peer sent: a validator's compile time explodes on hostile
// nesting (a 2000-level schema took 90 s), and neither a passive check on live traffic nor a probe
// inside its deadline can interrupt the compiler. Both the prober and the passive checks skip a
// schema past these bounds rather than judge it slowly.
const (
	MaxSchemaBytes = 64 << 10
	MaxSchemaDepth = 32
)

// SchemaTooLarge reports whether a schema is past MaxSchemaBytes or MaxSchemaDepth.
func SchemaTooLarge(schema []byte) bool {
	return len(schema) > MaxSchemaBytes || JSONDepth(schema) > MaxSchemaDepth
}

// JSONDepth returns the maximum nesting of objects and arrays in b, skipping string contents.
// It does not validate b; it is a cheap bound to check before handing b to anything costly.
func JSONDepth(b []byte) int {
	depth, deepest, inString, escaped := 0, 0, false, false
	for _, c := range b {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}
