#!/usr/bin/env bash
# Builds the pinned tools into bin/ from the Go module proxy. Idempotent: a tool whose
# stamp (bin/.stamps/<tool>-<version>) exists is not rebuilt, so a warm run takes seconds.
#
# kube-apiserver, kubectl and etcd cannot be `go install`ed: their go.mod files replace
# modules with local paths. For each we generate a throw-away module under bin/.build that
# requires the release and replaces the staging modules with their published versions.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=versions.env
source "$root/hack/tools/versions.env"
bin="$root/bin"
stamps="$bin/.stamps"
work="$bin/.build"
mkdir -p "$stamps" "$work"
export GOBIN="$bin" GOFLAGS=-mod=mod

say() { printf '[tools %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
fresh() { [[ -f "$stamps/$1-$2" ]] && shift 2 && for f in "$@"; do [[ -x "$bin/$f" ]] || return 1; done; }
stamp() { rm -f "$stamps/$1"-*; touch "$stamps/$1-$2"; }

# Writes a go.mod in $dir requiring $mod@$ver. With $staging_ver, every module that the
# release's own go.mod replaces with a local path is replaced by that published version
# (Kubernetes' staging modules); without it the release's published requirements stand.
gen_module() {
  local dir=$1 mod=$2 ver=$3 staging_ver=${4:-}
  mkdir -p "$dir"
  {
    printf 'module aztenant.local/tools/%s\n\ngo 1.26\n\nrequire %s %s\n\n' "$(basename "$dir")" "$mod" "$ver"
    if [[ -n "$staging_ver" ]]; then
      local gomod
      gomod=$(go mod download -json "$mod@$ver" | sed -n 's/.*"GoMod": "\(.*\)",/\1/p')
      # Lines like `k8s.io/api => ./staging/src/k8s.io/api`, in a block or alone.
      awk '/^replace \($/{r=1;next} r&&/^\)/{r=0} r&&/=> \.\.?\//{print $1} /^replace [^(].*=> \.\.?\//{print $2}' "$gomod" |
        while read -r m; do echo "replace $m => $m $staging_ver"; done
    fi
  } >"$dir/go.mod"
}

build_kube() {
  if fresh kube "$KUBE_VERSION" kube-apiserver kubectl kube-controller-manager; then say "kube-apiserver, kubectl, kube-controller-manager $KUBE_VERSION: up to date"; return; fi
  say "kube-apiserver + kubectl + kube-controller-manager $KUBE_VERSION: building from source (about 14 minutes cold on 2 cores)"
  local dir="$work/kube" staging="v0.${KUBE_VERSION#v1.}"
  gen_module "$dir" k8s.io/kubernetes "$KUBE_VERSION" "$staging"
  printf 'package tools\n\nimport (\n\t_ "k8s.io/kubernetes/cmd/kube-apiserver/app"\n\t_ "k8s.io/kubernetes/cmd/kube-controller-manager/app"\n\t_ "k8s.io/kubectl/pkg/cmd"\n)\n' >"$dir/tools.go"
  (cd "$dir" && go mod tidy)
  local minor=${KUBE_VERSION#v1.}; minor=${minor%%.*}
  local ld=""
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld+=" -X $p.gitVersion=$KUBE_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor"
    ld+=" -X $p.gitTreeState=clean -X $p.buildDate=1970-01-01T00:00:00Z"
  done
  (cd "$dir" && go build -trimpath -ldflags "-s -w$ld" -o "$bin/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver)
  say "kube-apiserver built; building kubectl"
  (cd "$dir" && go build -trimpath -ldflags "-s -w$ld" -o "$bin/kubectl" k8s.io/kubernetes/cmd/kubectl)
  # The garbage collector, namespace, ClusterRole aggregation and token
  # controllers, for tests where the cluster's own controllers matter.
  say "building kube-controller-manager"
  (cd "$dir" && go build -trimpath -ldflags "-s -w$ld" -o "$bin/kube-controller-manager" k8s.io/kubernetes/cmd/kube-controller-manager)
  stamp kube "$KUBE_VERSION"
}

build_etcd() {
  if fresh etcd "$ETCD_VERSION" etcd; then say "etcd $ETCD_VERSION: up to date"; return; fi
  say "etcd $ETCD_VERSION: building from source (about 1-2 minutes)"
  local dir="$work/etcd"
  gen_module "$dir" go.etcd.io/etcd/server/v3 "$ETCD_VERSION"
  printf 'package tools\n\nimport _ "go.etcd.io/etcd/server/v3/etcdmain"\n' >"$dir/tools.go"
  (cd "$dir" && go mod tidy)
  (cd "$dir" && go build -trimpath -ldflags "-s -w" -o "$bin/etcd" go.etcd.io/etcd/server/v3)
  stamp etcd "$ETCD_VERSION"
}

install_tool() { # name version package
  if fresh "$1" "$2" "$1"; then say "$1 $2: up to date"; return; fi
  say "$1 $2: go install $3@$2"
  go install -trimpath -ldflags "-s -w" "$3@$2"
  stamp "$1" "$2"
}

# The azure-workload-identity mutating webhook, run out of cluster by e2e/workloadidentity.
# Its module is not in the checksum database (GONOSUMDB, for this build only), and the
# proxy refuses its logging façade monis.app/mlog (403): hack/tools/mlog stands in for it
# (its hash is part of the stamp). The module's own requirements stand.
build_azwi_webhook() {
  local shim="$root/hack/tools/mlog" mod=github.com/Azure/azure-workload-identity ver
  ver="$AZURE_WORKLOAD_IDENTITY_VERSION-mlog.$(cat "$shim/go.mod" "$shim"/*.go | sha256sum | cut -c1-8)"
  if fresh azure-wi-webhook "$ver" azure-wi-webhook; then say "azure-wi-webhook $AZURE_WORKLOAD_IDENTITY_VERSION: up to date"; return; fi
  say "azure-wi-webhook $AZURE_WORKLOAD_IDENTITY_VERSION: building $mod/cmd/webhook (about 2 minutes cold on 2 cores)"
  local dir="$work/azure-wi-webhook" v=$AZURE_WORKLOAD_IDENTITY_VERSION
  gen_module "$dir" "$mod" "$v"
  printf 'replace monis.app/mlog => %s\n\ntool %s/cmd/webhook\n' "$shim" "$mod" >>"$dir/go.mod"
  local ld="-X $mod/pkg/version.BuildVersion=$v -X $mod/pkg/webhook.ProxyImageVersion=$v"
  ld+=" -X $mod/pkg/webhook.ProxyImageRegistry=mcr.microsoft.com/oss/azure/workload-identity"
  (
    cd "$dir"
    export GONOSUMDB=$mod
    go mod tidy
    go build -trimpath -ldflags "-s -w $ld" -o "$bin/azure-wi-webhook" "$mod/cmd/webhook"
  )
  stamp azure-wi-webhook "$ver"
}

want=${*:-kube etcd helm controller-gen staticcheck gatekeeper azure-wi-webhook}
start=$(date +%s)
for t in $want; do
  case $t in
    kube) build_kube ;;
    etcd) build_etcd ;;
    helm) install_tool helm "$HELM_VERSION" helm.sh/helm/v3/cmd/helm ;;
    controller-gen) install_tool controller-gen "$CONTROLLER_GEN_VERSION" sigs.k8s.io/controller-tools/cmd/controller-gen ;;
    staticcheck) install_tool staticcheck "$STATICCHECK_VERSION" honnef.co/go/tools/cmd/staticcheck ;;
    # The real admission webhook, run out of cluster by e2e/gatekeeper; its go.mod pins stand.
    gatekeeper) install_tool gatekeeper "$GATEKEEPER_VERSION" github.com/open-policy-agent/gatekeeper/v3 ;;
    azure-wi-webhook) build_azwi_webhook ;;
    *) echo "unknown tool $t" >&2; exit 2 ;;
  esac
done
say "done in $(( $(date +%s) - start ))s"
