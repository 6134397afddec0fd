#!/usr/bin/python3
"""torchlet train (default options) against scikit-learn on the same split of real tables.

The tables: scikit-learn's bundled breast_cancer, wine and diabetes, with text categories and
missing cells injected here (fixed seed), and the generated passengers.csv (classification),
houses.csv and shops.csv (regression; shops has a 150-level column) of
tests/fixtures/make_table_fixtures.py. Every table is written as CSV and given to `torchlet
train --data FILE --json` with no other option; scikit-learn gets the same test rows
(train_test_split(test_size=0.2, random_state=42), torchlet's split) and its usual
preprocessing: SimpleImputer (median, with missing indicators) and StandardScaler on numeric
columns, SimpleImputer and OneHotEncoder(handle_unknown='ignore') on text ones; then
MLPClassifier/MLPRegressor (defaults, random_state=0; the regressor's target standardised as
torchlet's) and HistGradientBoosting (defaults). Prints one Markdown table:
accuracy or R² on the test rows and the training time of each.

    /usr/bin/python3 bench/compare_sklearn.py --torchlet build/torchlet

With --seeds 0-5 it checks that a comparison is not luck instead: for each seed s, torchlet with
`--seed s` beside the MLP with random_state=s (same split; HistGradientBoosting left out),
each table's scores and their means.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
from sklearn import datasets
from sklearn.compose import ColumnTransformer, TransformedTargetRegressor
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from sklearn.exceptions import ConvergenceWarning
from sklearn.impute import SimpleImputer
from sklearn.metrics import accuracy_score, r2_score
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier, MLPRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "tests", "fixtures", "tables")
MISSING = ["", "NA", "?"]


def inject(rng, X, text_columns, missing_columns, rate=0.1):
    """Rows of strings: the columns in text_columns ({index: labels}) replaced by text labels of
    their quantiles, and cells of missing_columns blanked at `rate`."""
    rows = [[repr(float(v)) for v in row] for row in X]
    for c, labels in text_columns.items():
        edges = np.quantile(X[:, c], np.linspace(0, 1, len(labels) + 1)[1:-1])
        for r, v in enumerate(X[:, c]):
            rows[r][c] = labels[int(np.searchsorted(edges, v))]
    for c in missing_columns:
        for r in range(len(rows)):
            if rng.random() < rate:
                rows[r][c] = MISSING[rng.integers(len(MISSING))]
    return rows


def sklearn_table(name, loader, text_columns, missing_columns, label_names=None):
    data = loader()
    rng = np.random.default_rng(7)
    names = [n.replace(" ", "_") for n in data.feature_names]
    rows = inject(rng, data.data, text_columns, missing_columns)
    labels = [label_names[int(t)] if label_names else repr(float(t)) for t in data.target]
    return name, names + ["target"], [r + [t] for r, t in zip(rows, labels)]


def tables():
    yield sklearn_table("breast_cancer (+2 text, 10% missing in 4)", datasets.load_breast_cancer,
                        {0: ["small", "medium", "large"], 4: ["smooth", "average", "rough"]},
                        [1, 2, 7, 20], ["malignant", "benign"])
    yield sklearn_table("wine (+1 text, 10% missing in 3)", datasets.load_wine,
                        {9: ["pale", "light", "deep", "dark"]}, [0, 3, 6],
                        ["cultivar_a", "cultivar_b", "cultivar_c"])
    yield sklearn_table("diabetes (sex as text, 10% missing in 3), regression",
                        datasets.load_diabetes, {1: ["female", "male"]}, [0, 2, 8])
    for name in ["passengers.csv", "houses.csv", "shops.csv"]:
        with open(os.path.join(FIXTURES, name)) as f:
            rows = list(csv.reader(f))
        yield name + " (generated)", rows[0], rows[1:]


def is_number(cell):
    try:
        float(cell)
        return True
    except ValueError:
        return False


def sklearn_runs(header, rows, regression, seed=42, mlp_seed=0, hgb=True):
    na = {"", "NA", "NaN", "null", "?"}
    features = list(range(len(header) - 1))
    numeric = [c for c in features if all(r[c] in na or is_number(r[c]) for r in rows)]
    text = [c for c in features if c not in numeric]
    X = np.array([[r[c] if r[c] not in na else np.nan for c in features] for r in rows], object)
    for c in numeric:
        X[:, c] = X[:, c].astype(float)
    for c in text:
        X[:, c] = [v if isinstance(v, str) else "missing" for v in X[:, c]]
    y = np.array([float(r[-1]) if regression else r[-1] for r in rows])
    train, test = train_test_split(np.arange(len(rows)), test_size=0.2, random_state=seed)

    def prep():
        return ColumnTransformer([
            ("num", make_pipeline(SimpleImputer(strategy="median", add_indicator=True),
                                  StandardScaler()), numeric),
            ("cat", OneHotEncoder(handle_unknown="ignore"), text)])

    if regression:
        models = {"MLPRegressor": TransformedTargetRegressor(MLPRegressor(random_state=mlp_seed),
                                                             transformer=StandardScaler()),
                  "HistGradientBoosting": HistGradientBoostingRegressor(random_state=0)}
    else:
        models = {"MLPClassifier": MLPClassifier(random_state=mlp_seed),
                  "HistGradientBoosting": HistGradientBoostingClassifier(random_state=0)}
    if not hgb:
        del models["HistGradientBoosting"]
    out = {}
    for name, model in models.items():
        pipe = make_pipeline(prep(), model)
        if "HistGradient" in name:  # it takes a dense matrix
            pipe = make_pipeline(prep().set_params(sparse_threshold=0), model)
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            pipe.fit(X[train], y[train])
        seconds = time.perf_counter() - start
        guess = pipe.predict(X[test])
        score = r2_score(y[test], guess) if regression else accuracy_score(y[test], guess)
        out[name] = (score, seconds)
    return out


def table_files():
    """tables(), each also written to a CSV file (name, header, rows, its path)."""
    with tempfile.TemporaryDirectory() as tmp:
        for name, header, rows in tables():
            path = os.path.join(tmp, "table.csv")
            with open(path, "w", newline="") as f:
                csv.writer(f, lineterminator="\n").writerows([header] + rows)
            yield name, header, rows, path


def torchlet_run(torchlet, path, seed=None):
    start = time.perf_counter()
    seed_option = [] if seed is None else ["--seed", str(seed)]
    done = subprocess.run([torchlet, "train", "--data", path, "--json", "--no-plot"] + seed_option,
                          capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"torchlet train --data {path} failed:\n{done.stderr}")
    j = json.loads(done.stdout)
    score = j["test_r2"] if j["task"] == "regression" else j["test_acc"]
    return score, j["train_s"], wall, j["epochs"], j["task"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--torchlet", default=os.path.join(HERE, "..", "build", "torchlet"))
    parser.add_argument("--seeds", help="a range such as 0-5: the check over seeds")
    args = parser.parse_args()
    if args.seeds:
        return seeds_main(args)
    print("| table | rows | metric | torchlet | MLP (sklearn) | HistGradientBoosting | "
          "torchlet time (train / whole command) | MLP time | HGB time |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, header, rows, path in table_files():
        score, train_s, wall, epochs, task = torchlet_run(args.torchlet, path)
        regression = task == "regression"
        sk = sklearn_runs(header, rows, regression)
        mlp, hgb = list(sk.values())
        print(f"| {name} | {len(rows)} | {'R²' if regression else 'accuracy'} | "
              f"{score:.4f} | {mlp[0]:.4f} | {hgb[0]:.4f} | {train_s:.2f} s / {wall:.2f} s "
              f"({epochs} epochs) | {mlp[1]:.2f} s | {hgb[1]:.2f} s |", flush=True)


def seeds_main(args):
    low, high = (int(v) for v in args.seeds.split("-"))
    seeds = range(low, high + 1)
    print(f"| table | metric | torchlet --seed {args.seeds} | mean | "
          f"MLP random_state={args.seeds} | mean |")
    print("|---|---|---|---|---|---|")
    for name, header, rows, path in table_files():
        ours = [torchlet_run(args.torchlet, path, s) for s in seeds]
        regression = ours[0][4] == "regression"
        mlp = [list(sklearn_runs(header, rows, regression, mlp_seed=s, hgb=False).values())[0]
               for s in seeds]
        a, b = [r[0] for r in ours], [r[0] for r in mlp]
        print(f"| {name} | {'R²' if regression else 'accuracy'} | "
              f"{' '.join(f'{v:.4f}' for v in a)} | {np.mean(a):.4f} | "
              f"{' '.join(f'{v:.4f}' for v in b)} | {np.mean(b):.4f} |", flush=True)


if __name__ == "__main__":
    main()
