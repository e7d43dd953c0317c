package bench

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/aztenant/aztenant/emulator"
)

// EmulatorClient speaks the emulator process's Control API (/_emulator).
type EmulatorClient struct {
	URL       string
	http      *http.Client
	stateFile string
}

// ErrNotFound is the Control API's 404 for a resource.
var ErrNotFound = errors.New("not found in the emulator")

func newEmulatorClient(base string, caPEM []byte, stateFile string) (*EmulatorClient, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, errors.New("the emulator's CA file holds no certificate")
	}
	return &EmulatorClient{URL: base, stateFile: stateFile, http: &http.Client{Timeout: 30 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}}, nil
}

func (c *EmulatorClient) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		raw, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.URL+"/_emulator"+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode == http.StatusNotFound && strings.HasPrefix(path, "/resources/") {
		return ErrNotFound
	}
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s /_emulator%s: %s: %s", method, path, resp.Status, bytes.TrimSpace(raw))
	}
	if out != nil && len(raw) > 0 {
		return json.Unmarshal(raw, out)
	}
	return nil
}

// Health reports whether the emulator answers.
func (c *EmulatorClient) Health(ctx context.Context) error {
	return c.do(ctx, http.MethodGet, "/health", nil, nil)
}

// Seed adds tenants, principals, trusted issuers ...
func (c *EmulatorClient) Seed(ctx context.Context, s emulator.Seed) error {
	return c.do(ctx, http.MethodPost, "/seed", s, nil)
}

// SetFaults replaces the fault configuration (budgets and random draws restart).
func (c *EmulatorClient) SetFaults(ctx context.Context, f emulator.Faults) error {
	return c.do(ctx, http.MethodPut, "/faults", f, nil)
}

// Counters are the emulator's call totals.
func (c *EmulatorClient) Counters(ctx context.Context) (emulator.Counters, error) {
	var out emulator.Counters
	return out, c.do(ctx, http.MethodGet, "/counters", nil, &out)
}

// Audit returns the entries the ring buffer still holds that match f.
func (c *EmulatorClient) Audit(ctx context.Context, f emulator.AuditFilter) ([]emulator.AuditEntry, error) {
	q := url.Values{}
	if f.Since > 0 {
		q.Set("since", strconv.FormatUint(f.Since, 10))
	}
	for k, v := range map[string]string{"service": f.Service, "method": f.Method, "principalId": f.PrincipalID, "clientId": f.ClientID} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if f.Limit > 0 {
		q.Set("limit", strconv.Itoa(f.Limit))
	}
	var out struct{ Value []emulator.AuditEntry }
	return out.Value, c.do(ctx, http.MethodGet, "/audit?"+q.Encode(), nil, &out)
}

// LastSeq is the sequence number of the newest audit entry (0 when empty), a
// cursor for Audit's Since.
func (c *EmulatorClient) LastSeq(ctx context.Context) (uint64, error) {
	es, err := c.Audit(ctx, emulator.AuditFilter{Limit: 1})
	if err != nil || len(es) == 0 {
		return 0, err
	}
	return es[0].Seq, nil
}

// Resource reads a resource out of band; ErrNotFound when it does not exist.
func (c *EmulatorClient) Resource(ctx context.Context, id string) (map[string]any, error) {
	var out map[string]any
	return out, c.do(ctx, http.MethodGet, "/resources"+id, nil, &out)
}

// PatchResource changes a resource out of band (JSON merge patch), as someone
// in the portal would.
func (c *EmulatorClient) PatchResource(ctx context.Context, id string, patch any) error {
	return c.do(ctx, http.MethodPatch, "/resources"+id, patch, nil)
}

// StoredResource is one resource of the emulator's saved state.
type StoredResource struct {
	ID   string          `json:"id"`
	Type string          `json:"type"`
	Body json.RawMessage `json:"body"`
}

// Inventory is every resource the emulator holds (nested ones and role
// assignments included), read from its state file after asking it to save.
func (c *EmulatorClient) Inventory(ctx context.Context) ([]StoredResource, error) {
	if c.stateFile == "" {
		return nil, errors.New("the emulator runs without a state file")
	}
	if err := c.do(ctx, http.MethodPost, "/save", nil, nil); err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(c.stateFile)
	if err != nil {
		return nil, err
	}
	var st struct{ Resources []StoredResource }
	if err := json.Unmarshal(raw, &st); err != nil {
		return nil, fmt.Errorf("emulator state: %w", err)
	}
	return st.Resources, nil
}
