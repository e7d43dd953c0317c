package emulator

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/aztenant/aztenant/emulator/armpath"
)

const maxARMBodySize = 4 << 20

// armWriter remembers the status for the audit log.
type armWriter struct {
	http.ResponseWriter
	status int
}

func (w *armWriter) WriteHeader(s int) {
	if w.status == 0 {
		w.status = s
	}
	w.ResponseWriter.WriteHeader(s)
}

func (w *armWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// serveARM is the ARM front door: authentication, api-version, subscription and tenant
// checks, throttling and injected faults, RBAC, then the operation itself.
func (e *Emulator) serveARM(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	aw := &armWriter{ResponseWriter: w}
	aw.Header().Set("x-ms-request-id", newGUID())
	entry := AuditEntry{Time: start, Service: "arm", Method: r.Method, Path: r.URL.Path, UserAgent: r.UserAgent()}
	if err := e.handleARM(aw, r, &entry); err != nil {
		entry.ErrorCode = err.Code
		if err.Status == http.StatusUnauthorized {
			aw.Header().Set("WWW-Authenticate", e.challenge(r, entry.TenantID, err))
		}
		writeARMError(aw, err)
	}
	entry.Status = aw.status
	entry.LatencyMS = float64(time.Since(start).Microseconds()) / 1000
	e.audit.record(entry)
}

type reqKind int

const (
	kindResource reqKind = iota
	kindList
	kindAction
	kindOperation
	kindProvider
	kindProviderList
	kindSubscriptionList
	kindTenantList
	kindLocationList
	kindRoleDefinition
	kindRoleDefinitionList
)

// armRequest is a classified ARM request.
type armRequest struct {
	kind     reqKind
	path     armpath.Path
	target   armpath.Step // the addressed resource, or the scope of a list
	listType string       // lower full type of a list; "" lists every top-level type
	deep     bool         // list the whole subtree rather than direct children
	action   string       // POST action or provider namespace
	rbacType string       // full type naming the RBAC action
}

func classify(ap armpath.Path, method string) (*armRequest, *apiError) {
	req := &armRequest{path: ap, target: ap.Last()}
	last, tail := ap.Last(), ap.Tail
	lt := last.TypeKey()
	isSub, isRG := lt == typeSubscription, lt == typeResourceGroup
	switch {
	case len(ap.Steps) == 0 && len(tail) == 1 && strings.EqualFold(tail[0], "subscriptions"):
		req.kind = kindSubscriptionList
	case len(ap.Steps) == 0 && len(tail) == 1 && strings.EqualFold(tail[0], "tenants"):
		req.kind = kindTenantList
	case len(ap.Steps) == 1 && isSub && len(tail) == 1 && strings.EqualFold(tail[0], "locations"):
		req.kind = kindLocationList
	case len(tail) == 0 && (strings.HasSuffix(lt, "/locations/operationstatuses") || strings.HasSuffix(lt, "/locations/operationresults")):
		req.kind = kindOperation
	case len(tail) == 0 && lt == typeRoleDefinition:
		req.kind = kindRoleDefinition
	case len(ap.Steps) == 0:
		if len(tail) == 3 && strings.EqualFold(tail[1]+"/"+tail[2], typeRoleDefinition) {
			req.kind = kindRoleDefinitionList
			break
		}
		return nil, armErr(http.StatusNotFound, "InvalidResourceType", "The emulator serves no tenant-level resources at this path.")
	case len(tail) == 0:
		req.kind, req.rbacType = kindResource, last.FullType
	case len(tail) == 1 && method == http.MethodPost:
		req.kind, req.action, req.rbacType = kindAction, tail[0], last.FullType
	case len(tail) == 1 && isSub && strings.EqualFold(tail[0], "resourcegroups"):
		req.kind, req.listType, req.rbacType = kindList, typeResourceGroup, "Microsoft.Resources/resourceGroups"
	case len(tail) == 1 && (isSub || isRG) && strings.EqualFold(tail[0], "resources"):
		req.kind, req.deep = kindList, isSub
		req.rbacType = "Microsoft.Resources/subscriptions/resources"
		if isRG {
			req.rbacType = "Microsoft.Resources/subscriptions/resourceGroups/resources"
		}
	case len(tail) == 1 && isSub && strings.EqualFold(tail[0], "providers"):
		req.kind, req.rbacType = kindProviderList, "Microsoft.Resources/subscriptions/providers"
	case len(tail) == 1 && !isSub && !isRG:
		req.kind, req.listType, req.rbacType = kindList, strings.ToLower(last.FullType+"/"+tail[0]), last.FullType+"/"+tail[0]
	case len(tail) == 2 && isSub && strings.EqualFold(tail[0], "providers"):
		req.kind, req.action, req.rbacType = kindProvider, tail[1], "Microsoft.Resources/subscriptions/providers"
	case len(tail) == 3 && isSub && strings.EqualFold(tail[0], "providers") && method == http.MethodPost && strings.EqualFold(tail[2], "register"):
		req.kind, req.action, req.rbacType = kindProvider, tail[1], tail[1]+"/register"
	case len(tail) == 3 && strings.EqualFold(tail[0], "providers"):
		full := tail[1] + "/" + tail[2]
		if strings.EqualFold(full, typeRoleDefinition) {
			req.kind = kindRoleDefinitionList
			break
		}
		req.kind, req.listType, req.deep, req.rbacType = kindList, strings.ToLower(full), isSub, full
	default:
		return nil, armErr(http.StatusNotFound, "InvalidResourceType", "The emulator found no resource type at '%s'.", strings.Join(tail, "/"))
	}
	return req, nil
}

func (e *Emulator) handleARM(w http.ResponseWriter, r *http.Request, entry *AuditEntry) *apiError {
	if d := e.faults.latency(); d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return armErr(http.StatusRequestTimeout, "RequestTimeout", "The client went away.")
		}
	}
	now := time.Now()
	e.settle(now)
	e.settleAnswers()
	ap := armpath.Parse(r.URL.Path)
	sub := ap.Subscription()
	subTenant := ""
	if sub != "" {
		e.mu.RLock()
		if s := e.resources["/subscriptions/"+strings.ToLower(sub)]; s != nil {
			subTenant = str(s.body, "tenantId")
		}
		e.mu.RUnlock()
	}
	entry.TenantID = subTenant
	c, err := e.authenticate(r)
	if err != nil {
		return err
	}
	entry.PrincipalID, entry.ClientID = c.oid, c.appid
	if entry.TenantID == "" {
		entry.TenantID = c.tid
	}
	apiVersion := r.URL.Query().Get("api-version")
	if apiVersion == "" {
		return badRequest("MissingApiVersionParameter", "The api-version query parameter (?api-version=) is required for all requests.")
	}
	if sub != "" {
		if subTenant == "" {
			return armErr(http.StatusNotFound, "SubscriptionNotFound", "The subscription '%s' could not be found.", sub)
		}
		if !strings.EqualFold(subTenant, c.tid) {
			return armErr(http.StatusUnauthorized, "InvalidAuthenticationTokenTenant",
				"The access token is from the wrong issuer '%s/%s/'. It must match the tenant '%s/%s/' associated with this subscription. Please use the authority (URL) '%s/%s' to get the token.",
				e.base(r), c.tid, e.base(r), subTenant, e.base(r), subTenant)
		}
	}
	if terr := e.faults.throttle(c.oid, r.Method, now); terr != nil {
		entry.Fault = "throttled"
		return terr
	}
	req, err := classify(ap, r.Method)
	if err != nil {
		return err
	}
	if err := allowedMethod(req.kind, r.Method); err != nil {
		return err
	}
	ferr, opFail, fault := e.faults.injectError(req.rbacType, r.Method)
	if fault != "" {
		entry.Fault = fault
	}
	if ferr != nil {
		return ferr
	}
	// Lists are not refused but filtered: ARM answers with what the caller
	// may read (listResources).
	// Provider metadata is readable by any principal with a role anywhere
	// in the subscription, as in Azure (clients read it to pick
	// api-versions); registering still needs the provider's action.
	readsProviders := (req.kind == kindProvider || req.kind == kindProviderList) && r.Method == http.MethodGet
	if readsProviders {
		e.mu.RLock()
		reaches := e.reachesSubscriptionLocked(c, sub)
		e.mu.RUnlock()
		if !reaches {
			return armErr(http.StatusForbidden, "AuthorizationFailed",
				"The client '%s' with object id '%s' does not have authorization to perform action 'Microsoft.Resources/subscriptions/providers/read' over scope '/subscriptions/%s' or the scope is invalid. If access was recently granted, please refresh your credentials.",
				c.appid, c.oid, sub)
		}
	}
	if req.rbacType != "" && req.kind != kindList && !readsProviders {
		scope := req.target.ID
		e.mu.RLock()
		aerr := e.authorizeLocked(c, actionFor(req.rbacType, r.Method, req.action), scope)
		e.mu.RUnlock()
		if aerr != nil {
			return aerr
		}
	}
	switch req.kind {
	case kindResource, kindAction:
		err = checkAPIVersion(req.rbacType, apiVersion)
	case kindList:
		err = checkAPIVersion(req.listType, apiVersion)
	case kindRoleDefinition, kindRoleDefinitionList:
		err = checkAPIVersion("Microsoft.Authorization/roleDefinitions", apiVersion)
	default:
		err = checkAPIVersion("", apiVersion)
	}
	if err != nil {
		return err
	}
	switch req.kind {
	case kindOperation:
		e.serveOperation(w, r, req.target.Name, strings.HasSuffix(req.target.TypeKey(), "operationresults"))
		return nil
	case kindSubscriptionList:
		return e.listSubscriptions(w, c)
	case kindTenantList:
		return e.listTenants(w, c)
	case kindLocationList:
		return e.listLocations(w, c, req.target.Name)
	case kindProvider:
		writeJSON(w, http.StatusOK, providerBody(sub, req.action))
		return nil
	case kindProviderList:
		var value []any
		for _, ns := range providerNamespaces() {
			value = append(value, providerBody(sub, ns))
		}
		writeJSON(w, http.StatusOK, map[string]any{"value": value})
		return nil
	case kindRoleDefinition, kindRoleDefinitionList:
		return e.serveRoleDefinitions(w, r, req, c)
	case kindList:
		return e.listResources(w, r, req, c)
	case kindAction:
		return e.runAction(w, r, req)
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		return e.getResource(w, r, req)
	case http.MethodPut, http.MethodPatch:
		took, ferr := e.ficWriteInFlight(req)
		if ferr != nil {
			return ferr
		}
		if took > 0 {
			t := time.NewTimer(took)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
			}
		}
		return e.writeResource(w, r, req, opFail, apiVersion)
	case http.MethodDelete:
		return e.deleteResource(w, r, req, opFail, apiVersion)
	}
	return nil
}

