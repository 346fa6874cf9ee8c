package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcp-sentinel/sentinel/proxy"
)

func init() { register(newCACommand, "ca") }

// defaultCADir is where `sentinel ca init` writes and `sentinel proxy --mitm` reads the CA.
func defaultCADir() string {
	if d, err := os.UserConfigDir(); err == nil {
		return filepath.Join(d, "sentinel")
	}
	return ".sentinel"
}

func caPaths(dir string) (cert, key string) {
	return filepath.Join(dir, "ca.pem"), filepath.Join(dir, "ca-key.pem")
}

func newCACommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ca",
		Short: "Manage the interception CA that `sentinel proxy --mitm` signs certificates with",
	}
	cmd.AddCommand(newCAInitCommand())
	return cmd
}

func newCAInitCommand() *cobra.Command {
	var dir, name string
	var validity time.Duration
	var force bool
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Create your own CA for HTTPS interception (never a shared public one)",
		Long: `Create an ECDSA P-256 CA certificate and key for ` + "`sentinel proxy --mitm`" + `. The key is written
with mode 0600. Trust ca.pem only in the client you are auditing (for example NODE_EXTRA_CA_CERTS
or SSL_CERT_FILE), never system-wide, and delete the folder when you are done.`,
		Example: `  sentinel ca init
  sentinel ca init --dir ./ca --validity 720h`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			certFile, keyFile := caPaths(dir)
			if !force {
				if _, err := os.Stat(keyFile); err == nil {
					return fmt.Errorf("%s already exists: pass --force to replace it", keyFile)
				}
			}
			certPEM, keyPEM, err := proxy.NewCA(name, validity, time.Now())
			if err != nil {
				return err
			}
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return fmt.Errorf("creating %s: %w", dir, err)
			}
			if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
				return fmt.Errorf("writing the CA key: %w", err)
			}
			if err := os.WriteFile(certFile, certPEM, 0o644); err != nil {
				return fmt.Errorf("writing the CA certificate: %w", err)
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "wrote %s and %s\ntrust %s in the audited client only\n", certFile, keyFile, certFile)
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "dir", defaultCADir(), "folder to write ca.pem and ca-key.pem into")
	f.StringVar(&name, "name", "sentinel local interception CA", "the CA certificate's common name")
	f.DurationVar(&validity, "validity", proxy.DefaultCAValidity, "how long the CA stays valid")
	f.BoolVar(&force, "force", false, "replace an existing CA")
	return cmd
}
