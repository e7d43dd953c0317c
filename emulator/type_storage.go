package emulator

import (
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"strings"
	"time"
)

const typeStorageAccount = "microsoft.storage/storageaccounts"

// storageAccountBehaviour: name rules and global uniqueness, endpoints and defaults ARM
// merges in, account keys (listKeys, regenerateKey), and the implicit default blob, file,
// queue and table services so container paths resolve.
func storageAccountBehaviour() *typeBehaviour {
	return &typeBehaviour{
		fullType: "Microsoft.Storage/storageAccounts",
		lro:      LROConfig{Write: LROLocation, Update: LROSync, Delete: LROSync},
		prepare: func(w *writeRequest) *apiError {
			name := w.target.name
			if !validStorageName(name) {
				return badRequest("AccountNameInvalid", "%s is not a valid storage account name. Storage account name must be between 3 and 24 characters in length and use numbers and lower-case letters only.", name)
			}
			if err := w.requireLocation(); err != nil {
				return err
			}
			if w.existing == nil {
				for _, r := range w.e.resources {
					if r.typeKey() == typeStorageAccount && str(r.body, "name") == name {
						return armErr(http.StatusConflict, "StorageAccountAlreadyTaken", "The storage account named %s is already taken.", name)
					}
				}
			}
			if _, ok := w.body["kind"]; !ok {
				w.body["kind"] = "StorageV2"
			}
			if _, ok := w.body["sku"]; !ok {
				w.body["sku"] = map[string]any{"name": "Standard_LRS", "tier": "Standard"}
			}
			defaults := map[string]any{
				"supportsHttpsTrafficOnly": true, "minimumTlsVersion": "TLS1_2", "allowBlobPublicAccess": false,
				"accessTier": "Hot",
			}
			for k, v := range defaults {
				if _, ok := w.props[k]; !ok {
					w.props[k] = v
				}
			}
			w.keep("creationTime", func() any { return time.Now().UTC().Format(time.RFC3339Nano) })
			ep := func(svc string) string { return "https://" + name + "." + svc + ".core.windows.net/" }
			w.props["primaryEndpoints"] = map[string]any{
				"blob": ep("blob"), "queue": ep("queue"), "table": ep("table"), "file": ep("file"),
				"dfs": ep("dfs"), "web": "https://" + name + ".z6.web.core.windows.net/",
			}
			w.props["primaryLocation"] = w.location()
			w.props["statusOfPrimary"] = "available"
			return nil
		},
		stored: func(e *Emulator, r *resource) {
			if r.secrets == nil {
				r.secrets = map[string]string{"key1": randomKey(64), "key2": randomKey(64)}
			}
			for _, svc := range []string{"blobServices", "fileServices", "queueServices", "tableServices"} {
				id := r.id + "/" + svc + "/default"
				if e.lookupLocked(id) != nil {
					continue
				}
				child := &resource{id: id, key: strings.ToLower(id), typ: r.typ + "/" + svc, parentKey: r.key,
					body: map[string]any{"id": id, "name": "default", "type": r.typ + "/" + svc, "properties": map[string]any{}}}
				child.refresh()
				e.insertLocked(child)
			}
		},
		actions: map[string]actionFunc{
			"listkeys": func(e *Emulator, r *resource, _ map[string]any) (int, any, *apiError) {
				return http.StatusOK, storageKeys(r), nil
			},
			"regeneratekey": func(e *Emulator, r *resource, body map[string]any) (int, any, *apiError) {
				k := str(body, "keyName")
				if k != "key1" && k != "key2" {
					return 0, nil, badRequest("InvalidValuesForRequestParameters", "Values for request parameters are invalid: keyName.")
				}
				r.secrets[k] = randomKey(64)
				return http.StatusOK, storageKeys(r), nil
			},
		},
	}
}

func storageKeys(r *resource) map[string]any {
	created := str(r.props(), "creationTime")
	keys := []map[string]any{}
	for _, k := range []string{"key1", "key2"} {
		keys = append(keys, map[string]any{"keyName": k, "value": r.secrets[k], "permissions": "FULL", "creationTime": created})
	}
	return map[string]any{"keys": keys}
}

func validStorageName(n string) bool {
	if len(n) < 3 || len(n) > 24 {
		return false
	}
	for _, c := range n {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// randomKey returns n random bytes, base64-encoded, like Azure access keys.
func randomKey(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}
