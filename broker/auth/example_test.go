package auth_test

import (
	"context"
	"fmt"
	"time"

	"github.com/mcp-sentinel/sentinel/broker/auth"
)

// Example mints a development token and verifies it the way the broker's HTTP guard does: the
// principal comes out of the token's claims, never from the request's arguments.
func Example() {
	key, err := auth.GenerateKey(auth.AlgEd25519)
	if err != nil {
		panic(err)
	}
	const canonical = "http://127.0.0.1:8080/mcp"
	tok, err := auth.Mint(key, auth.MintOptions{Issuer: "https://issuer.local", Audience: canonical,
		Tenant: "acme", Subject: "alice", TTL: time.Hour})
	if err != nil {
		panic(err)
	}
	v, err := auth.NewVerifier(auth.VerifierOptions{Issuer: "https://issuer.local", Audience: canonical,
		Keys: auth.KeySet{{Public: key.Public()}}})
	if err != nil {
		panic(err)
	}
	p, err := v.Verify(context.Background(), tok)
	fmt.Println(p.Tenant, p.Subject, err)

	other, _ := auth.Mint(key, auth.MintOptions{Issuer: "https://issuer.local", Audience: "https://other.example/mcp",
		Tenant: "acme", Subject: "alice", TTL: time.Hour})
	_, err = v.Verify(context.Background(), other)
	fmt.Println(err != nil)
	// Output:
	// acme alice <nil>
	// true
}
