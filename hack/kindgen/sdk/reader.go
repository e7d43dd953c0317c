package sdk

import (
	"context"

	"github.com/aztenant/aztenant/hack/kindgen/config"
	"github.com/aztenant/aztenant/hack/kindgen/model"
)

// ReadAll loads the modules the given kinds need (in the module at dir) and reads each
// kind. A kind that cannot be read fails the whole call: a generator must not skip one
// silently.
func ReadAll(ctx context.Context, dir string, file *config.File, kinds []config.Kind) ([]*model.Kind, error) {
	pkgs, err := Load(ctx, dir, file.ModulePaths(kinds))
	if err != nil {
		return nil, err
	}
	out := make([]*model.Kind, 0, len(kinds))
	for _, k := range kinds {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		mk, err := Read(pkgs[file.Modules[k.Module]], file, k)
		if err != nil {
			return nil, err
		}
		out = append(out, mk)
	}
	return out, nil
}
