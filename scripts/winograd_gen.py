#!/usr/bin/python3
"""Generate the Winograd transforms of package autodiff/kernel.

Writes autodiff/kernel/winograd_1d.go (the one-dimensional transforms of
F(4x4, 3x3) and F(5x5, 3x3) as Go functions, with their rounding depths) and
autodiff/kernel/winograd_amd64.s (the same transforms as AVX2 macros, the
two-dimensional kernels built from them, and the 8-lane interleaves). Each
one-dimensional transform is written once below as a list of operations; the
Go function and the assembly macro perform exactly those operations in that
order (no fused multiply-add), so the assembly and its Go twin give the same
bits.

Run from the repository root:  /usr/bin/python3 scripts/winograd_gen.py
then gofmt -w autodiff/kernel/winograd_1d.go.
"""

import os
import sys

# Constants a transform may multiply by. Powers of two are exact; the others
# round. Each gets a 32-byte vector in the assembly's read-only data.
CONSTS = {2: "two", 4: "four", 5: "five", 8: "eight", 10: "ten", 16: "sixteen",
          0.5: "half", 0.25: "quarter", 0.125: "eighth", 0.0625: "sixteenth"}
EXACT = {2, 4, 8, 16, 0.5, 0.25, 0.125, 0.0625}


class Prog:
    """A one-dimensional transform as a straight-line list of operations."""

    def __init__(self, name, doc, nin, nout, innames="d", outnames="r"):
        self.name, self.doc = name, doc
        self.inputs = [f"{innames}{i}" for i in range(nin)]
        self.outnames = [f"{outnames}{i}" for i in range(nout)]
        self.ops = []  # (kind, dst, a, b) with kind mul/add/sub/neg/mov
        self.outputs = None
        self.n = 0

    def tmp(self):
        self.n += 1
        return f"t{self.n}"

    def mul(self, c, a):
        d = self.tmp()
        self.ops.append(("mul", d, a, c))
        return d

    def add(self, a, b):
        d = self.tmp()
        self.ops.append(("add", d, a, b))
        return d

    def sub(self, a, b):
        d = self.tmp()
        self.ops.append(("sub", d, a, b))
        return d

    def neg(self, a):
        d = self.tmp()
        self.ops.append(("neg", d, a, None))
        return d

    def dbl(self, a):
        return self.add(a, a)

    def out(self, *vals):
        assert len(vals) == len(self.outnames)
        self.outputs = list(vals)

    def depths(self):
        """Largest number of roundings on any path from an input to each output."""
        dep = {x: 0 for x in self.inputs}
        for kind, d, a, b in self.ops:
            if kind == "mul":
                dep[d] = dep[a] + (0 if b in EXACT else 1)
            elif kind in ("add", "sub"):
                # a + a is exact (a doubling)
                dep[d] = max(dep[a], dep[b]) + (0 if a == b else 1)
            else:
                dep[d] = dep[a]
        return [dep[o] for o in self.outputs]

    def formula(self):
        """The operations as readable lines, for the doc comments."""
        names = {x: x for x in self.inputs}
        for o, n in zip(self.outputs, self.outnames):
            if o not in self.inputs:
                names[o] = n
        lines = []
        for kind, d, a, b in self.ops:
            nd, na = names.get(d, d), names.get(a, a)
            if kind == "mul":
                c = b if b not in (0.5, 0.25, 0.125, 0.0625) else f"1/{int(1 / b)}"
                lines.append(f"{nd} = {c}*{na}")
            elif kind == "add":
                lines.append(f"{nd} = {na} + {names.get(b, b)}")
            elif kind == "sub":
                lines.append(f"{nd} = {na} - {names.get(b, b)}")
            else:
                lines.append(f"{nd} = -{na}")
        for o, n in zip(self.outputs, self.outnames):
            if o in self.inputs:
                lines.append(f"{n} = {o}")
        return lines


