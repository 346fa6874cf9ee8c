package active

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// paramRuleNames are the Mcp-Param-* rules; they need a tool whose inputSchema marks arguments
// with x-mcp-header, and that the scan may call (a server that fails to validate would run it).
var paramRuleNames = []string{
	"param-header-missing", "param-header-body-match", "param-header-invalid-chars",
	"param-header-not-for-null", "param-integer-numeric",
}

// paramProbes cover the headers that mirror x-mcp-header tool arguments.
func paramProbes() []Probe {
	// x-mcp-header-valid is judged by the passive check on tools/list; citing it here makes it
	// n/a on a server none of whose tools declares an x-mcp-header.
	return []Probe{{Name: "mcp-param-headers", RuleIDs: ids(append([]string{"x-mcp-header-valid"}, paramRuleNames...)...), Requires: rules.FeatureHeaderParams, Run: probeParamHeaders}}
}

// paramTool is a callable tool with x-mcp-header arguments and the types of those arguments.
type paramTool struct {
	name    string
	def     json.RawMessage
	str     string // header name of a string argument ("" when none)
	strArg  string
	intH    string // header name of an integer argument ("" when none)
	intArg  string
	anyH    string // the first header, whatever its type
	anyArg  string
	anyType string
	params  map[string]string // every header name -> argument name
}

func findParamTool(t *Target) (paramTool, bool) {
	callable := map[string]bool{}
	for _, n := range t.Callable {
		callable[n] = true
	}
	for _, tl := range t.Tools {
		if !callable[tl.Name] || len(tl.HeaderParams) == 0 {
			continue
		}
		var def struct {
			InputSchema struct {
				Properties map[string]struct {
					Type string `json:"type"`
				} `json:"properties"`
			} `json:"inputSchema"`
		}
		_ = wire.Decode(tl.Raw, &def)
		pt := paramTool{name: tl.Name, def: tl.Raw, params: tl.HeaderParams}
		headers := make([]string, 0, len(tl.HeaderParams))
		for h := range tl.HeaderParams {
			headers = append(headers, h)
		}
		sort.Strings(headers)
		for _, h := range headers {
			arg := tl.HeaderParams[h]
			ty := def.InputSchema.Properties[arg].Type
			switch {
			case ty == "string" && pt.str == "":
				pt.str, pt.strArg = h, arg
			case ty == "integer" && pt.intH == "":
				pt.intH, pt.intArg = h, arg
			}
			if pt.anyH == "" && (ty == "string" || ty == "integer" || ty == "boolean") {
				pt.anyH, pt.anyArg, pt.anyType = h, arg, ty
			}
		}
		if pt.anyH != "" {
			return pt, true
		}
	}
	return paramTool{}, false
}

// sample is a plain value of the argument's type and its header form.
func sample(ty string) (any, string) {
	switch ty {
	case "integer":
		return 42, "42"
	case "boolean":
		return true, "true"
	}
	return "sentinel-value", "sentinel-value"
}

