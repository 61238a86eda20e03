// Package autodiff computes gradients of programs written with dense tensors,
// by reverse-mode automatic differentiation, including gradients of gradients.
//
// # Terms of the reverse pass
//
// A Tensor is a dense row-major array of float32 or float64 values with a
// shape. Every operator (Add, MatMul, Tanh, ...) returns a new Tensor and
// records, in that tensor, a node of the computation graph: the operator's
// name, its input tensors and its backward function. A tensor made directly by
// the caller (New, FromSlice, Zeros, Scalar) has no node and is a leaf. A leaf
// marked with SetRequiresGrad(true) is a parameter: a quantity we want
// derivatives with respect to. An operator's output requires grad when at least
// one of its inputs does.
//
// The forward pass is the program itself: the graph is built as a side effect.
// The reverse pass starts from outputs ys with seeds (upstream gradients) of the
// same shapes, visits the nodes in reverse topological order and, at each node
// out = f(x1, ..., xn), calls its backward function with g = dL/dout, the sum of
// all the gradients that flowed into out. The backward function returns the
// vector-Jacobian products dL/dxi = g . df/dxi, one per input, and the engine
// adds each into the pending gradient of xi. When every consumer of xi has been
// visited its pending gradient is complete and xi's own node can run.
// Backward finishes by adding the gradients of the leaves into their Grad();
// Gradients returns the gradients of the requested tensors instead, like
// torch.autograd.grad.
//
// # Gradients of gradients
//
// A backward function receives a flag createGraph. When it is set, the backward
// function must build its result out of differentiable operators of this
// package (Mul(g, b) rather than a raw loop): the returned gradient is then
// itself a node of the graph, depending on the inputs, and can be
// differentiated again. This is how the WGAN-GP gradient penalty
// (||grad_z d(z)|| - 1)^2 is differentiated with respect to the critic's
// weights. When createGraph is false the backward function may use raw kernels
// and build nothing: this is the fast path of an ordinary training step.
//
// # Buffers and their lifetime
//
// Operators take their output buffers from a per-element-type pool (alloc), so
// that a training step that repeats itself reuses the memory of the previous
// step instead of asking the operating system for fresh pages. The rules:
//
//   - (*Tensor).Release returns to the pool the buffer of the tensor and of
//     every tensor reachable from it through operator inputs that an operator
//     produced, together with their saved temporaries. Leaves (New, FromSlice,
//     Zeros, Scalar) and the gradients of leaves are never recycled. After
//     Release none of the released tensors may be used again: their Data is
//     nil. Call it once per step, on the final loss, after Backward and after
//     the optimiser has read what it needs.
//   - Tensors returned by Gradients without createGraph are leaves owned by the
//     caller; Release on them recycles just their buffer.
//   - Detach and Reshape share their input's buffer. A shared view does not
//     own the buffer and is never the one that recycles it; it must not be
//     used after the tensor owning the buffer has been released.
//   - Buffers that are never released are simply collected by the garbage
//     collector: forgetting Release costs speed, not correctness.
//
// # Parameters' gradients
//
// Backward adds into the Grad of every parameter it reaches. ZeroGrad resets
// a gradient lazily: the next Backward stores its result by swapping buffers
// instead of adding to zeros. So Grad returns the same tensor from step to
// step, but its Data may be a different slice after each Backward: read it
// again each step.
//
// A weight read by several MatMuls as their right operand (the weights of a
// layer applied to several batches of rows) gets from each a product over
// rows, op(a)ᵀg. In the default numerics Backward holds these until the pass
// meets the last of them, and then takes them as one product over all their
// rows stacked, in the order it met them, added to what else has flowed
// into the weight: one product's sums, whose last bits differ from those of
// separate products added. A weight with one such product gets it as
// before. The reference numerics, and Gradients, add separate products.
//
// # Concurrency
//
// Building a graph and running a reverse pass over it are not safe for
// concurrent use; distinct graphs may be built and differentiated in
// different goroutines (the buffer pool is safe, and parameters, being
// leaves, are only read, except by Backward, which writes their Grad).
// Operators split large element-wise and per-row work over
// kernel.Threads() goroutines themselves.
//
// # Adding an operator
//
// One file per operator, forward and backward side by side:
//
//  1. Check the shapes; on a mismatch panic with a *ShapeError (wrong shapes
//     are programming errors, like an out-of-range index).
//  2. Compute the output into a pooled buffer: out := empty[T](shape...).
//  3. Return newOp(name, out, inputs, bw). newOp records the graph node; bw is
//     kept only when some input requires grad.
//  4. bw(g, createGraph) returns one gradient per input, each of its input's
//     shape, or nil for an input that needs none (check out.wantGrad(i)). With
//     createGraph it composes differentiable operators; without it may call
//     raw kernels and return tensors made by empty. Either way, undo
//     broadcasting with sumTo. Temporaries the closure captures that are not
//     inputs (a saved mask, a softmax) are handed to out.retain so Release
//     recycles them too.
//
// The engine owns what a backward function returns: on the fast path, once
// it has added the results into the pending gradients, it releases every
// tensor created during the call that the results reach (tensors made before
// the call are never touched). So a backward function must not keep its
// results, or tensors made while computing them, anywhere else (no caches).
//
// # Numerical conventions
//
// Operators follow IEEE arithmetic and do not hide it: Log(0) is -Inf, Div by
// zero is ±Inf (or NaN for 0/0), Sqrt of a negative number is NaN, and so are
// their gradients. Nothing is clamped silently; the loss helpers that must be
// finite (CrossEntropy, LogSoftmax, RowNorm) are written in forms that stay
// finite for finite inputs. Use HasNaN to check a tensor.
package autodiff
