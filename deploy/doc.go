// Package deploy holds Sentinel's deployment configuration (Envoy, compose, Kubernetes, PostgreSQL
// grants, the collector and the egress ACL) and the tests that keep it honest: every file parses,
// carries the fields it needs, routes on headers without parsing bodies, and names only flags the
// programs really have. There is no Go code to import here.
package deploy
