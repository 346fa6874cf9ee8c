package proxy

// Attribute keys of the proxy's log lines, fixed here so every line spells them alike.
const (
	logExchangeID = "exchange_id"
	logTarget     = "target"
	logMethod     = "method"
	logKey        = "key"
	logStatus     = "status"
	logGraded     = "graded"
	logFindings   = "findings"
	logDuration   = "duration_ms"
	logError      = "error"
	logExchanges  = "exchanges"
	logLost       = "lost"
)