# ---- F(4x4, 3x3): points 0, 1, -1, 2, -2 and infinity.

def f4_bt():
    p = Prog("winoBT4", "Bᵀ of F(4x4, 3x3)", 6, 6)
    d = p.inputs
    q1 = p.mul(4, d[1])
    t0 = p.sub(d[4], p.mul(4, d[2]))
    t1 = p.sub(d[3], q1)
    r1, r2 = p.add(t0, t1), p.sub(t0, t1)
    t2 = p.sub(d[4], d[2])
    t3 = p.dbl(p.sub(d[3], d[1]))
    r3, r4 = p.add(t2, t3), p.sub(t2, t3)
    r0 = p.sub(p.add(p.mul(4, d[0]), d[4]), p.mul(5, d[2]))
    r5 = p.sub(p.add(q1, d[5]), p.mul(5, d[3]))
    p.out(r0, r1, r2, r3, r4, r5)
    return p


def f4_b():
    p = Prog("winoB4", "B of F(4x4, 3x3), the adjoint of winoBT4", 6, 6, "v", "x")
    v = p.inputs
    pp = p.sub(v[2], v[1])
    q = p.dbl(p.sub(v[4], v[3]))
    x0 = p.mul(4, v[0])
    x1 = p.add(p.add(p.mul(4, pp), q), p.mul(4, v[5]))
    x3 = p.neg(p.add(p.add(pp, q), p.mul(5, v[5])))
    s = p.add(v[1], v[2])
    t = p.add(v[3], v[4])
    x2 = p.neg(p.add(p.add(p.mul(5, v[0]), p.mul(4, s)), t))
    x4 = p.add(p.add(v[0], s), t)
    p.out(x0, x1, x2, x3, x4, v[5])
    return p


def f4_at():
    p = Prog("winoAT4", "Aᵀ of F(4x4, 3x3)", 6, 4, "m", "y")
    m = p.inputs
    s = p.add(m[1], m[2])
    d = p.sub(m[1], m[2])
    u = p.add(m[3], m[4])
    w = p.sub(m[3], m[4])
    y0 = p.add(p.add(m[0], s), u)
    y1 = p.add(d, p.dbl(w))
    y2 = p.add(s, p.mul(4, u))
    y3 = p.add(p.add(d, p.mul(8, w)), m[5])
    p.out(y0, y1, y2, y3)
    return p


def f4_a():
    p = Prog("winoA4", "A of F(4x4, 3x3), the adjoint of winoAT4", 4, 6, "y", "m")
    y = p.inputs
    e = p.add(y[0], y[2])
    o = p.add(y[1], y[3])
    f = p.add(y[0], p.mul(4, y[2]))
    g = p.add(p.dbl(y[1]), p.mul(8, y[3]))
    p.out(y[0], p.add(e, o), p.sub(e, o), p.add(f, g), p.sub(f, g), y[3])
    return p


# ---- F(5x5, 3x3): points 0, 1, -1, 2, -2, 1/2 and infinity, with Bᵀ's rows
# scaled to integers (G takes the inverse scales).

def f5_bt():
    p = Prog("winoBT5", "Bᵀ of F(5x5, 3x3)", 7, 7)
    d = p.inputs
    t0 = p.sub(d[4], p.mul(4, d[2]))
    t1 = p.sub(d[3], p.mul(4, d[1]))
    t2 = p.sub(d[5], p.mul(4, d[3]))
    u0 = p.sub(d[4], d[2])
    u1 = p.sub(d[3], d[1])
    u2 = p.sub(d[5], d[3])
    e = p.sub(p.dbl(t2), t0)
    o = p.sub(p.dbl(t0), t1)
    r1, r2 = p.add(e, o), p.sub(e, o)
    e2 = p.sub(p.dbl(u2), u0)
    o2 = p.dbl(p.sub(p.dbl(u0), u1))
    r3, r4 = p.add(e2, o2), p.sub(e2, o2)
    r5 = p.sub(t2, t1)
    w0 = p.sub(p.add(p.mul(4, d[0]), d[4]), p.mul(5, d[2]))
    r0 = p.sub(p.dbl(r5), w0)
    w2 = p.sub(p.add(p.mul(4, d[2]), d[6]), p.mul(5, d[4]))
    r6 = p.sub(p.dbl(w2), r5)
    p.out(r0, r1, r2, r3, r4, r5, r6)
    return p


