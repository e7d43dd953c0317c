package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
)

// Series is one sample of the Prometheus text format.
type Series struct {
	Name   string
	Labels map[string]string
	Value  float64
}

// Metrics is a scrape.
type Metrics []Series

// Sum adds the samples of name whose labels include every pair of match.
func (m Metrics) Sum(name string, match map[string]string) float64 {
	var total float64
next:
	for _, s := range m {
		if s.Name != name {
			continue
		}
		for k, v := range match {
			if s.Labels[k] != v {
				continue next
			}
		}
		total += s.Value
	}
	return total
}

// ParseMetrics reads the Prometheus text exposition format (what
// controller-runtime and kube-apiserver serve); comments are skipped.
func ParseMetrics(r io.Reader) (Metrics, error) {
	var out Metrics
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		s := Series{Labels: map[string]string{}}
		rest := line
		if i := strings.IndexByte(line, '{'); i >= 0 {
			j := strings.LastIndexByte(line, '}')
			if j < i {
				return nil, fmt.Errorf("metrics: malformed line %q", line)
			}
			s.Name = line[:i]
			if err := parseLabels(line[i+1:j], s.Labels); err != nil {
				return nil, fmt.Errorf("metrics: %q: %w", line, err)
			}
			rest = strings.TrimSpace(line[j+1:])
		} else {
			name, value, _ := strings.Cut(line, " ")
			s.Name, rest = name, value
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return nil, fmt.Errorf("metrics: no value in %q", line)
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			return nil, fmt.Errorf("metrics: %q: %w", line, err)
		}
		s.Value = v
		out = append(out, s)
	}
	return out, sc.Err()
}

func parseLabels(s string, into map[string]string) error {
	for s = strings.TrimSpace(s); s != ""; {
		eq := strings.IndexByte(s, '=')
		if eq < 0 || eq+1 >= len(s) || s[eq+1] != '"' {
			return fmt.Errorf("bad label list %q", s)
		}
		key := strings.TrimSpace(s[:eq])
		var val strings.Builder
		i := eq + 2
		for ; i < len(s) && s[i] != '"'; i++ {
			if s[i] == '\\' && i+1 < len(s) {
				i++
				switch s[i] {
				case 'n':
					val.WriteByte('\n')
				default:
					val.WriteByte(s[i])
				}
				continue
			}
			val.WriteByte(s[i])
		}
		if i >= len(s) {
			return fmt.Errorf("unterminated label value in %q", s)
		}
		into[key] = val.String()
		s = strings.TrimLeft(strings.TrimSpace(s[i+1:]), ",")
		s = strings.TrimSpace(s)
	}
	return nil
}

// OperatorMetrics scrapes the operator's metrics endpoint.
func (s *Stack) OperatorMetrics(ctx context.Context) (Metrics, error) {
	return scrape(ctx, s.MetricsURL)
}

func scrape(ctx context.Context, url string) (Metrics, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("operator metrics: %s", resp.Status)
	}
	return ParseMetrics(resp.Body)
}

// APIServerMetrics scrapes kube-apiserver's /metrics as an admin.
func (s *Stack) APIServerMetrics(ctx context.Context) (Metrics, error) {
	cs, err := kubernetes.NewForConfig(s.CP.Config)
	if err != nil {
		return nil, err
	}
	raw, err := cs.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, err
	}
	return ParseMetrics(bytes.NewReader(raw))
}

// TokenRequests is how many ServiceAccount tokens the API server has minted
// (TokenRequest: POST serviceaccounts/token) since it started.
func (m Metrics) TokenRequests() float64 {
	return m.Sum("apiserver_request_total", map[string]string{"resource": "serviceaccounts", "subresource": "token", "verb": "POST"})
}
