package deploy

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// bodyParsingFilters are Envoy HTTP filters that read or buffer request bodies. The Envoy config
// must route and authorize on MCP headers alone, so none of these may appear anywhere in it.
var bodyParsingFilters = []string{
	"envoy.filters.http.buffer",
	"envoy.filters.http.ext_proc",
	"envoy.filters.http.ext_authz", // may forward bodies (with_request_body)
	"envoy.filters.http.lua",
	"envoy.filters.http.wasm",
	"envoy.filters.http.json_to_metadata",
	"envoy.filters.http.grpc_json_transcoder",
	"envoy.filters.http.golang",
	"envoy.filters.http.file_system_buffer",
	"envoy.filters.http.mcp",
}

// allowedFilters are the only HTTP filters the config may use: each one looks at headers only.
var allowedFilters = []string{
	"envoy.filters.http.rbac",
	"envoy.filters.http.router",
	"envoy.filters.http.jwt_authn",
	"envoy.filters.http.local_ratelimit",
	"envoy.filters.http.cors",
	"envoy.filters.http.header_to_metadata",
	"envoy.filters.http.health_check",
}

func loadYAMLDocs(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []map[string]any
	for {
		var doc map[string]any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("parsing %s: %v", path, err)
		}
		if doc != nil {
			docs = append(docs, doc)
		}
	}
	if len(docs) == 0 {
		t.Fatalf("%s holds no YAML document", path)
	}
	return docs
}

// walk calls fn for every map in v, depth first, with the key path that leads to it.
func walk(v any, path string, fn func(path string, m map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		fn(path, x)
		for k, c := range x {
			walk(c, path+"."+k, fn)
		}
	case []any:
		for _, c := range x {
			walk(c, path+"[]", fn)
		}
	}
}

// envoyProblems returns what is wrong with an Envoy config: body-parsing filters, unknown filters,
// and routes that do not use the MCP routing headers.
func envoyProblems(doc map[string]any) []string {
	var problems []string
	headerRoutes, rbacHeaders := 0, 0
	walk(doc, "", func(path string, m map[string]any) {
		if name, ok := m["name"].(string); ok && strings.HasPrefix(name, "envoy.filters.http.") {
			switch {
			case slices.Contains(bodyParsingFilters, name):
				problems = append(problems, "body-parsing filter "+name+" at "+path)
			case !slices.Contains(allowedFilters, name):
				problems = append(problems, "filter "+name+" is not on the header-only allowlist")
			}
		}
		if _, ok := m["with_request_body"]; ok {
			problems = append(problems, "with_request_body at "+path)
		}
		if strings.HasSuffix(path, ".match") {
			if hs, ok := m["headers"].([]any); ok {
				for _, h := range hs {
					if hm, ok := h.(map[string]any); ok && strings.EqualFold(hm["name"].(string), "mcp-method") {
						headerRoutes++
					}
				}
			}
		}
		if strings.Contains(path, "rbac") || strings.Contains(path, "permissions") {
			if h, ok := m["header"].(map[string]any); ok && strings.HasPrefix(strings.ToLower(h["name"].(string)), "mcp-") {
				rbacHeaders++
			}
		}
	})
	if headerRoutes == 0 {
		problems = append(problems, "no route matches on the Mcp-Method header")
	}
	if rbacHeaders == 0 {
		problems = append(problems, "no RBAC permission uses an MCP routing header")
	}
	sort.Strings(problems)
	return problems
}

func TestEnvoyRoutesOnHeadersWithoutParsingBodies(t *testing.T) {
	docs := loadYAMLDocs(t, "envoy/envoy.yaml")
	if p := envoyProblems(docs[0]); len(p) > 0 {
		t.Errorf("envoy/envoy.yaml:\n%s", strings.Join(p, "\n"))
	}
}

