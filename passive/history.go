package passive

import "encoding/json"

// History carries what checks must compare across exchanges of one target: observed tools/list
// definitions (drift), cacheScope across pages, requestState values handed to the client. The
// caller owns one History per target and serialises access to it.
type History struct {
	// Tools maps a tool name to a digest of its last observed definition.
	Tools map[string]string
	// CacheScopes maps a list method and a nextCursor it issued ("method\x00cursor") to the
	// cacheScope of the page that issued the cursor.
	CacheScopes map[string]string
	// RequestStates maps requestState values issued by the server to the method they belong to.
	RequestStates map[string]string
	// ToolOrders maps a tools/list page (keyed by its cursor, "" for the first page) to the tool
	// names in the order last served, so a reordering of an unchanged set is seen.
	ToolOrders map[string][]string
	// Capabilities is the capabilities object of the last server/discover result; nil until one
	// was seen. Checks that depend on what the server declared (logging, resources) say nothing
	// while it is nil.
	Capabilities json.RawMessage
	// DiscoverRefused is set once the server answered server/discover with an error while no
	// discover result was seen: it does not speak 2026-07-28, so what it serves a legacy client
	// (a GET stream) is what migrating it must remove, not a dual-era server's right.
	DiscoverRefused bool
}

// NewHistory returns an empty History ready for use.
func NewHistory() *History {
	h := &History{}
	h.init()
	return h
}

// init makes the maps of a zero History usable, so a caller's &History{} works too.
func (h *History) init() {
	if h.Tools == nil {
		h.Tools = map[string]string{}
	}
	if h.CacheScopes == nil {
		h.CacheScopes = map[string]string{}
	}
	if h.RequestStates == nil {
		h.RequestStates = map[string]string{}
	}
	if h.ToolOrders == nil {
		h.ToolOrders = map[string][]string{}
	}
}

// maxHistoryEntries bounds each History map: a peer that issues endless distinct requestState
// values or tool names cannot grow a proxy's memory without limit. Past the bound, new entries
// are not recorded (checks relying on them then say nothing).
const maxHistoryEntries = 4096

// capability reports whether the last discover result declared the named server capability;
// known is false while no discover result has been seen.
func (h *History) capability(name string) (declared, known bool) {
	if h == nil || h.Capabilities == nil {
		return false, false
	}
	caps := decodeObject(h.Capabilities)
	_, ok := caps[name]
	return ok, true
}