def f5_b():
    p = Prog("winoB5", "B of F(5x5, 3x3), the adjoint of winoBT5", 7, 7, "v", "x")
    v = p.inputs
    # The adjoint of winoBT5's operations, in reverse.
    r5 = p.sub(p.add(v[5], p.dbl(v[0])), v[6])  # v5 + 2v0 - v6
    e = p.add(v[1], v[2])
    o = p.sub(v[1], v[2])
    e2 = p.add(v[3], v[4])
    o2 = p.dbl(p.sub(v[3], v[4]))
    t2 = p.add(p.dbl(e), r5)
    t0 = p.sub(p.dbl(o), e)
    t1 = p.neg(p.add(o, r5))
    u2 = p.dbl(e2)
    u0 = p.sub(p.dbl(o2), e2)
    u1 = p.neg(o2)
    v6x2 = p.dbl(v[6])
    x0 = p.neg(p.mul(4, v[0]))
    x1 = p.neg(p.add(p.mul(4, t1), u1))
    x2 = p.add(p.neg(p.add(p.mul(4, t0), u0)), p.add(p.mul(5, v[0]), p.mul(4, v6x2)))
    x3 = p.sub(p.add(t1, u1), p.add(p.mul(4, t2), u2))
    x4 = p.sub(p.add(t0, u0), p.add(v[0], p.mul(5, v6x2)))
    x5 = p.add(t2, u2)
    p.out(x0, x1, x2, x3, x4, x5, v6x2)
    return p


def f5_at():
    p = Prog("winoAT5", "Aᵀ of F(5x5, 3x3)", 7, 5, "m", "y")
    m = p.inputs
    s1 = p.add(m[1], m[2])
    d1 = p.sub(m[1], m[2])
    s2 = p.add(m[3], m[4])
    d2 = p.sub(m[3], m[4])
    y0 = p.add(p.add(p.add(m[0], s1), s2), m[5])
    y1 = p.add(p.add(d1, p.dbl(d2)), p.mul(0.5, m[5]))
    y2 = p.add(p.add(s1, p.mul(4, s2)), p.mul(0.25, m[5]))
    y3 = p.add(p.add(d1, p.mul(8, d2)), p.mul(0.125, m[5]))
    y4 = p.add(p.add(p.add(s1, p.mul(16, s2)), p.mul(0.0625, m[5])), m[6])
    p.out(y0, y1, y2, y3, y4)
    return p


def f5_a():
    p = Prog("winoA5", "A of F(5x5, 3x3), the adjoint of winoAT5", 5, 7, "y", "m")
    y = p.inputs
    e1 = p.add(p.add(y[0], y[2]), y[4])
    o1 = p.add(y[1], y[3])
    e2 = p.add(p.add(y[0], p.mul(4, y[2])), p.mul(16, y[4]))
    o2 = p.add(p.dbl(y[1]), p.mul(8, y[3]))
    m5 = p.add(p.add(p.add(p.add(y[0], p.mul(0.5, y[1])), p.mul(0.25, y[2])), p.mul(0.125, y[3])), p.mul(0.0625, y[4]))
    p.out(y[0], p.add(e1, o1), p.sub(e1, o1), p.add(e2, o2), p.sub(e2, o2), m5, y[4])
    return p


TILES = {4: (f4_bt(), f4_b(), f4_at(), f4_a()), 5: (f5_bt(), f5_b(), f5_at(), f5_a())}


