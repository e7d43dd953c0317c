package tracing_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"net"
	"sort"
	"strings"
	"sync"
	"testing"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonv1 "go.opentelemetry.io/proto/otlp/common/v1"
	tracev1 "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// receiver is an OTLP/gRPC trace collector: it keeps every export request
// as it arrived.
type receiver struct {
	collectortrace.UnimplementedTraceServiceServer
	addr string

	mu       sync.Mutex
	requests []*collectortrace.ExportTraceServiceRequest
}

// startReceiver serves the OTLP trace service on a free local port until the
// test ends.
func startReceiver(t *testing.T) *receiver {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &receiver{addr: lis.Addr().String()}
	srv := grpc.NewServer()
	collectortrace.RegisterTraceServiceServer(srv, r)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	return r
}

// Export implements the OTLP trace service.
func (r *receiver) Export(_ context.Context, req *collectortrace.ExportTraceServiceRequest) (*collectortrace.ExportTraceServiceResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests = append(r.requests, proto.Clone(req).(*collectortrace.ExportTraceServiceRequest))
	return &collectortrace.ExportTraceServiceResponse{}, nil
}

// received returns the export requests so far and every span in them.
func (r *receiver) received() ([]*collectortrace.ExportTraceServiceRequest, *forest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f := &forest{byID: map[string]*tracev1.Span{}, children: map[string][]*tracev1.Span{}}
	for _, req := range r.requests {
		for _, rs := range req.GetResourceSpans() {
			for _, ss := range rs.GetScopeSpans() {
				for _, s := range ss.GetSpans() {
					f.all = append(f.all, s)
					f.byID[id(s.GetSpanId())] = s
				}
			}
		}
	}
	sort.Slice(f.all, func(i, j int) bool { return f.all[i].GetStartTimeUnixNano() < f.all[j].GetStartTimeUnixNano() })
	for _, s := range f.all {
		if p := id(s.GetParentSpanId()); p != "" {
			f.children[p] = append(f.children[p], s)
		}
	}
	return append([]*collectortrace.ExportTraceServiceRequest(nil), r.requests...), f
}

// forest is the spans received, indexed by span ID and by parent.
type forest struct {
	all      []*tracev1.Span // by start time
	byID     map[string]*tracev1.Span
	children map[string][]*tracev1.Span
}

func id(b []byte) string { return hex.EncodeToString(b) }

// parent is the span's parent among those received, nil for a root or a
// parent not received.
func (f *forest) parent(s *tracev1.Span) *tracev1.Span {
	return f.byID[id(s.GetParentSpanId())]
}

// named returns the spans with the name whose attributes have the values
// given (key, value, key, value ...), by start time.
func (f *forest) named(name string, kv ...string) []*tracev1.Span {
	var out []*tracev1.Span
	for _, s := range f.all {
		if s.GetName() == name && has(s, kv...) {
			out = append(out, s)
		}
	}
	return out
}

// childrenNamed returns s's children with the name and attribute values.
func (f *forest) childrenNamed(s *tracev1.Span, name string, kv ...string) []*tracev1.Span {
	var out []*tracev1.Span
	for _, c := range f.children[id(s.GetSpanId())] {
		if c.GetName() == name && has(c, kv...) {
			out = append(out, c)
		}
	}
	return out
}

// under reports whether s descends from a span named like one of names
// (a prefix ending with a space matches names beginning with it).
func (f *forest) under(s *tracev1.Span, names ...string) bool {
	for p := f.parent(s); p != nil; p = f.parent(p) {
		for _, n := range names {
			if p.GetName() == n || (strings.HasSuffix(n, " ") && strings.HasPrefix(p.GetName(), n)) {
				return true
			}
		}
	}
	return false
}

func has(s *tracev1.Span, kv ...string) bool {
	for i := 0; i+1 < len(kv); i += 2 {
		if attr(s, kv[i]) != kv[i+1] {
			return false
		}
	}
	return true
}

// attr is an attribute's value as text ("" when absent).
func attr(s *tracev1.Span, key string) string {
	return attrOf(s.GetAttributes(), key)
}

func attrOf(kvs []*commonv1.KeyValue, key string) string {
	for _, kv := range kvs {
		if kv.GetKey() == key {
			return valueText(kv.GetValue())
		}
	}
	return ""
}

func valueText(v *commonv1.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonv1.AnyValue_StringValue:
		return x.StringValue
	case *commonv1.AnyValue_BoolValue:
		return fmt.Sprint(x.BoolValue)
	case *commonv1.AnyValue_IntValue:
		return fmt.Sprint(x.IntValue)
	case *commonv1.AnyValue_DoubleValue:
		return fmt.Sprint(x.DoubleValue)
	case *commonv1.AnyValue_ArrayValue:
		var parts []string
		for _, e := range x.ArrayValue.GetValues() {
			parts = append(parts, valueText(e))
		}
		return strings.Join(parts, ",")
	}
	return ""
}

func isError(s *tracev1.Span) bool {
	return s.GetStatus().GetCode() == tracev1.Status_STATUS_CODE_ERROR
}
func isOK(s *tracev1.Span) bool { return s.GetStatus().GetCode() == tracev1.Status_STATUS_CODE_OK }

// describe is a span for failure messages.
func describe(s *tracev1.Span) string {
	if s == nil {
		return "<none>"
	}
	var attrs []string
	for _, kv := range s.GetAttributes() {
		attrs = append(attrs, kv.GetKey()+"="+valueText(kv.GetValue()))
	}
	return fmt.Sprintf("%q [%s] status %s %q", s.GetName(), strings.Join(attrs, " "), s.GetStatus().GetCode(), s.GetStatus().GetMessage())
}

// names lists the spans' names, for failure messages.
func names(spans []*tracev1.Span) string {
	count := map[string]int{}
	for _, s := range spans {
		count[s.GetName()]++
	}
	var out []string
	for n, c := range count {
		out = append(out, fmt.Sprintf("%s x%d", n, c))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}
