"""Train the model of examples/10_digits.c and write its two data files.

Run once by hand (from any directory; the tests do not run it):

    pip install torch scikit-learn        # scikit-learn bundles the digits
    python3 examples/train_digits.py

It writes
    examples/data/digits.bin                 the 1,797 images and labels (65 bytes each)
    examples/data/digits_model.safetensors   the trained weights, float32

The data is the UCI "Optical Recognition of Handwritten Digits" set (E. Alpaydin and
C. Kaynak, CC BY 4.0), as scikit-learn ships it: 8x8 images, 16 grey levels (0..16).
Split: every fourth image (index 0, 4, 8, ..., 1796: 450 images) is the test set, the other
1,347 train. Model: an MLP 64 -> 64 -> ReLU -> 10 on the pixels divided by 16 (exact in
float: a power of two). The seed is fixed and one thread trains, so a rerun on the same
PyTorch gives the same weights (about 10 seconds).
"""
import json
import os
import struct

import torch
from sklearn.datasets import load_digits

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
TEST_EVERY = 4  # image i is a test image when i % 4 == 0
HIDDEN = 64  # the hidden width (10_digits.c reads it from the file, up to 256)


def write_data(pixels, labels, path):
    """One record per image: 64 pixel bytes (0..16, row by row), then the label byte."""
    with open(path, "wb") as f:
        for image, label in zip(pixels, labels):
            f.write(bytes(int(v) for v in image) + bytes([int(label)]))


def write_safetensors(tensors, metadata, path):
    """The safetensors format by hand: 8-byte little-endian header length, a JSON header
    (dtype, shape, data_offsets per tensor; string metadata), then the raw bytes."""
    header = {"__metadata__": metadata}
    blobs, offset = [], 0
    for name, t in tensors.items():
        data = t.detach().contiguous().to(torch.float32).numpy().tobytes()  # little-endian hosts
        header[name] = {"dtype": "F32", "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # pad with spaces: the tensors start 8-byte aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)  # a tiny model: threads only add overhead (and nondeterminism)
    digits = load_digits()
    pixels = torch.tensor(digits.data, dtype=torch.float32)  # [1797, 64], 0..16
    labels = torch.tensor(digits.target, dtype=torch.int64)
    os.makedirs(DATA, exist_ok=True)
    write_data(digits.data, digits.target, os.path.join(DATA, "digits.bin"))

    x = pixels / 16.0
    index = torch.arange(len(x))
    test = index[index % TEST_EVERY == 0]
    train = index[index % TEST_EVERY != 0]
    x_train, y_train = x[train], labels[train]
    x_test, y_test = x[test], labels[test]
    n_train, n_test = len(train), len(test)

    model = torch.nn.Sequential(torch.nn.Linear(64, HIDDEN), torch.nn.ReLU(), torch.nn.Linear(HIDDEN, 10))
    opt = torch.optim.Adam(model.parameters(), lr=3e-3, weight_decay=1e-4)
    for epoch in range(30):
        order = torch.randperm(n_train)
        for i in range(0, n_train, 32):
            batch = order[i:i + 32]
            loss = torch.nn.functional.cross_entropy(model(x_train[batch]), y_train[batch])
            opt.zero_grad()
            loss.backward()
            opt.step()

    with torch.no_grad():
        train_correct = int((model(x_train).argmax(1) == y_train).sum())
        test_correct = int((model(x_test).argmax(1) == y_test).sum())
    print(f"train accuracy {train_correct}/{n_train} = {100.0 * train_correct / n_train:.2f}%")
    print(f"test accuracy  {test_correct}/{n_test} = {100.0 * test_correct / n_test:.2f}%")

    tensors = {"fc1.weight": model[0].weight, "fc1.bias": model[0].bias,
               "fc2.weight": model[2].weight, "fc2.bias": model[2].bias}
    metadata = {"test_correct": str(test_correct), "test_count": str(n_test),
                "torch": torch.__version__}
    write_safetensors(tensors, metadata, os.path.join(DATA, "digits_model.safetensors"))
    for name in ("digits.bin", "digits_model.safetensors"):
        print(f"wrote examples/data/{name}: {os.path.getsize(os.path.join(DATA, name))} bytes")


if __name__ == "__main__":
    main()
