// Package charttest tests the Helm chart in charts/aztenant: that its CRD
// copies match api/crds, that it lints strictly, that its schema refuses bad
// values, what it renders for combinations of values, that the README's
// `helm template` renders offline as written, that it installs, upgrades and
// uninstalls on a real kube-apiserver (internal/testing/testenv), and that the
// operator binary runs as the installed Deployment says, with the chart's
// RBAC only, onboarding a Tenant and driving its resources against the Azure
// emulator (TestChartAsDeployed, Linux, needs bin/operator).
//
// It holds no code: run it with
//
//	go build -o bin/ ./cmd/... && AZTENANT_BIN_DIR=$PWD/bin go test -count=1 ./charts/...
package charttest
