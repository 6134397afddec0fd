"""A classifier fed by DataLoaders, as a course lesson or a repository feeds one: a Dataset
subclass whose reads draw a little noise (in the worker processes, seeded from the default
generator), random_split, a shuffled training loader with two workers, a validation loader
with a SubsetRandomSampler, and makemore's endless loader (a RandomSampler with replacement
and 10**10 samples). Prints the per-epoch losses and the first batches' labels."""

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, RandomSampler, SubsetRandomSampler, random_split


class Blobs(Dataset):
    """Points around four centres, labelled by their centre."""

    def __init__(self, n):
        centres = torch.tensor([[1.0, 1.0], [-1.0, 1.0], [-1.0, -1.0], [1.0, -1.0]])
        self.labels = torch.tensor([i % 4 for i in range(n)])
        self.points = centres[self.labels] + 2.4 * (torch.rand(n, 2) - 0.5)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        jitter = 0.2 * (torch.rand(2) - 0.5)
        return self.points[i] + jitter, int(self.labels[i])


def main():
    torch.manual_seed(0)
    data = Blobs(240)
    train, val = random_split(data, [192, 48])
    train_loader = DataLoader(train, batch_size=16, shuffle=True, num_workers=2)
    val_loader = DataLoader(data, batch_size=16, sampler=SubsetRandomSampler(val.indices))
    print(f"{len(train)} training and {len(val)} validation samples, {len(train_loader)} batches an epoch")

    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 4))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.2)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(6):
        model.train()
        total = 0.0
        for x, y in train_loader:
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(y)
        model.eval()
        correct = 0
        with torch.no_grad():
            for x, y in val_loader:
                correct += (model(x).argmax(1) == y).sum().item()
        print(f"epoch {epoch + 1}: train loss {total / len(train):.6f}, validation accuracy {correct / len(val):.4f}")

    endless = DataLoader(train, batch_size=8, num_workers=2,
                         sampler=RandomSampler(train, replacement=True, num_samples=int(1e10)))
    batches = iter(endless)
    for step in range(3):
        x, y = next(batches)
        print(f"endless batch {step}: labels {y.tolist()}, first point {x[0].tolist()}")


if __name__ == "__main__":
    main()
