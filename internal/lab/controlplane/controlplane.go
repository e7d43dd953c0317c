package controlplane

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/aztenant/aztenant/internal/pki"
)

// Options configure a control plane. The zero value is usable: binaries are found
// in the repository's bin/ (or $AZTENANT_BIN_DIR) and state lives in a temporary
// directory removed by Stop.
type Options struct {
	// BinDir holds etcd and kube-apiserver.
	BinDir string
	// Dir keeps certificates, data and logs. Empty means a fresh temporary
	// directory that Stop removes.
	Dir string
	// Detach lets the processes outlive this one (for the demo). Stop them with
	// StopDir.
	Detach bool
	// StartTimeout bounds how long Start waits for readiness (default 90s).
	StartTimeout time.Duration
	// Controllers, when not empty, starts kube-controller-manager (from
	// BinDir) with these of its controllers, for example ControllersLifecycle.
	// It costs a few seconds of start-up and a process: only packages whose
	// tests need the cluster's own controllers ask for it.
	Controllers []string
	// EtcdSeed, when set, is an etcd data directory (of a control plane started
	// and stopped before) copied into Dir before etcd starts: the API server
	// starts over the objects it holds instead of having them created again.
	EtcdSeed string
	// GOGC, when set, is the API server's and etcd's GOGC: the tests trade their
	// memory for CPU (with Go's default, about a quarter of the API server's CPU
	// in the kinds tests was garbage collection); the bench leaves Go's default,
	// whose memory it measures.
	GOGC int
}

// ControllersLifecycle are the kube-controller-manager controllers that run a
// cluster's object lifecycle: garbage collection by owner references,
// namespace deletion, ClusterRole aggregation (Kubernetes' admin, edit and
// view roles) and the legacy service-account token Secrets.
var ControllersLifecycle = []string{"garbagecollector", "namespace", "clusterrole-aggregation", "serviceaccount-token"}

// ControlPlane is a running etcd + kube-apiserver pair.
type ControlPlane struct {
	// Config is an admin (system:masters) client configuration.
	Config *rest.Config
	// Dir holds certificates, logs, data and the kubeconfig.
	Dir string
	// KubeconfigPath is an admin kubeconfig usable by kubectl and helm.
	KubeconfigPath string
	// OperatorConfig and OperatorKubeconfigPath authenticate as OperatorUser
	// (also in system:masters), for the operator under test: admission tells
	// it from the admin.
	OperatorConfig         *rest.Config
	OperatorKubeconfigPath string
	// IssuerURL is the service-account token issuer; its discovery document and
	// JWKS are served by the API server, readable without credentials.
	IssuerURL string
	// CAPEM is the CA of the API server's serving certificate.
	CAPEM []byte

	etcd, apiserver, controllers *Process
	ownsDir                      bool
	apiserverPort                int
}

