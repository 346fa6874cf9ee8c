package active

import (
	"context"
	"net/http"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// metaProbes cover the required params._meta keys and the optional clientInfo.
func metaProbes() []Probe {
	return []Probe{
		{Name: "meta-required", DiscoverOnly: true, RuleIDs: ids("meta-required-reject", "meta-required-http-400"), Run: probeMetaRequired},
		{Name: "client-info-optional", DiscoverOnly: true, RuleIDs: ids("client-info-optional"), Run: probeClientInfoOptional},
	}
}

// probeMetaRequired: a request missing _meta, its protocolVersion or its clientCapabilities is
// malformed and MUST be rejected with -32602 and HTTP 400. The headers stay valid, so -32602 is
// the only correct code (the conformance suite fixes that order).
func probeMetaRequired(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	variants := []struct {
		label string
		opt   wire.CallOption
	}{
		{"server/discover with no params._meta", wire.WithoutMeta()},
		{"server/discover whose _meta lacks protocolVersion", wire.WithoutMetaKey(wire.MetaProtocolVersion)},
		{"server/discover whose _meta lacks clientCapabilities", wire.WithoutMetaKey(wire.MetaClientCapabilities)},
	}
	var out []rules.Outcome
	for _, v := range variants {
		ex := t.Send(ctx, wire.NewCall("server/discover", nil, v.opt, wire.WithLabel(v.label)))
		out = append(out, pair(rules.IDOf("meta-required-reject"), rules.IDOf("meta-required-http-400"), v.label, ex, http.StatusBadRequest, wire.CodeInvalidParams)...)
	}
	return out, nil
}

// probeClientInfoOptional: clientInfo is optional; a request without it MUST be served.
func probeClientInfoOptional(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	label := "server/discover whose _meta has no clientInfo"
	ex := t.Send(ctx, wire.NewCall("server/discover", nil, wire.WithoutMetaKey(wire.MetaClientInfo), wire.WithLabel(label)))
	return []rules.Outcome{served(rules.IDOf("client-info-optional"), label, ex)}, nil
}