def check(progs, m):
    """Checks each program against its matrix numerically (float64)."""
    import random
    bt, b, at, a = progs
    alpha = m + 2

    def run(p, x):
        val = dict(zip(p.inputs, x))
        for kind, d, u, w in p.ops:
            if kind == "mul":
                val[d] = w * val[u]
            elif kind == "add":
                val[d] = val[u] + val[w]
            elif kind == "sub":
                val[d] = val[u] - val[w]
            else:
                val[d] = -val[u]
        return [val[o] for o in p.outputs]

    def matrix(p, n):
        cols = [run(p, [1.0 if k == j else 0.0 for k in range(n)]) for j in range(n)]
        return [[cols[j][i] for j in range(n)] for i in range(len(cols[0]))]
    BT, B = matrix(bt, alpha), matrix(b, alpha)
    AT, A = matrix(at, alpha), matrix(a, m)
    for i in range(alpha):
        for j in range(alpha):
            assert abs(BT[i][j] - B[j][i]) < 1e-12, ("B is not the adjoint of Bᵀ", m, i, j)
    for i in range(m):
        for j in range(alpha):
            assert abs(AT[i][j] - A[j][i]) < 1e-12, ("A is not the adjoint of Aᵀ", m, i, j)
    return BT, AT


# ---- Go

def go_func(p):
    lines = [f"// {p.name} is the one-dimensional {p.doc}:", "//"]
    lines += [f"//\t{l}" for l in p.formula()]
    lines += ["//", f"// Each output goes through at most {max(p.depths())} roundings."]
    lines.append(f"func {p.name}(in, out []float32) {{")
    lines.append(f"\tin, out = in[:{len(p.inputs)}], out[:{len(p.outputs)}]")
    for i, x in enumerate(p.inputs):
        lines.append(f"\t{x} := in[{i}]")
    uses = {}
    for kind, d, a, b in p.ops:
        uses[a] = uses.get(a, 0) + 1
        if kind in ("add", "sub"):
            uses[b] = uses.get(b, 0) + 1
    for o in p.outputs:
        uses[o] = uses.get(o, 0) + 1
    for kind, d, a, b in p.ops:
        if kind == "mul":
            c = repr(float(b)) if b != int(b) else str(int(b))
            lines.append(f"\t{d} := float32({c} * {a})")
        elif kind == "add":
            lines.append(f"\t{d} := {a} + {b}")
        elif kind == "sub":
            lines.append(f"\t{d} := {a} - {b}")
        else:
            lines.append(f"\t{d} := -{a}")
    for i, x in enumerate(p.inputs):
        if uses.get(x, 0) == 0:
            lines.append(f"\t_ = {x}")
    for i, o in enumerate(p.outputs):
        lines.append(f"\tout[{i}] = {o}")
    lines.append("}")
    return "\n".join(lines)


def write_go(path):
    out = ["// Code generated by scripts/winograd_gen.py; DO NOT EDIT.", "",
           "package kernel", "",
           "// The one-dimensional transforms of the Winograd kernels. Each is the",
           "// specification of the assembly macro of the same name in",
           "// winograd_amd64.s, which performs the same operations in the same",
           "// order; the explicit float32 conversions keep a compiler from fusing a",
           "// product into the addition that follows.", ""]
    depth = []
    for m, progs in sorted(TILES.items()):
        for p in progs:
            out.append(go_func(p))
            out.append("")
        depth.append((m, [max(p.depths()) for p in progs]))
    out.append("// winoDepths holds, per tile size m, the largest number of roundings an")
    out.append("// output of winoBTm, winoBm, winoATm and winoAm goes through.")
    out.append("var winoDepths = map[int][4]int{")
    for m, d in depth:
        out.append(f"\t{m}: {{{d[0]}, {d[1]}, {d[2]}, {d[3]}}},")
    out.append("}")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


# ---- assembly