// Start launches etcd and kube-apiserver and waits until the API server is ready
// and its issuer discovery is readable anonymously, as on a managed cluster whose
// OIDC issuer is public.
func Start(ctx context.Context, opts Options) (cp *ControlPlane, err error) {
	bin, err := FindBinDir(opts.BinDir)
	if err != nil {
		return nil, err
	}
	cp = &ControlPlane{Dir: opts.Dir}
	if cp.Dir == "" {
		if cp.Dir, err = os.MkdirTemp("", "aztenant-cp-"); err != nil {
			return nil, err
		}
		cp.ownsDir = true
	} else if err := os.MkdirAll(cp.Dir, 0o700); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			cp.Stop()
		}
	}()

	keys, err := pki.WriteControlPlane(cp.Dir, OperatorUser)
	if err != nil {
		return nil, fmt.Errorf("certificates: %w", err)
	}
	cp.CAPEM = keys.CAPEM
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	etcdClient, etcdPeer, apiPort := ports[0], ports[1], ports[2]
	cp.apiserverPort = apiPort
	cp.IssuerURL = fmt.Sprintf("https://127.0.0.1:%d", apiPort)
	host := fmt.Sprintf("https://127.0.0.1:%d", apiPort)

	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", etcdClient)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", etcdPeer)
	cp.etcd = &Process{
		Name: "etcd", Path: filepath.Join(bin, "etcd"), Log: filepath.Join(cp.Dir, "etcd.log"), Detach: opts.Detach,
		Args: []string{
			"--name=aztenant", "--data-dir=" + filepath.Join(cp.Dir, "etcd"),
			"--listen-client-urls=" + etcdURL, "--advertise-client-urls=" + etcdURL,
			"--listen-peer-urls=" + peerURL, "--initial-advertise-peer-urls=" + peerURL,
			"--initial-cluster=aztenant=" + peerURL,
			// Test data is disposable; fsync dominates etcd latency on small disks.
			"--unsafe-no-fsync=true", "--log-level=warn",
		},
	}
	cp.apiserver = &Process{
		Name: "kube-apiserver", Path: filepath.Join(bin, "kube-apiserver"), Log: filepath.Join(cp.Dir, "kube-apiserver.log"), Detach: opts.Detach,
		Args: []string{
			"--etcd-servers=" + etcdURL,
			"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", "--secure-port=" + strconv.Itoa(apiPort),
			"--tls-cert-file=" + keys.ServingCertFile, "--tls-private-key-file=" + keys.ServingKeyFile,
			"--client-ca-file=" + keys.CAFile,
			"--service-account-issuer=" + cp.IssuerURL,
			"--service-account-key-file=" + keys.SAPublicFile,
			"--service-account-signing-key-file=" + keys.SAPrivateFile,
			"--service-cluster-ip-range=10.0.0.0/24",
			"--authorization-mode=RBAC",
			"--anonymous-auth=true",
			// No controller-manager runs here, so nothing creates default ServiceAccounts.
			"--disable-admission-plugins=ServiceAccount",
			// Loopback cannot back the kubernetes Service endpoints; nothing here needs them.
			"--endpoint-reconciler-type=none",
			"--allow-privileged=true",
			"--profiling=false",
		},
	}
	if opts.GOGC != 0 {
		gogc := "GOGC=" + strconv.Itoa(opts.GOGC)
		cp.etcd.Env = append(cp.etcd.Env, gogc)
		cp.apiserver.Env = append(cp.apiserver.Env, gogc)
	}
	if opts.EtcdSeed != "" {
		// etcd wants its data directory private (0700).
		dst := filepath.Join(cp.Dir, "etcd")
		if err := os.CopyFS(dst, os.DirFS(opts.EtcdSeed)); err != nil {
			return nil, fmt.Errorf("etcd seed: %w", err)
		}
		if err := os.Chmod(dst, 0o700); err != nil {
			return nil, err
		}
	}
	if err := cp.etcd.Start(); err != nil {
		return nil, err
	}
	if err := cp.apiserver.Start(); err != nil {
		return nil, err
	}

	cp.Config = &rest.Config{
		Host: host,
		TLSClientConfig: rest.TLSClientConfig{
			CAData: keys.CAPEM, CertData: keys.AdminCertPEM, KeyData: keys.AdminKeyPEM,
		},
		QPS: 1000, Burst: 2000,
	}
	cp.OperatorConfig = rest.CopyConfig(cp.Config)
	cp.OperatorConfig.CertData, cp.OperatorConfig.KeyData = keys.OperatorCertPEM, keys.OperatorKeyPEM
	timeout := opts.StartTimeout
	if timeout == 0 {
		timeout = 90 * time.Second
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cs, err := kubernetes.NewForConfig(cp.Config)
	if err != nil {
		return nil, err
	}
	ready := func(ctx context.Context) error {
		body, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		if err != nil {
			return fmt.Errorf("%w: %s", err, body)
		}
		return nil
	}
	if err := WaitFor(wctx, "kube-apiserver", ready, cp.etcd, cp.apiserver); err != nil {
		return nil, err
	}
	if err := cp.publishIssuer(wctx, cs); err != nil {
		return nil, err
	}
	if err := cp.writeKubeconfig(keys); err != nil {
		return nil, err
	}
	if len(opts.Controllers) > 0 {
		if err := cp.startControllers(wctx, bin, keys, opts); err != nil {
			return nil, err
		}
	}
	return cp, nil
}

