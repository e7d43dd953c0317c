package reconcilers

import (
	"context"
	"time"
)

// This file is the read step: the resource as Azure has it.

// stepRead reads the resource (nil: none). A steady object in modeManage is
// read from a listing of its collection (lists.go), else by GET; an object
// of a Plan whose owner the Plan creates has none to read.
func (r *Reconciler) stepRead(ctx context.Context, x *run) error {
	x.actual, x.from = nil, listed{}
	switch x.mode {
	case modeManage:
		if !x.byGET {
			if body, l, ok := r.fromList(ctx, x.obj, x.calls, x.scope, x.id, x.period); ok && body != nil {
				r.lists.checkedAt(x.obj, l.at)
				x.actual, x.from = body, l
				// plan completes the desired body in place (tags, the owner
				// marker): kept aside for a second plan on what a GET says.
				x.pristine = cloneJSON(x.body.desired).(map[string]any)
				return nil
			}
		}
		at := time.Now()
		actual, err := x.calls.Get(ctx, x.id)
		if err != nil {
			return r.armFailure(err, x.scope)
		}
		r.lists.checkedAt(x.obj, at)
		x.actual = actual
	case modePreview:
		if x.parentCreating {
			return nil
		}
		actual, err := x.calls.Get(ctx, x.id)
		if err != nil {
			o := r.armFailure(err, x.scope)
			r.hintNewGroup(x.obj, o) // as a reconcile says it
			return o
		}
		x.actual = actual
	case modeDelete:
		actual, err := x.calls.Get(ctx, x.id)
		if x.resumedDone && accessWentWithIt(err) {
			actual, err = nil, nil
		}
		if err != nil {
			return r.armFailure(err, x.scope)
		}
		x.actual = actual
	default:
		actual, err := x.calls.Get(ctx, x.id)
		if err != nil {
			return r.armFailure(err, x.scope)
		}
		x.actual = actual
	}
	return nil
}

// cloneJSON copies a JSON-shaped value (maps, slices and scalars).
func cloneJSON(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = cloneJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = cloneJSON(e)
		}
		return out
	default:
		return v
	}
}
