#!/usr/bin/python3
"""Time the Digits network in PyTorch, for comparison with wadn on one machine.

Two measurements, each the median of --runs timed runs after --warmup
untimed ones, with torch.set_num_threads(--threads):

  extractor  forward and backward of the Digits extractor on 512 random
             3x32x32 images: 3 x [Conv2d 3x3 (no padding), MaxPool2d 2x2
             (ceil mode), ReLU], 64, 128 and 256 filters, flattened to 2304
             features. Compare with `wadn bench digits --threads N`.
  step       one WADN training step of the Digits network as package wadn
             runs it without target labels, with the Digits defaults: 3
             source batches and 1 target batch of --batch images (default
             128; the default schedule of the runs takes 20) through the
             extractor in one pass; the classifier FC [2304, 512] ReLU [512,
             100] ReLU [100, 10] with the alpha-weighted cross-entropy of
             each source, normalised by the weights' sum; per source a critic
             FC [2304, 256] ReLU [256, 1] behind gradient reversal, with the
             WGAN-GP penalty on interpolated features (double backward, norm
             sqrt(sum g^2 + 1e-10)); the squared centroid term, sum_y
             alpha_t(y) S_t(y) mean_j (C_t^y - C^y)_j^2, between the sources'
             and the target's class centroids (moving averages) on the
             classifier's last hidden layer; one backward pass; a check that
             every gradient is finite; one Adadelta update (lr 0.5) of every
             parameter; and the moving average (0.9995) of the extractor's
             and the classifier's weights. Compare with `go test -run '^$'
             -bench DigitsStep -cpu N ./wadn/` (128) or `wadn bench digits
             --step --batch B --threads N`.

GFLOP/s counts the direct convolution's multiply-adds, as wadn does: per
layer 2*N*F*C*9*OH*OW for the forward pass and the filter gradient, and for
the input gradient of every layer but the first (64.1 GFLOP per pass of 512
images).

Run it with Debian's python3-torch (apt-get install python3-torch), e.g.

  /usr/bin/python3 scripts/torch_digits.py --threads 1
  /usr/bin/python3 scripts/torch_digits.py --threads 2 --only extractor
  /usr/bin/python3 scripts/torch_digits.py --threads 2 --only step --batch 20

It prints one JSON object per measurement, with the BLAS library PyTorch
loaded ("blas": Debian's python3-torch takes whichever libblas.so.3
update-alternatives names, the reference BLAS unless OpenBLAS is installed),
how malloc was set ("malloc", see --malloc) and, for the step, the page
faults a timed step took. For PyTorch at its best on an AVX-512 machine,
install libopenblas0-pthread and set OPENBLAS_CORETYPE=SkylakeX: OpenBLAS
0.3.21 does not know AMD's Zen 5 and takes its AVX2 (Haswell) kernels there.
"""

import argparse
import ctypes
import json
import os
import resource
import statistics
import sys
import time

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError as e:
    sys.exit(f"torch_digits.py: PyTorch is not installed ({e}); on Debian: apt-get install python3-torch")

IMAGES = 512
BATCH = 128
SOURCES = 3
CLASSES = 10


def extractor():
    layers, c = [], 3
    for out in (64, 128, 256):
        layers += [nn.Conv2d(c, out, 3), nn.MaxPool2d(2, 2, ceil_mode=True), nn.ReLU()]
        c = out
    layers.append(nn.Flatten())
    return nn.Sequential(*layers)


def mlp(sizes):
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i + 2 < len(sizes):
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


def conv_gflop(n):
    """The direct convolutions' flops of one forward and backward pass."""
    flops, side, chans = 0, 32, (3, 64, 128, 256)
    for i in range(1, 4):
        out = side - 2
        passes = 2 if i == 1 else 3
        flops += passes * 2 * n * chans[i] * chans[i - 1] * 9 * out * out
        side = (out + 1) // 2
    return flops / 1e9


class GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.view_as(x)

    @staticmethod
    def backward(ctx, g):
        return -g


def centroid(z, y, old, keep):
    """keep*old + (1-keep)*(batch mean of class y) for the classes present."""
    onehot = F.one_hot(y, old.shape[0]).to(z.dtype)
    count = onehot.sum(0)
    m = onehot.t() / count.clamp(min=1).unsqueeze(1) * (1 - keep)
    a = torch.where(count > 0, torch.full_like(count, keep), torch.ones_like(count)).unsqueeze(1)
    return old.detach() * a + m @ z


