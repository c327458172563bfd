"""Topic coherence of the samplers' topics on 20 Newsgroups (20 classes), printed as JSON lines.

For each K, seed and model (plain LDA, MedLDA multitask hinge; light and/or gibbs): test accuracy
(supervised models), the mean NPMI of each topic's top 10 words in the test documents, and the
mean UMass coherence in the training documents; the NPMI weighted by each topic's share of the
training tokens, and apart for big topics (>= 0.5% of the tokens) and the rest. Does
supervision, or the light sampler, cost readable topics?

    python benchmarks/bench_coherence.py --ks 100 --seeds 0 --samplers light,gibbs
    python benchmarks/bench_coherence.py --ks 100 --samplers light --models medlda --settings '{"c": 0.8}'
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from medlda import LDA, MedLDAClassifier
from medlda.data.readers import read_corpus
from medlda.reporting.reports import topic_shares

BIG_TOPIC = 0.005  # a topic holding at least this share of the training tokens counts as big
DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "20news-bydate.tar.gz"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--ks", default="100")
    p.add_argument("--seeds", default="0")
    p.add_argument("--samplers", default="light,gibbs")
    p.add_argument("--models", default="lda,medlda")
    p.add_argument("--iters", type=int, default=50)
    p.add_argument("--settings", default="{}", help="MedLDAClassifier keyword arguments as a JSON object")
    args = p.parse_args()
    train = read_corpus(args.data, subset="train")
    test = read_corpus(args.data, subset="test", vocabulary=train.vocabulary)
    y, y_test = train.single_labels(), test.single_labels()
    settings = json.loads(args.settings)
    for k in [int(v) for v in args.ks.split(",")]:
        for seed in [int(v) for v in args.seeds.split(",")]:
            for sampler in args.samplers.split(","):
                for kind in args.models.split(","):
                    common = dict(n_iter=args.iters, sampler=sampler, random_state=seed, n_jobs=1)
                    if kind == "lda":
                        model = LDA(k, **common).fit(train)
                        accuracy = None
                    else:
                        model = MedLDAClassifier(k, **common, **settings).fit(train, y)
                        accuracy = float(model.score(test, y_test))
                    npmi, umass = model.coherence(test, "npmi"), model.coherence(train, "umass")
                    share = topic_shares(model)
                    big = share >= BIG_TOPIC
                    print(json.dumps(dict(K=k, seed=seed, sampler=sampler, model=kind, n_iter=args.iters,
                                          **(settings if kind == "medlda" else {}),
                                          accuracy=accuracy, npmi_test=float(np.nanmean(npmi)),
                                          umass_train=float(np.nanmean(umass)),
                                          npmi_test_quartiles=np.nanpercentile(npmi, [25, 50, 75]).round(4).tolist(),
                                          npmi_test_token_weighted=float(np.nansum(npmi * share) / share[~np.isnan(npmi)].sum()),
                                          n_big_topics=int(big.sum()), npmi_test_big=float(np.nanmean(npmi[big])),
                                          npmi_test_small=float(np.nanmean(npmi[~big])) if (~big).any() else None,
                                          train_seconds=model.fit_stats_["train_seconds"])), flush=True)


if __name__ == "__main__":
    main()
