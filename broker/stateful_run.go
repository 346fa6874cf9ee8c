package broker

import (
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sentinel/sentinel/broker/config"
	"github.com/mcp-sentinel/sentinel/broker/handle"
	"github.com/mcp-sentinel/sentinel/broker/seal"
	"github.com/mcp-sentinel/sentinel/broker/tools"
)

// statefulServer builds a server whose evaluations, policies and audit live in o.Store.
func (o *RunOptions) statefulServer(cfg *config.Config, log *slog.Logger) (*mcp.Server, error) {
	keys := o.StateKeys
	if keys == nil {
		k, err := seal.NewKeyring(seal.GenerateKey("boot"))
		if err != nil {
			return nil, err
		}
		keys = k
		log.Warn("no requestState keys configured: sealing with a key minted at start; replicas and restarts will not accept each other's requestState (set --state-keys)")
	}
	st := &Stateful{Store: o.Store, Keys: keys, Base: cfg, JudgeModel: o.JudgeModel, StateTTL: o.StateTTL, Logger: log,
		Handles: &handle.Service{Store: o.Store, TTL: o.HandleTTL}}
	core := &tools.Core{Scorer: o.Scorer, Policies: st.Policies(), Recorder: st.Recorder(), Logger: log}
	srv := NewServer(core, &ServerOptions{Version: o.Version, Logger: log})
	st.Install(srv)
	return srv, nil
}

// NewStatefulServer builds the MCP server `broker serve` runs when o.Store is set: the two
// evaluation tools recording into the store with handles, get_evaluation, set_metric_policy and
// the audit middleware. Tests and embedders use it with NewHTTPHandler; o.Config supplies the
// configured policies (nil means none), o.Logger the logs.
func NewStatefulServer(o RunOptions) (*mcp.Server, error) {
	if o.Store == nil {
		return nil, errNoStore
	}
	cfg, log, err := o.prepare()
	if err != nil {
		return nil, err
	}
	return o.statefulServer(cfg, log)
}
