// Package sarifcheck validates SARIF 2.1.0 documents against the official JSON schema, offline.
//
// go-sarif writes whatever it is given, including levels the format does not allow, so every
// package that emits SARIF validates its output in its tests through [Validate]. The schema is
// embedded (sarif-2.1.0.json, taken from the SARIF multitool package) and compiled once; no
// network lookup ever happens: the compiler's loader refuses every URL it was not handed.
//
// sarifcheck is a test helper for the harness; it imports nothing of Sentinel's and must never
// import broker or fixtures.
package sarifcheck

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaURL is the URL the embedded schema is registered under, and the value Sentinel's SARIF
// writes as "$schema". The schema file carries no $id of its own, so this is the name it is known
// by in the SARIF ecosystem.
const SchemaURL = "https://json.schemastore.org/sarif-2.1.0.json"

//go:embed sarif-2.1.0.json
var schemaJSON []byte

var (
	compileOnce sync.Once
	compiled    *jsonschema.Schema
	compileErr  error
)

// errNoNetwork is what the loader answers for any URL other than the embedded schema's.
var errNoNetwork = errors.New("sarifcheck resolves only the embedded SARIF schema; remote references are refused")

type offlineLoader struct{}

func (offlineLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("loading %s: %w", url, errNoNetwork)
}

func schema() (*jsonschema.Schema, error) {
	compileOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
		if err != nil {
			compileErr = fmt.Errorf("parsing the embedded SARIF schema: %w", err)
			return
		}
		c := jsonschema.NewCompiler()
		c.UseLoader(offlineLoader{})
		c.AssertFormat()
		if err := c.AddResource(SchemaURL, doc); err != nil {
			compileErr = fmt.Errorf("registering the embedded SARIF schema: %w", err)
			return
		}
		compiled, compileErr = c.Compile(SchemaURL)
		if compileErr != nil {
			compileErr = fmt.Errorf("compiling the embedded SARIF schema: %w", compileErr)
		}
	})
	return compiled, compileErr
}

// Validate reports whether data is one well-formed SARIF 2.1.0 log: nil when it is, otherwise an
// error naming every place the document breaks the schema (format keywords such as "uri" are
// asserted too). It is safe for concurrent use.
func Validate(data []byte) error {
	sch, err := schema()
	if err != nil {
		return err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("validating SARIF: the document is not JSON: %w", err)
	}
	if err := sch.Validate(doc); err != nil {
		return fmt.Errorf("validating SARIF against the 2.1.0 schema: %w", err)
	}
	return nil
}