func allowedMethod(k reqKind, m string) *apiError {
	ok := false
	switch k {
	case kindResource:
		ok = m == http.MethodGet || m == http.MethodHead || m == http.MethodPut || m == http.MethodPatch || m == http.MethodDelete
	case kindAction:
		ok = m == http.MethodPost
	case kindProvider:
		ok = m == http.MethodGet || m == http.MethodPost
	case kindRoleDefinition:
		ok = m == http.MethodGet || m == http.MethodPut || m == http.MethodDelete
	default:
		ok = m == http.MethodGet
	}
	if !ok {
		return armErr(http.StatusMethodNotAllowed, "MethodNotAllowed", "The requested method %s is not allowed here.", m)
	}
	return nil
}

// missingLocked explains, in ARM's words, which level of the path does not exist; nil when
// every level up to (and, with self, including) the target exists.
func (e *Emulator) missingLocked(ap armpath.Path, self bool) *apiError {
	n := len(ap.Steps)
	if !self {
		n--
	}
	rg := ap.ResourceGroup()
	for i := 0; i < n; i++ {
		s := ap.Steps[i]
		if e.resources[s.Key()] != nil {
			continue
		}
		switch {
		case s.TypeKey() == typeSubscription:
			return armErr(http.StatusNotFound, "SubscriptionNotFound", "The subscription '%s' could not be found.", s.Name)
		case s.TypeKey() == typeResourceGroup:
			return armErr(http.StatusNotFound, "ResourceGroupNotFound", "Resource group '%s' could not be found.", s.Name)
		case i < len(ap.Steps)-1:
			return armErr(http.StatusNotFound, "ParentResourceNotFound",
				"Can not perform requested operation on nested resource. Parent resource '%s' not found.", nestedName(ap, i))
		default:
			if err := providerNotFoundError(s.TypeKey()); err != nil {
				return err
			}
			return armErr(http.StatusNotFound, "ResourceNotFound",
				"The Resource '%s' under resource group '%s' was not found. For more details please go to https://aka.ms/ARMResourceNotFoundFix", nestedTypeName(ap, i), rg)
		}
	}
	return nil
}