def alloc(p, inregs, nregs=16, reserved=()):
    """Assigns registers to p's values by liveness; inputs in inregs."""
    last = {}
    for i, (kind, d, a, b) in enumerate(p.ops):
        last[a] = i
        if kind in ("add", "sub"):
            last[b] = i
    for o in p.outputs:
        last[o] = len(p.ops)
    reg = dict(zip(p.inputs, inregs))
    free = [r for r in range(nregs) if r not in inregs and r not in reserved]
    for x in p.inputs:
        if last.get(x, -1) < 0:
            free.append(reg[x])
    for i, (kind, d, a, b) in enumerate(p.ops):
        # Free the operands whose last use this is, then take a register.
        for x in {a, b} if kind in ("add", "sub") else {a}:
            if last.get(x) == i:
                free.append(reg[x])
        free.sort()
        if not free:
            sys.exit(f"{p.name}: out of registers")
        reg[d] = free.pop(0)
    return reg


def macro(p, reg, suffix="", note=""):
    """The macro of p with the registers of reg (alloc), named p.name in
    capitals plus suffix, its comment ending with note."""
    body = []
    for kind, d, a, b in p.ops:
        rd, ra = f"Y{reg[d]}", f"Y{reg[a]}"
        if kind == "mul":
            body.append(f"VMULPS {CONSTS[b]}<>(SB), {ra}, {rd}")
        elif kind == "add":
            body.append(f"VADDPS Y{reg[b]}, {ra}, {rd}")
        elif kind == "sub":
            body.append(f"VSUBPS Y{reg[b]}, {ra}, {rd}")
        else:
            body.append(f"VXORPS signbit<>(SB), {ra}, {rd}")
    name = p.name.upper() + suffix
    outs = ",".join(f"Y{reg[o]}" for o in p.outputs)
    ins = ",".join(f"Y{reg[x]}" for x in p.inputs)
    text = [f"// {name}: {outs} = {p.doc} of {ins}, as {p.name}.{note}", f"#define {name} \\"]
    for k, ins in enumerate(body):
        text.append(f"\t{ins}" + ("; \\" if k + 1 < len(body) else ""))
    return "\n".join(text)


def asm():
    w = []
    w.append("// Code generated by scripts/winograd_gen.py; DO NOT EDIT.")
    w.append("")
    w.append("//go:build !purego")
    w.append("")
    w.append('#include "textflag.h"')
    w.append('#include "transpose_amd64.h"')
    w.append("")
    w.append("""// AVX2 kernels of the Winograd convolutions F(4x4, 3x3) and F(5x5, 3x3).
// Their specifications are the Go twins in winograd_twin.go and
// winograd_1d.go: each one-dimensional transform is a macro below performing
// the twin's operations in the twin's order (no fused multiply-add), so the
// assembly and the twins give the same bits.
//
// A two-dimensional transform of one tile runs in two passes: the 1-D
// transform of each column of the tile into a frame on the stack, then the
// 1-D transform of each row of the frame to the destination. Constants are
// read from memory (a legacy-SSE move into a vector register would cost a
// state transition once the upper halves are in use).""")
    w.append("")
    w.append("DATA signbit<>+0(SB)/4, $0x80000000")
    for k in range(1, 8):
        w.append(f"DATA signbit<>+{4 * k}(SB)/4, $0x80000000")
    w.append("GLOBL signbit<>(SB), RODATA|NOPTR, $32")
    for c, name in CONSTS.items():
        for k in range(8):
            w.append(f"DATA {name}<>+{4 * k}(SB)/4, ${float(c)}")
        w.append(f"GLOBL {name}<>(SB), RODATA|NOPTR, $32")
    w.append("")
    for m, (bt, b, at, a) in sorted(TILES.items()):
        for p in (bt, b, a):
            w.append(macro(p, alloc(p, list(range(len(p.inputs))))))
            w.append("")
        # The output transform leaves Y15, which holds the bias, alone.
        w.append(macro(at, alloc(at, list(range(m + 2)), reserved=(15,)), "_BIAS", " Y15 (the bias) is left alone."))
        w.append("")
    for m, (bt, b, at, a) in sorted(TILES.items()):
        al = m + 2
        w += kernel(f"winogradIn{m}AVX2", m, al, bt, True, "store")
        w += kernel(f"winogradInAdj{m}AVX2", m, al, b, False, "add")
        w += kernel(f"winogradOut{m}AVX2", m, al, at, False, "bias")
        w += kernel(f"winogradOutAdj{m}AVX2", m, al, a, True, "store")
    w += interleaves()
    return "\n".join(w) + "\n"


