package emulator

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aztenant/aztenant/emulator/armpath"
)

// Every generated kind answers its PUT (create and update), PATCH and DELETE (of a
// resource and of an absent one), and the terminal poll of a long-running one, with a
// status its SDK client accepts (the codes kindgen read from the client, shapes.go), so a
// type-specific SDK client never refuses an emulator's answer that Azure would not give.
// A synchronous 201 carries no polling header; a 202 carries Location.
func TestGeneratedKindsAnswerTheSDKsStatusCodes(t *testing.T) {
	const sub = "3c7a9e2b-1d4f-4a6b-8c9d-2e3f4a5b6c7d"
	e, err := New(Config{Seed: Seed{
		Tenants:       []Tenant{{ID: "5f1d0c3a-8a4e-4b8e-9f7d-0a1b2c3d4e5f"}},
		Subscriptions: []Subscription{{ID: sub, TenantID: "5f1d0c3a-8a4e-4b8e-9f7d-0a1b2c3d4e5f"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	checked := 0
	for _, g := range generatedBehaviours() {
		b := e.behaviours[strings.ToLower(g.fullType)]
		if b.shapes == nil {
			continue // a hand-written type with shapes of its own
		}
		checked++
		sh := b.shapes
		// The resource and its ancestors, the ancestors stored as they are (their own
		// validation is not what this test is about).
		segs := strings.Split(g.fullType, "/")
		id := "/subscriptions/" + sub + "/resourceGroups/shapes/providers/" + segs[0]
		for i, s := range segs[1:] {
			id += "/" + s + "/n" + string(rune('a'+i))
		}
		ap := armpath.Parse(id)
		e.mu.Lock()
		for _, st := range ap.Steps[1 : len(ap.Steps)-1] {
			if e.resources[st.Key()] == nil {
				parent := e.resources[armpath.Parse(st.ID).Parent().Key()]
				r := &resource{id: st.ID, key: st.Key(), typ: st.FullType, parentKey: parent.key,
					body: map[string]any{"id": st.ID, "name": st.Name, "type": st.FullType, "location": "westeurope", "properties": map[string]any{}}}
				r.refresh()
				e.insertLocked(r)
			}
		}
		e.mu.Unlock()
		apiVersion := ""
		for _, rt := range generatedTypes {
			if strings.EqualFold(rt.fullType, g.fullType) {
				apiVersion = rt.versions[len(rt.versions)-1]
			}
		}
		call := func(method string) *httptest.ResponseRecorder {
			req, aerr := classify(ap, method)
			if aerr != nil {
				t.Fatalf("%s: %v", id, aerr.Message)
			}
			r := httptest.NewRequest(method, id+"?api-version="+apiVersion, strings.NewReader(`{"location":"westeurope","properties":{}}`))
			w := httptest.NewRecorder()
			switch method {
			case http.MethodDelete:
				aerr = e.deleteResource(w, r, req, nil, apiVersion)
			default:
				aerr = e.writeResource(w, r, req, nil, apiVersion)
			}
			if aerr != nil {
				w = httptest.NewRecorder()
				writeARMError(w, aerr)
			}
			return w
		}
		check := func(what string, w *httptest.ResponseRecorder, op *sdkOperation) {
			t.Helper()
			if op == nil {
				return
			}
			if !slices.Contains(op.codes, w.Code) {
				t.Errorf("%s %s answered %d; its SDK accepts %v (%s)", g.fullType, what, w.Code, op.codes, sh.source)
			}
			h := w.Header()
			switch {
			case w.Code == http.StatusCreated && op.style == LROSync && (h.Get("Location") != "" || h.Get("Azure-AsyncOperation") != ""):
				t.Errorf("%s %s: a synchronous 201 with polling headers %v", g.fullType, what, h)
			case w.Code == http.StatusAccepted && h.Get("Location") == "":
				t.Errorf("%s %s: a 202 without Location", g.fullType, what)
			}
		}
		// finish settles the request's operation and answers its Location's terminal poll.
		finish := func(what string, w *httptest.ResponseRecorder, op *sdkOperation) {
			t.Helper()
			loc := w.Header().Get("Location")
			e.settle(time.Now())
			if loc == "" || op == nil {
				return
			}
			opID := loc[strings.LastIndexByte(loc, '/')+1 : strings.IndexByte(loc, '?')]
			pw := httptest.NewRecorder()
			e.serveOperation(pw, httptest.NewRequest(http.MethodGet, loc, nil), opID, true)
			check(what+"'s terminal poll", pw, op)
		}
		w := call(http.MethodPut)
		check("create", w, sh.put)
		finish("create", w, sh.put)
		w = call(http.MethodPut)
		check("update", w, sh.put)
		finish("update", w, sh.put)
		w = call(http.MethodPatch)
		check("patch", w, sh.patch)
		finish("patch", w, sh.patch)
		if b.noDelete {
			continue
		}
		w = call(http.MethodDelete)
		check("delete", w, sh.delete)
		finish("delete", w, sh.delete)
		check("delete of an absent resource", call(http.MethodDelete), sh.delete)
	}
	if checked < 290 {
		t.Errorf("%d generated kinds checked; want every one with SDK shapes", checked)
	}
}
