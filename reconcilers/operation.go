package reconcilers

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/reconcilers/armclient"
)

// This file follows ARM's long-running operations (a PUT's, a DELETE's)
// across reconciles, and reads the provisioningState they leave.

// poll advances a long-running operation once. Unfinished, its resume token
// goes into status so a restarted operator continues it instead of starting
// another, and the outcome says so. Done, it returns the operation's body
// (nil when ARM gave none).
func (r *Reconciler) poll(ctx context.Context, p *runtime.Poller[json.RawMessage], obj azurev1alpha1.Resource, scope identity.Scope, what string) (map[string]any, error) {
	st := obj.AzureStatus()
	if !p.Done() {
		if _, err := p.Poll(ctx); err != nil {
			st.ResumeToken = ""
			st.WriteOnlyHash = "" // whether Azure took the write-only values is unknown: send them again
			forgetWrite(obj)
			return nil, r.armFailure(err, scope)
		}
	}
	if !p.Done() {
		token, err := p.ResumeToken()
		if err == nil {
			st.ResumeToken = token
		}
		return nil, newOutcome(ReasonReconciling, what+": waiting for Azure to finish").after(r.PollInterval)
	}
	st.ResumeToken = ""
	raw, err := p.Result(ctx)
	if err != nil {
		st.WriteOnlyHash = "" // the operation failed: Azure may not have the write-only values
		forgetWrite(obj)      // nor is what it holds its answer to the body written
		return nil, r.armFailure(err, scope)
	}
	var body map[string]any
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &body)
	}
	return body, nil
}

// resume continues the operation whose token is in status: nil once it is
// done (or the token is unusable, and the reconcile goes on with a GET).
func (r *Reconciler) resume(ctx context.Context, calls armclient.Calls, obj azurev1alpha1.Resource, scope identity.Scope) error {
	p, err := calls.Resume(obj.AzureStatus().ResumeToken)
	if err != nil {
		obj.AzureStatus().ResumeToken = "" // unusable: fall back to GET and compare
		return nil
	}
	_, err = r.poll(ctx, p, obj, scope, "Resuming an operation on "+obj.AzureStatus().ID)
	return err
}

// terminalState reports a provisioningState no operation is running under
// (ARM's terminal states), or none reported.
func terminalState(ps string) bool {
	switch strings.ToLower(ps) {
	case "", "succeeded", "failed", "canceled":
		return true
	}
	return false
}

func provisioningState(body map[string]any) string {
	if p, ok := body["properties"].(map[string]any); ok {
		if s, ok := p["provisioningState"].(string); ok {
			return s
		}
	}
	return ""
}

// stepResume resumes a long-running operation recorded in
// status.resumeToken, before Azure is read.
func (r *Reconciler) stepResume(ctx context.Context, x *run) error {
	if x.obj.AzureStatus().ResumeToken == "" {
		return nil
	}
	if x.mode == modeDelete {
		return r.resumeDeletion(ctx, x)
	}
	return r.resume(ctx, x.calls, x.obj, x.scope)
}
