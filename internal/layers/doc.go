// Package layers holds, in its test, the rule that the module's imports
// point one way. The module's top-level trees form layers, highest first:
//
//	cmd
//	wadn
//	nn, optim, convex
//	autodiff
//	data
//	internal
//
// A package may import any package of its own tree (wadn/method may import
// wadn/dataset) and any package of a lower layer. It may not import a
// package of a higher layer, nor one of another tree of its own layer: nn,
// optim and convex do not import each other's trees. A tree is the first
// element of a package's path inside the module, so nn/safetensors is in nn
// and wadn/internal/fixture in wadn. The rule covers a package's test files
// too, and every new top-level tree must be given a layer.
//
// The package has no code: its test runs "go list" on the module and fails
// on every import against the rule.
package layers
