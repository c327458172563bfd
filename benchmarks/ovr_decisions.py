"""One-vs-rest hinge on 20 Newsgroups: each binary model's decision values on the test and the
training documents (both inferred as at prediction), saved for ``ovr_decisions_report.py``.

    python benchmarks/ovr_decisions.py K SAMPLER SEED OUT.npz [ETA_DRAW]

ETA_DRAW (auto, exact, coordinate) sets light's eta draw (default auto).

Prints the test accuracy and the training accuracy from inferred topics as JSON lines.
"""
import json, sys, time
from pathlib import Path
import numpy as np
from medlda import MedLDAClassifier
from medlda.data.readers import read_corpus
from medlda.models.ovr import ovr_zbar
A = Path(__file__).resolve().parents[2] / "shared" / "data" / "20news-bydate.tar.gz"
K = int(sys.argv[1]); sampler = sys.argv[2]; seed = int(sys.argv[3]); out = sys.argv[4]
eta_draw = sys.argv[5] if len(sys.argv) > 5 else "auto"
tr = read_corpus(A, subset="train")
te = read_corpus(A, subset="test", vocabulary=tr.vocabulary)
y, yt = tr.single_labels(), te.single_labels()
t = time.perf_counter()
m = MedLDAClassifier(K, n_iter=50, random_state=seed, sampler=sampler, strategy="ovr", n_jobs=1,
                     eta_draw=eta_draw).fit(tr, y)
train_s = time.perf_counter() - t
eta = m.eta_  # (C, C*K)
zt = ovr_zbar(m, te)
omega_te = zt @ eta.T
acc = float(np.mean(m.classes_[np.argmax(omega_te, 1)] == yt))
print(json.dumps(dict(K=K, sampler=sampler, seed=seed, eta_draw=eta_draw, acc=acc, train_seconds=train_s)), flush=True)
zr = ovr_zbar(m, tr)
omega_tr = zr @ eta.T
np.savez(out, omega_te=omega_te, omega_tr=omega_tr, yt=yt, y=y, classes=m.classes_,
         eta=np.stack([s.eta_[0] for s in m.estimators_]),
         train_acc=m.train_accuracy_)
print(json.dumps(dict(train_acc_inferred=float(np.mean(m.classes_[np.argmax(omega_tr, 1)] == y)))), flush=True)