# Addressing of rows 0..6 of a buffer at BASE with row stride R (bytes) held
# in R9 (1), R10 (3) and R11 (5): 2 and 4 by scale, 6 as R10*2.
def rowaddr(base, i, off):
    o = str(off) if off else ""
    return {0: f"{o}({base})", 1: f"{o}({base})(R9*1)", 2: f"{o}({base})(R9*2)", 3: f"{o}({base})(R10*1)",
            4: f"{o}({base})(R9*4)", 5: f"{o}({base})(R11*1)", 6: f"{o}({base})(R10*2)"}[i]


# The positions b = 0..al-1 of one row of the transformed tile at BX, one
# stride (R8) apart: R12 = 3, R13 = 5 strides.
def posaddr(b):
    return ["(BX)", "(BX)(R8*1)", "(BX)(R8*2)", "(BX)(R12*1)", "(BX)(R8*4)", "(BX)(R13*1)", "(BX)(R12*2)"][b]


# Positions a*al + b for fixed b and a = 0..al-1 from BX = column b, with
# R14 = al strides: DX = BX + 3*R14, AX = DX + 3*R14.
def colpos_setup():
    return ["\tLEAQ (BX)(R14*2), DX", "\tADDQ R14, DX", "\tLEAQ (DX)(R14*2), AX", "\tADDQ R14, AX"]


def colpos(a):
    return ["(BX)", "(BX)(R14*1)", "(BX)(R14*2)", "(DX)", "(BX)(R14*4)", "(DX)(R14*2)", "(AX)"][a]


def prologue(name, frame, stride_first, al, walk, bias=False):
    """The header and register set-up of a two-dimensional kernel: DI dst,
    SI src, R8 the stride between positions and R9 the row (in bytes), CX
    the tiles; R10 and R11 3 and 5 rows, R12 and R13 3 and 5 strides, R14
    al strides; with bias, Y15 the bias. The transform-side stride comes
    second in the arguments when stride_first (In, OutAdj), the row
    otherwise (InAdj, Out)."""
    a1, a2 = ("stride", "row") if stride_first else ("row", "stride")
    sig = f"dst *float32, {a1} int, src *float32, {a2} int, tiles int" + (", bias float32" if bias else "")
    r1, r2 = ("R8", "R9") if stride_first else ("R9", "R8")
    w = [f"// func {name}({sig})", "//", f"// {walk}",
         f"TEXT ·{name}(SB), ${frame}-{44 if bias else 40}",
         "\tMOVQ dst+0(FP), DI", f"\tMOVQ {a1}+8(FP), {r1}", f"\tSHLQ $2, {r1}",
         "\tMOVQ src+16(FP), SI", f"\tMOVQ {a2}+24(FP), {r2}", f"\tSHLQ $2, {r2}",
         "\tMOVQ tiles+32(FP), CX",
         "\tLEAQ (R9)(R9*2), R10", "\tLEAQ (R9)(R9*4), R11",
         "\tLEAQ (R8)(R8*2), R12", "\tLEAQ (R8)(R8*4), R13",
         f"\tIMUL3Q ${al}, R8, R14"]
    if bias:
        w.append("\tVBROADCASTSS bias+40(FP), Y15")
    w.append("tile:")
    return w


def stk(k):
    return f"{32 * k}(SP)"


