// Package azcli tests the Azure emulator with a client the project did not
// write: the az CLI as Debian packages it, signing in with a ServiceAccount
// token of a real kube-apiserver (internal/testing/testenv) and running a script of
// ARM commands whose outcomes, 403s included, are Azure's for that
// principal. It also runs the shell blocks of the docs that use az and
// helm (the emulator README's az section, docs/install.md's install steps)
// as they are written, so those docs are tested. Without az it skips, except under
// CI=true, where az is installed by .ci/run and its absence is a failure.
package azcli
