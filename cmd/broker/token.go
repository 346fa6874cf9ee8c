package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcp-sentinel/sentinel/broker/auth"
)

func newTokenCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Create development keys and tokens",
	}
	cmd.AddCommand(newKeygenCmd(), newMintCmd())
	return cmd
}

func newKeygenCmd() *cobra.Command {
	var out, alg string
	cmd := &cobra.Command{
		Use:     "keygen --out DIR [--alg ed25519|rsa]",
		Short:   "Write a new key pair (private.pem, public.pem) for local tokens",
		Example: "  broker token keygen --out ./keys",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return errors.New("--out DIR is required")
			}
			priv, pub, err := auth.Keygen(out, alg)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "private key: %s\npublic key: %s\n", priv, pub)
			return err
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "directory to write the key pair to")
	cmd.Flags().StringVar(&alg, "alg", auth.AlgEd25519, "key algorithm: ed25519 or rsa")
	return cmd
}

func newMintCmd() *cobra.Command {
	var o auth.MintOptions
	var key string
	var scopes []string
	cmd := &cobra.Command{
		Use:   "mint --key FILE --audience URI --tenant T --subject S [--ttl D] [--issuer URL]",
		Short: "Print a signed bearer token for local use",
		Example: `  broker token mint --key ./keys/private.pem --issuer https://issuer.local \
    --audience http://127.0.0.1:8080/mcp --tenant acme --subject alice --ttl 1h`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if key == "" {
				return errors.New("--key FILE is required (the private.pem from `broker token keygen`)")
			}
			signer, err := auth.LoadSigningKey(key)
			if err != nil {
				return err
			}
			o.Scopes = scopes
			tok, err := auth.Mint(signer, o)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(cmd.OutOrStdout(), tok)
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&key, "key", "", "PEM private key to sign with")
	fl.StringVar(&o.Issuer, "issuer", "https://issuer.local", "iss claim; must equal auth.issuer in the broker config")
	fl.StringVar(&o.Audience, "audience", "", "aud claim: the broker's canonical URI")
	fl.StringVar(&o.Tenant, "tenant", "", "tenant claim")
	fl.StringVar(&o.Subject, "subject", "", "sub claim")
	fl.DurationVar(&o.TTL, "ttl", time.Hour, "token lifetime")
	fl.StringSliceVar(&scopes, "scope", nil, "scopes to include (repeatable)")
	return cmd
}
