package active

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcp-sentinel/sentinel/rules"
	"github.com/mcp-sentinel/sentinel/wire"
)

// maxChangeCalls bounds the tools probeListChanged calls while it listens.
const maxChangeCalls = 4

// listSettle bounds how long probeListChanged waits for the listen stream's first message
// before it calls a tool anyway, so the subscription is in place when the change happens.
const listSettle = 1500 * time.Millisecond

// probeListChanged: servers that declare listChanged SHOULD deliver the list_changed
// notification to listen streams that asked for it. The probe listens for tool and prompt list
// changes, calls the tools the operator allowed that are not read-only (the only ones that may
// change a list), and reads tools/list and prompts/list before and after. A notification passes;
// a list that changed with no notification fails; no change and no notification proves nothing.
func probeListChanged(ctx context.Context, t *Target) ([]rules.Outcome, error) {
	id := rules.IDOf("list-changed-delivered")
	var movers []toolDef
	for _, d := range callableDefs(t) {
		if !t.tool(d.Name).ReadOnly && len(movers) < maxChangeCalls {
			movers = append(movers, d)
		}
	}
	filter := map[string]any{}
	if t.HasCapability("tools.listChanged") {
		filter["toolsListChanged"] = true
	}
	if t.HasCapability("prompts.listChanged") {
		filter["promptsListChanged"] = true
	}
	if len(movers) == 0 || len(filter) == 0 {
		return []rules.Outcome{rules.Undecided(id, "no tool the scan may call could change a list (name one that does with --allow-call), or the server declares no tools/prompts listChanged")}, nil
	}
	before := t.listNames(ctx)
	window := listenWindow
	if dl, ok := ctx.Deadline(); ok && time.Until(dl)/2 < window {
		window = time.Until(dl) / 2
	}
	lctx, cancel := context.WithTimeout(ctx, window)
	defer cancel()
	var listen *wire.Exchange
	acked, done := make(chan struct{}), make(chan struct{})
	var ackOnce sync.Once
	go func() {
		defer close(done)
		listen = t.Call(lctx, "subscriptions/listen", map[string]any{"notifications": filter}, wire.WithLabel("subscriptions/listen for list changes"),
			wire.ReadUntil(func(m *wire.Message) bool {
				ackOnce.Do(func() { close(acked) }) // the first message: the subscription is in place
				return listChanged(m.Method)
			}))
	}()
	// The change must happen after the subscription is in place: wait for the stream's first
	// message (the acknowledgement), or at most listSettle for a server that sends none.
	select {
	case <-acked:
	case <-done:
	case <-time.After(listSettle):
	case <-ctx.Done():
	}
	var called []string
	for _, d := range movers {
		args, _ := t.toolArguments(d.Name, d.InputSchema)
		t.Call(ctx, "tools/call", map[string]any{"name": d.Name, "arguments": args}, wire.WithLabel(fmt.Sprintf("tools/call %q while listening", d.Name)))
		called = append(called, d.Name)
	}
	<-done
	after := t.listNames(ctx)
	label := fmt.Sprintf("subscriptions/listen %v, then tools/call %s", keysOf(filter), strings.Join(called, ", "))
	if cut(listen) && listen.Response == nil {
		return []rules.Outcome{undecidedCut(id, label, listen)}, nil
	}
	for _, m := range listen.Response.Messages {
		if listChanged(m.Method) {
			return []rules.Outcome{stamp(rules.Passed(id, observed(label, listen)+"; "+m.Method+" arrived"), listen)}, nil
		}
	}
	for kind, names := range after {
		if !slices.Equal(names, before[kind]) {
			return []rules.Outcome{stamp(rules.Failed(id, fmt.Sprintf("%s; %s changed from %v to %v, but no list_changed notification arrived within %s",
				observed(label, listen), kind, clipNames(before[kind]), clipNames(names), window.Round(time.Millisecond))), listen)}, nil
		}
	}
	return []rules.Outcome{rules.Undecided(id, fmt.Sprintf("sent %s; no list changed and no notification arrived, which proves nothing", label))}, nil
}

// listNames reads the first page of tools/list and prompts/list (when declared) and returns the
// sorted names of each.
func (t *Target) listNames(ctx context.Context) map[string][]string {
	out := map[string][]string{}
	for _, l := range []struct{ capability, method, member string }{{"tools", "tools/list", "tools"}, {"prompts", "prompts/list", "prompts"}} {
		if !t.HasCapability(l.capability) {
			continue
		}
		ex := t.Call(ctx, l.method, nil, wire.WithLabel(l.method))
		var items []struct {
			Name string `json:"name"`
		}
		if r := resultOf(ex); r != nil && wire.Decode(r[l.member], &items) == nil {
			names := make([]string, 0, len(items))
			for _, it := range items {
				names = append(names, it.Name)
			}
			slices.Sort(names)
			out[l.method] = names
		}
	}
	return out
}

func keysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func clipNames(names []string) []string {
	if len(names) > 8 {
		return append(slices.Clone(names[:8]), "…")
	}
	return names
}

func listChanged(method string) bool {
	return method == "notifications/tools/list_changed" || method == "notifications/prompts/list_changed"
}