// nestedName renders "account/default" for the i-th step, as ARM names nested parents.
func nestedName(ap armpath.Path, i int) string {
	var names []string
	for j := i; j >= 0; j-- {
		t := ap.Steps[j].TypeKey()
		if t == typeResourceGroup || t == typeSubscription {
			break
		}
		names = append([]string{ap.Steps[j].Name}, names...)
		if strings.Count(t, "/") == 1 {
			break
		}
	}
	return strings.Join(names, "/")
}

// nestedTypeName renders "Microsoft.Storage/storageAccounts/sa/blobServices/default" for the
// i-th step, as ARM names a missing resource.
func nestedTypeName(ap armpath.Path, i int) string {
	start := i
	for start > 0 && strings.Count(ap.Steps[start].TypeKey(), "/") > 1 {
		start--
	}
	out := ap.Steps[start].FullType + "/" + ap.Steps[start].Name
	for j := start + 1; j <= i; j++ {
		t := ap.Steps[j].FullType
		out += "/" + t[strings.LastIndexByte(t, '/')+1:] + "/" + ap.Steps[j].Name
	}
	return out
}

func (e *Emulator) getResource(w http.ResponseWriter, r *http.Request, req *armRequest) *apiError {
	e.mu.RLock()
	res := e.resources[req.target.Key()]
	var raw []byte
	var missing *apiError
	if res != nil {
		raw = res.raw
		if r.Method != http.MethodHead {
			e.answeredLocked(res)
		}
	} else {
		missing = e.missingLocked(req.path, true)
	}
	e.mu.RUnlock()
	if res == nil {
		if missing != nil && missing.Code == "ResourceNotFound" && req.target.TypeKey() == typeRoleAssignment {
			return armErr(http.StatusNotFound, "RoleAssignmentNotFound", "The role assignment '%s' is not found.", req.target.Name)
		}
		return missing
	}
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	writeJSON(w, http.StatusOK, raw)
	return nil
}

