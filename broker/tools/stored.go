package tools

import (
	"context"
	"fmt"

	"github.com/mcp-sentinel/sentinel/eval"
)

// HandleRecorder is a Recorder that stores the evaluation durably and mints a handle for it.
// When Core's Recorder implements it, the handle is returned in the tool's output so the caller
// can fetch the evaluation again with get_evaluation.
type HandleRecorder interface {
	Recorder
	// RecordHandle stores r and returns a handle bound to r's tenant and subject.
	RecordHandle(ctx context.Context, r Record) (string, error)
}

// ContextPolicies is a Policies whose lookup does I/O (the broker's store, where
// set_metric_policy writes). When Core's Policies implements it, Core uses it with the call's
// context, and a failed lookup fails the call instead of silently falling back.
type ContextPolicies interface {
	Policies
	// PolicyContext returns the tenant's effective policy; false when it has none.
	PolicyContext(ctx context.Context, tenant string) (eval.TenantPolicy, bool, error)
}

func (c *Core) policy(ctx context.Context, tenant string) (eval.TenantPolicy, bool, error) {
	if cp, ok := c.Policies.(ContextPolicies); ok {
		p, found, err := cp.PolicyContext(ctx, tenant)
		if err != nil {
			return eval.TenantPolicy{}, false, fmt.Errorf("reading the policy of tenant %q: %w", tenant, err)
		}
		return p, found, nil
	}
	p, found := c.Policies.Policy(tenant)
	return p, found, nil
}