def ema_rate(decay, n):
    """The weight of the past in the average's update after n earlier ones,
    as package method takes it: the plain mean until 1/(1-decay) updates."""
    return min(decay, (n + 1) / (n + 2))


class Step:
    """One WADN Digits step, with the Digits defaults of package wadn."""

    def __init__(self, batch=BATCH):
        self.batch = batch
        self.ext = extractor()
        self.cls = mlp([2304, 512, 100, CLASSES])
        self.critics = nn.ModuleList(mlp([2304, 256, 1]) for _ in range(SOURCES))
        self.model = list(self.ext.parameters()) + list(self.cls.parameters())
        self.params = self.model + list(self.critics.parameters())
        self.opt = torch.optim.Adadelta(self.params, lr=0.5)
        self.shadow = [p.detach().clone() for p in self.model]
        self.updates = 0
        self.decay = 0.9995
        self.xs = [torch.randn(batch, 3, 32, 32) for _ in range(SOURCES)]
        self.ys = [torch.randint(0, CLASSES, (batch,)) for _ in range(SOURCES)]
        self.xt = torch.randn(batch, 3, 32, 32)
        self.alpha = torch.rand(SOURCES, CLASSES) + 0.5
        self.share = [torch.bincount(y, minlength=CLASSES).to(torch.float32) / batch for y in self.ys]
        self.lam = torch.full((SOURCES,), 1.0 / SOURCES)
        self.cent_s = [torch.zeros(CLASSES, 100) for _ in range(SOURCES)]
        self.cent_t = torch.zeros(CLASSES, 100)
        self.eps, self.c0, self.gp, self.keep = 0.5, 0.02, 10.0, 0.7

    def __call__(self):
        T, B = SOURCES, self.batch
        z = self.ext(torch.cat(self.xs + [self.xt]))
        h = self.cls[:4](z)
        logits = self.cls[4](h)
        zr = GradReverse.apply(z)
        yt = logits[T * B:].argmax(1).detach()
        ct_target = centroid(h[T * B:], yt, self.cent_t, self.keep)
        total = 0
        new_cent = []
        for t in range(T):
            lo, y = t * B, self.ys[t]
            w = self.alpha[t][y]
            cls = (F.cross_entropy(logits[lo:lo + B], y, reduction="none") * w).sum() / w.sum()
            ct = centroid(h[lo:lo + B], y, self.cent_s[t], self.keep)
            new_cent.append(ct.detach())
            expl = (((ct - ct_target) ** 2).mean(1) * self.alpha[t] * self.share[t]).sum()
            critic = self.critics[t]
            impl = (critic(zr[lo:lo + B]).squeeze(1) * w).mean() - critic(zr[T * B:]).mean()
            xi = torch.rand(())
            zi = (xi * z[lo:lo + B].detach() + (1 - xi) * z[T * B:].detach()).requires_grad_(True)
            g, = torch.autograd.grad(critic(zi).sum(), zi, create_graph=True)
            gp = (((g ** 2).sum(1) + 1e-10).sqrt() - 1).pow(2).mean()
            adv = (1 - self.eps) * self.c0
            term = cls + self.eps * self.c0 * expl - adv * impl + adv * self.gp * gp
            total = total + self.lam[t] * term
        self.opt.zero_grad()
        total.backward()
        # The largest magnitude of each gradient is finite exactly when
        # every value is (NaN propagates through amax). abs().amax() takes
        # under a millisecond a step where torch._foreach_norm(grads, inf)
        # took 11 and isfinite(g).all() 7 (one thread, PyTorch 1.13).
        grads = [p.grad for p in self.params]
        if not torch.isfinite(torch.stack([g.abs().amax() for g in grads])).all():
            raise FloatingPointError("a gradient is not finite")
        self.opt.step()
        with torch.no_grad():
            q = 1 - ema_rate(self.decay, self.updates)
            for s, p in zip(self.shadow, self.model):
                s.lerp_(p, q)
        self.updates += 1
        self.cent_s = new_cent
        self.cent_t = ct_target.detach()
        return float(total)


def time_runs(f, warmup, runs):
    for _ in range(warmup):
        f()
    secs = []
    for _ in range(runs):
        start = time.perf_counter()
        f()
        secs.append(time.perf_counter() - start)
    return secs


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    return {k: k in flags for k in ("avx2", "fma", "avx512f")}
    except OSError:
        pass
    return {}


