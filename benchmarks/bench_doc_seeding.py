"""What per-document seeding costs prediction: the 7,531 20 Newsgroups test documents inferred
(one thread) with each document seeded by its words (``doc_seeded=True``, what estimators do)
and with the chained block streams, alternating, four rounds, against one light model (K = 100,
50 iterations). Prints JSON: each run's seconds and the ratio of the medians.

    python benchmarks/bench_doc_seeding.py --data ../shared/data/20news-bydate.tar.gz
"""
import argparse
import json
import time

import numpy as np

from medlda import MedLDAClassifier
from medlda.data.readers import read_corpus


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", required=True)
    p.add_argument("--topics", type=int, default=100)
    p.add_argument("--rounds", type=int, default=4)
    args = p.parse_args()
    train = read_corpus(args.data, subset="train")
    test = read_corpus(args.data, subset="test", vocabulary=train.vocabulary)
    model = MedLDAClassifier(args.topics, sampler="light", n_iter=50, random_state=0).fit(train, train.single_labels())
    sampler, phi, alpha = model._make_sampler(), model._phi_wk(), model._alpha()
    seconds = {True: [], False: []}
    for r in range(args.rounds):
        for seeded in ((True, False) if r % 2 == 0 else (False, True)):
            tic = time.perf_counter()
            sampler.infer(test.word_ids, test.doc_ptr, phi, alpha, model.n_infer_burn, model.n_infer_avg,
                          np.random.default_rng(0), 1, doc_seeded=seeded)
            seconds[seeded].append(time.perf_counter() - tic)
    print(json.dumps({"n_topics": args.topics, "doc_seeded_seconds": seconds[True],
                      "block_streams_seconds": seconds[False],
                      "median_ratio": float(np.median(seconds[True]) / np.median(seconds[False]))}))


if __name__ == "__main__":
    main()