// startControllers runs kube-controller-manager with the admin kubeconfig
// and waits until it serves /healthz.
func (cp *ControlPlane) startControllers(ctx context.Context, bin string, p *pki.ControlPlaneKeys, opts Options) error {
	ports, err := freePorts(1)
	if err != nil {
		return err
	}
	cp.controllers = &Process{
		Name: "kube-controller-manager", Path: filepath.Join(bin, "kube-controller-manager"),
		Log: filepath.Join(cp.Dir, "kube-controller-manager.log"), Detach: opts.Detach,
		Args: []string{
			"--kubeconfig=" + cp.KubeconfigPath, "--authentication-kubeconfig=" + cp.KubeconfigPath,
			"--authorization-kubeconfig=" + cp.KubeconfigPath,
			"--controllers=" + strings.Join(opts.Controllers, ","), "--leader-elect=false",
			"--bind-address=127.0.0.1", "--secure-port=" + strconv.Itoa(ports[0]),
			// The token controller signs legacy token Secrets as the API server
			// verifies them and puts the cluster's CA in them.
			"--service-account-private-key-file=" + p.SAPrivateFile, "--root-ca-file=" + p.CAFile,
			// Quick garbage collection and namespace cleanup, for tests.
			"--concurrent-gc-syncs=5", "--namespace-sync-period=10s",
		},
	}
	if _, err := os.Stat(cp.controllers.Path); err != nil {
		return fmt.Errorf("kube-controller-manager not found in %s: run `make tools` first", bin)
	}
	if err := cp.controllers.Start(); err != nil {
		return err
	}
	healthz := fmt.Sprintf("https://127.0.0.1:%d/healthz", ports[0])
	insecure := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // its self-signed serving certificate, on loopback
	return WaitFor(ctx, "kube-controller-manager", func(ctx context.Context) error {
		return GetOK(ctx, insecure, healthz)
	}, cp.controllers, cp.apiserver)
}

// GetOK is nil when a GET of url with c answers 200 OK (a health or readiness
// probe), the error or the status otherwise.
func GetOK(ctx context.Context, c *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return nil
}

// publishIssuer lets anonymous clients read the issuer's discovery document and
// JWKS, as Entra ID reads a managed cluster's public OIDC issuer.
func (cp *ControlPlane) publishIssuer(ctx context.Context, cs kubernetes.Interface) error {
	crb := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "aztenant:public-issuer-discovery"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "system:service-account-issuer-discovery"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: "system:unauthenticated"}},
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, crb, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("publish issuer discovery: %w", err)
	}
	// RBAC changes reach the authorizer through an informer: wait until it shows.
	return WaitFor(ctx, "issuer discovery", func(ctx context.Context) error {
		_, err := cp.JWKS(ctx)
		return err
	}, cp.apiserver)
}

// OperatorUser is the user name of OperatorConfig.
const OperatorUser = "aztenant-operator"

func (cp *ControlPlane) writeKubeconfig(p *pki.ControlPlaneKeys) error {
	write := func(path string, cert, key []byte) error {
		cfg := clientcmdapi.NewConfig()
		cfg.Clusters["aztenant"] = &clientcmdapi.Cluster{Server: cp.Config.Host, CertificateAuthorityData: p.CAPEM}
		cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: cert, ClientKeyData: key}
		cfg.Contexts["aztenant"] = &clientcmdapi.Context{Cluster: "aztenant", AuthInfo: "admin"}
		cfg.CurrentContext = "aztenant"
		return clientcmd.WriteToFile(*cfg, path)
	}
	cp.KubeconfigPath = filepath.Join(cp.Dir, "kubeconfig")
	cp.OperatorKubeconfigPath = filepath.Join(cp.Dir, "operator.kubeconfig")
	if err := write(cp.KubeconfigPath, p.AdminCertPEM, p.AdminKeyPEM); err != nil {
		return err
	}
	return write(cp.OperatorKubeconfigPath, p.OperatorCertPEM, p.OperatorKeyPEM)
}

// HTTPClient trusts the API server's CA and presents no credentials: it sees the
// API server as an outsider (Entra ID, a browser) does.
func (cp *ControlPlane) HTTPClient() *http.Client {
	return &http.Client{
		Timeout:   10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pki.PoolOf(cp.CAPEM), MinVersion: tls.VersionTLS12}},
	}
}

