package telemetry

import (
	"encoding/binary"
	"math"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// The protobuf encoding of an OTLP ExportTraceServiceRequest, field by field as
// opentelemetry-proto's trace/v1, common/v1 and resource/v1 define them. Only what a span of the
// SDK carries is written; empty fields are left out, as protobuf does.

// Protobuf wire types.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

// pb is a protobuf message being written.
type pb struct{ b []byte }

func (m *pb) tag(field, wt int) { m.b = binary.AppendUvarint(m.b, uint64(field)<<3|uint64(wt)) }

func (m *pb) varint(field int, v uint64) {
	if v != 0 {
		m.tag(field, wireVarint)
		m.b = binary.AppendUvarint(m.b, v)
	}
}

func (m *pb) fixed64(field int, v uint64) {
	if v != 0 {
		m.tag(field, wireFixed64)
		m.b = binary.LittleEndian.AppendUint64(m.b, v)
	}
}

func (m *pb) fixed32(field int, v uint32) {
	if v != 0 {
		m.tag(field, wireFixed32)
		m.b = binary.LittleEndian.AppendUint32(m.b, v)
	}
}

func (m *pb) bytes(field int, v []byte) {
	if len(v) > 0 {
		m.tag(field, wireBytes)
		m.b = binary.AppendUvarint(m.b, uint64(len(v)))
		m.b = append(m.b, v...)
	}
}

func (m *pb) str(field int, s string) { m.bytes(field, []byte(s)) }

// msg writes a nested message, even an empty one (an empty AnyValue still says "a value").
func (m *pb) msg(field int, sub pb) {
	m.tag(field, wireBytes)
	m.b = binary.AppendUvarint(m.b, uint64(len(sub.b)))
	m.b = append(m.b, sub.b...)
}

// encodeExport encodes spans as one ExportTraceServiceRequest: spans grouped by resource, then by
// instrumentation scope, in the order they came.
func encodeExport(spans []sdktrace.ReadOnlySpan) []byte {
	type scopeGroup struct {
		scope instrumentation.Scope
		spans []sdktrace.ReadOnlySpan
	}
	type resourceGroup struct {
		res    *resource.Resource
		scopes []*scopeGroup
	}
	var groups []*resourceGroup
	for _, s := range spans {
		var rg *resourceGroup
		for _, g := range groups {
			if g.res == s.Resource() {
				rg = g
			}
		}
		if rg == nil {
			rg = &resourceGroup{res: s.Resource()}
			groups = append(groups, rg)
		}
		var sg *scopeGroup
		for _, g := range rg.scopes {
			if g.scope == s.InstrumentationScope() {
				sg = g
			}
		}
		if sg == nil {
			sg = &scopeGroup{scope: s.InstrumentationScope()}
			rg.scopes = append(rg.scopes, sg)
		}
		sg.spans = append(sg.spans, s)
	}
	var req pb
	for _, rg := range groups {
		var rs pb // ResourceSpans
		var res pb
		if rg.res != nil {
			for _, kv := range rg.res.Attributes() {
				res.msg(1, keyValue(kv))
			}
		}
		rs.msg(1, res)
		for _, sg := range rg.scopes {
			var ss pb // ScopeSpans
			var scope pb
			scope.str(1, sg.scope.Name)
			scope.str(2, sg.scope.Version)
			ss.msg(1, scope)
			for _, s := range sg.spans {
				ss.msg(2, encodeSpan(s))
			}
			ss.str(3, sg.scope.SchemaURL)
			rs.msg(2, ss)
		}
		if rg.res != nil {
			rs.str(3, rg.res.SchemaURL())
		}
		req.msg(1, rs)
	}
	return req.b
}

// encodeSpan encodes one Span.
func encodeSpan(s sdktrace.ReadOnlySpan) pb {
	var m pb
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	m.bytes(1, tid[:])
	m.bytes(2, sid[:])
	m.str(3, sc.TraceState().String())
	if p := s.Parent(); p.SpanID().IsValid() {
		psid := p.SpanID()
		m.bytes(4, psid[:])
	}
	m.str(5, s.Name())
	m.varint(6, uint64(spanKind(s.SpanKind())))
	m.fixed64(7, unixNano(s.StartTime().UnixNano()))
	m.fixed64(8, unixNano(s.EndTime().UnixNano()))
	for _, kv := range s.Attributes() {
		m.msg(9, keyValue(kv))
	}
	m.varint(10, uint64(max(s.DroppedAttributes(), 0)))
	for _, ev := range s.Events() {
		var e pb
		e.fixed64(1, unixNano(ev.Time.UnixNano()))
		e.str(2, ev.Name)
		for _, kv := range ev.Attributes {
			e.msg(3, keyValue(kv))
		}
		e.varint(4, uint64(max(ev.DroppedAttributeCount, 0)))
		m.msg(11, e)
	}
	m.varint(12, uint64(max(s.DroppedEvents(), 0)))
	for _, l := range s.Links() {
		var lk pb
		ltid, lsid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
		lk.bytes(1, ltid[:])
		lk.bytes(2, lsid[:])
		lk.str(3, l.SpanContext.TraceState().String())
		for _, kv := range l.Attributes {
			lk.msg(4, keyValue(kv))
		}
		lk.varint(5, uint64(max(l.DroppedAttributeCount, 0)))
		m.msg(13, lk)
	}
	m.varint(14, uint64(max(s.DroppedLinks(), 0)))
	var st pb
	st.str(2, s.Status().Description)
	st.varint(3, uint64(statusCode(s)))
	m.msg(15, st)
	m.fixed32(16, uint32(sc.TraceFlags()))
	return m
}

func unixNano(n int64) uint64 {
	if n < 0 {
		return 0
	}
	return uint64(n)
}

// spanKind maps the API's kinds to OTLP's SpanKind (which counts UNSPECIFIED as 0).
func spanKind(k trace.SpanKind) int {
	switch k {
	case trace.SpanKindInternal:
		return 1
	case trace.SpanKindServer:
		return 2
	case trace.SpanKindClient:
		return 3
	case trace.SpanKindProducer:
		return 4
	case trace.SpanKindConsumer:
		return 5
	default:
		return 0 // SpanKindUnspecified and any kind added later
	}
}

// statusCode maps the span status to OTLP's StatusCode (UNSET 0, OK 1, ERROR 2).
func statusCode(s sdktrace.ReadOnlySpan) int {
	switch s.Status().Code {
	case codes.Ok:
		return 1
	case codes.Error:
		return 2
	default:
		return 0 // codes.Unset
	}
}

// keyValue encodes one attribute as a KeyValue.
func keyValue(kv attribute.KeyValue) pb {
	var m pb
	m.str(1, string(kv.Key))
	m.msg(2, anyValue(kv.Value))
	return m
}

// anyValue encodes an attribute value as an AnyValue (slices as an ArrayValue).
func anyValue(v attribute.Value) pb {
	var m pb
	switch v.Type() {
	case attribute.STRING:
		m.tag(1, wireBytes) // an empty string is still a string value
		s := v.AsString()
		m.b = binary.AppendUvarint(m.b, uint64(len(s)))
		m.b = append(m.b, s...)
	case attribute.BOOL:
		m.tag(2, wireVarint)
		if v.AsBool() {
			m.b = append(m.b, 1)
		} else {
			m.b = append(m.b, 0)
		}
	case attribute.INT64:
		m.tag(3, wireVarint)
		m.b = binary.AppendUvarint(m.b, uint64(v.AsInt64()))
	case attribute.FLOAT64:
		m.tag(4, wireFixed64)
		m.b = binary.LittleEndian.AppendUint64(m.b, math.Float64bits(v.AsFloat64()))
	case attribute.STRINGSLICE, attribute.BOOLSLICE, attribute.INT64SLICE, attribute.FLOAT64SLICE:
		var arr pb
		for _, e := range sliceValues(v) {
			arr.msg(1, anyValue(e))
		}
		m.msg(5, arr)
	default:
		m.tag(1, wireBytes)
		s := v.String()
		m.b = binary.AppendUvarint(m.b, uint64(len(s)))
		m.b = append(m.b, s...)
	}
	return m
}

// sliceValues splits a slice attribute into its elements.
func sliceValues(v attribute.Value) []attribute.Value {
	var out []attribute.Value
	switch v.Type() {
	case attribute.STRINGSLICE:
		for _, s := range v.AsStringSlice() {
			out = append(out, attribute.StringValue(s))
		}
	case attribute.BOOLSLICE:
		for _, b := range v.AsBoolSlice() {
			out = append(out, attribute.BoolValue(b))
		}
	case attribute.INT64SLICE:
		for _, n := range v.AsInt64Slice() {
			out = append(out, attribute.Int64Value(n))
		}
	case attribute.FLOAT64SLICE:
		for _, f := range v.AsFloat64Slice() {
			out = append(out, attribute.Float64Value(f))
		}
	default:
		// a scalar value is not a slice: no elements
	}
	return out
}