def kernel(name, m, al, p, src_tile, mode):
    """A two-dimensional kernel: pass 1 applies p to each column of the
    source (a tile of the image buffer when src_tile, the a*a positions
    otherwise) into the stack frame, pass 2 applies p to each row of the
    frame and stores it on the other side: to the positions, or to the tile
    with mode "store", "add" (added to what is there) or "bias" (plus Y15)."""
    bias = mode == "bias"
    reg = alloc(p, list(range(len(p.inputs))), reserved=(15,) if bias else ())
    ro = [reg[o] for o in p.outputs]
    mac = p.name.upper() + ("_BIAS" if bias else "")
    n, mid = len(p.inputs), len(p.outputs)  # values per column, per frame column
    if src_tile:
        walk = f"SI walks the tiles of src ({32 * m} bytes apart), DI the columns of dst (32 bytes apart)."
    else:
        walk = f"SI walks the columns of src (32 bytes apart), DI the tiles of dst ({32 * m} bytes apart)."
    if bias:
        walk += " Y15 holds the bias."
    w = prologue(name, 32 * n * mid, src_tile, al, walk, bias=bias)
    if not src_tile:
        w.append("\tMOVQ SI, BX")
    for c in range(n):
        if src_tile:
            loads = [rowaddr("SI", r, 32 * c) for r in range(n)]
        else:
            w += colpos_setup()
            loads = [colpos(r) for r in range(n)]
        for r, addr in enumerate(loads):
            w.append(f"\tVMOVUPS {addr}, Y{r}")
        w.append(f"\t{mac}")
        for k in range(mid):
            w.append(f"\tVMOVUPS Y{ro[k]}, {stk(n * k + c)}")
        if not src_tile and c + 1 < n:
            w.append("\tADDQ R8, BX")
    if src_tile:
        w.append("\tMOVQ DI, BX")
    for k in range(mid):
        for c in range(n):
            w.append(f"\tVMOVUPS {stk(n * k + c)}, Y{c}")
        w.append(f"\t{mac}")
        for q in range(mid):
            if src_tile:
                w.append(f"\tVMOVUPS Y{ro[q]}, {posaddr(q)}")
                continue
            addr = rowaddr("DI", k, 32 * q)
            if mode == "add":
                w.append(f"\tVADDPS {addr}, Y{ro[q]}, Y{ro[q]}")
            elif bias:
                w.append(f"\tVADDPS Y15, Y{ro[q]}, Y{ro[q]}")
            w.append(f"\tVMOVUPS Y{ro[q]}, {addr}")
        if src_tile and k + 1 < mid:
            w.append("\tADDQ R14, BX")
    step_si, step_di = (32 * m, 32) if src_tile else (32, 32 * m)
    w += [f"\tADDQ ${step_si}, SI", f"\tADDQ ${step_di}, DI", "\tDECQ CX", "\tJNZ tile", "\tVZEROUPPER", "\tRET", ""]
    return w


TRANSPOSE = "\tTRANSPOSE8X8"
OUTREG = ["Y10", "Y11", "Y12", "Y13", "Y0", "Y1", "Y14", "Y2"]


