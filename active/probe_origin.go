package active

import (
	"context"
	"net/http"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// ForeignOrigin is an Origin no deployment allows (the .invalid TLD is reserved).
const ForeignOrigin = "http://sentinel-foreign-origin.invalid"

// originProbes cover DNS-rebinding protection.
func originProbes() []Probe {
	return []Probe{
		{Name: "origin", DiscoverOnly: true, RuleIDs: ids("origin-invalid-403", "origin-validated"), Run: probeOrigin},
	}
}

// probeOrigin: "Servers MUST validate the Origin header on all incoming connections ... If the
// Origin header is present and invalid, servers MUST respond with HTTP 403 Forbidden." The Host
// stays correct, so only Origin is at issue. With --origin, the allowed origin is sent first as a
// control: if even that is refused, a 403 for the foreign one proves nothing.
func probeOrigin(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	inv, val := rules.IDOf("origin-invalid-403"), rules.IDOf("origin-validated")
	if t.Options.Origin != "" {
		label := "server/discover with the allowed Origin " + t.Options.Origin
		ex := t.Send(ctx, wire.NewCall("server/discover", nil, wire.WithOrigin(t.Options.Origin), wire.WithLabel(label)))
		if ctl := served(val, label, ex); ctl.Status != rules.Pass {
			why := ctl.Observed + "; the allowed origin given with --origin is refused, so a refusal of a foreign one proves nothing"
			return []rules.Outcome{stamp(rules.Undecided(inv, why), ex), stamp(rules.Undecided(val, why), ex)}, nil
		}
	}
	label := "server/discover with Origin: " + ForeignOrigin
	// Ungraded: a server may refuse a foreign origin before it reads the body, with an error that
	// has no id (or no body at all), which the checks of normal replies would misjudge.
	ex := t.SendUngraded(ctx, wire.NewCall("server/discover", nil, wire.WithOrigin(ForeignOrigin), wire.WithLabel(label)))
	if cut(ex) {
		return []rules.Outcome{undecidedCut(inv, label, ex), undecidedCut(val, label, ex)}, nil
	}
	out := []rules.Outcome{reject(inv, label, ex, http.StatusForbidden, 0)}
	obs := observed(label, ex)
	if st := ex.Status(); st >= 400 && st < 500 {
		out = append(out, stamp(rules.Passed(val, obs), ex))
	} else {
		out = append(out, stamp(rules.Failed(val, obs+"; a foreign Origin was not refused"), ex))
	}
	return out, nil
}
