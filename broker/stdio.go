package broker

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-sentinel/sentinel/broker/auth"
)

// ServeStdio serves s over newline-delimited JSON-RPC on in/out until ctx ends or in closes.
// Stdio is local and single-tenant: every call acts as p, which comes from configuration.
func ServeStdio(ctx context.Context, s *mcp.Server, p auth.Principal, in io.ReadCloser, out io.WriteCloser) error {
	if p.Tenant == "" || p.Subject == "" {
		return errors.New("serving stdio: no principal: set stdio.tenant and stdio.subject in the config, or pass --dev")
	}
	t := &mcp.IOTransport{Reader: in, Writer: out}
	err := s.Run(auth.WithPrincipal(ctx, p), t)
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		return fmt.Errorf("serving stdio: %w", err)
	}
	return nil
}
