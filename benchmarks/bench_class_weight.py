"""class_weight='balanced' on an imbalanced binary task drawn from the supervised model: all of one
class and a twelfth as many documents of the other (10% of labels noisy), 70% to train, light
sampler. One JSON line per (class_weight, seed): accuracy, the rare class's recall, macro F1.

    python benchmarks/bench_class_weight.py --seeds 0,1,2
"""
import argparse
import json

import numpy as np
from sklearn.metrics import f1_score, recall_score

from medlda import MedLDAClassifier
from medlda.data.synthetic import make_supervised_corpus


def imbalanced(ratio: int = 12):
    corpus, _ = make_supervised_corpus(4000, 8, words_per_topic=20, doc_length=30, label_noise=0.1, random_state=2)
    y = corpus.single_labels()
    common, rare = np.flatnonzero(y == 0), np.flatnonzero(y == 1)
    keep = np.sort(np.concatenate([common, np.random.default_rng(0).choice(rare, common.size // ratio, replace=False)]))
    return corpus.subset(keep), y[keep]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", default="0,1")
    args = p.parse_args()
    corpus, y = imbalanced()
    n = int(0.7 * corpus.n_docs)
    train, test = corpus.subset(np.arange(n)), corpus.subset(np.arange(n, corpus.n_docs))
    for weight in (None, "balanced"):
        for seed in [int(s) for s in args.seeds.split(",")]:
            model = MedLDAClassifier(8, c=1.0, margin=1.0, n_iter=40, random_state=seed, sampler="light",
                                     class_weight=weight).fit(train, y[:n])
            pred = model.predict(test)
            print(json.dumps(dict(class_weight=weight, seed=seed, rare_share=float(np.mean(y == 1)),
                                  accuracy=float(np.mean(pred == y[n:])),
                                  rare_recall=float(recall_score(y[n:], pred, pos_label=1)),
                                  f1_macro=float(f1_score(y[n:], pred, average="macro")))), flush=True)


if __name__ == "__main__":
    main()