def keep_freed_memory():
    """Makes glibc's malloc keep freed memory for reuse instead of returning
    it to the system: blocks of up to 32 MiB (glibc's largest threshold) come
    from the heap rather than from mmap, and the heap is never trimmed. PyTorch
    frees and allocates its tensors' buffers at every step; returned to the
    system, each comes back zeroed page by page, a page fault each (about 10
    thousand a step at batch 20), which has doubled the step's time on a
    virtual machine. Returns False where this is not glibc."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
        return bool(libc.mallopt(M_MMAP_THRESHOLD, 32 << 20)) and bool(libc.mallopt(M_TRIM_THRESHOLD, 2**31 - 1))
    except (OSError, AttributeError):
        return False


def blas_library():
    """The BLAS library the process has loaded, as /proc/self/maps names it
    (Debian's python3-torch takes libblas.so.3, which update-alternatives
    points at the reference BLAS or at OpenBLAS), or "" where unknown."""
    torch.ones(64, 64) @ torch.ones(64, 64)
    try:
        with open("/proc/self/maps") as f:
            names = {line.split()[-1] for line in f if len(line.split()) >= 6}
    except OSError:
        return ""
    for n in sorted(names):
        base = n.rsplit("/", 1)[-1]
        if base.startswith(("libblas", "libopenblas", "libmkl_rt", "libblis")):
            return os.path.realpath(n)
    return ""


def minor_faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--threads", type=int, default=1, help="torch.set_num_threads (default 1)")
    p.add_argument("--runs", type=int, default=5, help="timed runs (default 5)")
    p.add_argument("--warmup", type=int, default=2, help="untimed runs first (default 2)")
    p.add_argument("--only", choices=("extractor", "step"), help="run one measurement only")
    p.add_argument("--batch", type=int, default=BATCH, help=f"step: images of each domain (default {BATCH})")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--malloc", choices=("keep", "system"), default="keep",
                   help="keep: glibc's malloc keeps freed memory for reuse (default); system: glibc's defaults, "
                        "which return large blocks to the system and fault them in again at every step")
    a = p.parse_args()
    if a.threads < 1 or a.runs < 1 or a.warmup < 0 or a.batch < 1:
        p.error("--threads, --runs and --batch must be at least 1, --warmup at least 0")
    kept = a.malloc == "keep" and keep_freed_memory()
    if a.malloc == "keep" and not kept:
        print("torch_digits.py: could not set glibc's malloc to keep freed memory; timing with the system's defaults",
              file=sys.stderr)
    torch.manual_seed(a.seed)
    torch.set_num_threads(a.threads)
    blas = blas_library()
    if "/blas/" in blas:
        print(f"torch_digits.py: PyTorch's matrix products go to the reference BLAS ({blas}), "
              "which is many times slower than an optimised one; on Debian: apt-get install libopenblas0-pthread",
              file=sys.stderr)
    common = {"framework": "pytorch", "version": torch.__version__, "threads": a.threads,
              "mkldnn": torch.backends.mkldnn.is_available(), "cpu_flags": cpu_flags(), "runs": a.runs,
              "blas": blas, "malloc": "keep" if kept else "system"}

    if a.only in (None, "extractor"):
        ext = extractor()
        x = torch.randn(IMAGES, 3, 32, 32)

        def pass_():
            ext.zero_grad(set_to_none=True)
            ext(x).sum().backward()

        secs = time_runs(pass_, a.warmup, a.runs)
        med = statistics.median(secs)
        gflop = conv_gflop(IMAGES)
        print(json.dumps({"target": "digits", "images": IMAGES, **common, "seconds": med,
                          "seconds_min": min(secs), "seconds_max": max(secs),
                          "gflop_per_pass": gflop, "gflops": gflop / med}))
    if a.only in (None, "step"):
        step = Step(a.batch)
        time_runs(step, a.warmup, 0)
        faults = minor_faults()
        secs = time_runs(step, 0, a.runs)
        faults = (minor_faults() - faults) / a.runs
        print(json.dumps({"target": "digits_step", "batch": a.batch, "sources": SOURCES, **common,
                          "seconds": statistics.median(secs), "seconds_min": min(secs),
                          "seconds_max": max(secs), "page_faults_per_step": faults}))


if __name__ == "__main__":
    main()