// probeParamHeaders: "Any server that processes the message body MUST validate that encoded
// header values, after decoding if Base64-encoded, match the corresponding values in the request
// body ... reject requests with 400 and -32020", must reject a value in the body whose header is
// missing and a header with invalid characters, must not expect the header for a null or absent
// argument, and SHOULD compare integers numerically.
func probeParamHeaders(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	pt, ok := findParamTool(t)
	if !ok {
		why := "no tool the scan may call declares an x-mcp-header argument of type string, integer or boolean: name one with --allow-call (a server that fails to validate would run it)"
		return each(ids(paramRuleNames...), func(id string) rules.Outcome { return rules.Undecided(id, why) }), nil
	}
	val, hv := sample(pt.anyType)
	// call sends tools/call with every x-mcp-header argument mirrored correctly except skip,
	// the header under test, which opts set (or leave out).
	call := func(label string, args map[string]any, raw bool, skip string, opts ...wire.CallOption) *wire.Exchange {
		opts = append(otherParamHeaders(pt, args, skip), opts...)
		spec := wire.NewCall("tools/call", map[string]any{"name": pt.name, "arguments": args}, append(opts, wire.WithLabel(label))...)
		if raw {
			return t.SendRaw(ctx, spec)
		}
		return t.Send(ctx, spec)
	}
	args := func(v any) map[string]any {
		a := MinimalArguments(pt.def)
		a[pt.anyArg] = v
		return a
	}
	hdr := wire.ParamHeader(pt.anyH)
	ctlLabel := fmt.Sprintf("tools/call %s with %s=%v and %s: %s", pt.name, pt.anyArg, val, hdr, hv)
	ctl := call(ctlLabel, args(val), false, pt.anyH, wire.WithHeader(hdr, hv))
	if c := notRejectedAs("", ctlLabel, ctl, wire.CodeHeaderMismatch); c.Status != rules.Pass {
		why := c.Observed + c.Why + "; a correct header was refused, so the refusals below would prove nothing"
		return each(ids(paramRuleNames...), func(id string) rules.Outcome { return stamp(rules.Undecided(id, why), ctl) }), nil
	}
	var out []rules.Outcome
	l := fmt.Sprintf("tools/call %s with %s=%v and no %s", pt.name, pt.anyArg, val, hdr)
	out = append(out, reject(rules.IDOf("param-header-missing"), l, call(l, args(val), false, pt.anyH), http.StatusBadRequest, wire.CodeHeaderMismatch))

	other := "sentinel-other"
	switch pt.anyType {
	case "integer":
		other = "43"
	case "boolean":
		other = "false"
	}
	l = fmt.Sprintf("tools/call %s with %s=%v and %s: %s", pt.name, pt.anyArg, val, hdr, other)
	out = append(out, reject(rules.IDOf("param-header-body-match"), l, call(l, args(val), false, pt.anyH, wire.WithHeader(hdr, other)), http.StatusBadRequest, wire.CodeHeaderMismatch))

	inv := rules.IDOf("param-header-invalid-chars")
	if pt.str != "" {
		// A raw non-ASCII value: the value-encoding rules say it must travel base64-wrapped. (A
		// control character would be refused by most HTTP stacks before the server sees it.)
		bad := "sentinel-välue"
		a := MinimalArguments(pt.def)
		a[pt.strArg] = bad
		l = fmt.Sprintf("tools/call %s with %s=%q and %s carrying it as raw UTF-8 instead of base64 (written raw)", pt.name, pt.strArg, bad, wire.ParamHeader(pt.str))
		out = append(out, reject(inv, l, call(l, a, true, pt.str, wire.WithHeader(wire.ParamHeader(pt.str), bad)), http.StatusBadRequest, wire.CodeHeaderMismatch))
	} else {
		out = append(out, rules.Undecided(inv, "the callable tool has no string x-mcp-header argument to carry an invalid character"))
	}

	nul := rules.IDOf("param-header-not-for-null")
	l = fmt.Sprintf("tools/call %s with %s=null and no %s", pt.name, pt.anyArg, hdr)
	out = append(out, notRejectedAs(nul, l, call(l, args(nil), false, pt.anyH), wire.CodeHeaderMismatch))
	absent := MinimalArguments(pt.def)
	delete(absent, pt.anyArg)
	l = fmt.Sprintf("tools/call %s without %s and no %s", pt.name, pt.anyArg, hdr)
	out = append(out, notRejectedAs(nul, l, call(l, absent, false, pt.anyH), wire.CodeHeaderMismatch))

	num := rules.IDOf("param-integer-numeric")
	if pt.intH != "" {
		a := MinimalArguments(pt.def)
		a[pt.intArg] = 42
		l = fmt.Sprintf("tools/call %s with %s=42 and %s: 42.0", pt.name, pt.intArg, wire.ParamHeader(pt.intH))
		out = append(out, notRejectedAs(num, l, call(l, a, false, pt.intH, wire.WithHeader(wire.ParamHeader(pt.intH), "42.0")), wire.CodeHeaderMismatch))
	} else {
		out = append(out, rules.Absent(num, "the callable tool has no integer x-mcp-header argument"))
	}
	return out, nil
}

// otherParamHeaders mirrors every x-mcp-header argument present in args except the one under
// test, so that only the header under test is wrong.
func otherParamHeaders(pt paramTool, args map[string]any, skip string) []wire.CallOption {
	var opts []wire.CallOption
	for h, arg := range pt.params {
		if h == skip {
			continue
		}
		v, ok := args[arg]
		if !ok || v == nil {
			continue
		}
		opts = append(opts, wire.WithHeader(wire.ParamHeader(h), wire.EncodeHeaderValue(fmt.Sprint(v))))
	}
	return opts
}
