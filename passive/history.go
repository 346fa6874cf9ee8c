package passive

// History carries what checks must compare across exchanges of one target: observed tools/list
// definitions (drift), cacheScope across pages, requestState values handed to the client. The
// caller owns one History per target and serialises access to it.
type History struct {
	// Tools maps a tool name to a digest of its last observed definition.
	Tools map[string]string
	// CacheScopes maps a list method to the cacheScope of its first page.
	CacheScopes map[string]string
	// RequestStates maps requestState values issued by the server to the method they belong to.
	RequestStates map[string]string
}

// NewHistory returns an empty History ready for use.
func NewHistory() *History {
	return &History{Tools: map[string]string{}, CacheScopes: map[string]string{}, RequestStates: map[string]string{}}
}