def interleaves():
    w = ["""// func interleave8AVX2(dst *float32, offs *int32, src *float32, stride int, n int)
//
// Blocks of 8 pixels: the 8 images' runs of 8 values are loaded, transposed
// in registers (as transpose8AVX2 does), and pixel k's 8 lanes stored at
// dst + 4*offs[k]. A last block that would run past n is moved back to end
// at n, doing some pixels twice. n >= 8. Each image's run 512 bytes ahead
// is prefetched: the eight runs are planes far apart, often of a layer's
// output that has left the caches, and the calls are short (one channel's
// plane of eight images).
TEXT ·interleave8AVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ offs+8(FP), BX
	MOVQ src+16(FP), SI
	MOVQ stride+24(FP), R9
	SHLQ $2, R9
	MOVQ n+32(FP), CX
	LEAQ (R9)(R9*2), R11
	XORQ AX, AX
block:
	LEAQ (SI)(AX*4), DX
	LEAQ (DX)(R9*4), R10
	VMOVUPS (DX), Y0
	VMOVUPS (DX)(R9*1), Y1
	VMOVUPS (DX)(R9*2), Y2
	VMOVUPS (DX)(R11*1), Y3
	VMOVUPS (R10), Y4
	VMOVUPS (R10)(R9*1), Y5
	VMOVUPS (R10)(R9*2), Y6
	VMOVUPS (R10)(R11*1), Y7
	PREFETCHT0 512(DX)
	PREFETCHT0 512(DX)(R9*1)
	PREFETCHT0 512(DX)(R9*2)
	PREFETCHT0 512(DX)(R11*1)
	PREFETCHT0 512(R10)
	PREFETCHT0 512(R10)(R9*1)
	PREFETCHT0 512(R10)(R9*2)
	PREFETCHT0 512(R10)(R11*1)"""]
    w.append(TRANSPOSE)
    w.append("\tLEAQ (BX)(AX*4), DX")
    for k in range(8):
        w.append(f"\tMOVLQSX {4 * k}(DX), R12")
        w.append(f"\tVMOVUPS {OUTREG[k]}, (DI)(R12*4)")
    w.append("""	ADDQ $8, AX
	CMPQ AX, CX
	JGE done
	LEAQ 8(AX), DX
	CMPQ DX, CX
	JLE block
	LEAQ -8(CX), AX
	JMP block
done:
	VZEROUPPER
	RET

// func deinterleave8AVX2(dst *float32, stride int, src *float32, offs *int32, n int)
//
// Blocks of 8 pixels: pixel k's 8 lanes are loaded from src + 4*offs[k],
// transposed in registers, and image l's run of 8 values stored at dst +
// l*stride. A last block that would run past n is moved back to end at n.
// n >= 8.
TEXT ·deinterleave8AVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ stride+8(FP), R9
	SHLQ $2, R9
	MOVQ src+16(FP), SI
	MOVQ offs+24(FP), BX
	MOVQ n+32(FP), CX
	LEAQ (R9)(R9*2), R11
	XORQ AX, AX
block:
	LEAQ (BX)(AX*4), DX""")
    for k in range(8):
        w.append(f"\tMOVLQSX {4 * k}(DX), R12")
        w.append(f"\tVMOVUPS (SI)(R12*4), Y{k}")
    w.append(TRANSPOSE)
    w.append("\tLEAQ (DI)(AX*4), DX\n\tLEAQ (DX)(R9*4), R10")
    st = ["(DX)", "(DX)(R9*1)", "(DX)(R9*2)", "(DX)(R11*1)", "(R10)", "(R10)(R9*1)", "(R10)(R9*2)", "(R10)(R11*1)"]
    for l in range(8):
        w.append(f"\tVMOVUPS {OUTREG[l]}, {st[l]}")
    w.append("""	ADDQ $8, AX
	CMPQ AX, CX
	JGE done
	LEAQ 8(AX), DX
	CMPQ DX, CX
	JLE block
	LEAQ -8(CX), AX
	JMP block
done:
	VZEROUPPER
	RET""")
    return w


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    for m, progs in TILES.items():
        check(progs, m)
    text = asm()
    with open(os.path.join(root, "autodiff/kernel/winograd_amd64.s"), "w") as f:
        f.write(text)
    write_go(os.path.join(root, "autodiff/kernel/winograd_1d.go"))
    for m, progs in sorted(TILES.items()):
        print(f"F({m}x{m},3x3) depths Bᵀ {max(progs[0].depths())}, B {max(progs[1].depths())}, "
              f"Aᵀ {max(progs[2].depths())}, A {max(progs[3].depths())}; ops "
              f"{[len(p.ops) for p in progs]}")


if __name__ == "__main__":
    main()
