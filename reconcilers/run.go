package reconcilers

import (
	"time"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	"github.com/aztenant/aztenant/identity"
	"github.com/aztenant/aztenant/reconcilers/armclient"
)

// A mode is what a run of the pipeline is for: it chooses which steps run
// and what the last one does.
type mode uint8

const (
	// modeManage writes Azure to match the spec (the controller's reconcile).
	// The policy step turns it into modeObserve for reconcile policy
	// observe, and into modeDelete for an object being deleted.
	modeManage mode = 1 << iota
	// modeObserve reads and compares, and shows every difference in status.
	modeObserve
	// modePreview says what a reconcile would do, writing nothing to Azure
	// or to the cluster (Preview, for Plans).
	modePreview
	// modeDelete deletes, detaches or lets go with the owner (delete.go).
	modeDelete

	allModes  = modeManage | modeObserve | modePreview | modeDelete
	notDelete = modeManage | modeObserve | modePreview
)

// run is one reconcile of one object in one mode: what each step settles
// for the next.
type run struct {
	mode   mode
	obj    azurev1alpha1.Resource
	patch  *patcher // nil in modePreview: nothing is written to the cluster
	policy Policy
	period time.Duration

	calls    armclient.Calls // with the namespace's credential
	scope    identity.Scope
	parentID string
	id       string // the ARM ID
	body     built
	// pristine is the body before plan completed it, for a second plan on
	// what a GET says when a listing did not show all well.
	pristine map[string]any
	byGET    bool           // the listing was not enough: read by GET
	actual   map[string]any // Azure's resource; nil: none
	from     listed         // the listing actual is from; zero: a GET
	// createdFor is the resource's TagCreatedFor; otherOwner who else owns
	// it (observe notes it).
	createdFor, otherOwner string
	change                 change

	owners         PlannedOwner // modePreview: objects of the same Plan
	parentCreating bool         // modePreview: the owner is planned, not in Azure
	preview        Preview      // modePreview: the answer

	resumedDone bool // modeDelete: a resumed deletion ARM reported done
	resumed     bool
}

// listedOr is err, or, for a resource read from a listing, errReadAgain: a
// listing only says all is well; a stop is decided on a GET.
func (x *run) listedOr(err error) error {
	if err != nil && !x.from.at.IsZero() {
		return errReadAgain
	}
	return err
}
