package emulator

import (
	"net/http"
	"slices"
)

// The answer shapes of the generated kinds: per operation (PUT, PATCH, DELETE) the poller
// style and the status codes the type's Azure SDK for Go client accepts, which its
// generator took from the swagger's responses (kindgen writes them into
// zz_generated_types.go, naming the module, client and methods). Azure answers within
// them, and an SDK client refuses any other code (runtime.HasStatusCode), so the emulator
// picks its status among them, by ARM's RPC where they leave a choice:
//
//   - resource-api-reference.md (Azure/azure-resource-manager-rpc v1.0, "Create/Update
//     Resource"): 200 (OK) or 201 (Created) when a PUT completed synchronously, with "headers
//     common to all responses" only, so a synchronous 201 carries neither Location nor
//     Azure-AsyncOperation; "Delete Resource": 200 if the resource existed and was deleted, 204
//     if it did not exist, 202 when the deletion completes asynchronously;
//   - async-api-reference.md: a long-running PUT answers 201 Created or 200 OK with a
//     non-terminal provisioningState ("some ... existing PUT APIs return 202 Accepted. Please note
//     this is a old model"); a 202 carries a Location header and no body; the Location URL
//     answers 202 while in progress and then "the exact same response that would have been
//     returned had the operation been executed synchronously", for a DELETE 200 or 204 (its
//     example flow ends with 204).
//
// The hand-written types keep their own shapes (their sources are in their files); a
// run-time LRO override (SetLRO, Config.LRO) that changes an operation's style drops its
// codes, the override being what the test asked for.
type sdkShapes struct {
	put, patch, delete *sdkOperation
	// source names the SDK module, client and methods the codes were read from.
	source string
}

// sdkOperation is one operation: the emulator's style of the SDK's poller (LROSync when
// the method is not long-running) and the status codes the client accepts.
type sdkOperation struct {
	style LROStyle
	codes []int
}

func sdkOp(style LROStyle, codes ...int) *sdkOperation {
	return &sdkOperation{style: style, codes: codes}
}

// pick is the first of the preferred codes the operation documents; without any (or
// without the operation), the first preferred, the emulator's answer before the facts.
func (o *sdkOperation) pick(prefer ...int) int {
	if o != nil {
		for _, c := range prefer {
			if slices.Contains(o.codes, c) {
				return c
			}
		}
	}
	return prefer[0]
}

// applies says whether the SDK's codes hold for a request answered with style: they do
// unless an override changed the style the SDK's poller has.
func (o *sdkOperation) applies(style LROStyle) bool { return o != nil && o.style == style }

// putStatus is a PUT's status: synchronous, 201 on create and 200 on update (each when the
// SDK accepts it); long-running with Location, 202 as before when the SDK accepts it; other
// long-running styles 201 on create, 200 on update, else 202.
func (o *sdkOperation) putStatus(style LROStyle, created bool) int {
	switch {
	case style == LROSync && created:
		return o.pick(http.StatusCreated, http.StatusOK, http.StatusAccepted)
	case style == LROSync:
		return o.pick(http.StatusOK, http.StatusCreated, http.StatusAccepted)
	case style == LROLocation && created:
		return o.pick(http.StatusAccepted, http.StatusCreated, http.StatusOK)
	case style == LROLocation:
		return o.pick(http.StatusAccepted, http.StatusOK, http.StatusCreated)
	case created:
		return o.pick(http.StatusCreated, http.StatusAccepted, http.StatusOK)
	}
	return o.pick(http.StatusOK, http.StatusCreated, http.StatusAccepted)
}

// deleteStatus is a DELETE's status: of an existing resource 200 (synchronous) or 202,
// of an absent one 204, each else the code the SDK accepts (a swagger documenting 404 as
// a delete's success answers it for an absent resource).
func (o *sdkOperation) deleteStatus(style LROStyle, exists bool) int {
	switch {
	case !exists:
		return o.pick(http.StatusNoContent, http.StatusNotFound, http.StatusOK)
	case style == LROSync:
		return o.pick(http.StatusOK, http.StatusNoContent)
	}
	return o.pick(http.StatusAccepted, http.StatusOK, http.StatusNoContent)
}

// finalStatus is what an operationResults URL answers once the operation succeeded: for a
// delete 204 (the RPC's example flow), else 200, unless the SDK documents only the other;
// for a write 200 with the resource, else 201.
func (o *sdkOperation) finalStatus(del bool) int {
	if del {
		return o.pick(http.StatusNoContent, http.StatusOK)
	}
	return o.pick(http.StatusOK, http.StatusCreated)
}