// Discovery is the issuer's OpenID discovery document.
type Discovery struct {
	Issuer  string `json:"issuer"`
	JWKSURI string `json:"jwks_uri"`
}

// Discovery fetches the issuer's discovery document anonymously.
func (cp *ControlPlane) Discovery(ctx context.Context) (*Discovery, error) {
	body, err := cp.getAnonymous(ctx, cp.IssuerURL+"/.well-known/openid-configuration")
	if err != nil {
		return nil, err
	}
	var d Discovery
	if err := json.Unmarshal(body, &d); err != nil {
		return nil, fmt.Errorf("decode discovery document: %w", err)
	}
	return &d, nil
}

// JWKS fetches the issuer's signing keys anonymously.
func (cp *ControlPlane) JWKS(ctx context.Context) ([]byte, error) {
	return cp.getAnonymous(ctx, cp.IssuerURL+"/openid/v1/jwks")
}

func (cp *ControlPlane) getAnonymous(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := cp.HTTPClient().Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s: %s", url, resp.Status, strings.TrimSpace(string(body)))
	}
	return body, nil
}

// Stop ends both processes and removes the directory if Start created it.
func (cp *ControlPlane) Stop() error {
	if cp == nil {
		return nil
	}
	if cp.controllers != nil {
		cp.controllers.Stop(10 * time.Second)
	}
	if cp.apiserver != nil {
		cp.apiserver.Stop(10 * time.Second)
	}
	if cp.etcd != nil {
		cp.etcd.Stop(10 * time.Second)
	}
	if cp.ownsDir {
		return os.RemoveAll(cp.Dir)
	}
	return nil
}

// StopDir ends every detached process whose pid file is in dir: the
// operator and emulator first, the control plane last.
func StopDir(dir string) error {
	pidFiles, err := filepath.Glob(filepath.Join(dir, "*.pid"))
	if err != nil {
		return err
	}
	last := map[string]int{"etcd.pid": 3, "kube-apiserver.pid": 2, "kube-controller-manager.pid": 1}
	sort.SliceStable(pidFiles, func(i, j int) bool { return last[filepath.Base(pidFiles[i])] < last[filepath.Base(pidFiles[j])] })
	var errs []error
	for _, file := range pidFiles {
		data, err := os.ReadFile(file)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", file, err))
			continue
		}
		if err := terminate(pid, 10*time.Second); err != nil {
			errs = append(errs, fmt.Errorf("%s (pid %d): %w", filepath.Base(file), pid, err))
		}
		os.Remove(file)
	}
	return errors.Join(errs...)
}

func terminate(pid int, grace time.Duration) error {
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		if errors.Is(err, syscall.ESRCH) {
			return nil
		}
		return err
	}
	if wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, grace, true, func(context.Context) (bool, error) {
		return syscall.Kill(pid, 0) != nil, nil
	}) == nil {
		return nil
	}
	return syscall.Kill(pid, syscall.SIGKILL)
}

// FindBinDir returns dir if set, else $AZTENANT_BIN_DIR, else the bin/ folder of
// the enclosing repository (found by walking up to go.mod), checking that the
// binaries are there.
func FindBinDir(dir string) (string, error) {
	if dir == "" {
		dir = os.Getenv("AZTENANT_BIN_DIR")
	}
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		for d := wd; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
				dir = filepath.Join(d, "bin")
				break
			}
			if filepath.Dir(d) == d {
				return "", fmt.Errorf("no go.mod above %s: set AZTENANT_BIN_DIR to the folder holding kube-apiserver and etcd", wd)
			}
		}
	}
	for _, b := range []string{"etcd", "kube-apiserver"} {
		if _, err := os.Stat(filepath.Join(dir, b)); err != nil {
			return "", fmt.Errorf("%s not found in %s: run `make tools` first", b, dir)
		}
	}
	return dir, nil
}

// APIServerPID is the kube-apiserver's process ID (0 before Start), for
// measuring it from /proc.
func (c *ControlPlane) APIServerPID() int { return c.apiserver.Pid() }
