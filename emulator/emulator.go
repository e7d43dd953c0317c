package emulator

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"

	"github.com/aztenant/aztenant/emulator/entra"
	"github.com/aztenant/aztenant/emulator/jwks"
	"github.com/aztenant/aztenant/internal/pki"
)

// Emulator is a running (or ready to run) local Azure: Entra ID and ARM on one HTTPS port.
type Emulator struct {
	cfg          Config
	log          *slog.Logger
	ca           *pki.CA
	signer       *jwks.Signer
	entra        *entra.Server
	armAudiences []string
	tokenTTL     time.Duration
	behaviours   map[string]*typeBehaviour // by lower full type

	// mu guards the directory, the resource tree, role-assignment grants and operations.
	mu         sync.RWMutex
	tenants    map[string]*Tenant
	resources  map[string]*resource
	byClientID map[string]*directoryEntry
	byObjectID map[string]*directoryEntry
	grants     map[string]map[string]grant // principal object ID -> role assignment key -> grant
	ops        map[string]*operation
	opOrder    []string // retained operation IDs, oldest first, bounded
	pending    map[string]*operation
	pendingN   atomic.Int64
	lro        map[string]LROConfig // runtime overrides by lower full type
	// answers are the answer transforms in force (answers.go), cfgAnswers those of
	// Config.Answers that Reset restores; answersDue counts resources whose
	// change after Succeeded is due.
	answers    []*compiledAnswer
	cfgAnswers []*compiledAnswer
	answersDue atomic.Int64
	// examples answers writes of generated kinds from Azure's documented examples
	// (answers_examples.go); perturb, when set, runs Perturb on each of their writes
	// (answers_writes.go), perturbKey naming the setting.
	examples   bool
	perturb    *PerturbWrites
	perturbKey string

	trust jwks.Trust

	tokens tokenCache
	faults *faultState
	audit  *auditLog

	srv       *http.Server
	ln        net.Listener
	url       string
	client    *http.Client
	closeOnce sync.Once
	closeErr  error
}

// New builds an emulator from cfg: it loads the state file if one exists, creates the CA and
// signing key when none were loaded, and applies cfg.Seed. Call Start to serve.
func New(cfg Config) (*Emulator, error) {
	e := &Emulator{
		cfg:        cfg,
		log:        cfg.Logger,
		tokenTTL:   time.Duration(cfg.TokenLifetime),
		faults:     newFaultState(cfg.Faults),
		audit:      newAuditLog(cfg.AuditSize),
		behaviours: map[string]*typeBehaviour{},
	}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	if e.tokenTTL <= 0 {
		e.tokenTTL = time.Hour
	}
	auds := cfg.ARMAudiences
	if len(auds) == 0 {
		auds = []string{"https://management.core.windows.net/", "https://management.azure.com/"}
	}
	for _, a := range auds {
		e.armAudiences = append(e.armAudiences, strings.TrimSuffix(a, "/"))
	}
	generated := generatedBehaviours()
	for _, b := range generated {
		b.generated = true
	}
	for _, b := range append(generated, builtinBehaviours()...) {
		// A hand-written behaviour refines a generated one, keeping its long-running
		// shape (read from the SDK) unless it says its own.
		key := strings.ToLower(b.fullType)
		if g := e.behaviours[key]; g != nil {
			b.generated = g.generated && !ownAnswers[key]
			if b.lro == (LROConfig{}) {
				b.lro, b.shapes = g.lro, g.shapes
			}
			if b.writeOnly == nil {
				b.writeOnly = g.writeOnly
			}
			if b.actions == nil {
				b.actions = g.actions
			}
			b.nameAsPath = b.nameAsPath || g.nameAsPath
		}
		e.behaviours[key] = b
	}
	e.resetStateLocked()
	answers, err := compileAnswers(cfg.Answers)
	if err != nil {
		return nil, fmt.Errorf("config answers: %w", err)
	}
	e.cfgAnswers, e.answers = answers, answers
	e.examples = cfg.AnswerFromExamples
	if err := e.SetPerturbWrites(cfg.PerturbWrites); err != nil {
		return nil, fmt.Errorf("config perturbWrites: %w", err)
	}

	var st *stateFile
	if cfg.StateFile != "" {
		loaded, err := readStateFile(cfg.StateFile)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		st = loaded
	}
	if err := e.initKeys(st); err != nil {
		return nil, err
	}
	if st != nil {
		if err := e.restore(st); err != nil {
			return nil, fmt.Errorf("state file %s: %w", cfg.StateFile, err)
		}
	}
	if err := e.Seed(cfg.Seed); err != nil {
		return nil, err
	}
	return e, nil
}

