"""Load a wadn export into the same network in PyTorch and compare outputs.

usage: torch_logits.py KIND MODEL.safetensors BATCH.safetensors

KIND is "amazon" (the paper's layout: the extractor is the first layer),
"amazon3" (the default: the extractor is all three) or "digits". BATCH holds "input" (the batch, dense) and
the outputs wadn computed on it: "logits" (classifier) and "critic"
(critic0 on the features). The safetensors files are parsed here from the
format's description (8-byte little-endian header size, JSON header, raw
little-endian data), so that the check does not rest on wadn's reader.
Exit status 0 when every output agrees within 1e-5 (absolute, or relative
above 1), 1 otherwise; the largest differences are printed either way.
"""
import json
import struct
import sys

import torch
from torch import nn

DTYPES = {"F32": torch.float32, "F64": torch.float64}


def load(path):
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n].decode("utf-8"))
    data = raw[8 + n:]
    tensors = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        start, end = e["data_offsets"]
        t = torch.frombuffer(bytearray(data[start:end]), dtype=DTYPES[e["dtype"]])
        tensors[name] = t.reshape(e["shape"])
    return tensors, header.get("__metadata__", {})


class Digits(nn.Module):
    def __init__(self):
        super().__init__()
        layers, cin = [], 3
        for cout in (64, 128, 256):
            layers += [nn.Conv2d(cin, cout, 3), nn.MaxPool2d(2, 2, ceil_mode=True), nn.ReLU()]
            cin = cout
        layers.append(nn.Flatten())
        self.extractor = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Linear(2304, 512), nn.ReLU(), nn.Linear(512, 100), nn.ReLU(), nn.Linear(100, 10))
        self.critic0 = nn.Sequential(nn.Linear(2304, 256), nn.ReLU(), nn.Linear(256, 1))


class Amazon(nn.Module):
    def __init__(self):
        super().__init__()
        # Input dropout is applied before the extractor in training only.
        self.extractor = nn.Sequential(nn.Linear(5000, 1000), nn.ReLU())
        self.classifier = nn.Sequential(nn.Linear(1000, 500), nn.ReLU(), nn.Dropout(0.5), nn.Linear(500, 100), nn.ReLU(), nn.Dropout(0.5), nn.Linear(100, 2))
        self.critic0 = nn.Sequential(nn.Linear(1000, 500), nn.ReLU(), nn.Linear(500, 100), nn.ReLU(), nn.Linear(100, 1))


class AmazonExtractor(nn.Module):
    """The sparse first layer, named "0", and the dense blocks after it,
    named "post", each dropout, linear, ReLU."""

    def __init__(self, sizes):
        super().__init__()
        self.add_module("0", nn.Linear(5000, sizes[0]))
        self.relu = nn.ReLU()
        post = []
        for a, b in zip(sizes, sizes[1:]):
            post += [nn.Dropout(0.5), nn.Linear(a, b), nn.ReLU()]
        self.post = nn.Sequential(*post)

    def forward(self, x):
        return self.post(self.relu(getattr(self, "0")(x)))


class Amazon3(nn.Module):
    def __init__(self):
        super().__init__()
        self.extractor = AmazonExtractor([1000, 500, 100])
        self.classifier = nn.Sequential(nn.Linear(100, 2))
        self.critic0 = nn.Sequential(nn.Linear(100, 1))


def main():
    kind, model_path, batch_path = sys.argv[1:4]
    net = {"digits": Digits, "amazon": Amazon, "amazon3": Amazon3}[kind]()
    state, meta = load(model_path)
    if meta.get("format") != "pt":
        print(f"metadata format is {meta.get('format')!r}, want 'pt'")
        return 1
    net.load_state_dict(state, strict=True)
    net.eval()
    batch, _ = load(batch_path)
    with torch.no_grad():
        z = net.extractor(batch["input"])
        got = {"logits": net.classifier(z), "critic": net.critic0(z)}
    ok = True
    for name, out in got.items():
        want = batch[name]
        if out.shape != want.shape:
            print(f"{name}: shape {tuple(out.shape)}, wadn {tuple(want.shape)}")
            ok = False
            continue
        err = ((out - want).abs() / want.abs().clamp(min=1)).max().item()
        print(f"{kind} {name} {tuple(out.shape)}: max difference {err:.3g}")
        ok = ok and err <= 1e-5
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