func readBody(r *http.Request) (map[string]any, *apiError) {
	b, err := io.ReadAll(io.LimitReader(r.Body, maxARMBodySize))
	if err != nil {
		return nil, badRequest("InvalidRequestContent", "The request content could not be read: %v", err)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return map[string]any{}, nil
	}
	m, err := decodeObject(b)
	if err != nil {
		return nil, badRequest("InvalidRequestContent", "The request content was invalid and cannot be deserialized: %v", err)
	}
	return m, nil
}

func (e *Emulator) writeResource(w http.ResponseWriter, r *http.Request, req *armRequest, opFail *FailRule, apiVersion string) *apiError {
	if req.target.TypeKey() == typeSubscription {
		return armErr(http.StatusMethodNotAllowed, "MethodNotAllowed", "Subscriptions are seeded through the emulator's Control API, not created through ARM.")
	}
	in, err := readBody(r)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.missingLocked(req.path, false); err != nil {
		return err
	}
	parentStep := req.path.Parent()
	parent := e.resources[parentStep.Key()]
	existing := e.resources[req.target.Key()]
	if existing != nil && existing.op != nil {
		return armErr(http.StatusConflict, "AnotherOperationInProgress", "Another operation on resource '%s' is in progress.", existing.id)
	}
	desired := in
	if r.Method == http.MethodPatch {
		if existing == nil {
			return e.missingLocked(req.path, true)
		}
		desired = mergePatch(cloneBody(existing.body), in)
	}
	if err := checkTags(desired); err != nil {
		return err
	}
	lro := e.lroForLocked(req.target.TypeKey())
	style := lro.Write
	if existing != nil && lro.Update != "" {
		style = lro.Update
	}
	sdk := e.sdkShapesLocked(req.target.TypeKey())
	shape := sdk.put
	if r.Method == http.MethodPatch && sdk.patch != nil && shape.applies(style) {
		// A PATCH answers as the SDK's Update does (a vault's is synchronous, its PUT
		// long-running), unless an override changed the write's style.
		shape, style = sdk.patch, sdk.patch.style
	}
	if !shape.applies(style) {
		shape = nil
	}
	if opFail != nil && style == LROSync {
		return ruleError(*opFail)
	}
	state := ""
	if style != LROSync {
		state = "Updating"
		if existing == nil {
			state = "Creating"
		}
	}
	// Children take their parent's casing; the last part keeps the request's.
	id := parent.id + req.target.ID[len(parentStep.ID):]
	res, created, serr := e.storeLocked(writeTarget{id: id, fullType: req.target.FullType, name: req.target.Name, parent: parent}, desired, state)
	if serr != nil {
		return serr
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	if shape != nil {
		status = shape.putStatus(style, created)
	}
	if style == LROSync {
		// A synchronous 201 carries no Location or Azure-AsyncOperation: ARM's RPC gives a
		// completed PUT "headers common to all responses" (shapes.go).
		e.answeredLocked(res)
		writeJSON(w, status, res.raw)
		return nil
	}
	op := e.startOpLocked(res, false, created, time.Duration(lro.Duration), opFail, apiVersion)
	if shape != nil {
		op.final = shape.finalStatus(false)
		if status == http.StatusAccepted && style == LROAsyncOperation {
			// A 202 carries Location (async-api-reference.md), Azure-AsyncOperation beside it.
			style = LROAsyncOperationLocation
		}
	}
	e.setOpHeaders(w, r, op, style)
	if created && lro.CreateStatus != 0 {
		status = lro.CreateStatus
	}
	if (shape == nil && style == LROLocation) || status == http.StatusAccepted {
		w.WriteHeader(http.StatusAccepted)
		return nil
	}
	writeJSON(w, status, res.raw)
	return nil
}

// sdkShapesLocked is a type's SDK shapes; the zero value (every operation nil) for types
// without them.
func (e *Emulator) sdkShapesLocked(typeKey string) sdkShapes {
	if b := e.behaviours[typeKey]; b != nil && b.shapes != nil {
		return *b.shapes
	}
	return sdkShapes{}
}

// storeLocked validates desired through the type's behaviour, fills id/name/type and
// provisioningState ("" means Succeeded) and stores it. It reports whether it created.
func (e *Emulator) storeLocked(t writeTarget, desired map[string]any, state string) (*resource, bool, *apiError) {
	key := strings.ToLower(t.id)
	existing := e.resources[key]
	if existing != nil {
		t.id, t.fullType, t.name = existing.id, existing.typ, str(existing.body, "name")
	}
	typeKey := strings.ToLower(t.fullType)
	b := e.behaviours[typeKey]
	generated := b != nil && b.generated
	sent, err := json.Marshal(desired)
	if err != nil {
		return nil, false, armErr(http.StatusBadRequest, "InvalidRequestContent", "The request content was invalid: %v", err)
	}
	var perturbed []*compiledAnswer
	var perturbKey string
	if e.perturb.perturbs(typeKey, generated) {
		typ := t.fullType
		if b != nil {
			typ = b.fullType
		}
		perturbed, perturbKey = e.perturbationsLocked(existing, typ, desired)
	}
	delete(desired, "id")
	delete(desired, "name")
	delete(desired, "type")
	ap := armpath.Parse(t.id)
	wr := &writeRequest{e: e, target: t, body: desired, props: propsOf(desired), existing: existing, subscriptionID: ap.Subscription()}
	if s := e.resources["/subscriptions/"+strings.ToLower(wr.subscriptionID)]; s != nil {
		wr.tenantID = str(s.body, "tenantId")
	}
	if b != nil && b.prepare != nil {
		if err := b.prepare(wr); err != nil {
			return nil, false, err
		}
	}
	if err := e.managedIdentityLocked(wr); err != nil {
		return nil, false, err
	}
	if b != nil {
		for _, p := range b.writeOnly {
			if prop, ok := strings.CutPrefix(p, "properties."); ok {
				delete(wr.props, prop)
			} else {
				delete(desired, p)
			}
		}
	}
	if state == "" {
		state = opSucceeded
	}
	wr.props["provisioningState"] = state
	if b != nil && b.nameAsPath {
		t.name = nestedName(ap, len(ap.Steps)-1)
	}
	desired["id"], desired["name"], desired["type"] = t.id, t.name, t.fullType
	if b != nil {
		b.spell(desired)
	}
	var done map[string]bool
	if existing != nil {
		done = existing.answerDone
	}
	if generated && e.examples {
		if x := exampleAnswerOf(typeKey); x != nil && x.Answers == "example" {
			x.apply(t.id, desired)
		}
	}
	later := e.answerLocked(t.id, typeKey, desired, done)
	later = append(later, applyAnswers(perturbed, t.id, desired, done)...)
	res := existing
	if res == nil {
		parentKey := ""
		if t.parent != nil {
			parentKey = t.parent.key
		}
		res = &resource{id: t.id, key: key, typ: t.fullType, parentKey: parentKey}
		res.body = desired
		res.refresh()
		e.insertLocked(res)
	} else {
		res.body = desired
		res.refresh()
	}
	res.later = later
	res.laterServed.Store(false)
	res.perturbed, res.perturbKey = perturbed, perturbKey
	res.sent = sent
	if b != nil && b.stored != nil {
		b.stored(e, res)
	}
	return res, existing == nil, nil
}

func (e *Emulator) deleteResource(w http.ResponseWriter, r *http.Request, req *armRequest, opFail *FailRule, apiVersion string) *apiError {
	tk := req.target.TypeKey()
	if tk == typeSubscription {
		return armErr(http.StatusMethodNotAllowed, "MethodNotAllowed", "Subscriptions cannot be deleted through the emulator's ARM.")
	}
	if b := e.behaviours[tk]; b != nil && b.noDelete {
		return armErr(http.StatusMethodNotAllowed, "MethodNotAllowed", "The requested method DELETE is not allowed for %s: it is deleted with its parent.", req.target.FullType)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	lro := e.lroForLocked(tk)
	style := lro.Delete
	shape := e.sdkShapesLocked(tk).delete
	if !shape.applies(style) {
		shape = nil
	}
	res := e.resources[req.target.Key()]
	if res == nil {
		if tk == typeResourceGroup {
			return e.missingLocked(req.path, true)
		}
		if err := e.missingLocked(req.path, false); err != nil {
			return err
		}
		status := http.StatusNoContent
		if shape != nil {
			status = shape.deleteStatus(style, false)
		}
		if status == http.StatusNotFound {
			return e.missingLocked(req.path, true)
		}
		w.WriteHeader(status)
		return nil
	}
	if b := e.behaviours[tk]; b != nil && b.beforeDelete != nil && res.op == nil {
		if err := b.beforeDelete(e, res); err != nil {
			return err
		}
	}
	if res.op != nil {
		if !res.op.delete {
			return armErr(http.StatusConflict, "AnotherOperationInProgress", "Another operation on resource '%s' is in progress.", res.id)
		}
		e.setOpHeaders(w, r, res.op, nonSync(style))
		w.WriteHeader(http.StatusAccepted)
		return nil
	}
	if style == LROSync {
		if opFail != nil {
			return ruleError(*opFail)
		}
		raw := res.raw
		e.removeLocked(res)
		if tk == typeRoleAssignment {
			// ARM answers a role assignment's DELETE with the assignment.
			writeJSON(w, http.StatusOK, raw)
			return nil
		}
		status := http.StatusOK
		if shape != nil {
			status = shape.deleteStatus(style, true)
		}
		w.WriteHeader(status)
		return nil
	}
	res.props()["provisioningState"] = "Deleting"
	res.refresh()
	op := e.startOpLocked(res, true, false, time.Duration(lro.Duration), opFail, apiVersion)
	if shape != nil {
		op.final = shape.finalStatus(true)
	}
	e.setOpHeaders(w, r, op, style)
	w.WriteHeader(http.StatusAccepted)
	return nil
}

func nonSync(s LROStyle) LROStyle {
	if s == LROSync {
		return LROLocation
	}
	return s
}

func (e *Emulator) runAction(w http.ResponseWriter, r *http.Request, req *armRequest) *apiError {
	in, err := readBody(r)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	res := e.resources[req.target.Key()]
	if res == nil {
		return e.missingLocked(req.path, true)
	}
	b := e.behaviours[res.typeKey()]
	var act actionFunc
	if b != nil {
		act = b.actions[strings.ToLower(req.action)]
	}
	if act == nil {
		return armErr(http.StatusNotFound, "NotFound", "The emulator does not implement action '%s' on resource type '%s'.", req.action, res.typ)
	}
	status, out, aerr := act(e, res, in)
	if aerr != nil {
		return aerr
	}
	writeJSON(w, status, out)
	return nil
}

func (e *Emulator) listResources(w http.ResponseWriter, r *http.Request, req *armRequest, c *caller) *apiError {
	q := r.URL.Query()
	f, ferr := parseListFilter(q.Get("$filter"), req.listType == typeRoleAssignment)
	if ferr != nil {
		return ferr
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	scope := e.resources[req.target.Key()]
	if scope == nil {
		return e.missingLocked(req.path, true)
	}
	items := collectLocked(scope, req.listType, req.deep, nil)
	if req.listType == "" {
		items = topLevelOnly(items)
	}
	if req.listType == typeRoleAssignment {
		items = e.roleAssignmentsLocked(scope, items, q.Get("$filter"))
	}
	kept := items[:0]
	for _, it := range items {
		if f.matches(it) && e.allowedLocked(c, actionFor(listedType(it), http.MethodGet, ""), it.id) {
			kept = append(kept, it)
		}
	}
	items = kept
	sort.Slice(items, func(i, j int) bool { return items[i].key < items[j].key })

	// Pages of $top (at most the page size), continued by nextLink with a
	// $skiptoken, as the SDK's pagers follow it.
	size := e.cfg.ListPageSize
	if size <= 0 {
		size = 1000
	}
	if top, err := strconv.Atoi(q.Get("$top")); err == nil && top > 0 && top < size {
		size = top
	}
	start := 0
	if tok := q.Get("$skiptoken"); tok != "" {
		n, err := strconv.Atoi(tok)
		if err != nil || n < 0 {
			return badRequest("InvalidSkipToken", "The skip token '%s' is not valid.", tok)
		}
		start = min(n, len(items))
	}
	end := min(start+size, len(items))
	var buf bytes.Buffer
	buf.WriteString(`{"value":[`)
	for i, it := range items[start:end] {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(it.raw)
		e.answeredLocked(it)
	}
	buf.WriteString("]")
	if end < len(items) {
		next := *r.URL
		nq := next.Query()
		nq.Set("$skiptoken", strconv.Itoa(end))
		next.RawQuery = nq.Encode()
		link, _ := json.Marshal(e.base(r) + next.RequestURI())
		buf.WriteString(`,"nextLink":`)
		buf.Write(link)
	}
	buf.WriteString("}")
	writeJSON(w, http.StatusOK, buf.Bytes())
	return nil
}

// listedType is the type whose read action lets a caller see a listed item.
func listedType(r *resource) string {
	if r.typeKey() == typeResourceGroup {
		return "Microsoft.Resources/subscriptions/resourceGroups"
	}
	return r.typ
}

// listFilter is the part of ARM's $filter the emulator understands:
// resourceGroup, resourceType, tagName and tagValue compared with eq, joined
// by and (role assignments' atScope() and principalId are read elsewhere).
type listFilter struct {
	resourceGroup, resourceType, tagName, tagValue string
}

func parseListFilter(expr string, roleAssignments bool) (listFilter, *apiError) {
	var f listFilter
	if strings.TrimSpace(expr) == "" || roleAssignments {
		return f, nil
	}
	for _, term := range splitFold(expr, " and ") {
		field, value, ok := strings.Cut(strings.TrimSpace(term), " eq ")
		value = strings.TrimSpace(value)
		if !ok || len(value) < 2 || value[0] != '\'' || value[len(value)-1] != '\'' {
			return f, badRequest("InvalidFilterInQueryString", "Invalid $filter '%s' specified in the query string.", expr)
		}
		value = value[1 : len(value)-1]
		switch strings.ToLower(strings.TrimSpace(field)) {
		case "resourcegroup":
			f.resourceGroup = value
		case "resourcetype":
			f.resourceType = value
		case "tagname":
			f.tagName = value
		case "tagvalue":
			f.tagValue = value
		default:
			return f, badRequest("InvalidFilterInQueryString", "Invalid $filter '%s' specified in the query string.", expr)
		}
	}
	if f.tagValue != "" && f.tagName == "" {
		return f, badRequest("InvalidFilterInQueryString", "Invalid $filter '%s' specified in the query string: tagValue needs tagName.", expr)
	}
	return f, nil
}

func (f listFilter) matches(r *resource) bool {
	if f.resourceGroup != "" && !strings.EqualFold(armpath.Parse(r.id).ResourceGroup(), f.resourceGroup) {
		return false
	}
	if f.resourceType != "" && !strings.EqualFold(r.typ, f.resourceType) {
		return false
	}
	if f.tagName != "" {
		tags, _ := r.body["tags"].(map[string]any)
		found := false
		for k, v := range tags {
			if strings.EqualFold(k, f.tagName) && (f.tagValue == "" || v == f.tagValue) {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// splitFold splits s at each case-insensitive occurrence of sep.
func splitFold(s, sep string) []string {
	var out []string
	lower, lsep := strings.ToLower(s), strings.ToLower(sep)
	for {
		i := strings.Index(lower, lsep)
		if i < 0 {
			return append(out, s)
		}
		out = append(out, s[:i])
		s, lower = s[i+len(sep):], lower[i+len(sep):]
	}
}

// topLevelOnly keeps tracked top-level resources, as the /resources listings do.
func topLevelOnly(in []*resource) []*resource {
	out := in[:0]
	for _, r := range in {
		t := r.typeKey()
		if strings.Count(t, "/") == 1 && t != typeResourceGroup && !strings.HasPrefix(t, "microsoft.authorization/") {
			out = append(out, r)
		}
	}
	return out
}

// roleAssignmentsLocked adds assignments at the scope's ancestors (ARM lists those that apply
// at, above and below a scope) and applies the two filters clients use: atScope() and
// principalId eq '...'.
func (e *Emulator) roleAssignmentsLocked(scope *resource, below []*resource, filter string) []*resource {
	var out []*resource
	f := strings.ToLower(filter)
	atScope := strings.Contains(f, "atscope()")
	if !atScope {
		out = append(out, below...)
	} else {
		out = append(out, collectLocked(scope, typeRoleAssignment, false, nil)...)
	}
	for p := e.resources[scope.parentKey]; p != nil; p = e.resources[p.parentKey] {
		out = append(out, collectLocked(p, typeRoleAssignment, false, nil)...)
	}
	if i := strings.Index(f, "principalid eq '"); i >= 0 {
		rest := f[i+len("principalid eq '"):]
		pid, _, _ := strings.Cut(rest, "'")
		kept := out[:0]
		for _, ra := range out {
			if strings.EqualFold(str(ra.props(), "principalId"), pid) {
				kept = append(kept, ra)
			}
		}
		out = kept
	}
	return out
}

func (e *Emulator) listSubscriptions(w http.ResponseWriter, c *caller) *apiError {
	e.mu.RLock()
	defer e.mu.RUnlock()
	var subs []*resource
	for _, r := range e.resources {
		if r.typeKey() == typeSubscription && strings.EqualFold(str(r.body, "tenantId"), c.tid) {
			subs = append(subs, r)
		}
	}
	sort.Slice(subs, func(i, j int) bool { return subs[i].key < subs[j].key })
	var buf bytes.Buffer
	buf.WriteString(`{"value":[`)
	for i, s := range subs {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(s.raw)
	}
	buf.WriteString("]}")
	writeJSON(w, http.StatusOK, buf.Bytes())
	return nil
}

// checkTags refuses tag names ARM refuses: characters <, >, %, &, \, ?, / or
// control characters (InvalidTagNameCharacters), names over 512 and values
// over 256 characters (the limits Microsoft documents for tags).
func checkTags(body map[string]any) *apiError {
	tags, _ := body["tags"].(map[string]any)
	var bad []string
	for k, v := range tags {
		if strings.ContainsAny(k, "<>%&\\?/") || strings.ContainsFunc(k, unicode.IsControl) {
			bad = append(bad, k)
			continue
		}
		if len(k) > 512 {
			return armErr(http.StatusBadRequest, "InvalidTagNameLength", "The tag name '%s' exceeds the maximum length of 512 characters.", k)
		}
		if sv, _ := v.(string); len(sv) > 256 {
			return armErr(http.StatusBadRequest, "InvalidTagValueLength", "The tag value '%s' exceeds the maximum length of 256 characters.", sv)
		}
	}
	if len(bad) > 0 {
		slices.Sort(bad)
		return armErr(http.StatusBadRequest, "InvalidTagNameCharacters",
			"The tag names '%s' have reserved characters '<,>,%%,&,\\,?,/' or control characters.", strings.Join(bad, ","))
	}
	return nil
}
