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
	models, _, err := ReadAllPackages(ctx, dir, file, kinds)
	return models, err
}

// ReadAllPackages is ReadAll that also returns the loaded packages, by import path, for
// readers of what the models do not carry (the modules' example tests).
func ReadAllPackages(ctx context.Context, dir string, file *config.File, kinds []config.Kind) ([]*model.Kind, map[string]*Package, error) {
	pkgs, err := Load(ctx, dir, file.ModulePaths(kinds))
	if err != nil {
		return nil, nil, err
	}
	out := make([]*model.Kind, 0, len(kinds))
	for _, k := range kinds {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		mk, err := Read(pkgs[file.Modules[k.Module]], file, k)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, mk)
	}
	return out, pkgs, nil
}