func (e *Emulator) initKeys(st *stateFile) error {
	var err error
	switch {
	case st != nil && st.CACertPEM != "":
		e.ca, err = pki.ParseCA([]byte(st.CACertPEM), []byte(st.CAKeyPEM))
	default:
		e.ca, err = pki.NewCA("aztenant Azure emulator CA")
	}
	if err != nil {
		return err
	}
	// The configured key wins over a stored one so tests can share one pre-generated key.
	keyPEM := e.cfg.SigningKeyPEM
	if keyPEM == "" && st != nil {
		keyPEM = st.SigningKeyPEM
	}
	var key *rsa.PrivateKey
	if keyPEM != "" {
		key, err = jwks.ParseRSAPrivateKeyPEM(keyPEM)
	} else {
		key, err = rsa.GenerateKey(rand.Reader, 2048)
	}
	if err != nil {
		return err
	}
	if e.signer, err = jwks.NewSigner(key); err != nil {
		return err
	}
	e.entra = &entra.Server{Directory: entraDirectory{e}, Trust: &e.trust, Signer: e.signer, Now: e.faults.entraNow, TokenTTL: e.tokenTTL}
	return nil
}

// Start listens and serves until ctx ends or Close is called. It returns once the listener
// is bound, so URL is usable right away.
func (e *Emulator) Start(ctx context.Context) error {
	addr := e.cfg.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	hosts := append([]string{"127.0.0.1", "::1", "localhost"}, e.cfg.Hostnames...)
	if h, _, err := net.SplitHostPort(addr); err == nil && h != "" {
		hosts = append(hosts, h)
	}
	leaf, err := e.ca.Issue(pki.Leaf{CommonName: "azure-emulator", Hosts: hosts})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	e.ln = ln
	host := "127.0.0.1"
	if h, _, _ := net.SplitHostPort(addr); h != "" && h != "0.0.0.0" && h != "::" {
		host = h
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	e.url = "https://" + net.JoinHostPort(host, port)
	e.client = &http.Client{Transport: &http.Transport{
		TLSClientConfig:     &tls.Config{RootCAs: e.ca.Pool(), MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2:   true,
		MaxIdleConns:        256,
		MaxIdleConnsPerHost: 256,
		IdleConnTimeout:     90 * time.Second,
	}}
	if e.cfg.CAFile != "" {
		if err := os.WriteFile(e.cfg.CAFile, e.ca.CertPEM, 0o644); err != nil {
			ln.Close()
			return fmt.Errorf("writing CA file: %w", err)
		}
	}
	e.srv = &http.Server{
		Handler:           e,
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{leaf.TLS}, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 10 * time.Second,
		// Clients that do not trust the CA fail their handshakes; that is their business.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	go func() {
		if err := e.srv.ServeTLS(ln, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
			e.log.Error("emulator server stopped", "err", err)
		}
	}()
	go func() {
		<-ctx.Done()
		e.Close()
	}()
	e.log.Info("azure emulator ready", "url", e.url)
	return nil
}

// Close stops serving and writes the state file when one is configured. It is safe to call
// more than once.
func (e *Emulator) Close() error {
	e.closeOnce.Do(func() {
		if e.srv != nil {
			// Our own client's idle HTTP/2 connections would hold Shutdown for its whole
			// poll interval; in-flight requests get a short grace period, then are cut.
			e.client.CloseIdleConnections()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			if err := e.srv.Shutdown(ctx); err != nil {
				e.srv.Close()
			}
		}
		if e.cfg.StateFile != "" {
			if err := e.SaveState(); err != nil {
				e.closeErr = errors.Join(e.closeErr, err)
			}
		}
	})
	return e.closeErr
}

// URL is the base URL of both Entra ID and ARM, such as https://127.0.0.1:41234.
func (e *Emulator) URL() string { return e.url }

// CAPEM is the emulator's CA certificate in PEM form.
func (e *Emulator) CAPEM() []byte { return append([]byte(nil), e.ca.CertPEM...) }

// CertPool holds the emulator's CA.
func (e *Emulator) CertPool() *x509.CertPool { return e.ca.Pool() }

// HTTPClient trusts the emulator's CA; pass it as azcore.ClientOptions.Transport. Valid
// after Start.
func (e *Emulator) HTTPClient() *http.Client { return e.client }

// Cloud is a cloud.Configuration pointing Entra ID and ARM at the emulator, using the first
// configured ARM audience.
func (e *Emulator) Cloud() cloud.Configuration {
	return cloud.Configuration{
		ActiveDirectoryAuthorityHost: e.url + "/",
		Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
			cloud.ResourceManager: {Endpoint: e.url, Audience: e.armAudiences[0] + "/"},
		},
	}
}

// ClientOptions combines Cloud and HTTPClient for azidentity and ARM clients.
func (e *Emulator) ClientOptions() azcore.ClientOptions {
	return azcore.ClientOptions{Cloud: e.Cloud(), Transport: e.client}
}

// ServeHTTP routes the Control API, Entra ID and ARM. Entra paths start with a tenant ID,
// ARM paths with /subscriptions, /providers or are /tenants (a tenant ID is
// a GUID, so "tenants" never is one).
func (e *Emulator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case strings.HasPrefix(p, "/_emulator/"):
		e.serveControl(w, r)
	case hasFoldPrefix(p, "/subscriptions") || hasFoldPrefix(p, "/providers/") || strings.EqualFold(strings.TrimSuffix(p, "/"), "/tenants"):
		e.serveARM(w, r)
	case strings.EqualFold(strings.TrimSuffix(p, "/"), "/metadata/endpoints"):
		e.serveMetadataEndpoints(w, r)
	default:
		if !e.serveADFS(w, r) && !e.serveEntra(w, r) {
			writeARMError(w, armErr(http.StatusNotFound, "NotFound", "No route for %s %s.", r.Method, p))
		}
	}
}

func hasFoldPrefix(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// writeJSON writes v (or raw bytes) with a status code.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var b []byte
	switch t := v.(type) {
	case []byte:
		b = t
	case json.RawMessage:
		b = t
	default:
		b, _ = json.Marshal(v)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b)
}

func writeARMError(w http.ResponseWriter, err *apiError) {
	h := w.Header()
	h.Set("x-ms-error-code", err.Code)
	if err.RetryAfter > 0 {
		setRetryAfter(h, err.RetryAfter)
	}
	writeJSON(w, err.Status, map[string]any{"error": map[string]string{"code": err.Code, "message": err.Message}})
}

// setRetryAfter sends whole seconds in Retry-After (rounded up, as HTTP requires) and the
// exact value in retry-after-ms, which the Azure SDK prefers, so tests stay fast.
func setRetryAfter(h http.Header, d time.Duration) {
	secs := int((d + time.Second - 1) / time.Second)
	// Rounded up too: a client that waits a truncated value comes back
	// before the window ends and is throttled again.
	ms := int((d + time.Millisecond - 1) / time.Millisecond)
	h.Set("Retry-After", itoa(secs))
	h.Set("retry-after-ms", itoa(ms))
	h.Set("x-ms-retry-after-ms", itoa(ms))
}