// TestEnvoyCheckCatchesBodyParsing shows the check can fail: a config with a Lua filter and no
// header routing is rejected on all three counts.
func TestEnvoyCheckCatchesBodyParsing(t *testing.T) {
	var doc map[string]any
	bad := `
static_resources:
  listeners:
    - filter_chains:
        - filters:
            - typed_config:
                route_config:
                  virtual_hosts:
                    - routes:
                        - match: { prefix: / }
                http_filters:
                  - name: envoy.filters.http.lua
                  - name: envoy.filters.http.router
`
	if err := yaml.Unmarshal([]byte(bad), &doc); err != nil {
		t.Fatal(err)
	}
	got := envoyProblems(doc)
	want := []string{
		"body-parsing filter envoy.filters.http.lua at .static_resources.listeners[].filter_chains[].filters[].typed_config.http_filters[]",
		"no RBAC permission uses an MCP routing header",
		"no route matches on the Mcp-Method header",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("envoyProblems(bad) =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestComposeHasTheFleet(t *testing.T) {
	doc := loadYAMLDocs(t, "compose/compose.yaml")[0]
	services, _ := doc["services"].(map[string]any)
	for _, name := range []string{"postgres", "broker-1", "broker-2", "envoy", "smokescreen", "otel-collector", "sentinel-proxy"} {
		if _, ok := services[name]; !ok {
			t.Errorf("compose.yaml: service %q missing", name)
		}
	}
	for _, name := range []string{"broker-1", "broker-2"} {
		s, _ := services[name].(map[string]any)
		env, _ := s["environment"].(map[string]any)
		if env["HTTPS_PROXY"] == nil || !strings.Contains(env["HTTPS_PROXY"].(string), "smokescreen") {
			t.Errorf("compose.yaml: %s must send judge calls through smokescreen (HTTPS_PROXY)", name)
		}
	}
}

func TestKubernetesManifests(t *testing.T) {
	kinds := map[string]int{}
	for _, f := range []string{"k8s/broker.yaml", "k8s/sentinel-proxy.yaml"} {
		for _, doc := range loadYAMLDocs(t, f) {
			kind, _ := doc["kind"].(string)
			kinds[kind]++
			for _, field := range []string{"apiVersion", "kind", "metadata"} {
				if doc[field] == nil {
					t.Errorf("%s: a %s document lacks %s", f, kind, field)
				}
			}
			if kind != "Deployment" {
				continue
			}
			walk(doc, "", func(path string, m map[string]any) {
				if _, isContainer := m["image"]; !isContainer {
					return
				}
				for _, p := range []string{"readinessProbe", "livenessProbe", "resources"} {
					if m[p] == nil {
						t.Errorf("%s: container %v lacks %s", f, m["name"], p)
					}
				}
			})
		}
	}
	for _, k := range []string{"Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget", "Secret"} {
		if kinds[k] == 0 {
			t.Errorf("no %s among the Kubernetes manifests", k)
		}
	}
}

var flagRE = regexp.MustCompile(`^--([a-z0-9-]+)`)

// commandFlags collects, per command path ("broker serve", "sentinel findings list"), the flags
// that the deployment files pass to our own programs.
func commandFlags(t *testing.T) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	add := func(args []string) {
		if len(args) < 2 || (args[0] != "sentinel" && args[0] != "broker") {
			return // third-party programs (envoy, smokescreen, the collector) have their own docs
		}
		// The command path is every leading word before the first flag: "sentinel findings list".
		n := 1
		for n < len(args) && !strings.HasPrefix(args[n], "-") {
			n++
		}
		key := strings.Join(args[:n], " ")
		for _, a := range args[n:] {
			if m := flagRE.FindStringSubmatch(a); m != nil {
				if out[key] == nil {
					out[key] = map[string]bool{}
				}
				out[key][m[1]] = true
			}
		}
	}
	for _, f := range []string{"compose/compose.yaml", "k8s/broker.yaml", "k8s/sentinel-proxy.yaml"} {
		for _, doc := range loadYAMLDocs(t, f) {
			walk(doc, "", func(_ string, m map[string]any) {
				var argv []string
				for _, k := range []string{"command", "args"} {
					if l, ok := m[k].([]any); ok {
						for _, x := range l {
							if s, ok := x.(string); ok {
								argv = append(argv, s)
							}
						}
					}
				}
				add(argv)
			})
		}
	}
	return out
}

// TestDeployFlagsExist builds the programs and checks that every flag a deployment file passes is
// one the program's --help lists: configs may not drift from the code.
func TestDeployFlagsExist(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the programs")
	}
	bin := t.TempDir()
	build := exec.CommandContext(t.Context(), "go", "build", "-o", bin+"/", "../cmd/sentinel", "../cmd/sentinel-proxy", "../cmd/broker")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the programs: %v\n%s", err, out)
	}
	used := commandFlags(t)
	if len(used) == 0 {
		t.Fatal("found no commands in the deployment files")
	}
	for cmdline, flags := range used {
		parts := strings.Fields(cmdline)
		help, err := exec.CommandContext(t.Context(), filepath.Join(bin, parts[0]), append(parts[1:], "--help")...).CombinedOutput()
		if err != nil {
			t.Errorf("%s --help: %v\n%s", cmdline, err, help)
			continue
		}
		for f := range flags {
			if !strings.Contains(string(help), "--"+f) {
				t.Errorf("deployment files pass --%s to %q, which its --help does not list", f, cmdline)
			}
		}
	}
}
