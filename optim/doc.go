// Package optim updates model parameters from their gradients: Adadelta, SGD
// (with momentum and Nesterov momentum), Adam and AdamW, each matching the
// update of its torch.optim namesake.
//
// The optimisers work on plain slices. A [Param] names one parameter tensor and
// holds its values and gradient; Step updates every value in place, in one fused
// pass per tensor. Optimiser state (momentum buffers, running averages, step
// counts) is kept per parameter name, so the same optimiser can be driven with
// the parameters of one model step after step, and [State] can be saved with
// package checkpoint and restored to continue a run exactly.
//
// Step checks everything before it changes anything: value and gradient
// lengths, state lengths, duplicate names, and that every gradient is finite.
// When a check fails Step returns an error naming the parameter and leaves all
// parameters and all state as they were.
//
// On amd64 the float32 updates of Adadelta and Adam run in AVX2 kernels that
// give the same bits as their pure-Go twins (the build tag purego selects the
// twins alone). A tensor of 128Ki elements or more is split over up to
// kernel.Threads() goroutines by kernel.Parallel. An optimiser is not safe for concurrent use.
package optim
