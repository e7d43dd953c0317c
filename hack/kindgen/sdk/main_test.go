package sdk_test

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/aztenant/aztenant/hack/kindgen/config"
	"github.com/aztenant/aztenant/hack/kindgen/model"
	"github.com/aztenant/aztenant/hack/kindgen/sdk"
)

// The tests read the real config and the real pinned modules, loaded once: the facts they
// check are the SDK's, not fixtures.
const (
	configPath = "../../../api/kinds.yaml"
	moduleDir  = ".."
)

var (
	loadOnce sync.Once
	cfg      *config.File
	pkgs     map[string]*sdk.Package
	loadErr  error
)

func load(t *testing.T) (*config.File, map[string]*sdk.Package) {
	t.Helper()
	loadOnce.Do(func() {
		cfg, loadErr = config.Load(configPath)
		if loadErr != nil {
			return
		}
		start := time.Now()
		pkgs, loadErr = sdk.Load(context.Background(), moduleDir, cfg.ModulePaths(cfg.Kinds))
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		t.Logf("loaded %d modules in %s (heap in use %d MiB)", len(pkgs), time.Since(start).Round(time.Millisecond), ms.HeapInuse>>20)
	})
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	return cfg, pkgs
}

// read builds one configured kind, by group/Kind.
func read(t *testing.T, key string) *model.Kind {
	t.Helper()
	file, pkgs := load(t)
	for _, k := range file.Kinds {
		if k.Key() == key {
			mk, err := sdk.Read(pkgs[file.Modules[k.Module]], file, k)
			if err != nil {
				t.Fatal(err)
			}
			return mk
		}
	}
	t.Fatalf("no kind %s in %s", key, configPath)
	return nil
}
