"""Does an asymmetric alpha learned by Minka's fixed point (Wallach's digamma-recurrence form,
Gamma(1.001, 1) prior on each alpha_k) help 20-class validation accuracy? Light multitask hinge on
``validation_split``'s split; alpha updated every EVERY sweeps from sweep BURN (EVERY = 0: the
symmetric default), the learned alpha used at prediction. One JSON line per seed.

    python benchmarks/optimized_alpha.py K SEEDS EVERY BURN     # e.g. 200 0,1,2 10 10
"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from validation_split import DEFAULT_DATA, split  # noqa: E402

from medlda import MedLDAClassifier
from medlda import samplers  # noqa: E402


def minka(alpha, n_dk, lengths, iters=50, shape=1.001, scale=1.0):
    """Fixed-point iterations alpha_k <- (alpha_k sum_d [psi(n_dk + alpha_k) - psi(alpha_k)] + shape - 1)
    / (sum_d [psi(N_d + alpha_0) - psi(alpha_0)] + 1 / scale), the digamma differences summed from
    histograms of n_dk and N_d."""
    n_topics = alpha.size
    max_n = int(n_dk.max())
    hist = np.bincount((np.arange(n_topics)[None, :] * (max_n + 1) + n_dk).ravel(),
                       minlength=n_topics * (max_n + 1)).reshape(n_topics, max_n + 1)[:, 1:]
    lengths_hist = np.bincount(lengths)[1:]
    steps, length_steps = np.arange(max_n), np.arange(lengths_hist.size)
    for _ in range(iters):
        num = (hist * np.cumsum(1.0 / (alpha[:, None] + steps[None, :]), axis=1)).sum(axis=1)
        den = (lengths_hist * np.cumsum(1.0 / (alpha.sum() + length_steps))).sum()
        new = (alpha * num + shape - 1) / (den + 1 / scale)
        done = np.max(np.abs(new - alpha)) < 1e-6 * alpha.max()
        alpha = new
        if done:
            break
    return np.maximum(alpha, 1e-5)


def main() -> None:
    n_topics, seeds, every, burn = int(sys.argv[1]), [int(s) for s in sys.argv[2].split(",")], int(sys.argv[3]), \
        int(sys.argv[4])
    train, y, held, y_held = split(DEFAULT_DATA)
    sweep = samplers.Light.sweep
    learned = {}

    def sweep_then_alpha(self, state, eta, kappa, w, rng):
        sweep(self, state, eta, kappa, w, rng)
        self._it = getattr(self, "_it", 0) + 1
        if every and self._it >= burn and self._it % every == 0:
            state.alpha[:] = minka(state.alpha.copy(), state.n_dk, np.diff(state.doc_ptr))
        learned["alpha"] = state.alpha.copy()

    samplers.Light.sweep = sweep_then_alpha
    for seed in seeds:
        model = MedLDAClassifier(n_topics, n_iter=50, random_state=seed, sampler="light", n_jobs=1)
        model.fit(train, y)
        alpha = learned["alpha"]
        model._alpha = lambda a=alpha: a
        print(json.dumps(dict(K=n_topics, seed=seed, every=every, burn=burn, val_acc=float(model.score(held, y_held)),
                              alpha_sum=float(alpha.sum()), alpha_min=float(alpha.min()),
                              alpha_max=float(alpha.max()), train_acc=model.train_accuracy_)), flush=True)


if __name__ == "__main__":
    main()
