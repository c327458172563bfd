"""What the collapsed light sampler's approximation costs: how far its chains' distribution of a
statistic lies from the exact posterior's, beyond the exact partial variant's distance (the Monte
Carlo noise floor), as documents grow in number and in length (suite "collapsed_bias").

Corpora: two topics, three words; ``D x L`` is D documents of L tokens, even documents repeating
the words 0 1 0, odd ones 1 2 2. Targets: unsupervised LDA ("lda"), and a fixed classifier and
augmentation ("supervised": two tasks, eta, kappa and w of tests/samplers/test_exact_posterior.py,
document d taking row d mod 2). Statistic: n_d0, the number of an even document's tokens in topic
0, pooled over the even documents (exchangeable, so each has document 0's marginal); for LDA
folded to min(n_d0, L - n_d0), which does not depend on the topics' labels. Reference: its exact
distribution (``marginals.TwoTopicPosterior``, enumeration summed out document by document, exact
at every size here). Chains: for each corpus, target, proposal mode and sampler (light collapsed,
light partial; same n_mh), ``--seeds`` independent chains, each started from an exact posterior
draw (so no chain has to find the posterior's mode, and an exact sampler is stationary from its
first sweep), ``--burn-in`` sweeps discarded, then the histogram of ``--sweeps`` sweeps.
A posterior mode the chains do not cross in that time (supervised 2x48: 4e-4 of the mass) adds
its mass to the distance of most chains, collapsed and partial alike.

Rows, per chain: "tv_to_exact" (total variation from the exact distribution) and "mean_error"
(the chain's mean of n_d0 / L, or of min(n_d0, L - n_d0) / L, minus the exact mean). Per cell and
sampler: "tv_to_exact_mean" (mean over seeds, 95% t-interval in "ci95", each seed's value in
"each_seed") and "tv_pooled" (total variation of the seeds' mean histogram). Per cell, paired by
seed (both samplers' chains start from the same draw, so a posterior mode that no chain leaves in
its length weighs on both alike): "tv_excess", collapsed minus partial total variation, and
"mean_shift", collapsed minus partial chain mean; each the mean over seeds with its 95% t-interval
and, in "floor", the partial variant's mean total variation. The script prints both as Markdown
tables.

    python benchmarks/bench_collapsed_bias.py                    # the full grid
    python benchmarks/bench_collapsed_bias.py --quick            # a smoke run, under a minute
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np
from marginals import TwoTopicPosterior
from rows import RowWriter, add_out_argument
from scipy import stats

from medlda.engine.state import ChainState
from medlda.samplers import Light

PATTERNS = ((0, 1, 0), (1, 2, 2))  # the words of even and odd documents, repeated to length L
V, K = 3, 2
ALPHA, BETA = 0.5, 0.3
ETA = np.array([[1.5, -1.0], [-0.5, 2.0]])  # fixed classifier and augmentation, row d % 2 for document d
KAPPA = np.array([[1.0, -0.5], [-1.0, 0.7]])
W = np.array([[0.8, 0.3], [1.2, 0.5]])
MODES = ("mixture", "word", "cycle", "exp", "scan", "doc")
SAMPLERS = ("collapsed", "partial")
FULL = {"cells": "2x3,8x3,32x3,2x12,2x48,8x12", "modes": ",".join(MODES), "seeds": 5, "sweeps": 6000, "burn_in": 300}
QUICK = {"cells": "2x3,8x3", "modes": "mixture,doc", "seeds": 3, "sweeps": 1500, "burn_in": 100}


@dataclass(frozen=True)
class Cell:
    """A corpus of ``n_docs`` documents of ``length`` tokens and a target ('lda' or 'supervised')."""

    n_docs: int
    length: int
    target: str

    def docs(self) -> list[list[int]]:
        return [[PATTERNS[d % 2][j % 3] for j in range(self.length)] for d in range(self.n_docs)]

    def tasks(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(eta, kappa, w) of the sweeps: no task for LDA."""
        if self.target == "lda":
            return np.zeros((0, K)), np.zeros((self.n_docs, 0)), np.zeros((self.n_docs, 0))
        rows = np.arange(self.n_docs) % 2
        return ETA, KAPPA[rows], W[rows]

    def doc_factor(self, d: int, n0: np.ndarray) -> np.ndarray:
        """log of the fixed augmentation's factor: sum_t kappa_dt omega_dt - w_dt omega_dt^2 / 2,
        omega_d = zbar_d eta^T with zbar_d = (n0, L - n0) / L."""
        share = np.asarray(n0, dtype=float) / self.length
        omega = np.outer(share, ETA[:, 0]) + np.outer(1.0 - share, ETA[:, 1])  # (configs, T)
        return (KAPPA[d % 2] * omega - 0.5 * W[d % 2] * omega ** 2).sum(axis=1)

    def posterior(self) -> TwoTopicPosterior:
        return TwoTopicPosterior(self.docs(), V, ALPHA, BETA, None if self.target == "lda" else self.doc_factor)

    def exact(self, posterior: TwoTopicPosterior) -> np.ndarray:
        """The statistic's exact distribution: the n_d0 marginal of an even document (the last:
        every even document has the same), folded for LDA."""
        return self.fold(posterior.doc_marginal(2 * ((self.n_docs - 1) // 2)))

    def fold(self, p: np.ndarray) -> np.ndarray:
        """LDA: the distribution of min(n, L - n) from that of n; supervised: unchanged."""
        if self.target != "lda":
            return p
        half = self.length // 2
        out = p[:half + 1].copy()
        out[:self.length - half] += p[::-1][:self.length - half]
        return out

    def values(self) -> np.ndarray:
        """The statistic's value at each bin, as a share of the document: n / L."""
        return np.arange(self.length // 2 + 1 if self.target == "lda" else self.length + 1) / self.length


@dataclass(frozen=True)
class Chain:
    """One chain of a sampler ('collapsed' or 'partial') in a proposal mode on a cell."""

    cell: Cell
    mode: str
    sampler: str
    seed: int
    start: np.ndarray  # an exact draw of Z
    n_mh: int
    sweeps: int
    burn_in: int


def run(chain: Chain) -> tuple[np.ndarray, float]:
    """The chain's histogram of the statistic (a distribution) and its seconds."""
    tic = time.perf_counter()
    cell, docs = chain.cell, chain.cell.docs()
    word_ids = np.array([v for doc in docs for v in doc], np.int32)
    doc_ptr = np.arange(cell.n_docs + 1, dtype=np.int64) * cell.length
    rng = np.random.default_rng([chain.seed, SAMPLERS.index(chain.sampler)])
    state = ChainState.initialize(word_ids, doc_ptr, V, K, np.full(K, ALPHA), BETA, rng)
    state.z[:] = chain.start
    state.refresh_counts()
    sampler, tasks = Light(chain.sampler, chain.mode, n_mh=chain.n_mh), cell.tasks()
    for _ in range(chain.burn_in):
        sampler.sweep(state, *tasks, rng)
    trace = np.empty((chain.sweeps, word_ids.size), np.int32)
    for i in range(chain.sweeps):
        sampler.sweep(state, *tasks, rng)
        trace[i] = state.z
    n0 = (trace.reshape(chain.sweeps, cell.n_docs, cell.length)[:, ::2] == 0).sum(axis=2)
    hist = np.bincount(n0.ravel(), minlength=cell.length + 1) / n0.size
    return cell.fold(hist), time.perf_counter() - tic


def t_interval(values: list[float]) -> tuple[float, float, float]:
    """Mean and its 95% Student t-interval over independent values."""
    x = np.asarray(values, dtype=float)
    mean = float(x.mean())
    half = float(stats.t.ppf(0.975, x.size - 1) * x.std(ddof=1) / np.sqrt(x.size)) if x.size > 1 else np.inf
    return mean, mean - half, mean + half


def tv(p: np.ndarray, q: np.ndarray) -> float:
    return 0.5 * float(np.abs(p - q).sum())


def r5(*values: float) -> list[float]:
    return [round(float(v), 5) for v in values]


def measure(cell: Cell, modes: list[str], args, out: RowWriter, pool) -> list[dict]:
    """Every chain of one cell; writes its rows and returns the paired ones ("tv_excess",
    "mean_shift")."""
    posterior = cell.posterior()
    exact = cell.exact(posterior)
    exact_mean = float(exact @ cell.values())
    starts = posterior.draws(np.random.default_rng([args.seed, cell.n_docs, cell.length]), args.seeds)
    chains = [Chain(cell, mode, sampler, args.seed + s, starts[s], args.n_mh, args.sweeps, args.burn_in)
              for mode in modes for sampler in SAMPLERS for s in range(args.seeds)]
    results = list(pool.map(run, chains)) if pool is not None else [run(c) for c in chains]
    found: dict[tuple[str, str], list] = {}
    for chain, (hist, seconds) in zip(chains, results):
        config = {"target": cell.target, "proposal": chain.mode, "n_docs": cell.n_docs,
                  "doc_length": cell.length, "sampler": f"light-{chain.sampler}"}
        context = {"seed": chain.seed, "sweeps": args.sweeps, "burn_in": args.burn_in, "n_mh": args.n_mh,
                   "tokens": cell.n_docs * cell.length}
        distance, error = tv(hist, exact), float(hist @ cell.values()) - exact_mean
        out.write(config, "tv_to_exact", round(distance, 5), "", chain_seconds=round(seconds, 2), **context)
        out.write(config, "mean_error", round(error, 6), "", **context)
        found.setdefault((chain.mode, chain.sampler), []).append((config, hist, distance, error))
    paired = []
    for mode in modes:
        for sampler in SAMPLERS:
            config, hists, distances = found[mode, sampler][0][0], *zip(*(f[1:3] for f in found[mode, sampler]))
            mean, lo, hi = t_interval(distances)
            out.write(config, "tv_to_exact_mean", round(mean, 5), "", ci95=r5(lo, hi), each_seed=r5(*distances))
            out.write(config, "tv_pooled", round(tv(np.mean(hists, axis=0), exact), 5), "")
        config = {"target": cell.target, "proposal": mode, "n_docs": cell.n_docs, "doc_length": cell.length}
        (collapsed, partial) = (found[mode, sampler] for sampler in SAMPLERS)
        for metric, column in (("tv_excess", 2), ("mean_shift", 3)):
            each = [c[column] - p[column] for c, p in zip(collapsed, partial)]
            mean, lo, hi = t_interval(each)
            paired.append(out.write(config, metric, round(mean, 5), "", ci95=r5(lo, hi), each_seed=r5(*each),
                                    floor=round(float(np.mean([p[2] for p in partial])), 5)))
    return paired


def table(paired: list[dict], metric: str, cells: list[str]) -> str:
    """Markdown: one row per target and mode, one column per corpus; each entry a paired metric
    (collapsed minus partial) +- its 95% half-width, "tv_excess" followed by the partial floor."""
    tokens = [int(c.split("x")[0]) * int(c.split("x")[1]) for c in cells]
    lines = ["| target | proposal | " + " | ".join(f"{c} ({n} tokens)" for c, n in zip(cells, tokens)) + " |",
             "|---|---|" + "---|" * len(cells)]
    rows = {(r["config"]["target"], r["config"]["proposal"], f"{r['config']['n_docs']}x{r['config']['doc_length']}"): r
            for r in paired if r["metric"] == metric}
    for target, mode in sorted({k[:2] for k in rows}, key=lambda k: (k[0], MODES.index(k[1]))):
        entries = []
        for name in cells:
            r = rows.get((target, mode, name))
            if r is None:
                entries.append("")
                continue
            entry = f"{r['value']:+.4f} ± {(r['ci95'][1] - r['ci95'][0]) / 2:.4f}"
            entries.append(entry + (f" / {r['floor']:.4f}" if metric == "tv_excess" else ""))
        lines.append(f"| {target} | {mode} | " + " | ".join(entries) + " |")
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help=f"smoke run: {QUICK} unless given")
    p.add_argument("--cells", help=f"corpora DxL, comma-separated (default {FULL['cells']})")
    p.add_argument("--modes", help="proposal modes (default all six)")
    p.add_argument("--targets", default="lda,supervised")
    p.add_argument("--seeds", type=int, help=f"independent chains per cell and sampler (default {FULL['seeds']})")
    p.add_argument("--sweeps", type=int, help=f"sweeps per chain after burn-in (default {FULL['sweeps']})")
    p.add_argument("--burn-in", type=int, help=f"sweeps discarded first (default {FULL['burn_in']})")
    p.add_argument("--n-mh", type=int, default=6, help="MH steps per token (the library's default 6)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=1, help="processes running chains")
    add_out_argument(p)
    args = p.parse_args()
    for key, value in (QUICK if args.quick else FULL).items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    out = RowWriter("collapsed_bias", args.out)
    cells = args.cells.split(",")
    paired = []
    pool = ProcessPoolExecutor(args.jobs) if args.jobs > 1 else None
    try:
        for target in args.targets.split(","):
            for name in cells:
                n_docs, length = (int(x) for x in name.split("x"))
                paired += measure(Cell(n_docs, length, target), args.modes.split(","), args, out, pool)
    finally:
        if pool is not None:
            pool.shutdown()
    for metric in ("tv_excess", "mean_shift"):
        print(f"\n{metric}\n\n{table(paired, metric, cells)}")
    print(out.path)


if __name__ == "__main__":
    main()
