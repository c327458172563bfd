"""Validation accuracy of MedLDAClassifier settings on 20 Newsgroups without the test set: a
random fifth of the 20-class training set (seed 123) is held out, the rest trains. One JSON line
per (seed, setting); settings are estimator keyword arguments as JSON objects, ';'-separated.

    python benchmarks/validation_split.py --k 200 --seeds 0,1,2 --settings '{"c": 1.6};{"c": 3.2}'
"""
import argparse
import json
from pathlib import Path

import numpy as np

from medlda import MedLDAClassifier
from medlda.data.readers import read_corpus

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "20news-bydate.tar.gz"


def split(archive: Path):
    full = read_corpus(archive, subset="train")
    y = full.single_labels()
    perm = np.random.default_rng(123).permutation(full.n_docs)
    held, kept = np.sort(perm[: full.n_docs // 5]), np.sort(perm[full.n_docs // 5:])
    return full.subset(kept), y[kept], full.subset(held), y[held]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=DEFAULT_DATA)
    p.add_argument("--k", type=int, required=True)
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--settings", default="{}", help="';'-separated JSON objects of estimator arguments")
    p.add_argument("--iters", type=int, default=50)
    args = p.parse_args()
    train, y, held, y_held = split(args.data)
    for seed in [int(s) for s in args.seeds.split(",")]:
        for setting in args.settings.split(";"):
            kw = json.loads(setting)
            model = MedLDAClassifier(args.k, n_iter=args.iters, random_state=seed, sampler="light", n_jobs=1, **kw)
            model.fit(train, y)
            print(json.dumps(dict(K=args.k, seed=seed, **kw, val_acc=float(model.score(held, y_held)),
                                  train_seconds=model.fit_stats_["train_seconds"], train_acc=model.train_accuracy_)),
                  flush=True)


if __name__ == "__main__":
    main()
