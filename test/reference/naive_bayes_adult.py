#!/usr/bin/python3
"""Independent reference for sql/information.sql: naive Bayes accuracy on ARX's
Adult extract, salary-class predicted from the 8 other attributes, 10-fold
cross-validation with the fold assignment privrisk uses, computed by
scikit-learn's CategoricalNB (Debian 12: apt-get install python3-sklearn).

Fold of a row: FNV-1a 64 of its values in column order (features, then the
target), each value's UTF-8 bytes followed by 0x1f, plus the row's occurrence
among identical rows, modulo 2^64, modulo 10.

Usage: test/reference/naive_bayes_adult.py [../shared/data/adult/adult.csv]
"""
import sys
from collections import defaultdict

import numpy as np
from sklearn.naive_bayes import CategoricalNB

path = sys.argv[1] if len(sys.argv) > 1 else "../shared/data/adult/adult.csv"
with open(path, encoding="utf-8") as f:
    lines = [line.rstrip("\r\n") for line in f if line.strip()]
header = lines[0].split(";")
rows = [line.split(";") for line in lines[1:]]
target = header.index("salary-class")
features = [i for i in range(len(header)) if i != target]


def fnv1a(data, h=0xCBF29CE484222325):
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


seen = defaultdict(int)
folds = []
for r in rows:
    values = [r[i] for i in features] + [r[target]]
    h = 0xCBF29CE484222325
    for v in values:
        h = fnv1a(v.encode("utf-8") + b"\x1f", h)
    key = tuple(values)
    folds.append(((h + seen[key]) & 0xFFFFFFFFFFFFFFFF) % 10)
    seen[key] += 1
folds = np.array(folds)

# Categories coded in sorted order over the whole table (each feature's full domain).
codes, cards = [], []
for i in features:
    domain = sorted(set(r[i] for r in rows))
    index = {v: c for c, v in enumerate(domain)}
    codes.append([index[r[i]] for r in rows])
    cards.append(len(domain))
X = np.array(codes).T
classes = sorted(set(r[target] for r in rows))
y = np.array([classes.index(r[target]) for r in rows])

correct = 0
for k in range(10):
    train, test = folds != k, folds == k
    model = CategoricalNB(alpha=1.0, min_categories=np.array(cards))
    model.fit(X[train], y[train])
    correct += int((model.predict(X[test]) == y[test]).sum())
print(f"rows {len(rows)} correct {correct} accuracy {correct / len(rows):.6f}")
